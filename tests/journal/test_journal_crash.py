"""kill -9 during writes: nothing that append() returned is ever lost."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from companion.store.journal import Journal, JournalSummary, list_journals

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = textwrap.dedent("""
    import sys
    from companion.store.journal import Journal
    j = Journal.open(sys.argv[1])
    i = len(j.entries())
    while True:
        # varied sizes so rows straddle pages and the WAL grows past auto-checkpoints
        seq = j.append({"type": "tick", "i": i, "pad": "x" * (i * 37 % 3000)},
                       ("ui", "board", "system")[i % 3])
        sys.stdout.write("%d\\n" % seq)
        sys.stdout.flush()
        i += 1
""")


def run_and_kill(path, lines_before_kill):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=ROOT)
    printed = []
    try:
        while len(printed) < lines_before_kill:
            line = proc.stdout.readline()
            if not line:
                pytest.fail("child died early: " + proc.stderr.read().decode())
            printed.append(int(line))
        os.kill(proc.pid, signal.SIGKILL)
        rest = proc.stdout.read()  # lines already printed before the kill landed
        printed += [int(x) for x in rest.split()]
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    return printed


def check(path, printed, already):
    with Journal.open(path) as j:
        entries = j.entries()
    by_seq = {e.seq: e for e in entries}
    for seq in printed:
        e = by_seq[seq]  # KeyError = a committed action was lost
        assert e.action["type"] == "tick" and e.action["i"] == seq - 1
        assert e.action["pad"] == "x" * ((seq - 1) * 37 % 3000)
        assert e.source == ("ui", "board", "system")[(seq - 1) % 3]
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    # at most the one append in flight when killed may be present without having been printed
    assert already + len(printed) <= len(entries) <= already + len(printed) + 1
    return len(entries)


@pytest.mark.parametrize("kills", [(1, 5, 60, 300), (250, 700)])
def test_sigkill_during_appends_loses_nothing_committed(tmp_path, kills):
    path = tmp_path / "crash.journal"
    Journal.create(path, "civmint", {"players": ["p1", "p2"]}, "0.1.0").close()
    total = 0
    for n in kills:
        printed = run_and_kill(path, n)
        assert printed == list(range(total + 1, total + 1 + len(printed)))
        # the listing reads the crashed file (rolling back a write cut short, if any)
        (summary,) = list_journals(tmp_path)
        assert isinstance(summary, JournalSummary), summary
        assert summary.action_count >= total + len(printed)
        total = check(path, printed, total)
    # the journal is still writable after the crashes
    with Journal.open(path) as j:
        assert j.append({"type": "after"}, "ui") == total + 1


def test_sigkill_then_recover_copy(tmp_path):
    path = tmp_path / "crash.journal"
    Journal.create(path, "civmint", {"players": ["p1", "p2"]}, "0.1.0").close()
    printed = run_and_kill(path, 120)
    with Journal.recover(path, tmp_path / "copy.journal") as j:
        assert {e.seq for e in j.entries()} >= set(printed)
