"""Journal speed figures (prints, asserts nothing).

    .venv/bin/python benchmarks/bench_journal.py [DIRECTORY]

DIRECTORY defaults to a temporary directory; pass one on the device's real storage to measure
it (each append is an fsync'd SQLite transaction, so the figure is mostly the disk's).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from companion.journal import Journal, list_journals  # noqa: E402

SETUP = {"players": [{"seat": "p1", "name": "Ada"}, {"seat": "p2", "name": "Bo"}]}


def action(i):
    return {"type": "advance", "lane": "military_might.p2", "to": i % 6, "turn": i // 10,
            "note": "typical small action"}


def fs_type(directory):
    try:
        out = subprocess.run(["stat", "-f", "-c", "%T", directory], capture_output=True,
                             text=True, timeout=5).stdout.strip()
        return out or "?"
    except Exception:
        return "?"


def main():
    base = sys.argv[1] if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory(dir=base) as d:
        print(f"directory: {d} (file system: {fs_type(d)})")

        # appends per second (each one committed + fsynced before returning)
        path = os.path.join(d, "appends.journal")
        with Journal.create(path, "civmint", SETUP, "bench") as j:
            n = 1000
            per = []
            t0 = time.perf_counter()
            for i in range(n):
                t = time.perf_counter()
                j.append(action(i), "ui")
                per.append(time.perf_counter() - t)
            total = time.perf_counter() - t0
        per.sort()
        print(f"append: {n / total:,.0f} appends/s over {n} "
              f"(median {statistics.median(per) * 1e3:.2f} ms, p99 {per[int(n * .99)] * 1e3:.2f} ms,"
              f" max {per[-1] * 1e3:.2f} ms)")

        # undo (reads back + appends a correction row)
        with Journal.open(path) as j:
            t = time.perf_counter()
            for _ in range(100):
                j.undo(lambda a: False)
            print(f"undo: {(time.perf_counter() - t) / 100 * 1e3:.2f} ms each (100 undos)")

        # open + read of a 1,000-action journal
        path = os.path.join(d, "thousand.journal")
        with Journal.create(path, "civmint", SETUP, "bench") as j:
            for i in range(1000):
                j.append(action(i), "ui")
        size = os.path.getsize(path)
        times = []
        for _ in range(20):
            t = time.perf_counter()
            with Journal.open(path) as j:
                acts = j.actions()
            times.append(time.perf_counter() - t)
        assert len(acts) == 1000
        print(f"open + actions() of a 1,000-action journal ({size / 1024:.0f} KiB): "
              f"median {statistics.median(times) * 1e3:.1f} ms, min {min(times) * 1e3:.1f} ms "
              f"(20 runs; open verifies quick_check + every row checksum)")
        with Journal.open(path) as j:
            t = time.perf_counter()
            for _ in range(20):
                j.actions()
            print(f"actions() alone (already open): {(time.perf_counter() - t) / 20 * 1e3:.2f} ms")

        # resume screen: list a directory of journals
        for k in range(9):
            with Journal.create(os.path.join(d, f"g{k}.journal"), "civmint", SETUP, "bench") as j:
                for i in range(100):
                    j.append(action(i), "ui")
        t = time.perf_counter()
        items = list_journals(d)
        print(f"list_journals: {len(items)} journals (1,000 + 1,000 + 9 x 100 actions) in "
              f"{(time.perf_counter() - t) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
