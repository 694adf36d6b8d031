"""Session.resume raises only its documented errors; dispatch checks an Action object exactly
as it checks the same action given as a dict."""
import json
import sqlite3

import pytest

from companion.engine import Action, MalformedAction, Session
from companion.engine.session import ReplayError, ResumeError
from companion.store.journal import Journal, JournalError

BAD_SHAPES = [
    ("unit as text", {"type": "move", "player": "p1", "unit": "3", "to": "r0c0"}),
    ("seat p3", {"type": "move", "player": "p3", "unit": 3, "to": "r0c0"}),
    ("unknown field", {"type": "move", "player": "p1", "unit": 3, "to": "r0c0", "speed": 9}),
    ("die as text", {"type": "roll_event", "dice": [1, "6"]}),
    ("missing field", {"type": "move", "player": "p1", "unit": 3}),
]


@pytest.mark.parametrize("what, bad", BAD_SHAPES)
def test_an_action_object_is_refused_exactly_like_its_dict(what, bad):
    sess = Session.new("civmint", seed=1)
    with pytest.raises(MalformedAction) as as_dict:
        sess.dispatch(dict(bad), "ui")
    obj = Action(bad["type"], **{k: v for k, v in bad.items() if k != "type"})
    with pytest.raises(MalformedAction) as as_obj:
        sess.dispatch(obj, "ui")
    # the same rule and reason (an Action keeps a list as a tuple, so "got" may print either)
    assert as_obj.value.rule == as_dict.value.rule, what
    assert str(as_obj.value).split(" (got")[0] == str(as_dict.value).split(" (got")[0], what


def _save_with(tmp_path, game="civmint", setup=None, actions=()):
    p = tmp_path / "s.journal"
    with Journal.create(p, game, setup if setup is not None else {"seed": 1}, "0.1.0") as j:
        for a in actions:
            j.append(a, "ui")
    return p


@pytest.mark.parametrize("game, setup", [
    ("no_such_game", {"seed": 1}),
    ("civmint", {"players": "Ada and Bo", "seed": 1}),
    ("civmint", {"seed": "x", "players": [1, 2, 3]}),
    ("civmint", {"map": {"nested": [None]}, "options": 7}),
])
def test_resume_of_an_odd_save_raises_resume_error_with_a_reason(tmp_path, game, setup):
    p = _save_with(tmp_path, game, setup)
    with pytest.raises(ResumeError) as ei:
        Session.resume(p)
    assert str(p) in str(ei.value)


def test_resume_of_an_entry_the_engine_cannot_read_is_a_replay_error(tmp_path):
    p = _save_with(tmp_path, actions=[{"type": "fly", "to": "moon"}])
    with pytest.raises(ReplayError) as ei:
        Session.resume(p)
    assert ei.value.seq == 1 and isinstance(ei.value, ResumeError)


@pytest.mark.parametrize("damage", ["empty", "text", "dir", "truncated", "sqlite"])
def test_resume_of_a_file_that_is_not_a_whole_save_is_a_journal_error(tmp_path, damage):
    p = tmp_path / "x.journal"
    if damage == "empty":
        p.write_bytes(b"")
    elif damage == "text":
        p.write_text(json.dumps({"game": "civmint"}))
    elif damage == "dir":
        p.mkdir()
    elif damage == "truncated":
        q = _save_with(tmp_path, actions=[{"type": "x"}])
        p.write_bytes(q.read_bytes()[:3000])
    else:
        c = sqlite3.connect(p)
        c.execute("create table t(x)")
        c.commit()
        c.close()
    with pytest.raises(JournalError):
        Session.resume(p)
