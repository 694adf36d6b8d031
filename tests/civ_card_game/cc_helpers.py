"""Helpers for the Civilization: The Card Game tests: a game past its set-up, states arranged for
a worked example, random games."""
from __future__ import annotations

import random

import pytest

from companion.engine.errors import Rejected
from companion.games.civ_card_game.rules import GAME

# the plots each seat is dealt (two) and drafts (two), in a 2-player game
DEALT = {"p1": ("Grassland", "Hills"), "p2": ("River", "Plains")}


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


def started(n=2, techs=("Mining", "Engineering", "Writing")):
    """A game of n players after the set-up, p1 about to collect. Each seat is dealt the first
    free plots of the data in order; the draft takes the first card laid out; the face-up
    technologies are `techs`."""
    s = GAME.initial_state(GAME.default_setup(players=n))
    plots = [name for name, d in GAME.plot_cards.items() for _ in range(d["copies"])]
    while s.step != "collect":
        kind, who, arg = s.queue[0]
        if kind in ("deal", "row") or (kind == "turn_up" and arg == "plots"):
            s = act(s, "turn_up", player=who, card=plots.pop(0))
        elif kind == "turn_up":
            s = act(s, "turn_up", player=who, card=techs[len(s.tech_row)])
        elif kind == "draft":
            s = act(s, "draft", player=who, card=s.draft_row[0])
        elif kind == "population":
            s = act(s, "place_population", player=who, plot=0)
        elif kind == "discard":
            s = act(s, "discard", player=who)
        else:  # pragma: no cover
            raise AssertionError(kind)
    return s


def arranged(s, **changes):
    """A copy of s with fields replaced: res={'p1': (f, h, c)}, plots={'p1': ((name, pop, built), ...)},
    techs=..., hand=..., known=..., step='purchase', ... (dicts are merged per seat). The deck
    count is adjusted so that every play-deck card stays accounted for."""
    s = s.copy()
    for k, v in changes.items():
        cur = getattr(s, k)
        if isinstance(cur, dict) and isinstance(v, dict):
            cur.update(v)
        else:
            setattr(s, k, v)
    total = sum(s.hand.values()) + len(s.discard_known) + s.discard_unknown + sum(
        len(b) for ps in s.plots.values() for _, _, b in ps) + sum(1 for c in s.combat if c[2] in ("in", "blocked"))
    s.deck = GAME.deck_size - total
    assert s.deck >= 0 and not GAME.status(s), GAME.status(s)
    return s


def play_random(seed, n=None, check=None, limit=5000):
    """A random full game: (final state, actions). `check(state, action)` runs after each action."""
    rng = random.Random(seed)
    n = n or rng.choice((2, 3, 4))
    s = GAME.initial_state(GAME.default_setup(players=n))
    actions = []
    while not s.over:
        assert len(actions) < limit, f"seed {seed}: no end after {limit} actions"
        legal = GAME.legal_actions(s)
        assert legal, f"seed {seed}: nothing is legal at {s.step} {s.queue[:1]}"
        a = rng.choice(legal)
        s = GAME.apply(s, a)
        actions.append(a)
        if check:
            check(s, a)
    return s, actions
