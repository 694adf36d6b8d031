"""Civ Quest rules (../shared/rules/civ-quest.txt) as a pure engine: no Kivy, no serial.

A turn is the eight phases of one player; the next player starts when it ends. Every roll is a
chance action of its own type (the prompt names it), filled by the dice wells, manual entry or
seeded dice. A roll of the turn's player can be rerolled once per Law and once per Oracle: it is
then offered (keep or reroll) before it counts. Decisions that move tokens (placing, losing,
moving) are one action per area so a table can follow them step by step. Rule ids (CQ-...) are
the rows of docs/civ_quest-trace.md; decisions the text leaves open are in
docs/civ_quest-register.md.
"""
from __future__ import annotations

import itertools
import json
import os

from companion.engine.actions import ActionCodec, ActionSchema, seats_of
from companion.engine.errors import Rejected, SetupError
from companion.engine.flow import Flow
from companion.engine.game import Game

from .data_load import DATA, Board, load_map, load_rules

MAX_PLAYERS = 7
SEATS = seats_of(MAX_PLAYERS)
TURN_STEPS = ("leader", "city", "advance", "growth", "build", "disaster", "clash", "migration")
ONE_DIE = ("first_roll", "leader_roll", "leader_bonus_roll", "city_roll", "idea_roll", "growth_roll",
           "resource_roll", "disaster_roll", "disaster_type_roll", "casualty_roll", "trade_roll", "migration_roll")
TWO_DICE = ("research_roll", "war_roll")
ROLL_NAMES = {"first_roll": "First-player roll", "leader_roll": "Leader roll", "leader_bonus_roll": "Leader bonus roll",
              "city_roll": "City roll", "idea_roll": "Idea roll", "research_roll": "Research roll",
              "growth_roll": "Growth roll", "resource_roll": "Resource roll", "disaster_roll": "Disaster roll",
              "disaster_type_roll": "Disaster type roll", "casualty_roll": "Casualty roll", "trade_roll": "Trade roll",
              "war_roll": "War roll", "migration_roll": "Migration roll"}
REROLL_SOURCES = ("Law", "Oracle")
NEXT_STEP = dict(zip(TURN_STEPS, TURN_STEPS[1:] + (None,)))  # None: the turn's last phase


def _schemas():
    s = [ActionSchema(t, {"die": "die"}, chance=True) for t in ONE_DIE]
    s += [ActionSchema(t, {"first": "die", "second": "die"}, chance=True) for t in TWO_DICE]
    p = {"player": "seat"}
    s += [ActionSchema("place_start", {**p, "area": "str"}),
          ActionSchema("keep_roll", p),
          ActionSchema("reroll", {**p, "source": "str"}),
          ActionSchema("place", {**p, "area": "str", "count": "int"}),
          ActionSchema("place_city", {**p, "area": "str"}),
          ActionSchema("pick_city", {**p, "result": "str"}),
          ActionSchema("buy_advance", p),
          ActionSchema("pick_advance", {**p, "advance": "str"}),
          ActionSchema("build_city", {**p, "area": "str"}, {"take": "res_map"}),
          ActionSchema("build_wonder", {**p, "wonder": "str"}),
          ActionSchema("lose", {**p, "area": "str", "count": "int"}),
          ActionSchema("break_city", {**p, "area": "str"}),
          ActionSchema("trade", {**p, "opponent": "seat"}),
          ActionSchema("war", {**p, "opponent": "seat", "from_area": "str", "to_area": "str"}),
          ActionSchema("peace", {**p, "opponent": "seat"}),
          ActionSchema("steal_pt", {**p, "from_area": "str", "to_area": "str"}),
          ActionSchema("move_from", {**p, "from_area": "str"}),
          ActionSchema("move", {**p, "from_area": "str", "to_area": "str", "count": "int"}),
          ActionSchema("done", p),
          ActionSchema("correct", {**p, "what": "str", "value": "int"})]
    return s


_STAMPS = itertools.count(1)


class Units(dict):
    """The map: area -> (seat, PT, has a city). Keeps each seat's city count and areas as areas
    change, so the end conditions (CQ-E3: 7 cities) and a seat's areas, neighbours and tokens
    need no pass over the whole map, and a stamp that every change renews (unique across maps;
    a copy keeps it): the end conditions are looked at again only when the map changed."""
    __slots__ = ("cities", "stamp", "held")

    def __init__(self, *args):
        dict.__init__(self, *args)
        self.stamp = next(_STAMPS)
        self.cities = {}
        held = {}
        for a, (o, _, city) in self.items():
            if city:
                self.cities[o] = self.cities.get(o, 0) + 1
            held.setdefault(o, set()).add(a)
        # seat -> frozenset of its areas: replaced (never changed) when an area changes hands, so
        # a copy shares them
        self.held = {o: frozenset(x) for o, x in held.items()}

    def __setitem__(self, area, unit):
        self.stamp = next(_STAMPS)
        old = dict.get(self, area)
        if old is not None and old[2]:
            self.cities[old[0]] -= 1
        if old is None or old[0] != unit[0]:
            held = self.held
            if old is not None:
                held[old[0]] = held[old[0]] - {area}
            held[unit[0]] = held.get(unit[0], frozenset()) | {area}
        dict.__setitem__(self, area, unit)
        if unit[2]:
            self.cities[unit[0]] = self.cities.get(unit[0], 0) + 1

    def __delitem__(self, area):
        self.stamp = next(_STAMPS)
        old = self[area]
        dict.__delitem__(self, area)
        self.held[old[0]] = self.held[old[0]] - {area}
        if old[2]:
            self.cities[old[0]] -= 1

    def pop(self, area, *default):
        if area in self:
            u = self[area]
            del self[area]
            return u
        if default:
            return default[0]
        raise KeyError(area)

    def copy(self):
        c = Units.__new__(Units)
        dict.update(c, self)
        c.cities = dict(self.cities)
        c.held = dict(self.held)
        c.stamp = self.stamp
        return c

    def __reduce__(self):  # pickle and deepcopy rebuild the counts from the areas
        return (Units, (dict(self),))

    def _no(self, *a, **k):  # every change goes through __setitem__/__delitem__
        raise TypeError("Units: set or delete one area at a time")

    update = setdefault = popitem = clear = __ior__ = _no


class Sheet:
    """One player's pad: Idea, Resource and earned Victory Points, advances and wonders."""
    FIELDS = ("ip", "rp", "vp_iconic", "vp_city", "vp_fix", "advances", "wonders", "out")
    # summed: (advances, wonders, CivQuest._summary of them), reused while both tuples are the
    # same objects (every gain makes a new tuple), so a roll needs no hashing of the whole pad
    __slots__ = FIELDS + ("summed",)

    def __init__(self):
        self.ip = self.rp = self.vp_iconic = self.vp_city = self.vp_fix = 0
        self.advances = ()   # in the order learned
        self.wonders = ()
        self.out = False
        self.summed = None

    def copy(self):
        c = Sheet.__new__(Sheet)
        for k in Sheet.__slots__:
            setattr(c, k, getattr(self, k))
        return c

    def to_dict(self):
        return {k: (list(getattr(self, k)) if isinstance(getattr(self, k), tuple) else getattr(self, k))
                for k in Sheet.FIELDS}


class State:
    """Cheap to copy: containers hold immutable values, so copying is a few dict copies."""
    __slots__ = ("board", "seats", "players", "units", "wonders_built", "order", "turn", "round", "step",
                 "roll", "roller", "ctx", "rolls", "rolloff", "placing", "over", "end_reasons", "winner",
                 "max_rounds", "chance_count", "cache", "end_seen")

    def copy(self):
        s = State.__new__(State)
        for k in State.__slots__:
            setattr(s, k, getattr(self, k))
        s.cache = None  # only a settled state that is listed for legal actions caches (see legal_actions)
        s.players = {k: p.copy() for k, p in self.players.items()}
        s.units = self.units.copy()
        s.wonders_built = dict(self.wonders_built)
        s.ctx = dict(self.ctx)
        return s

    @property
    def current(self):
        return self.order[self.turn] if self.order else None

    def to_dict(self):
        return {"seats": list(self.seats), "players": {k: p.to_dict() for k, p in self.players.items()},
                "units": {a: list(u) for a, u in sorted(self.units.items())},
                "wonders_built": dict(self.wonders_built), "order": list(self.order), "turn": self.turn,
                "round": self.round, "step": self.step, "roll": self.roll, "roller": self.roller,
                "ctx": {k: (list(v) if isinstance(v, tuple) else v) for k, v in sorted(self.ctx.items())},
                "rolls": [list(r) for r in self.rolls], "over": self.over, "end_reasons": list(self.end_reasons),
                "winner": self.winner}


def _reject(rule, msg):
    raise Rejected(rule, msg)


class CivQuest(Game):
    name = "civ_quest"
    correction_types = frozenset({"correct"})

    def __init__(self, rules=None, map_raw=None):
        self.rules = rules or load_rules()
        self.map_raw = map_raw or load_map()
        with open(os.path.join(DATA, "flow.json"), encoding="utf-8") as f:
            self.flow = Flow(json.load(f))
        self.codec = ActionCodec(_schemas(), seats=SEATS)
        self._boards = {}
        self._summaries = {}
        self._resolvers = {k: getattr(self, "_res_" + k) for k in ONE_DIE[1:] + TWO_DICE}
        self._doers = {t: getattr(self, "do_" + t) for t in self.codec.schemas}
        r = self.rules
        self.advances = r["advances"]
        self.wonders = r["wonders"]
        self.leaders = r["leaders"]

    # ------------------------------------------------------------------ setup
    def default_setup(self, players=2, **over):
        if not isinstance(players, int) or not 2 <= players <= MAX_PLAYERS:
            raise SetupError(f"Civ Quest is for 2-{MAX_PLAYERS} players, not {players}")
        setup = {"players": {s: {"name": f"Player {i + 1}", "colour": c}
                             for i, (s, c) in enumerate(zip(SEATS[:players], ("blue", "green", "red", "yellow",
                                                                               "purple", "black", "orange")))},
                 "max_rounds": None}
        setup.update(over)
        return setup

    def board_for(self, n):
        b = self._boards.get(n)
        if b is None:
            b = self._boards[n] = Board(self.map_raw, n)
        return b

    def initial_state(self, setup):
        players = setup.get("players") if isinstance(setup, dict) else None
        if not isinstance(players, dict) or not 2 <= len(players) <= MAX_PLAYERS:
            raise SetupError(f"Civ Quest is for 2-{MAX_PLAYERS} players")
        seats = SEATS[:len(players)]
        if sorted(players) != sorted(seats):
            raise SetupError(f"seats must be {', '.join(seats)}")
        mr = setup.get("max_rounds")
        if mr is not None and (not isinstance(mr, int) or isinstance(mr, bool) or mr < 1):
            raise SetupError("max_rounds must be a positive whole number or None")
        s = State()
        s.board = self.board_for(len(seats))
        s.seats = seats
        s.players = {p: Sheet() for p in seats}
        s.units = Units()
        s.wonders_built = {}
        s.order = ()
        s.turn = 0
        s.round = 0
        s.step = "start"
        s.roll = None
        s.roller = None
        s.ctx = {}
        s.rolls = ()
        s.rolloff = ()
        s.placing = 0
        s.over = False
        s.end_reasons = ()
        s.winner = None
        s.max_rounds = mr
        s.chance_count = 0
        s.cache = None
        s.end_seen = None  # (map stamp, wonders built) when the end conditions were last looked at
        return s

    def _effect(self, state, action):
        """Game._effect (the do_ handler, then settle) with the handlers looked up once: a resume
        runs it for every action of the journal."""
        self._doers[action.type](state, action)
        self.settle(state)

    # ------------------------------------------------------------------ queries
    def actor(self, s):
        if s.over:
            return None
        if s.roll:
            return "system"
        if s.step == "start":
            return s.seats[s.placing]
        return s.current

    def is_over(self, s):
        return s.over

    def roll_owner(self, s):
        return s.roller if s.roll else None

    def owner(self, s, area):
        u = s.units.get(area)
        return u[0] if u else None

    def areas_of(self, s, seat):
        """A seat's areas in map order."""
        index = s.board.index
        return sorted(s.units.held.get(seat, ()), key=index.__getitem__)

    def cities_of(self, s, seat):
        return s.units.cities.get(seat, 0)

    def pt_of(self, s, seat):
        units = s.units
        return sum(units[a][1] for a in units.held.get(seat, ()))

    def alive(self, s):
        return [p for p in s.seats if not s.players[p].out]

    def knows(self, s, seat, name):
        return name in s.players[seat].advances

    def has(self, s, seat, name):
        """Knows the advance or owns the wonder."""
        sh = s.players[seat]
        return name in sh.advances or name in sh.wonders

    def _owned_effects(self, s, seat):
        sh = s.players[seat]
        for a in sh.advances:
            yield a, self.advances[a]
        for w in sh.wonders:
            yield w, self.wonders[w]

    def _summary(self, s, seat):
        """What a seat's advances and wonders add up to (roll bonuses, war, city rolls, extra trades,
        mitigations, rerolls, the advances it may learn next), kept per (advances, wonders): they
        change only when one is gained."""
        sh = s.players[seat]
        m = sh.summed
        if m is not None and m[0] is sh.advances and m[1] is sh.wonders:
            return m[2]
        key = (sh.advances, sh.wonders)
        got = self._summaries.get(key)
        if got is None:
            rolls, total, mit = {}, {"war": 0, "city_rolls": 0, "extra_trade": 0}, {}
            for n, d in self._owned_effects(s, seat):
                for k, v in (d.get("rolls") or {}).items():
                    rolls[k] = rolls.get(k, 0) + v
                for k in total:
                    total[k] += d.get(k, 0)
                if d.get("mitigates"):
                    mit.setdefault(d["mitigates"], []).append(n)
            rer = tuple(src for src in REROLL_SOURCES if (src in sh.advances or src in sh.wonders)
                        and (self.advances.get(src) or self.wonders.get(src) or {}).get("reroll"))
            known = sh.advances
            learnable = tuple(a for a, d in self.advances.items() if a not in known
                              and (d.get("requires") is None or d["requires"] in known))
            got = (rolls, total, mit, rer, learnable)
            if len(self._summaries) > 4096:  # bounded: a new game's tuples replace old ones
                self._summaries.clear()
            self._summaries[key] = got
        sh.summed = (sh.advances, sh.wonders, got)
        return got

    def roll_bonus(self, s, seat, kind):
        return self._summary(s, seat)[0].get(kind, 0)

    def war_bonus(self, s, seat):
        b = self._summary(s, seat)[1]["war"]
        if seat == s.current and s.ctx.get("leader"):
            b += self.leaders[s.ctx["leader"]].get("war", 0)
        return b

    def mitigated(self, s, seat, disaster):
        return list(self._summary(s, seat)[2].get(disaster, ()))

    def advance_cost(self, s):
        c = self.rules["advance_costs"]
        return c["first"] + c["step"] * s.ctx.get("bought", 0)

    def wonder_cost(self, wonder):
        return self.wonders[wonder].get("cost", self.rules["wonder_cost"])

    def rerolls_left(self, s, seat):
        used = s.ctx.get("rerolls", ())
        return [src for src in self._summary(s, seat)[3] if src not in used]

    def adjacent_civs(self, s, seat):
        """Other civilisations sharing a land border with `seat` (CQ-R7), in seat order."""
        land_adj = s.board.land_adj
        units = s.units
        found = set()
        for a in units.held.get(seat, ()):
            for b in land_adj.get(a, ()):
                ub = units.get(b)
                if ub is not None and ub[0] != seat:
                    found.add(ub[0])
        return [p for p in s.seats if p in found and not s.players[p].out]

    def war_fronts(self, s, seat, opponent):
        """(attacker's area, defender's area) pairs sharing a land border."""
        out = []
        for a in self.areas_of(s, seat):
            for b in s.board.land_adj.get(a, ()):
                if self.owner(s, b) == opponent:
                    out.append((a, b))
        return out

    def room(self, s, area):
        u = s.units.get(area)
        return self.rules["area_pt_cap"] - (u[1] if u else 0)

    def destinations(self, s, seat, frm):
        """Areas one PT in `frm` may reach for 1 Move Point (CQ-M2..M5): a bordering land area,
        across the sea (1 sea area; 2 with Sailing; deep sea only with Navigation), or with Roads
        anywhere along your own areas and one step beyond."""
        key = (seat, frm)
        cache = s.cache
        if cache is not None and key in cache:
            return cache[key]
        b, units = s.board, s.units
        out = set()
        for a in b.land_adj[frm]:
            u = units.get(a)
            if u is None or u[0] == seat:
                out.add(a)
        if frm in b.coastal:
            for y in self._sea_lands(b, frm, 2 if self.has(s, seat, "Sailing") else 1,
                                     self.has(s, seat, "Navigation")):
                u = units.get(y)
                if u is None or u[0] == seat:
                    out.add(y)
        if self.has(s, seat, "Roads"):
            out |= self._road_reach(s, seat, frm)
        out.discard(frm)
        found = sorted(out, key=b.index.__getitem__)
        if cache is not None:
            cache[key] = found
        return found

    def _reaches(self, s, seat, frm, to):
        """Whether `to` is one of destinations(s, seat, frm), without listing them all."""
        b = s.board
        u = s.units.get(to)
        if to == frm or to not in b.land_adj or (u is not None and u[0] != seat):
            return False
        if to in b.land_adj[frm]:
            return True
        if frm in b.coastal and to in self._sea_lands(b, frm, 2 if self.has(s, seat, "Sailing") else 1,
                                                      self.has(s, seat, "Navigation")):
            return True
        return self.has(s, seat, "Roads") and to in self._road_reach(s, seat, frm)

    def _sea_lands(self, b, frm, reach, deep):
        """Land areas across the sea from coastal `frm` (1 or 2 sea areas, deep sea with
        Navigation): a fact of the map, kept per (area, reach, deep) on the board."""
        memo = b._sea_memo
        key = (frm, reach, deep)
        got = memo.get(key)
        if got is None:
            water = lambda x: b.kind[x] == "sea" or (deep and b.kind[x] == "deep")  # noqa: E731
            frontier = {x for x in b.adj[frm] if water(x)}
            seen = set(frontier)
            for _ in range(reach - 1):
                nxt = {y for x in frontier for y in b.adj[x] if y not in seen and water(y)}
                seen |= nxt
                frontier = nxt
            got = memo[key] = tuple({y for x in seen for y in b.adj[x] if b.kind[y] == "land"})
        return got

    def _road_reach(self, s, seat, frm):
        """With Roads: every area of the seat's own connected empire around `frm`, and one step
        beyond into empty or own land (the whole empire shares it; kept per listing)."""
        cache = s.cache
        memo = cache.setdefault(("roads", seat), {}) if cache is not None else {}
        got = memo.get(frm)
        if got is None:
            b, units = s.board, s.units
            own, todo = {frm}, [frm]
            while todo:
                a = todo.pop()
                for y in b.land_adj[a]:
                    if y not in own:
                        u = units.get(y)
                        if u is not None and u[0] == seat:
                            own.add(y)
                            todo.append(y)
            got = set(own)
            for a in own:
                for y in b.land_adj[a]:
                    u = units.get(y)
                    if u is None or u[0] == seat:
                        got.add(y)
            for a in own:
                memo[a] = got
        return got

    def pending(self, s):
        """The decision the turn's player owes now, or None: what settle() waits for."""
        get = s.ctx.get
        if get("offer"):
            return "offer"
        if get("pick"):
            return "pick"
        if get("losses", 0) > 0:
            return "losses"
        if get("place", 0) > 0:
            return "place"
        if get("free_cities", 0) > 0:
            return "free_city"
        if get("steal"):
            return "steal"
        if s.step == "clash" and get("queue"):
            return "clash"
        if get("moving"):
            return "moving"
        return None

    # ------------------------------------------------------------------ chance
    def chance_action(self, s, dice):
        if s.over or not s.roll:
            return None
        if s.roll in TWO_DICE:
            a, b = dice.roll(2)
            return self.codec.fast(s.roll, first=a, second=b)
        return self.codec.fast(s.roll, die=dice.roll(1)[0])

    def _dice_of(self, a):
        d = a.get("die")
        return (d,) if d is not None else (a["first"], a["second"])

    def _check_roll(self, s, a):
        if s.roll != a.type:
            _reject("CQ-DICE", f"the {ROLL_NAMES.get(s.roll, 'next')} is awaited, not a {ROLL_NAMES[a.type]}"
                    if s.roll else "no roll is awaited now")
        for v in self._dice_of(a):
            if not 1 <= v <= 6:
                _reject("CQ-DICE", f"a die shows 1 to 6, not {v}")

    def _do_roll(self, s, a):
        d = a.get("die")
        dice = (d,) if d is not None else (a["first"], a["second"])
        kind, who = a.type, s.roller
        s.chance_count += 1
        s.roll = s.roller = None
        s.rolls = s.rolls + ((kind, who, dice, ""),)  # _record's entry
        if (self._summary(s, who)[3] and s.order and who == s.order[s.turn] and s.step in TURN_STEPS
                and self.rerolls_left(s, who)):  # most civilisations have no reroll at all
            s.ctx["offer"] = (kind, who, dice)
            return
        self._resolvers[kind](s, who, dice)

    def _record(self, s, kind, who, dice, note=""):
        s.rolls = s.rolls + ((kind, who, tuple(dice), note),)

    def _await(self, s, kind, who=None):
        s.roll = kind
        s.roller = who or s.current

    # ------------------------------------------------------------------ checks and effects
    def _turn_player(self, s, a):
        if a["player"] != self.actor(s):
            _reject("flow.actor", "it is not that player's decision")

    def _need_pending(self, s, what, msg):
        if self.pending(s) != what:
            _reject("CQ-FLOW", msg)

    # setup ---------------------------------------------------------------------
    def check_place_start(self, s, a):
        area = a["area"]
        if area not in s.board.land:
            _reject("CQ-S1", f"{area!r} is not a land area of this map")
        if area in s.units:
            _reject("CQ-S1", f"{s.board.name(area)} is not empty: each civilisation starts on an empty area")

    def do_place_start(self, s, a):
        s.units[a["area"]] = (a["player"], self.rules["start_pt"], False)
        s.placing += 1
        if s.placing >= len(s.seats):
            s.step = "first_player"
            s.rolloff = tuple(s.seats)
            s.ctx = {"rolloff": ()}
            self._await(s, "first_roll", s.rolloff[0])

    def check_first_roll(self, s, a):
        self._check_roll(s, a)

    def do_first_roll(self, s, a):
        who = s.roller
        s.chance_count += 1
        self._record(s, "first_roll", who, (a["die"],))
        got = s.ctx["rolloff"] + ((who, a["die"]),)
        if len(got) < len(s.rolloff):
            s.ctx["rolloff"] = got
            self._await(s, "first_roll", s.rolloff[len(got)])
            return
        top = max(v for _, v in got)
        best = tuple(p for p, v in got if v == top)
        if len(best) > 1:  # CQ-S2: the tied players roll again
            s.rolloff = best
            s.ctx["rolloff"] = ()
            self._await(s, "first_roll", best[0])
            return
        i = s.seats.index(best[0])
        s.order = s.seats[i:] + s.seats[:i]
        s.turn = 0
        s.round = 1
        s.rolls = ()
        self._start_turn(s)

    def check_keep_roll(self, s, a):
        self._turn_player(s, a)
        self._need_pending(s, "offer", "no roll is waiting to be kept or rerolled")

    def do_keep_roll(self, s, a):
        kind, who, dice = s.ctx.pop("offer")
        self._resolve(s, kind, who, dice)

    def check_reroll(self, s, a):
        self._turn_player(s, a)
        self._need_pending(s, "offer", "no roll is waiting to be kept or rerolled")
        if a["source"] not in self.rerolls_left(s, a["player"]):
            _reject("CQ-REROLL", f"no unused reroll from {a['source']} this turn "
                    "(Law and the Oracle each reroll one of your own rolls per turn)")

    def do_reroll(self, s, a):
        kind, who, dice = s.ctx.pop("offer")
        s.ctx["rerolls"] = s.ctx.get("rerolls", ()) + (a["source"],)
        self._record(s, kind, who, dice, f"rerolled with {a['source']}")
        self._await(s, kind, who)

    # the effects of each roll (CQ-L*, CQ-C*, CQ-A*, CQ-G*, CQ-B*, CQ-D*, CQ-T*, CQ-W*, CQ-M*)
    def _resolve(self, s, kind, who, dice):
        self._resolvers[kind](s, who, dice)

    def _gain(self, s, seat, what, n):
        sh = s.players[seat]
        if what == "ip":
            sh.ip = min(self.rules["ip_cap"], sh.ip + n)
        elif what == "rp":
            sh.rp = min(self.rules["rp_cap"], sh.rp + n)
        elif what == "vp_city":
            sh.vp_city += n
        elif what == "vp_iconic":
            sh.vp_iconic += n
        elif what == "pt":
            s.ctx["place"] = s.ctx.get("place", 0) + n
            self._auto_place(s)
        elif what == "mp":
            s.ctx["mp"] = s.ctx.get("mp", 0) + n

    def _res_leader_roll(self, s, who, dice):
        total = dice[0] + self.roll_bonus(s, who, "leader_roll")
        leader = self.rules["leader_table"][str(max(1, min(7, total)))]
        s.ctx["leader"] = leader
        if self.leaders[leader].get("bonus"):
            self._await(s, "leader_bonus_roll")

    def _res_leader_bonus_roll(self, s, who, dice):
        bonus = self.leaders[s.ctx["leader"]]["bonus"]
        if bonus == "wars":
            s.ctx["extra_wars"] = dice[0]
        else:
            self._gain(s, who, {"vp": "vp_iconic"}.get(bonus, bonus), dice[0])

    def _res_city_roll(self, s, who, dice):
        s.ctx["city_rolls"] -= 1
        result = self.rules["city_table"][str(max(1, min(6, dice[0])))]
        if result == "pick":
            s.ctx["pick"] = ("city",) + tuple(self.rules["city_pick"])
        else:
            self._gain(s, who, "vp_city" if result == "vp" else result, 1)

    def _res_idea_roll(self, s, who, dice):
        self._gain(s, who, "ip", max(0, dice[0] + self.roll_bonus(s, who, "idea_roll")))
        s.ctx["open"] = True

    def _res_research_roll(self, s, who, dice):
        adv = self.rules["research_table"][f"{dice[0]}-{dice[1]}"]
        if self.knows(s, who, adv):  # CQ-A4: pick one you do not know
            opts = self.learnable(s, who)
            if opts:
                s.ctx["pick"] = ("advance",) + tuple(opts)
            return
        self._learn(s, who, self.requirement_first(s, who, adv))

    def requirement_first(self, s, seat, adv):
        """CQ-A5: an advance whose requirement is unknown gives the requirement instead (down the
        chain until a requirement is known)."""
        while True:
            req = self.advances[adv].get("requires")
            if req is None or self.knows(s, seat, req):
                return adv
            adv = req

    def learnable(self, s, seat):
        """Unknown advances whose requirement is known (what a free pick may choose)."""
        return list(self._summary(s, seat)[4])

    def _learn(self, s, seat, adv):
        sh = s.players[seat]
        sh.advances = sh.advances + (adv,)
        if self.advances[adv].get("gain_city"):
            s.ctx["free_cities"] = s.ctx.get("free_cities", 0) + self.advances[adv]["gain_city"]
            if not self._free_city_areas(s, seat):
                s.ctx["free_cities"] = 0  # CQ-A7: no area can take it

    def _res_growth_roll(self, s, who, dice):
        self._gain(s, who, "pt", max(0, dice[0] + self.roll_bonus(s, who, "growth_roll")))

    def _res_resource_roll(self, s, who, dice):
        self._gain(s, who, "rp", max(0, dice[0] + self.roll_bonus(s, who, "resource_roll")))
        s.ctx["open"] = True

    def _res_disaster_roll(self, s, who, dice):
        if dice[0] >= self.rules["disaster_on"]:
            self._await(s, "disaster_type_roll")

    def _res_disaster_type_roll(self, s, who, dice):
        s.ctx["disaster"] = self.rules["disaster_table"][str(dice[0])]
        self._await(s, "casualty_roll")

    def _res_casualty_roll(self, s, who, dice):
        cut = self.rules["mitigation"] if self.mitigated(s, who, s.ctx["disaster"]) else 0
        loss = max(0, dice[0] - cut)
        s.ctx["lost"] = loss
        s.ctx["losses"] = loss
        self._auto_losses(s)

    def _res_trade_roll(self, s, who, dice):
        opp = s.ctx["partner"]
        total = max(1, min(6, dice[0] + self.roll_bonus(s, who, "trade_roll")))
        result = self.rules["trade_table"][str(total)]
        me, them = s.players[who], s.players[opp]
        s.ctx["trade_result"] = result
        if result in ("rp", "ip"):
            if getattr(them, result) > 0:
                setattr(them, result, getattr(them, result) - 1)
                self._gain(s, who, result, 1)
        elif result == "advance":
            opts = [x for x in them.advances if x not in me.advances]
            if len(opts) == 1:
                self._learn(s, who, self.requirement_first(s, who, opts[0]))
            elif opts:
                s.ctx["pick"] = ("trade",) + tuple(x for x in self.advances if x in opts)
        elif result == "pt":
            if self._steal_options(s, who, opp)[0]:
                s.ctx["steal"] = opp
                self._auto_steal(s)

    def _res_war_roll(self, s, who, dice):
        w = dict(s.ctx["war"])
        total = dice[0] + dice[1] + self.war_bonus(s, who)
        if who == s.current:
            w["att"] = total
            s.ctx["war"] = tuple(sorted(w.items()))
            self._await(s, "war_roll", w["defender"])
            return
        w["def"] = total
        att_wins = w["att"] > w["def"]  # CQ-W4: the defender wins ties
        loser_area = w["to"] if att_wins else w["from"]
        winner = s.current if att_wins else w["defender"]
        s.units[loser_area] = (winner, 1, False)  # CQ-W5, CQ-W6
        s.ctx["war"] = None
        s.ctx["last_war"] = (s.current, w["defender"], w["from"], w["to"], w["att"], w["def"], winner)
        self._eliminations(s)

    def _res_migration_roll(self, s, who, dice):
        s.ctx["mp"] = s.ctx.get("mp", 0) + max(0, dice[0] + self.roll_bonus(s, who, "migration_roll"))
        s.ctx["open"] = True

    # placing population ---------------------------------------------------------
    def check_place(self, s, a):
        self._turn_player(s, a)
        self._need_pending(s, "place", "there are no Population Tokens to place now")
        area, n = a["area"], a["count"]
        if self.owner(s, area) != a["player"]:
            _reject("CQ-G2", f"{s.board.name(area)} is not an area you control")
        if n < 1 or n > s.ctx["place"]:
            _reject("CQ-G2", f"place 1 to {s.ctx['place']} PT")
        if n > self.room(s, area):
            _reject("CQ-G3", f"{s.board.name(area)} holds at most {self.rules['area_pt_cap']} PT "
                    f"(room for {self.room(s, area)})")

    def do_place(self, s, a):
        o, pt, city = s.units[a["area"]]
        s.units[a["area"]] = (o, pt + a["count"], city)
        s.ctx["place"] -= a["count"]
        self._auto_place(s)

    def _auto_place(self, s):
        """CQ-G3: tokens no area has room for are lost; one area with room takes them all."""
        n = s.ctx.get("place", 0)
        if n <= 0:
            return
        seat, cap = s.current, self.rules["area_pt_cap"]
        total = areas = 0
        units = s.units
        for x in units.held.get(seat, ()):  # one pass: the total room and the one area with room
            u = units[x]
            if u[1] < cap:
                total += cap - u[1]
                areas += 1
                a = x
        if total == 0:
            s.ctx["place_lost"] = s.ctx.get("place_lost", 0) + n
            s.ctx["place"] = 0
        elif areas == 1:
            r = total
            o, pt, city = s.units[a]
            s.units[a] = (o, pt + min(n, r), city)
            if n > r:
                s.ctx["place_lost"] = s.ctx.get("place_lost", 0) + n - r
            s.ctx["place"] = 0

    # free cities (Aqueduct) ------------------------------------------------------
    def _free_city_areas(self, s, seat):
        return [a for a in self.areas_of(s, seat) if not s.units[a][2]]

    def check_place_city(self, s, a):
        self._turn_player(s, a)
        self._need_pending(s, "free_city", "there is no free city to place now")
        if a["area"] not in self._free_city_areas(s, a["player"]):
            _reject("CQ-B3", f"{s.board.name(a['area'])}: a free city goes in an area you control that has no city")

    def do_place_city(self, s, a):
        o, pt, _ = s.units[a["area"]]
        s.units[a["area"]] = (o, pt, True)
        s.ctx["free_cities"] -= 1
        if not self._free_city_areas(s, a["player"]):
            s.ctx["free_cities"] = 0

    # picks -------------------------------------------------------------------------
    def check_pick_city(self, s, a):
        self._turn_player(s, a)
        pick = s.ctx.get("pick") or ()
        if self.pending(s) != "pick" or pick[0] != "city":
            _reject("CQ-C3", "no City roll result of 5 is waiting for a choice")
        if a["result"] not in pick[1:]:
            _reject("CQ-C3", f"a 5 on the City table picks one of: {', '.join(pick[1:])}")

    def do_pick_city(self, s, a):
        s.ctx["pick"] = None
        self._gain(s, a["player"], a["result"], 1)
        self._auto_place(s)

    def check_pick_advance(self, s, a):
        self._turn_player(s, a)
        pick = s.ctx.get("pick") or ()
        if self.pending(s) != "pick" or pick[0] not in ("advance", "trade"):
            _reject("CQ-A4", "no advance is waiting to be chosen")
        if a["advance"] not in pick[1:]:
            _reject("CQ-A4" if pick[0] == "advance" else "CQ-T3",
                    f"{a['advance']!r} is not one of the advances you may take now")

    def do_pick_advance(self, s, a):
        kind = s.ctx["pick"][0]
        s.ctx["pick"] = None
        adv = a["advance"] if kind == "advance" else self.requirement_first(s, a["player"], a["advance"])
        self._learn(s, a["player"], adv)

    # advance phase ------------------------------------------------------------------
    def check_buy_advance(self, s, a):
        self._turn_player(s, a)
        if s.step != "advance" or not s.ctx.get("open") or self.pending(s):
            _reject("CQ-FLOW", "advances are bought in the Advance phase, after the Idea roll")
        cost = self.advance_cost(s)
        if s.players[a["player"]].ip < cost:
            _reject("CQ-A3", f"this advance costs {cost} IP (5, then 7, 9 ... in one turn); you have "
                    f"{s.players[a['player']].ip}")
        if not self.learnable(s, a["player"]):
            _reject("CQ-A2", "you know every advance")

    def do_buy_advance(self, s, a):
        s.players[a["player"]].ip -= self.advance_cost(s)
        s.ctx["bought"] = s.ctx.get("bought", 0) + 1
        self._await(s, "research_roll")

    def check_done(self, s, a):
        self._turn_player(s, a)
        pend = self.pending(s)
        if pend == "losses" and not s.roll:
            if self.pt_of(s, a["player"]) > 0:  # CQ-R11: only breaking a city is optional
                _reject("CQ-D4", f"lose {s.ctx['losses']} more PT first; only breaking a city is optional")
            return
        if pend == "clash" and s.ctx.get("war_phase") and not s.roll:
            return  # CQ-R4: the Conqueror may stop his extra (War only) Clash Phases
        if pend == "moving":
            _reject("CQ-R22", f"move the tokens you took from {s.board.name(s.ctx['moving'])} first, or Undo to "
                    "put them back")
        if not s.ctx.get("open") or pend or s.roll:
            _reject("CQ-FLOW", "there is nothing optional to finish now")

    def do_done(self, s, a):
        c = s.ctx
        if self.pending(s) == "losses":  # keep the cities: the losses left are not taken
            c["losses_kept"] = c["losses"]
            c["losses"] = 0
            self._after_losses(s)
            return
        if self.pending(s) == "clash":  # the remaining extra Clash Phases are given up
            c["queue"] = ()
            c["extra_wars"] = 0
            return
        c["open"] = False
        c["closing"] = True

    # build phase -----------------------------------------------------------------------
    def _build_open(self, s, a):
        self._turn_player(s, a)
        if s.step != "build" or not s.ctx.get("open") or self.pending(s):
            _reject("CQ-FLOW", "cities and wonders are built in the Build phase, after the Resource roll")

    def check_build_city(self, s, a):
        self._build_open(s, a)
        seat, area = a["player"], a["area"]
        cost = self.rules["city_cost"]
        if self.owner(s, area) != seat:
            _reject("CQ-B2", f"{s.board.name(area)} is not an area you control")
        if s.units[area][2]:
            _reject("CQ-B2", f"{s.board.name(area)} already has a city (one per area)")
        if s.players[seat].rp < cost["rp"]:
            _reject("CQ-B2", f"a city costs {cost['rp']} RP; you have {s.players[seat].rp}")
        take = dict(a.get("take") or ()) or {area: cost["pt"]}
        for t, n in take.items():
            if self.owner(s, t) != seat or n < 1 or n > s.units[t][1]:
                _reject("CQ-B2", f"cannot take {n} PT from {s.board.name(t)}")
        if sum(take.values()) != cost["pt"]:
            _reject("CQ-B2", f"a city discards exactly {cost['pt']} PT (from {s.board.name(area)} unless you say "
                    "where from)")

    def do_build_city(self, s, a):
        seat, area = a["player"], a["area"]
        cost = self.rules["city_cost"]
        s.players[seat].rp -= cost["rp"]
        for t, n in (dict(a.get("take") or ()) or {area: cost["pt"]}).items():
            o, pt, city = s.units[t]
            s.units[t] = (o, pt - n, city)
        o, pt, _ = s.units[area]
        s.units[area] = (o, pt, True)
        for t in list(s.units):
            if s.units[t][1] == 0 and not s.units[t][2]:
                del s.units[t]

    def check_build_wonder(self, s, a):
        self._build_open(s, a)
        seat, w = a["player"], a["wonder"]
        if w not in self.wonders:
            _reject("CQ-B4", f"there is no wonder called {w!r}")
        if w in s.wonders_built:
            _reject("CQ-B5", f"{w} is already built (wonders are unique)")
        if not self.knows(s, seat, "Architecture"):
            _reject("CQ-B4", "wonders need Architecture")
        if len(s.players[seat].wonders) >= self.cities_of(s, seat):
            _reject("CQ-B6", f"you cannot build more wonders than you have cities ({self.cities_of(s, seat)})")
        if s.players[seat].rp < self.wonder_cost(w):
            _reject("CQ-B4", f"{w} costs {self.wonder_cost(w)} RP; you have {s.players[seat].rp}")

    def do_build_wonder(self, s, a):
        seat, w = a["player"], a["wonder"]
        s.players[seat].rp -= self.wonder_cost(w)
        s.players[seat].wonders = s.players[seat].wonders + (w,)
        s.wonders_built[w] = seat
        if self.wonders[w].get("gain_advance") and self.learnable(s, seat):
            self._await(s, "research_roll")  # Stonehenge: a free random advance (CQ-X4)

    # disasters ----------------------------------------------------------------------------
    def _auto_losses(self, s):
        """CQ-D4: losses that take everything, or that have one way only, need no decision."""
        seat = s.current
        n = s.ctx.get("losses", 0)
        if n <= 0:
            s.ctx["losses"] = 0
            return
        mine = self.areas_of(s, seat)
        with_pt = [a for a in mine if s.units[a][1] > 0]
        cities = any(s.units[a][2] for a in mine)
        if cities:  # CQ-R11: breaking a city is the player's choice, never made for them
            return
        if n >= sum(s.units[a][1] for a in mine):
            for a in mine:
                del s.units[a]
            s.ctx["losses"] = 0
            self._eliminations(s)
        elif len(with_pt) == 1 and s.units[with_pt[0]][1] >= n:
            self._remove_pt(s, with_pt[0], n)
            s.ctx["losses"] = 0

    def _remove_pt(self, s, area, n):
        o, pt, city = s.units[area]
        if pt - n == 0 and not city:
            del s.units[area]
        else:
            s.units[area] = (o, pt - n, city)

    def check_lose(self, s, a):
        self._turn_player(s, a)
        self._need_pending(s, "losses", "there are no losses to take now")
        area, n = a["area"], a["count"]
        if self.owner(s, area) != a["player"]:
            _reject("CQ-D4", f"{s.board.name(area)} is not yours")
        if n < 1 or n > min(s.ctx["losses"], s.units[area][1]):
            _reject("CQ-D4", f"lose 1 to {min(s.ctx['losses'], s.units[area][1])} PT there")

    def do_lose(self, s, a):
        self._remove_pt(s, a["area"], a["count"])
        s.ctx["losses"] -= a["count"]
        self._after_losses(s)

    def check_break_city(self, s, a):
        self._turn_player(s, a)
        self._need_pending(s, "losses", "there are no losses to take now")
        area = a["area"]
        if self.owner(s, area) != a["player"] or not s.units[area][2]:
            _reject("CQ-D5", f"{s.board.name(area)} has no city of yours")

    def do_break_city(self, s, a):
        o, pt, _ = s.units[a["area"]]
        s.units[a["area"]] = (o, pt + self.rules["city_break_pt"], False)
        self._after_losses(s)

    def _after_losses(self, s):
        self._auto_losses(s)
        if s.ctx["losses"] == 0:  # CQ-D5: a broken city's tokens above the area's limit are lost
            cap, units = self.rules["area_pt_cap"], s.units
            for a in units.held.get(s.current, ()):  # only the losing player's areas grew
                o, pt, city = units[a]
                if pt > cap:
                    units[a] = (o, cap, city)
        self._eliminations(s)

    # clashes --------------------------------------------------------------------------------
    def _clash_target(self, s, a, kind):
        self._turn_player(s, a)
        seat, opp = a["player"], a["opponent"]
        if s.step != "clash" or s.roll or self.pending(s) not in ("clash", None):
            _reject("CQ-FLOW", "clashes are chosen in the Clash phase")
        if opp not in self.adjacent_civs(s, seat):
            _reject("CQ-T1", f"{opp} is not a civilisation next to yours")
        queue = s.ctx.get("queue", ())
        if queue:
            if opp != queue[0]:
                _reject("CQ-T1", f"decide the clash with {queue[0]} first (one per neighbour, in seat order)")
            if kind == "trade" and s.ctx.get("war_phase"):
                _reject("CQ-L6", "the Conqueror's extra Clash Phases are War only: war or neither")
            return "normal"
        if kind == "trade" and s.ctx.get("extra_trades", 0) > 0:
            return "extra_trade"
        _reject("CQ-T1", "no clash is left this turn" + (" (a Conqueror's extra Clash Phase offers each "
                                                          "neighbour in turn)" if kind == "war" else ""))

    def check_peace(self, s, a):
        self._turn_player(s, a)
        if self.pending(s) != "clash" or a["opponent"] != s.ctx["queue"][0]:
            _reject("CQ-T1", "no clash with that civilisation is waiting for a choice")

    def do_peace(self, s, a):
        s.ctx["queue"] = s.ctx["queue"][1:]

    def check_trade(self, s, a):
        self._clash_target(s, a, "trade")

    def do_trade(self, s, a):
        how = self._clash_target(s, a, "trade")
        self._use_clash(s, how)
        s.ctx["partner"] = a["opponent"]
        self._await(s, "trade_roll")

    def check_war(self, s, a):
        self._clash_target(s, a, "war")
        if (a["from_area"], a["to_area"]) not in self.war_fronts(s, a["player"], a["opponent"]):
            _reject("CQ-W2", "the attacker picks two bordering areas: one of yours and one of theirs")

    def do_war(self, s, a):
        how = self._clash_target(s, a, "war")
        self._use_clash(s, how)
        s.ctx["war"] = tuple(sorted({"defender": a["opponent"], "from": a["from_area"], "to": a["to_area"]}.items()))
        self._await(s, "war_roll")

    def _use_clash(self, s, how):
        if how == "normal":
            s.ctx["queue"] = s.ctx["queue"][1:]
        else:
            s.ctx["extra_trades"] -= 1

    def _steal_options(self, s, seat, opp):
        frm = [x for x in self.areas_of(s, opp) if s.units[x][1] > 0]
        to = [x for x in self.areas_of(s, seat) if self.room(s, x) > 0]
        return frm, to

    def _auto_steal(self, s):
        frm, to = self._steal_options(s, s.current, s.ctx["steal"])
        if not frm:
            s.ctx["steal"] = None
        elif len(frm) == 1 and len(to) <= 1:
            self._steal(s, frm[0], to[0] if to else None)

    def _steal(self, s, frm, to):
        self._remove_pt(s, frm, 1)
        if to is not None:
            o, pt, city = s.units[to]
            s.units[to] = (o, pt + 1, city)
        s.ctx["steal"] = None
        self._eliminations(s)

    def check_steal_pt(self, s, a):
        self._turn_player(s, a)
        self._need_pending(s, "steal", "no Population Token is waiting to be stolen")
        frm, to = self._steal_options(s, a["player"], s.ctx["steal"])
        if a["from_area"] not in frm:
            _reject("CQ-T2", "take the token from an area of the civilisation you trade with")
        if to and a["to_area"] not in to:
            _reject("CQ-T2", "put the token in one of your areas with room")

    def do_steal_pt(self, s, a):
        frm, to = self._steal_options(s, a["player"], s.ctx["steal"])
        self._steal(s, a["from_area"], a["to_area"] if to else None)

    # migration --------------------------------------------------------------------------------
    def _can_leave(self, s, seat, frm):
        """Whether a token in `frm` has somewhere to go: a reachable area with room (CQ-M2..M5)."""
        units, cap = s.units, self.rules["area_pt_cap"]
        for b in s.board.land_adj[frm]:  # the usual case first: a bordering empty or own area
            u = units.get(b)
            if u is None or (u[0] == seat and u[1] < cap):
                return True
        for d in self.destinations(s, seat, frm):
            u = units.get(d)
            if u is None or u[1] < cap:
                return True
        return False

    def _movable_from(self, s, seat):
        """The areas tokens may leave now, in map order."""
        units = s.units
        return [a for a in self.areas_of(s, seat) if units[a][1] >= 1 and self._can_leave(s, seat, a)]

    def check_move_from(self, s, a):
        self._turn_player(s, a)
        if s.step != "migration" or not s.ctx.get("open") or self.pending(s):
            _reject("CQ-FLOW", "tokens move in the Migration phase, after the Migration roll")
        seat, frm = a["player"], a["from_area"]
        if self.owner(s, frm) != seat or s.units[frm][1] < 1:
            _reject("CQ-M1", f"you have no Population Tokens in {s.board.name(frm)}")
        if s.ctx.get("mp", 0) < 1:
            _reject("CQ-M1", "each token moved costs 1 Move Point; you have none left")
        if not self._can_leave(s, seat, frm):
            _reject("CQ-M2", f"no area within one move of {s.board.name(frm)} has room for a token")

    def do_move_from(self, s, a):
        s.ctx["moving"] = a["from_area"]

    def check_move(self, s, a):
        self._turn_player(s, a)
        pend = self.pending(s)
        if s.step != "migration" or not s.ctx.get("open") or pend not in (None, "moving"):
            _reject("CQ-FLOW", "tokens move in the Migration phase, after the Migration roll")
        seat, frm, to, n = a["player"], a["from_area"], a["to_area"], a["count"]
        if pend == "moving" and frm != s.ctx["moving"]:
            _reject("CQ-R22", f"you took tokens from {s.board.name(s.ctx['moving'])}: move those, or Undo to "
                    "choose another area")
        if self.owner(s, frm) != seat or s.units[frm][1] < 1:
            _reject("CQ-M1", f"you have no Population Tokens in {s.board.name(frm)}")
        if n < 1 or n > s.units[frm][1]:
            _reject("CQ-M1", f"move 1 to {s.units[frm][1]} PT from {s.board.name(frm)}")
        if n > s.ctx.get("mp", 0):
            _reject("CQ-M1", f"each token moved costs 1 Move Point; you have {s.ctx.get('mp', 0)}")
        if not self._reaches(s, seat, frm, to):
            _reject("CQ-M2", f"{s.board.name(to)} cannot be reached from {s.board.name(frm)} with one move"
                    " (a bordering empty or own land area; across one sea area, two with Sailing, deep sea"
                    " with Navigation; along your empire with Roads)")
        if n > self.room(s, to):
            _reject("CQ-G3", f"{s.board.name(to)} holds at most {self.rules['area_pt_cap']} PT")

    def do_move(self, s, a):
        frm, to, n = a["from_area"], a["to_area"], a["count"]
        self._remove_pt(s, frm, n)
        u = s.units.get(to)
        s.units[to] = (a["player"], (u[1] if u else 0) + n, u[2] if u else False)
        s.ctx["mp"] -= n
        s.ctx["moving"] = None

    # corrections --------------------------------------------------------------------------------
    def check_correct(self, s, a):
        seat, what, v = a["player"], a["what"], a["value"]
        if seat not in s.players:
            _reject("CQ-FIX", f"{seat} is not playing")
        caps = {"ip": self.rules["ip_cap"], "rp": self.rules["rp_cap"], "vp": 999}
        if what not in caps:
            _reject("CQ-FIX", "correct one of: ip, rp, vp")
        if what == "vp":
            if v < -999 or v > 999:
                _reject("CQ-FIX", "a VP correction is -999 to 999")
        elif not 0 <= v <= caps[what]:
            _reject("CQ-FIX", f"{what.upper()} is 0 to {caps[what]}")

    def do_correct(self, s, a):
        sh = s.players[a["player"]]
        if a["what"] == "vp":
            sh.vp_fix += a["value"]  # an adjustment, shown as its own score item
        else:
            setattr(sh, a["what"], a["value"])

    # ------------------------------------------------------------------ flow
    def _start_turn(self, s):
        s.ctx = {}
        s.rolls = ()
        s.step = "leader"
        self._await(s, "leader_roll")

    def _enter(self, s, step):
        s.step = step
        c = s.ctx
        c["open"] = False
        c["closing"] = False
        seat = s.current
        if step == "city":
            c["city_rolls"] = self.cities_of(s, seat) + self._summary(s, seat)[1]["city_rolls"]
        elif step == "advance":
            self._await(s, "idea_roll")
        elif step == "growth":
            self._await(s, "growth_roll")
        elif step == "build":
            self._await(s, "resource_roll")
        elif step == "disaster":
            self._await(s, "disaster_roll")
        elif step == "clash":
            c["queue"] = tuple(self.adjacent_civs(s, seat))
            c["extra_trades"] = self._summary(s, seat)[1]["extra_trade"]
            c.setdefault("extra_wars", 0)
            c["open"] = True
        elif step == "migration":
            self._await(s, "migration_roll")

    def _options_left(self, s):
        """Whether an open phase still has something to choose (else it ends by itself)."""
        seat, c = s.current, s.ctx
        if c.get("closing"):
            return False
        if s.step == "advance":
            return s.players[seat].ip >= self.advance_cost(s) and bool(self._summary(s, seat)[4])
        if s.step == "build":
            sh = s.players[seat]
            cost = self.rules["city_cost"]
            city = False
            if sh.rp >= cost["rp"]:  # an area without a city, and 5 PT to discard (one pass)
                pt, free, units = 0, False, s.units
                for a in units.held.get(seat, ()):
                    _, n, has = units[a]
                    pt += n
                    free = free or not has
                city = free and pt >= cost["pt"]
            wonder = (self.knows(s, seat, "Architecture") and len(sh.wonders) < self.cities_of(s, seat)
                      and any(w not in s.wonders_built and sh.rp >= self.wonder_cost(w) for w in self.wonders))
            return city or wonder
        if s.step == "clash":
            near = self.adjacent_civs(s, seat)
            c["queue"] = tuple(p for p in c.get("queue", ()) if p in near)
            if not c["queue"] and c.get("extra_wars", 0) > 0:
                # CQ-R4: each of the Conqueror's 1D6 extra Clash Phases offers every neighbour
                # again (War or neither), as the normal phase does
                if near:
                    c["extra_wars"] -= 1
                    c["queue"] = tuple(near)
                    c["war_phase"] = True
                    return True
                c["extra_wars"] = 0
            return bool(near) and c.get("extra_trades", 0) > 0
        if s.step == "migration":
            if c.get("mp", 0) <= 0:
                return False
            units, land_adj = s.units, s.board.land_adj
            mine = [a for a in units.held.get(seat, ()) if units[a][1] > 0]
            for a in mine:  # the usual case first: a bordering empty or own land area
                for b in land_adj[a]:
                    u = units.get(b)
                    if u is None or u[0] == seat:
                        return True
            return any(self.destinations(s, seat, a) for a in mine)
        return False

    def settle(self, s):
        if s.step in ("start", "first_player"):
            return
        # the end conditions change only with the map, the wonders or an elimination: all made by
        # the action just applied, none by the phase changes below (CQ-R18: at once, after it)
        self._check_end(s)
        players = s.players
        for _ in range(1000):
            if s.over:
                return
            if players[s.order[s.turn]].out:
                self._next_turn(s)
                continue
            c = s.ctx
            step = s.step
            if step == "clash" and c.get("queue"):  # a war may have ended a border (CQ-T1)
                near = self.adjacent_civs(s, s.order[s.turn])
                c["queue"] = tuple(p for p in c["queue"] if p in near)
            if s.roll or self.pending(s):
                return
            if step == "city" and c.get("city_rolls", 0) > 0:
                self._await(s, "city_roll")
                return
            if c.get("open") and self._options_left(s):
                return
            nxt = NEXT_STEP[step]
            if nxt:
                self._enter(s, nxt)
            else:
                self._next_turn(s)
        raise RuntimeError("civ_quest: settle did not reach a decision")  # pragma: no cover

    def _next_turn(self, s):
        alive = self.alive(s)
        if len(alive) <= 1:
            self._check_end(s)
            return
        while True:
            s.turn += 1
            if s.turn >= len(s.order):
                s.turn = 0
                s.round += 1
                if s.max_rounds is not None and s.round > s.max_rounds:
                    s.round = s.max_rounds
                    self._finish(s, ("round_limit",))
                    return
            if not s.players[s.current].out:
                break
        self._start_turn(s)

    def _eliminations(self, s):
        """CQ-E4: a civilisation with no units left is out."""
        held = s.units.held
        for p in s.seats:
            if not held.get(p) and not s.players[p].out:
                s.players[p].out = True
                c = s.ctx
                c["queue"] = tuple(x for x in c.get("queue", ()) if x != p)

    def end_reasons_now(self, s):
        """The end conditions of the text that hold in `s` (CQ-E1..E4)."""
        why = []
        units = s.units
        # units hold land areas only (status() checks it): the map is full when they cover the land
        if len(units) >= len(s.board.land) and all(a in units for a in s.board.land):
            why.append("land_full")
        if len(s.wonders_built) == len(self.wonders):
            why.append("wonders_built")
        if units.cities and max(units.cities.values()) >= self.rules["end_cities"]:
            why.append("seven_cities")
        if len(self.alive(s)) <= 1:
            why.append("last_civ")
        return tuple(why)

    def _check_end(self, s):
        if s.over or not s.order:
            return
        # CQ-E1..E4 change only with the map (areas, cities, eliminations: a civilisation is out
        # when its last area is lost) or the wonders built: unchanged since the last look, no end
        seen = (s.units.stamp, len(s.wonders_built))
        if seen == s.end_seen:
            return
        s.end_seen = seen
        # the usual case first, with the counts the state keeps: none of the conditions is near
        units, players, n = s.units, s.players, 0
        if (len(units) < len(s.board.land) and len(s.wonders_built) < len(self.wonders)
                and (not units.cities or max(units.cities.values()) < self.rules["end_cities"])):
            for p in s.seats:  # two civilisations alive are enough to go on
                if not players[p].out:
                    n += 1
                    if n > 1:
                        return
        why = self.end_reasons_now(s)
        if why:
            self._finish(s, why)

    def _finish(self, s, why):
        s.over = True
        s.roll = s.roller = None
        s.end_reasons = tuple(why)
        alive = self.alive(s)
        if "last_civ" in why and len(alive) == 1:
            s.winner = (alive[0],)
        else:
            totals = {p: self.score(s)[p]["total"] for p in s.seats if not s.players[p].out}
            best = max(totals.values()) if totals else 0
            s.winner = tuple(p for p in s.seats if totals.get(p) == best)

    # ------------------------------------------------------------------ scoring
    def score(self, s):
        """CQ-V1: VP from advances and Iconic leaders, City rolls, 1 per area occupied, 5 per wonder."""
        out = {}
        for p in s.seats:
            sh = s.players[p]
            items = {"advances": sum(self.advances[a].get("vp", 0) for a in sh.advances),
                     "wonder_bonus": sum(self.wonders[w].get("vp", 0) for w in sh.wonders),
                     "iconic_leaders": sh.vp_iconic, "city_rolls": sh.vp_city,
                     "areas": self.rules["vp_per_area"] * sum(1 for u in s.units.values() if u[0] == p),
                     "wonders": self.rules["vp_per_wonder"] * len(sh.wonders)}
            if sh.vp_fix:
                items["corrections"] = sh.vp_fix
            out[p] = {"total": sum(items.values()), "items": items}
        return out

    def result(self, s):
        """{"winner": seat or None (shared), "winners", "decided_by", "end_reasons"} (CQ-V2)."""
        w = tuple(s.winner or ())
        by = "last_civ" if "last_civ" in s.end_reasons and len(self.alive(s)) == 1 else "vp"
        return {"winner": w[0] if len(w) == 1 else None, "winners": list(w), "decided_by": by,
                "end_reasons": list(s.end_reasons)}

    def status(self, s):
        probs = []
        cap = self.rules["area_pt_cap"]
        for a, (o, pt, city) in s.units.items():
            if a not in s.board.land:
                probs.append(f"units in {a}, which is not land")
            if pt < 0 or (pt == 0 and not city):
                probs.append(f"{a}: {pt} PT")
            if pt > cap and s.ctx.get("losses", 0) == 0:
                probs.append(f"{a}: {pt} PT over the limit of {cap}")
        for p, sh in s.players.items():
            if not 0 <= sh.ip <= self.rules["ip_cap"] or not 0 <= sh.rp <= self.rules["rp_cap"]:
                probs.append(f"{p}: IP {sh.ip} or RP {sh.rp} out of range")
        counted = {}
        for o, _, city in s.units.values():
            if city:
                counted[o] = counted.get(o, 0) + 1
        if counted != {p: n for p, n in getattr(s.units, "cities", counted).items() if n}:
            probs.append("the city count per civilisation does not match the map")
        owned = {}
        for a, u in s.units.items():
            owned.setdefault(u[0], set()).add(a)
        if owned != {p: set(x) for p, x in getattr(s.units, "held", owned).items() if x}:
            probs.append("the areas kept per civilisation do not match the map")
        built = [w for sh in s.players.values() for w in sh.wonders]
        if len(built) != len(set(built)):
            probs.append("a wonder built twice")
        return probs

    # ------------------------------------------------------------------ legal actions
    def pseudo_legal_actions(self, s):
        f = self.codec.fast
        if s.over or s.roll:
            return []
        seat = self.actor(s)
        if s.step == "start":
            return [f("place_start", player=seat, area=a) for a in s.board.land if a not in s.units]
        pend = self.pending(s)
        c = s.ctx
        out = []
        if pend == "offer":
            out.append(f("keep_roll", player=seat))
            out += [f("reroll", player=seat, source=src) for src in self.rerolls_left(s, seat)]
        elif pend == "pick":
            kind = c["pick"][0]
            if kind == "city":
                out += [f("pick_city", player=seat, result=r) for r in c["pick"][1:]]
            else:
                out += [f("pick_advance", player=seat, advance=x) for x in c["pick"][1:]]
        elif pend == "losses":
            if self.pt_of(s, seat) == 0:
                out.append(f("done", player=seat))  # keep the cities (CQ-R11)
            for a in self.areas_of(s, seat):
                pt = s.units[a][1]
                if pt >= 1:
                    most = min(pt, c["losses"])
                    out += [f("lose", player=seat, area=a, count=n) for n in ((1, most) if most > 1 else (1,))]
                if s.units[a][2]:
                    out.append(f("break_city", player=seat, area=a))
        elif pend == "place":
            for a in self.areas_of(s, seat):
                most = min(self.room(s, a), c["place"])
                if most >= 1:
                    out += [f("place", player=seat, area=a, count=n) for n in ((1, most) if most > 1 else (1,))]
        elif pend == "free_city":
            out += [f("place_city", player=seat, area=a) for a in self._free_city_areas(s, seat)]
        elif pend == "steal":
            frm, to = self._steal_options(s, seat, c["steal"])
            for x in frm:
                for y in (to or [frm[0]]):
                    out.append(f("steal_pt", player=seat, from_area=x, to_area=y))
        elif pend == "clash":
            opp = c["queue"][0]
            if c.get("war_phase"):
                out.append(f("done", player=seat))
            else:
                out.append(f("trade", player=seat, opponent=opp))
            out.append(f("peace", player=seat, opponent=opp))
            out += [f("war", player=seat, opponent=opp, from_area=x, to_area=y) for x, y in self.war_fronts(s, seat, opp)]
        elif pend == "moving":
            frm = c["moving"]
            mp, units, cap = c.get("mp", 0), s.units, self.rules["area_pt_cap"]
            pt = units[frm][1]
            move = self.codec.maker("move")
            for d in self.destinations(s, seat, frm):
                u = units.get(d)
                most = min(pt, mp, cap - (u[1] if u else 0))
                if most >= 1:
                    out.append(move({"player": seat, "from_area": frm, "to_area": d, "count": 1}))
                    if most > 1:
                        out.append(move({"player": seat, "from_area": frm, "to_area": d, "count": most}))
        elif c.get("open"):
            out.append(f("done", player=seat))
            sh = s.players[seat]
            if s.step == "advance":
                if sh.ip >= self.advance_cost(s) and self.learnable(s, seat):
                    out.append(f("buy_advance", player=seat))
            elif s.step == "build":
                cost = self.rules["city_cost"]
                if sh.rp >= cost["rp"]:
                    for a in self.areas_of(s, seat):  # a city from its own area's PT (CQ-R15)
                        if not s.units[a][2] and s.units[a][1] >= cost["pt"]:
                            out.append(f("build_city", player=seat, area=a))
                if self.knows(s, seat, "Architecture") and len(sh.wonders) < self.cities_of(s, seat):
                    out += [f("build_wonder", player=seat, wonder=w) for w in self.wonders
                            if w not in s.wonders_built and sh.rp >= self.wonder_cost(w)]
            elif s.step == "clash":
                if c.get("extra_trades", 0) > 0:
                    out += [f("trade", player=seat, opponent=opp) for opp in self.adjacent_civs(s, seat)]
            elif s.step == "migration":
                # first the area the tokens leave (CQ-R22): one choice per area, not every
                # (from, to, count) - with Roads a large empire had ~840 of those
                move_from = self.codec.maker("move_from")
                out += [move_from({"player": seat, "from_area": a}) for a in self._movable_from(s, seat)]
        return out

    def legal_actions(self, s):
        """The candidates are generated legal (each one passes check(); the tests compare them with
        the checked list), so none is validated again here."""
        if s.over:
            return []
        if s.cache is None:  # a state handed out by apply() never changes again: safe to cache on it
            s.cache = {}
        return self.pseudo_legal_actions(s)

    def view(self, s):
        return s.to_dict()


# every roll of a turn is checked and applied the same way: one handler pair per roll type
for _t in ONE_DIE[1:] + TWO_DICE:
    setattr(CivQuest, "check_" + _t, CivQuest._check_roll)
    setattr(CivQuest, "do_" + _t, CivQuest._do_roll)
del _t

GAME = CivQuest()
