"""Seeded games played headlessly through GameController up to a state the step panels need.

Used by test_economy_model.py (headless) and the GUI scenarios of test_economy_panels.py,
test_combat_event_panels.py and test_map_view.py (they build the game here, or play it with
`play_until` and their own policy, then `resume_in_app`). The policies choose among the engine's
legal actions.
"""
from __future__ import annotations

import random

from companion.controller import GameController


def _pick(acts, *types, where=lambda a: True):
    return [a for a in acts if a["type"] in types and where(a)]


def quiet(ctrl, rng):
    """Produce with the default picks, pay, build nothing, end every step."""
    acts = ctrl.legal_actions()
    st = ctrl.state.step
    if st == "upkeep":
        pay = _pick(acts, "pay_upkeep")
        if pay:
            return pay[0]
        cut = _pick(acts, "downgrade", "disband")
        if cut and not _pick(acts, "end_step"):
            return cut[0]
    ends = _pick(acts, "end_step")
    if ends and st != "combat":
        return ends[0]
    return rng.choice(acts) if st in ("event_choice", "combat") else acts[0]


def hungry(ctrl, rng):
    """Trades Food away and builds/upgrades whatever it can: upkeep soon exceeds the Food."""
    acts = ctrl.legal_actions()
    st = ctrl.state.step
    pref = []
    if st == "trade":
        pref = _pick(acts, "trade", where=lambda a: a["give"] == "food")
    elif st == "build":
        pref = _pick(acts, "build", "upgrade", where=lambda a: a.get("to") != "ship")
    elif st == "upkeep":
        pref = _pick(acts, "pay_upkeep")
    if pref:
        return rng.choice(pref)
    ends = _pick(acts, "end_step")
    if ends and st != "combat":
        return ends[0]
    return rng.choice(acts)


def trader(ctrl, rng):
    """Researches towards trading with the opponent: one step of culture and technology (more
    research points), then economy; otherwise quiet."""
    acts = ctrl.legal_actions()
    if ctrl.state.step == "research":
        res = _pick(acts, "research")
        if res:
            dev = ctrl.state.players[res[0]["player"]].dev
            want = "culture" if dev["culture"] < 1 else "technology" if dev["technology"] < 1 else "economy"
            r = [a for a in res if a["track"] == want]
            if r:
                return r[0]
    return quiet(ctrl, rng)


def play_until(ctrl, until, policy=quiet, seed=0, max_actions=800):
    """Dispatch policy actions (dice: the seeded virtual dice) until until(ctrl) holds."""
    rng = random.Random(seed)
    for _ in range(max_actions):
        if until(ctrl):
            return ctrl
        if ctrl.game.is_over(ctrl.state):
            break
        if ctrl.awaiting_dice():
            ctrl.roll_virtual()
        else:
            ctrl.dispatch(policy(ctrl, rng), "ui")
    raise AssertionError(f"state not reached within {max_actions} actions (seed {seed})")


def resume_in_app(app, ctrl):
    """Close a headless game and resume its journal in the app; the app's controller."""
    path = ctrl.path
    ctrl.close()
    assert app.resume_game(path)
    return app.ctrl


def new_game(directory, seed, until, policy=quiet, max_rounds=None) -> GameController:
    ctrl = GameController.new(directory, ("Ada", "Bo"), ("blue", "red"), seed=seed, max_rounds=max_rounds)
    return play_until(ctrl, until, policy, seed)


# ---------------------------------------------------------------- predicates
def at_step(step):
    def pred(ctrl):
        s = ctrl.state
        return s.step == step and ctrl.game.actor(s) in ("p1", "p2")
    return pred


def unpayable_upkeep(ctrl):
    s = ctrl.state
    if s.step != "upkeep" or ctrl.game.actor(s) not in ("p1", "p2"):
        return False
    return not any(a["type"] == "pay_upkeep" for a in ctrl.legal_actions()) and not s.t.get("upkeep_paid")


def can_offer_trade(ctrl):
    s = ctrl.state
    if s.step != "trade" or s.t.get("offer"):
        return False
    seat = ctrl.game.actor(s)
    return seat in ("p1", "p2") and any(a["type"] == "trade_opponent" for a in ctrl.legal_actions())
