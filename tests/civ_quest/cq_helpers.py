"""Helpers for the Civ Quest tests: a started game, shorthand actions, random games."""
from __future__ import annotations

import random

import pytest

from companion.engine.dice import SeededDice
from companion.engine.errors import Rejected
from companion.games.civ_quest.rules import GAME

STARTS = ("macedonia", "syria", "lower_egypt", "sicily", "pontus", "africa", "gallia")


def act(s, type, **kw):
    return GAME.apply(s, GAME.codec.make(type, **kw))


def rejected(s, rule, type, **kw):
    """Assert the action is refused for `rule` and that nothing changed."""
    before = s.to_dict()
    with pytest.raises(Rejected) as e:
        act(s, type, **kw)
    assert e.value.rule == rule, e.value
    assert s.to_dict() == before
    return e.value


def started(n=2, starts=STARTS):
    """A game of n players after setup: p1 first, waiting for p1's Leader roll."""
    s = GAME.initial_state(GAME.default_setup(players=n))
    for i in range(n):
        s = act(s, "place_start", player=f"p{i + 1}", area=starts[i])
    for i in range(n):
        s = act(s, "first_roll", die=6 if i == 0 else 1)
    assert s.step == "leader" and s.current == "p1" and s.roll == "leader_roll"
    return s


def with_units(s, **areas):
    """A copy of s with the map set: area=(seat, pt, city) (None empties the area)."""
    s = s.copy()
    for a, u in areas.items():
        if u is None:
            s.units.pop(a, None)
        else:
            s.units[a] = u
    return s


def learn(s, seat, *advances, wonders=()):
    s = s.copy()
    sh = s.players[seat]
    sh.advances = sh.advances + tuple(advances)
    sh.wonders = sh.wonders + tuple(wonders)
    for w in wonders:
        s.wonders_built[w] = seat
    return s


def to_step(s, step):
    """Play p1's turn with dull rolls (leader 1, no disaster, decline everything) until `step`."""
    dull = {"leader_roll": {"die": 1}, "city_roll": {"die": 2}, "idea_roll": {"die": 1}, "growth_roll": {"die": 1},
            "resource_roll": {"die": 1}, "disaster_roll": {"die": 1}, "migration_roll": {"die": 1}}
    for _ in range(200):
        if s.step == step:
            return s
        if s.roll:
            s = act(s, s.roll, **dull[s.roll])
        else:
            la = GAME.legal_actions(s)
            pick = next((a for a in la if a.type in ("done", "peace", "keep_roll")), la[0])
            s = GAME.apply(s, pick)
    raise AssertionError(f"never reached {step}")


def eager_pick(rng, legal, eager=0.8):
    """A random player that mostly acts: with chance `eager` anything but ending the step or
    making peace, else any legal action."""
    busy = [x for x in legal if x.type not in ("done", "peace")]
    return rng.choice(busy) if busy and rng.random() < eager else rng.choice(legal)


def random_game(seed, players, max_rounds=60, eager=0.8):
    """A random game to its end: (final state, actions)."""
    rng = random.Random(seed)
    dice = SeededDice(seed)
    setup = GAME.default_setup(players=players, max_rounds=max_rounds)
    s = GAME.initial_state(setup)
    actions = []
    while not s.over:
        if GAME.actor(s) == "system":
            a = GAME.chance_action(s, dice)
        else:
            la = GAME.legal_actions(s)
            assert la, f"no legal action at {s.step} {s.ctx}"
            a = eager_pick(rng, la, eager)
        s = GAME.apply(s, a)
        actions.append(a)
        yield s, a
