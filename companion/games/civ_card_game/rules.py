"""Civilization: The Card Game (../shared/rules/civilization-the-card-game.txt) as a pure engine:
no Kivy, no serial, no dice.

The companion cannot see the cards. It keeps what is public (every plot with its population and
buildings, the face-up plots and technologies, each player's technologies and resources) and counts
what is hidden: each hand is a count plus the cards the app knows are in it (a destroyed building
or a bounced unit goes back to its owner's hand by name). A card played from a hand is named by its
player and checked against the copies the deck can still hide. A card turned face up is named by
the table (`turn_up`): the engine never shuffles. Decisions that belong to a player other than the
turn's (the draft, a defender's walls and blocks, damage) are queued as tasks, each answered by its
player. Rule ids (CC-...) are the rows of docs/civ_card_game-trace.md; decisions the text leaves
open are in docs/civ_card_game-register.md.
"""
from __future__ import annotations

import functools
import json
import os

from companion.engine.actions import ActionCodec, ActionSchema, seats_of
from companion.engine.errors import Rejected, SetupError
from companion.engine.flow import Flow
from companion.engine.game import Game

from .data_load import DATA, RES, load_cards, load_rules

MAX_PLAYERS = 4
SEATS = seats_of(MAX_PLAYERS)
TURN_STEPS = ("collect", "purchase", "combat", "draw")
# a queued task's kind -> the step the header shows while it waits
TASK_STEP = {"turn_up": "market", "deal": "deal", "row": "deal", "draft": "draft", "population": "population",
             "hands": "hands", "discard": "hands", "steal_card": "purchase", "steal_resources": "purchase",
             "bounce": "combat", "defend": "combat", "resolve": "combat", "lose_population": "combat",
             "take_population": "combat", "lose_building": "combat", "combat_end": "combat"}
AUTO_TASKS = ("hands", "resolve", "combat_end")


def _schemas():
    p = {"player": "seat"}
    return [ActionSchema("turn_up", {**p, "card": "str"}),
            ActionSchema("draft", {**p, "card": "str"}),
            ActionSchema("place_population", {**p, "plot": "int"}),
            ActionSchema("discard", p, {"known": "strs"}),
            ActionSchema("collect", p, {"bonus": "res_map"}),
            ActionSchema("buy_population", {**p, "plot": "int"}),
            ActionSchema("buy_plot", {**p, "card": "str", "pay": "res_map"}),
            ActionSchema("buy_tech", {**p, "card": "str"}),
            ActionSchema("build", {**p, "card": "str", "plot": "int"}),
            ActionSchema("play_resource", {**p, "card": "str"}),
            ActionSchema("trade", {**p, "give": "str", "get": "str"}),
            ActionSchema("steal_card", {**p, "target": "seat"}, {"card": "str"}),
            ActionSchema("steal_resources", {**p, "target": "seat", "take": "res_map"}),
            ActionSchema("done", p),
            ActionSchema("attack", {**p, "card": "str", "target": "seat"}),
            ActionSchema("fight", p),
            ActionSchema("bounce", {**p, "attacker": "int"}),
            ActionSchema("block", {**p, "card": "str", "attacker": "int"}),
            ActionSchema("defend_done", p),
            ActionSchema("lose_population", {**p, "plot": "int"}),
            ActionSchema("take_population", {**p, "plot": "int"}),
            ActionSchema("lose_building", {**p, "plot": "int", "card": "str"}),
            ActionSchema("end_turn", p, {"known": "strs"}),
            ActionSchema("correct", {**p, "what": "str", "value": "int"})]


def _reject(rule, msg):
    raise Rejected(rule, msg)


# refusals are read by the players: resources, counts, steps and awaited decisions in their words
RES_NAMES = {"food": ("Food", "Food"), "hammer": ("Hammer", "Hammers"), "coin": ("Coin", "Coins")}
STEP_WORDS = {"deal": "deal", "draft": "plot draft", "market": "face-up cards", "population": "free population",
              "hands": "initial hands", "collect": "collect", "purchase": "purchase", "combat": "combat",
              "draw": "draw and discard"}
AWAITED_WORDS = {"deal": "the dealer names a plot card dealt", "row": "the dealer names a plot laid out for the draft",
                 "turn_up": "a card turned up is named", "draft": "a plot is taken from the draft",
                 "population": "a free population is placed", "discard": "the first hands' discards are confirmed",
                 "steal_card": "a card is taken (Writing)", "steal_resources": "resources are taken (Code of Laws)",
                 "bounce": "the defender's walls bounce a unit", "defend": "the defender blocks or is done",
                 "lose_population": "the defender chooses the population lost",
                 "take_population": "the attacker places the captured population",
                 "lose_building": "the defender chooses the building lost"}
RES_LIST = "Food, Hammers and Coins"


def _n(n, one, many=None):
    """'1 card', '2 cards'."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _res(n, r):
    """'1 Coin', '3 Hammers', '2 Food'."""
    return f"{n} {RES_NAMES[r][n != 1]}" if r in RES_NAMES else f"{n} {r}"


def _copies(card, n):
    return f"the only {card} card" if n == 1 else f"both {card} cards" if n == 2 else f"all {n} {card} cards"


def _add(a, b, sign=1):
    """Resource triples (food, hammer, coin) plus a mapping or another triple."""
    if b.__class__ is dict:
        g = b.get
        b = (g("food", 0), g("hammer", 0), g("coin", 0))
    return (a[0] + sign * b[0], a[1] + sign * b[1], a[2] + sign * b[2])


assert RES == ("food", "hammer", "coin")  # _add is written out for these three
RIDX = {r: i for i, r in enumerate(RES)}


def _plus(triple, r, n):
    """A resource triple with n more (or fewer) of resource `r`."""
    t = list(triple)
    t[RIDX[r]] += n
    return tuple(t)


class State:
    """Cheap to copy: the containers hold immutable values (tuples, ints), so a copy is a few
    dict copies. A plot is (card name, population, buildings and wonders on it)."""
    __slots__ = ("seats", "step", "turn", "round", "plots", "res", "techs", "hand", "known", "plot_deck",
                 "plot_row", "draft_row", "tech_deck", "tech_row", "deck", "discard_known", "discard_unknown",
                 "queue", "combat", "fought", "last", "reshuffles", "over", "winner", "cache")

    def copy(self):
        s = State.__new__(State)
        for k in State.__slots__:
            setattr(s, k, getattr(self, k))
        for k in ("plots", "res", "techs", "hand", "known", "plot_deck"):
            setattr(s, k, dict(getattr(self, k)))
        s.cache = None
        return s

    @property
    def current(self):
        return self.seats[self.turn]

    @property
    def dealer(self):
        return self.seats[-1]

    def to_dict(self):
        out = {}
        for k in State.__slots__:
            if k == "cache":
                continue
            v = getattr(self, k)
            out[k] = {a: (list(b) if isinstance(b, tuple) else b) for a, b in sorted(v.items())} \
                if isinstance(v, dict) else (list(v) if isinstance(v, tuple) else v)
        out["plots"] = {a: [[n, p, list(b)] for n, p, b in ps] for a, ps in sorted(self.plots.items())}
        out["queue"] = [list(t) for t in self.queue]
        out["combat"] = [list(c) for c in self.combat]
        return out


class CivCardGame(Game):
    name = "civ_card_game"
    correction_types = frozenset({"correct"})

    def __init__(self, cards=None, rules=None):
        self.cards = cards or load_cards()
        self.rules = rules or load_rules()
        with open(os.path.join(DATA, "flow.json"), encoding="utf-8") as f:
            self.flow = Flow(json.load(f))
        self.codec = ActionCodec(_schemas(), seats=SEATS)
        c = self.cards
        self.plot_cards, self.techs = c["plots"], c["technologies"]
        self.buildings, self.wonders, self.units, self.resource_cards = (
            c["buildings"], c["wonders"], c["units"], c["resources"])
        self.play_deck = {**self.buildings, **self.wonders, **self.units, **self.resource_cards}
        self.deck_size = sum(d["copies"] for d in self.play_deck.values())
        self.walls = tuple(n for n, d in self.buildings.items() if d.get("walls"))
        # derived once from the data, for the per-action checks of a replay (Session.resume) and the
        # listings: a plot's printed yield as a triple and its types as a bit mask (CC-Y1, CC-Y2),
        # each card's Culture and Happiness, the makers of the listed actions (fields plain or frozen)
        self._yield3 = {n: _add((0, 0, 0), d["yield"]) for n, d in self.plot_cards.items()}
        self._mask = {n: sum(1 << RES.index(r) for r in d["yield"]) for n, d in self.plot_cards.items()}
        self._tech_cul = {n: (d.get("culture", 0), d.get("happiness", 0)) for n, d in self.techs.items()}
        self._card_cul = {n: (d.get("culture", 0), d.get("happiness", 0)) for n, d in self.play_deck.items()}
        self._built_plain = frozenset(n for n, d in self.play_deck.items()
                                      if not d.get("double_food") and not d.get("plot_yield"))
        self._mk = {t: self.codec.maker(t) for t in self.codec.schemas}
        kinds = ("population", "technology", "building", "wonder")
        self._disc = {k: ({n: d["discount"][k] for n, d in self.techs.items() if (d.get("discount") or {}).get(k)},
                          {n: d["discount"][k] for n, d in self.play_deck.items() if (d.get("discount") or {}).get(k)})
                      for k in kinds}
        self._builds = tuple(c for c in self.play_deck if c in self.buildings or c in self.wonders)

    # ------------------------------------------------------------------ setup
    def default_setup(self, players=2, **over):
        lo, hi = self.rules["players"]
        if not isinstance(players, int) or not lo <= players <= min(hi, MAX_PLAYERS):
            raise SetupError(f"Civilization: The Card Game is for {lo}-{hi} players, not {players}")
        setup = {"players": {s: {"name": f"Player {i + 1}", "colour": c}
                             for i, (s, c) in enumerate(zip(SEATS[:players], ("blue", "green", "red", "yellow")))}}
        setup.update(over)
        return setup

    def initial_state(self, setup):
        players = setup.get("players") if isinstance(setup, dict) else None
        lo, hi = self.rules["players"]
        if not isinstance(players, dict) or not lo <= len(players) <= min(hi, MAX_PLAYERS):
            raise SetupError(f"Civilization: The Card Game is for {lo}-{hi} players")
        seats = SEATS[:len(players)]
        if sorted(players) != sorted(seats):
            raise SetupError(f"seats must be {', '.join(seats)}")
        r = self.rules
        s = State()
        s.seats = seats
        s.turn = 0
        s.round = 0
        s.plots = {p: () for p in seats}
        s.res = {p: (0, 0, 0) for p in seats}
        s.techs = {p: () for p in seats}
        s.hand = {p: 0 for p in seats}
        s.known = {p: () for p in seats}
        s.plot_deck = {n: d["copies"] for n, d in self.plot_cards.items()}
        s.plot_row = s.draft_row = s.tech_row = ()
        s.tech_deck = tuple(self.techs)
        s.deck = self.deck_size
        s.discard_known = ()
        s.discard_unknown = 0
        dealer = seats[-1]
        q = [("deal", dealer, p) for p in seats for _ in range(r["deal_plots"])]
        q += [("row", dealer, None)] * len(seats) + [("draft", p, None) for p in seats]
        q += [("row", dealer, None)] * len(seats) + [("draft", p, None) for p in reversed(seats)]
        q += [("turn_up", dealer, "plots")] * r["market_plots"] + [("turn_up", dealer, "techs")] * r["market_technologies"]
        q += [("population", p, None) for p in seats for _ in range(r["free_population"])]
        q += [("hands", None, None)] + [("discard", p, None) for p in seats]
        s.queue = tuple(q)
        s.combat = ()
        s.fought = False
        s.last = ""
        s.reshuffles = 0
        s.over = False
        s.winner = None
        s.cache = None
        s.step = "deal"
        return s

    # ------------------------------------------------------------------ queries
    def actor(self, s):
        if s.over:
            return None
        if s.queue:
            return s.queue[0][1]
        return s.current

    def is_over(self, s):
        return s.over

    def chance_action(self, s, dice):
        return None  # no dice: every card turned up is named by the table (turn_up)

    def head(self, s):
        return s.queue[0] if s.queue else None

    def neighbours(self, s, seat):
        """The players adjacent to `seat`, the one to its left first (the next seat in play order)."""
        i, n = s.seats.index(seat), len(s.seats)
        out = []
        for j in (i + 1, i - 1):
            p = s.seats[j % n]
            if p != seat and p not in out:
                out.append(p)
        return out

    def effects(self, s, seat):
        """(name, data) of every card working for `seat`: technologies, then buildings and wonders."""
        for t in s.techs[seat]:
            yield t, self.techs[t]
        for _, _, built in s.plots[seat]:
            for b in built:
                yield b, self.play_deck[b]

    def _cul_hap(self, s, seat):
        """(Culture, Happiness) of `seat`: its technologies, buildings and wonders."""
        c = h = 0
        tc, cc = self._tech_cul, self._card_cul
        for t in s.techs[seat]:
            x = tc[t]
            c += x[0]
            h += x[1]
        for _, _, built in s.plots[seat]:
            for b in built:
                x = cc[b]
                c += x[0]
                h += x[1]
        return c, h

    def culture(self, s, seat):
        return self._cul_hap(s, seat)[0]

    def happiness(self, s, seat):
        return self._cul_hap(s, seat)[1]

    def _holders(self, values, ok):
        best = max(values.values())
        top = [p for p, v in values.items() if v == best and ok(v)]
        if len(top) > 1 and self.rules["status_ties"] == "none":
            return ()
        return tuple(top)

    def highest_culture(self, s):
        """CC-S1: the highest culture, and more than 2 (ties: CC-S3)."""
        floor = self.rules["culture_status"]["more_than"]
        return self._cached(s, "culture", lambda: self._holders(
            {p: self.culture(s, p) for p in s.seats}, lambda v: v > floor))

    def highest_happiness(self, s):
        """CC-S2: the highest happiness, at least 2 (ties: CC-S3)."""
        floor = self.rules["happiness_status"]["at_least"]
        return self._cached(s, "happiness", lambda: self._holders(
            {p: self.happiness(s, p) for p in s.seats}, lambda v: v >= floor))

    def engineering(self, s, seat):
        return self._cached(s, ("plot_limit", seat), lambda: max(
            (d.get("plot_limit", 0) for _, d in self.effects(s, seat)), default=0))

    def building_limit(self, s, seat, plot):
        """CC-B1: one building or wonder per plot; two with 3 population or Engineering."""
        bl = self.rules["building_limit"]
        pop = s.plots[seat][plot][1]
        limit = bl["extended"] if pop >= bl["population_for_extended"] else bl["base"]
        return max(limit, self.engineering(s, seat))

    def price_parts(self, s, seat, kind, card=None, plot=None):
        """(base, [(source, amount taken off)]) of a purchase: the text's formulas for
        population and plots (CC-P1, CC-P2), a card's cost minus every modifier otherwise (CC-P3)."""
        base = self._base(s, seat, kind, card, plot)
        return base, ([] if kind == "plot" else self._offs(s, seat, kind))

    def _base(self, s, seat, kind, card=None, plot=None):
        r = self.rules
        if kind == "plot":
            pc = r["plot_cost"]
            return pc["base"] + pc["step"] * (len(s.plots[seat]) - pc["from"])
        if kind == "population":
            pc = r["population_cost"]
            return pc["base"] + pc["step"] * s.plots[seat][plot][1]
        return {"technology": self.techs, "building": self.buildings, "wonder": self.wonders}[kind][card]["cost"]

    def _offs(self, s, seat, kind):
        """[(source, amount taken off)] of every modifier of `kind` purchases for `seat` (CC-P3,
        CC-P4)."""
        td, cd = self._disc[kind]
        offs = [(t, td[t]) for t in s.techs[seat] if t in td]
        offs += [(b, cd[b]) for _, _, built in s.plots[seat] for b in built if b in cd]
        hs = self.rules["happiness_status"]
        if (kind in hs["applies_to"] and hs["discount"] and self.happiness(s, seat) >= hs["at_least"]
                and seat in self.highest_happiness(s)):  # the seat's own score first: the others' rarely needed
            offs.append(("Highest Happiness", hs["discount"]))
        return offs

    def price(self, s, seat, kind, card=None, plot=None):
        base = self._base(s, seat, kind, card, plot)
        if kind == "plot":
            return base
        floor = self.rules["min_card_cost"] if kind != "population" else 0
        # the modifiers' total, once per state while actions are listed
        off = self._cached(s, ("off", seat, kind), lambda: sum(n for _, n in self._offs(s, seat, kind)))
        return max(floor, base - off)

    def kind_of(self, card):
        if card in self.buildings:
            return "building"
        if card in self.wonders:
            return "wonder"
        if card in self.units:
            return "unit"
        if card in self.resource_cards:
            return "resource"
        return None

    def in_play(self, s, card):
        return sum(b.count(card) for ps in s.plots.values() for _, _, b in ps)

    def _cached(self, s, key, fn):
        """fn() once per state while legal actions are listed (s.cache is a dict only then)."""
        if s.cache is None:
            return fn()
        if key not in s.cache:
            s.cache[key] = fn()
        return s.cache[key]

    def _seen(self, s):
        seen = {}
        cards = [b for ps in s.plots.values() for _, _, bs in ps for b in bs]
        cards += [c for k in s.known.values() for c in k] + list(s.discard_known)
        cards += [c[0] for c in s.combat if c[2] in ("in", "blocked")]
        for c in cards:
            seen[c] = seen.get(c, 0) + 1
        return seen

    def unseen(self, s, card):
        """Copies of a play-deck card the deck, the unknown discards or the unknown part of a hand
        may still hide."""
        d = self.play_deck.get(card)
        if d is None:
            return 0
        if s.cache is not None:
            return d["copies"] - self._cached(s, "seen", lambda: self._seen(s)).get(card, 0)
        n = s.discard_known.count(card)  # one card: counted in place (a replay's check)
        for ps in s.plots.values():
            for _, _, bs in ps:
                if bs:
                    n += bs.count(card)
        for k in s.known.values():
            if k:
                n += k.count(card)
        for c in s.combat:
            if c[0] == card and c[2] in ("in", "blocked"):
                n += 1
        return d["copies"] - n

    def can_play(self, s, seat, card):
        return card in s.known[seat] or (s.hand[seat] > len(s.known[seat]) and self.unseen(s, card) > 0)

    def _need_card(self, s, seat, card, rule):
        if card not in self.play_deck:
            _reject(rule, f"there is no card called {card} in the play deck")
        if not self.can_play(s, seat, card):
            if s.hand[seat] <= len(s.known[seat]) and card not in s.known[seat]:
                _reject(rule, f"the app knows every card in that hand ({', '.join(s.known[seat]) or 'none'}), "
                              f"and no {card} is among them")
            _reject(rule, f"{_copies(card, self.play_deck[card]['copies'])} "
                          f"{'is' if self.play_deck[card]['copies'] == 1 else 'are'} already in play, in the discard "
                          "pile or in a hand the app knows")

    def plot_base(self, s, seat, i):
        """What plot i yields before population: printed yield, Granary, plot bonuses (CC-Y1)."""
        return dict((r, n) for r, n, has in zip(RES, self._base3(s, seat, i), self._has(s, seat, i)) if has)

    def _has(self, s, seat, i):
        name, _, built = s.plots[seat][i]
        m = self._mask[name]
        for b in built:
            m |= sum(1 << RES.index(r) for r in self.play_deck[b].get("plot_yield") or {})
        return [m >> k & 1 for k in range(len(RES))]

    def _base3(self, s, seat, i):
        """plot_base as a (food, hammer, coin) triple."""
        name, _, built = s.plots[seat][i]
        if not built or all(b in self._built_plain for b in built):
            return self._yield3[name]
        y = dict(self.plot_cards[name]["yield"])
        for b in built:
            d = self.play_deck[b]
            if d.get("double_food") and "food" in y:
                y["food"] = 2 * self.plot_cards[name]["yield"]["food"]
        for b in built:
            for r, n in (self.play_deck[b].get("plot_yield") or {}).items():
                y[r] = y.get(r, 0) + n
        return _add((0, 0, 0), y)

    def fixed_yield(self, s, seat):
        f = h = c = 0
        y3, plain = self._yield3, self._built_plain
        for i, (name, _, built) in enumerate(s.plots[seat]):
            y = self._base3(s, seat, i) if built and not plain.issuperset(built) else y3[name]
            f += y[0]
            h += y[1]
            c += y[2]
        total = (f, h, c)
        for t in s.techs[seat]:
            total = _add(total, self.techs[t].get("income") or {})
        return total

    def bonus_options(self, s, seat):
        """Every mix of population bonus the plots allow (CC-Y2): one resource per population, of a
        type its plot prints."""
        key = ("bonus", seat)
        if s.cache is not None and key in s.cache:
            return s.cache[key]
        total, caps = self._bonus_caps(s, seat)
        # the Hall condition of bonus_allowed solved for (food, hammer), coin = the rest: every
        # vector listed is allowed, none is tried and dropped
        c = caps
        F, H, C = 1, 2, 4
        found = []
        for f in range(min(c[F], total), max(0, total - c[H | C]) - 1, -1):
            hi = min(c[H], c[F | H] - f, total - f)
            lo = max(0, total - c[F | C], total - c[C] - f)
            found += [(f, h, total - f - h) for h in range(hi, lo - 1, -1)]
        if s.cache is not None:
            s.cache[key] = found
        return found

    def _bonus_caps(self, s, seat):
        """(population, {set of resource types as a bit mask: how many population can give one of
        them}) of a seat's plots."""
        mask = self._mask
        by = {}  # population per set of printed types
        for name, pop, _ in s.plots[seat]:
            if pop:
                m = mask[name]
                by[m] = by.get(m, 0) + pop
        return _caps(tuple(sorted(by.items())))

    def bonus_allowed(self, s, seat, vec):
        """Whether one resource per population, each of a type its plot produces, can make `vec`
        (CC-Y2): the totals match, and no set of types asks more than the population able to give
        one of them (a transport problem's Hall condition: checked without listing every mix)."""
        total, caps = self._bonus_caps(s, seat)
        f, h, c = vec
        if f < 0 or h < 0 or c < 0 or f + h + c != total:
            return False
        # every set of types (bit masks 1 food, 2 hammer, 4 coin) within what its population can give
        return (f <= caps[1] and h <= caps[2] and f + h <= caps[3] and c <= caps[4] and f + c <= caps[5]
                and h + c <= caps[6])

    def draw_count(self, s, seat):
        extra = sum(self.techs[t].get("extra_draw", 0) for t in s.techs[seat]) + sum(
            self.play_deck[b].get("extra_draw", 0) for _, _, bs in s.plots[seat] for b in bs)
        cs = self.rules["culture_status"]
        if self.culture(s, seat) > cs["more_than"] and seat in self.highest_culture(s):
            return self.rules["draw"] + extra + cs["extra_draw"], self.rules["discard"] + cs["extra_discard"]
        return self.rules["draw"] + extra, self.rules["discard"]

    def vp(self, s, seat):
        pop = sum(p for _, p, _ in s.plots[seat])
        wonders = sum(1 for _, _, b in s.plots[seat] for x in b if x in self.wonders)
        return {"Population": pop, "Technologies": len(s.techs[seat]), "Wonders": wonders}

    def score(self, s):
        out = {}
        for p in s.seats:
            items = self.vp(s, p)
            out[p] = {"total": sum(items.values()), "items": items}
        return out

    def result(self, s):
        sc = self.score(s)
        key = {p: (v["total"], v["items"]["Technologies"], v["items"]["Population"], v["items"]["Wonders"])
               for p, v in sc.items()}
        best = max(key.values())
        top = [p for p, k in key.items() if k == best]
        most = max(v["total"] for v in sc.values())
        level = "vp"
        if sum(1 for v in sc.values() if v["total"] == most) > 1:
            names = ("vp", "technologies", "population", "wonders")
            tied = [p for p in s.seats if sc[p]["total"] == most]
            level = "shared"
            for i in range(1, 4):
                vals = {p: key[p][i] for p in tied}
                m = max(vals.values())
                tied = [p for p in tied if vals[p] == m]
                if len(tied) == 1:
                    level = names[i]
                    break
        return {"winner": top[0] if len(top) == 1 else None, "decided_by": level,
                "winners": top, "end_reasons": [self.end_reason(s)] if s.over else []}

    def end_reason(self, s):
        """Why a game that is over ended: the last technology bought (CC-E1), or the round limit
        reached with technologies still unbought (CC-E3)."""
        if not s.over:
            return None
        return "round_limit" if s.tech_row or s.tech_deck else "last_technology"

    def status(self, s):
        """Problems that make the state impossible (the property tests call it after every action)."""
        probs = []
        for p in s.seats:
            if min(s.res[p]) < 0:
                probs.append(f"{p} has negative resources {s.res[p]}")
            if s.hand[p] < len(s.known[p]):
                probs.append(f"{p} holds fewer cards than the app knows of")
            for i, (_, pop, built) in enumerate(s.plots[p]):
                if pop < 0 or len(built) > self.rules["building_limit"]["extended"]:
                    probs.append(f"{p} plot {i}: population {pop}, {len(built)} buildings")
        total = s.deck + sum(s.hand.values()) + len(s.discard_known) + s.discard_unknown + sum(
            len(b) for ps in s.plots.values() for _, _, b in ps) + sum(
            1 for c in s.combat if c[2] in ("in", "blocked"))
        if total != self.deck_size or s.deck < 0 or s.discard_unknown < 0:
            probs.append(f"the play deck's {self.deck_size} cards are not all accounted for ({total})")
        for card in self.play_deck:
            if self.unseen(s, card) < 0:
                probs.append(f"more {card} in sight than the deck has")
        return probs

    # ------------------------------------------------------------------ settle
    def settle(self, s):
        """Run automatic tasks, drop impossible ones, and set the step the header shows."""
        while s.queue and not s.over:
            kind, who, arg = s.queue[0]
            if kind == "hands":
                for i, p in enumerate(s.seats):
                    self._draw(s, p, self.rules["initial_hands"][i])
            elif kind == "resolve":
                self._queue_damage(s)
            elif kind == "combat_end":
                self._combat_end(s)
            elif not self._task_possible(s, kind, who, arg):
                pass
            else:
                break
            s.queue = s.queue[1:]
        if s.over:
            s.queue = ()
            return
        if s.queue:
            kind, _, arg = s.queue[0]
            s.step = "market" if kind == "turn_up" and s.round == 0 else TASK_STEP.get(kind, s.step)
            if kind == "turn_up" and s.round:
                s.step = "purchase"
        elif s.round == 0:
            s.round, s.turn, s.step = 1, 0, "collect"

    def _harms(self, s, unit, who):
        """CC-C6: whether an attacking `unit` can do its damage to `who` now ("the unit performs
        what it can"): population needs population, "destroy a building" needs a building."""
        dmg = self.units[unit]["damage"]
        if dmg == "population":
            return any(p for _, p, _ in s.plots[who])
        if dmg == "building":
            return any(b in self.buildings for _, _, bs in s.plots[who] for b in bs)
        return False

    def _task_possible(self, s, kind, who, arg):
        if kind in ("deal", "row"):
            return any(s.plot_deck.values())
        if kind == "turn_up":
            return any(s.plot_deck.values()) if arg == "plots" else bool(s.tech_deck)
        if kind == "steal_card":
            return any(s.hand[p] for p in s.seats if p != who)
        if kind == "steal_resources":
            return any(sum(s.res[p]) for p in s.seats if p != who)
        if kind == "bounce":
            return any(c[1] == who and c[2] == "in" for c in s.combat)
        if kind == "defend":
            return any(c[1] == who and c[2] == "in" and self._harms(s, c[0], who) for c in s.combat)
        if kind == "lose_population":
            return any(p for _, p, _ in s.plots[who])
        if kind == "lose_building":
            return any(b in self.buildings for _, _, bs in s.plots[who] for b in bs)
        if kind == "draft":
            return bool(s.draft_row)
        return True

    def _draw(self, s, seat, n):
        drawn = 0
        for _ in range(n):
            if s.deck == 0 and (s.discard_unknown or s.discard_known):  # CC-D3: reshuffle the discards
                s.deck, s.discard_known, s.discard_unknown = s.discard_unknown + len(s.discard_known), (), 0
                s.reshuffles += 1
            if s.deck == 0:
                break
            s.deck -= 1
            s.hand[seat] += 1
            drawn += 1
        return drawn

    def _take_card(self, s, seat, card):
        k = s.known[seat]
        if card in k:
            i = k.index(card)
            s.known[seat] = k[:i] + k[i + 1:]
        s.hand[seat] -= 1

    def _discard(self, s, seat, n, known):
        n = min(n, s.hand[seat])
        for c in known[:n]:
            self._take_card(s, seat, c)
        s.discard_known += tuple(known[:n])
        rest = n - min(len(known), n)
        s.hand[seat] -= rest
        s.discard_unknown += rest
        return n

    def _check_known(self, s, seat, known, n, rule):
        pool = list(s.known[seat])
        for c in known:
            if c not in pool:
                _reject(rule, f"{c} is not a card the app knows in this hand")
            pool.remove(c)
        if len(known) > n:
            _reject(rule, f"only {_n(n, 'card')} {'is' if n == 1 else 'are'} discarded")

    # ------------------------------------------------------------------ task checks
    def _expect(self, s, a, kind, rule):
        h = self.head(s)
        if h is None or h[0] != kind:
            _reject(rule, f"that is not the decision awaited now ({self._awaited(s)})")
        if a["player"] != h[1]:
            _reject("flow.actor", f"it is {h[1]}'s decision now, not {a['player']}'s")
        return h

    def _awaited(self, s):
        h = self.head(s)
        if h:
            return "awaited: " + AWAITED_WORDS.get(h[0], "another decision")
        return f"now is the {STEP_WORDS.get(s.step, 'next')} step"

    def _free(self, s, a, step, rule):
        if s.queue:
            _reject(rule, f"finish the pending decision first ({self._awaited(s)})")
        if s.step != step:
            _reject(rule, f"this belongs to the {STEP_WORDS.get(step, step)} step; now is the "
                          f"{STEP_WORDS.get(s.step, 'next')} step")

    # turn_up: deal / row / plots / techs
    def check_turn_up(self, s, a):
        h = self.head(s)
        if h is None or h[0] not in ("deal", "row", "turn_up"):
            _reject("CC-M1", f"no card is to be turned up now ({self._awaited(s)})")
        self._expect(s, a, h[0], "CC-M1")
        card = a["card"]
        if h[0] == "turn_up" and h[2] == "techs":
            if card not in s.tech_deck:
                if card in self.techs:
                    _reject("CC-M1", f"{card} is no longer in the technology deck (it is face up or bought)")
                _reject("CC-M1", f"{card} is not a technology card")
        elif s.plot_deck.get(card, 0) < 1:
            if card in self.plot_cards:
                n = self.plot_cards[card]["copies"]
                _reject("CC-M1", f"{_copies(card, n)} {'is' if n == 1 else 'are'} already out of the plot deck")
            _reject("CC-M1", f"{card} is not a plot card")

    def do_turn_up(self, s, a):
        kind, _, arg = s.queue[0]
        s.queue = s.queue[1:]
        card = a["card"]
        if kind == "turn_up" and arg == "techs":
            i = s.tech_deck.index(card)
            s.tech_deck = s.tech_deck[:i] + s.tech_deck[i + 1:]
            s.tech_row += (card,)
            return
        s.plot_deck[card] -= 1
        if kind == "deal":
            s.plots[arg] += ((card, 0, ()),)
        elif kind == "row":
            s.draft_row += (card,)
        else:
            s.plot_row += (card,)

    def check_draft(self, s, a):
        self._expect(s, a, "draft", "CC-SET1")
        if a["card"] not in s.draft_row:
            _reject("CC-SET1", f"{a['card']} is not among the plots laid out for the draft "
                               f"({', '.join(s.draft_row) or 'none'})")

    def do_draft(self, s, a):
        s.queue = s.queue[1:]
        i = s.draft_row.index(a["card"])
        s.draft_row = s.draft_row[:i] + s.draft_row[i + 1:]
        s.plots[a["player"]] += ((a["card"], 0, ()),)

    def _plot(self, s, seat, i, rule):
        if not 0 <= i < len(s.plots[seat]):
            _reject(rule, f"there is no plot {i + 1}: that player has {_n(len(s.plots[seat]), 'plot')}")
        return s.plots[seat][i]

    def _set_plot(self, s, seat, i, pop=None, built=None):
        name, p, b = s.plots[seat][i]
        ps = list(s.plots[seat])
        ps[i] = (name, p if pop is None else pop, b if built is None else built)
        s.plots[seat] = tuple(ps)

    def check_place_population(self, s, a):
        self._expect(s, a, "population", "CC-SET2")
        self._plot(s, a["player"], a["plot"], "CC-SET2")

    def do_place_population(self, s, a):
        s.queue = s.queue[1:]
        seat, i = a["player"], a["plot"]
        self._set_plot(s, seat, i, pop=s.plots[seat][i][1] + 1)

    def check_discard(self, s, a):
        self._expect(s, a, "discard", "CC-SET3")
        self._check_known(s, a["player"], a.get("known") or (), self.rules["initial_discard"], "CC-SET3")

    def do_discard(self, s, a):
        s.queue = s.queue[1:]
        self._discard(s, a["player"], self.rules["initial_discard"], tuple(a.get("known") or ()))

    # ------------------------------------------------------------------ collect
    def check_collect(self, s, a):
        self._free(s, a, "collect", "CC-Y1")
        bonus = dict(a.get("bonus") or {})
        if set(bonus) - set(RES) or any(v < 0 for v in bonus.values()):
            _reject("CC-Y2", f"the extra resources are {RES_LIST} only, none below 0")
        vec = tuple(bonus.get(r, 0) for r in RES)
        if not self.bonus_allowed(s, a["player"], vec):
            pop = sum(p for _, p, _ in s.plots[a["player"]])
            _reject("CC-Y2", f"the population gives {_n(pop, 'extra resource')} in all, each of a type its own "
                             "plot produces")

    def do_collect(self, s, a):
        seat = a["player"]
        bonus = dict(a.get("bonus") or {})
        got = _add(self.fixed_yield(s, seat), bonus)
        s.res[seat] = _add(s.res[seat], got)
        s.last = ("collect", seat, got)
        s.step = "purchase"

    # ------------------------------------------------------------------ purchases
    def _pay(self, s, seat, kind, amount, rule, what):
        name = self.rules["pay_with"][kind]
        r = RIDX[name]
        if s.res[seat][r] < amount:
            _reject(rule, f"{what} costs {_res(amount, name)}; you have {_res(s.res[seat][r], name)}")
        return r

    def check_buy_population(self, s, a):
        self._free(s, a, "purchase", "CC-P1")
        seat = a["player"]
        self._plot(s, seat, a["plot"], "CC-P1")
        self._pay(s, seat, "population", self.price(s, seat, "population", plot=a["plot"]), "CC-P1",
                  f"a population on plot {a['plot'] + 1}")

    def do_buy_population(self, s, a):
        seat, i = a["player"], a["plot"]
        cost = self.price(s, seat, "population", plot=i)
        s.res[seat] = _plus(s.res[seat], self.rules["pay_with"]["population"], -cost)
        self._set_plot(s, seat, i, pop=s.plots[seat][i][1] + 1)
        s.last = ("bought", seat, f"a population for plot {i + 1}", cost)

    def check_buy_plot(self, s, a):
        self._free(s, a, "purchase", "CC-P2")
        seat = a["player"]
        if a["card"] not in s.plot_row:
            _reject("CC-P2", f"{a['card']} is not one of the face-up plots ({', '.join(s.plot_row) or 'none'})")
        pay = dict(a["pay"])
        if set(pay) - set(RES) or any(v < 0 for v in pay.values()):
            _reject("CC-P2", f"pay with {RES_LIST} only, none below 0")
        cost = self.price(s, seat, "plot")
        if sum(pay.values()) != cost:
            _reject("CC-P2", f"the plot costs {_n(cost, 'resource')} in all; the payment gives "
                             f"{_n(sum(pay.values()), 'resource')}")
        have = dict(zip(RES, s.res[seat]))
        for r, n in pay.items():
            if have[r] < n:
                _reject("CC-P2", f"the payment takes {_res(n, r)}; you have {_res(have[r], r)}")

    def do_buy_plot(self, s, a):
        seat = a["player"]
        s.res[seat] = _add(s.res[seat], dict(a["pay"]), -1)
        i = s.plot_row.index(a["card"])
        s.plot_row = s.plot_row[:i] + s.plot_row[i + 1:]
        s.plots[seat] += ((a["card"], 0, ()),)
        s.queue = (("turn_up", seat, "plots"),) + s.queue
        s.last = ("bought", seat, a["card"], sum(dict(a["pay"]).values()))

    def check_buy_tech(self, s, a):
        self._free(s, a, "purchase", "CC-P3")
        seat, card = a["player"], a["card"]
        if card not in s.tech_row:
            _reject("CC-P3", f"{card} is not one of the face-up technologies ({', '.join(s.tech_row) or 'none'})")
        if card in s.techs[seat]:
            _reject("CC-P3", f"{card} is already yours")  # pragma: no cover - each technology exists once
        self._pay(s, seat, "technology", self.price(s, seat, "technology", card), "CC-P3", card)

    def do_buy_tech(self, s, a):
        seat, card = a["player"], a["card"]
        cost = self.price(s, seat, "technology", card)
        s.res[seat] = _add(s.res[seat], {self.rules["pay_with"]["technology"]: cost}, -1)
        i = s.tech_row.index(card)
        s.tech_row = s.tech_row[:i] + s.tech_row[i + 1:]
        s.techs[seat] += (card,)
        s.last = ("bought", seat, card, cost)
        if not s.tech_row and not s.tech_deck:  # CC-E1: the last technology ends the game at once
            s.over = True
            s.winner = self.result(s)["winner"]
            return
        d = self.techs[card]
        tasks = [("turn_up", seat, "techs")]
        if d.get("once_per_plot"):  # Mining: a one-time bonus per plot (CC-T2)
            per = {r: n * len(s.plots[seat]) for r, n in d["once_per_plot"].items()}
            s.res[seat] = _add(s.res[seat], per)
        if d.get("steal_card"):
            tasks += [("steal_card", seat, None)] * d["steal_card"]
        if d.get("steal_resources"):
            tasks.append(("steal_resources", seat, d["steal_resources"]))
        s.queue = tuple(tasks) + s.queue

    def check_build(self, s, a):
        self._free(s, a, "purchase", "CC-B1")
        seat, card, i = a["player"], a["card"], a["plot"]
        kind = self.kind_of(card)
        if kind not in ("building", "wonder"):
            _reject("CC-B2", f"{card} is not a building or a wonder")
        self._need_card(s, seat, card, "CC-H1")
        _, _, built = self._plot(s, seat, i, "CC-B1")
        limit = self.building_limit(s, seat, i)
        if len(built) >= limit:
            held = _n(len(built), "building or wonder", "buildings and wonders")
            bl = self.rules["building_limit"]
            more = (f" ({bl['extended']} with {bl['population_for_extended']} population on it or with Engineering)"
                    if limit < bl["extended"] else "")
            _reject("CC-B1", f"plot {i + 1} already holds {held}; it may hold {limit}{more}")
        self._pay(s, seat, kind, self.price(s, seat, kind, card), "CC-P3", card)

    def do_build(self, s, a):
        seat, card, i = a["player"], a["card"], a["plot"]
        kind = self.kind_of(card)
        cost = self.price(s, seat, kind, card)
        s.res[seat] = _add(s.res[seat], {self.rules["pay_with"][kind]: cost}, -1)
        self._take_card(s, seat, card)
        self._set_plot(s, seat, i, built=s.plots[seat][i][2] + (card,))
        s.last = ("bought", seat, card, cost)

    def check_play_resource(self, s, a):
        self._free(s, a, "purchase", "CC-R2")
        if a["card"] not in self.resource_cards:
            _reject("CC-R2", f"{a['card']} is not a resource card of the play deck")
        self._need_card(s, a["player"], a["card"], "CC-H1")

    def do_play_resource(self, s, a):
        seat, card = a["player"], a["card"]
        self._take_card(s, seat, card)
        s.discard_known += (card,)
        s.res[seat] = _add(s.res[seat], self.resource_cards[card]["yield"])
        s.last = ("played", seat, card)

    def check_trade(self, s, a):
        if s.queue or s.step != "purchase":
            self._free(s, a, "purchase", "CC-R1")
        give, get = a["give"], a["get"]
        if give == get or give not in RIDX or get not in RIDX:
            _reject("CC-R1", f"trade one of {RES_LIST} for another")
        n = self.rules["bank_trade"]
        if s.res[a["player"]][RIDX[give]] < n:
            _reject("CC-R1", f"a trade with the bank takes {_res(n, give)}; you have "
                             f"{_res(s.res[a['player']][RIDX[give]], give)}")

    def do_trade(self, s, a):
        seat, give, get = a["player"], a["give"], a["get"]
        r = list(s.res[seat])  # the most frequent action of a long game: one list, no helpers
        r[RIDX[give]] -= self.rules["bank_trade"]
        r[RIDX[get]] += 1
        s.res[seat] = tuple(r)
        s.last = ("traded", seat, give, get)

    def check_steal_card(self, s, a):
        self._expect(s, a, "steal_card", "CC-T3")
        seat, tgt = a["player"], a["target"]
        if tgt == seat or tgt not in s.seats:
            _reject("CC-T3", "steal from another player of this game")
        if s.hand[tgt] < 1:
            _reject("CC-T3", "that player has no card in hand")
        card = a.get("card")
        if card is not None and card not in s.known[tgt]:
            _reject("CC-T3", f"{card} is not a card the app knows in that hand; leave the card out")
        if card is None and s.hand[tgt] <= len(s.known[tgt]):
            _reject("CC-T3", "every card of that hand is known: name the one taken")

    def do_steal_card(self, s, a):
        s.queue = s.queue[1:]
        seat, tgt, card = a["player"], a["target"], a.get("card")
        if card is None:
            s.hand[tgt] -= 1
        else:
            self._take_card(s, tgt, card)
            s.known[seat] += (card,)
        s.hand[seat] += 1
        s.last = ("stole", seat, tgt, card or "a card")

    def check_steal_resources(self, s, a):
        h = self._expect(s, a, "steal_resources", "CC-T4")
        seat, tgt = a["player"], a["target"]
        if tgt == seat or tgt not in s.seats:
            _reject("CC-T4", "steal from another player of this game")
        take = dict(a["take"])
        if set(take) - set(RES) or any(v < 0 for v in take.values()):
            _reject("CC-T4", f"take {RES_LIST} only, none below 0")
        want = min(h[2], sum(s.res[tgt]))
        if sum(take.values()) != want:
            _reject("CC-T4", f"take exactly {_n(want, 'resource')}")
        for r, n in take.items():
            if s.res[tgt][RES.index(r)] < n:
                _reject("CC-T4", f"that player has only {_res(s.res[tgt][RIDX[r]], r)}")

    def do_steal_resources(self, s, a):
        s.queue = s.queue[1:]
        seat, tgt, take = a["player"], a["target"], dict(a["take"])
        s.res[tgt] = _add(s.res[tgt], take, -1)
        s.res[seat] = _add(s.res[seat], take)
        s.last = ("stole", seat, tgt, _n(sum(take.values()), "resource"))

    def check_done(self, s, a):
        if s.queue:
            _reject("flow.pending", f"finish the pending decision first ({self._awaited(s)})")
        if s.step == "combat":
            if s.combat:
                _reject("CC-C1", "units are declared: resolve the attack (or undo the declarations)")
        elif s.step != "purchase":
            _reject("flow.step", f"nothing to finish in the {STEP_WORDS.get(s.step, s.step)} step")

    def do_done(self, s, a):
        if s.step == "purchase":
            s.step = "combat"
        else:
            s.step = "draw"
            s.last = ("no_combat", a["player"])

    # ------------------------------------------------------------------ combat
    def check_attack(self, s, a):
        self._free(s, a, "combat", "CC-C1")
        if s.fought:
            _reject("CC-C1", "the combat of this turn is over")  # pragma: no cover - the step moves on
        seat, card, tgt = a["player"], a["card"], a["target"]
        if tgt not in self.neighbours(s, seat):
            _reject("CC-C1", "attack only a player sitting next to you")
        d = self.units.get(card)
        if d is None or not d["attack"]:
            _reject("CC-C2", f"{card} cannot attack" if card in self.units else f"{card} is not a military unit")
        self._need_card(s, seat, card, "CC-H1")

    def do_attack(self, s, a):
        self._take_card(s, a["player"], a["card"])
        s.combat += ((a["card"], a["target"], "in"),)
        s.last = ("declared", a["player"], a["card"], a["target"])

    def check_fight(self, s, a):
        self._free(s, a, "combat", "CC-C1")
        if not s.combat:
            _reject("CC-C1", "declare at least one attacking unit, or end the step without combat")

    def do_fight(self, s, a):
        seat = a["player"]
        s.fought = True
        defenders = [p for p in self._defender_order(s, seat) if any(c[1] == p for c in s.combat)]
        combat = list(s.combat)
        for d in defenders:  # CC-C3: each catapult destroys one City Walls and is discarded
            for i, (card, tgt, fate) in enumerate(combat):
                if tgt != d or fate != "in" or not self.units[card].get("breaks_walls"):
                    continue
                where = self._walls_at(s, d)
                if where is None:
                    break
                j, wall = where
                self._set_plot(s, d, j, built=tuple(x for k, x in enumerate(s.plots[d][j][2])
                                                     if k != s.plots[d][j][2].index(wall)))
                s.known[d] += (wall,)
                s.hand[d] += 1
                combat[i] = (card, tgt, "walls")
                s.discard_known += (card,)
        s.combat = tuple(combat)
        tasks = [("bounce", d, None) for d in defenders if self._has_walls(s, d)]
        tasks += [("defend", d, None) for d in defenders]
        s.queue = tuple(tasks) + (("resolve", None, None), ("combat_end", None, None)) + s.queue

    def _defender_order(self, s, seat):
        i, n = s.seats.index(seat), len(s.seats)
        return [s.seats[(i + k) % n] for k in range(1, n)]

    def _walls_at(self, s, seat):
        for j, (_, _, built) in enumerate(s.plots[seat]):
            for b in built:
                if b in self.walls:
                    return j, b
        return None

    def _has_walls(self, s, seat):
        return self._walls_at(s, seat) is not None or any(
            self.wonders.get(b, {}).get("great_wall") for _, _, bs in s.plots[seat] for b in bs)

    def _attacker(self, s, i, defender, rule):
        if not 0 <= i < len(s.combat):
            _reject(rule, f"there is no attacking unit {i + 1}")
        card, tgt, fate = s.combat[i]
        if tgt != defender:
            _reject(rule, f"attacking unit {i + 1} ({card}) attacks another player")
        if fate != "in":
            how = {"blocked": "it was blocked", "bounced": "walls bounced it",
                   "walls": "it broke City Walls"}.get(fate, "it is out")
            _reject(rule, f"attacking unit {i + 1} ({card}) is no longer in the attack: {how}")
        return card

    def check_bounce(self, s, a):
        self._expect(s, a, "bounce", "CC-C4")
        self._attacker(s, a["attacker"], a["player"], "CC-C4")

    def do_bounce(self, s, a):
        s.queue = s.queue[1:]
        i = a["attacker"]
        card, tgt, _ = s.combat[i]
        s.combat = s.combat[:i] + ((card, tgt, "bounced"),) + s.combat[i + 1:]
        att = s.current
        s.known[att] += (card,)
        s.hand[att] += 1

    def check_block(self, s, a):
        self._expect(s, a, "defend", "CC-C5")
        seat, card = a["player"], a["card"]
        att = self._attacker(s, a["attacker"], seat, "CC-C5")
        if not self._harms(s, att, seat):
            what = {"population": "you have no population for it to take",
                    "building": "you have no building for it to destroy"}.get(self.units[att]["damage"])
            _reject("CC-C6", f"the attacking {att} can do no damage here" + (f" ({what})" if what else "")
                    + ": blocking it is more defence than necessary")
        d = self.units.get(card)
        if d is None or not d["defend"]:
            _reject("CC-C5", f"{card} cannot defend" if card in self.units else f"{card} is not a military unit")
        if d["defends_against"] is not None and att not in d["defends_against"]:
            _reject("CC-C5", f"{card} defends only against {', '.join(d['defends_against'])}, not {att}")
        self._need_card(s, seat, card, "CC-H1")

    def do_block(self, s, a):
        i, seat, card = a["attacker"], a["player"], a["card"]
        att, tgt, _ = s.combat[i]
        self._take_card(s, seat, card)
        s.discard_known += (card,)
        s.combat = s.combat[:i] + ((att, tgt, "blocked"),) + s.combat[i + 1:]

    def check_defend_done(self, s, a):
        self._expect(s, a, "defend", "CC-C5")

    def do_defend_done(self, s, a):
        s.queue = s.queue[1:]

    def _queue_damage(self, s):
        tasks = []
        for i, (card, tgt, fate) in enumerate(s.combat):
            dmg = self.units[card]["damage"]
            if fate == "in" and dmg:
                tasks.append(("lose_population" if dmg == "population" else "lose_building", tgt, i))
        s.queue = s.queue[:1] + tuple(tasks) + s.queue[1:]

    def check_lose_population(self, s, a):
        self._expect(s, a, "lose_population", "CC-C7")
        _, pop, _ = self._plot(s, a["player"], a["plot"], "CC-C7")
        if pop < 1:
            _reject("CC-C7", f"plot {a['plot'] + 1} has no population")

    def do_lose_population(self, s, a):
        seat, i = a["player"], a["plot"]
        self._set_plot(s, seat, i, pop=s.plots[seat][i][1] - 1)
        s.queue = (("take_population", s.current, seat),) + s.queue[1:]

    def check_take_population(self, s, a):
        self._expect(s, a, "take_population", "CC-C7")
        self._plot(s, a["player"], a["plot"], "CC-C7")

    def do_take_population(self, s, a):
        seat, i = a["player"], a["plot"]
        s.queue = s.queue[1:]
        self._set_plot(s, seat, i, pop=s.plots[seat][i][1] + 1)

    def check_lose_building(self, s, a):
        self._expect(s, a, "lose_building", "CC-C8")
        _, _, built = self._plot(s, a["player"], a["plot"], "CC-C8")
        if a["card"] not in built:
            _reject("CC-C8", f"plot {a['plot'] + 1} holds no {a['card']}")
        if a["card"] in self.wonders:
            _reject("CC-C8", "a wonder cannot be destroyed")

    def do_lose_building(self, s, a):
        seat, i, card = a["player"], a["plot"], a["card"]
        s.queue = s.queue[1:]
        built = list(s.plots[seat][i][2])
        built.remove(card)
        self._set_plot(s, seat, i, built=tuple(built))
        s.known[seat] += (card,)
        s.hand[seat] += 1

    def _combat_end(self, s):
        """CC-C9: every unit that took part goes to the discard pile."""
        s.discard_known += tuple(c[0] for c in s.combat if c[2] in ("in", "blocked"))
        s.last = ("combat", s.current, tuple(s.combat))
        s.combat = ()
        s.step = "draw"

    # ------------------------------------------------------------------ draw and discard
    def check_end_turn(self, s, a):
        self._free(s, a, "draw", "CC-D1")
        seat, known = a["player"], a.get("known")
        if known:  # named discards: no more than the discard (Highest Culture's is one more)
            self._check_known(s, seat, known, self.draw_count(s, seat)[1], "CC-D1")

    def do_end_turn(self, s, a):
        seat = a["player"]
        draw, discard = self.draw_count(s, seat)
        drew = self._draw(s, seat, draw)
        dropped = self._discard(s, seat, discard, tuple(a.get("known") or ()))
        s.last = ("drew", seat, drew, dropped)
        s.fought = False
        s.turn += 1
        s.step = "collect"
        if s.turn == len(s.seats):
            s.turn = 0
            if s.round == self.rules.get("round_limit"):  # CC-E3: the last round is over
                s.over = True
                s.winner = self.result(s)["winner"]
                return
            s.round += 1

    # ------------------------------------------------------------------ corrections
    def check_correct(self, s, a):
        what, v, seat = a["what"], a["value"], a["player"]
        if what not in RES + ("hand",):
            _reject("CC-X1", f"correct {RES_LIST} or the cards in hand")
        if v < 0:
            _reject("CC-X1", "a count cannot be below 0")
        if what == "hand":
            if v < len(s.known[seat]):
                _reject("CC-X1", f"the app knows of {_n(len(s.known[seat]), 'card')} in that hand")
            if v - s.hand[seat] > s.deck:
                _reject("CC-X1", f"the deck holds only {_n(s.deck, 'card')}")

    def do_correct(self, s, a):
        what, v, seat = a["what"], a["value"], a["player"]
        if what == "hand":
            diff = v - s.hand[seat]
            if diff > 0:
                s.deck -= diff
            else:
                s.discard_unknown -= diff
            s.hand[seat] = v
        else:
            r = list(s.res[seat])
            r[RES.index(what)] = v
            s.res[seat] = tuple(r)
        s.last = ("corrected", seat, what, v)

    # ------------------------------------------------------------------ legal actions
    def pseudo_legal_actions(self, s):
        if s.over:
            return []
        f = self.codec.fast
        h = self.head(s)
        if h is not None:
            return self._task_actions(s, h)
        seat = s.current
        if s.step == "collect":
            mk = self._mk["collect"]  # the bonus as the codec freezes a res_map: sorted (name, n) pairs
            return [mk({"player": seat, "bonus": (("coin", c), ("food", fo), ("hammer", h))})
                    for fo, h, c in self.bonus_options(s, seat)]
        if s.step == "purchase":
            return self._purchase_actions(s, seat)
        if s.step == "combat":
            out = []
            for card in self.playable(s, seat, lambda c: self.units.get(c, {}).get("attack")):
                for t in self.neighbours(s, seat):
                    out.append(f("attack", player=seat, card=card, target=t))
            out.append(f("fight", player=seat) if s.combat else f("done", player=seat))
            return out
        if s.step == "draw":
            return [f("end_turn", player=seat)]
        return []

    def playable(self, s, seat, pred):
        names = self._hand_names(s, seat)
        return [c for c in self.play_deck if c in names and pred(c)]

    def _hand_names(self, s, seat):
        """The cards `seat` could play now (CC-H1): its known cards, and every card the deck can
        still hide when the hand holds cards the app does not know."""
        if s.hand[seat] <= len(s.known[seat]):
            return frozenset(s.known[seat])
        return self._cached(s, ("hand_names", seat), lambda: frozenset(s.known[seat]).union(
            self._cached(s, "unseen_cards", lambda: {c for c in self.play_deck if self.unseen(s, c) > 0})))

    def _task_actions(self, s, h):
        f = self.codec.fast
        kind, who, arg = h
        if kind in ("deal", "row") or (kind == "turn_up" and arg == "plots"):
            return [f("turn_up", player=who, card=c) for c, n in s.plot_deck.items() if n]
        if kind == "turn_up":
            return [f("turn_up", player=who, card=c) for c in s.tech_deck]
        if kind == "draft":
            return [f("draft", player=who, card=c) for c in dict.fromkeys(s.draft_row)]
        if kind == "population":
            return [f("place_population", player=who, plot=i) for i in range(len(s.plots[who]))]
        if kind == "discard":
            return [f("discard", player=who)]
        if kind == "steal_card":
            out = []
            for p in s.seats:
                if p != who and s.hand[p]:
                    if s.hand[p] > len(s.known[p]):
                        out.append(f("steal_card", player=who, target=p))
                    out += [f("steal_card", player=who, target=p, card=c) for c in dict.fromkeys(s.known[p])]
            return out
        if kind == "steal_resources":
            out = []
            for p in s.seats:
                if p != who:
                    for take in _greedy_payments(s.res[p], min(arg, sum(s.res[p]))):
                        out.append(f("steal_resources", player=who, target=p, take=take))
            return out
        if kind == "bounce":
            return [f("bounce", player=who, attacker=i) for i, c in enumerate(s.combat) if c[1] == who and c[2] == "in"]
        if kind == "defend":
            out = []
            for i, (att, tgt, fate) in enumerate(s.combat):
                if tgt == who and fate == "in":
                    for card in self.playable(s, who, lambda c: self.units.get(c, {}).get("defend")):
                        out.append(f("block", player=who, card=card, attacker=i))
            return out + [f("defend_done", player=who)]
        if kind == "lose_population":
            return [f("lose_population", player=who, plot=i) for i, (_, p, _) in enumerate(s.plots[who]) if p]
        if kind == "take_population":
            return [f("take_population", player=who, plot=i) for i in range(len(s.plots[who]))]
        if kind == "lose_building":
            return [f("lose_building", player=who, plot=i, card=b) for i, (_, _, bs) in enumerate(s.plots[who])
                    for b in dict.fromkeys(bs) if b in self.buildings]
        return []

    def _purchase_actions(self, s, seat):
        """Generated legal (nothing listed is refused): what the player can pay for, where it fits."""
        mk = self._mk
        have, pw = s.res[seat], self.rules["pay_with"]
        plots = s.plots[seat]
        food = have[RES.index(pw["population"])]
        m = mk["buy_population"]
        out = [m({"player": seat, "plot": i}) for i in range(len(plots))
               if self.price(s, seat, "population", plot=i) <= food]
        if s.plot_row:
            m = mk["buy_plot"]
            pays = _greedy_payments(have, self.price(s, seat, "plot"))
            for card in dict.fromkeys(s.plot_row):
                out += [m({"player": seat, "card": card, "pay": pay}) for pay in pays]
        coin = have[RES.index(pw["technology"])]
        m = mk["buy_tech"]
        out += [m({"player": seat, "card": c}) for c in s.tech_row
                if c not in s.techs[seat] and self.price(s, seat, "technology", c) <= coin]
        room = [i for i in range(len(plots)) if len(plots[i][2]) < self.building_limit(s, seat, i)]
        names = self._hand_names(s, seat)
        if room:
            m = mk["build"]
            for card in self._builds:
                if card in names:
                    kind = self.kind_of(card)
                    if self.price(s, seat, kind, card) <= have[RES.index(pw[kind])]:  # the rest would be refused
                        out += [m({"player": seat, "card": card, "plot": i}) for i in room]
        m = mk["play_resource"]
        out += [m({"player": seat, "card": c}) for c in self.resource_cards if c in names]
        n = self.rules["bank_trade"]
        m = mk["trade"]
        out += [m({"player": seat, "give": g, "get": t}) for i, g in enumerate(RES) if have[i] >= n
                for t in RES if g != t]
        out.append(mk["done"]({"player": seat}))
        return out

    def legal_actions(self, s):
        if s.over:
            return []
        s.cache = {}
        try:
            if self.head(s) is None and s.step in ("collect", "purchase"):
                # generated legal: the bonuses pass bonus_allowed, the purchases what the player can
                # pay (tests/engine/test_legal_generation.py checks every listed action)
                return self.pseudo_legal_actions(s)
            return [a for a in self.pseudo_legal_actions(s) if self.is_legal(s, a)]
        finally:
            s.cache = None


@functools.lru_cache(maxsize=4096)
def _caps(by):
    """(population, {set of types as a bit mask: how many population can give one of them}) from
    ((types mask, population), ...): a pure function of the plots' shape, kept for a replay."""
    return sum(p for _, p in by), {m: sum(p for pm, p in by if pm & m) for m in range(1, 1 << len(RES))}


_PAY_ORDERS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
_FROZEN_ORDER = sorted(range(len(RES)), key=lambda i: RES[i])  # a res_map as the codec freezes it


@functools.lru_cache(maxsize=4096)
def _greedy_payments(have, cost):
    """A few payments of `cost` from the triple `have`: each order of preference taken greedily
    (the purchase panel takes any mix; these are the decision area's buttons). Each payment is a
    res_map as an action holds it: sorted (resource, n) pairs, none of 0."""
    if sum(have) < cost:
        return ()
    out = []
    for order in _PAY_ORDERS:
        left, pay = cost, [0, 0, 0]
        for i in order:
            pay[i] = min(have[i], left)
            left -= pay[i]
        m = tuple((RES[i], pay[i]) for i in _FROZEN_ORDER if pay[i])
        if m not in out:
            out.append(m)
    return tuple(out)


GAME = CivCardGame()
