"""What the economy step panels show, asked of the engine. No Kivy here, and no rules.

Every number comes from the engine: the legal actions, `ctrl.check`, the engine's public queries
(upkeep, bonuses, view), or the difference between the state now and the state the engine returns
for a candidate action (`outcome`). Every action offered is one of `ctrl.legal_actions()` or was
accepted by `ctrl.check`. The panels (economy_panels.py) only lay these values out.
"""
from __future__ import annotations

from companion.engine.errors import Rejected

from ..help import step_help  # noqa: F401  (the economy panels show it too)
from ..labels import dev_space

SEATS = ("p1", "p2")


# ------------------------------------------------------------------------------------ engine asks
def seat_to_act(ctrl) -> str | None:
    who = ctrl.game.actor(ctrl.state)
    return who if who in SEATS else None


def refusal(ctrl, action: dict, state=None) -> tuple[str, str] | None:
    """(rule id, message) when the engine refuses `action` in `state` (default: now), else None."""
    state = ctrl.state if state is None else state
    try:
        ctrl.game.check(state, ctrl.game.action_from_dict(action))
    except Rejected as exc:
        return exc.rule, exc.message
    return None


def after(ctrl, action: dict, state=None):
    """The state the engine makes of `action` (nothing is dispatched), or None when refused."""
    state = ctrl.state if state is None else state
    try:
        return ctrl.game.apply(state, action)
    except Rejected:
        return None


def _resources(state, seat) -> dict:
    return dict(state.players[seat].res)


def res_diff(old: dict, new: dict) -> dict:
    return {r: new[r] - old[r] for r in new if new[r] != old.get(r)}


def outcome(ctrl, action: dict, state=None) -> dict | None:
    """{seat: {resource: change}} if `action` were applied now; None when the engine refuses it."""
    state = ctrl.state if state is None else state
    new = after(ctrl, action, state)
    if new is None:
        return None
    return {seat: res_diff(_resources(state, seat), _resources(new, seat)) for seat in SEATS}


def resource_order(ctrl) -> list[str]:
    return list(_resources(ctrl.state, "p1"))


def of_type(actions, *types) -> list[dict]:
    return [a for a in actions if a["type"] in types]


def unit(ctrl, uid):
    return ctrl.state.units.get(int(uid))


# ------------------------------------------------------------------------------------ production
def production(ctrl, picks: dict | None = None) -> dict | None:
    """The Production step for the seat to act, with `picks` {unit id: resource} (invalid ones are
    replaced by the engine's defaults). None when no produce action is open.

    Returns {"seat", "picks", "action", "total", "units": [{"unit", "space", "space_res",
    "options", "pick", "yield"}]}: `options` are the resources the engine accepts for a Settler
    with a choice ([] for other units), `yield` that unit's share, `total` the exact change of the
    player's resources (caps included) if the produce action were applied."""
    seat = seat_to_act(ctrl)
    legal = of_type(ctrl.legal_actions(), "produce")
    if seat is None or not legal:
        return None
    default = {int(k): r for k, r in (legal[0].get("picks") or {}).items()}  # engine's first combo
    chosen = dict(default)
    for uid, r in (picks or {}).items():
        uid = int(uid)
        if uid in chosen and refusal(ctrl, _produce(seat, {**chosen, uid: r})) is None:
            chosen[uid] = r
    action = _produce(seat, chosen)
    out = outcome(ctrl, action)
    if out is None:  # the picks of the first legal action are always accepted; stay safe
        chosen, action = default, legal[0]
        out = outcome(ctrl, action)
    board = ctrl.state.board
    rows = []
    for u in sorted(ctrl.game.units_of(ctrl.state, seat), key=lambda u: u.id):
        space_res = list(board.spaces[u.space].res)
        options = []
        if u.id in chosen:
            options = [r for r in space_res
                       if refusal(ctrl, _produce(seat, {**chosen, u.id: r})) is None]
        rows.append({"unit": u, "space": u.space, "space_res": space_res, "options": options,
                     "pick": chosen.get(u.id), "yield": unit_yield(ctrl, seat, u.id, chosen.get(u.id))})
    return {"seat": seat, "picks": chosen, "action": action, "total": out[seat], "units": rows}


def _produce(seat, picks: dict) -> dict:
    return {"type": "produce", "player": seat, "picks": {str(k): r for k, r in sorted(picks.items())}}


def unit_yield(ctrl, seat, uid, pick=None) -> dict:
    """What unit `uid` alone collects in this Production (its pick applied).

    The engine has no per-unit query, so this asks it to produce in a copy of the state that keeps
    only this unit of the player (with any units it carries, and the opponent's units) and starts
    the player's resources at 0; the difference is the unit's share. Uses the engine's
    `production_yields(state, seat, picks)` instead when it has one."""
    q = getattr(ctrl.game, "production_yields", None)
    if q is not None:
        return dict(q(ctrl.state, seat, {int(uid): pick} if pick else {}).get(int(uid), {}))
    s = ctrl.state.copy()
    s.units = {k: u for k, u in s.units.items() if u.owner != seat or k == uid or u.carrier == uid}
    res = s.players[seat].res
    for r in res:
        res[r] = 0
    new = after(ctrl, _produce(seat, {uid: pick} if pick else {}), s)
    if new is None:
        return {}
    return {r: n for r, n in new.players[seat].res.items() if n}


# ------------------------------------------------------------------------------------ trade
def trade(ctrl) -> dict | None:
    """The Trade step. Returns {"seat", "rate", "pairs": legal (give, get) pairs, "gives", "gets":
    the resources the engine trades at all (in card order), "offer_open", "answers": legal
    accept/decline actions, "offer_outcome": resource changes per seat if accepted,
    "opponent": {"enabled", "reason", "resources"} for the offer form}."""
    seat = seat_to_act(ctrl)
    if seat is None or ctrl.state.step != "trade":
        return None
    legal = ctrl.legal_actions()
    answers = of_type(legal, "accept_trade", "decline_trade")
    order = resource_order(ctrl)
    info = {"seat": seat, "offer_open": bool(answers), "answers": answers,
            "rate": ctrl.game.bonuses(ctrl.state, seat).get("trade_rate"),
            "pairs": [(a["give"], a["get"]) for a in of_type(legal, "trade")]}
    if answers:
        acc = [a for a in answers if a["type"] == "accept_trade"]
        info["offer_outcome"] = outcome(ctrl, acc[0]) if acc else None
        info["offerer"] = ctrl.state.active
        return info
    gives, gets = set(), set()
    for g in order:
        for h in order:
            if g == h:
                continue
            why = refusal(ctrl, {"type": "trade", "player": seat, "give": g, "get": h})
            if why is None or why[0] == "trade.rate":  # a valid pair that only lacks the amount
                gives.add(g)
                gets.add(h)
    info["gives"] = [r for r in order if r in gives]
    info["gets"] = [r for r in order if r in gets]
    info["opponent"] = opponent_form(ctrl, seat, order)
    return info


def trade_action(seat, give, get) -> dict:
    return {"type": "trade", "player": seat, "give": give, "get": get}


def offer_action(seat, give: dict, get: dict) -> dict:
    return {"type": "trade_opponent", "player": seat,
            "give": {r: n for r, n in give.items() if n}, "get": {r: n for r, n in get.items() if n}}


def opponent_form(ctrl, seat, order) -> dict:
    """Which resources an offer to the opponent may name, asked of the engine."""
    if not ctrl.game.bonuses(ctrl.state, seat).get("trade_opponent"):
        why = refusal(ctrl, offer_action(seat, {order[0]: 1}, {order[1]: 1}))
        return {"enabled": False, "reason": why[1] if why else "", "resources": []}
    ok = set()
    for g in order:
        for h in order:
            if g != h:
                why = refusal(ctrl, offer_action(seat, {g: 1}, {h: 1}))
                if why is None or why[0] != "trade.resource":
                    ok.update((g, h))
    return {"enabled": True, "reason": "", "resources": [r for r in order if r in ok]}


# ------------------------------------------------------------------------------------ upkeep
def upkeep(ctrl) -> dict | None:
    """The Upkeep step. status: 'payable' | 'unpayable' | 'paid' | 'other' (with the engine's
    message). Each downgrade/disband option carries its resource change and whether the upkeep
    is payable after it; each repair its cost."""
    seat = seat_to_act(ctrl)
    if seat is None or ctrl.state.step != "upkeep":
        return None
    legal = ctrl.legal_actions()
    pay = {"type": "pay_upkeep", "player": seat}
    why = refusal(ctrl, pay)
    status = "payable" if why is None else {"upkeep.paid": "paid", "upkeep.unaffordable": "unpayable"}.get(why[0], "other")
    info = {"seat": seat, "pay": pay, "status": status, "reason": why[1] if why else "",
            "need": ctrl.game.upkeep(ctrl.state, seat), "have": _resources(ctrl.state, seat),
            "pay_outcome": (outcome(ctrl, pay) or {}).get(seat, {}) if why is None else {},
            "end": of_type(legal, "end_step")}
    cuts = []
    for a in of_type(legal, "downgrade", "disband"):
        new = after(ctrl, a)
        cuts.append({"action": a, "unit": unit(ctrl, a["unit"]),
                     "change": res_diff(_resources(ctrl.state, seat), _resources(new, seat)),
                     "need_after": ctrl.game.upkeep(new, seat),
                     "payable_after": refusal(ctrl, pay, new) is None})
    info["cuts"] = cuts
    info["repairs"] = repairs(ctrl, legal, seat)
    return info


def repairs(ctrl, legal, seat) -> list[dict]:
    out = []
    for a in of_type(legal, "repair"):
        o = outcome(ctrl, a) or {}
        out.append({"action": a, "unit": unit(ctrl, a["unit"]), "change": o.get(seat, {})})
    return out


# ------------------------------------------------------------------------------------ build
def build(ctrl) -> dict | None:
    """Legal builds and upgrades grouped by the kind they make, each with its exact payment."""
    seat = seat_to_act(ctrl)
    if seat is None or ctrl.state.step != "build":
        return None
    legal = ctrl.legal_actions()
    groups: dict[str, list] = {}
    for a in of_type(legal, "build", "upgrade"):
        o = outcome(ctrl, a) or {}
        if a["type"] == "build":
            kind, space, src = a["kind"], a["space"], None
        else:
            src = unit(ctrl, a["unit"])
            kind, space = a["to"], a.get("space") or (src.space if src else "?")
        groups.setdefault(kind, []).append({"action": a, "space": space, "from": src,
                                            "change": o.get(seat, {})})
    view = ctrl.game.view(ctrl.state)["players"][seat]
    return {"seat": seat, "groups": groups, "dice_in_play": view.get("dice_in_play"),
            "end": of_type(legal, "end_step")}


# ------------------------------------------------------------------------------------ development
def research(ctrl) -> dict | None:
    """Each development track: where the cube is, the next space, its cost, and whether the
    research action is accepted now (else the engine's reason)."""
    seat = seat_to_act(ctrl)
    if seat is None or ctrl.state.step != "research":
        return None
    dev = ctrl.game.view(ctrl.state)["players"][seat]["development"]
    tracks = []
    for t, d in dev.items():
        act = {"type": "research", "player": seat, "track": t}
        why = refusal(ctrl, act)
        nxt = dev_space(t, d["position"] + 1) if d.get("next_cost") is not None else None
        tracks.append({"track": t, "now": d, "next": nxt, "cost": d.get("next_cost"),
                       "action": act, "legal": why is None, "reason": why[1] if why else ""})
    return {"seat": seat, "left": ctrl.state.t.get("research_left"), "tracks": tracks,
            "end": of_type(ctrl.legal_actions(), "end_step")}


def taxation(ctrl) -> dict | None:
    """Aspect improvements (exact payment and gains, or the engine's reason) and repairs."""
    seat = seat_to_act(ctrl)
    if seat is None or ctrl.state.step != "taxation":
        return None
    legal = ctrl.legal_actions()
    asp = ctrl.game.view(ctrl.state)["players"][seat]["aspects"]
    rows = []
    for t, lv in asp.items():
        act = {"type": "improve_aspect", "player": seat, "track": t}
        why = refusal(ctrl, act)
        new = after(ctrl, act) if why is None else None
        rows.append({"track": t, "level": lv, "action": act, "legal": why is None,
                     "reason": why[1] if why else "",
                     "level_after": ctrl.game.view(new)["players"][seat]["aspects"][t] if new else None,
                     "change": res_diff(_resources(ctrl.state, seat), _resources(new, seat)) if new else {}})
    return {"seat": seat, "taxes": ctrl.game.bonuses(ctrl.state, seat).get("taxes"),
            "aspects": rows, "repairs": repairs(ctrl, legal, seat), "end": of_type(legal, "end_step")}
