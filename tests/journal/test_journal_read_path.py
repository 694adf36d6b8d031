"""The one-pass read of a journal (Journal.open: every row verified and parsed once, the parsed
actions handed to the first reader) gives what a plain, independent read of the file gives, and
still finds every damaged row, including rows whose bytes are not UTF-8 (read again leniently)."""
import hashlib
import json
import random
import sqlite3

import pytest
from hypothesis import given, settings, strategies as st

from companion.store.journal import Journal, JournalCorrupt, _parse_action

SETUP = {"players": [{"seat": "p1", "name": "Ada"}, {"seat": "p2", "name": "Bo"}]}


def reference(path):
    """An independent reader: (raw rows, effective rows) as (seq, source, action, created), the
    chain of checksums checked as docs/journal.md describes it."""
    conn = sqlite3.connect(path)
    prev, raw, effective = "0" * 32, [], []
    for seq, source, created, text, checksum in conn.execute(
            "SELECT seq, source, created, action, checksum FROM entries ORDER BY seq"):
        h = hashlib.sha256(f"{prev}\n{seq}\n{source}\n{created}\n{text}".encode()).hexdigest()[:32]
        assert h == checksum
        action = json.loads(text)
        raw.append((seq, source, action, created))
        if action["type"] == "_undo":
            assert effective[-1][0] == action["target"]
            effective.pop()
        else:
            effective.append(raw[-1])
        prev = checksum
    conn.close()
    return raw, effective


def as_tuples(entries):
    return [(e.seq, e.source, e.action, e.created) for e in entries]


def random_journal(path, rng, n):
    words = ["élan", "a\u00a0b", "日本", "x" * 50, "", "q\"uote", "back\\slash", "tab\t", "🎲"]
    with Journal.create(path, "civmint", SETUP, "t") as j:
        for _ in range(n):
            r = rng.random()
            if r < 0.15 and len(j):
                j.undo(lambda a: False)
                continue
            action = {"type": rng.choice(["move", "roll", "trade"]), "n": rng.randint(-10**12, 10**12),
                      "f": rng.choice([0.5, -1e-7, 1e300, 3.0]), "w": rng.choice(words),
                      "nested": {"l": [rng.random(), None, True, {"k": rng.choice(words)}]}}
            j.append(action, rng.choice(["ui", "board", "system", "app"]))


@pytest.mark.parametrize("seed", range(6))
def test_one_pass_read_matches_an_independent_read(tmp_path, seed):
    rng = random.Random(seed)
    path = tmp_path / "r.journal"
    random_journal(path, rng, rng.randint(0, 400))
    raw, effective = reference(path)
    # the first reader gets the dicts parsed while opening; the next ones parse again: all equal
    for first in ("actions", "entries", "replay_actions"):
        with Journal.open(path) as j:
            calls = {"actions": lambda: as_tuples(j.actions()),
                     "entries": lambda: as_tuples(j.entries()),
                     "replay_actions": lambda: [(s, src, a) for s, src, a in j.replay_actions()]}
            want = {"actions": effective, "entries": raw,
                    "replay_actions": [(s, src, a) for s, src, a, _ in effective]}
            order = [first] + [k for k in calls if k != first] + [first]
            for name in order:
                assert calls[name]() == want[name], name
            assert len(j) == len(effective)
            assert j.last_seq == (raw[-1][0] if raw else 0)


def test_every_call_gets_dicts_no_one_else_holds(tmp_path):
    path = tmp_path / "f.journal"
    with Journal.create(path, "civmint", SETUP, "t") as j:
        for i in range(5):
            j.append({"type": "move", "i": i, "l": [i]}, "ui")
    with Journal.open(path) as j:
        first = j.replay_actions()
        for _, _, a in first:
            a["i"] = "changed"
            a["l"].append("changed")
        again = j.actions()
        assert [e.action for e in again] == [{"type": "move", "i": i, "l": [i]} for i in range(5)]
        assert [e.action for e in j.entries()] == [e.action for e in again]
        assert all(x.action is not y.action for x, y in zip(again, j.entries()))


def test_appends_after_open_are_read(tmp_path):
    path = tmp_path / "a.journal"
    with Journal.create(path, "civmint", SETUP, "t") as j:
        j.append({"type": "move", "i": 0}, "ui")
    with Journal.open(path) as j:
        j.append({"type": "move", "i": 1}, "board")  # before anything was read
        assert [e.action["i"] for e in j.actions()] == [0, 1]
        j.undo(lambda a: False)
        assert [a["i"] for _, _, a in j.replay_actions()] == [0]
        assert [e.action["type"] for e in j.entries()] == ["move", "move", "_undo"]


def _journal_of(path, n):
    with Journal.create(path, "civmint", SETUP, "t") as j:
        for i in range(n):
            j.append({"type": "move", "i": i}, "ui")


def _raw(path):
    conn = sqlite3.connect(path, isolation_level=None)
    for t in ("entries_no_update", "entries_no_delete"):
        conn.execute(f"DROP TRIGGER IF EXISTS {t}")
    return conn


@pytest.mark.parametrize("column", ["action", "source", "created", "checksum"])
@pytest.mark.parametrize("bad_seq", [1, 50, 200])
def test_bytes_that_are_not_utf8_are_found_in_any_column(tmp_path, column, bad_seq):
    # SQLite's strict decoding fails on them: the rows are read again leniently, and the row is
    # refused (its checksum, or the text cannot be hashed) with the prefix before it recovered
    path = tmp_path / "u.journal"
    _journal_of(path, 200)
    conn = _raw(path)
    conn.execute(f"UPDATE entries SET {column} = CAST({column} AS BLOB) || x'ff' WHERE seq=?", (bad_seq,))
    conn.execute(f"UPDATE entries SET {column} = CAST({column} AS TEXT) WHERE seq=?", (bad_seq,))
    assert conn.execute(f"SELECT typeof({column}) FROM entries WHERE seq=?", (bad_seq,)).fetchone() == ("text",)
    conn.close()
    with pytest.raises(JournalCorrupt) as exc:
        Journal.open(path)
    assert exc.value.last_good_seq == bad_seq - 1
    assert [e.action["i"] for e in exc.value.recovered_actions] == list(range(bad_seq - 1))
    # the row named: its checksum fails, or (source, created: hashed as strict UTF-8, as ever)
    # the read stops right before it
    assert f"entry {bad_seq} fails" in str(exc.value) or f"past entry {bad_seq - 1}:" in str(exc.value)


@pytest.mark.parametrize("bad_seq", [1, 123, 300])
def test_a_changed_row_is_found_in_a_long_journal(tmp_path, bad_seq):
    path = tmp_path / "c.journal"
    _journal_of(path, 300)
    conn = _raw(path)
    conn.execute("UPDATE entries SET action=? WHERE seq=?", ('{"i":7,"type":"move"}', bad_seq))
    conn.close()
    with pytest.raises(JournalCorrupt) as exc:
        Journal.open(path)
    assert exc.value.last_good_seq == bad_seq - 1
    assert "fails its checksum" in str(exc.value)


def _rewrite_checksummed(path, seq, text):
    """Replace row `seq`'s action text and re-chain every checksum from it (a deliberate edit the
    checksums cannot see): what remains is the JSON check."""
    conn = _raw(path)
    conn.execute("UPDATE entries SET action=? WHERE seq=?", (text, seq))
    prev = "0" * 32
    for s, source, created, action in conn.execute(
            "SELECT seq, source, created, action FROM entries ORDER BY seq").fetchall():
        h = hashlib.sha256(f"{prev}\n{s}\n{source}\n{created}\n".encode()
                           + action.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        conn.execute("UPDATE entries SET checksum=? WHERE seq=?", (h, s))
        prev = h
    conn.close()


@pytest.mark.parametrize("text, ok", [
    (' {"type": "move", "i": 1} ', True),  # not canonical but JSON: read as before
    ('{"type":"move"}\n', True),
    ('\ufeff{"type":"move"}', False),  # json.loads refuses a BOM
    ('{"type":"move"} x', False),
    ('{"type":"move"}{"type":"move"}', False),
    ('{"type":"move",}', False),
    ('[{"type":"move"}]', None),  # JSON, not an action
    ('{"type":7}', None),
    ('{"type":"move","x":NaN}', True),  # json.loads reads NaN: as before
])
def test_json_of_a_row_is_read_as_json_loads_reads_it(tmp_path, text, ok):
    path = tmp_path / "j.journal"
    _journal_of(path, 5)
    _rewrite_checksummed(path, 3, text)
    if ok:
        with Journal.open(path) as j:
            assert len(j.actions()) == 5
            assert j.actions()[2].action["type"] == "move"
        return
    with pytest.raises(JournalCorrupt) as exc:
        Journal.open(path)
    assert exc.value.last_good_seq == 2
    assert ("is not valid JSON" if ok is False else "is not an action") in str(exc.value)


json_text = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=3),
    max_leaves=10).map(lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


@settings(max_examples=300, deadline=None)
@given(st.one_of(json_text, json_text.map(lambda t: " " + t), json_text.map(lambda t: t + "]"),
                 json_text.map(lambda t: t[:-1]), st.text(max_size=20)))
def test_parse_action_is_json_loads(text):
    try:
        want = json.loads(text)
    except Exception as exc:  # noqa: BLE001 - the same kind of error, whatever it is
        with pytest.raises(type(exc)):
            _parse_action(text)
        return
    got = _parse_action(text)
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)


def test_deep_nesting_behaves_as_json_loads():
    text = "[" * 100000 + "]" * 100000
    with pytest.raises(RecursionError):
        json.loads(text)
    with pytest.raises(RecursionError):
        _parse_action(text)


def _repeating_journal(path):
    """Rows of few texts (a long game repeats a few hundred), with undos between them."""
    with Journal.create(path, "civmint", SETUP, "t") as j:
        for i in range(60):
            j.append({"type": "move", "l": [i % 3]}, "ui")
            if i % 7 == 6:
                j.undo(lambda a: False)


def test_rows_of_the_same_text_read_as_an_independent_read(tmp_path):
    path = tmp_path / "rep.journal"
    _repeating_journal(path)
    raw, effective = reference(path)
    for shared in (True, False):
        with Journal.open(path) as j:
            got = j.replay_actions(shared=shared)
            assert [(s, src, a) for s, src, a in got] == [(s, src, a) for s, src, a, _ in effective]
            if not shared:  # each its own dict, as ever
                assert len({id(a) for _, _, a in got}) == len(got)
            assert as_tuples(j.actions()) == effective and as_tuples(j.entries()) == raw
    with Journal.open(path) as j:  # the first full read: repeats get their own dicts too
        for e in j.entries():
            e.action.setdefault("l", []).append("changed")
        assert [e.action for e in j.actions()] == [a for _, _, a, _ in effective]
    with Journal.open(path) as j:
        acts = j.actions()
        assert len({id(e.action) for e in acts}) == len(acts)


def test_a_changed_repeat_of_an_earlier_text_is_still_found(tmp_path):
    # the second row of a text is not parsed again, but its checksum is still checked
    path = tmp_path / "rep.journal"
    _repeating_journal(path)
    conn = _raw(path)
    conn.execute("UPDATE entries SET action=? WHERE seq=?", ('{"l":[1],"type":"move"}', 10))
    conn.close()
    with pytest.raises(JournalCorrupt) as exc:
        Journal.open(path)
    assert exc.value.last_good_seq == 9 and "entry 10 fails its checksum" in str(exc.value)


def test_last_entries_are_read_alone(tmp_path):
    path = tmp_path / "l.journal"
    _repeating_journal(path)
    with Journal.open(path) as j:
        whole = as_tuples(j.entries())
        assert as_tuples(j.entries(last=3)) == whole[-3:]
        assert as_tuples(j.entries(last=1)) == whole[-1:]
        j.undo(lambda a: False)
        e = j.entries(last=1)[0]
        assert e.action["type"] == "_undo" and e.seq == whole[-1][0] + 1
