"""Civ Builder as the shell sees it (no Kivy): plain words for the table, the attribute table with
the privilege holders marked, the initiative order, the score-phase breakdown."""
from __future__ import annotations

import re

from companion.games.contract import GameView, Pick

from . import trade_clock
from .data_load import ATTRIBUTES, DATA
from .rules import ordinal

STEP_LABELS = {
    "choose_civ": "Choose civilisation", "setup_roll": "Attribute rolls", "initiative_roll": "Initiative roll-off",
    "sixth_card": "Agriculture: sixth card", "trade": "Trade", "turn": "Melds", "meld": "Meld cards",
    "special": "Special action", "conquest_take": "Conquest: take points", "science_point": "Science: free point",
    "equestrian": "Equestrian: discard all", "game_over": "Game over",
}
PHASE_LABELS = {"setup": "Setup", "initiative": "Initiative", "draw": "Draw", "trade": "Trade", "action": "Action",
                "score": "Score", "end": "End", "game_end": "Game end"}
VP_LABELS = {"meld": "Melds", "culture": "Culture action", "engineering": "Engineering action",
             "seafaring": "Seafaring steals", "stolen": "Lost to steals", "majority": "Attribute majorities",
             "culture_leader": "Culture leader", "equestrian": "Equestrian discard"}
SPECIAL_WORDS = {
    "conquest": "steal 2 attribute points from {target}", "trade": "look at {target}'s hand and swap {count} cards",
    "culture": "gain 4 VP", "science": "look at the next 7 cards and take 2",
    "agriculture": "draw 3 cards", "religion": "steal 2 random cards from {target}",
    "seafaring": "steal 2 VP from {target}", "government": "discard {count} cards and draw {count2}",
    "equestrian": "{target} discards 3 random cards", "engineering": "draw 2 cards and gain 3 VP",
}
STAR = "*"  # the app font has no star glyph


def plural(n, word, many=None) -> str:
    """'1 card', '2 cards' (many: an irregular plural)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


_ONE_MANY = re.compile(r"\b(?<![\d.])(1|one) (card|point|die|meld)s\b")


def one_not_many(text: str) -> str:
    """The rules' table notes say 'draws 1 cards' when a count is 1: said right here."""
    return _ONE_MANY.sub(lambda m: f"{m.group(1)} {m.group(2)}", text)


def attr_name(a) -> str:
    return str(a).title()


def civ_name(civ) -> str:
    return DATA.civs[civ]["name"] if civ in DATA.civs else "?"


class CivBuilderView(GameView):
    def step_label(self, step) -> str:
        return STEP_LABELS.get(step, super().step_label(step))

    def phase_label(self, phase) -> str:
        return PHASE_LABELS.get(phase, super().phase_label(phase))

    def step_help(self, step) -> str:
        return DATA.help.get(step or "", "")

    TYPE_LABELS = {"pick_meld": "Make a meld", "end_turn": "End the turn", "give_cards": "Record a gift",
                   "end_trade": "End the trade phase", "take_point": "Take a point", "science_point": "Take a free point",
                   "decline_science": "No free point", "special": "Take the special action",
                   "skip_special": "Skip the special action", "choose_civ": "Choose a civilisation"}
    ATTR_QUESTIONS = {"pick_meld": "Which attribute do you meld?", "take_point": "Which attribute's point?",
                      "science_point": "Which attribute gains the point?"}

    def type_label(self, action_type) -> str:
        return self.TYPE_LABELS.get(action_type) or super().type_label(action_type)

    def picks(self, game, action_type, state=None, setup=None) -> tuple:
        if action_type in self.ATTR_QUESTIONS:
            return (Pick("attribute", "choice", self.ATTR_QUESTIONS[action_type]),)
        if action_type == "choose_civ":
            return (Pick("civ", "choice", "Which civilisation?"),)
        return super().picks(game, action_type)

    def value_label(self, game, state, setup, action_type, field, value) -> str:
        if field == "attribute" and value in ATTRIBUTES:
            return attr_name(value)
        if field == "civ" and value in DATA.civs:
            return f"{civ_name(value)} (extra {attr_name(DATA.civs[value]['extra'])})"
        return super().value_label(game, state, setup, action_type, field, value)

    def round(self, state):
        return state.round or None  # None during setup: no "Round 0", no summary card for it

    def max_rounds(self, state):
        return state.rounds

    def roll_owner(self, state):
        if state.step == "setup_roll":
            return state.seats[state.setup_seat]
        if state.step == "initiative_roll" and state.rolloff:
            return state.rolloff[0]
        return None

    def header(self, game, state, setup) -> str:
        head = super().header(game, state, setup)
        if state.step == "trade" and not state.over:
            head += "   -   trade timer: [b]" + (self.trade_time(state, setup) or f"{DATA.trade_minutes}:00") + "[/b]"
        if state.round and not state.over:
            head += f"   -   order: {self.order_text(state, setup)}"
        return head

    def trade_time(self, state, setup) -> str:
        """The trade phase's clock of this round ('3:05 left', 'time is up'; '' when not started)."""
        path = trade_clock.path_of(setup)
        if path is None:
            return ""
        return trade_clock.text(trade_clock.left(path, state.round, DATA.trade_minutes * 60))

    def _names(self, setup, state):
        return {x: self.name(setup, x) for x in state.seats}

    def table_notes(self, state, setup) -> list:
        """What the last action asks the table to do with the cards, in plain words."""
        names = self._names(setup, state)
        return [one_not_many(t.format_map(names)) for t in state.table]

    # ---------------------------------------------------------------- labels
    def action_label(self, action: dict, state, setup) -> str:
        t = action.get("type", "?")
        n = lambda seat: self.name(setup, seat)  # noqa: E731
        who = n(action["player"]) + ": " if "player" in action else ""
        if t.startswith("roll_") and t != "roll_off":
            return f"{attr_name(t[5:])} roll: {action.get('die')}"
        if t == "roll_off":
            return f"Initiative roll-off: {action.get('die')}"
        if t == "choose_civ":
            c = DATA.civs.get(action.get("civ"), {})
            return f"{who}{c.get('name', action.get('civ'))} (extra {attr_name(c.get('extra', '?'))})"
        if t == "meld":
            parts = [f"{action['cards']} {attr_name(action['attribute'])}"]
            for key, word in (("leader", "Leader"), ("disasters", "Disaster"), ("seas", "Seafaring")):
                if action.get(key):
                    parts.append(f"{action[key]} {word} (wild)")
            size = action["cards"] + sum(action.get(k) or 0 for k in ("leader", "disasters", "seas"))
            return f"{who}meld {attr_name(action['attribute'])} of {plural(size, 'card')} ({' + '.join(parts)})"
        if t == "pick_meld":
            return f"{who}meld {attr_name(action['attribute'])}"
        if t == "special":
            attr = state.special_attr if state is not None and getattr(state, "special_attr", None) else None
            tgt = n(action["target"]) if action.get("target") else "?"
            count = action.get("count")
            if attr is None:
                return f"{who}special action" + (f" on {tgt}" if action.get("target") else "") + (
                    f" ({plural(count, 'card')})" if count is not None else "")
            words = SPECIAL_WORDS[attr].format(target=tgt, count=count, count2=(count or 0) + 2)
            return f"{who}{attr_name(attr)}: {one_not_many(words)}"
        if t == "take_point":
            return f"{who}take 1 {attr_name(action['attribute'])} point"
        if t == "science_point":
            return f"{who}+1 {attr_name(action['attribute'])} (Science leader)"
        if t == "give_cards":
            return f"{n(action['giver'])} gives {plural(action['count'], 'card')} to {n(action['taker'])}"
        if t == "correct_hand":
            return f"Correction: {n(action['seat'])} holds {plural(action['count'], 'card')}"
        words = {"draw_sixth": "draw a sixth card", "decline_sixth": "no sixth card", "end_trade": "end the trade phase",
                 "cancel_meld": "back (no meld)", "end_turn": "end turn", "skip_special": "skip the special action",
                 "decline_science": "no free point", "discard_all": "discard all cards for 3 VP",
                 "keep_cards": "keep the cards"}
        return f"{who}{words.get(t, t.replace('_', ' '))}"

    # ---------------------------------------------------------------- the moment
    def prompt(self, game, state, setup, dice) -> str:
        s = state
        if game.is_over(s):
            return self.result_text(game, s, setup)
        notes = " ".join(self.table_notes(s, setup))
        pre = (notes + "  ") if notes else ""
        n = lambda seat: self.name(setup, seat)  # noqa: E731
        actor = game.actor(s)
        st = s.step
        if st == "setup_roll":
            return pre + self.setup_roll_words(game, s, setup)
        if st == "initiative_roll":
            tied = ", ".join(n(x) for x in s.rolloff)
            return pre + (f"Initiative tie: {n(s.rolloff[0])}: Initiative roll-off, 1 die "
                          f"(still to roll: {tied}); high goes first.")
        if st == "choose_civ":
            return pre + f"{n(actor)}: choose a civilisation."
        order = self.order_text(s, setup)
        if st == "sixth_card":
            return pre + f"{n(actor)} has the highest Agriculture: draw a sixth card? (Order: {order}.)"
        if st == "trade":
            tl = ", ".join(n(x) for x in game.holders(s, "trade")) or "nobody"
            return pre + (f"Trade phase ({DATA.trade_minutes} minutes): trade cards at the table. {tl} "
                          f"(highest Trade) may look at any hand. Record only uneven trades; "
                          f"{n(actor)} ends the phase.")
        if st == "turn":
            need = game.min_meld(s)
            return pre + (f"{n(actor)}'s turn ({plural(s.hand[actor], 'card')}): your {ordinal(need)} meld needs at least "
                          f"{need} card{'s' if need > 1 else ''}; pick its attribute, or end the turn.")
        if st == "meld":
            return pre + f"{n(actor)}: how many cards in the {attr_name(s.meld_attr)} meld (and which wild cards)?"
        if st == "special":
            words = SPECIAL_WORDS[s.special_attr].format(target="an opponent", count="X", count2="X + 2")
            return pre + f"{n(actor)}: {attr_name(s.special_attr)} special action: {words}? Or skip it."
        if st == "conquest_take":
            left = DATA.special["conquest"]["steal_points"] - s.taken
            return pre + f"{n(actor)}: take {left} more point{'s' if left != 1 else ''} from {n(s.target)}: which attribute?"
        if st == "science_point":
            return pre + f"{n(actor)} has the highest Science: gain 1 point in any attribute?"
        if st == "equestrian":
            return pre + (f"{n(actor)} has the highest Equestrian: discard all {plural(s.hand[actor], 'card')} "
                          f"for {DATA.equestrian_vp} VP?")
        return pre + super().prompt(game, s, setup, dice)

    def setup_roll_words(self, game, s, setup) -> str:
        """The set-up rolls: one die per attribute (the text: 'roll for each separately'); two dice
        thrown together fill the next two attributes, well 1 first (register CB-H2)."""
        seat, attr, extra = game.awaited_roll(s)
        name = self.name(setup, seat)
        nxt = self.next_rolls(game, s, 2)
        first = f"{attr_name(attr)}" + (f" (the extra die of {civ_name(s.civ[seat])})" if extra else "")
        left = len(self.rolls_of(game, s, seat)) - len(s.setup_rolls[seat])
        if len(nxt) > 1 and nxt[1][0] == seat:
            second = attr_name(nxt[1][1]) + (" (extra die)" if nxt[1][2] else "")
            wells = f"throw one die for {first}, or two at once: well 1 {first}, well 2 {second}"
        else:
            wells = f"throw one die for {first}"
        return (f"{name}'s attribute rolls ({plural(left, 'die', 'dice')} to go): {wells}. "
                "Or enter them all in the form below, or use the virtual dice.")

    @staticmethod
    def rolls_of(game, s, seat) -> list:
        """(attribute, extra?) of every set-up die of `seat`, in the order the rules take them."""
        out = [(a, False) for a in ATTRIBUTES]
        extra = game.civ_extra(s, seat)
        return out + ([(extra, True)] if extra else [])

    def next_rolls(self, game, s, n) -> list:
        """The next `n` set-up dice awaited, as (seat, attribute, extra?), across players."""
        out = []
        if s.step != "setup_roll":
            return out
        si, i = s.setup_seat, len(s.setup_rolls[s.seats[s.setup_seat]])
        while len(out) < n and si < len(s.seats):
            rolls = self.rolls_of(game, s, s.seats[si])
            if i < len(rolls):
                out.append((s.seats[si],) + rolls[i])
                i += 1
            else:
                si, i = si + 1, 0
        return out

    def order_text(self, state, setup) -> str:
        return " > ".join(self.name(setup, x) for x in state.order)

    def privileges(self, game, state) -> dict:
        """attribute -> the seats holding its 'highest' privilege now."""
        return {a: game.holders(state, a) for a in ATTRIBUTES}

    def snapshot(self, game, state, setup) -> dict:
        s = state
        hold = self.privileges(game, s) if s.round else {a: () for a in ATTRIBUTES}
        score = self.score(game, s)
        players = {}
        for x in s.seats:
            players[x] = {"seat": x, "name": self.name(setup, x), "colour": self.colour(setup, x),
                          "civ": s.civ[x], "attributes": dict(s.attrs[x]), "hand": s.hand[x], "vp": s.vp[x],
                          "privileges": [a for a in ATTRIBUTES if x in hold[a]],
                          "initiative": (s.order.index(x) + 1) if s.round else None,
                          "score": score[x]}
        return {"players": players, "order": list(s.order), "deck": s.deck, "discard": s.discard,
                "reshuffles": s.reshuffles, "holders": {a: list(v) for a, v in hold.items()},
                "trade_minutes": DATA.trade_minutes, "trade_leaders": list(hold["trade"]),
                "notes": self.table_notes(s, setup), "round_score": s.scoring.get(s.round)}

    def player_lines(self, game, state, setup, seat, player=None) -> list:
        s = state
        hold = self.privileges(game, s) if s.round else {a: () for a in ATTRIBUTES}
        cells = []
        for a in ATTRIBUTES:
            mark = f" [color=ffd54f]{STAR}[/color]" if seat in hold[a] else ""
            cells.append(f"{attr_name(a)} [b]{s.attrs[seat][a]}[/b]{mark}")
        table = "\n".join("   ".join(cells[i:i + 2]) for i in range(0, len(cells), 2))
        civ = s.civ[seat]
        civ_text = f"{civ_name(civ)} (extra {attr_name(DATA.civs[civ]['extra'])})" if civ else "not chosen yet"
        sc = self.score(game, s)[seat]
        items = ", ".join(f"{k} {v}" for k, v in sc["items"].items() if v)
        lines = [("", f"VP [b]{sc['total']}[/b]" + (f"  ({items})" if items else "")),
                 ("Civilisation", civ_text)]
        if s.round:
            pos = s.order.index(seat) + 1
            lines.append(("Initiative", f"{ordinal(pos)} of {len(s.order)}"))
            lines.append(("Hand", f"[b]{s.hand[seat]}[/b] card{'s' if s.hand[seat] != 1 else ''} (limit {game.hand_limit(s, seat)})"))
        lines.append(("Attributes", table, "block"))
        held = [attr_name(a) for a in ATTRIBUTES if seat in hold[a]]
        if held:
            lines.append((f"Highest ({STAR})", ", ".join(held), "small"))
        if seat == s.seats[0] and s.round:
            lines.append(("Cards", f"deck {s.deck}, discard {s.discard}" +
                          (f", reshuffled {s.reshuffles}x" if s.reshuffles else ""), "small"))
        return lines

    # ---------------------------------------------------------------- score and results
    def score(self, game, state) -> dict:
        raw = game.score(state)
        return {x: {"total": v["total"], "items": {VP_LABELS[k]: n for k, n in v["items"].items()}}
                for x, v in raw.items()}

    def headline(self, game, state, setup) -> str:
        res = game.result(state)
        if res["winner"]:
            return f"{self.name(setup, res['winner'])} wins"
        return "Shared victory: " + " and ".join(self.name(setup, x) for x in res["winners"])

    def end_reasons(self, game, state, setup) -> list:
        return [f"The game ended after round {state.rounds}."] if state.over else []

    def tiebreak(self, game, state, setup):
        res = game.result(state)
        return None if res["winner"] else "Tied on Victory Points: the text names no tie-breaker, so they share the win."

    def score_breakdown(self, state, setup, rnd) -> list:
        """The score phase of round `rnd`: [(seat or None, line)], who scored what and why."""
        rec = state.scoring.get(rnd)
        if rec is None:
            return []
        n = lambda seat: self.name(setup, seat)  # noqa: E731
        out = [(x, f"Science leader: {n(x)} +1 {attr_name(a)}") for x, a in rec["science"]]
        for attr, values, winners, band in rec["rows"]:
            vals = ", ".join(f"{n(x)} {v}" for x, v in zip(state.seats, values))
            if not winners:
                out.append((None, f"{attr_name(attr)}: nobody scores ({vals})"))
                continue
            why = "tied for the most: each scores" if len(winners) > 1 else "the most points"
            out.append((winners[0], f"{attr_name(attr)}: {' and '.join(n(x) for x in winners)} +{band} VP, "
                                    f"{why} ({vals})"))
        if rec["culture_leader"]:
            out.append((rec["culture_leader"][0], "Culture leader: " + " and ".join(n(x) for x in rec["culture_leader"])
                        + f" +{rec['culture_vp']} VP"))
        return out

    def round_summary(self, game, setup, history, ended_round):
        state = game.initial_state(setup)
        for a, _ in history:
            state = game.apply(state, a)
        rec = state.scoring.get(ended_round)
        if rec is None:
            return {"title": f"Round {ended_round} ended.", "rows": []}
        title = f"[b]Round {ended_round} scored[/b]: {rec['band']} VP per attribute majority"
        rows = []
        for x in state.seats:
            got = sum(e[2] for e in state.vp_log if e[0] == ended_round and e[1] == x)
            rows.append((x, f"[b]{self.name(setup, x)}[/b]  {got:+d} VP this round, total {state.vp[x]}"))
        rows += self.score_breakdown(state, setup, ended_round)
        return {"title": title, "rows": rows, "record": rec}


VIEW = CivBuilderView()
