"""Civ Builder rules engine (text: /work/shared/rules/civ-builder.txt): pure Python, no Kivy.

The cards are physical and hidden: the companion records what players declare (meld type and
size, the wild cards used, cards drawn and discarded as counts) and checks it against the rules
and the counts it keeps (each hand, the deck, the discard pile; 108 cards in all). Dice are chance
actions (setup rolls, initiative roll-offs). Rule ids in `Rejected` are the rows of
docs/civ_builder-trace.md; decisions where the text is silent are docs/civ_builder-register.md.
"""
from __future__ import annotations

from companion.engine import ActionCodec, ActionSchema, Flow, Game, Rejected, SetupError
from companion.engine.actions import seats_of

from .data_load import ATTRIBUTES, DATA
from .state import State

D = DATA
SEATS = seats_of(D.max_players)
ROLL_TYPES = tuple("roll_" + a for a in ATTRIBUTES)
# privilege steps: the actions a holder takes there, and the rule a non-holder breaks
PRIVILEGE_OF = {"draw_sixth": ("agriculture", "CB-DRAW-AGRI"), "decline_sixth": ("agriculture", "CB-DRAW-AGRI"),
                "science_point": ("science", "CB-SCORE-SCIENCE"), "decline_science": ("science", "CB-SCORE-SCIENCE"),
                "discard_all": ("equestrian", "CB-END-EQUESTRIAN"), "keep_cards": ("equestrian", "CB-END-EQUESTRIAN")}
# which optional fields of `special` each attribute's action uses
SPECIAL_FIELDS = {"conquest": {"target"}, "trade": {"target", "count"}, "culture": set(), "science": set(),
                  "agriculture": set(), "religion": {"target"}, "seafaring": {"target"},
                  "government": {"count"}, "equestrian": {"target"}, "engineering": set()}
# steps whose candidates are generated legal (each passes check; tests/engine/test_legal_generation.py
# checks every listed action): legal_actions returns them without checking each one again
GENERATED_LEGAL = frozenset({"trade", "turn", "meld", "special", "conquest_take"})
VP_SOURCES = ("meld", "culture", "engineering", "seafaring", "stolen", "majority", "culture_leader", "equestrian")


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _schemas():
    p = {"player": "seat"}
    out = [ActionSchema(t, {"die": "die"}, chance=True) for t in ROLL_TYPES]
    out += [
        ActionSchema("choose_civ", {**p, "civ": "str"}),
        ActionSchema("roll_off", {"die": "die"}, chance=True),
        ActionSchema("draw_sixth", p), ActionSchema("decline_sixth", p),
        ActionSchema("give_cards", {"giver": "seat", "taker": "seat", "count": "int"}),
        ActionSchema("end_trade", p),
        ActionSchema("pick_meld", {**p, "attribute": "str"}),
        ActionSchema("meld", {**p, "attribute": "str", "cards": "int"},
                     {"leader": "int", "disasters": "int", "seas": "int"}),
        ActionSchema("cancel_meld", p), ActionSchema("end_turn", p),
        ActionSchema("special", p, {"target": "seat", "count": "int"}),
        ActionSchema("skip_special", p),
        ActionSchema("take_point", {**p, "attribute": "str"}),
        ActionSchema("science_point", {**p, "attribute": "str"}), ActionSchema("decline_science", p),
        ActionSchema("discard_all", p), ActionSchema("keep_cards", p),
        ActionSchema("correct_hand", {"seat": "seat", "count": "int"}),
    ]
    return out


class CivBuilder(Game):
    name = "civ_builder"
    correction_types = frozenset({"correct_hand"})

    def __init__(self, data=D):
        self.data = data
        self.flow = Flow(data.flow)
        self.codec = ActionCodec(_schemas(), seats=SEATS)

    # ------------------------------------------------------------------ setup
    def default_setup(self, players=2, **over) -> dict:
        if not self.data.min_players <= players <= self.data.max_players:
            raise SetupError(f"Civ Builder is for {self.data.min_players}-{self.data.max_players} players, "
                             f"not {players}")
        setup = {"players": {s: {"name": f"Player {i + 1}", "colour": c}
                             for i, (s, c) in enumerate(zip(SEATS[:players], ("blue", "green", "red", "yellow",
                                                                              "purple", "black", "orange", "white")))}}
        setup.update(over)
        return setup

    def initial_state(self, setup: dict) -> State:
        seats = sorted((setup or {}).get("players", {}), key=lambda x: (len(x), x))
        if not self.data.min_players <= len(seats) <= self.data.max_players:
            raise SetupError(f"Civ Builder is for {self.data.min_players}-{self.data.max_players} players, "
                             f"not {len(seats)}")
        if seats != list(SEATS[:len(seats)]):
            raise SetupError(f"seats must be p1..p{len(seats)}, got {seats}")
        s = State.__new__(State)
        s.step, s.round, s.seats, s.rounds = "choose_civ", 0, tuple(seats), self.data.rounds
        s.deck, s.discard, s.reshuffles = self.data.deck_total, 0, 0
        s.setup_seat, s.order, s.turn, s.melds = 0, tuple(seats), 0, 0
        s.meld_attr = s.special_attr = s.target = None
        s.taken, s.over, s.chance_count, s.science_picks, s.end_reasons = 0, False, 0, (), ()
        s.civ = {x: None for x in seats}
        s.vp = {x: 0 for x in seats}
        s.hand = {x: 0 for x in seats}
        s.init_keys, s.scoring = {}, {}
        s.vp_log, s.rolloff, s.queue, s.table = [], [], [], []
        s.attrs = {x: {a: 0 for a in ATTRIBUTES} for x in seats}
        s.setup_rolls = {x: [] for x in seats}
        return s

    # ------------------------------------------------------------------ who acts
    def actor(self, s):
        if s.over:
            return None
        st = s.step
        if st in ("setup_roll", "initiative_roll"):
            return "system"
        if st == "choose_civ":
            return s.seats[s.turn]
        if st in ("sixth_card", "science_point", "equestrian"):
            return s.queue[0]
        if st == "trade":
            return s.order[0]
        return s.order[s.turn]

    def is_over(self, s) -> bool:
        return s.over

    def holders(self, s, attribute) -> tuple:
        """Who holds the 'highest <attribute>' privilege now: every player tied for the highest
        score (CB-P1). Every attribute starts at 1D6 and points only move between players, so the
        highest is never 0."""
        values = {x: s.attrs[x][attribute] for x in s.seats}
        best = max(values.values())
        return tuple(x for x in s.seats if values[x] == best)

    def awaited_roll(self, s):
        """(seat, attribute, extra?) of the setup die awaited now, or None."""
        if s.step != "setup_roll":
            return None
        seat = s.seats[s.setup_seat]
        i = len(s.setup_rolls[seat])
        if i < len(ATTRIBUTES):
            return seat, ATTRIBUTES[i], False
        return seat, self.civ_extra(s, seat), True

    def civ_extra(self, s, seat):
        return self.data.civs[s.civ[seat]]["extra"] if s.civ.get(seat) else None

    def min_meld(self, s) -> int:
        """Cards the next meld of this turn needs: the n-th meld needs n (CB-MELD-SIZE)."""
        return s.melds + 1

    # ------------------------------------------------------------------ chance
    def chance_action(self, s, dice):
        if s.over:
            return None
        if s.step == "setup_roll":
            _, attr, _ = self.awaited_roll(s)
            return self.codec.fast("roll_" + attr, die=dice.roll(1)[0])
        if s.step == "initiative_roll":
            return self.codec.fast("roll_off", die=dice.roll(1)[0])
        return None

    # ------------------------------------------------------------------ the reducer
    def check(self, s, a):
        priv = PRIVILEGE_OF.get(a.type)
        if priv and not s.over and s.step in self.flow.steps and a.type in self.flow.actions_of(s.step) \
                and a.get("player") not in s.queue:
            attr, rule = priv
            raise Rejected(rule, f"{a.get('player')} does not hold the highest {attr.title()} privilege now "
                                 f"(holders: {', '.join(s.queue) or 'nobody'})")
        super().check(s, a)

    def _effect(self, s, a):
        """As engine.Game's, and the table's instructions (state.table) are those of this action only."""
        s.table = []
        getattr(self, "do_" + a.type)(s, a)

    def _seat(self, s, seat, rule="CB-SEAT"):
        if seat not in s.seats:
            raise Rejected(rule, f"{seat} is not playing in this game (players: {', '.join(s.seats)})")

    def _attr(self, attribute, rule):
        if attribute not in ATTRIBUTES:
            raise Rejected(rule, f"{attribute!r} is not an attribute ({', '.join(ATTRIBUTES)})")

    def _note(self, s, text):
        s.table.append(text)

    def _gain_vp(self, s, seat, n, source, detail=""):
        s.vp[seat] += n
        s.vp_log.append((s.round, seat, n, source, detail))

    # cards ---------------------------------------------------------------------------------
    def _reshuffle(self, s) -> bool:
        if s.discard == 0:
            return False
        s.deck += s.discard
        s.discard = 0
        s.reshuffles += 1
        self._note(s, "The deck ran out: shuffle the discard pile; it is the new deck.")
        return True

    def _draw(self, s, seat, k) -> int:
        """Draw up to k cards into seat's hand, reshuffling the discard when the deck runs out
        (CB-DRAW-RESHUFFLE); returns how many were drawn (fewer only when every card is in a hand)."""
        drawn = min(k, s.deck)
        s.deck -= drawn
        if drawn < k and self._reshuffle(s):
            more = min(k - drawn, s.deck)
            s.deck -= more
            drawn += more
        s.hand[seat] += drawn
        return drawn

    def _discard(self, s, seat, k):
        s.hand[seat] -= k
        s.discard += k

    # setup ---------------------------------------------------------------------------------
    def check_choose_civ(self, s, a):
        civ = a["civ"]
        if civ not in self.data.civs:
            raise Rejected("CB-CIV-CHOICE", f"{civ!r} is not one of the ten civilisations")
        if civ in s.civ.values():
            raise Rejected("CB-CIV-UNIQUE", f"{self.data.civs[civ]['name']} is already taken")

    def do_choose_civ(self, s, a):
        s.civ[a["player"]] = a["civ"]
        s.turn += 1
        if s.turn >= len(s.seats):
            s.turn, s.step, s.setup_seat = 0, "setup_roll", 0

    def _check_roll(self, s, a):
        if not 1 <= a["die"] <= 6:
            raise Rejected("CB-DICE", f"a die shows 1 to 6, not {a['die']}")
        seat, attr, extra = self.awaited_roll(s)
        if a.type != "roll_" + attr:
            raise Rejected("CB-SETUP-ROLL", f"{seat}'s {'extra ' if extra else ''}{attr.title()} die is awaited, "
                                            f"not {a.type[5:].title()}")

    def _do_roll(self, s, a):
        seat, attr, _ = self.awaited_roll(s)
        s.attrs[seat][attr] += a["die"]
        s.setup_rolls[seat].append(a["die"])
        s.chance_count += 1
        if len(s.setup_rolls[seat]) > len(ATTRIBUTES):
            s.setup_seat += 1
            if s.setup_seat >= len(s.seats):
                self._deal(s)

    def _deal(self, s):
        for seat in s.seats:
            self._draw(s, seat, self.data.starting_hand)
        self._note(s, f"Deal {self.data.starting_hand} cards to each player.")
        self._start_round(s)

    # round ----------------------------------------------------------------------------------
    def _start_round(self, s):
        s.round += 1
        s.science_picks = ()
        s.init_keys = {x: tuple(s.attrs[x][a] for a in self.data.initiative) for x in s.seats}
        s.rolloff = []
        self._resolve_initiative(s)

    def _ranked(self, s):
        return sorted(s.seats, key=lambda x: tuple(-v for v in s.init_keys[x]))

    def _resolve_initiative(self, s):
        ranked = self._ranked(s)
        for i, seat in enumerate(ranked):
            group = [x for x in ranked if s.init_keys[x] == s.init_keys[seat]]
            if len(group) > 1:
                s.rolloff = group
                s.step = "initiative_roll"
                return
        s.order = tuple(ranked)
        self._draw_phase(s)

    def check_roll_off(self, s, a):
        if not 1 <= a["die"] <= 6:
            raise Rejected("CB-DICE", f"a die shows 1 to 6, not {a['die']}")

    def do_roll_off(self, s, a):
        seat = s.rolloff.pop(0)
        s.init_keys[seat] = s.init_keys[seat] + (a["die"],)
        s.chance_count += 1
        if not s.rolloff:
            self._resolve_initiative(s)

    def _draw_phase(self, s):
        for seat in s.order:
            self._draw(s, seat, self.data.draw_cards)
        self._note(s, f"Each player draws {self.data.draw_cards} cards, in initiative order.")
        holders = self.holders(s, "agriculture")
        s.queue = [x for x in s.order if x in holders]
        if s.queue:
            s.step = "sixth_card"
        else:
            self._trade_phase(s)

    def _pop_queue(self, s, then):
        s.queue.pop(0)
        if not s.queue:
            then(s)

    def check_draw_sixth(self, s, a):
        pass

    def do_draw_sixth(self, s, a):
        n = self._draw(s, a["player"], self.data.agri_extra)
        self._note(s, f"{{{a['player']}}} draws {n} more card{'s' if n != 1 else ''}.")
        self._pop_queue(s, self._trade_phase)

    check_decline_sixth = check_draw_sixth

    def do_decline_sixth(self, s, a):
        self._pop_queue(s, self._trade_phase)

    def _trade_phase(self, s):
        s.step = "trade"

    def check_give_cards(self, s, a):
        self._seat(s, a["giver"])
        self._seat(s, a["taker"])
        if a["giver"] == a["taker"]:
            raise Rejected("CB-TRADE-GIVE", "a player cannot give cards to themself")
        if not 1 <= a["count"] <= s.hand[a["giver"]]:
            raise Rejected("CB-TRADE-GIVE", f"{a['giver']} holds {s.hand[a['giver']]} cards and cannot give {a['count']}")

    def do_give_cards(self, s, a):
        s.hand[a["giver"]] -= a["count"]
        s.hand[a["taker"]] += a["count"]

    def check_end_trade(self, s, a):
        pass

    def do_end_trade(self, s, a):
        s.turn = 0
        self._begin_turn(s)

    def _begin_turn(self, s):
        s.melds, s.meld_attr, s.special_attr, s.target, s.taken = 0, None, None, None, 0
        s.step = "turn"

    # melds ----------------------------------------------------------------------------------
    def check_pick_meld(self, s, a):
        self._attr(a["attribute"], "CB-MELD-TYPE")
        need, have = self.min_meld(s), s.hand[a["player"]]
        if have < need:
            raise Rejected("CB-MELD-SIZE", f"the {ordinal(need)} meld of a turn needs at least {need} "
                                           f"card{'s' if need > 1 else ''}; {a['player']} holds {have}")

    def do_pick_meld(self, s, a):
        s.meld_attr = a["attribute"]
        s.step = "meld"

    def check_cancel_meld(self, s, a):
        pass

    def do_cancel_meld(self, s, a):
        s.meld_attr = None
        s.step = "turn"

    def meld_size(self, a) -> int:
        return a["cards"] + (a.get("leader") or 0) + (a.get("disasters") or 0) + (a.get("seas") or 0)

    def check_meld(self, s, a):
        d, seat, attr = self.data, a["player"], a["attribute"]
        self._attr(attr, "CB-MELD-TYPE")
        if s.step == "meld" and attr != s.meld_attr:
            raise Rejected("CB-MELD-TYPE", f"this meld was started as {s.meld_attr.title()}, not {attr.title()}")
        leader, disasters, seas = a.get("leader") or 0, a.get("disasters") or 0, a.get("seas") or 0
        if min(a["cards"], leader, disasters, seas) < 0:
            raise Rejected("CB-MELD-COUNT", "card counts cannot be negative")
        if a["cards"] < d.min_natural:
            raise Rejected("CB-MELD-NATURAL", f"a meld holds at least {d.min_natural} {attr.title()} card")
        if leader > d.max_leaders:
            raise Rejected("CB-MELD-LEADER", f"a meld holds at most {d.max_leaders} Leader card")
        if disasters and seat not in self.holders(s, "religion"):
            raise Rejected("CB-MELD-DISASTER", "only the player with the highest Religion may use Disaster cards "
                                               "as wild cards")
        if seas and attr not in d.sea_wild_melds:
            raise Rejected("CB-MELD-SEA-TYPE", "Seafaring cards are wild only in "
                           + " and ".join(x.title() for x in d.sea_wild_melds) + " melds")
        if seas and seat not in self.holders(s, "seafaring"):
            raise Rejected("CB-MELD-SEA", "only the player with the highest Seafaring may use Seafaring cards "
                                          "as wild cards")
        size, need = self.meld_size(a), self.min_meld(s)
        if size < need:
            raise Rejected("CB-MELD-SIZE", f"the {ordinal(need)} meld of a turn needs at least {need} cards, "
                                           f"not {size}")
        if size > s.hand[seat]:
            raise Rejected("CB-MELD-HAND", f"{seat} holds {s.hand[seat]} cards, not {size}")

    def do_meld(self, s, a):
        seat, attr, size = a["player"], a["attribute"], self.meld_size(a)
        self._discard(s, seat, size)
        s.attrs[seat][attr] += size
        self._gain_vp(s, seat, size, "meld", attr)
        s.melds += 1
        s.meld_attr, s.special_attr = None, attr
        s.step = "special"
        self._note(s, f"{{{seat}}}: put the {size} melded cards on the discard pile.")

    def check_end_turn(self, s, a):
        pass

    def do_end_turn(self, s, a):
        s.turn += 1
        if s.turn < len(s.order):
            self._begin_turn(s)
        else:
            self._score_phase(s)

    # special actions --------------------------------------------------------------------------
    def check_special(self, s, a):
        attr, seat = s.special_attr, a["player"]
        used = SPECIAL_FIELDS[attr]
        extra = [f for f in ("target", "count") if a.get(f) is not None and f not in used]
        missing = [f for f in ("target", "count") if a.get(f) is None and f in used]
        if extra or missing:
            raise Rejected("CB-SP-FIELDS", f"the {attr.title()} action "
                           + (f"takes no {', '.join(extra)}" if extra else f"needs a {', '.join(missing)}"))
        sp, target = self.data.special[attr], a.get("target")
        if target is not None:
            self._seat(s, target, "CB-SP-TARGET")
            if target == seat:
                raise Rejected("CB-SP-TARGET", "the target must be an opponent")
        if attr == "trade" and not 0 <= a["count"] <= min(sp["max_swap"], s.hand[target]):
            raise Rejected("CB-SP-TRADE", f"take 0 to {sp['max_swap']} cards, at most the {s.hand[target]} "
                                          f"{target} holds")
        if attr == "government" and not 0 <= a["count"] <= s.hand[seat]:
            raise Rejected("CB-SP-GOVERNMENT", f"discard 0 to {s.hand[seat]} cards, not {a['count']}")

    def do_special(self, s, a):
        attr, seat, target = s.special_attr, a["player"], a.get("target")
        sp = self.data.special[attr]
        getattr(self, "_special_" + attr)(s, seat, target, a.get("count"), sp)
        if s.step == "special":
            self._back_to_turn(s)

    def _back_to_turn(self, s):
        s.special_attr, s.target, s.taken = None, None, 0
        s.step = "turn"

    def _special_conquest(self, s, seat, target, count, sp):
        # CB-SP5: a steal takes what is there, up to the 2 the table says
        if sum(s.attrs[target].values()) == 0:
            self._note(s, f"{{{target}}} has no attribute points: {{{seat}}} steals nothing.")
            return
        s.target, s.taken = target, 0
        s.step = "conquest_take"

    def _special_trade(self, s, seat, target, count, sp):
        self._note(s, f"{{{seat}}} looks at {{{target}}}'s hand, takes {count} card{'s' if count != 1 else ''} "
                      f"and gives {count} back.")

    def _special_culture(self, s, seat, target, count, sp):
        self._gain_vp(s, seat, sp["vp"], "culture")

    def _special_science(self, s, seat, target, count, sp):
        if s.deck < sp["look"]:
            self._reshuffle(s)  # CB-SP-SCIENCE: the discard goes under the deck before looking
        n = self._draw(s, seat, sp["take"])
        self._note(s, f"{{{seat}}} looks at the next {min(sp['look'], s.deck + n)} cards, takes {n} and puts the "
                      "others back in order.")

    def _special_agriculture(self, s, seat, target, count, sp):
        n = self._draw(s, seat, sp["draw"])
        self._note(s, f"{{{seat}}} draws {n} cards.")

    def _special_religion(self, s, seat, target, count, sp):
        n = min(sp["steal_cards"], s.hand[target])  # CB-SP5: what is there, as the Equestrian's discard
        s.hand[target] -= n
        s.hand[seat] += n
        self._note(s, f"{{{seat}}} takes {n} random card{'s' if n != 1 else ''} from {{{target}}}'s hand.")

    def _special_seafaring(self, s, seat, target, count, sp):
        n = min(sp["steal_vp"], s.vp[target])  # CB-SP5: VP never go below 0
        if n:
            self._gain_vp(s, target, -n, "stolen", seat)
            self._gain_vp(s, seat, n, "seafaring", target)
        else:
            self._note(s, f"{{{target}}} has no Victory Points: {{{seat}}} steals nothing.")

    def _special_government(self, s, seat, target, count, sp):
        self._discard(s, seat, count)
        n = self._draw(s, seat, count + sp["extra_draw"])
        self._note(s, f"{{{seat}}} discards {count} cards and draws {n}.")

    def _special_equestrian(self, s, seat, target, count, sp):
        n = min(sp["discard"], s.hand[target])
        self._discard(s, target, n)
        self._note(s, f"{{{target}}} discards {n} random card{'s' if n != 1 else ''} (shuffle and let {{{seat}}} pick).")

    def _special_engineering(self, s, seat, target, count, sp):
        n = self._draw(s, seat, sp["draw"])
        self._gain_vp(s, seat, sp["vp"], "engineering")
        self._note(s, f"{{{seat}}} draws {n} cards.")

    def check_skip_special(self, s, a):
        pass

    def do_skip_special(self, s, a):
        self._back_to_turn(s)

    def check_take_point(self, s, a):
        self._attr(a["attribute"], "CB-SP-CONQUEST")
        if s.attrs[s.target][a["attribute"]] < 1:
            raise Rejected("CB-SP-CONQUEST", f"{s.target} has no {a['attribute'].title()} points to steal")

    def do_take_point(self, s, a):
        attr = a["attribute"]
        s.attrs[s.target][attr] -= 1
        s.attrs[a["player"]][attr] += 1
        s.taken += 1
        if s.taken >= self.data.special["conquest"]["steal_points"] or not any(s.attrs[s.target].values()):
            self._back_to_turn(s)

    # score phase ------------------------------------------------------------------------------
    def _score_phase(self, s):
        s.special_attr = None
        holders = self.holders(s, "science")
        s.queue = [x for x in s.order if x in holders]  # fixed at the start of the phase (CB-SCORE-SCIENCE)
        if s.queue:
            s.step = "science_point"
        else:
            self._score(s)

    def check_science_point(self, s, a):
        self._attr(a["attribute"], "CB-SCORE-SCIENCE")

    def do_science_point(self, s, a):
        s.attrs[a["player"]][a["attribute"]] += self.data.science_points
        s.science_picks = s.science_picks + ((a["player"], a["attribute"]),)
        self._pop_queue(s, self._score)

    check_decline_science = check_draw_sixth

    def do_decline_science(self, s, a):
        self._pop_queue(s, self._score)

    def _score(self, s):
        """Each attribute in turn: the most points score the round band's VP, ties all score;
        then the Culture leader's extra VP. The breakdown is kept for the round summary."""
        band = self.data.band_vp(s.round)
        rows = []
        for attr in ATTRIBUTES:
            values = tuple(s.attrs[x][attr] for x in s.seats)
            winners = self.holders(s, attr)
            for x in winners:
                self._gain_vp(s, x, band, "majority", attr)
            rows.append((attr, values, winners, band))
        culture = self.holders(s, "culture")
        for x in culture:
            self._gain_vp(s, x, self.data.culture_vp, "culture_leader")
        s.scoring[s.round] = {"band": band, "rows": tuple(rows), "culture_leader": culture,
                              "culture_vp": self.data.culture_vp, "science": s.science_picks}
        self._end_phase(s)

    # end phase --------------------------------------------------------------------------------
    def hand_limit(self, s, seat) -> int:
        return self.data.conquest_hand_limit if seat in self.holders(s, "conquest") else self.data.hand_limit

    def _end_phase(self, s):
        for seat in s.order:
            excess = s.hand[seat] - self.hand_limit(s, seat)
            if excess > 0:
                self._discard(s, seat, excess)
                self._note(s, f"{{{seat}}} discards {excess} card{'s' if excess != 1 else ''} down to "
                              f"{self.hand_limit(s, seat)}.")
        holders = self.holders(s, "equestrian")
        s.queue = [x for x in s.order if x in holders]  # CB-E2: even with no card, as written
        if s.queue:
            s.step = "equestrian"
        else:
            self._round_end(s)

    check_discard_all = check_draw_sixth

    def do_discard_all(self, s, a):
        seat = a["player"]
        n = s.hand[seat]
        self._discard(s, seat, n)
        self._gain_vp(s, seat, self.data.equestrian_vp, "equestrian")
        self._note(s, f"{{{seat}}} discards all {n} cards.")
        self._pop_queue(s, self._round_end)

    check_keep_cards = check_draw_sixth

    def do_keep_cards(self, s, a):
        self._pop_queue(s, self._round_end)

    def _round_end(self, s):
        if s.round >= s.rounds:
            s.over, s.step, s.end_reasons = True, "game_over", ("round_limit",)
            s.queue = []
            return
        self._start_round(s)

    # corrections ------------------------------------------------------------------------------
    def check_correct_hand(self, s, a):
        self._seat(s, a["seat"], "CB-CORRECT")
        if s.round < 1:
            raise Rejected("CB-CORRECT", "hands are counted once the cards are dealt")
        diff = a["count"] - s.hand[a["seat"]]
        if a["count"] < 0 or diff > s.discard + s.deck:
            raise Rejected("CB-CORRECT", f"a hand holds 0 to {s.hand[a['seat']] + s.discard + s.deck} cards "
                                         "(every other card is in another hand)")

    def do_correct_hand(self, s, a):
        diff = a["count"] - s.hand[a["seat"]]
        if diff < 0:
            self._discard(s, a["seat"], -diff)
        else:
            from_discard = min(diff, s.discard)
            s.discard -= from_discard
            s.deck -= diff - from_discard
            s.hand[a["seat"]] += diff

    # ------------------------------------------------------------------ legal actions
    def pseudo_legal_actions(self, s):
        if s.over:
            return []
        f, st, who = self.codec.fast, s.step, self.actor(s)
        if st == "choose_civ":
            return [f("choose_civ", player=who, civ=c) for c in self.data.civs if c not in s.civ.values()]
        if st == "sixth_card":
            return [f("draw_sixth", player=who), f("decline_sixth", player=who)]
        if st == "trade":  # one card from a player holding one to another (any count is accepted)
            give, hand = self.codec.maker("give_cards"), s.hand
            gifts = [give({"giver": g, "taker": t, "count": 1}) for g in s.seats if hand[g] > 0
                     for t in s.seats if g != t]
            return [f("end_trade", player=who)] + gifts
        if st == "turn":  # a meld is begun only with the cards the turn's next meld needs (CB-MELD-SIZE)
            picks = [f("pick_meld", player=who, attribute=x) for x in ATTRIBUTES] \
                if s.hand[who] >= self.min_meld(s) else []
            return [f("end_turn", player=who)] + picks
        if st == "meld":
            return self._meld_options(s, who) + [f("cancel_meld", player=who)]
        if st == "special":
            return self._special_options(s, who) + [f("skip_special", player=who)]
        if st == "conquest_take":  # an attribute the target has points of (CB-SP-CONQUEST)
            points = s.attrs[s.target]
            return [f("take_point", player=who, attribute=x) for x in ATTRIBUTES if points[x] >= 1]
        if st == "science_point":
            return [f("science_point", player=who, attribute=x) for x in ATTRIBUTES] + [
                f("decline_science", player=who)]
        if st == "equestrian":
            return [f("discard_all", player=who), f("keep_cards", player=who)]
        return []

    def legal_actions(self, s):
        if s.step in GENERATED_LEGAL and not s.over:
            # generated legal: a meld option keeps check_meld's counts (natural, leader, wild cards
            # of the holders, the turn's size, the hand), a trade's count what the target holds...
            return self.pseudo_legal_actions(s)
        return super().legal_actions(s)

    def _meld_options(self, s, seat):
        attr, have, need = s.meld_attr, s.hand[seat], self.min_meld(s)
        dis = have if seat in self.holders(s, "religion") else 0
        sea = have if attr in self.data.sea_wild_melds and seat in self.holders(s, "seafaring") else 0
        out = []
        meld = self.codec.maker("meld")  # hundreds of options with a big hand: the short path
        for leader in range(0, min(self.data.max_leaders, have) + 1):
            for d in range(0, dis + 1):
                for e in range(0, sea + 1):
                    for cards in range(max(self.data.min_natural, need - leader - d - e), have - leader - d - e + 1):
                        kw = {"player": seat, "attribute": attr, "cards": cards}
                        if leader:
                            kw["leader"] = leader
                        if d:
                            kw["disasters"] = d
                        if e:
                            kw["seas"] = e
                        out.append(meld(kw))
        return out

    def _special_options(self, s, seat):
        attr, f = s.special_attr, self.codec.fast
        opp = [x for x in s.order if x != seat]
        used = SPECIAL_FIELDS[attr]
        if used == {"target"}:
            return [f("special", player=seat, target=t) for t in opp]
        if used == {"target", "count"}:  # CB-SP-TRADE: 0 to max_swap, at most what the target holds
            top = self.data.special["trade"]["max_swap"]
            return [f("special", player=seat, target=t, count=c) for t in opp
                    for c in range(0, min(top, s.hand[t]) + 1)]
        if used == {"count"}:
            return [f("special", player=seat, count=c) for c in range(0, s.hand[seat] + 1)]
        return [f("special", player=seat)]

    # ------------------------------------------------------------------ results and views
    def score(self, s) -> dict:
        out = {}
        for seat in s.seats:
            items = {k: 0 for k in VP_SOURCES}
            for _, x, n, src, _ in s.vp_log:
                if x == seat:
                    items[src] += n
            out[seat] = {"total": s.vp[seat], "items": items}
        return out

    def result(self, s) -> dict:
        best = max(s.vp.values())
        top = [x for x in s.seats if s.vp[x] == best]
        return {"winner": top[0] if len(top) == 1 else None, "winners": top,
                "decided_by": "total" if len(top) == 1 else "shared", "end_reasons": list(s.end_reasons)}

    def view(self, s) -> dict:
        return s.to_dict()

    def status(self, s) -> list:
        probs = []
        total = s.deck + s.discard + s.cards_in_hands
        if total != self.data.deck_total:
            probs.append(f"cards: deck {s.deck} + discard {s.discard} + hands {s.cards_in_hands} = {total}, "
                         f"not {self.data.deck_total}")
        if min(s.deck, s.discard, *s.hand.values()) < 0:
            probs.append("a negative card count")
        for seat in s.seats:
            if min(s.attrs[seat].values()) < 0:
                probs.append(f"{seat} has a negative attribute")
            if s.vp[seat] != sum(e[2] for e in s.vp_log if e[1] == seat):
                probs.append(f"{seat}'s VP differ from the sum of their logged sources")
        return probs


def _bind_roll_handlers():
    """One chance action per attribute (so the dice prompt names it: 'Ana: Science, 1 die'),
    all handled by the same check/do."""
    for t in ROLL_TYPES:
        setattr(CivBuilder, "check_" + t, CivBuilder._check_roll)
        setattr(CivBuilder, "do_" + t, CivBuilder._do_roll)


_bind_roll_handlers()
