"""Saves of older versions in WAL mode whose -wal was cut (a truncated copy) or damaged: SQLite
would silently read the log up to its last whole commit and show a shorter game. Each is
reported (never listed healthy) and the readable prefix is offered for recovery; the files
themselves are left untouched. Real SQLite WAL files."""
import shutil

import pytest

from companion.store.journal import (
    Journal, JournalCorrupt, JournalSummary, list_journals,
)

SETUP = {"players": [{"seat": "p1"}, {"seat": "p2"}]}
N = 120


def _fill(j, n, start=0):
    for i in range(start, start + n):
        j.append({"type": "move", "i": i, "pad": "y" * (i * 13 % 300)}, "ui")


@pytest.fixture(scope="module")
def legacy(tmp_path_factory):
    """An older version's save: WAL mode, 120 actions only in its -wal (and its -shm)."""
    d = tmp_path_factory.mktemp("legacy")
    p = d / "old.journal"
    j = Journal.create(p, "civmint", SETUP, "0.0.9")
    j._conn.execute("PRAGMA journal_mode=WAL")
    j._conn.execute("PRAGMA wal_autocheckpoint=0")
    _fill(j, N)
    files = {s: (d / ("old.journal" + s)).read_bytes() for s in ("", "-wal", "-shm")}
    j.close()
    return files


def _place(tmp_path, files, wal=None, shm=False):
    d = tmp_path / "save"
    d.mkdir()
    (d / "old.journal").write_bytes(files[""])
    (d / "old.journal-wal").write_bytes(files["-wal"] if wal is None else wal)
    if shm:
        (d / "old.journal-shm").write_bytes(files["-shm"])
    return d / "old.journal"


def test_the_whole_log_opens_with_every_action(tmp_path, legacy):
    p = _place(tmp_path, legacy)
    assert isinstance(list_journals(p.parent)[0], JournalSummary)
    with Journal.open(p) as j:
        assert len(j) == N


def _frame(legacy):
    page = int.from_bytes(legacy["-wal"][8:12], "big")
    return 24 + page


@pytest.mark.parametrize("cut", ["mid-frame", "inside-a-write", "frame-header", "last-frame-damaged"])
def test_a_cut_log_is_reported_with_its_readable_prefix(tmp_path, legacy, cut):
    wal = legacy["-wal"]
    size = _frame(legacy)
    frames = (len(wal) - 32) // size
    k = frames // 3
    if cut == "mid-frame":
        data = wal[:32 + k * size + size // 2]
    elif cut == "frame-header":
        data = wal[:32 + k * size + 10]
    elif cut == "inside-a-write":  # whole frames, but the last write's commit frame is gone
        ends = [i for i in range(frames)
                if int.from_bytes(wal[32 + i * size + 4:32 + i * size + 8], "big")]
        multi = [e for a, e in zip(ends, ends[1:]) if e - a > 1]
        assert multi, "every write is one frame: cannot cut inside one"
        data = wal[:32 + multi[len(multi) // 2] * size]
    else:
        data = bytearray(wal)
        data[-100] ^= 0x55
        data = bytes(data)
    p = _place(tmp_path, legacy, wal=data)
    item = list_journals(p.parent)[0]
    assert not isinstance(item, JournalSummary), "a cut log listed as healthy"
    assert "write-ahead log" in item.reason and "cut short or damaged" in item.reason
    with pytest.raises(JournalCorrupt) as exc:
        Journal.open(p)
    got = [e.action["i"] for e in exc.value.recovered_actions]
    assert got == list(range(len(got))) and len(got) < N
    assert (p.parent / "old.journal-wal").read_bytes() == data  # nothing checkpointed or moved
    with Journal.recover(p, tmp_path / "recovered.journal") as r:
        assert [e.action["i"] for e in r.actions()] == got


def test_a_log_cut_at_a_commit_is_caught_by_its_index(tmp_path, legacy):
    """Cut exactly after a commit the log alone looks whole; the -shm copied with it still
    counts the frames that were committed."""
    wal = legacy["-wal"]
    size = _frame(legacy)
    frames = (len(wal) - 32) // size
    ends = [i + 1 for i in range(frames)
            if int.from_bytes(wal[32 + i * size + 4:32 + i * size + 8], "big")]
    data = wal[:32 + ends[len(ends) // 2] * size]
    p = _place(tmp_path, legacy, wal=data, shm=True)
    item = list_journals(p.parent)[0]
    assert not isinstance(item, JournalSummary) and "-shm counted" in item.reason
    # without the index nothing tells it from a log that ended there (docs/journal.md limits)
    (p.parent / "old.journal-shm").unlink()
    assert isinstance(list_journals(p.parent)[0], JournalSummary)


def test_every_cut_that_loses_actions_is_reported(tmp_path, legacy):
    """Cuts across the whole log: unless it ends exactly after a commit (the index catches
    those, test above), the save is never listed healthy, and never with more than SQLite reads."""
    wal = legacy["-wal"]
    size = _frame(legacy)
    commits = {32 + (i + 1) * size for i in range((len(wal) - 32) // size)
               if int.from_bytes(wal[32 + i * size + 4:32 + i * size + 8], "big")}
    cuts = list(range(40, len(wal) - 1, max(1, len(wal) // 60)))
    reported = 0
    for n, cut in enumerate(cuts):
        d = tmp_path / str(n)
        d.mkdir()
        p = _place(d, legacy, wal=wal[:cut])
        item = list_journals(p.parent)[0]
        if cut in commits:
            continue
        assert not isinstance(item, JournalSummary), f"cut at byte {cut} listed healthy"
        assert item.last_good_seq < N
        reported += 1
    assert reported >= len(cuts) - 2


def test_a_log_cut_at_a_commit_after_a_checkpoint_is_caught_by_the_saves_header(tmp_path):
    """An older version checkpointed its log into the save (the log stays until the next
    write); the log, cut back to an earlier commit and copied without its -shm, gives fewer
    pages than the save's own header already counts."""
    d = tmp_path / "w"
    d.mkdir()
    p = d / "old.journal"
    j = Journal.create(p, "civmint", SETUP, "0.0.9")
    j._conn.execute("PRAGMA journal_mode=WAL")
    j._conn.execute("PRAGMA wal_autocheckpoint=0")
    _fill(j, N)
    j._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    files = {s: (d / ("old.journal" + s)).read_bytes() for s in ("", "-wal")}
    j.close()
    wal = files["-wal"]
    size = 24 + int.from_bytes(wal[8:12], "big")
    ends = [i + 1 for i in range((len(wal) - 32) // size)
            if int.from_bytes(wal[32 + i * size + 4:32 + i * size + 8], "big")]
    pages = [int.from_bytes(wal[32 + (e - 1) * size + 4:32 + (e - 1) * size + 8], "big") for e in ends]
    own = int.from_bytes(files[""][28:32], "big")
    early = [e for e, n in zip(ends, pages) if n < own]
    assert early, "every commit already had the save's final size"
    q = _place(tmp_path, files, wal=wal[:32 + early[len(early) // 2] * size])
    item = list_journals(q.parent)[0]
    assert not isinstance(item, JournalSummary) and "the save itself already has" in item.reason


def _other_legacy(tmp_path, game, before, after):
    d = tmp_path / ("src-" + game)
    d.mkdir()
    p = d / "old.journal"
    j = Journal.create(p, game, SETUP, "0.0.9")
    _fill(j, before)
    j._conn.execute("PRAGMA journal_mode=WAL")
    j._conn.execute("PRAGMA wal_autocheckpoint=0")
    _fill(j, after, before)
    files = {s: (d / ("old.journal" + s)).read_bytes() for s in ("", "-wal")}
    j.close()
    return files


@pytest.mark.parametrize("which", ["a-log-on-b", "b-log-on-a"])
def test_another_saves_whole_log_is_reported_and_the_save_alone_recovered(tmp_path, which):
    """Whole, valid logs carry nothing naming their save: SQLite would read another save's on
    top of this one (here: silently a 40-action game of another save)."""
    a = _other_legacy(tmp_path, "civmint", 10, 30)
    b = _other_legacy(tmp_path, "mint_works", 25, 20)
    main, log, alone = (b[""], a["-wal"], 25) if which == "a-log-on-b" else (a[""], b["-wal"], 10)
    d = tmp_path / "save"
    d.mkdir()
    (d / "old.journal").write_bytes(main)
    (d / "old.journal-wal").write_bytes(log)
    item = list_journals(d)[0]
    assert not isinstance(item, JournalSummary) and "does not belong to this save" in item.reason
    with pytest.raises(JournalCorrupt) as exc:
        Journal.open(d / "old.journal")
    assert [e.action["i"] for e in exc.value.recovered_actions] == list(range(alone))
    assert (d / "old.journal-wal").read_bytes() == log
