"""Legal actions are generated legal: for every game, in the states of seeded random games, each
listed action passes the engine's own check (the generic filter would keep it), and the list is
the same on a second call and on a copy (nothing cached leaks between states)."""
from __future__ import annotations

import random

import pytest

from companion.engine.dice import SeededDice
from companion.engine.game import Game
from companion.games import get_game

SETUPS = {"civ_quest": [{"players": 2}, {"players": 7}], "civ_builder": [{"players": 3}],
          "civ_card_game": [{"players": 2}, {"players": 4}], "mint_works": [{}], "civmint": [{"max_rounds": 6}]}


def _states(name, kw, seed, limit=1500):
    game = get_game(name)
    setup = game.default_setup(**kw)
    setup["seed"] = seed
    rng, dice = random.Random(seed), SeededDice(seed)
    s = game.initial_state(setup)
    n = 0
    while not game.is_over(s) and n < limit:
        if game.actor(s) == "system":
            dice.drawn = getattr(s, "chance_count", dice.drawn)
            a = game.chance_action(s, dice)
        else:
            yield s
            la = game.legal_actions(s)
            busy = [x for x in la if x.type not in ("done", "peace", "end_step", "pass", "end_turn")]
            a = rng.choice(busy) if busy and rng.random() < 0.8 else rng.choice(la)
        s = game.apply(s, a)
        n += 1


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_every_listed_action_passes_the_check_and_the_filter_keeps_the_same_list(name):
    game = get_game(name)
    seen = 0
    for kw in SETUPS[name]:
        for seed in (1, 2):
            for s in _states(name, kw, seed):
                la = game.legal_actions(s.copy())
                for a in la:
                    game.check(s, a)  # raises Rejected if a listed action is not legal
                assert len(set(la)) == len(la), "an action is listed twice"
                filtered = Game.legal_actions(game, s.copy())
                assert set(filtered) <= set(la) or not la, "the checked candidates hold more"
                assert la == game.legal_actions(s.copy())
                seen += 1
    assert seen > 50
