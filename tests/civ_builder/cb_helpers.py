"""Helpers of the Civ Builder tests: a game set up with chosen dice, and seeded random play."""
from __future__ import annotations

import random

from companion.engine.dice import SeededDice
from companion.games.civ_builder import GAME
from companion.games.civ_builder.data_load import ATTRIBUTES

CIVS = ("middle_east", "north_africa", "india", "southern_europe", "mediterranean", "northern_europe", "china",
        "central_asia")


def act(s, type, **kw):
    return GAME.apply(s, GAME.codec.make(type, **kw))


def setup_state(players=2, dice=None, civs=CIVS):
    """Through civilisation choice and the 11 setup dice of each player (`dice[seat]`: 11 values,
    default all 3), up to the first decision of round 1 (or the roll-off if one is needed)."""
    s = GAME.initial_state(GAME.default_setup(players=players))
    for i in range(players):
        s = act(s, "choose_civ", player=f"p{i + 1}", civ=civs[i])
    for i in range(players):
        seat = f"p{i + 1}"
        values = (dice or {}).get(seat, [3] * 11)
        for v in values:
            _, attr, _ = GAME.awaited_roll(s)
            s = act(s, "roll_" + attr, die=v)
    return s


def with_attrs(s, **per_seat):
    """A copy of s with some attributes set: with_attrs(s, p1={"trade": 9})."""
    s = s.copy()
    for seat, vals in per_seat.items():
        s.attrs[seat].update(vals)
    return s


def to_step(s, step, rng=None):
    """Play the first listed legal non-meld action until `step` is reached (chance: dice of 1)."""
    rng = rng or random.Random(0)
    dice = SeededDice(1)
    for _ in range(500):
        if s.step == step:
            return s
        if GAME.actor(s) == "system":
            s = GAME.apply(s, GAME.chance_action(s, dice))
            continue
        la = GAME.legal_actions(s)
        prefer = [a for a in la if a.type in ("end_trade", "end_turn", "decline_sixth", "decline_science",
                                              "keep_cards", "skip_special")]
        s = GAME.apply(s, (prefer or la)[0])
    raise AssertionError(f"step {step} not reached (at {s.step})")


def random_game(seed, players=None, check=None, setup=None):
    """A seeded random game to its end: (final state, actions, setup). `check(state)` is called
    after every action; `setup` replaces the default setup of `players` seats."""
    rng = random.Random(seed)
    dice = SeededDice(seed)
    if setup is None:
        setup = GAME.default_setup(players=players or rng.randint(2, 5))
    s = GAME.initial_state(setup)
    actions = []
    while not s.over:
        if GAME.actor(s) == "system":
            a = GAME.chance_action(s, dice)
        else:
            la = GAME.legal_actions(s)
            ends = [x for x in la if x.type in ("end_trade", "end_turn")]
            a = ends[0] if ends and rng.random() < 0.3 else rng.choice(la)
        s = GAME.apply(s, a)
        actions.append(a)
        if check is not None:
            check(s)
        assert len(actions) < 20000
    return s, actions, setup


__all__ = ["ATTRIBUTES", "GAME", "act", "setup_state", "with_attrs", "to_step", "random_game"]
