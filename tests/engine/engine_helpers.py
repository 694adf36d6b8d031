"""Helpers for the engine tests: scenario states, shorthand actions, random games."""
from __future__ import annotations

import random

import pytest

from companion.engine.dice import SeededDice
from companion.engine.errors import Rejected
from companion.games.civmint import GAME
from companion.games.civmint.state import Unit, other

P1_CAP, P2_CAP = "r1c1", "r4c4"


def new_game(max_rounds=None, first="p1"):
    """A game right after the first-player roll (p1 first unless told), in p1's production step."""
    s = GAME.initial_state(GAME.default_setup(max_rounds=max_rounds))
    return act(s, "roll_first_player", die=1 if first == "p1" else 6)


def at(s, step, active="p1", **t):
    """A copy of s put at `step` of `active`'s turn (p1 is first player), turn flags as given."""
    s = s.copy()
    s.first = "p1"
    s.turn = 0 if active == "p1" else 1
    s.step = step
    base = {"repairs": 0, "upkeep_paid": True, "research_left": 0, "aspect_done": False, "cspace": None}
    base.update(t)
    s.t = base
    s.combat = None
    s.pending = ()
    return s


def bare(step="build", active="p1", **t):
    """Only the two capitals on the map; resources as at setup."""
    s = at(new_game(), step, active, **t)
    s.units = {k: u for k, u in s.units.items() if u.kind == "capital"}
    return s


def put(s, seat, kind, space, **kw):
    uid = s.next_uid
    s.next_uid += 1
    s.units[uid] = Unit(uid, seat, kind, space, **kw)
    return uid


def res(s, seat, **values):
    for k, v in values.items():
        s.players[seat].res[k] = v


def no_cp(s):
    """Neither player has Combat Power left (battles resolve on the dice)."""
    res(s, "p1", combat_power=0)
    res(s, "p2", combat_power=0)


def act(s, type, **kw):
    return GAME.apply(s, GAME.codec.make(type, **kw))


def rejects(s, rule, type, **kw):
    with pytest.raises(Rejected) as ei:
        act(s, type, **kw)
    assert ei.value.rule == rule, ei.value
    return ei.value


def dist(board, a, b):
    sa, sb = board.spaces[a], board.spaces[b]
    return abs(sa.row - sb.row) + abs(sa.col - sb.col)


def choose(s, rng, policy):
    """Pick an action for the actor: fast rejection sampling over the pseudo-legal candidates."""
    early = GAME.early_actions(s)
    if early and rng.random() < 0.5:
        return rng.choice(early)
    cands = GAME.pseudo_legal_actions(s)
    if policy == "aggressive":
        seat = GAME.actor(s)
        enemy_cap = s.board.home[other(seat)] if seat in ("p1", "p2") else None

        def weight(a):
            if a.type == "attack":
                return 50
            if a.type == "move" and enemy_cap:
                u = s.units[a["unit"]]
                return 8 if dist(s.board, a["to"], enemy_cap) < dist(s.board, u.space, enemy_cap) else 1
            if a.type in ("build", "upgrade"):
                return 4
            if a.type in ("trade_opponent", "disband"):
                return 0.2
            if a.type == "end_step":
                return 1.5
            return 2
        ws = [weight(a) for a in cands]
        while cands:
            i = rng.choices(range(len(cands)), ws)[0]
            a = cands[i]
            if GAME.is_legal(s, a):
                return a
            cands.pop(i)
            ws.pop(i)
        raise AssertionError(f"no legal action at {s.step}")
    rng.shuffle(cands)
    ends = [a for a in cands if a.type == "end_step"]
    if ends and rng.random() < 0.35 and GAME.is_legal(s, ends[0]):
        return ends[0]
    for a in cands:
        if GAME.is_legal(s, a):
            return a
    raise AssertionError(f"no legal action at {s.step} for {GAME.actor(s)}")


def random_game(seed, max_rounds=12, policy="mixed", keep_states=False, check=None, limit=20000):
    rng = random.Random(seed)
    dice = SeededDice(seed)
    s = GAME.initial_state(GAME.default_setup(max_rounds=max_rounds))
    actions = []
    states = [s] if keep_states else None
    while not s.over:
        if GAME.actor(s) == "system":
            a = GAME.chance_action(s, dice)
        else:
            a = choose(s, rng, policy if seed % 2 else "mixed")
        s2 = GAME.apply(s, a)
        if check:
            check(s, a, s2)
        s = s2
        actions.append(a)
        if keep_states:
            states.append(s)
        assert len(actions) < limit, "game did not end"
    return s, actions, states
