"""The Log of a resumed long game (issue 39 item 12), read a page at a time (prints, asserts nothing).

    .venv/bin/python benchmarks/bench_history.py

For each game, bench_speed.py's long seeded game is written to a journal and resumed; then the
history is built (a replay of the actions, no words), its first page (40 entries) is put in
words, then the table changes of every entry (what the "At the table" list reads, still whole),
and, for comparison, every other word (what the first Log cost before it was paged).
Figures are CPU time, and ratios against resuming the same save in the same run.
"""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench_speed import play  # noqa: E402 - the same long games as the resume figures

from companion.controller import GameController  # noqa: E402
from companion.engine import Session  # noqa: E402
from companion.games import get_game  # noqa: E402

PAGE = 40


def cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def main():
    print(f"{'game':<15}{'actions':>8}{'resume':>10}{'history':>10}{'1st page':>10}{'table list':>12}"
          f"{'other words':>13}{'1st Log / resume':>18}{'with table list':>17}{'before / resume':>17}")
    with tempfile.TemporaryDirectory() as d:
        for name in ("civmint", "civ_quest", "civ_builder", "mint_works", "civ_card_game"):
            setup, acts, _, _ = play(name, 99, limit=10000, long=True)
            path = os.path.join(d, f"{name}.journal")
            sess = Session.new(get_game(name), setup, journal_path=path, seed=1)
            for a in acts:
                sess.journal.append(a.to_dict() if hasattr(a, "to_dict") else a, "ui")
            sess.close()
            t_open, c = cpu(lambda: GameController.open(path))
            t_hist, h = cpu(lambda: c.history)
            t_page, _ = cpu(lambda: h.text(limit=PAGE))
            t_table, _ = cpu(lambda: [e.table for e in h.entries])
            t_all, _ = cpu(lambda: [(e.text, e.effects, e.round) for e in h.entries])
            first = t_hist + t_page
            before = first + t_table + t_all
            print(f"{name:<15}{len(h.entries):>8,}{t_open * 1e3:>8.0f}ms{t_hist * 1e3:>8.0f}ms{t_page * 1e3:>8.1f}ms"
                  f"{t_table * 1e3:>10.0f}ms{t_all * 1e3:>11.0f}ms{first / t_open:>17.1f}x"
                  f"{(first + t_table) / t_open:>16.1f}x{before / t_open:>16.1f}x")
            c.close()


if __name__ == "__main__":
    main()
