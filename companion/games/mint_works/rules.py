"""Mint Works rules (pure Python): rounds of Development (place or pass) and Upkeep in its printed
order, 21 plans and 10 locations from data/, and the four solitaire AIs. The AI's turn is its
seat's decision: actor() names it, its one legal action is what its card decides (`app_action`),
and the app plays it as that seat's journaled action. Saves made before that (no
setup["ai_moves"]) replay with the AI played inside `settle`. Rule ids: docs/mint_works-trace.md."""
from __future__ import annotations

import random

from companion.engine import ActionCodec, ActionSchema, Flow, Game, Rejected
from companion.engine.actions import seats_of
from companion.engine.errors import SetupError

from . import ai as AI
from . import scoring
from .data_load import RulesData

MAX_PLAYERS = 4
SYSTEM = "system"
HIDDEN = "?"  # a plan a seat's view does not name (another seat's Lotto plan, the deck's order)


class MWState:
    """The whole game. plans: seat -> [(plan id, built, secret)] oldest first; spaces: location ->
    [None | (seat, mints)]; pending: draws awaited, each ("supply", None) or ("lotto", seat);
    drawn: the plans drawn since the last player decision, each (kind, seat, plan, how many of the
    AI's moves in ai_turn came before it): the table is told every card to lay out, even when the
    AI moved after the draw (events hold the last action's only)."""
    __slots__ = ("step", "phase", "round", "seats", "ai", "deck_mode", "line", "start", "turn", "passed",
                 "mints", "plans", "gallery", "spaces", "owner", "closed", "supply", "deck", "bottom",
                 "pending", "upkeep_stage", "coop_queue", "issued", "removed", "cap", "chance_count",
                 "over", "end_reason", "winner", "ai_turn", "ai_moves", "drawn", "events", "sonic_left",
                 "sonic_had_plans", "solitaire", "seed", "ai_journaled")

    def copy(self):
        s = MWState.__new__(MWState)
        for k in MWState.__slots__:
            setattr(s, k, getattr(self, k))
        s.passed = set(self.passed)
        s.mints = dict(self.mints)
        s.plans = {k: list(v) for k, v in self.plans.items()}
        s.gallery = dict(self.gallery)
        s.spaces = {k: list(v) for k, v in self.spaces.items()}
        s.owner = dict(self.owner)
        s.closed = set(self.closed)
        s.supply = list(self.supply)
        s.deck = list(self.deck)
        s.bottom = list(self.bottom)
        s.pending = list(self.pending)
        s.coop_queue = list(self.coop_queue)
        s.ai_turn = list(self.ai_turn)
        s.drawn = list(self.drawn)
        s.events = []
        return s

    def to_dict(self) -> dict:
        out = {}
        for k in MWState.__slots__:
            v = getattr(self, k)
            if k == "events":
                continue
            if isinstance(v, set):
                v = sorted(v)
            elif isinstance(v, dict):
                v = {a: (list(b) if isinstance(b, (list, tuple)) else b) for a, b in v.items()}
            elif isinstance(v, tuple):
                v = list(v)
            out[k] = v
        return out


_PLACE_KEYS = ("plan", "give", "target", "beneficiary")


def _place_params(a) -> dict:
    """The parameters of a place action's effect (those it carries, in this order)."""
    p = a.params
    return {k: p[k] for k in _PLACE_KEYS if p.get(k) is not None}


class MintWorks(Game):
    name = "mint_works"
    correction_types = frozenset({"set_mints"})

    def __init__(self, data: RulesData | None = None):
        self.data = data or RulesData()
        self.flow = Flow(self.data.flow)
        seat = "seat"
        self.codec = ActionCodec([
            ActionSchema("place", {"player": seat, "location": "str"},
                         {"plan": "str", "give": "str", "target": "str", "beneficiary": seat}),
            ActionSchema("pass", {"player": seat}),
            ActionSchema("draw", {"plan": "str"}, chance=True),
            ActionSchema("reveal", {"player": seat, "plan": "str"}),
            ActionSchema("coop_give", {"player": seat, "beneficiary": seat}),
            ActionSchema("set_mints", {"player": seat, "value": "int"}),
        ], seats=seats_of(MAX_PLAYERS))

    # ------------------------------------------------------------------ set-up (MW-S*)
    def default_setup(self, **over) -> dict:
        setup = {"players": {"p1": {"name": "Ana", "colour": "blue"}, "p2": {"name": "Ben", "colour": "green"}},
                 "deck": "app", "opponent": None, "advanced": [], "seed": 0}
        setup.update(over)
        return setup

    def initial_state(self, setup: dict) -> MWState:
        d = self.data
        players = setup.get("players", {})
        humans = sorted((x for x in players if not players[x].get("ai")), key=lambda x: (len(x), x))
        if not humans or humans != [f"p{i + 1}" for i in range(len(humans))] or len(humans) > MAX_PLAYERS:
            raise SetupError("Mint Works needs players p1..p4 in seat order")
        opponent = setup.get("opponent")
        if opponent is not None and opponent not in d.ais:
            raise SetupError(f"unknown solitaire opponent {opponent!r} (choose {', '.join(d.ais)})")
        if opponent is not None and len(humans) != 1:
            raise SetupError("a solitaire AI plays against one player only")
        if opponent is None and len(humans) < 2:
            raise SetupError("one player plays solitaire: choose an AI opponent")
        deck_mode = setup.get("deck", "app")
        if deck_mode not in ("app", "table"):
            raise SetupError("deck must be 'app' (the app's virtual deck) or 'table' (your own cards)")
        solitaire = opponent is not None
        advanced = setup.get("advanced") or []
        if advanced == "random":  # MW-S2: picked from the game's seed, so a replay is exact
            advanced = seeded_advanced(setup.get("seed", 0), d, solitaire)
        advanced = list(advanced)
        want = d.advanced_in_play["solitaire" if solitaire else "competitive"]
        if advanced and (len(advanced) != want or len(set(advanced)) != want
                         or any(a not in d.advanced for a in advanced)):
            raise SetupError(f"the advanced set-up uses {want} different Advanced location(s) of "
                             f"{', '.join(d.loc_name(a) for a in d.advanced)}")
        s = MWState.__new__(MWState)
        s.solitaire = solitaire
        s.seed = setup.get("seed", 0)
        s.seats = tuple(humans + (["p2"] if solitaire else []))
        s.ai = {"seat": "p2", "id": opponent} if solitaire else None
        s.ai_journaled = setup.get("ai_moves") == "journaled"  # else a save of app 0.1: AI in settle
        s.deck_mode = deck_mode
        s.line = d.line["solitaire" if solitaire else "competitive"] + tuple(advanced)
        n = str(len(s.seats) if not solitaire else 1)
        s.spaces = {loc: [None] * len(d.locations[loc]["spaces"][n]) for loc in s.line}
        s.owner = {loc: None for loc in s.line if d.locations[loc]["kind"] == "deed"}
        s.closed = set()
        s.step, s.phase, s.round = "draw", "development", 1
        s.mints = {seat: 0 for seat in s.seats}
        s.plans = {seat: [] for seat in s.seats}
        s.gallery = {seat: 0 for seat in s.seats}
        s.supply, s.deck, s.bottom = [], sorted(d.plans), []
        size = d.rules["supply_size"]["solitaire" if solitaire else "competitive"]
        s.pending = [("supply", None)] * size  # MW-S4: the Plan Supply is dealt face up
        s.upkeep_stage, s.coop_queue = 0, []
        s.issued, s.removed, s.chance_count = 0, 0, 0
        s.cap = None
        ai = d.ais.get(opponent) if solitaire else None
        if ai and ai.get("mint_supply"):
            s.cap = ai["mint_supply"]  # MW-AI-R1: Rachael's Mint Supply is limited
        s.over, s.end_reason, s.winner = False, None, None
        s.ai_turn, s.ai_moves, s.drawn, s.events = [], 0, [], []
        s.sonic_left, s.sonic_had_plans = 0, False
        s.passed = set()
        for seat in humans:
            self._receive(s, seat, d.rules["starting_mints"])
        if ai:
            if ai["starting_mints"] is not None:
                self._receive(s, "p2", ai["starting_mints"])
        s.start = "p2" if ai and ai.get("starts_first") else "p1"  # MW-S7 / MW-AI-J1
        s.turn = s.start
        self._begin_turn(s, s.start)
        self.settle(s)
        return s

    # ------------------------------------------------------------------ helpers
    def is_ai(self, s, seat) -> bool:
        return s.ai is not None and seat == s.ai["seat"]

    def ai_card(self, s) -> dict | None:
        return self.data.ais[s.ai["id"]] if s.ai else None

    def _special(self, s) -> str | None:
        return self.ai_card(s)["special"] if s.ai else None

    def tycoon(self, s, seat) -> bool:
        """Mort: unlimited Mints, placed straight from the supply (MW-AI-M1)."""
        return self.is_ai(s, seat) and self._special(s) == "tycoon"

    def supply_left(self, s):
        return None if s.cap is None else s.cap - s.issued

    def _receive(self, s, seat, n) -> int:
        """seat gains up to n Mints from the Mint Supply (fewer if a limited supply runs out)."""
        if n <= 0 or self.tycoon(s, seat):
            return 0
        left = self.supply_left(s)
        got = n if left is None else min(n, left)
        s.issued += got
        s.mints[seat] += got
        self._supply_check(s)
        return got

    def _supply_check(self, s):
        """MW-AI-R3: Rachael wins at once when the limited Mint Supply is empty."""
        if s.cap is not None and s.issued >= s.cap and not s.over:
            self._end(s, "supply_empty", winner=s.ai["seat"])

    def _end(self, s, reason, winner=None):
        s.over, s.end_reason, s.step = True, reason, "over"
        s.winner = winner
        s.pending, s.coop_queue = [], []

    def has_ability(self, s, seat, ability) -> bool:
        return any(b and self.data.plans[p].get("ability") == ability for p, b, _ in s.plans[seat])

    def plan_of(self, s, seat, pid):
        return next((i for i, (p, _, _) in enumerate(s.plans[seat]) if p == pid), None)

    def deck_size(self, s) -> int:
        return len(s.deck) + len(s.bottom)

    def draw_candidates(self, s) -> list:
        """Plans that may come off the top of the deck: any of the shuffled part, else the next
        plan put at the bottom (MW-D2)."""
        if s.deck:
            return list(s.deck)
        return s.bottom[:1]

    def stars(self, s, seat) -> int:
        return scoring.stars(self.data, s.plans[seat], s.gallery[seat])

    def free_space(self, s, loc):
        sp = s.spaces.get(loc)
        if sp is None or None not in sp:  # a space holds None or (seat, mints)
            return None
        return sp.index(None)

    def is_open(self, s, loc) -> bool:
        if loc in s.owner and s.owner[loc] is None:
            return False
        return loc not in s.closed

    # ------------------------------------------------------------------ costs
    def base_cost(self, s, loc):
        n = "1" if s.solitaire else str(len(s.seats))
        sp = s.spaces[loc]
        costs = self.data.locations[loc]["spaces"][n]
        i = self.free_space(s, loc)
        return costs[len(sp) - 1 if i is None else i]  # the first free space's

    def supplier_cost(self, s, seat, pid) -> int:
        v = self.data.values
        c = self.data.plans[pid]["cost"]
        if self.has_ability(s, seat, "supplier_discount"):
            c = max(v["supplier_minimum"], c - v["supplier_discount"])
        return c

    def builder_cost(self, s, seat, base) -> int:
        v = self.data.values
        if self.has_ability(s, seat, "builder_discount"):
            return max(v["builder_minimum"], base - v["builder_discount"])
        return base

    def effect_cost(self, s, seat, loc, params, base=None) -> int:
        """Mints the effect of `loc` asks of `seat` (MW-L*): the Supplier the Plan's cost, the
        Builder 2, the Temp Agency 1 + the copied location's cost."""
        eff = self.data.locations[loc]["effect"]
        if base is None:
            base = self.base_cost(s, loc)
        if eff == "buy":
            return self.supplier_cost(s, seat, params["plan"]) if params.get("plan") in self.data.plans else 0
        if eff == "build":
            return self.builder_cost(s, seat, base)
        if eff == "temp":
            target = params.get("target")
            if target not in s.spaces or target == loc:
                return base
            return base + self.effect_cost(s, seat, target, params, base=self._occupied_cost(s, target))
        return base

    def _occupied_cost(self, s, loc):
        n = str(len(s.seats) if not s.solitaire else 1)
        costs = self.data.locations[loc]["spaces"][n]
        i = next((i for i, o in enumerate(s.spaces[loc]) if o is not None), 0)
        return costs[i] if costs[i] is not None else 0

    # ------------------------------------------------------------------ placement problems
    def place_problem(self, s, seat, loc, params):
        """(rule, plain message) why `seat` may not place on `loc` with `params`, or None."""
        d = self.data
        if loc not in s.spaces:
            return ("place.location", f"{d.loc_name(loc)} is not in this game's location line")
        if loc in s.owner and s.owner[loc] is None:
            return ("place.closed", f"{d.loc_name(loc)} is closed until someone builds its Deed plan")
        if loc in s.closed:
            return ("place.closed", f"{d.loc_name(loc)} was used by Justin and is closed until the "
                                    "next Development phase")
        if self.free_space(s, loc) is None:
            return ("place.occupied", f"every Mint Placement Space of {d.loc_name(loc)} is occupied")
        prob = self.effect_problem(s, seat, loc, params)
        if prob:
            return prob
        cost = self.effect_cost(s, seat, loc, params)
        if not self.tycoon(s, seat) and s.mints[seat] < cost:
            return ("mints.negative", f"{d.loc_name(loc)} needs {cost} Mint{'s' if cost != 1 else ''}; "
                                      f"only {s.mints[seat]} in hand (a Mint count cannot go below 0)")
        return None

    def effect_problem(self, s, seat, loc, params):
        d = self.data
        eff = d.locations[loc]["effect"]
        plan, give = params.get("plan"), params.get("give")
        if eff == "buy":
            if plan not in s.supply:
                return ("supplier.supply", f"{d.plan_name(plan)} is not in the Plan Supply "
                                           f"({', '.join(d.plan_name(p) for p in s.supply) or 'empty'})")
        elif eff == "build":
            unbuilt = [p for p, b, _ in s.plans[seat] if not b]
            if not unbuilt:
                return ("builder.unbuilt", "you have no unbuilt Plan to build")
            if plan not in unbuilt:
                return ("builder.unbuilt", f"{d.plan_name(plan)} is not an unbuilt Plan of yours")
        elif eff == "lotto":
            if self.deck_size(s) == 0:
                return ("lotto.deck", "the Plan Deck is empty")
        elif eff == "swap":
            if plan not in s.supply:
                return ("swap.supply", f"{d.plan_name(plan)} is not in the Plan Supply")
            if give not in [p for p, _, _ in s.plans[seat]]:
                return ("swap.give", "name a Plan of your neighbourhood to put into the Plan Supply")
        elif eff == "recycle":
            if plan not in [p for p, _, _ in s.plans[seat]]:
                return ("recycle.plan", f"{d.plan_name(plan)} is not in your neighbourhood")
        elif eff == "crowdfund":
            b = params.get("beneficiary", seat)
            if b not in s.seats:
                return ("crowdfund.player", f"{b} is not playing")
        elif eff == "temp":
            target = params.get("target")
            if target not in s.spaces or target == loc:
                return ("temp.target", "name another location of the line to copy")
            if all(o is None for o in s.spaces[target]):
                return ("temp.target", f"{d.loc_name(target)} has no occupied space to copy")
            if not self.is_open(s, target):
                return ("temp.target", f"{d.loc_name(target)} is closed")
            return self.effect_problem(s, seat, target, params)
        return None

    # ------------------------------------------------------------------ actor / legal actions
    def app_seats(self, s) -> tuple:
        """The seat the app plays (the solitaire AI), when its moves are journaled as its own."""
        return (s.ai["seat"],) if s.ai is not None and s.ai_journaled else ()

    def app_action(self, s, seat):
        """The AI's move now, as its card decides (MW-AI1..AI5): its seat's one legal action."""
        choice = AI.decide(self, s)
        if choice is None:
            return self.codec.fast("pass", player=seat)
        loc, params = choice
        return self.codec.fast("place", player=seat, location=loc, **params)

    def actor(self, s):
        if s.over:
            return None
        if s.step == "draw":
            return SYSTEM if s.deck_mode == "app" else self.reveal_seat(s)
        if s.step == "coop":
            return s.coop_queue[0]
        return s.turn

    def reveal_seat(self, s) -> str:
        """Who draws a physical plan: the Lotto user, else the Start Player (a human seat)."""
        kind, seat = s.pending[0]
        who = seat if kind == "lotto" else s.start
        return "p1" if who is None or self.is_ai(s, who) else who

    def is_over(self, s) -> bool:
        return s.over

    def chance_action(self, s, dice):
        if s.over or s.step != "draw" or s.deck_mode != "app":
            return None
        cands = self.draw_candidates(s)
        if not cands:
            return None
        # MW-R1: the app's deck is shuffled by the game's seed; draw k is a function of (seed, k)
        # only, like SeededDice, so a resumed game draws what it would have drawn; no dice are thrown
        pick = random.Random(f"mint_works:{s.seed}:{s.chance_count}").randrange(len(cands))
        return self.codec.fast("draw", plan=cands[pick])

    def pseudo_legal_actions(self, s) -> list:
        f = self.codec.fast
        if s.over:
            return []
        if s.step == "draw":
            if s.deck_mode == "app":
                return [f("draw", plan=p) for p in self.draw_candidates(s)]
            who = self.reveal_seat(s)
            return [f("reveal", player=who, plan=p) for p in self.draw_candidates(s)]
        if s.step == "coop":
            seat = s.coop_queue[0]
            return [f("coop_give", player=seat, beneficiary=b) for b in s.seats if b != seat]
        seat = s.turn
        if seat in self.app_seats(s):
            return [self.app_action(s, seat)]
        out = []
        for loc in s.line:
            for params in self.place_options(s, seat, loc):
                out.append(f("place", player=seat, location=loc, **params))
        out.append(f("pass", player=seat))
        return out

    def place_options(self, s, seat, loc, depth=0) -> list:
        """Candidate parameter sets of a placement on `loc` (checked by the caller)."""
        eff = self.data.locations[loc]["effect"]
        mine = [p for p, _, _ in s.plans[seat]]
        if eff == "buy":
            return [{"plan": p} for p in s.supply]
        if eff == "build":
            return [{"plan": p} for p, b, _ in s.plans[seat] if not b]
        if eff == "swap":
            return [{"plan": p, "give": g} for p in s.supply for g in mine]
        if eff == "recycle":
            return [{"plan": p} for p in mine]
        if eff == "crowdfund":
            return [{"beneficiary": b} for b in s.seats]
        if eff == "temp":
            if depth:
                return []
            out = []
            for t in s.line:
                if t != loc:
                    out += [{"target": t, **p} for p in self.place_options(s, seat, t, depth + 1)]
            return out
        return [{}]

    # ------------------------------------------------------------------ checks
    def check_place(self, s, a):
        params = _place_params(a)
        prob = self.place_problem(s, a["player"], a["location"], params)
        if prob:
            raise Rejected(*prob)
        self._check_ai_move(s, a)

    def check_pass(self, s, a):
        self._check_ai_move(s, a)

    def _check_ai_move(self, s, a):
        """The AI's card decides its move; the seat takes no other (MW-AI1)."""
        if a["player"] in self.app_seats(s) and a != self.app_action(s, a["player"]):
            choice = AI.decide(self, s)
            raise Rejected("ai.card", "the AI's card decides its move: " + AI.explain(self, s, choice))

    def _told(self, s, a, choice):
        """The AI's moves since the last human decision, in words for the table (a human
        decision starts them afresh, with the plans drawn since)."""
        if self.is_ai(s, a["player"]):
            s.ai_turn.append(AI.explain(self, s, choice))
            s.ai_moves += 1
        else:
            s.ai_turn, s.drawn = [], []

    def check_draw(self, s, a):
        self._check_drawn(s, a["plan"])

    def check_reveal(self, s, a):
        if s.deck_mode != "table":
            raise Rejected("draw.mode", "the app keeps the Plan Deck in this game: use the draw button")
        self._check_drawn(s, a["plan"])

    def _check_drawn(self, s, pid):
        cands = self.draw_candidates(s)
        if pid not in cands:
            where = "is not a Plan" if pid not in self.data.plans else "is not in the Plan Deck any more"
            if pid in self.data.plans and not s.deck and s.bottom:
                where = f"is not the top card: the deck's top card is {self.data.plan_name(s.bottom[0])}"
            raise Rejected("draw.deck", f"{self.data.plan_name(pid)} {where}")

    def check_coop_give(self, s, a):
        if a["beneficiary"] == a["player"] or a["beneficiary"] not in s.seats:
            raise Rejected("plan.co_op", "Co-Op: choose another player who is playing")

    def check_set_mints(self, s, a):
        if a["player"] not in s.seats or self.tycoon(s, a["player"]):
            raise Rejected("table.mints", f"{a['player']} has no Mint count to correct")
        if a["value"] < 0:
            raise Rejected("mints.negative", "a Mint count cannot go below 0")
        left = self.supply_left(s)
        if left is not None and a["value"] - s.mints[a["player"]] > left:
            raise Rejected("table.mints", f"the Mint Supply holds only {left} Mints")

    # ------------------------------------------------------------------ effects
    def do_place(self, s, a):
        params = _place_params(a)
        self._told(s, a, (a["location"], params))
        self.place(s, a["player"], a["location"], params)
        self._end_turn(s, a["player"], placed=True)

    def do_pass(self, s, a):
        self._told(s, a, None)
        s.events.append(("pass", a["player"]))
        self._end_turn(s, a["player"], placed=False)

    def do_draw(self, s, a):
        s.chance_count += 1
        self._drawn(s, a["plan"])

    def do_reveal(self, s, a):
        self._drawn(s, a["plan"])

    def do_coop_give(self, s, a):
        s.ai_turn, s.drawn = [], []
        s.coop_queue.pop(0)
        self._receive(s, a["beneficiary"], 1)
        s.events.append(("coop", a["player"], a["beneficiary"]))

    def do_set_mints(self, s, a):
        seat = a["player"]
        s.issued += a["value"] - s.mints[seat]
        s.mints[seat] = a["value"]
        self._supply_check(s)

    def place(self, s, seat, loc, params):
        """Pay and occupy the first free space of `loc`, then resolve its effect (MW-G1)."""
        cost = self.effect_cost(s, seat, loc, params)
        if self.tycoon(s, seat):
            s.issued += cost  # Mort places Mints straight from the supply
        else:
            s.mints[seat] -= cost
        s.spaces[loc][self.free_space(s, loc)] = (seat, cost)
        s.events.append(("place", seat, loc, dict(params), cost))
        if self.is_ai(s, seat) and self._special(s) == "closes_used":
            s.closed.add(loc)  # MW-AI-J2
        self.effect(s, seat, loc, params)

    def effect(self, s, seat, loc, params):
        d = self.data
        L = d.locations[loc]
        eff = L["effect"]
        if eff == "gain":
            self._receive(s, seat, L["gain"])
        elif eff == "lead":
            self._receive(s, seat, L["gain"])
            s.start = seat
        elif eff == "buy":
            pid = params["plan"]
            i = s.supply.index(pid)
            s.supply.pop(i)
            built = self.has_ability(s, seat, "assembler")  # MW-P15: built at once
            self._gain_plan(s, seat, pid, built=built)
            if s.solitaire:
                s.pending.append(("supply", None))  # MW-SR1: replaced from the deck
        elif eff == "build":
            self._build(s, seat, params["plan"])
        elif eff == "lotto":
            s.pending.append(("lotto", seat))
        elif eff == "swap":
            pid, give = params["plan"], params["give"]
            i = s.supply.index(pid)
            self._lose_plan(s, seat, give)
            s.supply[i] = give  # replaced immediately: no solitaire replacement (MW-SR1)
            self._gain_plan(s, seat, pid, built=False)
        elif eff == "recycle":
            pid = params["plan"]
            self._lose_plan(s, seat, pid)
            s.bottom.append(pid)
            p = d.plans[pid]
            self._receive(s, seat, p["cost"] + p["stars"])
        elif eff == "crowdfund":
            self._receive(s, seat, L["gain"])
            self._receive(s, params.get("beneficiary", seat), L["gift"])
        elif eff == "temp":
            self.effect(s, seat, params["target"], params)

    def _gain_plan(self, s, seat, pid, built, secret=False):
        s.plans[seat].append((pid, built, secret))
        if built:
            self._opened(s, seat, pid)

    def _build(self, s, seat, pid):
        i = self.plan_of(s, seat, pid)
        s.plans[seat][i] = (pid, True, False)
        self._opened(s, seat, pid)

    def _opened(self, s, seat, pid):
        deed = self.data.plans[pid].get("deed")
        if deed in s.owner:
            s.owner[deed] = seat  # MW-L5: the Deed location opens, owned by its builder

    def _lose_plan(self, s, seat, pid):
        i = self.plan_of(s, seat, pid)
        _, built, _ = s.plans[seat].pop(i)
        deed = self.data.plans[pid].get("deed")
        if built and deed in s.owner and s.owner[deed] == seat:
            s.owner[deed] = None  # MW-R9: a Deed that leaves the neighbourhood closes its location
        if pid == "gallery" or self.data.plans[pid].get("star_rule") == "gallery":
            s.issued -= s.gallery[seat]
            s.gallery[seat] = 0

    def _drawn(self, s, pid):
        if pid in s.deck:
            s.deck.remove(pid)
        else:
            s.bottom.pop(0)
        kind, seat = s.pending.pop(0)
        if kind == "lotto":
            self._gain_plan(s, seat, pid, built=False, secret=True)
        else:
            s.supply.append(pid)
        s.events.append(("drawn", kind, seat, pid))
        s.drawn.append((kind, seat, pid, len(s.ai_turn)))

    # ------------------------------------------------------------------ turns (MW-G*)
    def _end_turn(self, s, seat, placed):
        if placed:
            s.passed = set()
        else:
            s.passed.add(seat)
        if s.passed.issuperset(s.seats):
            s.phase, s.upkeep_stage = "upkeep", 0  # MW-G3: all passed in a row
            return
        if self.is_ai(s, seat) and s.sonic_left > 0:
            s.sonic_left -= 1  # MW-AI-S1: Sonic's second turn in a row
            s.sonic_had_plans = self._has_unbuilt(s, seat)  # MW-R11: checked at the start of each turn
            return
        i = s.seats.index(seat)
        self._begin_turn(s, s.seats[(i + 1) % len(s.seats)])

    def _begin_turn(self, s, seat):
        s.turn = seat
        if self.is_ai(s, seat) and self._special(s) == "double_turn":
            s.sonic_left = 1
            s.sonic_had_plans = self._has_unbuilt(s, seat)

    @staticmethod
    def _has_unbuilt(s, seat):
        return any(not b for _, b, _ in s.plans[seat])

    def settle(self, s) -> None:
        for _ in range(10000):
            if s.over:
                s.step = "over"
                return
            if s.pending:
                if not self.draw_candidates(s):
                    s.pending.pop(0)  # nothing left to draw: the slot stays empty
                    continue
                s.step = "draw"
                return
            if s.coop_queue:
                seat = s.coop_queue[0]
                others = [x for x in s.seats if x != seat]
                if len(others) == 1 or self.is_ai(s, seat):
                    s.coop_queue.pop(0)
                    b = others[0]
                    self._receive(s, b, 1)
                    s.events.append(("coop", seat, b))
                    continue
                s.step = "coop"
                return
            if s.phase == "development":
                if self.is_ai(s, s.turn) and not s.ai_journaled:
                    self.ai_play(s)  # a save of app 0.1: the AI's moves were not journaled
                    continue
                s.step = "turn"
                return
            self.upkeep(s)
        raise RuntimeError("mint_works: settle did not reach a decision")  # pragma: no cover

    # ------------------------------------------------------------------ the AI (MW-AI*)
    def ai_play(self, s):
        """The AI's turn played inside `settle` (saves of app 0.1 only; see app_action)."""
        seat = s.turn
        choice = AI.decide(self, s)
        if choice is None:
            s.ai_turn.append(AI.explain(self, s, None))
            s.ai_moves += 1
            s.events.append(("pass", seat))
            self._end_turn(s, seat, placed=False)
            return
        loc, params = choice
        prob = self.place_problem(s, seat, loc, params)
        if prob:  # pragma: no cover - the AI only names usable spaces
            raise RuntimeError(f"AI chose an illegal placement: {prob}")
        s.ai_turn.append(AI.explain(self, s, choice))
        s.ai_moves += 1
        self.place(s, seat, loc, params)
        self._end_turn(s, seat, placed=True)

    # ------------------------------------------------------------------ upkeep (MW-U1..U6)
    def upkeep(self, s):
        d = self.data
        st = s.upkeep_stage
        s.upkeep_stage += 1
        if st == 0:
            best = {seat: self.stars(s, seat) for seat in s.seats}
            if max(best.values()) >= d.rules["end_stars"]:
                self._end(s, "seven_stars")  # MW-U1
        elif st == 1:
            size = d.rules["supply_size"]["solitaire" if s.solitaire else "competitive"]
            need = size - len(s.supply)
            if need > self.deck_size(s):
                self._end(s, "supply_not_refilled")  # MW-U2
            else:
                s.pending += [("supply", None)] * need
        elif st == 2:
            self._upkeep_effects(s)  # MW-U3
        elif st == 3:
            if s.solitaire and all(o is None for o in s.spaces["supplier"]):
                s.bottom += s.supply  # MW-SR2: an unused Supplier refreshes the Plan Supply
                n = len(s.supply)
                s.supply = []
                s.pending += [("supply", None)] * n
        elif st == 4:
            self._return_mints(s)  # MW-U4
        else:
            for seat in s.seats:
                if not self.tycoon(s, seat):
                    self._receive(s, seat, d.rules["income"])  # MW-U5
            if s.over:
                return
            s.round += 1
            s.phase, s.passed, s.closed = "development", set(), set()
            s.events.append(("round", s.round))
            self._begin_turn(s, s.start)

    def _upkeep_effects(self, s):
        d = self.data
        order = self._from_start(s)
        for seat in order:
            # MW-AI-M2: Mort's own Upkeep income is ignored; what a plan puts on a card (Gallery)
            # or gives another player (Co-Op) is not his income (MW-R15)
            tycoon = self.tycoon(s, seat)
            built = scoring.built_ids(s.plans[seat])
            for pid in built:
                p = d.plans[pid]
                gain = p.get("upkeep", 0)
                rule = p.get("upkeep_rule")
                if rule == "corporate_hq":
                    gain = scoring.building_count(d, built)
                if gain and not tycoon:
                    self._receive(s, seat, gain)
                if rule == "gallery":
                    left = self.supply_left(s)
                    if left is None or left > 0:
                        s.issued += 1
                        s.gallery[seat] += 1
                        self._supply_check(s)
                if rule == "co_op":
                    s.coop_queue.append(seat)
        for loc, owner in s.owner.items():
            if owner is None:
                continue
            take = d.locations[loc].get("upkeep_owner")
            for i, occ in enumerate(s.spaces[loc]):
                if occ is None:
                    continue
                who, n = occ
                got = n if take == "all" else min(n, take)
                if self.tycoon(s, owner):
                    continue
                s.mints[owner] += got
                s.spaces[loc][i] = (who, n - got)
                s.events.append(("deed", owner, loc, got))

    def _return_mints(self, s):
        keeper = s.ai is not None and self._special(s) == "keeper"
        for loc, spaces in s.spaces.items():
            for i, occ in enumerate(spaces):
                if occ is None:
                    continue
                who, n = occ
                if keeper and loc == "supplier" and who == s.ai["seat"]:
                    s.removed += n  # MW-AI-R2: they leave the game
                else:
                    s.issued -= n
                spaces[i] = None

    def _from_start(self, s):
        i = s.seats.index(s.start)
        return list(s.seats[i:] + s.seats[:i])

    # ------------------------------------------------------------------ scoring (MW-E*)
    def score(self, s) -> dict:
        """seat -> total stars and their breakdown by plan type (the same items for every seat,
        as the shell's score table wants); `star_items` gives them plan by plan."""
        out = {}
        for seat in s.seats:
            items = {t.title(): 0 for t in self.data.types}
            stars = self.plan_items(s, seat)
            for pid, built, _ in s.plans[seat]:
                if built:
                    items[self.data.plans[pid]["type"].title()] += stars[self.data.plan_name(pid)]
            out[seat] = {"total": sum(items.values()), "items": items}
        return out

    def plan_items(self, s, seat) -> dict:
        """{plan name: stars} of every built plan of `seat`."""
        return scoring.star_items(self.data, s.plans[seat], s.gallery[seat])

    def result(self, s) -> dict:
        """Most stars; then the smallest neighbourhood; then the most Mints; else all win (MW-E2)."""
        reasons = [s.end_reason] if s.end_reason else []
        if s.winner is not None:
            return {"winner": s.winner, "decided_by": "supply_empty", "end_reasons": reasons, "tied": []}
        rank = self.ranking(s)
        top, by = list(s.seats), "shared"
        for k, name in enumerate(("stars", "smallest_neighbourhood", "most_mints")):
            best = max(rank[x][k] for x in top)
            top = [x for x in top if rank[x][k] == best]
            if len(top) == 1:
                by = name
                break
        return {"winner": top[0] if len(top) == 1 else None, "decided_by": by, "end_reasons": reasons,
                "tied": top if len(top) > 1 else []}

    def ranking(self, s) -> dict:
        inf = float("inf")
        return {seat: (self.stars(s, seat), -scoring.neighbourhood_size(self.data, s.plans[seat]),
                       inf if self.tycoon(s, seat) else s.mints[seat]) for seat in s.seats}

    def view(self, s) -> dict:
        return {"step": s.step, "actor": self.actor(s), "state": s.to_dict()}

    def status(self, s) -> list:
        probs = []
        held = sum(s.mints.values()) + sum(n for sp in s.spaces.values() for o in sp if o for n in [o[1]])
        held += sum(s.gallery.values()) + s.removed
        if held != s.issued:
            probs.append(f"Mints out of the supply {s.issued} != held {held}")
        if any(v < 0 for v in s.mints.values()):
            probs.append("a Mint count below 0")
        cards = list(s.supply) + list(s.deck) + list(s.bottom) + [p for ps in s.plans.values() for p, _, _ in ps]
        if sorted(cards) != sorted(self.data.plans):
            probs.append("the 21 plans are not all accounted for")
        return probs


def seeded_advanced(seed, data, solitaire) -> list:
    """Advanced locations picked at random for the advanced set-up, from the game's seed."""
    n = data.advanced_in_play["solitaire" if solitaire else "competitive"]
    return sorted(random.Random(f"advanced:{seed}").sample(list(data.advanced), n))
