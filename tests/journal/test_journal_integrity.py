"""Damaged, foreign, truncated and too-new files; recovery; list_journals."""
import hashlib
import json
import os
import random
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.store.journal import (
    SCHEMA_VERSION, BrokenJournal, Journal, JournalCorrupt, JournalError, JournalExists,
    JournalNotFound, JournalSummary, JournalTooNew, NotAJournal, list_journals,
)

SETUP = {"players": [{"seat": "p1", "name": "Ada"}, {"seat": "p2", "name": "Bo"}]}


def is_roll(action):
    return action["type"] == "roll"


def make(path, n=40, undo_every=0, game="civmint", setup=SETUP):
    """A closed journal with n appends (and an undo after every `undo_every`-th)."""
    with Journal.create(path, game, setup, "0.1.0") as j:
        for i in range(n):
            j.append({"type": "move", "i": i, "pad": "x" * (i * 7 % 120)}, "ui" if i % 2 else "board")
            if undo_every and i % undo_every == undo_every - 1:
                j.undo(is_roll)
        return j.entries(), j.actions()


def raw(path):
    """A plain SQLite connection with the append-only triggers removed (to fake damage)."""
    conn = sqlite3.connect(path, isolation_level=None)
    for t in ("entries_no_update", "entries_no_delete", "meta_no_update", "meta_no_delete"):
        conn.execute(f"DROP TRIGGER IF EXISTS {t}")
    return conn


def tamper(path, sql, params=()):
    """Run one SQL statement on the file with the append-only triggers removed."""
    conn = raw(path)
    conn.execute(sql, params)
    conn.close()


def open_corrupt(path) -> JournalCorrupt:
    """Journal.open(path) must raise JournalCorrupt; returns it."""
    with pytest.raises(JournalCorrupt) as exc:
        Journal.open(path)
    return exc.value


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def cleanup(path):
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(str(path) + suffix)
        except FileNotFoundError:
            pass


# --------------------------------------------------------------------------- row checksums


@pytest.mark.parametrize("bad_seq", [1, 17, 40])
def test_tampered_row_detected_with_last_good_seq(tmp_path, bad_seq):
    p = tmp_path / "g.journal"
    entries, _ = make(p)
    tamper(p, "UPDATE entries SET action=? WHERE seq=?", (json.dumps({"type": "move", "i": 999}), bad_seq))
    e = open_corrupt(p)
    assert e.last_good_seq == bad_seq - 1
    assert e.recovered_entries == entries[:bad_seq - 1]
    assert e.recovered_actions == entries[:bad_seq - 1]
    assert str(p) in str(e) and f"entry {bad_seq}" in str(e)


@pytest.mark.parametrize("column, value", [
    ("source", "ui2"), ("created", "2000-01-01T00:00:00.000+00:00"), ("checksum", "0" * 32),
    ("action", '{"type":"move","i":5,"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"'),  # half-written
])
def test_any_column_change_detected(tmp_path, column, value):
    p = tmp_path / "g.journal"
    make(p, n=10)
    tamper(p, f"UPDATE entries SET {column}=? WHERE seq=6", (value,))
    assert open_corrupt(p).last_good_seq == 5


def test_missing_row_detected(tmp_path):
    p = tmp_path / "g.journal"
    make(p, n=10)
    tamper(p, "DELETE FROM entries WHERE seq=4")
    e = open_corrupt(p)
    assert e.last_good_seq == 3 and "entry 4 is missing" in str(e)


def test_dropped_tail_row_with_recomputed_chain_is_not_an_error(tmp_path):
    """Deleting the last rows leaves a valid shorter journal: checksums cannot tell a
    removed tail from a journal that ended there (documented limit)."""
    p = tmp_path / "g.journal"
    entries, _ = make(p, n=10)
    tamper(p, "DELETE FROM entries WHERE seq>8")
    with Journal.open(p) as j:
        assert j.entries() == entries[:8]


def test_swapped_rows_detected(tmp_path):
    p = tmp_path / "g.journal"
    make(p, n=10)
    conn = raw(p)
    a = conn.execute("SELECT source, created, action, checksum FROM entries WHERE seq=3").fetchone()
    b = conn.execute("SELECT source, created, action, checksum FROM entries WHERE seq=4").fetchone()
    conn.execute("UPDATE entries SET source=?, created=?, action=?, checksum=? WHERE seq=3", b)
    conn.execute("UPDATE entries SET source=?, created=?, action=?, checksum=? WHERE seq=4", a)
    conn.close()
    assert open_corrupt(p).last_good_seq == 2


def test_undo_row_with_wrong_target_detected(tmp_path):
    p = tmp_path / "g.journal"
    with Journal.create(p, "civmint", SETUP, "0.1.0") as j:
        for i in range(3):
            j.append({"type": "move", "i": i}, "ui")
    # forge a correctly-checksummed undo row that targets the wrong action
    from companion.store.journal import _row_checksum
    conn = raw(p)
    (prev,) = conn.execute("SELECT checksum FROM entries WHERE seq=3").fetchone()
    text = '{"target":1,"type":"_undo"}'
    conn.execute("INSERT INTO entries VALUES (4,'ui','2026-01-01T00:00:00.000+00:00',?,?)",
                 (text, _row_checksum(prev, 4, "ui", "2026-01-01T00:00:00.000+00:00", text)))
    conn.close()
    assert open_corrupt(p).last_good_seq == 3


def test_tampered_meta_detected(tmp_path):
    p = tmp_path / "g.journal"
    make(p, n=3)
    tamper(p, "UPDATE meta SET value=? WHERE key='setup'", (json.dumps({"players": []}),))
    assert "meta" in str(open_corrupt(p))


def test_corrupt_recovered_actions_apply_undo(tmp_path):
    p = tmp_path / "g.journal"
    make(p, n=12, undo_every=3)  # rows: m m m u m m m u ...
    tamper(p, "UPDATE entries SET created='x' WHERE seq=9")
    e = open_corrupt(p)
    assert e.last_good_seq == 8
    assert [x.seq for x in e.recovered_actions] == [1, 2, 5, 6]


# --------------------------------------------------------------------------- recovery


def test_recover_copies_the_valid_prefix_and_leaves_the_original(tmp_path):
    p = tmp_path / "g.journal"
    entries, _ = make(p, n=30, undo_every=4)
    tamper(p, "UPDATE entries SET action='{\"type\":\"evil\"}' WHERE seq=20")
    before = digest(p)
    e = open_corrupt(p)
    q = tmp_path / "g-recovered.journal"
    with Journal.recover(p, q) as j:
        assert j.entries() == entries[:19]
        assert j.actions() == e.recovered_actions
        assert j.meta["setup"] == SETUP and j.meta["game"] == "civmint"
        assert j.append({"type": "resume"}, "system") == 20
    assert digest(p) == before
    with Journal.open(q) as j:
        assert len(j.entries()) == 20
    with pytest.raises(JournalExists):
        Journal.recover(p, q)


def test_recover_healthy_journal_is_a_copy(tmp_path):
    p = tmp_path / "g.journal"
    entries, actions = make(p, n=5, undo_every=2)
    with Journal.recover(p, tmp_path / "copy.journal") as j:
        assert j.entries() == entries and j.actions() == actions


def test_recover_refuses_foreign_files(tmp_path):
    p = tmp_path / "junk.journal"
    p.write_bytes(b"hello world" * 100)
    with pytest.raises(NotAJournal):
        Journal.recover(p, tmp_path / "out.journal")
    assert not (tmp_path / "out.journal").exists()


# --------------------------------------------------------------------------- truncation


def cut_points(size):
    points = set(range(0, 200))
    points.update(range(200, size, 61))
    for page in range(0, size + 1, 4096):
        points.update({page - 1, page, page + 1, page + 100})
    return sorted(c for c in points if 0 <= c < size)


def test_truncated_file_at_many_cut_points(tmp_path):
    p = tmp_path / "full.journal"
    entries, _ = make(p, n=300, undo_every=9)
    data = p.read_bytes()
    assert len(data) > 10 * 4096  # several pages: the cuts land in every kind of page
    kinds = {}
    best = 0
    for cut in cut_points(len(data)):
        q = tmp_path / f"cut{cut}.journal"
        q.write_bytes(data[:cut])
        try:
            Journal.open(q).close()
        except JournalCorrupt as exc:
            kinds["corrupt"] = kinds.get("corrupt", 0) + 1
            # whatever is recovered is exactly a prefix of the original
            assert exc.recovered_entries == entries[:exc.last_good_seq]
            assert str(q) in str(exc)
            best = max(best, exc.last_good_seq)
            if cut >= len(data) - 4096:
                assert exc.last_good_seq > 0, cut
        except NotAJournal as exc:
            kinds["not"] = kinds.get("not", 0) + 1
            assert cut < 100, (cut, exc)
        else:
            pytest.fail(f"a file cut at {cut} of {len(data)} bytes opened without error")
        assert q.read_bytes() == data[:cut]  # opening never modifies a damaged file
        cleanup(q)
    assert kinds["corrupt"] and kinds["not"]
    assert best >= len(entries) - 40  # the tail page is lost, the rest is recovered


def test_recover_truncated_file(tmp_path):
    p = tmp_path / "full.journal"
    entries, _ = make(p, n=300)
    data = p.read_bytes()
    q = tmp_path / "cut.journal"
    q.write_bytes(data[:len(data) - 3000])
    good = open_corrupt(q).last_good_seq
    assert 200 < good < 300
    with Journal.recover(q, tmp_path / "saved.journal") as j:
        assert j.entries() == entries[:good]
        assert j.append({"type": "after"}, "ui") == good + 1
    assert q.read_bytes() == data[:len(data) - 3000]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_byte_damage_never_gives_wrong_data(tmp_path_factory, data):
    """Overwrite random bytes: opening either fails with a JournalError or returns exactly
    the original history (damage in unused space). Never another exception, never wrong data."""
    base = tmp_path_factory.getbasetemp() / "bitrot-original.journal"
    if not base.exists():
        make(base, n=120, undo_every=7)
    original = base.read_bytes()
    with Journal.open(base) as j:
        entries = j.entries()
    blob = bytearray(original)
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, len(blob) - 1))
        blob[pos] = data.draw(st.integers(0, 255))
    q = tmp_path_factory.getbasetemp() / "bitrot.journal"
    cleanup(q)
    q.write_bytes(bytes(blob))
    try:
        with Journal.open(q) as j:
            assert j.entries() == entries
    except JournalCorrupt as exc:
        assert exc.recovered_entries == entries[:exc.last_good_seq]
    except (NotAJournal, JournalTooNew):
        pass
    finally:
        cleanup(q)


# --------------------------------------------------------------------------- not journals


@pytest.mark.parametrize("content", [
    b"", b"x", b"hello, this is a text file\n" * 50, bytes(range(256)) * 64,
    random.Random(7).randbytes(100_000), b"SQLite format", b"SQLite format 3\x00",
])
def test_not_a_journal(tmp_path, content):
    p = tmp_path / "x.journal"
    p.write_bytes(content)
    with pytest.raises(NotAJournal) as exc:
        Journal.open(p)
    assert str(p) in str(exc.value)
    assert p.read_bytes() == content


def test_sqlite_magic_then_garbage(tmp_path):
    p = tmp_path / "x.journal"
    p.write_bytes(b"SQLite format 3\x00" + random.Random(3).randbytes(50_000))
    with pytest.raises(JournalError):
        Journal.open(p)


def test_other_sqlite_database_is_not_a_journal(tmp_path):
    p = tmp_path / "settings.journal"
    conn = sqlite3.connect(p)
    conn.execute("CREATE TABLE settings (k TEXT, v TEXT)")
    conn.execute("INSERT INTO settings VALUES ('a', 'b')")
    conn.commit()
    conn.close()
    before = digest(p)
    with pytest.raises(NotAJournal) as exc:
        Journal.open(p)
    assert "another application" in str(exc.value)
    conn = sqlite3.connect(p)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not converted to WAL
    conn.close()
    assert digest(p) == before


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(JournalNotFound) as exc:
        Journal.open(tmp_path / "nope.journal")
    assert isinstance(exc.value, FileNotFoundError) and "nope.journal" in str(exc.value)
    with pytest.raises(NotAJournal):
        Journal.open(tmp_path)


# --------------------------------------------------------------------------- schema version


def make_too_new(path, version):
    make(path, n=3)
    tamper(path, "UPDATE meta SET value=? WHERE key='schema_version'", (str(version),))


def test_newer_schema_refused_with_both_versions(tmp_path):
    p = tmp_path / "future.journal"
    make_too_new(p, 7)
    with pytest.raises(JournalTooNew) as exc:
        Journal.open(p)
    msg = str(exc.value)
    assert str(p) in msg and "7" in msg and f"version {SCHEMA_VERSION}" in msg
    assert (exc.value.found, exc.value.supported) == (7, SCHEMA_VERSION)
    with pytest.raises(JournalTooNew):
        Journal.recover(p, tmp_path / "r.journal")


def test_newer_schema_refused_even_if_rest_of_layout_differs(tmp_path):
    """Only the meta table's key/value layout and its schema_version key are frozen."""
    p = tmp_path / "future.journal"
    conn = sqlite3.connect(p)
    conn.execute("PRAGMA application_id=1413696049")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', '12')")
    conn.execute("CREATE TABLE events_v12 (x)")
    conn.commit()
    conn.close()
    with pytest.raises(JournalTooNew, match="12"):
        Journal.open(p)


# --------------------------------------------------------------------------- list_journals


def test_list_journals_with_broken_files_among_good_ones(tmp_path):
    make(tmp_path / "a.journal", n=5, setup={"players": ["Ada", "Bo"]})
    make(tmp_path / "b.journal", n=12, undo_every=4, game="mintworks",
         setup={"players": ["Cy"]})
    make(tmp_path / "c.journal", n=0)
    (tmp_path / "garbage.journal").write_bytes(b"\x00\x01 not a journal" * 10)
    make(tmp_path / "torn.journal", n=200)
    torn = (tmp_path / "torn.journal").read_bytes()
    (tmp_path / "torn.journal").write_bytes(torn[:len(torn) // 2])
    make_too_new(tmp_path / "future.journal", 3)
    (tmp_path / "notes.txt").write_text("not listed")
    (tmp_path / "sub.journal").mkdir()

    items = list_journals(tmp_path)
    good = [i for i in items if isinstance(i, JournalSummary)]
    broken = {os.path.basename(i.path): i for i in items if isinstance(i, BrokenJournal)}
    assert len(items) == 7
    assert items[:3] == good  # healthy first
    assert [os.path.basename(g.path) for g in good] == ["c.journal", "b.journal", "a.journal"]
    by = {os.path.basename(g.path): g for g in good}
    assert by["a.journal"].action_count == 5 and by["a.journal"].setup == {"players": ["Ada", "Bo"]}
    assert by["b.journal"].action_count == 9 and by["b.journal"].game == "mintworks"
    assert by["c.journal"].action_count == 0 and by["c.journal"].updated == by["c.journal"].created
    assert by["a.journal"].updated >= by["a.journal"].created
    assert set(broken) == {"garbage.journal", "torn.journal", "future.journal", "sub.journal"}
    assert broken["garbage.journal"].error == "NotAJournal"
    assert broken["torn.journal"].error == "JournalCorrupt"
    assert broken["torn.journal"].last_good_seq > 20
    assert broken["future.journal"].error == "JournalTooNew"
    for b in broken.values():
        assert b.path in b.reason and len(b.reason) > 20


def test_list_journals_empty_or_missing_directory(tmp_path):
    assert list_journals(tmp_path) == []
    assert list_journals(tmp_path / "missing") == []


def test_list_journals_does_not_change_files(tmp_path):
    make(tmp_path / "a.journal", n=5)
    (tmp_path / "junk.journal").write_bytes(b"junk")
    before = {p.name: digest(p) for p in tmp_path.iterdir()}
    list_journals(tmp_path)
    after = {p.name: digest(p) for p in tmp_path.iterdir() if p.name in before}
    assert after == before


def test_list_journals_sees_a_journal_open_for_writing(tmp_path):
    with Journal.create(tmp_path / "live.journal", "civmint", SETUP, "0.1.0") as j:
        j.append({"type": "x"}, "ui")
        j.append({"type": "y"}, "ui")
        (item,) = list_journals(tmp_path)
        assert item.action_count == 2
        j.append({"type": "z"}, "ui")
    (item,) = list_journals(tmp_path)
    assert item.action_count == 3


def test_undo_refusal_and_latest_actions_agree_with_undo(tmp_path):
    """undo_refusal says exactly what undo would do; actions(last=n) is the tail of actions()."""
    from companion.store.journal import Journal, UndoRefused

    def chance(a):
        return a["type"] == "roll"

    j = Journal.create(tmp_path / "u.journal", "toy", {}, app_version="test")
    assert j.undo_refusal(chance) == "there is no action to undo"
    j.append({"type": "roll", "die": 3}, "system")
    assert "revealed a chance result" in j.undo_refusal(chance)
    with pytest.raises(UndoRefused):
        j.undo(chance)
    for i in range(5):
        j.append({"type": "move", "n": i}, "ui")
    assert j.undo_refusal(chance) is None
    j.undo(chance)
    assert [e.action for e in j.actions(last=2)] == [e.action for e in j.actions()[-2:]]
    assert j.actions(last=None) == j.actions() and len(j.actions(last=100)) == 5
    j.close()
