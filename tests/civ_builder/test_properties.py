"""Property tests over seeded random Civ Builder games: invariants after every action, every game
ends after round 12, VP equal the sum of their logged sources, replay reproduces the state."""
import pytest

from cb_helpers import GAME, random_game
from companion.games.civ_builder import VIEW
from companion.games.civ_builder.data_load import ATTRIBUTES

GAMES = 300


def _invariants(s):
    assert GAME.status(s) == []
    assert s.deck + s.discard + sum(s.hand.values()) == 108
    assert min(s.deck, s.discard, *s.hand.values()) >= 0
    for seat in s.seats:
        assert all(s.attrs[seat][a] >= 0 for a in ATTRIBUTES)


@pytest.mark.parametrize("chunk", range(4))
def test_random_games_keep_the_invariants_and_end_after_round_12(chunk):
    for seed in range(chunk * GAMES // 4, (chunk + 1) * GAMES // 4):
        s, actions, setup = random_game(seed, check=_invariants)
        assert s.over and s.round == 12 and s.step == "game_over"
        sc = GAME.score(s)
        for seat in s.seats:
            assert sc[seat]["total"] == s.vp[seat] == sum(sc[seat]["items"].values())
            vsc = VIEW.score(GAME, s)[seat]
            assert vsc["total"] == sum(vsc["items"].values())
        assert sorted(s.scoring) == list(range(1, 13))
        res = GAME.result(s)
        best = max(s.vp.values())
        assert (res["winner"] is None) == (list(s.vp.values()).count(best) > 1)


def test_games_of_six_to_eight_players_end_with_the_invariants():
    for seed in range(6):
        s, actions, setup = random_game(1000 + seed, players=6 + seed % 3, check=_invariants)
        assert s.over and len(s.seats) == 6 + seed % 3


@pytest.mark.parametrize("seed", [3, 17, 101, 555])
def test_replay_of_the_actions_from_the_setup_reproduces_the_state(seed):
    s, actions, setup = random_game(seed, players=2 + seed % 7)
    r = GAME.initial_state(setup)
    for a in actions:
        r = GAME.apply(r, GAME.action_from_dict(a.to_dict()))
    assert GAME.view(r) == GAME.view(s)


def test_apply_never_mutates_its_input():
    s, actions, setup = random_game(9, players=3)
    r = GAME.initial_state(setup)
    for a in actions[:400]:
        before = r.to_dict()
        nxt = GAME.apply(r, a)
        assert r.to_dict() == before
        r = nxt
