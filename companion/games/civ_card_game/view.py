"""Civilization: The Card Game in plain words for the shell (no Kivy): what to do at the table,
each player's plots, resources and statuses, every price with what lowers it, the result."""
from __future__ import annotations

import json
import os

from companion.games.contract import GameView

from .data_load import DATA, RES

STEP_NAMES = {"deal": "Deal the plots", "draft": "Plot draft", "market": "Face-up cards", "population": "Free population",
              "hands": "Initial hands", "collect": "Collect", "purchase": "Purchase", "combat": "Combat",
              "draw": "Draw and discard"}
RES_WORDS = {"food": ("Food", "Food"), "hammer": ("Hammer", "Hammers"), "coin": ("Coin", "Coins")}
DECIDED = {"vp": "most Victory Points", "technologies": "tie on VP, broken by technologies",
           "population": "tie on VP and technologies, broken by population",
           "wonders": "tie on VP, technologies and population, broken by wonders",
           "shared": "tied on VP, technologies, population and wonders"}


def res_words(m) -> str:
    """'2 Food, 1 Hammer' from a mapping or a (food, hammer, coin) triple."""
    if not isinstance(m, dict):
        m = dict(zip(RES, m))
    parts = [f"{n} {RES_WORDS[r][n != 1]}" for r, n in ((r, m.get(r, 0)) for r in RES) if n]
    return ", ".join(parts) or "nothing"


class CivCardView(GameView):
    def __init__(self):
        with open(os.path.join(DATA, "help.json"), encoding="utf-8") as f:
            self._help = json.load(f)

    def step_label(self, step):
        return STEP_NAMES.get(step) or super().step_label(step)

    def phase_label(self, phase):
        return {"turn": "Turn", "setup": "Setup"}.get(phase) or super().phase_label(phase)

    def step_help(self, step):
        return self._help.get(step, "")

    @staticmethod
    def plot_name(state, seat, i):
        if state is None or not 0 <= i < len(state.plots.get(seat, ())):
            return f"plot {i + 1}"
        return f"plot {i + 1} ({state.plots[seat][i][0]})"

    # ---------------------------------------------------------------- actions
    def action_label(self, action, state, setup):
        t = action.get("type")
        who = self.name(setup, action.get("player")) if action.get("player") else ""
        plot = lambda seat=None: self.plot_name(state, seat or action["player"], action["plot"])  # noqa: E731
        tgt = lambda: self.name(setup, action["target"])  # noqa: E731
        att = lambda: self._attacker_words(state, setup, action["attacker"])  # noqa: E731
        words = {
            "turn_up": lambda: f"turned up {action['card']}",
            "draft": lambda: f"takes {action['card']} from the draft",
            "place_population": lambda: f"free population on {plot()}",
            "discard": lambda: "discarded " + self._discard_words(action, 2),
            "collect": lambda: "collect" + (f" (extras: {res_words(action.get('bonus') or {})})"
                                            if any((action.get("bonus") or {}).values()) else ""),
            "buy_population": lambda: f"buy a population for {plot()}",
            "buy_plot": lambda: f"buy the plot {action['card']} for {res_words(action['pay'])}",
            "buy_tech": lambda: f"buy {action['card']}",
            "build": lambda: f"build {action['card']} on {plot()}",
            "play_resource": lambda: f"play {action['card']}",
            "trade": lambda: f"trade 3 {RES_WORDS[action['give']][1]} for 1 {RES_WORDS[action['get']][0]}"
            if action.get("give") in RES and action.get("get") in RES else "trade with the bank",
            "steal_card": lambda: f"take {action.get('card') or 'a card'} from {tgt()}'s hand",
            "steal_resources": lambda: f"take {res_words(action['take'])} from {tgt()}",
            "done": lambda: "done" if state is None else ("done buying" if state.step == "purchase" else "no combat"),
            "attack": lambda: f"attack {tgt()} with {action['card']}",
            "fight": lambda: "resolve the attack",
            "bounce": lambda: f"walls bounce {att()}",
            "block": lambda: f"block {att()} with {action['card']}",
            "defend_done": lambda: "done defending",
            "lose_population": lambda: f"lose a population from {plot()}",
            "take_population": lambda: f"put the captured population on {plot()}",
            "lose_building": lambda: f"lose {action['card']} from {plot()}",
            "end_turn": lambda: "draw and discard, end the turn",
            "correct": lambda: f"correct {self._what(action['what'])} to {action['value']}",
        }
        fn = words.get(t)
        text = fn() if fn else super().action_label(action, state, setup)
        return f"{who}: {text}" if who else text

    @staticmethod
    def _what(what):
        return {"hand": "cards in hand"}.get(what) or RES_WORDS.get(what, (what, what))[1]

    @staticmethod
    def _discard_words(action, n):
        known = action.get("known") or []
        return f"{n} cards" + (f" (among them {', '.join(known)})" if known else "")

    def _attacker_words(self, state, setup, i):
        if state is None or not 0 <= i < len(state.combat):
            return f"attacking unit {i + 1}"
        return f"{self.name(setup, state.current)}'s {state.combat[i][0]} (unit {i + 1})"

    # ---------------------------------------------------------------- the moment
    def last_outcome(self, game, state, setup) -> str:
        last = state.last
        if not last:
            return ""
        kind, seat = last[0], self.name(setup, last[1])
        if kind == "collect":
            return f"{seat} collected {res_words(last[2])}."
        if kind == "bought":
            return f"{seat} bought {last[2]} for {last[3]}."
        if kind == "played":
            return f"{seat} played {last[2]}."
        if kind == "traded":
            return f"{seat} traded 3 {RES_WORDS[last[2]][1]} for 1 {RES_WORDS[last[3]][0]}."
        if kind == "stole":
            return f"{seat} took {last[3]} from {self.name(setup, last[2])}."
        if kind == "declared":
            return f"{seat} attacks {self.name(setup, last[3])} with {last[2]}."
        if kind == "no_combat":
            return f"{seat} did not attack."
        if kind == "combat":
            fates = {"blocked": "blocked", "bounced": "bounced back", "walls": "broke the walls", "in": "got through"}
            return f"{seat}'s attack: " + "; ".join(f"{c} against {self.name(setup, t)} {fates[f]}" for c, t, f in last[2]) + "."
        if kind == "drew":
            return f"{seat} drew {last[2]} and discarded {last[3]}."
        if kind == "corrected":
            return f"Corrected: {seat}'s {self._what(last[2])} are now {last[3]}."
        return ""

    def prompt(self, game, state, setup, dice):
        if game.is_over(state):
            return self.result_text(game, state, setup)
        s = state
        h = game.head(s)
        text = self._task_prompt(game, s, setup, h) if h else self._step_prompt(game, s, setup)
        out = self.last_outcome(game, s, setup)
        return f"{out}\n{text}" if out else text

    def _task_prompt(self, game, s, setup, h):
        kind, who, arg = h
        name = self.name(setup, who)
        if kind == "deal":
            return f"{name} (dealer): deal a plot card face up to {self.name(setup, arg)}, and tap its name."
        if kind == "row":
            return f"{name} (dealer): lay a plot card face up for the draft, and tap its name."
        if kind == "turn_up":
            what = "technology" if arg == "techs" else "plot"
            return f"{name}: turn up a new {what} card to keep three face up, and tap its name."
        if kind == "draft":
            return f"{name}: take one of the plots laid out for the draft ({', '.join(s.draft_row)})."
        if kind == "population":
            return f"{name}: put your free population card on one of your plots."
        if kind == "discard":
            return f"{name}: you hold {s.hand[who]} cards; discard 2 of them, then tap Discarded."
        if kind == "steal_card":
            return (f"{name} (Writing): take one card at random from an opponent's hand. Tap whose; if it was a card "
                    "the app lists as known, tap that one.")
        if kind == "steal_resources":
            return f"{name} (Code of Laws): take {arg} resources from an opponent; choose whose and which."
        if kind == "bounce":
            return (f"{name}: your walls send one attacking unit back to {self.name(setup, s.current)}'s hand: "
                    "choose which.")
        if kind == "defend":
            return (f"{name}: block attacking units with defenders from your hand (each blocks one unit; Spearmen "
                    "only block Chariots), then tap Done defending. You need not defend.")
        if kind == "lose_population":
            unit = s.combat[arg][0]
            return f"{name}: {self.name(setup, s.current)}'s {unit} captures a population: choose the plot it leaves."
        if kind == "take_population":
            return f"{name}: put the captured population on one of your plots."
        if kind == "lose_building":
            unit = s.combat[arg][0]
            return (f"{name}: {self.name(setup, s.current)}'s {unit} destroys a building: choose which (it goes back "
                    "to your hand).")
        return f"{name}: decide."  # pragma: no cover - every task kind is named above

    def _step_prompt(self, game, s, setup):
        seat = s.current
        name = self.name(setup, seat)
        if s.step == "collect":
            pop = sum(p for _, p, _ in s.plots[seat])
            extra = f", plus {pop} extra from your population (choose the mix)" if pop else ""
            return f"{name}: collect {res_words(game.fixed_yield(s, seat))} from the bank{extra}."
        if s.step == "purchase":
            return f"{name}: buy what you can pay for (every price is listed with what lowers it), then tap Done buying."
        if s.step == "combat":
            if s.combat:
                units = ", ".join(f"{c} against {self.name(setup, t)}" for c, t, _ in s.combat)
                return f"{name}: attacking with {units}. Add units or tap Resolve the attack."
            foes = " or ".join(self.name(setup, p) for p in game.neighbours(s, seat))
            return f"{name}: play attacking units from your hand against {foes}, or tap No combat."
        if s.step == "draw":
            draw, discard = game.draw_count(s, seat)
            return f"{name}: draw {draw} cards and discard {discard}, then tap End the turn."
        return f"{name}: choose an action."

    def player_lines(self, game, state, setup, seat, player=None):
        s = state
        sc = game.vp(s, seat)
        status = []
        if seat in game.highest_culture(s):
            status.append("Highest Culture")
        if seat in game.highest_happiness(s):
            status.append("Highest Happiness")
        lines = [("VP", f"[b]{sum(sc.values())}[/b] ({sc['Population']} pop, {sc['Technologies']} tech, "
                        f"{sc['Wonders']} wonder{'' if sc['Wonders'] == 1 else 's'})"),
                 ("Resources", res_words(s.res[seat])),
                 ("Culture / Happiness", f"{game.culture(s, seat)} / {game.happiness(s, seat)}"
                  + (f"  [b]{', '.join(status)}[/b]" if status else "")),
                 ("Hand", f"{s.hand[seat]} card{'' if s.hand[seat] == 1 else 's'}"
                  + (f" (known: {', '.join(s.known[seat])})" if s.known[seat] else ""))]
        for i, (name, pop, built) in enumerate(s.plots[seat]):
            y = res_words(game.plot_cards[name]["yield"])
            lines.append((f"Plot {i + 1}", f"{name} ({y}): {pop} pop" + (f"; {', '.join(built)}" if built else ""),
                          "small"))
        if s.techs[seat]:
            lines.append(("Technologies", ", ".join(s.techs[seat]), "block"))
        return lines

    def score(self, game, state):
        return game.score(state)

    def result(self, game, state):
        return game.result(state)

    def headline(self, game, state, setup):
        r = self.result(game, state)
        if r["winner"]:
            return f"{self.name(setup, r['winner'])} wins"
        return "Shared victory: " + ", ".join(self.name(setup, p) for p in r["winners"])

    def tiebreak(self, game, state, setup):
        r = self.result(game, state)
        return DECIDED.get(r["decided_by"]) if r["decided_by"] != "vp" else None

    def end_reasons(self, game, state, setup):
        return ["The last technology was bought."] if state.over else []

    # ---------------------------------------------------------------- the purchase list
    def prices(self, game, state, seat):
        """[(what, kind, card, plot, base, [(source, off)], price)] of every purchase open to `seat`."""
        s = state
        out = []
        for i in range(len(s.plots[seat])):
            base, offs = game.price_parts(s, seat, "population", plot=i)
            out.append((f"Population on {self.plot_name(s, seat, i)}", "population", None, i, base, offs,
                        game.price(s, seat, "population", plot=i)))
        for card in dict.fromkeys(s.plot_row):
            out.append((f"Plot {card}", "plot", card, None, game.price(s, seat, "plot"), [], game.price(s, seat, "plot")))
        for card in s.tech_row:
            base, offs = game.price_parts(s, seat, "technology", card)
            out.append((f"Technology {card}", "technology", card, None, base, offs,
                        game.price(s, seat, "technology", card)))
        for card in game.playable(s, seat, lambda c: c in game.buildings or c in game.wonders):
            kind = game.kind_of(card)
            base, offs = game.price_parts(s, seat, kind, card)
            out.append((f"{kind.title()} {card}", kind, card, None, base, offs, game.price(s, seat, kind, card)))
        return out

    @staticmethod
    def price_words(row) -> str:
        what, kind, _, _, base, offs, price = row
        pay = {"population": "Food", "plot": "resources", "technology": "Coins", "building": "Hammers",
               "wonder": "Hammers"}[kind]
        if not offs:
            return f"{what}: {price} {pay}"
        minus = " ".join(f"- {n} ({src})" for src, n in offs)
        return f"{what}: {base} {minus} = {price} {pay}"

    def combat_lines(self, game, state, setup) -> list:
        """The combat helper's text: each unit, its target and fate, then what is asked now."""
        s = state
        if s.step != "combat" or s.over:
            return []
        att = self.name(setup, s.current)
        if not s.combat:
            foes = " or ".join(self.name(setup, p) for p in game.neighbours(s, s.current))
            return [f"{att} may attack {foes}: add units from the hand, one by one, then resolve."]
        fates = {"in": "attacking", "blocked": "blocked", "bounced": "bounced back to the hand",
                 "walls": "destroyed City Walls (discarded)"}
        lines = [f"[b]{att}'s attack[/b]"]
        for i, (card, tgt, fate) in enumerate(s.combat):
            dmg = game.units[card]["damage"]
            does = {"population": "captures 1 population", "building": "destroys 1 building"}.get(dmg, "no damage")
            lines.append(f"{i + 1}. {card} against {self.name(setup, tgt)}: {fates[fate]}"
                         + (f" - {does} if not blocked" if fate == "in" else ""))
        if not s.fought:
            lines.append("Then: Catapults break City Walls; walls and the Great Wall bounce one unit; defenders "
                         "block; what gets through does its damage.")
        h = game.head(s)
        if h is not None:
            kind, who = h[0], self.name(setup, h[1])
            lines.append({"bounce": f"Now: {who}'s walls bounce one unit.",
                          "defend": f"Now: {who} blocks with legal defenders (Spearmen only block Chariots).",
                          "lose_population": f"Now: {who} chooses the plot that loses a population.",
                          "take_population": f"Now: {who} places the captured population.",
                          "lose_building": f"Now: {who} chooses the building destroyed."}.get(kind, ""))
        return lines

    def snapshot(self, game, state, setup):
        s = state
        out = {"cc_prices": [], "cc_combat": self.combat_lines(game, s, setup), "cc_purchase": {}}
        if s.over or s.step != "purchase":
            return out
        if game.head(s):
            out["cc_purchase"] = {"title": "Finish the decision below first; then buy."}
            return out
        seat = s.current
        out["cc_prices"] = [self.price_words(r) for r in self.prices(game, s, seat)]
        out["cc_purchase"] = {"player": seat, "plot_row": list(dict.fromkeys(s.plot_row)),
                              "title": f"{self.name(setup, seat)} has {res_words(s.res[seat])}. Prices:"}
        return out
