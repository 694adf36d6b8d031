"""Undo replays from the latest state the session kept (every MARK_EVERY actions), not from the
start: every state it gives back is the one the game had at that point, through kept states, past
them, after a resume and after new actions (a Mint Works game with the plan deck at the table has
no chance action, so it can be undone to its start)."""
import random

import pytest

from companion.engine import Session
from companion.games import get_game
from companion.engine import session as session_mod
from companion.store.journal import Journal


def _setup():
    return get_game("mint_works").default_setup(deck="table")


def _play(sess, rng, n):
    """n random legal actions; the state (as a dict) before the first and after each."""
    seen = [sess.state.to_dict()]
    for _ in range(n):
        la = sess.legal_actions()
        if not la:
            break
        sess.dispatch(rng.choice(la), "ui")
        seen.append(sess.state.to_dict())
    return seen


@pytest.mark.parametrize("every", [4, 7, 64])
def test_undo_gives_back_each_earlier_state(tmp_path, monkeypatch, every):
    monkeypatch.setattr(session_mod, "MARK_EVERY", every)
    path = tmp_path / "g.journal"
    sess = Session.new("mint_works", _setup(), journal_path=path, seed=3)
    assert not any(sess.game.is_chance(a) for a in sess.legal_actions())
    seen = _play(sess, random.Random(5), 60)
    for k in range(10):  # undo in the live session, then play on
        sess.undo()
        assert sess.state.to_dict() == seen[-2 - k]
    seen = seen[:-10] + _play(sess, random.Random(6), 30)[1:]
    sess.close()

    sess = Session.resume(path)
    assert sess.state.to_dict() == seen[-1]
    for want in reversed(seen[:-1]):  # back to the start, through every kept state
        sess.undo()
        assert sess.state.to_dict() == want
    assert len(sess.history) == 0 and len(Journal.open(path, readonly=True)) == 0
    again = _play(sess, random.Random(5), 20)  # the start again: the same game follows
    assert again == seen[:len(again)]
    sess.close()


def test_undo_replays_only_from_the_latest_kept_state(monkeypatch):
    monkeypatch.setattr(session_mod, "MARK_EVERY", 8)
    sess = Session.new("mint_works", _setup(), seed=4)
    _play(sess, random.Random(1), 40)
    replayed = []
    real = sess.game.apply_in_place
    monkeypatch.setattr(sess.game, "apply_in_place", lambda s, a: (replayed.append(a), real(s, a)))
    sess.undo()
    assert 0 < len(replayed) <= 8


def test_the_kept_states_are_bounded_and_an_undo_past_them_still_gives_the_state(monkeypatch):
    monkeypatch.setattr(session_mod, "MARK_EVERY", 2)
    monkeypatch.setattr(session_mod, "MARKS_KEPT", 3)
    sess = Session.new("mint_works", _setup(), seed=8)
    seen = _play(sess, random.Random(2), 30)
    assert len(sess._marks) <= 3
    for want in reversed(seen[:-1]):
        sess.undo()
        assert sess.state.to_dict() == want and len(sess._marks) <= 3
