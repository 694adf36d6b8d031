"""A save copied on its own, a save with a damaged or foreign write-ahead log, a save in a
read-only place (a real read-only mount in a user namespace)."""
import shutil
import subprocess
import sys
import textwrap

import pytest

from companion.store.journal import (
    Journal, JournalCorrupt, JournalReadOnly, JournalSummary, list_journals,
)

SETUP = {"players": [{"seat": "p1"}, {"seat": "p2"}]}


def _fill(j, n, start=0):
    for i in range(start, start + n):
        j.append({"type": "move", "i": i, "pad": "y" * (i * 13 % 300)}, "ui")


def test_the_save_file_copied_alone_while_the_game_runs_holds_every_confirmed_action(tmp_path):
    src = tmp_path / "a" / "g.journal"
    src.parent.mkdir()
    j = Journal.create(src, "civmint", SETUP, "0.1.0")
    _fill(j, 120)
    other = tmp_path / "other-tablet"
    other.mkdir()
    shutil.copyfile(src, other / "g.journal")  # only the .journal, the game still open
    assert sorted(p.name for p in src.parent.iterdir()) == ["g.journal"]  # no side file at all
    j.close()
    with Journal.open(other / "g.journal") as c:
        assert [e.action["i"] for e in c.actions()] == list(range(120))


def _wal_save(tmp_path, n_before=5, n_wal=6):
    """A save as an older version wrote it: WAL mode, the last actions only in the -wal."""
    d = tmp_path / "legacy"
    d.mkdir()
    p = d / "old.journal"
    j = Journal.create(p, "civmint", SETUP, "0.0.9")
    _fill(j, n_before)
    j._conn.execute("PRAGMA journal_mode=WAL")
    j._conn.execute("PRAGMA wal_autocheckpoint=0")
    _fill(j, n_wal, n_before)
    copy = tmp_path / "copied"
    copy.mkdir()
    shutil.copyfile(p, copy / "old.journal")
    shutil.copyfile(str(p) + "-wal", copy / "old.journal-wal")
    j.close()
    return copy / "old.journal"


def test_an_older_wal_save_with_its_log_opens_whole_and_is_converted(tmp_path):
    p = _wal_save(tmp_path)
    with Journal.open(p) as j:
        assert len(j) == 11
    assert not (p.parent / "old.journal-wal").exists() or (p.parent / "old.journal-wal").stat().st_size == 0
    shutil.copyfile(p, tmp_path / "alone.journal")
    with Journal.open(tmp_path / "alone.journal") as j:
        assert len(j) == 11  # converted: the main file alone holds everything now


def test_a_damaged_write_ahead_log_is_reported_never_a_shorter_game(tmp_path):
    p = _wal_save(tmp_path)
    wal = p.parent / "old.journal-wal"
    data = bytearray(wal.read_bytes())
    data[32 + 24 + 100] ^= 0xFF  # inside the first frame's page; later frames follow
    wal.write_bytes(bytes(data))
    with pytest.raises(JournalCorrupt, match="write-ahead log .*damaged"):
        Journal.open(p)
    item = list_journals(p.parent)[0]
    assert not isinstance(item, JournalSummary) and "write-ahead log" in item.reason
    assert wal.read_bytes() == bytes(data)  # nothing was checkpointed or changed


def test_a_foreign_write_ahead_log_beside_a_save_is_reported_not_applied(tmp_path):
    legacy = _wal_save(tmp_path)
    p = tmp_path / "new.journal"
    with Journal.create(p, "civmint", SETUP, "0.1.0") as j:
        _fill(j, 3)
    shutil.copyfile(str(legacy) + "-wal", str(p) + "-wal")
    with pytest.raises(JournalCorrupt, match="does not belong|do not belong"):
        Journal.open(p)
    (tmp_path / "new.journal-wal").unlink()
    with Journal.open(p) as j:
        assert len(j) == 3


RO_SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, %(root)r)
    from companion.store.journal import Journal, JournalReadOnly, JournalSummary, list_journals
    p = %(path)r
    try:
        Journal.open(p)
        print("OPENED")
    except JournalReadOnly as exc:
        print("READONLY", exc)
    j = Journal.open(p, readonly=True)
    print("ACTIONS", len(j))
    try:
        j.append({"type": "x"}, "ui")
    except JournalReadOnly:
        print("APPEND-REFUSED")
    print("LISTED", [type(x).__name__ for x in list_journals(%(dir)r)])
""")


@pytest.mark.parametrize("legacy", [False, True])
def test_a_save_on_a_read_only_mount_is_reported_read_only_not_damaged(tmp_path, legacy):
    import os
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    d = tmp_path / "card"
    d.mkdir()
    p = d / "g.journal"
    with Journal.create(p, "civmint", SETUP, "0.1.0") as j:
        _fill(j, 7)
        if legacy:  # an older version's WAL-mode save, closed cleanly
            j._conn.execute("PRAGMA journal_mode=WAL")
    script = RO_SCRIPT % {"root": root, "path": str(p), "dir": str(d)}
    cmd = ["unshare", "-rm", "sh", "-c",
           'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" -c "$3"',
           "sh", str(d), sys.executable, script]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        pytest.skip("unshare not available")
    if "mount" in r.stderr and r.returncode:
        pytest.skip("no user namespaces here: " + r.stderr.strip())
    out = r.stdout
    assert "READONLY" in out and "read-only" in out and "damaged" not in out, out + r.stderr
    assert "ACTIONS 7" in out and "APPEND-REFUSED" in out
    assert "LISTED ['JournalSummary']" in out
