"""The solitaire AIs (Justin, Rachael, Sonic, Mort): a pure, deterministic function of the state
that names the AI's placement, and the plain words that tell the table what it did.

Procedure (MW-AI1..AI5): walk the location line from the Producer and take the first space the
AI can use; pass if none. It buys by its cost preference, then its type priority, then the plan
nearest the deck; it builds its oldest unbuilt plan. Choices the cards leave open at the Advanced
locations are decided in docs/mint_works-register.md (MW-R10)."""
from __future__ import annotations


def card(game, s) -> dict:
    return game.data.ais[s.ai["id"]]


def buy_choice(game, s, seat, affordable=True):
    """The plan the AI buys from the supply, or None (MW-AI3)."""
    ai = card(game, s)
    prio = ai["priority"]
    d = game.data
    cands = []
    for i, pid in enumerate(s.supply):
        p = d.plans[pid]
        if p["type"] not in prio:
            continue  # Mort never buys Production plans
        if affordable and not game.tycoon(s, seat) and game.supplier_cost(s, seat, pid) > s.mints[seat]:
            continue
        dear = -p["cost"] if ai["cost_preference"] == "dearest" else p["cost"]
        cands.append(((dear, prio.index(p["type"]), i), pid))
    return min(cands)[1] if cands else None


def usable(game, s, seat, loc, need_space=True):
    """The parameters with which the AI would use `loc`, or None when it cannot use it."""
    d = game.data
    if need_space and (not game.is_open(s, loc) or game.free_space(s, loc) is None):
        return None
    eff = d.locations[loc]["effect"]
    unbuilt = [p for p, b, _ in s.plans[seat] if not b]
    params = {}
    if eff == "buy":
        if card(game, s)["special"] == "double_turn" and s.sonic_had_plans:
            return None  # Sonic buys only when he had no unbuilt plan at the start of his turn
        pid = buy_choice(game, s, seat)
        if pid is None:
            return None
        params = {"plan": pid}
    elif eff == "build":
        if not unbuilt:
            return None
        params = {"plan": unbuilt[0]}  # the oldest first
    elif eff == "swap":
        pid = buy_choice(game, s, seat, affordable=False)
        if not unbuilt or pid is None:
            return None
        params = {"plan": pid, "give": unbuilt[-1]}
    elif eff == "recycle":
        if not unbuilt:
            return None
        params = {"plan": unbuilt[-1]}
    elif eff == "crowdfund":
        params = {"beneficiary": seat}
    elif eff == "temp":
        for target in s.line:
            if target == loc or not game.is_open(s, target) or all(o is None for o in s.spaces[target]):
                continue
            if d.locations[target]["effect"] == "temp":
                continue
            inner = usable(game, s, seat, target, need_space=False)
            if inner is not None and game.place_problem(s, seat, loc, {"target": target, **inner}) is None:
                return {"target": target, **inner}
        return None
    if need_space and game.place_problem(s, seat, loc, params) is not None:
        return None
    return params  # (copied by the Temp Agency: its own check covers the cost)


def decide(game, s):
    """(location, params) of the AI's placement now, or None: it passes (MW-AI1, MW-AI2)."""
    seat = s.ai["seat"]
    for loc in s.line:
        params = usable(game, s, seat, loc)
        if params is not None:
            return loc, params
    return None


def explain(game, s, choice) -> str:
    """What the AI does, in plain words for the table, with the reason from its card."""
    d = game.data
    ai = card(game, s)
    name = ai["name"]
    she = {"rachael": "she"}.get(s.ai["id"], "he")
    seat = s.ai["seat"]
    if choice is None:
        return f"{name} passes: {she} cannot use any location."
    loc, params = choice
    cost = game.effect_cost(s, seat, loc, params)
    mints = f"{cost} mint{'s' if cost != 1 else ''}" + (" from the supply" if game.tycoon(s, seat) else "")
    where = d.loc_name(loc)
    eff = d.locations[loc]["effect"]
    what = _effect_words(game, s, seat, loc, params, she)
    first = "the first location in the line " + she + " can use"
    text = f"{name} places {mints} on the {where}{what}: {first}"
    if eff == "buy" or (eff == "temp" and d.locations[params['target']]["effect"] == "buy"):
        pref = "cheapest" if ai["cost_preference"] == "cheapest" else "dearest"
        text += f"; the {pref} plan {she} can afford, ties by {' > '.join(t.title() for t in ai['priority'])}"
    elif eff == "build":
        text += f"; {she} builds {'her' if she == 'she' else 'his'} oldest plan first"
    return text + "."


def _effect_words(game, s, seat, loc, params, she) -> str:
    d = game.data
    eff = d.locations[loc]["effect"]
    if eff == "buy":
        return f" and buys the {d.plan_name(params['plan'])}"
    if eff == "build":
        return f" and builds the {d.plan_name(params['plan'])}"
    if eff == "swap":
        return f", takes the {d.plan_name(params['plan'])} and puts the {d.plan_name(params['give'])} in its place"
    if eff == "recycle":
        return f" and recycles the {d.plan_name(params['plan'])}"
    if eff == "lotto":
        return " and takes the top plan of the deck"
    if eff == "temp":
        inner = _effect_words(game, s, seat, params["target"], params, she)
        return f" to use the {d.loc_name(params['target'])}{inner}"
    if eff == "lead":
        return " and takes the Start Player token"
    return ""
