"""Property tests over seeded random games: Mints are conserved between the supply, the players,
the locations and the Gallery (and Rachael's removed Mints); the 21 plans are all accounted for;
every game ends; the score equals its breakdown; replaying the action list reproduces the state;
`apply` never changes its input; the AI seat is never asked to act."""
import pytest

from companion.games.mint_works import VIEW
from mw_helpers import G, play, setup_for

COMPETITIVE = [(n, seed) for n in (2, 3, 4) for seed in range(70)]


def _invariants(s, a):
    assert G.status(s) == [], (a, G.status(s))
    assert all(v >= 0 for v in s.mints.values())
    assert G.actor(s) is None or G.actor(s) == "system" or not G.is_ai(s, G.actor(s))
    if s.cap is not None:
        assert s.issued <= s.cap
    for seat, sc in G.score(s).items():
        assert sc["total"] == sum(sc["items"].values())


def _replay(setup, actions):
    s = G.initial_state(setup)
    for a in actions:
        s = G.apply(s, G.action_from_dict(a.to_dict()))
    return s


@pytest.mark.parametrize("players,seed", COMPETITIVE[::1])
def test_random_competitive_games(players, seed):
    adv = ("none", "random")[seed % 2]
    deck = ("app", "table")[(seed // 2) % 2]
    setup = setup_for(players, seed=seed, advanced=adv, deck=deck)
    s, actions = play(setup, seed, on_state=_invariants, max_actions=2500)
    assert s.over and s.end_reason in ("seven_stars", "supply_not_refilled")
    if s.end_reason == "seven_stars":
        assert max(G.stars(s, x) for x in s.seats) >= 7
    r = G.result(s)
    assert (r["winner"] is None) == (r["decided_by"] == "shared")
    if seed % 7 == 0:
        again = _replay(setup, actions)
        assert again.to_dict() == s.to_dict()
        assert VIEW.prompt(G, again, setup) == VIEW.prompt(G, s, setup)
        for seat in s.seats:
            assert VIEW.player_lines(G, again, setup, seat) == VIEW.player_lines(G, s, setup, seat)


def test_apply_never_changes_its_input():
    setup = setup_for(3, seed=11, advanced="random")
    seen = []

    def check(s, a):
        seen.append(s)
    s, actions = play(setup, 11, on_state=check)
    snapshots = [x.to_dict() for x in seen]
    state = G.initial_state(setup)
    for a, snap in zip(actions, snapshots):
        before = state.to_dict()
        nxt = G.apply(state, a)
        assert state.to_dict() == before
        assert nxt.to_dict() == snap
        state = nxt


def test_table_deck_accepts_only_plans_still_in_the_deck():
    from companion.engine import Rejected
    setup = setup_for(2, deck="table")
    s = G.initial_state(setup)
    assert s.step == "draw" and G.actor(s) == "p1" and G.chance_action(s, None) is None
    s = G.apply(s, G.codec.make("reveal", player="p1", plan="mine"))
    with pytest.raises(Rejected) as ei:
        G.apply(s, G.codec.make("reveal", player="p1", plan="mine"))
    assert ei.value.rule == "draw.deck" and "not in the Plan Deck any more" in ei.value.message
    with pytest.raises(Rejected) as ei:
        G.apply(s, G.codec.make("draw", plan="statue"))
    assert ei.value.rule == "flow.actor"
    with pytest.raises(Rejected):
        G.apply(s, G.codec.make("reveal", player="p1", plan="castle"))


def test_recycled_plans_come_back_in_order_once_the_shuffled_deck_is_empty():
    from companion.engine import Rejected
    from mw_helpers import position, start
    _, s = start(2, deck="table")
    s = position(s, "p2", [(p, False) for p in s.deck])
    first, second = s.plans["p2"][0][0], s.plans["p2"][1][0]
    s.plans["p2"] = s.plans["p2"][2:]
    s.bottom = [first, second]  # as two Recycler uses would leave them
    s.plans["p1"].append((s.supply.pop(), False, False))
    s.pending = [("supply", None)]
    s.step = "draw"
    assert G.status(s) == [] and G.draw_candidates(s) == [first]
    with pytest.raises(Rejected) as ei:
        G.apply(s, G.codec.make("reveal", player="p1", plan=second))
    assert "top card" in ei.value.message
    s = G.apply(s, G.codec.make("reveal", player="p1", plan=first))
    assert s.bottom == [second] and s.supply[-1] == first


def test_a_journaled_game_resumes_exactly(tmp_path):
    """Session journal + resume: the app's deck draws again what it drew (seed, draw number)."""
    import random as _random

    from companion.engine import Session
    from companion.games.mint_works import GAME
    setup = setup_for(1, opponent="sonic", advanced="random")
    sess = Session.new(GAME, setup, journal_path=tmp_path / "mw.journal", seed=99)
    rng = _random.Random(5)
    for _ in range(60):
        if GAME.is_over(sess.state):
            break
        if sess.actor() == "system":
            sess.roll()
        else:
            sess.dispatch(rng.choice(sess.legal_actions()), "ui")
    before = sess.state.to_dict()
    sess.close()
    again = Session.resume(tmp_path / "mw.journal")
    assert again.state.to_dict() == before
    if not GAME.is_over(again.state) and again.actor() == "system":
        a = GAME.chance_action(again.state, again.dice)
        assert a == GAME.chance_action(again.state, again.dice)  # a function of the state only
    again.close()
