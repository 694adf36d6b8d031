"""The solitaire AI's turn is its seat's decision (issue 27 item 6): actor() names the AI's seat,
its one legal action is what its card decides, and any other move of that seat is refused. Saves
made before (no setup["ai_moves"]) still play the AI inside settle. Seeded solitaire games
played both ways make the same choices and end in the same state."""
import random

import pytest

from companion.engine import Rejected
from mw_helpers import G, play, setup_for, start

AIS = ("justin", "rachael", "sonic", "mort")


def old_setup(setup):
    """The same game as app 0.1 saved it: no "ai_moves" key, the AI played inside settle."""
    old = dict(setup)
    del old["ai_moves"]
    return old


def test_the_ai_is_the_actor_and_its_card_move_is_its_only_legal_action():
    setup, s = start(1, opponent="rachael")
    assert setup["ai_moves"] == "journaled" and G.app_seats(s) == ("p2",)
    s = G.apply(s, G.codec.make("pass", player="p1"))
    assert G.actor(s) == "p2" and s.step == "turn"  # nothing was played for her yet
    want = G.app_action(s, "p2")
    assert want == G.codec.make("place", player="p2", location="producer")
    assert G.legal_actions(s) == [want]
    with pytest.raises(Rejected) as ei:
        G.apply(s, G.codec.make("pass", player="p2"))
    assert ei.value.rule == "ai.card" and "Rachael places 1 mint on the Producer" in ei.value.message
    with pytest.raises(Rejected) as ei:
        G.apply(s, G.codec.make("place", player="p1", location="producer"))
    assert ei.value.rule == "flow.actor"  # not the player's turn while the AI is to act
    s = G.apply(s, want)
    assert s.ai_turn == ["Rachael places 1 mint on the Producer: the first location in the line she can use."]
    assert G.actor(s) == "p1" and s.ai_moves == 1


def test_a_competitive_game_has_no_app_seat():
    _, s = start(2)
    assert G.app_seats(s) == ()
    assert all(a.type in ("place", "pass") for a in G.legal_actions(s))


def test_an_old_save_plays_the_ai_inside_settle():
    setup = old_setup(setup_for(1, opponent="rachael"))
    s = G.initial_state(setup)
    while s.step == "draw":
        s = G.apply(s, G.chance_action(s, _Dice()))
    assert G.app_seats(s) == ()
    s = G.apply(s, G.codec.make("pass", player="p1"))
    assert G.actor(s) == "p1" and len(s.ai_turn) == 1  # Rachael already played


class _Dice:
    def roll(self, n=1):
        return [1] * n


def _events_of_game(setup, seed):
    """Every event of a seeded game against a random player (the AI's moves included), and the
    final state."""
    events = []
    s, _ = play(setup, seed, max_actions=1500, on_state=lambda st, a: events.extend(st.events))
    return events, s


@pytest.mark.parametrize("ai", AIS)
def test_the_ai_chooses_the_same_journaled_or_inside_settle(ai):
    decisions = 0
    for seed in range(25):
        setup = setup_for(1, opponent=ai, seed=seed, advanced=("none", "random")[seed % 2],
                          deck=("app", "table")[seed % 3 == 0])
        new_events, new = _events_of_game(setup, seed)
        old_events, old = _events_of_game(old_setup(setup), seed)
        assert new_events == old_events
        a, b = new.to_dict(), old.to_dict()
        assert a.pop("ai_journaled") is True and b.pop("ai_journaled") is False
        assert a == b
        decisions += new.ai_moves
    assert decisions > 25 * 5


def test_the_ai_seat_refuses_every_legal_placement_its_card_did_not_choose():
    rng = random.Random(3)
    setup = setup_for(1, opponent="justin", seed=3)
    s, checked = G.initial_state(setup), 0
    while not G.is_over(s) and checked < 20:
        if G.actor(s) == "p2":
            want = G.app_action(s, "p2")
            moves = [G.codec.fast("place", player="p2", location=loc, **p)
                     for loc in s.line for p in G.place_options(s, "p2", loc)
                     if G.place_problem(s, "p2", loc, p) is None] + [G.codec.fast("pass", player="p2")]
            assert want in moves
            for other in moves:
                assert (other == want) == G.is_legal(s, other), other
            checked += 1
            s = G.apply(s, want)
        elif G.actor(s) == "system":
            s = G.apply(s, G.chance_action(s, _Dice()))
        else:
            s = G.apply(s, rng.choice(G.legal_actions(s)))
    assert checked == 20
