"""Civilization: The Card Game in plain words for the shell (no Kivy): what to do at the table,
each player's plots, resources and statuses, every price with what lowers it, the result."""
from __future__ import annotations

import json
import os

from companion.games.contract import GameView, Pick

from .data_load import DATA, RES

STEP_NAMES = {"deal": "Deal the plots", "draft": "Plot draft", "market": "Face-up cards", "population": "Free population",
              "hands": "Initial hands", "collect": "Collect", "purchase": "Purchase", "combat": "Combat",
              "draw": "Draw and discard"}
RES_WORDS = {"food": ("Food", "Food"), "hammer": ("Hammer", "Hammers"), "coin": ("Coin", "Coins")}
DECIDED = {"vp": "most Victory Points", "technologies": "tie on VP, broken by technologies",
           "population": "tie on VP and technologies, broken by population",
           "wonders": "tie on VP, technologies and population, broken by wonders",
           "shared": "tied on VP, technologies, population and wonders"}


def count_words(n, one, many=None) -> str:
    """'1 card', '2 cards', '0 cards' (`many` for an irregular plural)."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def ordinal(n) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth"}.get(n, f"{n}th")


# what each kind of purchase is paid with, as the players say it: (one, many)
PAY_WORDS = {"population": ("Food", "Food"), "plot": ("resource", "resources"), "technology": ("Coin", "Coins"),
             "building": ("Hammer", "Hammers"), "wonder": ("Hammer", "Hammers")}

TYPE_WORDS = {"turn_up": "Name the card turned up", "draft": "Take a plot from the draft",
              "place_population": "Place the free population", "discard": "Discard", "collect": "Collect",
              "buy_population": "Buy a population", "buy_plot": "Buy a face-up plot",
              "buy_tech": "Buy a technology", "build": "Build a building or wonder",
              "play_resource": "Play a resource card", "trade": "Trade with the bank",
              "steal_card": "Take a card (Writing)", "steal_resources": "Take resources (Code of Laws)",
              "done": "Done", "attack": "Attack with a unit", "fight": "Resolve the attack",
              "bounce": "Bounce a unit with walls", "block": "Block with a defender",
              "defend_done": "Done defending", "lose_population": "Lose a population",
              "take_population": "Place the captured population", "lose_building": "Lose a building",
              "end_turn": "End the turn", "correct": "Correct a count"}


KIND_WORDS = {"plot": "plot", "technology": "technology", "building": "building", "wonder": "wonder",
              "unit": "military unit", "resource": "resource"}


def _a(word) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _and(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _first_up(text) -> str:
    return text[:1].upper() + text[1:]


def pay_words(kind, n) -> str:
    one, many = PAY_WORDS[kind]
    return f"{n} {one if n == 1 else many}"


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

    def round(self, state):
        """No round during the set-up (the engine counts it as round 0): the header does not say
        "Round 0" and the end of the set-up is not a round that ended (no empty round card)."""
        r = getattr(state, "round", None)
        return r or None

    def step_help(self, step):
        return self._help.get(step, "")

    # ---------------------------------------------------------------- pickers
    def picks(self, game, action_type, state=None, setup=None):
        """The fields a player picks, in order. A card turned up is named from the cards that can
        still be in its deck, the question saying where it went at the table ("Which plot card did
        you deal to Ben?") for the moment the shell passes; without one the question is general."""
        P = Pick
        if action_type == "turn_up":
            return (P("card", "card", self.turn_up_question(game, state, setup)),)
        return {
            "draft": (P("card", "card", "Which plot do you take from the draft?"),),
            "place_population": (P("plot", "choice", "On which of your plots?"),),
            "buy_population": (P("plot", "choice", "A population for which plot?"),),
            "buy_tech": (P("card", "card", "Which technology?"),),
            "build": (P("card", "card", "Which building or wonder from your hand?"),
                      P("plot", "choice", "On which plot?")),
            "play_resource": (P("card", "card", "Which resource card?"),),
            "trade": (P("give", "choice", "Give 3 of what?"), P("get", "choice", "Get 1 of what?")),
            "steal_card": (P("target", "seat", "From whose hand?"), P("card", "card", "Which card was it?")),
            "steal_resources": (P("target", "seat", "From whom?"), P("take", "choice", "Which resources?")),
            "attack": (P("card", "card", "Which unit attacks?"), P("target", "seat", "Whom does it attack?")),
            "bounce": (P("attacker", "choice", "Which attacking unit goes back?"),),
            "block": (P("attacker", "choice", "Which attacking unit do you block?"),
                      P("card", "card", "With which defender from your hand?")),
            "lose_population": (P("plot", "choice", "Which plot loses a population?"),),
            "take_population": (P("plot", "choice", "On which of your plots?"),),
            "lose_building": (P("plot", "choice", "From which plot?"), P("card", "card", "Which building?")),
            "collect": (P("bonus", "choice", "Which extra resources?"),),
        }.get(action_type) or super().picks(game, action_type)

    def turn_up_task(self, state):
        """(what, who, where, n, of) of the card awaited face up, or None: what is "deal", "row",
        "plots" or "techs"; where the seat dealt to; n-th card of `of` in its place."""
        h = state.queue[0] if state is not None and state.queue else None
        if h is None or h[0] not in ("deal", "row", "turn_up"):
            return None
        kind, who, arg = h
        if kind == "deal":
            return ("deal", who, arg, len(state.plots[arg]) + 1, sum(1 for k in state.queue if k[0] == "deal"
                                                                      and k[2] == arg) + len(state.plots[arg]))
        if kind == "row":
            return ("row", who, None, len(state.draft_row) + 1, len(state.seats))
        row = state.plot_row if arg == "plots" else state.tech_row
        return (arg, who, None, len(row) + 1, len(row) + sum(1 for k in state.queue if k == h))

    def turn_up_question(self, game, state, setup) -> str:
        t = self.turn_up_task(state)
        if t is None:
            return "Which card was turned up?"
        what, who, where, _, _ = t
        if what == "deal":
            return ("Which plot card did you deal to yourself?" if where == who
                    else f"Which plot card did you deal to {self.name(setup or {}, where)}?")
        if what == "row":
            return "Which plot card did you lay out for the draft?"
        return "Which technology card did you turn up?" if what == "techs" else "Which plot card did you turn up?"

    def turn_up_words(self, state, setup) -> str:
        """Where the awaited card goes at the table, for the prompt."""
        what, who, where, n, of = self.turn_up_task(state)
        name = self.name(setup, who)
        if what == "deal":
            if where == who:
                return (f"{name} (dealer): deal your own {ordinal(n)} plot card face up in front of you, "
                        "then tap its name.")
            return (f"{name} (dealer): deal {self.name(setup, where)}'s {ordinal(n)} plot card face up in front "
                    f"of {self.name(setup, where)}, then tap its name.")
        if what == "row":
            return (f"{name} (dealer): lay plot card {n} of {of} face up in the middle of the table for the draft, "
                    "then tap its name.")
        deck = "technology" if what == "techs" else "plot"
        if state.round == 0:
            return (f"{name} (dealer): turn up {deck} card {n} of {of} beside the {deck} deck (they stay face up "
                    "to be bought), then tap its name.")
        return (f"{name}: turn up a {deck} card beside the {deck} deck to replace the one bought, "
                "then tap its name.")

    def type_label(self, action_type) -> str:
        return TYPE_WORDS.get(action_type) or super().type_label(action_type)

    def value_label(self, game, state, setup, action_type, field, value) -> str:
        if field == "plot" and isinstance(value, int) and state is not None and not state.over:
            return _first_up(self.plot_name(state, game.actor(state), value))
        if field == "attacker" and isinstance(value, int):
            return self._attacker_words(state, setup, value)
        if field in ("give", "get") and value in RES_WORDS:
            return RES_WORDS[value][1] if field == "give" else RES_WORDS[value][0]
        if field == "card" and isinstance(value, str):
            return value  # a card by its printed name
        if field == "card" and value is None and action_type == "steal_card":
            return "A card the app does not know"
        if field in ("bonus", "take", "pay") and isinstance(value, dict):
            return res_words(value)
        return super().value_label(game, state, setup, action_type, field, value)

    # ---------------------------------------------------------------- a card that cannot be picked
    def unavailable_reason(self, game, state, setup, action_type, field, typed: str):
        """Why the card the player typed is not offered now, in plain words ("Both Gold Coast cards
        are already out (Ana's plot and the face-up plots)"); None for a name the game does not
        know. `typed` may be part of a name: every card name holding it is explained (at most 3)."""
        if field != "card" or state is None or not typed or not typed.strip():
            return None
        t = " ".join(typed.lower().split())
        names = [n for n in (*game.plot_cards, *game.techs, *game.play_deck) if n.lower() == t]
        names = names or [n for n in (*game.plot_cards, *game.techs, *game.play_deck) if t in n.lower()]
        why = [self._why_not_card(game, state, setup or {}, action_type, n) for n in dict.fromkeys(names)]
        why = [w for w in why if w]
        return " ".join(why[:3]) or None

    def _why_not_card(self, game, s, setup, action_type, name):
        me = game.actor(s)
        kind = ("plot" if name in game.plot_cards else "technology" if name in game.techs
                else game.kind_of(name))
        if action_type == "turn_up":
            task = self.turn_up_task(s)
            want = "technology" if task and task[0] == "techs" else "plot"
            if kind != want:
                return f"{name} is {_a(KIND_WORDS[kind])} card; the app asks for {_a(KIND_WORDS[want])} card."
            if want == "technology":
                return self._tech_where(s, setup, name)
            if s.plot_deck.get(name, 0):
                return None  # still in the deck: offered
            return self._all_out(name, game.plot_cards[name]["copies"], self._plot_places(s, setup, name))
        if action_type == "draft":
            if kind != "plot":
                return f"{name} is {_a(KIND_WORDS[kind])} card, not a plot."
            return f"{name} is not among the plots laid out for the draft ({', '.join(s.draft_row) or 'none'})."
        if action_type == "buy_tech":
            if kind != "technology":
                return f"{name} is {_a(KIND_WORDS[kind])} card, not a technology."
            if name not in s.tech_row:
                where = self._tech_where(s, setup, name)
                return where or (f"{name} is not face up: only the face-up technologies "
                                 f"({', '.join(s.tech_row) or 'none'}) can be bought.")
            price = game.price(s, me, "technology", name)
            coin = s.res[me][RES.index(game.rules["pay_with"]["technology"])]
            if price > coin:
                return f"{name} costs {pay_words('technology', price)}; you have {pay_words('technology', coin)}."
            return None
        wanted = {"build": ("building", "wonder"), "play_resource": ("resource",), "attack": ("unit",),
                  "block": ("unit",)}.get(action_type)
        if wanted is None or me is None:
            return None
        if kind not in wanted:
            return f"{name} is {_a(KIND_WORDS[kind])} card, not {' or '.join(_a(KIND_WORDS[k]) for k in wanted)}."
        unit = game.units.get(name) or {}
        if action_type == "attack" and not unit.get("attack"):
            return f"{name} cannot attack."
        if action_type == "block" and not unit.get("defend"):
            return f"{name} cannot defend."
        if not game.can_play(s, me, name):
            if s.hand[me] <= len(s.known[me]):
                held = ", ".join(s.known[me]) or "no cards"
                return f"The app knows every card in {self.name(setup, me)}'s hand ({held}): no {name} among them."
            return self._all_out(name, game.play_deck[name]["copies"], self._deck_places(s, setup, name))
        if action_type == "build":
            price = game.price(s, me, kind, name)
            have = s.res[me][RES.index(game.rules["pay_with"][kind])]
            if price > have:
                return f"{name} costs {pay_words(kind, price)}; you have {pay_words(kind, have)}."
            return "None of your plots has room for another building or wonder."
        if action_type == "block" and unit.get("defends_against"):
            return f"{name} can block only an attacking {' or '.join(unit['defends_against'])}."
        return None

    @staticmethod
    def _all_out(name, copies, places):
        where = f" ({_and(places)})" if places else ""
        if copies == 1:
            return f"The only {name} card is already out{where}."
        if copies == 2:
            return f"Both {name} cards are already out{where}."
        return f"All {copies} {name} cards are already out{where}."

    def _plot_places(self, s, setup, name):
        out = [(f"{self.name(setup, p)}'s plot", sum(1 for n, _, _ in s.plots[p] if n == name)) for p in s.seats]
        out += [("the face-up plots", s.plot_row.count(name)), ("the draft row", s.draft_row.count(name))]
        return [w if n == 1 else f"{w}s ({n})" if w.endswith("plot") else f"{w} ({n})" for w, n in out if n]

    def _deck_places(self, s, setup, name):
        out = []
        for p in s.seats:
            for i, (_, _, built) in enumerate(s.plots[p]):
                out += [f"{self.name(setup, p)}'s plot {i + 1}"] * built.count(name)
            if name in s.known[p]:
                out.append(f"{self.name(setup, p)}'s hand")
        n = s.discard_known.count(name)
        if n:
            out.append("the discard pile" + (f" ({n})" if n > 1 else ""))
        if any(c[0] == name and c[2] in ("in", "blocked") for c in s.combat):
            out.append("the combat")
        return out

    def _tech_where(self, s, setup, name):
        for p in s.seats:
            if name in s.techs[p]:
                return f"{name} is already out: {self.name(setup, p)} bought it."
        if name in s.tech_row:
            return f"{name} is already face up beside the technology deck."
        return None

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
            "turn_up": lambda: self._turn_up_label(action, state, setup),
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
            "end_turn": lambda: "end the turn",
            "correct": lambda: f"correct {self._what(action['what'])} to {action['value']}",
        }
        fn = words.get(t)
        text = fn() if fn else super().action_label(action, state, setup)
        return f"{who}: {text}" if who else text

    def _turn_up_label(self, action, state, setup):
        t = self.turn_up_task(state)
        card = action["card"]
        if t is None:
            return f"turned up {card}"
        what, who, where, _, _ = t
        if what == "deal":
            return f"dealt {card} to " + ("themselves" if where == who else self.name(setup, where))
        if what == "row":
            return f"laid out {card} for the draft"
        return f"turned up {card}" + (" (technology)" if what == "techs" else " (plot)")

    @staticmethod
    def _what(what):
        return {"hand": "cards in hand"}.get(what) or RES_WORDS.get(what, (what, what))[1]

    @staticmethod
    def _discard_words(action, n):
        known = action.get("known") or []
        return count_words(n, "card") + (f" (among them {', '.join(known)})" if known else "")

    def _attacker_words(self, state, setup, i):
        if state is None or not 0 <= i < len(state.combat):
            return f"the {ordinal(i + 1)} attacking unit"
        card = state.combat[i][0]
        same = [j for j, c in enumerate(state.combat) if c[0] == card]
        nth = f" ({ordinal(same.index(i) + 1)})" if len(same) > 1 else ""  # two alike: which one
        return f"{self.name(setup, state.current)}'s {card}{nth}"

    # ---------------------------------------------------------------- the moment
    def last_outcome(self, game, state, setup) -> str:
        last = state.last
        if not last:
            return ""
        kind, seat = last[0], self.name(setup, last[1])
        if kind == "collect":
            return f"{seat} collected {res_words(last[2])}."
        if kind == "bought":
            what = last[2]
            kind = ("population" if what.startswith("a population") else "plot" if what in game.plot_cards
                    else "technology" if what in game.techs else game.kind_of(what) or "plot")
            return f"{seat} bought {what} for {pay_words(kind, last[3])}."
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
            return f"{seat} drew {count_words(last[2], 'card')} and discarded {last[3]}."
        if kind == "corrected":
            what, v = last[2], last[3]
            if what == "hand":
                return f"Corrected: {seat} holds {count_words(v, 'card')}."
            return f"Corrected: {seat} has {v} {RES_WORDS[what][v != 1] if what in RES_WORDS else what}."
        return ""

    def prompt(self, game, state, setup, dice):
        if game.is_over(state):
            return self.result_text(game, state, setup)
        s = state
        h = game.head(s)
        text = self._task_prompt(game, s, setup, h) if h else self._step_prompt(game, s, setup)
        if s.round and s.round == game.rules.get("round_limit") and s.step == "collect" and not h:
            text += (f" This is round {s.round}, the last: the game ends after it, even with technologies "
                     "left to buy.")
        out = self.last_outcome(game, s, setup)
        return f"{out}\n{text}" if out else text

    def _task_prompt(self, game, s, setup, h):
        kind, who, arg = h
        name = self.name(setup, who)
        if kind in ("deal", "row", "turn_up"):
            return self.turn_up_words(s, setup)
        if kind == "draft":
            return f"{name}: take one of the plots laid out for the draft ({', '.join(s.draft_row)})."
        if kind == "population":
            return f"{name}: put your free population card on one of your plots."
        if kind == "discard":
            n = game.rules["initial_discard"]
            return (f"{name}: you hold {count_words(s.hand[who], 'card')}; discard {count_words(n, 'card')} "
                    "face down, then tap what you discarded.")
        if kind == "steal_card":
            return (f"{name} (Writing): take one card at random from an opponent's hand. Tap whose; if it was a card "
                    "the app lists as known, tap that one.")
        if kind == "steal_resources":
            return (f"{name} (Code of Laws): take {count_words(arg, 'resource')} from an opponent; "
                    "choose whose and which.")
        if kind == "bounce":
            return (f"{name}: your walls send one attacking unit back to {self.name(setup, s.current)}'s hand: "
                    "choose which.")
        if kind == "defend":
            return (f"{name}: block attacking units with defenders from your hand (one each; Spearmen only block "
                    "Chariots), or tap Done defending.")
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
            return (f"{name}: tap a card to buy it (grey: too dear now), then Confirm; "
                    "tap Done buying when you are done.")
        if s.step == "combat":
            if s.combat:  # the units are listed in the combat helper under the prompt
                return f"{name}: add attacking units from your hand, or tap Resolve the attack."
            foes = " or ".join(self.name(setup, p) for p in game.neighbours(s, seat))
            return f"{name}: play attacking units from your hand against {foes}, or tap No combat."
        if s.step == "draw":
            draw, discard = game.draw_count(s, seat)
            return (f"{name}: draw {count_words(draw, 'card')} and discard {count_words(discard, 'card')}, "
                    "then tap End the turn.")
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
        why = game.end_reason(state)
        if why == "round_limit":
            left = len(state.tech_row) + len(state.tech_deck)
            return [f"Round {state.round} was the last (the game's round limit): "
                    f"{count_words(left, 'technology', 'technologies')} {'was' if left == 1 else 'were'} never bought."]
        return ["The last technology was bought."] if why else []

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
        if not offs:
            return f"{what}: {pay_words(kind, price)}"
        minus = " ".join(f"- {n} ({src})" for src, n in offs)
        return f"{what}: {base} {minus} = {pay_words(kind, price)}"

    @staticmethod
    def parts_words(row) -> str:
        """How a price is made, for the line's "Price" tap: the printed cost, each thing that
        lowers it, the price."""
        what, kind, _, _, base, offs, price = row
        if kind == "plot":
            return (f"{pay_words(kind, price)} of any kind: 15 for a fifth plot, 5 more for each plot after it. "
                    "Choose the mix below.")
        pop = kind == "population"
        head = f"{base} Food (6, plus 2 for each population already on that plot)" if pop else f"Printed cost {base}"
        if not offs:
            return head + ("." if pop else "; nothing lowers it.")
        minus = "; ".join(f"{src} takes off {n}" for src, n in offs)
        return f"{head}; {minus}: {pay_words(kind, price)}."

    def purchase_rows(self, game, state, setup, seat) -> list:
        """The purchase list, what can be paid for first, then what is too dear now, then the builds
        that depend on the hidden hand: one dict per purchase, `text` (one line), `name` and `cost`
        (the card of the picker),
        `parts` (how its price is made), `can` (it can be paid for now), `choices` [(label,
        action)] (a build, one per plot with room), `plot` (a face-up plot, paid in any mix)."""
        s = state
        legal = [a.to_dict() for a in game.legal_actions(s)]
        have = dict(zip(RES, s.res[seat]))
        rows = []
        for row in self.prices(game, s, seat):
            what, kind, card, plot, base, offs, price = row
            if kind == "population":
                acts = [a for a in legal if a["type"] == "buy_population" and a["plot"] == plot]
                name = _first_up(what)
            elif kind == "plot":
                acts = [a for a in legal if a["type"] == "buy_plot" and a["card"] == card]
                name = f"Plot {card} ({res_words(game.plot_cards[card]['yield'])} a turn)"
            elif kind == "technology":
                acts = [a for a in legal if a["type"] == "buy_tech" and a["card"] == card]
                name = f"{card} (technology)"
            else:
                acts = [a for a in legal if a["type"] == "build" and a["card"] == card]
                known = card in s.known[seat]
                name = f"{card} ({kind}{'' if known else ', if in your hand'})"
            cost = pay_words(kind, price) + (" of any kind" if kind == "plot" else "")
            text = f"{name}: {pay_words(kind, price)}"
            pay = game.rules["pay_with"].get(kind)
            if acts:
                why = ""
            elif kind == "plot":
                why = f"you have {count_words(sum(have.values()), 'resource')}"
            elif pay and have[pay] < price:
                why = f"you have {have[pay]} {RES_WORDS[pay][have[pay] != 1]}"
            elif kind in ("building", "wonder"):
                why = "no plot has room"
            else:
                why = "not now"
            # a build of a card the app does not know in the hand is folded away, dear or not
            group = ("hand" if kind in ("building", "wonder") and card not in s.known[seat]
                     else "now" if acts else "dear")
            rows.append({"key": f"{kind}:{card if card is not None else plot}", "text": text,
                         "name": name, "cost": cost,
                         "parts": self.parts_words(row), "can": bool(acts), "group": group, "why": why,
                         "plot": card if kind == "plot" else None,
                         "choices": [] if kind == "plot" else [(_first_up(self.action_label(a, s, setup)
                                                                          .split(": ", 1)[-1]), a) for a in acts]})
        order = {"now": 0, "dear": 1, "hand": 2}
        return sorted(rows, key=lambda r: order[r["group"]])

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
        return lines  # what is asked now is the prompt's

    def snapshot(self, game, state, setup):
        s = state
        out = {"cc_prices": [], "cc_combat": self.combat_lines(game, s, setup), "cc_purchase": {}}
        if s.over or s.step != "purchase":
            return out
        if game.head(s):
            out["cc_purchase"] = {"title": "Finish the decision below first; then buy."}
            return out
        seat = s.current
        rows = self.purchase_rows(game, s, setup, seat)
        out["cc_prices"] = [self.price_words(r) for r in self.prices(game, s, seat)]
        out["cc_purchase"] = {"player": seat, "rows": rows,
                              "plot_row": [r["plot"] for r in rows if r["plot"] and r["can"]],
                              "plot_price": game.price(s, seat, "plot"),
                              "title": f"{self.name(setup, seat)} has {res_words(s.res[seat])}."}
        return out
