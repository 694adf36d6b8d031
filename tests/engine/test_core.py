"""Engine core: action value objects, malformed input, flow as data, dice range, session and journal."""
import json
import random

import pytest

from companion.engine import Flow, MalformedAction, Rejected, SeededDice, Session
from companion.engine.session import ReplayError
from companion.games import available, get_game
from companion.games.civmint import GAME
from engine_helpers import act, new_game, rejects


def test_action_round_trip_and_value_semantics():
    a = GAME.codec.make("trade_opponent", player="p1", give={"food": 2}, get={"wood": 1})
    d = a.to_dict()
    assert d == {"type": "trade_opponent", "player": "p1", "give": {"food": 2}, "get": {"wood": 1}}
    b = GAME.action_from_dict(json.loads(json.dumps(d)))
    assert a == b and hash(a) == hash(b)
    assert {a, b} == {a}
    with pytest.raises(AttributeError):
        a.type = "x"
    r = GAME.codec.make("roll_event", dice=[3, 4])
    assert r.to_dict()["dice"] == [3, 4] and GAME.is_chance(r) and GAME.is_chance(r.to_dict())
    assert not GAME.is_chance(GAME.codec.make("end_step", player="p1"))


@pytest.mark.parametrize("bad, words", [
    ("not a dict", "must be a dict"),
    ({}, "string 'type'"),
    ({"type": 7}, "string 'type'"),
    ({"type": "fly"}, "unknown action type 'fly'"),
    ({"type": "move", "player": "p1", "unit": 3}, "missing field 'to'"),
    ({"type": "move", "player": "p3", "unit": 3, "to": "r0c0"}, "one of 'p1', 'p2'"),
    ({"type": "move", "player": "p1", "unit": "3", "to": "r0c0"}, "integer"),
    ({"type": "move", "player": "p1", "unit": True, "to": "r0c0"}, "integer"),
    ({"type": "move", "player": "p1", "unit": 3, "to": "r0c0", "speed": 9}, "unknown field"),
    ({"type": "roll_event", "dice": [1, "6"]}, "list of integers"),
    ({"type": "trade_opponent", "player": "p1", "give": {"food": "2"}, "get": {}}, "resource -> integer"),
])
def test_malformed_actions_are_rejected_with_clear_messages(bad, words):
    with pytest.raises(MalformedAction) as ei:
        GAME.action_from_dict(bad)
    assert ei.value.rule == "engine.malformed"
    assert words in str(ei.value)


def test_malformed_action_through_apply_leaves_state_alone():
    s = new_game()
    before = s.to_dict()
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "trade", "player": "p1"})
    assert s.to_dict() == before


@pytest.mark.parametrize("bad", [0, 7, -1, 100])
def test_die_values_outside_1_to_6_are_rejected(bad):
    s0 = GAME.initial_state()
    rejects(s0, "dice.range", "roll_first_player", die=bad)
    s = new_game()
    s.step, s.turn = "event_roll", 0
    rejects(s, "dice.range", "roll_event", dice=[3, bad])
    rejects(s, "event.dice", "roll_event", dice=[3])


def test_chance_action_only_when_a_roll_is_awaited():
    s = new_game()
    rejects(s, "flow.step", "roll_event", dice=[1, 2])
    e = rejects(s, "flow.step", "move", player="p1", unit=3, to="r0c0")
    assert "not an action of the 'production' step" in e.message


def test_wrong_player_is_rejected_by_the_flow():
    s = new_game()
    rejects(s, "flow.actor", "produce", player="p2")


def test_apply_never_mutates_its_input():
    s = new_game()
    before = s.to_dict()
    s2 = act(s, "produce", player="p1")
    assert s.to_dict() == before and s2.to_dict() != before


def test_flow_is_data():
    f = Flow({"phases": [{"id": "a", "per_player": True, "steps": ["x", "y"]}, {"id": "b", "steps": ["z"]}],
              "steps": {"x": {"actions": ["go"]}, "y": {}, "z": {"auto": True}}})
    assert f.next("x", 0) == ("y", 0, False)
    assert f.next("y", 0) == ("x", 1, False)
    assert f.next("y", 1) == ("z", 0, False)
    assert f.next("z", 0) == ("x", 0, True)
    assert f.actions_of("x") == {"go"} and "z" in f.auto and f.phase("z") == "b"
    with pytest.raises(ValueError):
        Flow({"phases": [{"id": "a", "steps": ["nope"]}], "steps": {}})
    civ = GAME.flow
    assert civ.order[0][1] == "production" and civ.phase("event_roll") == "global_events"


def test_seeded_dice_are_reproducible_and_in_range():
    a, b = SeededDice(42), SeededDice(42)
    ra = [a.roll(2) for _ in range(200)]
    assert ra == [b.roll(2) for _ in range(200)]
    assert all(1 <= v <= 6 for r in ra for v in r)
    c = SeededDice(42, drawn=100)
    assert c.roll(2) == ra[100]


def test_game_registry():
    assert "civmint" in available() and get_game("civmint") is GAME
    with pytest.raises(KeyError):
        get_game("chess")


def test_legal_actions_all_apply():
    s = new_game()
    la = GAME.legal_actions(s)
    assert la
    for a in la:
        GAME.apply(s, a)


# -- session -------------------------------------------------------------------------------------

def _drive(sess, n, seed=3):
    rng = random.Random(seed)
    for _ in range(n):
        if sess.state.over:
            break
        if sess.actor() == "system":
            sess.roll()
        else:
            sess.dispatch(rng.choice(sess.legal_actions()).to_dict(), rng.choice(["ui", "board"]))


def test_session_in_memory_dispatch_and_sources():
    sess = Session.new("civmint", seed=1)
    with pytest.raises(ValueError):
        sess.dispatch({"type": "roll_first_player", "die": 3}, "keyboard")
    seen = []
    sess.subscribe(lambda a, src, st: seen.append((a.type, src)))
    sess.roll()
    assert seen == [("roll_first_player", "system")] and sess.state.first in ("p1", "p2")
    with pytest.raises(Rejected):
        sess.dispatch({"type": "roll_first_player", "die": 3}, "board")
    assert len(sess.history) == 1


def test_session_undo_refuses_revealed_rolls_in_memory():
    sess = Session.new("civmint", seed=1)
    sess.roll()
    with pytest.raises(Rejected):
        sess.undo()
    before = sess.state.to_dict()
    sess.dispatch(sess.legal_actions()[0], "ui")
    sess.undo()
    assert sess.state.to_dict() == before


journal = pytest.importorskip("companion.store.journal")


def test_session_journal_resume_reproduces_state(tmp_path):
    p = tmp_path / "game.civj"
    sess = Session.new("civmint", None, p, seed=11)
    _drive(sess, 400)
    want = sess.state.to_dict()
    n = len(sess.history)
    sess.close()
    back = Session.resume(p)
    assert back.state.to_dict() == want
    assert len(back.history) == n
    # the seeded dice continue where they were
    _drive(back, 50, seed=4)
    back.close()


def test_rejected_actions_are_not_journaled(tmp_path):
    p = tmp_path / "g.civj"
    sess = Session.new("civmint", None, p, seed=2)
    sess.roll()
    with pytest.raises(Rejected):
        sess.dispatch({"type": "roll_event", "dice": [9, 9]}, "board")
    with pytest.raises(MalformedAction):
        sess.dispatch({"type": "nonsense"}, "board")
    assert [e.action["type"] for e in sess.journal.actions()] == ["roll_first_player"]
    sess.close()


def test_journal_before_state(tmp_path):
    """If the journal write fails, the in-memory state does not move."""
    p = tmp_path / "g.civj"
    sess = Session.new("civmint", None, p, seed=2)
    sess.roll()
    before = sess.state.to_dict()

    class Boom(Exception):
        pass

    def fail(*a, **k):
        raise Boom()
    sess.journal.append = fail
    with pytest.raises(Boom):
        sess.dispatch(sess.legal_actions()[0], "ui")
    assert sess.state.to_dict() == before
    sess.close()


def test_session_undo_with_journal(tmp_path):
    p = tmp_path / "g.civj"
    sess = Session.new("civmint", None, p, seed=2)
    sess.roll()
    before = sess.state.to_dict()
    sess.dispatch(sess.legal_actions()[0], "ui")
    sess.undo()
    assert sess.state.to_dict() == before
    with pytest.raises(journal.UndoRefused):
        sess.undo()
    sess.close()
    assert Session.resume(p).state.to_dict() == before


def test_resume_reports_actions_the_engine_rejects(tmp_path):
    p = tmp_path / "g.civj"
    j = journal.Journal.create(p, "civmint", GAME.default_setup(), "test")
    j.append({"type": "roll_first_player", "die": 2}, "board")
    j.append({"type": "roll_event", "dice": [1, 1]}, "board")
    j.close()
    with pytest.raises(ReplayError) as ei:
        Session.resume(p)
    assert ei.value.seq == 2 and ei.value.rejected.rule == "flow.step"


def test_bad_setup_creates_no_journal(tmp_path):
    from companion.engine import SetupError

    p = tmp_path / "g.civj"
    with pytest.raises(SetupError):
        Session.new("civmint", {"players": {"p1": {"colour": "red"}, "p2": {"colour": "red"}}}, p)
    assert not p.exists()


def test_resumed_session_rolls_the_same_dice_as_an_uninterrupted_one(tmp_path):
    def step(sess, rng):
        if sess.actor() == "system":
            sess.roll()
        else:
            la = sess.legal_actions()
            sess.dispatch(la[rng.randrange(len(la))], "ui")

    whole = Session.new("civmint", None, tmp_path / "a.civj", seed=99)
    rng = random.Random(1)
    for _ in range(300):
        step(whole, rng)
    split = Session.new("civmint", None, tmp_path / "b.civj", seed=99)
    rng = random.Random(1)
    for _ in range(150):
        step(split, rng)
    split.close()
    split = Session.resume(tmp_path / "b.civj")
    for _ in range(150):
        step(split, rng)
    assert split.state.to_dict() == whole.state.to_dict()
    rolls = [a.to_dict() for a, _ in whole.history if whole.game.is_chance(a)]
    assert len(rolls) > 5
    whole.close()
    split.close()
