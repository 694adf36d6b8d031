"""CivMint rules engine: every step of the round as validators (check_*) and effects (do_*).

Rule ids used in `Rejected(rule, ...)` are listed in docs/civmint-trace.md.
"""
from __future__ import annotations

import itertools

from companion.engine.actions import Action, ActionCodec, ActionSchema
from companion.engine.errors import Rejected, SetupError
from companion.engine.flow import Flow
from companion.engine.game import Game

from .board import Board
from . import labels as L
from .data_load import DATA
from .lanes import position_of, set_engine_value
from .state import SEATS, Player, State, Unit, other

U = DATA.units
RES = DATA.res_ids
STD = tuple(DATA.resources["standard"])
TRADEABLE = tuple(DATA.resources["tradeable"])
CAP = DATA.cap
DEV = DATA.dev_ids
ASP = DATA.asp_ids
RD = DATA.resources
TOP_DEV = {t: len(DATA.dev[t]) - 1 for t in DEV}
SUM_KEYS = ("research", "taxes", "event_bonus", "combat_power_max")
OVERRIDE_KEYS = ("supported", "trade_rate", "ship_carry", "ship_move", "ship_attack", "trade_money",
                 "trade_opponent")
MILITARY = frozenset(k for k, d in U.items() if d.get("military"))
SETTLEMENT = frozenset(k for k, d in U.items() if d.get("settlement"))
MAX_ROUNDS = DATA.rules["max_rounds_default"]
HOUSE_RULES = DATA.rules["house_rules"]  # name -> on by default (all off: the text's reading)


def _schemas():
    S = ActionSchema
    P = {"player": "seat"}
    return [
        S("roll_first_player", {"die": "die"}, chance=True),
        S("produce", P, {"picks": "pick_map"}),
        S("trade", {**P, "give": "str", "get": "str"}),
        S("trade_opponent", {**P, "give": "res_map", "get": "res_map"}),
        S("accept_trade", P),
        S("decline_trade", P),
        S("pay_upkeep", P),
        S("downgrade", {**P, "unit": "int"}),
        S("disband", {**P, "unit": "int"}),
        S("repair", {**P, "unit": "int"}),
        S("end_step", P),
        S("build", {**P, "kind": "str", "space": "str"}),
        S("upgrade", {**P, "unit": "int", "to": "str"}, {"space": "str"}),
        S("move", {**P, "unit": "int", "to": "str"}),
        S("attack", {**P, "unit": "int", "target": "str"}),
        S("defend", {**P, "unit": "int"}),
        S("roll_combat", {"attacker": "die", "defender": "die"}, chance=True),
        S("spend_combat_power", {**P, "amount": "int"}),
        S("retreat", {**P, "unit": "int", "to": "str"}),
        S("research", {**P, "track": "str"}),
        S("improve_aspect", {**P, "track": "str"}),
        S("roll_event", {"dice": "dice"}, chance=True),
        S("event_downgrade", {**P, "units": "ints"}),
        S("event_lose", {**P, "units": "ints"}),
        S("event_gather", {**P, "spaces": "strs"}),
        S("event_settler", {**P, "space": "str"}),
        S("event_upgrade", {**P, "unit": "int", "to": "str"}),
        S("event_track", {**P, "track": "str"}),
        S("round_repair", {**P, "units": "ints"}),
        S("correct_track", {"lane": "str", "value": "int"}),
    ]


def _die(v, what="die"):
    if not 1 <= v <= 6:
        raise Rejected("dice.range", f"{what} value {v} is outside 1..6")


def _prefix_tables():
    """For each track and cube position: the persistent grants held there (sums and overrides)."""
    tables = {}
    for group in (DATA.dev, DATA.asp):
        for tid, spaces in group.items():
            rows = []
            acc_sum = {k: 0 for k in SUM_KEYS}
            acc_ovr = {}
            for sp in spaces:
                g = sp.get("grants", {})
                for k, v in g.items():
                    if k in SUM_KEYS:
                        acc_sum[k] += v
                    elif k in OVERRIDE_KEYS:
                        acc_ovr[k] = v
                    else:
                        raise ValueError(f"track {tid} space {sp['name']}: unknown grant {k!r}")
                rows.append((dict(acc_sum), dict(acc_ovr)))
            tables[tid] = rows
    return tables


PREFIX = _prefix_tables()
_BONUS_CACHE: dict = {}


def bonuses(p: Player) -> dict:
    """Derived values of a player: research, taxes, event_bonus, supported, trade_rate, ship_* ..."""
    key = (p.dev["government"], p.dev["economy"], p.dev["technology"], p.dev["culture"],
           p.asp["population_size"], p.asp["military_might"], p.asp["economic_strength"],
           p.asp["civilian_happiness"])
    b = _BONUS_CACHE.get(key)
    if b is not None:
        return b
    b = dict(RD["defaults"])
    b.update(RD["bonus_start"])
    for tid, pos in zip(DEV + ASP, (key[0], key[1], key[2], key[3], key[4] - 1, key[5] - 1, key[6] - 1, key[7] - 1)):
        sums, ovr = PREFIX[tid][pos]
        for k, v in sums.items():
            b[k] += v
        for k, v in ovr.items():
            if k == "trade_rate":
                b[k] = min(b[k], v)
            else:
                b[k] = max(b[k], v)
    _BONUS_CACHE[key] = b
    return b


def level_of(track: str, pos: int) -> int:
    return DATA.dev[track][pos]["level"]


def research_cost(track: str, pos: int) -> int:
    """Cost to move the cube from printed space `pos` to `pos + 1` (REG-T2)."""
    cur = level_of(track, pos)
    nxt = level_of(track, pos + 1)
    if nxt == cur:  # horizontal: current level plus one lower
        return cur + (cur - 1)
    return nxt


# ---- resources -----------------------------------------------------------------------------------

def can_pay(res: dict, cost: dict) -> bool:
    money = res["money"]
    need_money = cost.get("money", 0)
    for r, n in cost.items():
        if r != "money" and res[r] < n:
            need_money += n - res[r]
    return need_money <= money


def pay(res: dict, cost: dict) -> None:
    """Pay `cost`; Money stands in for any missing resource (REG-U2). Caller checked can_pay."""
    for r, n in cost.items():
        if r == "money":
            res["money"] -= n
        else:
            take = min(res[r], n)
            res[r] -= take
            res["money"] -= n - take
    if res["money"] < 0:  # pragma: no cover - guarded by can_pay
        raise AssertionError("paid more Money than available")


def gain(res: dict, gains: dict, mult: int = 1) -> None:
    for r, n in gains.items():
        v = res[r] + n * mult
        res[r] = CAP if v > CAP else (0 if v < 0 else v)


def _build_cost(kind: str) -> dict:
    """Cost of building a Settler or Infantry directly (not an upgrade)."""
    return U["settler"]["build"]["cost"] if kind == "settler" else U["infantry"]["build"]["direct"]["cost"]


class CivMint(Game):
    name = "civmint"
    correction_types = frozenset({"correct_track"})

    def __init__(self):
        self.data = DATA
        self.flow = Flow(DATA.flow)
        self.codec = ActionCodec(_schemas())
        self.A = self.codec.fast

    # =============================================================================================
    # setup
    # =============================================================================================
    def default_setup(self, **over) -> dict:
        s = {"players": {"p1": {"colour": "blue"}, "p2": {"colour": "green"}},
             "map": dict(DATA.maps["default_layout"]), "max_rounds": MAX_ROUNDS}
        s.update(over)
        return s

    def initial_state(self, setup: dict | None = None) -> State:
        setup = self.default_setup() if setup is None else setup
        if not isinstance(setup, dict):
            raise SetupError("setup must be a dict")
        players = setup.get("players", {"p1": {"colour": "blue"}, "p2": {"colour": "green"}})
        if set(players) != set(SEATS):
            raise SetupError("CivMint is a 2-player game: setup.players needs exactly p1 and p2")
        colours = [players[s].get("colour") for s in SEATS]
        if not all(isinstance(c, str) and c for c in colours) or colours[0] == colours[1]:
            raise SetupError(f"each player needs a colour and the colours must differ, got {colours}")
        board = Board(setup.get("map", DATA.maps["default_layout"]), setup.get("capitals"))
        mr = setup.get("max_rounds", MAX_ROUNDS)
        if mr is not None and (not isinstance(mr, int) or mr < 1):
            raise SetupError("max_rounds must be a positive integer or null")
        s = State()
        s.board = board
        s.round = 1
        s.first = None
        s.turn = 0
        s.step = "first_player"
        s.players = {}
        for seat in SEATS:
            s.players[seat] = Player(dict(RD["start"]), {t: 0 for t in DEV}, {t: 1 for t in ASP},
                                     players[seat]["colour"])
        s.units = {}
        uid = 1
        for seat in SEATS:  # capitals first: ids 1 (p1's) and 2 (p2's)
            s.units[uid] = Unit(uid, seat, "capital", board.home[seat])
            uid += 1
        for seat in SEATS:
            for _ in range(RD["start_settlers"]):
                s.units[uid] = Unit(uid, seat, "settler", board.home[seat])
                uid += 1
        s.next_uid = uid
        s.t = {}
        s.combat = None
        s.pending = ()
        s.events = {}
        s.over = False
        s.end_reasons = ()
        s.max_rounds = mr
        s.chance_count = 0
        s.early_ok = bool(setup.get("second_player_early_start", True))
        s.early = None
        s.t2 = None
        s.house = self._house_rules(setup.get("house_rules"))
        return s

    @staticmethod
    def _house_rules(given) -> frozenset:
        """The named house rules a new game turns on (setup `house_rules`: a list of names)."""
        if given is None:
            return frozenset(k for k, on in HOUSE_RULES.items() if on)
        if not isinstance(given, (list, tuple)) or not all(isinstance(k, str) for k in given):
            raise SetupError("house_rules must be a list of house rule names")
        unknown = [k for k in given if k not in HOUSE_RULES]
        if unknown:
            raise SetupError(f"unknown house rule {unknown[0]!r}; known: {', '.join(sorted(HOUSE_RULES))}")
        return frozenset(given)

    # =============================================================================================
    # queries
    # =============================================================================================
    def is_over(self, s) -> bool:
        return s.over

    def actor(self, s):
        if s.over:
            return None
        st = s.step
        if st in ("first_player", "event_roll"):
            return "system"
        if st == "combat" and s.combat:
            stage = s.combat["stage"]
            if stage == "retreat":
                return s.units[s.combat["unit"]].owner
            if stage == "roll":
                return "system"
            if stage == "defend":
                return other(s.active)
            return s.combat["cp_turn"]
        if st in ("event_choice", "remove_damage"):
            return s.pending[0][0] if s.pending else None
        if st == "trade" and s.t.get("offer"):
            return other(s.active)  # the opponent answers a trade offer
        return s.active

    def bonuses(self, s, seat) -> dict:
        return bonuses(s.players[seat])

    def units_of(self, s, seat, kind=None):
        return [u for u in s.units.values() if u.owner == seat and (kind is None or u.kind == kind)]

    def units_at(self, s, space):
        return [u for u in s.units.values() if u.space == space]

    def dice_count(self, s, seat) -> int:
        return sum(1 for u in s.units.values() if u.owner == seat and u.kind != "capital")

    def upkeep(self, s, seat) -> dict:
        tot = {}
        for u in s.units.values():
            if u.owner == seat:
                for r, n in U[u.kind]["upkeep"].items():
                    tot[r] = tot.get(r, 0) + n
        return tot

    def controller(self, s, space):
        owners = {u.owner for u in s.units.values() if u.space == space}
        return owners.pop() if len(owners) == 1 else None

    def _owners(self, s) -> dict:
        """space -> set of the seats with units there (occupied spaces only)."""
        occ = {}
        for u in s.units.values():
            occ.setdefault(u.space, set()).add(u.owner)
        return occ

    def controlled_spaces(self, s, seat):
        return sorted(sp for sp, o in self._owners(s).items() if o == {seat})

    def contested_spaces(self, s):
        return sorted(sp for sp, o in self._owners(s).items() if len(o) == 2)

    def settlement_at(self, s, space):
        for u in s.units.values():
            if u.space == space and u.kind in SETTLEMENT:
                return u
        return None

    def ship_capacity(self, s, ship):
        return bonuses(s.players[ship.owner])["ship_carry"] - sum(
            1 for u in s.units.values() if u.carrier == ship.id)

    def unit_move(self, s, u) -> int:
        if u.kind == "ship":
            return bonuses(s.players[u.owner])["ship_move"]
        return U[u.kind]["move"]

    def chance_action(self, s, dice):
        if s.over:
            return None
        if s.step == "first_player":
            return self.A("roll_first_player", die=dice.roll(1)[0])
        if s.step == "event_roll":
            return self.A("roll_event", dice=dice.roll(2))
        if s.step == "combat" and s.combat and s.combat["stage"] == "roll":
            a, d = dice.roll(2)
            return self.A("roll_combat", attacker=a, defender=d)
        return None

    # =============================================================================================
    # flow
    # =============================================================================================
    def _advance(self, s):
        while True:
            step, turn, _ = self.flow.next(s.step, s.turn)
            s.step, s.turn = step, turn
            if not self._enter(s) or s.over:
                return

    def _enter(self, s) -> bool:
        """On-entry effects of the step now in s.step. Returns True when the step is skipped."""
        st = s.step
        seat = s.active
        if st == "production":
            if s.early:  # the second player already began this turn during the first's Development
                s.step, s.t, s.early, s.t2 = s.early, s.t2, None, None
                s.combat = None
                return False
            s.t = {"repairs": 0}
            s.units = {k: (u._replace(moved=False, fought=False, fresh=False)
                           if (u.moved or u.fought or u.fresh) else u) for k, u in s.units.items()}
            s.combat = None
            if not self._production_choices(s, seat):
                self._produce(s, seat, {})
                return True
            return False
        if st == "upkeep":
            s.t["repairs"] = 0
            s.t["upkeep_paid"] = not self.upkeep(s, seat)
            return False
        if st == "combat":
            s.t["cspace"] = None
            s.t["retreating"] = None
            s.t["disembark"] = ()
            self._continue_combat(s)
            return False
        if st == "research":
            s.t["research_left"] = bonuses(s.players[seat])["research"]
            return False
        if st == "taxation":
            gain(s.players[seat].res, {"money": bonuses(s.players[seat])["taxes"]})
            s.t["repairs"] = 0
            s.t["aspect_done"] = False
            return False
        if st == "check_game_end":
            self._check_game_end(s)
            return True
        if st == "event_choice":
            self._auto_events(s)
            return not s.pending
        if st == "remove_damage":
            s.pending = tuple((p, "repair") for p in s.order()
                              if any(u.damage for u in s.units.values() if u.owner == p))
            return not s.pending
        if st == "resupply":
            for p in SEATS:
                ps = s.players[p]
                cap = min(CAP, bonuses(ps)["combat_power_max"])
                if ps.res["combat_power"] < cap:
                    ps.res["combat_power"] = cap
            s.first = other(s.first)
            s.round += 1
            return True
        return False

    def check_end_step(self, s, a):
        st = s.step
        if st == "upkeep" and not s.t.get("upkeep_paid"):
            raise Rejected("upkeep.must_pay", "pay the upkeep (or downgrade units until you can) before ending the step")
        if st == "combat":
            if s.combat:
                raise Rejected("combat.in_progress", "finish the current battle first")
            if self._battle_spaces(s):
                raise Rejected("combat.must_engage",
                               "units sharing a space with enemy units must engage in combat")

    def do_end_step(self, s, a):
        self._advance(s)

    # =============================================================================================
    # table corrections (REG-A4): the sensed table wins when the players say so
    # =============================================================================================
    def check_correct_track(self, s, a):
        position_of(a["lane"], a["value"])  # Rejected: unknown lane, or no printed space shows the value

    def do_correct_track(self, s, a):
        """Sets the track to the sensed value and nothing else: no gains or effects of the spaces
        passed (the players already handled the table by hand)."""
        set_engine_value(s, a["lane"], a["value"])

    # =============================================================================================
    # second player's early start (REG-D2)
    # =============================================================================================
    EARLY_STEPS = ("production", "trade", "upkeep", "build")
    OPPONENT_TRADES = ("trade_opponent", "accept_trade", "decline_trade")  # wait for the first player

    def _early_open(self, s) -> bool:
        """The first player develops and the second may start their turn early."""
        return s.early_ok and not s.over and s.turn == 0 and s.step in ("research", "taxation")

    def _is_early(self, s, a) -> bool:
        return (self._early_open(s) and a.get("player") == other(s.first)
                and not self.codec.schemas[a.type].chance)

    def _early_view(self, s):
        """The second player's turn as it stands: a copy of s at their early cursor."""
        v = s.copy()
        v.turn = 1
        v.combat = None
        v.pending = ()
        if s.early is None:
            v.step = "production"
            v.early = None
            if self._enter(v):
                self._advance(v)
        else:
            v.step = s.early
            v.t = dict(s.t2)
            v.early = v.t2 = None
        return v

    def _early_check(self, s, a):
        v = self._early_view(s)
        if v.step not in self.EARLY_STEPS:
            raise Rejected("flow.early", "the second player may play up to the Action step while the "
                           "first player develops; wait for the first player to finish")
        if a.type in self.OPPONENT_TRADES:
            raise Rejected("flow.early", "trades with the opponent wait until the first player has finished")
        Game.check(self, v, a)
        return v

    def check(self, s, a):
        if self._is_early(s, a):
            self._early_check(s, a)
            return
        Game.check(self, s, a)

    def apply(self, s, a):
        if not isinstance(a, Action):
            a = self.codec.from_dict(a)
        if not self._is_early(s, a):
            return Game.apply(self, s, a)
        new = s.copy()
        self.apply_in_place(new, a)
        return new

    def apply_in_place(self, s, a):
        if not isinstance(a, Action):
            a = self.codec.from_dict(a)
        if not self._is_early(s, a):
            return Game.apply_in_place(self, s, a)
        # the second player's early turn runs on a view at their own cursor (_early_view)
        v = self._early_check(s, a)
        getattr(self, "do_" + a.type)(v, a)
        s.units = v.units
        s.players[v.active] = v.players[v.active]
        s.next_uid = v.next_uid
        s.early = v.step
        s.t2 = v.t

    def legal_actions_for(self, s, seat) -> list:
        out = Game.legal_actions_for(self, s, seat)
        if s.early_ok and s.first and seat == other(s.first):
            out += self.early_actions(s)
        return out

    def early_actions(self, s) -> list:
        """Legal actions of the second player during the first player's Development ([] otherwise)."""
        if not self._early_open(s):
            return []
        v = self._early_view(s)
        if v.step not in self.EARLY_STEPS:
            return []
        return [a for a in self.legal_actions(v) if a.type not in self.OPPONENT_TRADES]

    # =============================================================================================
    # setup step
    # =============================================================================================
    def check_roll_first_player(self, s, a):
        _die(a["die"])

    def do_roll_first_player(self, s, a):
        s.chance_count += 1
        fp = DATA.rules["first_player_die"]
        s.first = "p1" if a["die"] in fp["p1"] else "p2"
        s.turn = 0
        s.step = "production"
        if self._enter(s):
            self._advance(s)

    # =============================================================================================
    # production
    # =============================================================================================
    def _production_choices(self, s, seat):
        out = {}
        for u in s.units.values():
            if u.owner == seat and u.kind == "settler" and not u.carrier:
                res = s.board.spaces[u.space].res
                if len(res) > 1:
                    out[u.id] = res
        return out

    def _produce(self, s, seat, picks):
        res = s.players[seat].res
        carried = {u.carrier for u in s.units.values() if u.carrier}
        g = {}
        for u in s.units.values():
            if u.owner != seat or u.carrier:
                continue
            sres = s.board.spaces[u.space].res
            how = U[u.kind]["collect"]
            if how == "one" and sres:
                r = picks.get(u.id, sres[0])
                g[r] = g.get(r, 0) + 1
            elif how == "all" or (how == "all_if_empty" and u.id not in carried):
                for r in sres:
                    g[r] = g.get(r, 0) + 1
            elif how == "double":
                for r in sres:
                    g[r] = g.get(r, 0) + 2
        gain(res, g)

    def check_produce(self, s, a):
        picks = a.get("picks") or ()
        choices = self._production_choices(s, a["player"])
        for k, r in picks:
            try:
                uid = int(k)
            except ValueError:
                raise Rejected("production.pick", "a production pick names no unit") from None
            if uid not in choices:
                raise Rejected("production.pick", f"{L.cap(L.unit_ref(s, uid))} is not a Settler of yours with a choice of resource")
            if r not in choices[uid]:
                raise Rejected("production.pick", f"{L.cap(L.unit_ref(s, uid))}: its space does not offer {L.nice(r)} (it offers {', '.join(map(L.nice, choices[uid]))})")

    def do_produce(self, s, a):
        picks = {int(k): r for k, r in (a.get("picks") or ())}
        self._produce(s, a["player"], picks)
        self._advance(s)

    # =============================================================================================
    # trade
    # =============================================================================================
    def check_trade(self, s, a):
        p = s.players[a["player"]]
        b = bonuses(p)
        give, get = a["give"], a["get"]
        if give not in TRADEABLE:
            raise Rejected("trade.resource", f"{give!r} cannot be traded away (only {', '.join(TRADEABLE)})")
        if get not in TRADEABLE and not (get == "money" and b["trade_money"]):
            raise Rejected("trade.resource", f"cannot trade for {get!r}" +
                           (" (trading for Money needs an economic development)" if get == "money" else ""))
        if give == get:
            raise Rejected("trade.resource", "give and get must differ")
        if p.res[give] < b["trade_rate"]:
            raise Rejected("trade.rate", f"trading needs {b['trade_rate']} {L.nice(give)}, you have {p.res[give]}")

    def do_trade(self, s, a):
        res = s.players[a["player"]].res
        res[a["give"]] -= bonuses(s.players[a["player"]])["trade_rate"]
        gain(res, {a["get"]: 1})

    def check_trade_opponent(self, s, a):
        me = a["player"]
        if s.t.get("offer"):
            raise Rejected("trade.opponent", "a trade offer is already waiting for an answer")
        if not bonuses(s.players[me])["trade_opponent"]:
            raise Rejected("trade.opponent", "trading with the opponent needs an economic development")
        give, get = dict(a["give"]), dict(a["get"])
        allowed = set(TRADEABLE) | {"money"}
        for side, m, who in (("give", give, me), ("get", get, other(me))):
            if not m or any(n <= 0 for n in m.values()):
                raise Rejected("trade.opponent", f"{side} must list positive amounts")
            for r, n in m.items():
                if r not in allowed:
                    raise Rejected("trade.resource", f"{r!r} cannot be traded")
                if s.players[who].res[r] < n:
                    raise Rejected("trade.opponent", f"{'you do' if who == me else 'the other player does'} not have {n} {L.nice(r)}")

    def do_trade_opponent(self, s, a):
        s.t["offer"] = {"give": dict(a["give"]), "get": dict(a["get"])}

    def check_accept_trade(self, s, a):
        if not s.t.get("offer"):
            raise Rejected("trade.opponent", "no trade offer is open")

    def check_decline_trade(self, s, a):
        self.check_accept_trade(s, a)

    def do_decline_trade(self, s, a):
        s.t["offer"] = None

    def do_accept_trade(self, s, a):
        me, op = s.active, a["player"]
        give, get = s.t["offer"]["give"], s.t["offer"]["get"]
        s.t["offer"] = None
        gain(s.players[me].res, give, -1)
        gain(s.players[op].res, give)
        gain(s.players[op].res, get, -1)
        gain(s.players[me].res, get)

    # =============================================================================================
    # upkeep, downgrade, disband, repair
    # =============================================================================================
    def _own_unit(self, s, a, uid=None):
        uid = a["unit"] if uid is None else uid
        u = s.units.get(uid)
        if u is None:
            raise Rejected("unit.unknown", "that unit is not on the map")
        if u.owner != a["player"]:
            raise Rejected("unit.owner", f"{L.cap(L.unit_words(u, s))} is not yours")
        return u

    def check_pay_upkeep(self, s, a):
        if s.t.get("upkeep_paid"):
            raise Rejected("upkeep.paid", "the upkeep is already paid this turn")
        cost = self.upkeep(s, a["player"])
        if not can_pay(s.players[a["player"]].res, cost):
            raise Rejected("upkeep.unaffordable",
                           f"upkeep {L.amounts(cost)} cannot be paid (Money counts as any resource): downgrade units")

    def do_pay_upkeep(self, s, a):
        pay(s.players[a["player"]].res, self.upkeep(s, a["player"]))
        s.t["upkeep_paid"] = True

    def _track_delta(self, s, seat, old_kind, new_kind):
        to, tn = U[old_kind]["track"] if old_kind else {}, U[new_kind]["track"] if new_kind else {}
        for t in set(to) | set(tn):
            d = tn.get(t, 0) - to.get(t, 0)
            if d:
                self._aspect_move(s, seat, t, d)

    def _aspect_move(self, s, seat, track, delta, collect=True):
        p = s.players[seat]
        old = p.asp[track]
        new = max(1, min(6, old + delta))
        p.asp[track] = new
        if collect and new > old:
            for lv in range(old + 1, new + 1):
                gain(p.res, DATA.asp[track][lv - 1].get("gain", {}))

    def _ship_landing(self, s, ship):
        """Land space where a downgraded Ship's Settler goes: friendly first, then unoccupied."""
        seat = ship.owner
        best = None
        for sp in s.board.adj[ship.space]:
            if sp not in s.board.land:
                continue
            owners = {u.owner for u in s.units.values() if u.space == sp}
            if owners == {seat}:
                return sp
            if not owners and best is None:
                best = sp
        return best

    def check_downgrade(self, s, a):
        u = self._own_unit(s, a)
        if u.kind == "capital":
            raise Rejected("unit.capital", "a Capital City cannot be disbanded or downgraded")
        if not U[u.kind]["downgrade_to"]:
            raise Rejected("upkeep.downgrade", f"{L._a(L.nice(u.kind))} cannot be downgraded (Settlers are disbanded)")
        if s.t.get("upkeep_paid"):
            raise Rejected("upkeep.downgrade", "downgrades are made before the upkeep is paid")
        if u.kind == "ship":
            if any(x.carrier == u.id for x in s.units.values()):
                raise Rejected("upkeep.downgrade", "unload the Ship before downgrading it")
            if self._ship_landing(s, u) is None:
                raise Rejected("upkeep.downgrade", "no friendly or empty land next to the Ship for its Settler")

    def do_downgrade(self, s, a):
        u = s.units[a["unit"]]
        new = U[u.kind]["downgrade_to"]
        space = self._ship_landing(s, u) if u.kind == "ship" else u.space
        s.units[u.id] = u._replace(kind=new, space=space, damage=min(u.damage, U[new]["strength"] - 1))
        self._track_delta(s, u.owner, u.kind, new)
        gain(s.players[u.owner].res, {"money": U[u.kind]["refund"]})

    def check_disband(self, s, a):
        u = self._own_unit(s, a)
        if u.kind == "capital":
            raise Rejected("unit.capital", "a Capital City cannot be disbanded or downgraded")
        if u.kind != "settler":
            raise Rejected("upkeep.disband", "only Settlers are disbanded; other units are downgraded")

    def _remove(self, s, u, money=0, loss="track"):
        """Take a unit off the map. loss: 'track' (its track value), 'destroyed' (printed), None."""
        del s.units[u.id]
        if loss == "track":
            self._track_delta(s, u.owner, u.kind, None)
        elif loss == "destroyed":
            for t, d in U[u.kind]["destroyed"].items():
                self._aspect_move(s, u.owner, t, d)
        if money:
            gain(s.players[u.owner].res, {"money": money})

    def do_disband(self, s, a):
        u = s.units[a["unit"]]
        self._remove(s, u, money=U[u.kind]["refund"])

    def repair_cost(self, s) -> int:
        return RD["repair_base_cost"] + RD["repair_cost_step"] * s.t.get("repairs", 0)

    def check_repair(self, s, a):
        u = self._own_unit(s, a)
        if s.step == "upkeep" and not s.t.get("upkeep_paid"):
            raise Rejected("upkeep.must_pay", "repairs come after the upkeep is paid")
        if not u.damage:
            raise Rejected("repair.undamaged", f"{L.cap(L.unit_words(u, s))} has no damage")
        cost = self.repair_cost(s)
        if s.players[a["player"]].res[RD["repair_currency"]] < cost:
            raise Rejected("repair.cost", f"removing this damage cube costs {cost} Money")

    def do_repair(self, s, a):
        u = s.units[a["unit"]]
        s.players[u.owner].res[RD["repair_currency"]] -= self.repair_cost(s)
        s.t["repairs"] = s.t.get("repairs", 0) + 1
        s.units[u.id] = u._replace(damage=u.damage - 1)

    # =============================================================================================
    # build
    # =============================================================================================
    def _has_enemy(self, s, space, seat):
        return any(u.space == space and u.owner != seat for u in s.units.values())

    def check_build(self, s, a):
        seat, kind, space = a["player"], a["kind"], a["space"]
        if kind not in ("settler", "infantry"):
            raise Rejected("build.kind", f"only Settlers and Infantry are built directly; {kind!r} is an upgrade")
        if space not in s.board.spaces:
            raise Rejected("map.space", f"this map has no space {L.space_words(space)}")
        if space not in s.board.land:
            raise Rejected("build.where", "units are built on land (Ships are upgraded from Settlers)")
        if self.dice_count(s, seat) >= RD["unit_dice"]:
            raise Rejected("unit.dice_limit", f"all {RD['unit_dice']} unit dice are in play")
        if self._has_enemy(s, space, seat):
            raise Rejected("build.where", "cannot build in a space with enemy units")
        here = [u for u in s.units.values() if u.space == space and u.owner == seat]
        settle = any(u.kind in SETTLEMENT for u in here)
        if kind == "settler":
            if not settle:
                raise Rejected("build.where", "Settlers are built in a space with your Village, City or Capital")
        elif not (settle or any(u.kind == "infantry" for u in here)):
            raise Rejected("build.where", "Infantry is built in your Villages, Cities or where you have Infantry")
        cost = _build_cost(kind)
        if not can_pay(s.players[seat].res, cost):
            raise Rejected("build.cost", f"cannot pay {L.amounts(cost)}")

    def do_build(self, s, a):
        seat, kind = a["player"], a["kind"]
        pay(s.players[seat].res, _build_cost(kind))
        uid = s.next_uid
        s.next_uid += 1
        s.units[uid] = Unit(uid, seat, kind, a["space"], fresh=True)
        self._track_delta(s, seat, None, kind)

    def check_upgrade(self, s, a):
        u = self._own_unit(s, a)
        to = a["to"]
        if to not in U or not U[to].get("build") or U[to]["build"]["from"] != u.kind:
            raise Rejected("build.upgrade", f"a {u.kind} cannot be upgraded to {to!r}")
        if u.damage:
            raise Rejected("build.damaged", "damaged units cannot be upgraded")
        if u.carrier:
            raise Rejected("build.upgrade", "a unit on a Ship cannot be upgraded")
        if self._has_enemy(s, u.space, u.owner):
            raise Rejected("build.where", "cannot upgrade in a space with enemy units")
        if to in SETTLEMENT and any(x.kind in SETTLEMENT and x.id != u.id
                                    for x in s.units.values() if x.space == u.space):
            raise Rejected("build.one_settlement", "a space holds at most one Village, City or Capital")
        if to == "ship":
            sp = a.get("space")
            if sp is None or sp not in s.board.water or sp not in s.board.adj[u.space]:
                raise Rejected("build.ship_water", "a Ship is placed on a water space next to the Settler")
            if self._has_enemy(s, sp, u.owner):
                raise Rejected("build.where", "cannot launch a Ship into a space with enemy units")
        if not can_pay(s.players[u.owner].res, U[to]["build"]["cost"]):
            raise Rejected("build.cost", f"cannot pay {L.amounts(U[to]['build']['cost'])}")

    def do_upgrade(self, s, a):
        u = s.units[a["unit"]]
        to = a["to"]
        pay(s.players[u.owner].res, U[to]["build"]["cost"])
        if to == "ship":
            s.units[u.id] = u._replace(kind=to, space=a["space"], fresh=True)
        else:
            s.units[u.id] = u._replace(kind=to)
        self._track_delta(s, u.owner, u.kind, to)

    # =============================================================================================
    # move
    # =============================================================================================
    def reachable(self, s, u) -> list:
        """Spaces unit `u` may move to this turn (REG-V*)."""
        seat = u.owner
        mv = self.unit_move(s, u)
        if mv <= 0 or u.moved or (u.kind == "ship" and u.fresh) or u.kind == "capital":
            return []
        adj = s.board.adj
        if u.carrier:  # disembark onto adjacent land
            return [sp for sp in adj[u.space] if sp in s.board.land]
        occ = self._owners(s)
        enemy = other(seat)
        if u.kind == "ship":
            terrain = s.board.water
        else:
            terrain = s.board.land
        seen = {u.space: 0}
        frontier = [u.space]
        out = []
        for d in range(1, mv + 1):
            nxt = []
            for sp in frontier:
                if d > 1 and enemy in occ.get(sp, ()):
                    continue  # movement stops on entering a space with enemy units
                for nb in adj[sp]:
                    if nb in seen:
                        continue
                    if nb in terrain:
                        seen[nb] = d
                        nxt.append(nb)
                        out.append(nb)
                    elif u.kind != "ship" and nb in s.board.water and self._boardable_ship(s, seat, nb):
                        seen[nb] = d
                        out.append(nb)  # embarking ends the move
            frontier = nxt
        return out

    def _boardable_ship(self, s, seat, space):
        for x in s.units.values():
            if x.space == space and x.kind == "ship" and x.owner == seat and self.ship_capacity(s, x) > 0:
                if not self._has_enemy(s, space, seat):
                    return x
        return None

    def check_move(self, s, a):
        u = self._own_unit(s, a)
        if u.kind == "capital" or self.unit_move(s, u) <= 0:
            raise Rejected("move.immobile", f"{L._a(L.nice(u.kind))} does not move")
        if u.moved:
            raise Rejected("move.once", f"{L.cap(L.unit_words(u, s))} has already moved this turn")
        if u.kind == "ship" and u.fresh:
            raise Rejected("move.ship_new", "Ships may not move the turn they are built")
        if a["to"] not in s.board.spaces:
            raise Rejected("map.space", f"this map has no space {L.space_words(a['to'])}")
        if a["to"] not in self.reachable(s, u):
            if u.kind == "ship" and a["to"] in s.board.land:
                raise Rejected("move.ship_water", "Ships move only on water")
            raise Rejected("move.range", f"{L.cap(L.unit_words(u, s))} cannot reach {L.space_words(a['to'])} this turn")

    def do_move(self, s, a):
        u = s.units[a["unit"]]
        to = a["to"]
        if u.kind == "ship":
            for x in list(s.units.values()):
                if x.carrier == u.id:
                    s.units[x.id] = x._replace(space=to)
            s.units[u.id] = u._replace(space=to, moved=True)
        elif u.carrier:
            s.units[u.id] = u._replace(space=to, carrier=0, moved=True)
        elif to in s.board.water:
            ship = self._boardable_ship(s, u.owner, to)
            s.units[u.id] = u._replace(space=to, carrier=ship.id, moved=True)
        else:
            s.units[u.id] = u._replace(space=to, moved=True)

    # =============================================================================================
    # combat
    # =============================================================================================
    def attack_bonus(self, s, u, target):
        """Attack bonus of `u` against `target`, or None when it cannot attack there."""
        if u.carrier and u.kind != "artillery":
            return None
        if u.kind in SETTLEMENT and u.kind != "capital" and "attack" not in U[u.kind]:
            return None
        att = U[u.kind].get("attack")
        if not att:
            return None
        if target == u.space:
            b = att.get("0", att.get("1"))
        elif target in s.board.adj[u.space]:
            b = att.get("1")
        else:
            return None
        if b is None:
            return None
        if u.kind == "ship":
            b += bonuses(s.players[u.owner])["ship_attack"]
        return b

    def defenders(self, s, target, attacker_seat):
        # REG-C2: "Each Unit may participate once in only one battle" holds for defenders too; the
        # house rule defenders_fight_every_battle lets a defender defend every battle aimed at it
        every = "defenders_fight_every_battle" in s.house
        return [u for u in s.units.values()
                if u.space == target and u.owner != attacker_seat and not u.carrier
                and (every or not u.fought)]

    def _mandatory(self, s, space, seat):
        return [u for u in s.units.values() if u.space == space and u.owner == seat and not u.fought
                and self.attack_bonus(s, u, space) is not None]

    def _battle_spaces(self, s):
        """Contested spaces where a battle must still be fought this turn."""
        seat = s.active
        out = []
        for sp in self.contested_spaces(s):
            if self._mandatory(s, sp, seat) and self.defenders(s, sp, seat):
                out.append(sp)
        return out

    def check_attack(self, s, a):
        if s.combat:
            raise Rejected("combat.in_progress", "a battle is in progress")
        u = self._own_unit(s, a)
        tgt = a["target"]
        if tgt not in s.board.spaces:
            raise Rejected("map.space", f"this map has no space {L.space_words(tgt)}")
        if u.fought:
            raise Rejected("combat.once", "each unit fights in only one battle per turn")
        if self._has_enemy(s, u.space, u.owner) and tgt != u.space:
            raise Rejected("combat.target_shared",
                           "a unit sharing its space with the enemy must target that space, even ranged units")
        cs = s.t.get("cspace")
        battles = self._battle_spaces(s)
        if cs and tgt != cs:
            raise Rejected("combat.one_space", f"finish the battle for {L.space_words(cs)} first (one contested space at a time)")
        if not cs and battles and tgt not in battles:
            raise Rejected("combat.contested_first", "contested spaces are fought before ranged attacks")
        if self.attack_bonus(s, u, tgt) is None:
            raise Rejected("combat.range", f"{L.cap(L.unit_words(u, s))} cannot attack {L.space_words(tgt)}")
        if not self.defenders(s, tgt, u.owner):
            raise Rejected("combat.no_defender", f"no enemy unit at {L.space_words(tgt)} can defend")

    def do_attack(self, s, a):
        tgt = a["target"]
        if self._has_enemy(s, tgt, a["player"]) and any(
                x.space == tgt and x.owner == a["player"] for x in s.units.values()):
            s.t["cspace"] = tgt
        s.combat = {"att": a["unit"], "target": tgt, "stage": "defend", "def": 0, "dice": None,
                    "tot": None, "cp_turn": None}
        ds = self.defenders(s, tgt, a["player"])
        if len(ds) == 1:  # a forced choice is made by the engine
            s.combat = dict(s.combat, **{"def": ds[0].id, "stage": "roll"})

    def check_defend(self, s, a):
        if not s.combat or s.combat["stage"] != "defend":
            raise Rejected("combat.stage", "no defender is being chosen now")
        u = self._own_unit(s, a)
        if u not in self.defenders(s, s.combat["target"], s.active):
            raise Rejected("combat.defender", f"{L.cap(L.unit_words(u, s))} cannot defend {L.space_words(s.combat['target'])} "
                           "(it must be there and not carried on a Ship)")

    def do_defend(self, s, a):
        s.combat = dict(s.combat, **{"def": a["unit"], "stage": "roll"})

    def check_roll_combat(self, s, a):
        if not s.combat or s.combat["stage"] != "roll":
            raise Rejected("combat.stage", "no combat roll is awaited")
        _die(a["attacker"], "attacker die")
        _die(a["defender"], "defender die")

    def do_roll_combat(self, s, a):
        s.chance_count += 1
        c = s.combat
        au, du = s.units[c["att"]], s.units[c["def"]]
        ta = a["attacker"] + self.attack_bonus(s, au, c["target"])
        td = a["defender"] + U[du.kind]["defence"]
        if a["attacker"] != a["defender"]:
            first = au.owner if a["attacker"] < a["defender"] else du.owner
        else:
            first = du.owner if ta >= td else au.owner
        s.combat = dict(c, dice=(a["attacker"], a["defender"]), tot=(ta, td), stage="cp", cp_turn=first,
                        passes=0)
        if s.players[first].res["combat_power"] == 0:
            self._resolve_battle(s)

    def check_spend_combat_power(self, s, a):
        if not s.combat or s.combat["stage"] != "cp":
            raise Rejected("combat.stage", "Combat Power is spent after the combat dice are rolled")
        n = a["amount"]
        if n < 0:
            raise Rejected("combat.cp_amount", "amount must be 0 (pass) or more")
        if n > s.players[a["player"]].res["combat_power"]:
            raise Rejected("combat.cp_short", f"you have only {s.players[a['player']].res['combat_power']} Combat Power")

    def do_spend_combat_power(self, s, a):
        n = a["amount"]
        if n == 0:
            self._resolve_battle(s)
            return
        seat = a["player"]
        s.players[seat].res["combat_power"] -= n
        c = s.combat
        ta, td = c["tot"]
        if seat == s.units[c["att"]].owner:
            ta += n
        else:
            td += n
        nxt = other(seat)
        s.combat = dict(c, tot=(ta, td), cp_turn=nxt)
        if s.players[nxt].res["combat_power"] == 0:
            self._resolve_battle(s)

    def _resolve_battle(self, s):
        c = s.combat
        au, du = s.units[c["att"]], s.units[c["def"]]
        ta, td = c["tot"]
        att_wins = ta >= td  # the attacker wins ties
        win, lose = (au, du) if att_wins else (du, au)
        s.units[au.id] = au._replace(fought=True)
        s.units[du.id] = du._replace(fought=True)
        lose = s.units[lose.id]
        lose = lose._replace(damage=lose.damage + 1)
        s.units[lose.id] = lose
        s.t["last_battle"] = {"attacker": au.id, "defender": du.id, "dice": list(c["dice"]),
                              "totals": [ta, td], "winner": win.owner, "damaged": lose.id}
        s.combat = None
        if lose.damage >= U[lose.kind]["strength"]:
            self._eliminate(s, lose, win.owner)
        self._continue_combat(s)

    def _eliminate(self, s, u, victor):
        loser = u.owner
        if u.kind == "capital":
            s.units[u.id] = u._replace(owner=victor, damage=0, fought=True)
            for t, d in U["capital"]["destroyed"].items():
                self._aspect_move(s, loser, t, d)
            gain(s.players[victor].res, {"money": U["capital"]["victor_money"]})
            return
        cargo = [x for x in s.units.values() if x.carrier == u.id]
        self._remove(s, u, loss="destroyed")
        if U[u.kind]["victor_money"]:
            gain(s.players[victor].res, {"money": U[u.kind]["victor_money"]})
        self._queue_disembark(s, cargo, u.space)

    def _queue_disembark(self, s, cargo, space):
        """The units of a lost Ship disembark (the owner chooses where) or sink (REG-C9)."""
        for x in cargo:
            s.units[x.id] = x._replace(carrier=0)
        s.t["disembark"] = tuple(s.t.get("disembark") or ()) + tuple((x.id, space) for x in cargo)

    def disembark_options(self, s, u, space):
        """Adjacent land spaces that are unoccupied or friendly (Ships: 'may disembark to an adjacent,
        unoccupied or friendly space')."""
        out = []
        for sp in s.board.adj[space]:
            if sp in s.board.land:
                owners = {x.owner for x in s.units.values() if x.space == sp}
                if not owners or owners == {u.owner}:
                    out.append(sp)
        return out

    def retreat_options(self, s, seat, space, land=True, allow_ship=True, unit=None):
        """Where a unit leaving `space` may go (REG-C7): the adjacent friendly spaces (own units only;
        for land units also water with an own Ship that has room, a damaged unit only if its damage
        would not sink the Ship); if there are none, the adjacent unoccupied spaces; [] = disband."""
        terrain = s.board.land if land else s.board.water
        friendly, empty = [], []
        for sp in s.board.adj[space]:
            owners = {x.owner for x in s.units.values() if x.space == sp}
            if sp in terrain:
                if owners == {seat}:
                    friendly.append(sp)
                elif not owners:
                    empty.append(sp)
            elif allow_ship and unit is not None and sp in s.board.water:
                ship = self._boardable_ship(s, seat, sp)
                if ship and (not unit.damage or ship.damage + unit.damage < U["ship"]["strength"]):
                    friendly.append(sp)
        return friendly or empty

    def _retreat(self, s, space) -> bool:
        """Combat step 7 for one space. Returns False when paused for a player's retreat choice."""
        while True:
            here = [x for x in s.units.values() if x.space == space and not x.carrier]
            sides = {x.owner for x in here}
            if len(sides) < 2:
                return True
            settle = [x for x in here if x.kind in SETTLEMENT]
            if settle:
                mover_side = other(settle[0].owner)
            else:
                mover_side = s.t.get("retreat_turn") or s.active
            movers = sorted((x for x in here if x.owner == mover_side and x.kind not in SETTLEMENT),
                            key=lambda x: (-x.damage, x.id))
            if not movers:
                return True
            u = movers[0]
            land = u.kind != "ship"
            opts = self.retreat_options(s, u.owner, space, land, land, u)
            if len(opts) > 1:
                s.combat = {"stage": "retreat", "kind": "retreat", "unit": u.id, "from": space, "options": opts}
                return False
            self._retreat_unit(s, u, space, opts[0] if opts else None)
            if not settle:
                s.t["retreat_turn"] = other(mover_side)
            if s.t.get("disembark"):
                return False  # the lost Ship's cargo goes ashore first

    def _retreat_unit(self, s, u, space, dest):
        if dest is None:  # nowhere to go: disbanded for 1 Money
            cargo = [x for x in s.units.values() if x.carrier == u.id]
            self._remove(s, u, money=1)
            self._queue_disembark(s, cargo, space)
        elif u.kind != "ship" and dest in s.board.water:
            ship = self._boardable_ship(s, u.owner, dest)
            if u.damage:  # the damage moves to the Ship
                s.units[ship.id] = ship._replace(damage=ship.damage + u.damage)
            s.units[u.id] = u._replace(space=dest, carrier=ship.id, damage=0)
        else:
            if u.kind == "ship":
                for x in list(s.units.values()):
                    if x.carrier == u.id:
                        s.units[x.id] = x._replace(space=dest)
            s.units[u.id] = u._replace(space=dest)

    def check_retreat(self, s, a):
        c = s.combat
        if not c or c["stage"] != "retreat":
            raise Rejected("combat.stage", "no retreat is being chosen now")
        if a["unit"] != c["unit"]:
            raise Rejected("combat.retreat", f"{L.cap(L.unit_ref(s, c['unit']))} retreats now (most damaged first, sides alternate)")
        if a["to"] not in c["options"]:
            raise Rejected("combat.retreat", f"retreat to a friendly adjacent space, else an unoccupied one: "
                           f"{L.spaces_words(c['options'], 'or')}")

    def do_retreat(self, s, a):
        c = s.combat
        frm = c["from"]
        u = s.units[a["unit"]]
        s.combat = None
        if c["kind"] == "disembark":
            s.t["disembark"] = s.t["disembark"][1:]
            s.units[u.id] = u._replace(space=a["to"], carrier=0)
        else:
            settled = any(x.space == frm and x.kind in SETTLEMENT and not x.carrier for x in s.units.values())
            self._retreat_unit(s, u, frm, a["to"])
            if not settled:
                s.t["retreat_turn"] = other(u.owner)
        self._continue_combat(s)

    def _continue_combat(self, s):
        """Automatic combat processing between decisions: cargo of lost Ships goes ashore, the current
        contested space retreats once its battles are over, then every contested space where no
        battle is possible retreats. Stops when a player must choose (s.combat set)."""
        seat = s.active
        while not s.combat:
            q = s.t.get("disembark")
            if q:
                uid, frm = q[0]
                x = s.units[uid]
                opts = self.disembark_options(s, x, frm)
                if len(opts) > 1:
                    s.combat = {"stage": "retreat", "kind": "disembark", "unit": uid, "from": frm, "options": opts}
                    return
                s.t["disembark"] = q[1:]
                if opts:
                    s.units[uid] = x._replace(space=opts[0], carrier=0)
                else:  # sinks with the ship, no compensation
                    self._remove(s, x, loss="destroyed")
                continue
            rs = s.t.get("retreating")
            if rs:
                if not self._retreat(s, rs):
                    continue  # paused for a choice, or cargo to put ashore first
                s.t["retreating"] = None
                s.t["retreat_turn"] = None
                if rs == s.t.get("cspace"):
                    s.t["cspace"] = None
                continue
            cs = s.t.get("cspace")
            if cs and not (self._mandatory(s, cs, seat) and self.defenders(s, cs, seat)):
                s.t["retreating"] = cs
                s.t["retreat_turn"] = None
                continue
            nxt = None
            for sp in self.contested_spaces(s):
                if sp != cs and not (self._mandatory(s, sp, seat) and self.defenders(s, sp, seat)):
                    nxt = sp
                    break
            if nxt is None:
                return
            s.t["retreating"] = nxt
            s.t["retreat_turn"] = None

    # =============================================================================================
    # development: research, taxation & improvements
    # =============================================================================================
    def check_research(self, s, a):
        t = a["track"]
        if t not in DEV:
            raise Rejected("research.track", f"unknown development track {t!r}")
        pos = s.players[a["player"]].dev[t]
        if pos >= TOP_DEV[t]:
            raise Rejected("research.top", f"{L.nice(t)} is at its top level")
        cost = research_cost(t, pos)
        if s.t.get("research_left", 0) < cost:
            raise Rejected("research.cost", f"advancing {L.nice(t)} costs {cost} research, {s.t.get('research_left', 0)} left")

    def _dev_enter(self, s, seat, track, pos):
        p = s.players[seat]
        p.dev[track] = pos
        sp = DATA.dev[track][pos]
        gain(p.res, sp.get("gain", {}))
        for at, d in sp.get("aspect", {}).items():
            self._aspect_move(s, seat, at, d)

    def do_research(self, s, a):
        t = a["track"]
        pos = s.players[a["player"]].dev[t]
        s.t["research_left"] -= research_cost(t, pos)
        self._dev_enter(s, a["player"], t, pos + 1)

    def check_improve_aspect(self, s, a):
        t = a["track"]
        if t not in ASP:
            raise Rejected("taxation.track", f"unknown Civilization Aspect track {t!r}")
        if s.t.get("aspect_done"):
            raise Rejected("taxation.one_aspect", "only ONE Civilization Aspect advance per turn")
        lv = s.players[a["player"]].asp[t]
        if lv >= 6:
            raise Rejected("taxation.top", f"{L.nice(t)} is at its top level")
        if s.players[a["player"]].res["money"] < lv + 1:
            raise Rejected("taxation.money", f"advancing {L.nice(t)} to level {lv + 1} costs {lv + 1} Money")

    def do_improve_aspect(self, s, a):
        t = a["track"]
        p = s.players[a["player"]]
        p.res["money"] -= p.asp[t] + 1
        self._aspect_move(s, a["player"], t, 1)
        s.t["aspect_done"] = True

    # =============================================================================================
    # check for game end
    # =============================================================================================
    def end_conditions(self, s) -> list:
        ge = DATA.rules["game_end"]
        out = []
        for seat in SEATS:
            p = s.players[seat]
            if sum(1 for t in DEV if p.dev[t] >= TOP_DEV[t]) >= ge["top_development_tracks"]:
                out.append(f"{seat}:top_development")
            if sum(1 for t in ASP if p.asp[t] >= 6) >= ge["top_aspect_tracks"]:
                out.append(f"{seat}:top_aspects")
            if sum(1 for u in s.units.values() if u.owner == seat and u.kind == "city") >= ge["cities"]:
                out.append(f"{seat}:six_cities")
        for u in s.units.values():
            if u.kind == "capital" and s.board.capital_of[u.space] != u.owner:
                out.append(f"{u.owner}:holds_capital_of_{s.board.capital_of[u.space]}")
        return out

    def _check_game_end(self, s):
        reasons = self.end_conditions(s)
        if s.max_rounds is not None and s.round >= s.max_rounds:
            reasons.append("round_limit")
        if reasons:
            s.over = True
            s.end_reasons = tuple(reasons)
            s.step = "game_over"

    # =============================================================================================
    # global events
    # =============================================================================================
    def event_number(self, s, seat, total):
        ev = DATA.events
        n = total + bonuses(s.players[seat])["event_bonus"]
        return max(ev["min"], min(ev["max"], n))

    def check_roll_event(self, s, a):
        d = a["dice"]
        if len(d) != DATA.events["dice"]:
            raise Rejected("event.dice", f"the Global Event roll is {DATA.events['dice']} dice, got {len(d)}")
        for v in d:
            _die(v)

    def do_roll_event(self, s, a):
        s.chance_count += 1
        total = sum(a["dice"])
        s.events = {seat: self.event_number(s, seat, total) for seat in SEATS}
        s.pending = tuple((seat, s.events[seat]) for seat in s.order())
        self._advance(s)

    def _event(self, n):
        return DATA.events["events"][str(n)]

    def event_options(self, s, seat, n):
        """The choices event n offers `seat` now, as a list of actions (empty: nothing to choose)."""
        e = self._event(n)
        A = self.A
        eff = e["effect"]
        mine = [u for u in s.units.values() if u.owner == seat]
        if eff == "keep_settlements":
            keep = bonuses(s.players[seat])["supported"] if e["keep"] == "supported" else e["keep"]
            sets = sorted(u.id for u in mine if u.kind in ("village", "city"))
            k = len(sets) - keep
            if k <= 0:
                return []
            return [A("event_downgrade", player=seat, units=list(c)) for c in itertools.islice(itertools.combinations(sets, k), 64)]
        if eff == "lose_half_settlers":
            st = sorted(u.id for u in mine if u.kind == "settler")
            k = len(st) // 2
            if k == 0:
                return []
            return [A("event_lose", player=seat, units=list(c)) for c in itertools.islice(itertools.combinations(st, k), 64)]
        if eff == "lose_military":
            mil = sorted(u.id for u in mine if u.kind in MILITARY)
            return [A("event_lose", player=seat, units=[m]) for m in mil]
        if eff == "gather":
            ctl = [sp for sp in self.controlled_spaces(s, seat) if s.board.spaces[sp].res]
            k = min(e["count"], len(ctl))
            if k == 0:
                return []
            return [A("event_gather", player=seat, spaces=list(c)) for c in itertools.islice(itertools.combinations(ctl, k), 64)]
        if eff == "settler_or_upgrade":
            out = []
            if self.dice_count(s, seat) < RD["unit_dice"]:
                spaces = sorted({u.space for u in mine if u.kind in SETTLEMENT
                                 and not self._has_enemy(s, u.space, seat)})
                out += [A("event_settler", player=seat, space=sp) for sp in spaces]
            for u in sorted(mine):
                if u.damage or u.carrier:
                    continue
                for to in ("infantry", "cavalry", "artillery"):
                    if U[to]["build"]["from"] == u.kind:
                        out.append(A("event_upgrade", player=seat, unit=u.id, to=to))
            return out
        if eff == "aspect_step":
            return [A("event_track", player=seat, track=t) for t in ASP if s.players[seat].asp[t] < 6]
        if eff == "lowest_development_step":
            p = s.players[seat]
            open_ = [t for t in DEV if p.dev[t] < TOP_DEV[t]]
            if not open_:
                return []
            low = min(level_of(t, p.dev[t]) for t in open_)
            return [A("event_track", player=seat, track=t) for t in open_ if level_of(t, p.dev[t]) == low]
        return []

    def _apply_auto_event(self, s, seat, n):
        e = self._event(n)
        eff = e["effect"]
        res = s.players[seat].res
        if eff == "lose_half_food":
            res["food"] -= res["food"] // 2
        elif eff == "lose_food":
            res["food"] = max(0, res["food"] - e["amount"])
        elif eff == "food_per_unit":
            gain(res, {"food": e["amount"] * self.dice_count(s, seat)})

    def _auto_events(self, s):
        """Apply events that need no decision; forced single choices are applied by the engine."""
        while s.pending:
            seat, n = s.pending[0]
            if n == "repair":
                return
            if "choice" not in self._event(n):
                self._apply_auto_event(s, seat, n)
                s.pending = s.pending[1:]
                continue
            opts = self.event_options(s, seat, n)
            if len(opts) > 1:
                return
            s.pending = s.pending[1:]
            if opts:
                a = opts[0]
                getattr(self, "do_" + a.type)(s, a, auto=True)

    def _check_event_choice(self, s, a, kinds):
        if not s.pending or s.pending[0][1] == "repair":
            raise Rejected("event.none", "no Global Event choice is awaited")
        seat, n = s.pending[0]
        e = self._event(n)
        if e["effect"] not in kinds:
            raise Rejected(f"event.{n}", f"{e['name']} asks for a different choice")
        if a["player"] != seat:
            raise Rejected("flow.actor", f"it is {seat}'s event choice")
        eff = e["effect"]
        if eff in ("keep_settlements", "lose_half_settlers", "lose_military", "gather"):
            opts = self.event_options(s, seat, n)
            if not opts:
                raise Rejected(f"event.{n}", f"{e['name']}: nothing to choose")
            field = "spaces" if eff == "gather" else "units"
            got = list(a[field])
            need = len(opts[0][field])
            if len(got) != need or len(set(got)) != need:
                raise Rejected(f"event.{n}", f"{e['name']}: choose exactly {L.count(need, field[:-1])}, all different")
            for x in got:
                if eff == "gather":
                    ok = s.board.spaces.get(x) is not None and s.board.spaces[x].res and \
                        self.controller(s, x) == seat
                else:
                    u = s.units.get(x)
                    want = {"keep_settlements": ("village", "city"), "lose_half_settlers": ("settler",),
                            "lose_military": tuple(MILITARY)}[eff]
                    ok = u is not None and u.owner == seat and u.kind in want
                if not ok:
                    raise Rejected(f"event.{n}", f"{e['name']}: {x!r} is not a valid choice")
        elif a not in self.event_options(s, seat, n):
            raise Rejected(f"event.{n}", f"not a valid choice for {e['name']}")

    def _event_done(self, s, auto):
        if auto:
            return
        s.pending = s.pending[1:]
        self._auto_events(s)
        if not s.pending:
            self._advance(s)

    def check_event_downgrade(self, s, a):
        self._check_event_choice(s, a, ("keep_settlements",))

    def do_event_downgrade(self, s, a, auto=False):
        for uid in a["units"]:
            u = s.units[uid]
            s.units[uid] = u._replace(kind="settler", damage=min(u.damage, U["settler"]["strength"] - 1))
            self._track_delta(s, u.owner, u.kind, "settler")  # no refund
        self._event_done(s, auto)

    def check_event_lose(self, s, a):
        self._check_event_choice(s, a, ("lose_half_settlers", "lose_military"))

    def do_event_lose(self, s, a, auto=False):
        for uid in a["units"]:
            u = s.units[uid]
            cargo = [x for x in s.units.values() if x.carrier == uid]
            self._remove(s, u, money=0, loss="track")
            for x in cargo:  # pragma: no cover - only Ships carry, and Ships are not lost this way
                self._remove(s, x, loss="track")
        self._event_done(s, auto)

    def check_event_gather(self, s, a):
        self._check_event_choice(s, a, ("gather",))

    def do_event_gather(self, s, a, auto=False):
        g = {}
        for sp in a["spaces"]:
            for r in s.board.spaces[sp].res:
                g[r] = g.get(r, 0) + 1
        gain(s.players[a["player"]].res, g)
        self._event_done(s, auto)

    def check_event_settler(self, s, a):
        self._check_event_choice(s, a, ("settler_or_upgrade",))

    def do_event_settler(self, s, a, auto=False):
        uid = s.next_uid
        s.next_uid += 1
        s.units[uid] = Unit(uid, a["player"], "settler", a["space"])
        self._event_done(s, auto)

    def check_event_upgrade(self, s, a):
        self._check_event_choice(s, a, ("settler_or_upgrade",))

    def do_event_upgrade(self, s, a, auto=False):
        u = s.units[a["unit"]]
        s.units[u.id] = u._replace(kind=a["to"])
        self._track_delta(s, u.owner, u.kind, a["to"])
        self._event_done(s, auto)

    def check_event_track(self, s, a):
        self._check_event_choice(s, a, ("aspect_step", "lowest_development_step"))

    def do_event_track(self, s, a, auto=False):
        t = a["track"]
        if t in ASP:
            self._aspect_move(s, a["player"], t, 1)
        else:
            self._dev_enter(s, a["player"], t, s.players[a["player"]].dev[t] + 1)
        self._event_done(s, auto)

    # =============================================================================================
    # round end
    # =============================================================================================
    def repair_allowance(self, s, seat) -> int:
        return RD["round_repair_base"] + RD["round_repair_per_settler"] * sum(
            1 for u in s.units.values() if u.owner == seat and u.kind == "settler")

    def check_round_repair(self, s, a):
        if not s.pending:
            raise Rejected("round.repair", "no damage removal is awaited")
        seat = a["player"]
        ids = list(a["units"])
        if len(ids) > self.repair_allowance(s, seat):
            raise Rejected("round.repair_allowance",
                           f"remove at most {self.repair_allowance(s, seat)} damage cubes (1 + 1 per Settler)")
        for uid in set(ids):
            u = s.units.get(uid)
            if u is None or u.owner != seat:
                raise Rejected("unit.owner", f"{L.cap(L.unit_ref(s, uid))} is not yours")
            if ids.count(uid) > u.damage:
                raise Rejected("repair.undamaged", f"{L.cap(L.unit_words(u, s))} has only {L.count(u.damage, 'damage cube')}")

    def do_round_repair(self, s, a):
        for uid in a["units"]:
            u = s.units[uid]
            s.units[uid] = u._replace(damage=u.damage - 1)
        s.pending = s.pending[1:]
        if not s.pending:
            self._advance(s)

    # =============================================================================================
    # action listing
    # =============================================================================================
    def pseudo_legal_actions(self, s) -> list:
        if s.over:
            return []
        A = self.A
        st = s.step
        who = self.actor(s)
        if who == "system":
            if st == "first_player":
                return [A("roll_first_player", die=d) for d in range(1, 7)]
            if st == "event_roll":
                return [A("roll_event", dice=[a, b]) for a in range(1, 7) for b in range(1, 7)]
            return [A("roll_combat", attacker=a, defender=b) for a in range(1, 7) for b in range(1, 7)]
        seat = who
        out = []
        mine = [u for u in s.units.values() if u.owner == seat]
        if st == "production":
            ch = self._production_choices(s, seat)
            keys = sorted(ch)
            combos = itertools.islice(itertools.product(*(ch[k] for k in keys)), 64)
            for c in combos:
                out.append(A("produce", player=seat, picks={str(k): r for k, r in zip(keys, c)}))
            return out
        if st == "trade" and s.t.get("offer"):
            return [A("accept_trade", player=seat), A("decline_trade", player=seat)]
        if st == "trade":
            b = bonuses(s.players[seat])
            gets = TRADEABLE + (("money",) if b["trade_money"] else ())
            mine_res, theirs = s.players[seat].res, s.players[other(seat)].res
            for g in TRADEABLE:
                if mine_res[g] >= b["trade_rate"]:  # only what the player can pay (check_trade)
                    out += [A("trade", player=seat, give=g, get=h) for h in gets if g != h]
            if b["trade_opponent"]:
                for g in TRADEABLE:
                    if mine_res[g] >= 1:
                        out += [A("trade_opponent", player=seat, give={g: 1}, get={h: 1})
                                for h in TRADEABLE if g != h and theirs[h] >= 1]
        elif st == "upkeep":
            out.append(A("pay_upkeep", player=seat))
            for u in mine:
                if u.kind == "settler":
                    out.append(A("disband", player=seat, unit=u.id))
                elif U[u.kind]["downgrade_to"]:
                    out.append(A("downgrade", player=seat, unit=u.id))
                if u.damage:
                    out.append(A("repair", player=seat, unit=u.id))
        elif st == "build":
            spaces = sorted({u.space for u in mine if u.kind in SETTLEMENT or u.kind == "infantry"})
            for sp in spaces:
                out.append(A("build", player=seat, kind="settler", space=sp))
                out.append(A("build", player=seat, kind="infantry", space=sp))
            for u in mine:
                for to, d in U.items():
                    if d.get("build") and d["build"]["from"] == u.kind:
                        if to == "ship":
                            for w in s.board.adj[u.space]:
                                if w in s.board.water:
                                    out.append(A("upgrade", player=seat, unit=u.id, to=to, space=w))
                        else:
                            out.append(A("upgrade", player=seat, unit=u.id, to=to))
        elif st == "move":
            for u in mine:
                for sp in self.reachable(s, u):
                    out.append(A("move", player=seat, unit=u.id, to=sp))
        elif st == "combat":
            c = s.combat
            if c and c["stage"] == "defend":
                return [A("defend", player=seat, unit=u.id) for u in self.defenders(s, c["target"], s.active)]
            if c and c["stage"] == "retreat":
                return [A("retreat", player=seat, unit=c["unit"], to=sp) for sp in c["options"]]
            if c and c["stage"] == "cp":
                return [A("spend_combat_power", player=seat, amount=n)
                        for n in range(0, s.players[seat].res["combat_power"] + 1)]
            for u in mine:
                if u.fought:
                    continue
                for sp in (u.space,) + s.board.adj[u.space]:
                    if self.attack_bonus(s, u, sp) is not None and self.defenders(s, sp, seat):
                        out.append(A("attack", player=seat, unit=u.id, target=sp))
        elif st == "research":
            out += [A("research", player=seat, track=t) for t in DEV]
        elif st == "taxation":
            out += [A("improve_aspect", player=seat, track=t) for t in ASP]
            out += [A("repair", player=seat, unit=u.id) for u in mine if u.damage]
        elif st == "event_choice":
            if s.pending:
                return self.event_options(s, *s.pending[0])
            return []
        elif st == "remove_damage":
            allow = self.repair_allowance(s, seat)
            dmg = sorted((u for u in mine if u.damage), key=lambda u: (-u.damage, u.id))
            greedy = []
            for u in dmg:
                greedy += [u.id] * u.damage
            out.append(A("round_repair", player=seat, units=greedy[:allow]))
            for u in dmg:
                out.append(A("round_repair", player=seat, units=[u.id]))
            out.append(A("round_repair", player=seat, units=[]))
            return out
        out.append(A("end_step", player=seat))
        return out

    # =============================================================================================
    # scoring
    # =============================================================================================
    def score(self, s) -> dict:
        """Per player: {'items': {...}, 'total', 'development_points', 'aspect_points'} (REG-S*)."""
        sc = DATA.rules["scoring"]
        out = {}
        for seat in SEATS:
            p = s.players[seat]
            opp_cap = s.board.home[other(seat)]
            ctl = self.controlled_spaces(s, seat)
            dev_pts = sc["development_top_level"] * sum(level_of(t, p.dev[t]) for t in DEV)
            asp_pts = sc["aspect_top_level"] * sum(p.asp[t] for t in ASP)
            villages = sum(1 for u in s.units.values() if u.owner == seat and u.kind == "village")
            cities = sum(1 for u in s.units.values() if u.owner == seat and (
                u.kind == "city" or (sc["capital_counts_as_city"] and u.kind == "capital")))
            res_total = sum(p.res[r] for r in RD["score_resources"])
            items = {
                "development": dev_pts,
                "aspects": asp_pts,
                "spaces": sc["space_controlled"] * len(ctl),
                "adjacent_enemy_capital": sc["space_adjacent_enemy_capital"] * sum(
                    1 for sp in ctl if sp in s.board.adj[opp_cap]),
                "enemy_capital": sc["enemy_capital"] if opp_cap in ctl else 0,
                "settlements": sc["village"] * villages + sc["city"] * cities,
                "resources": res_total // RD["score_resources_per_point"],
            }
            out[seat] = {"items": items, "total": sum(items.values()),
                         "development_points": dev_pts, "aspect_points": asp_pts}
        return out

    def result(self, s) -> dict:
        """Winner by total, then development points, then aspect points; None = shared victory."""
        sc = self.score(s)
        key = {seat: (sc[seat]["total"], sc[seat]["development_points"], sc[seat]["aspect_points"])
               for seat in SEATS}
        if key["p1"] == key["p2"]:
            winner = None
        else:
            winner = "p1" if key["p1"] > key["p2"] else "p2"
        decided_by = "total"
        if key["p1"][0] == key["p2"][0]:
            decided_by = "development" if key["p1"][1] != key["p2"][1] else (
                "aspects" if key["p1"][2] != key["p2"][2] else "tie")
        return {"winner": winner, "decided_by": decided_by, "score": sc, "over": s.over,
                "end_reasons": list(s.end_reasons)}

    # =============================================================================================
    # view for the UI
    # =============================================================================================
    def view(self, s) -> dict:
        """Everything the app shows, as plain data (no engine objects)."""
        players = {}
        for seat in SEATS:
            p = s.players[seat]
            players[seat] = {
                "colour": p.colour,
                "resources": dict(p.res),
                "development": {t: {"position": p.dev[t], "level": level_of(t, p.dev[t]),
                                    "name": DATA.dev[t][p.dev[t]]["name"],
                                    "next_cost": None if p.dev[t] >= TOP_DEV[t] else research_cost(t, p.dev[t])}
                                for t in DEV},
                "aspects": dict(p.asp),
                "bonuses": dict(bonuses(p)),
                "upkeep": self.upkeep(s, seat),
                "dice_in_play": self.dice_count(s, seat),
                "controlled_spaces": self.controlled_spaces(s, seat),
            }
        return {
            "round": s.round, "first_player": s.first, "active": s.active if s.first else None,
            "phase": self.flow.phase(s.step), "step": s.step, "actor": self.actor(s),
            "players": players,
            "units": [u.to_dict() for u in sorted(s.units.values())],
            "combat": dict(s.combat) if s.combat else None,
            "last_battle": s.t.get("last_battle"),
            "events": {seat: {"number": n, "name": self._event(n)["name"]} for seat, n in s.events.items()},
            "pending": [list(x) for x in s.pending],
            "second_player_early": {"enabled": s.early_ok, "step": s.early,
                                    "open": bool(self.early_actions(s))},
            "over": s.over, "end_reasons": list(s.end_reasons),
            "score": self.score(s),
        }

    # =============================================================================================
    # status (python-chess style: explain an impossible position)
    # =============================================================================================
    def status(self, s) -> list:
        probs = []
        b = s.board
        for seat in SEATS:
            p = s.players[seat]
            for r in RES:
                if not 0 <= p.res[r] <= CAP:
                    probs.append(f"{seat}: {r} = {p.res[r]} outside 0..{CAP}")
            for t in DEV:
                if not 0 <= p.dev[t] <= TOP_DEV[t]:
                    probs.append(f"{seat}: {t} position {p.dev[t]} outside the track")
            for t in ASP:
                if not 1 <= p.asp[t] <= 6:
                    probs.append(f"{seat}: {t} level {p.asp[t]} outside 1..6")
            dice = self.dice_count(s, seat)
            if dice > RD["unit_dice"]:
                probs.append(f"{seat}: {dice} unit dice in play (limit {RD['unit_dice']})")
        caps = [u for u in s.units.values() if u.kind == "capital"]
        if sorted(u.space for u in caps) != sorted(b.home.values()):
            probs.append("capitals missing or moved")
        per_space = {}
        for u in s.units.values():
            if u.space not in b.spaces:
                probs.append(f"unit {u.id} on unknown space {u.space}")
                continue
            if u.kind == "ship" and u.space not in b.water:
                probs.append(f"ship {u.id} on land")
            if u.kind != "ship" and u.space in b.water and not u.carrier and not any(
                    q[0] == u.id for q in (s.t.get("disembark") or ())):
                probs.append(f"{u.kind} {u.id} in water without a Ship")
            if u.carrier:
                sh = s.units.get(u.carrier)
                if sh is None or sh.kind != "ship" or sh.space != u.space or sh.owner != u.owner:
                    probs.append(f"unit {u.id} carried by a missing or foreign ship")
            if u.damage >= U[u.kind]["strength"] or u.damage < 0:
                probs.append(f"unit {u.id} has {u.damage} damage (strength {U[u.kind]['strength']})")
            if u.kind in SETTLEMENT:
                per_space[u.space] = per_space.get(u.space, 0) + 1
        for sp, n in per_space.items():
            if n > 1:
                probs.append(f"space {sp} holds {n} settlements")
        for u in s.units.values():
            if u.kind == "ship":
                n = sum(1 for x in s.units.values() if x.carrier == u.id)
                if n > bonuses(s.players[u.owner])["ship_carry"]:
                    probs.append(f"ship {u.id} carries {n} units")
        contested = self.contested_spaces(s) if s.step not in ("combat", "move", "game_over") else []
        if contested:
            probs.append(f"contested spaces outside combat: {contested}")
        return probs
