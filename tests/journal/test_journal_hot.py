"""A rollback journal beside a save: SQLite plays back any valid one it finds. The save's own
(a write cut short by a crash) is played back; one left by another crash (a backup restored
next to an old leftover) is set aside and reported, and the save opens as it was. Real SQLite
files: the crash images are the files on disk while a real transaction is open."""
import shutil
import sqlite3

import pytest

from companion.store.journal import Journal, JournalSummary, list_journals

SETUP = {"players": [{"seat": "p1"}, {"seat": "p2"}]}


def _fill(j, n, start=0):
    for i in range(start, start + n):
        j.append({"type": "move", "i": i, "pad": "y" * (i * 13 % 300)}, "ui")


def _crash_image(src, dest_dir, spill):
    """The files a crash leaves while a write to ``src`` is in progress: the save and its hot
    -journal. spill: the transaction is big enough that SQLite has already written new pages
    into the save (its cache spilled), so the save alone is half-written."""
    dest_dir.mkdir()
    conn = sqlite3.connect(str(src), isolation_level=None)
    conn.execute("PRAGMA cache_size=10")
    conn.execute("BEGIN IMMEDIATE")
    n = 300 if spill else 1
    for k in range(n):
        conn.execute("INSERT INTO entries VALUES (?, 'ui', 'x', ?, 'bad')",
                     (10000 + k, '{"type":"half","pad":"%s"}' % ("z" * 3000)))
    jr = src.parent / (src.name + "-journal")
    assert jr.exists() and jr.stat().st_size > 0
    shutil.copyfile(src, dest_dir / src.name)
    shutil.copyfile(jr, dest_dir / jr.name)
    conn.execute("ROLLBACK")
    conn.close()
    return dest_dir / src.name


def _save(tmp_path, name, n, game="civmint"):
    p = tmp_path / name
    j = Journal.create(p, game, SETUP, "0.1.0")
    _fill(j, n)
    return p, j


@pytest.mark.parametrize("spill", [False, True])
def test_the_saves_own_hot_journal_is_played_back(tmp_path, spill):
    p, j = _save(tmp_path, "g.journal", 40)
    crashed = _crash_image(p, tmp_path / "crashed", spill)
    j.close()
    if spill:  # the save alone is half-written: without its journal it would be damaged
        assert (crashed.parent / "g.journal-journal").read_bytes()[:8] == bytes.fromhex("d9d505f920a163d7")
        assert crashed.read_bytes() != p.read_bytes()  # new pages already in the file
    with Journal.open(crashed) as c:
        assert [e.action["i"] for e in c.actions()] == list(range(40))
        assert c.notes == []
    assert not [x for x in crashed.parent.iterdir() if ".set-aside-" in x.name]
    if spill:  # a synced journal (its magic written): played back and deleted by SQLite
        assert not (crashed.parent / "g.journal-journal").exists()


def _sqlite_alone(save, journal, tmp_path):
    """What plain SQLite makes of ``save`` with ``journal`` beside it (on copies): its entries'
    seqs after it played the journal back, or the error."""
    d = tmp_path / "plain-sqlite"
    d.mkdir()
    shutil.copyfile(save, d / "g.journal")
    shutil.copyfile(journal, d / "g.journal-journal")
    conn = sqlite3.connect(str(d / "g.journal"))
    try:
        check = conn.execute("PRAGMA quick_check").fetchall()
        seqs = [r[0] for r in conn.execute("SELECT seq FROM entries ORDER BY seq")]
        return seqs, check
    except sqlite3.DatabaseError as exc:
        return None, str(exc)
    finally:
        conn.close()


@pytest.mark.parametrize("backup_actions", [5, 20, 39, 41, 45, 60])
def test_a_leftover_journal_beside_a_restored_backup_is_set_aside(tmp_path, backup_actions):
    """The issue's case: a crash left g.journal-journal; a backup of the same game taken at
    another moment is restored over the save, the leftover stays beside it."""
    p, j = _save(tmp_path, "g.journal", 0)
    backups = tmp_path / "backups"
    backups.mkdir()
    crashed = None
    for n in range(1, 61):
        _fill(j, 1, n - 1)
        if n == 40:
            crashed = _crash_image(p, tmp_path / "crashed", spill=True)
        if n == backup_actions:
            shutil.copyfile(p, backups / "g.journal")
    j.close()
    shutil.copyfile(backups / "g.journal", crashed)  # restored over the crashed save
    leftover = crashed.parent / "g.journal-journal"
    assert leftover.exists()
    seqs, check = _sqlite_alone(crashed, leftover, tmp_path)
    harmful = seqs != list(range(1, backup_actions + 1)) or check != [("ok",)]

    listed = list_journals(crashed.parent)
    assert isinstance(listed[0], JournalSummary), listed
    assert listed[0].action_count == backup_actions  # the backup as it was, whatever happens
    aside = [x for x in crashed.parent.iterdir() if ".set-aside-" in x.name]
    if harmful:  # what plain SQLite would have done to it
        assert listed[0].notes and "does not belong" in listed[0].notes[0]
        assert not leftover.exists() and len(aside) == 1  # kept for a bug report, never deleted
    else:  # playing it back would leave the backup as it was: set aside or not, it is whole
        assert len(aside) == len(listed[0].notes) <= 1
    with Journal.open(crashed) as c:
        assert [e.action["i"] for e in c.actions()] == list(range(backup_actions))
        assert c.notes == []  # said once, when it was set aside
        c.append({"type": "move", "i": backup_actions}, "ui")
    with Journal.open(crashed) as c:
        assert len(c) == backup_actions + 1


def test_a_journal_of_another_game_is_set_aside_when_opened(tmp_path):
    a, ja = _save(tmp_path, "a.journal", 30)
    crashed = _crash_image(a, tmp_path / "crashed", spill=True)
    ja.close()
    b, jb = _save(tmp_path, "b.journal", 25, game="mint_works")
    jb.close()
    shutil.copyfile(crashed.parent / "a.journal-journal", str(b) + "-journal")
    with Journal.open(b) as j:
        assert j.meta["game"] == "mint_works" and len(j) == 25
        assert j.notes and "b.journal-journal" in j.notes[0]
    assert not (tmp_path / "b.journal-journal").exists()


def test_a_live_journal_of_a_writer_is_left_alone(tmp_path):
    """A -journal under a RESERVED lock belongs to a transaction in progress (another app
    instance): it is not hot, never moved."""
    p, j = _save(tmp_path, "g.journal", 5)
    j.close()
    conn = sqlite3.connect(str(p), isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO entries VALUES (99, 'ui', 'x', '{}', 'bad')")
    try:
        listed = list_journals(tmp_path)
        assert (tmp_path / "g.journal-journal").exists()
        assert not [x for x in tmp_path.iterdir() if ".set-aside-" in x.name]
        assert all(not getattr(x, "notes", ()) for x in listed)
    finally:
        conn.execute("ROLLBACK")
        conn.close()


RO_SCRIPT = """
import sys
sys.path.insert(0, %(root)r)
from companion.store.journal import Journal, list_journals
item = list_journals(%(dir)r)[0]
print("LISTED", type(item).__name__, getattr(item, "action_count", None))
print("NOTE", " ".join(getattr(item, "notes", ())))
j = Journal.open(%(path)r, readonly=True)
print("OPENED", len(j))
"""


def test_a_foreign_journal_in_a_read_only_place_is_ignored_and_said(tmp_path):
    """On a real read-only mount the leftover cannot be moved: the save is read as it is,
    ignoring it, and the note says so."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p, j = _save(tmp_path, "g.journal", 0)
    backup = None
    crashed = None
    for n in range(1, 41):
        _fill(j, 1, n - 1)
        if n == 20:
            backup = p.read_bytes()
        if n == 40:
            crashed = _crash_image(p, tmp_path / "card", spill=True)
    j.close()
    crashed.write_bytes(backup)
    seqs, check = _sqlite_alone(crashed, crashed.parent / "g.journal-journal", tmp_path)
    assert seqs != list(range(1, 21)) or check != [("ok",)]  # SQLite alone would change it
    d = crashed.parent
    script = RO_SCRIPT % {"root": root, "path": str(crashed), "dir": str(d)}
    cmd = ["unshare", "-rm", "sh", "-c",
           'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" -c "$3"',
           "sh", str(d), sys.executable, script]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        pytest.skip("unshare not available")
    if "mount" in r.stderr and r.returncode:
        pytest.skip("no user namespaces here: " + r.stderr.strip())
    out = r.stdout
    assert "LISTED JournalSummary 20" in out, out + r.stderr
    assert "could not be moved" in out and "OPENED 20" in out
    assert (d / "g.journal-journal").exists() and crashed.read_bytes() == backup


def test_recover_reads_past_a_foreign_journal_and_leaves_it_in_place(tmp_path):
    a, ja = _save(tmp_path, "a.journal", 30)
    crashed = _crash_image(a, tmp_path / "crashed", spill=True)
    ja.close()
    b, jb = _save(tmp_path, "b.journal", 25, game="mint_works")
    jb.close()
    foreign = crashed.parent / "a.journal-journal"
    shutil.copyfile(foreign, str(b) + "-journal")
    before = b.read_bytes()
    with Journal.recover(b, tmp_path / "copy.journal") as c:
        assert c.meta["game"] == "mint_works" and len(c) == 25
    assert (tmp_path / "b.journal-journal").read_bytes() == foreign.read_bytes()
    assert b.read_bytes() == before  # the original only read
