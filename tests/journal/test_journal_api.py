"""Journal API: round trip, validation, undo policy, lifecycle. Real SQLite files, no mocks."""
import dataclasses
import hashlib
import json
import math
import sqlite3

import pytest

from companion.store.journal import (
    Entry, Journal, JournalClosed, JournalError, JournalExists, JournalWriteError, SCHEMA_VERSION,
    UNDO_TYPE, UndoRefused,
)

SETUP = {"players": [{"seat": "p1", "name": "Ada", "colour": "red"},
                     {"seat": "p2", "name": "Bo", "colour": "blue"}], "variant": "standard"}


def is_roll(action):
    return action["type"] == "roll"


@pytest.fixture
def jpath(tmp_path):
    return tmp_path / "game.journal"


@pytest.fixture
def journal(jpath):
    j = Journal.create(jpath, "civmint", SETUP, "0.1.0")
    yield j
    j.close()


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- round trip


def test_append_returns_sequence_and_round_trips_after_reopen(jpath, journal):
    sent = [
        ({"type": "roll", "well": "well0", "value": 4}, "board"),
        ({"type": "advance", "lane": "military_might.p2", "to": 3, "note": "héllo ✓"}, "ui"),
        ({"type": "upkeep", "nested": {"a": [1, 2.5, None, True, {"b": "c"}]}}, "system"),
    ]
    seqs = [journal.append(a, s) for a, s in sent]
    assert seqs == [1, 2, 3]
    assert len(journal) == 3
    journal.close()

    with Journal.open(jpath) as j:
        got = j.actions()
        assert [(e.seq, e.action, e.source) for e in got] == [
            (i + 1, a, s) for i, (a, s) in enumerate(sent)]
        assert all(isinstance(e, Entry) and e.created.endswith("+00:00") for e in got)
        assert j.entries() == got
        assert j.meta == {"game": "civmint", "setup": SETUP, "created": j.meta["created"],
                          "app_version": "0.1.0", "schema_version": SCHEMA_VERSION, "data_version": 1}
        assert j.path == jpath
        assert j.append({"type": "next"}, "ui") == 4  # numbering continues after reopen


def test_entry_is_frozen_and_returned_actions_are_copies(journal):
    journal.append({"type": "move", "to": [1, 2]}, "ui")
    e = journal.actions()[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.seq = 9
    e.action["to"].append(3)  # mutating a returned dict must not change the journal
    assert journal.actions()[0].action == {"type": "move", "to": [1, 2]}


def test_caller_mutating_its_dict_after_append_changes_nothing(journal):
    action = {"type": "move", "to": 1}
    journal.append(action, "ui")
    action["to"] = 99
    assert journal.actions()[0].action["to"] == 1


def test_tuples_come_back_as_lists(journal):
    journal.append({"type": "place", "at": (3, 4)}, "board")
    assert journal.actions()[0].action == {"type": "place", "at": [3, 4]}


def test_create_refuses_to_overwrite(jpath, journal):
    journal.append({"type": "x"}, "ui")
    journal.close()
    before = digest(jpath)
    with pytest.raises(JournalExists) as exc:
        Journal.create(jpath, "civmint", {}, "0.1.0")
    assert str(jpath) in str(exc.value)
    assert isinstance(exc.value, FileExistsError) and isinstance(exc.value, JournalError)
    assert digest(jpath) == before


def test_create_refuses_to_overwrite_any_file(tmp_path):
    p = tmp_path / "notes.journal"
    p.write_text("precious")
    with pytest.raises(JournalExists):
        Journal.create(p, "civmint", {}, "0.1.0")
    assert p.read_text() == "precious"


@pytest.mark.parametrize("game, setup, version", [
    ("", {}, "1"), (None, {}, "1"), ("civmint", [], "1"), ("civmint", {"x": {1, 2}}, "1"),
    ("civmint", {}, 1),
])
def test_create_validates_arguments(tmp_path, game, setup, version):
    p = tmp_path / "a.journal"
    with pytest.raises(ValueError):
        Journal.create(p, game, setup, version)
    assert not p.exists()


def test_no_temporary_files_left_after_create(tmp_path):
    with Journal.create(tmp_path / "a.journal", "civmint", SETUP, "0.1.0") as j:
        j.append({"type": "x"}, "ui")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.journal"]


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("source", ["UI", "", "player", None, 3, ["ui"], b"ui"])
def test_bad_source_rejected_and_nothing_written(jpath, journal, source):
    journal.append({"type": "ok"}, "ui")
    journal.close()
    before = digest(jpath)
    with Journal.open(jpath) as j:
        with pytest.raises(ValueError):
            j.append({"type": "x"}, source)
        with pytest.raises(ValueError):
            j.undo(is_roll, source=source)
        assert len(j.entries()) == 1
    assert digest(jpath) == before
    with Journal.open(jpath) as j:
        assert [e.action for e in j.entries()] == [{"type": "ok"}]


class Opaque:
    pass


_circular = {"type": "loop"}
_circular["self"] = _circular

BAD_ACTIONS = [
    None, "roll", ["type", "roll"], {}, {"kind": "roll"}, {"type": 3}, {"type": ""},
    {"type": None}, {"type": UNDO_TYPE, "target": 1}, {"type": "_secret"},
    {"type": "x", "v": math.nan}, {"type": "x", "v": math.inf}, {"type": "x", "v": {1, 2}},
    {"type": "x", "v": Opaque()}, {"type": "x", 1: "int key"}, {"type": "x", "v": {(1, 2): 3}},
    {"type": "x", "v": b"bytes"}, _circular, {"type": "x", "v": "\ud800"},
    {"type": "x", "\udc80": 1}, {"type": "\ud800"},
]


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=range(len(BAD_ACTIONS)))
def test_bad_action_rejected_and_nothing_written(jpath, journal, action):
    journal.append({"type": "ok"}, "ui")
    journal.close()
    with Journal.open(jpath) as j:
        with pytest.raises(ValueError):
            j.append(action, "ui")
        assert len(j.entries()) == 1
        assert j.append({"type": "after"}, "ui") == 2  # journal still usable, no gap
    with Journal.open(jpath) as j:
        assert [e.action["type"] for e in j.entries()] == ["ok", "after"]


def test_nothing_written_byte_for_byte(jpath, journal):
    journal.append({"type": "ok"}, "ui")
    journal.close()
    with Journal.open(jpath) as j:
        before = digest(jpath)
        for action in BAD_ACTIONS:
            with pytest.raises(ValueError):
                j.append(action, "ui")
    assert digest(jpath) == before


# --------------------------------------------------------------------------- undo


def test_undo_removes_latest_effective_action_and_is_recorded(jpath, journal):
    for i in range(4):
        journal.append({"type": "move", "i": i}, "ui")
    undone = journal.undo(is_roll)
    assert (undone.seq, undone.action) == (4, {"type": "move", "i": 3})
    assert journal.undo(is_roll).seq == 3
    assert [e.seq for e in journal.actions()] == [1, 2]
    assert len(journal) == 2
    raw = journal.entries()
    assert [e.action for e in raw[4:]] == [{"type": UNDO_TYPE, "target": 4},
                                          {"type": UNDO_TYPE, "target": 3}]
    assert [e.seq for e in raw] == [1, 2, 3, 4, 5, 6]
    assert journal.append({"type": "move", "i": 9}, "ui") == 7
    journal.close()
    with Journal.open(jpath) as j:
        assert [(e.seq, e.action.get("i")) for e in j.actions()] == [(1, 0), (2, 1), (7, 9)]
        assert len(j.entries()) == 7
        assert j.undo(is_roll).seq == 7  # undo works across reopen
        assert [e.seq for e in j.actions()] == [1, 2]


def test_undo_with_nothing_to_undo_refused(jpath, journal):
    with pytest.raises(UndoRefused) as exc:
        journal.undo(is_roll)
    assert str(jpath) in str(exc.value)
    journal.append({"type": "a"}, "ui")
    journal.undo(is_roll)
    with pytest.raises(UndoRefused):
        journal.undo(is_roll)
    assert len(journal.entries()) == 2


def test_undo_never_crosses_a_chance_action(journal):
    journal.append({"type": "move"}, "ui")                     # 1
    journal.append({"type": "roll", "value": 6}, "board")      # 2 chance
    journal.append({"type": "move"}, "ui")                     # 3
    journal.append({"type": "spend"}, "ui")                    # 4
    assert journal.undo(is_roll).seq == 4
    assert journal.undo(is_roll).seq == 3
    with pytest.raises(UndoRefused) as exc:  # latest effective IS the roll
        journal.undo(is_roll)
    assert "chance" in str(exc.value)
    assert [e.seq for e in journal.actions()] == [1, 2]
    n = len(journal.entries())
    with pytest.raises(UndoRefused):  # and it stays refused; nothing written
        journal.undo(is_roll)
    assert len(journal.entries()) == n
    journal.append({"type": "move"}, "ui")
    assert journal.undo(is_roll).action == {"type": "move"}


def test_undo_refused_when_roll_is_latest(journal):
    journal.append({"type": "move"}, "ui")
    journal.append({"type": "roll", "value": 1}, "board")
    with pytest.raises(UndoRefused):
        journal.undo(is_roll)
    assert len(journal) == 2


def test_undo_chance_predicate_sees_plain_actions_only(journal):
    seen = []
    journal.append({"type": "a"}, "ui")
    journal.append({"type": "b"}, "ui")
    journal.undo(lambda a: seen.append(a) or False)
    journal.undo(lambda a: seen.append(a) or False)
    assert {a["type"] for a in seen} <= {"a", "b"}


def test_undo_chance_on_undone_action_is_still_respected(journal):
    """Stricter reading of the policy: if the predicate now says an already-undone action
    after the target was a chance action, the target is at or before it -> refused."""
    journal.append({"type": "a"}, "ui")
    journal.append({"type": "b"}, "ui")
    journal.undo(lambda a: False)
    with pytest.raises(UndoRefused):
        journal.undo(lambda a: a["type"] == "b")


# --------------------------------------------------------------------------- lifecycle


def test_closed_journal_refuses_writes(journal):
    journal.close()
    journal.close()  # idempotent
    with pytest.raises(JournalClosed):
        journal.append({"type": "x"}, "ui")
    with pytest.raises(JournalClosed):
        journal.undo(is_roll)


def test_context_manager_closes(jpath):
    with Journal.create(jpath, "civmint", SETUP, "0.1.0") as j:
        j.append({"type": "x"}, "ui")
    assert j.closed


def test_rollback_journal_and_full_sync(jpath, journal):
    journal.append({"type": "x"}, "ui")
    conn = sqlite3.connect(jpath)
    try:
        # each commit goes into the main file: no WAL that a copy could leave behind
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        conn.close()
    assert journal._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_rows_cannot_be_updated_or_deleted_even_with_raw_sql(jpath, journal):
    journal.append({"type": "x"}, "ui")
    conn = sqlite3.connect(jpath)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("UPDATE entries SET action='{}' WHERE seq=1")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("DELETE FROM entries")
    finally:
        conn.close()


def test_second_writer_is_detected_not_forked(jpath, journal):
    journal.append({"type": "x"}, "ui")
    other = Journal.open(jpath)
    try:
        assert other.append({"type": "from-other"}, "ui") == 2
        with pytest.raises(JournalWriteError):
            journal.append({"type": "stale"}, "ui")
    finally:
        other.close()
    journal.close()
    with Journal.open(jpath) as j:
        assert [e.action["type"] for e in j.entries()] == ["x", "from-other"]


def test_meta_is_a_copy(journal):
    journal.meta["setup"]["players"].clear()
    assert journal.meta["setup"] == SETUP


def test_action_json_is_canonical_on_disk(jpath, journal):
    journal.append({"type": "x", "b": 1, "a": 2}, "ui")
    conn = sqlite3.connect(jpath)
    try:
        (text,) = conn.execute("SELECT action FROM entries").fetchone()
    finally:
        conn.close()
    assert text == '{"a":2,"b":1,"type":"x"}'
    assert json.loads(text) == {"type": "x", "b": 1, "a": 2}
