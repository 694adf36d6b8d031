"""Journal speed figures (prints, asserts nothing).

    .venv/bin/python benchmarks/bench_journal.py [DIRECTORY]

DIRECTORY defaults to a temporary directory; pass one on the device's real storage to measure
it (each append is an fsync'd SQLite transaction, so the figure is mostly the disk's).
"""
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from companion.store import journal as _j  # noqa: E402
from companion.store.journal import Journal, list_journals  # noqa: E402

SETUP = {"players": [{"seat": "p1", "name": "Ada"}, {"seat": "p2", "name": "Bo"}]}


def action(i):
    return {"type": "advance", "lane": "military_might.p2", "to": i % 6, "turn": i // 10,
            "note": "typical small action"}


def fill(path, n):
    """A new journal at `path` with n actions."""
    with Journal.create(path, "civmint", SETUP, "bench") as j:
        for i in range(n):
            j.append(action(i), "ui")


def fill_at_once(path, n):
    """A journal of n actions written in one transaction (the rows as append() writes them)."""
    meta = {"format": _j.FORMAT_NAME, "schema_version": _j.SCHEMA_VERSION, "game": "civmint",
            "setup": SETUP, "created": _j._now(), "app_version": "bench", "data_version": 1}
    rows, prev = [], _j._GENESIS
    for i in range(n):
        seq, created, text = i + 1, _j._now(), _j._encode_action(action(i))
        prev = _j._row_checksum(prev, seq, "ui", created, text)
        rows.append((seq, "ui", created, text, prev))
    _j._write_new_file(Path(path), meta, rows, {})


def bare_read(path):
    """The least any reader does: one SELECT and json.loads of each row, nothing verified."""
    conn = sqlite3.connect(path)
    try:
        return [json.loads(r[3]) for r in conn.execute(
            "SELECT seq, source, created, action, checksum FROM entries ORDER BY seq")]
    finally:
        conn.close()


def per_call(fn, runs):
    """fn(i) for i in range(runs): the sorted seconds of each call."""
    times = []
    for i in range(runs):
        t = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - t)
    return sorted(times)


def ms(seconds):
    return f"{seconds * 1e3:.2f} ms"


def fs_type(directory):
    try:
        out = subprocess.run(["stat", "-f", "-c", "%T", directory], capture_output=True,
                             text=True, timeout=5).stdout.strip()
        return out or "?"
    except Exception:
        return "?"


def undo_figures(d):
    """Undo in a resumed long Card Game (bench_speed.py's long game: up to 10,000 actions, ~3,300
    since its round limit; ending on 20 player decisions so 20 undos in a row are allowed: a
    revealed roll or draw is never undone), against
    a replay of the whole game (what every undo did before); and the undo row read back alone
    against the whole log (what the app read after every undo before)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_speed import play  # noqa: E402 - the same long games as the resume figures
    from companion.engine import Session
    from companion.engine.session import MARK_EVERY
    from companion.games import get_game

    name = "civ_card_game"
    game = get_game(name)
    setup, acts, _, _ = play(name, 99, limit=10000, long=True)
    # end on a run of player decisions (no roll among the last 20), so 20 undos are allowed
    k = len(acts)
    while k > 0 and any(game.is_chance(a) for a in acts[max(0, k - 20):k]):
        k -= 1
    acts = acts[:k]
    path = os.path.join(d, "undo.journal")
    with Journal.create(path, name, setup, "bench") as j:
        for a in acts:
            j.append(a.to_dict(), "system" if game.is_chance(a) else "ui")
    sess = Session.resume(path)
    per = []
    for _ in range(20):
        t = time.process_time()
        sess.undo()
        per.append(time.process_time() - t)
    initial = game.initial_state(setup)
    history = [a for a, _ in sess.history]
    t = time.process_time()
    game.replay(initial, history)
    whole = time.process_time() - t
    print(f"undo in a resumed {len(acts):,}-action {name} game: median {ms(statistics.median(per))} CPU, "
          f"max {ms(max(per))} over 20 undos in a row (replays from the state kept every {MARK_EVERY} "
          f"actions; a replay of the whole game, what each undo did before: {ms(whole)})")
    j = sess.journal
    per_last = per_call(lambda _: j.entries(last=1), 50)
    per_all = per_call(lambda _: j.entries(), 5)
    print(f"the row an undo just wrote, read back: entries(last=1) "
          f"{statistics.median(per_last) * 1e6:.1f} us "
          f"(the whole log, entries(), what the app read after each undo before: "
          f"{ms(statistics.median(per_all))})")
    sess.close()


def main():
    base = sys.argv[1] if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory(dir=base) as d:
        print(f"directory: {d} (file system: {fs_type(d)})")

        # appends per second (each one committed + fsynced before returning)
        path = os.path.join(d, "appends.journal")
        n = 1000
        with Journal.create(path, "civmint", SETUP, "bench") as j:
            per = per_call(lambda i: j.append(action(i), "ui"), n)
        print(f"append: {n / sum(per):,.0f} appends/s over {n} (median {ms(statistics.median(per))}, "
              f"p99 {ms(per[int(n * .99)])}, max {ms(per[-1])})")

        # undo (reads back + appends a correction row)
        with Journal.open(path) as j:
            per = per_call(lambda _: j.undo(lambda a: False), 100)
        print(f"undo: {ms(statistics.mean(per))} each (100 undos)")

        # open + read of a 1,000-action journal
        path = os.path.join(d, "thousand.journal")
        fill(path, 1000)
        size = os.path.getsize(path)

        def open_and_read(_):
            with Journal.open(path) as j:
                assert len(j.actions()) == 1000

        per = per_call(open_and_read, 20)
        open_median = statistics.median(per)
        print(f"open + actions() of a 1,000-action journal ({size / 1024:.0f} KiB): "
              f"median {ms(statistics.median(per))}, min {ms(per[0])} "
              f"(20 runs; open verifies quick_check + every row checksum)")
        with Journal.open(path) as j:
            per = per_call(lambda _: j.actions(), 20)
        print(f"actions() alone (already open): {ms(statistics.mean(per))}")

        # what a resume reads: open (every check) + replay_actions() of 10,000 actions, against a
        # bare read of the same rows in the same run (a ratio the machine's load cancels out of)
        big = os.path.join(d, "ten_thousand.journal")
        fill_at_once(big, 10000)

        def open_and_replay(_):
            with Journal.open(big) as j:
                assert len(j.replay_actions(shared=True)) == 10000

        def open_and_actions(_):
            with Journal.open(big) as j:
                assert len(j.actions()) == 10000

        bare = per_call(lambda _: bare_read(big), 15)
        for label, fn in (("open + replay_actions(shared=True) (Session.resume)", open_and_replay),
                          ("open + actions()", open_and_actions)):
            per = per_call(fn, 15)
            print(f"{label} of a 10,000-action journal ({os.path.getsize(big) / 1024:.0f} KiB): "
                  f"best {ms(per[0])}, median {ms(statistics.median(per))} = "
                  f"{per[0] / bare[0]:.2f} x a bare read (SELECT + json.loads per row, nothing "
                  f"verified: best {ms(bare[0])})")

        # the same journal with a rollback journal beside it that SQLite would play back: the
        # check plays it back on copies first (companion/store/journal.py _hot_journal_check)
        import shutil
        hot_dir = os.path.join(d, "hot")
        os.mkdir(hot_dir)
        hot = os.path.join(hot_dir, "thousand.journal")

        def with_hot_journal(_):
            shutil.copyfile(path, hot)
            conn = sqlite3.connect(path, isolation_level=None)
            conn.execute("PRAGMA cache_size=10")
            conn.execute("BEGIN IMMEDIATE")
            for k in range(200):  # a write big enough to spill: a synced, hot journal
                conn.execute("INSERT INTO entries VALUES (?, 'ui', 'x', ?, 'bad')",
                             (100000 + k, '{"type":"x","pad":"%s"}' % ("z" * 3000)))
            shutil.copyfile(path + "-journal", hot + "-journal")
            shutil.copyfile(path, hot)  # the crash image: half-written save + its journal
            conn.execute("ROLLBACK")
            conn.close()

        per_hot = []
        for _ in range(5):
            with_hot_journal(0)
            t = time.perf_counter()
            with Journal.open(hot) as j:
                assert len(j.actions()) == 1000
            per_hot.append(time.perf_counter() - t)
        print(f"open + actions() of it after a crash left its own hot -journal: median "
              f"{ms(statistics.median(per_hot))} (5 runs; the journal is played back on copies "
              f"first, ratio {statistics.median(per_hot) / open_median:.1f}x the plain open)")

        # undo and history reads in a long game: what they cost should not grow with the game
        undo_figures(d)

        # resume screen: list a directory of journals
        for k in range(9):
            fill(os.path.join(d, f"g{k}.journal"), 100)
        t = time.perf_counter()
        items = list_journals(d)
        print(f"list_journals: {len(items)} journals (1,000 + 1,000 + 9 x 100 actions) in "
              f"{ms(time.perf_counter() - t)}")


if __name__ == "__main__":
    main()
