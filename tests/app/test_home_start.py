"""The home screen starts fast however many games are saved (issue 18 item 6): the first
screenful of rows is built before the first frame and the rest follow a batch a frame; a save
listed once (verified in full, or copied in with its summary) is listed from its stored summary
at the next start, without opening its journal."""
import os
import shutil
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(240)


def scenario_many_saves_fill_in_batches(app, drv):
    from companion.store import journal as J
    from companion.store import save_summary
    from companion.controller import GameController

    d = str(app.games_dir)
    g = GameController.new(d, ("Ana", "Ben"), ("blue", "green"), seed=4)
    g.roll_virtual()
    first = g.path
    g.close()
    for i in range(29):  # copied in with their summaries: listed from them after one check
        dst = os.path.join(d, f"copy{i:02d}.journal")
        shutil.copy(first, dst)
        shutil.copy(save_summary.sidecar_path(first), save_summary.sidecar_path(dst))
    home = app.root.get_screen("home")
    opened = []
    real = J._summarise
    J._summarise = lambda p: opened.append(str(p)) or real(p)
    try:
        home.refresh()
        built = len(drv.find(home, "SavedGameRow"))
        assert built == home.FIRST_ROWS and home.games_count == 30
        drv.wait_for(lambda: len(drv.find(home, "SavedGameRow")) == 30, 10, "every row")
        assert len(opened) == 29  # the copies were verified once (the closed game was not)
        opened.clear()
        home.refresh()
        drv.wait_for(lambda: len(drv.find(home, "SavedGameRow")) == 30, 10, "every row again")
        assert opened == []  # ... and not again
        # a refresh while rows are still coming replaces them, never doubles them
        home.refresh()
        home.refresh()
        drv.pump(8)
        assert len(drv.find(home, "SavedGameRow")) == 30
    finally:
        J._summarise = real
    rows = [r for r in drv.find(home, "SavedGameRow") if r.path.endswith("copy28.journal")]
    drv.press(rows[0].children[0])
    drv.pump(3)
    assert app.root.current == "game" and app.ctrl.path.endswith("copy28.journal")


def test_many_saves_fill_in_batches(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_many_saves_fill_in_batches", tmp_path, timeout=120)


def scenario_first_screenful_read_first_then_the_list_is_complete(app, drv):
    """Issue 39.12: before the first frame Home reads only the first screenful of saves (the most
    recently written files); the rest are read as their rows come, and each lands in its place,
    so the finished list is the whole list in list_games' order, even where a file's time
    disagrees with its last entry."""
    from companion import controller as C
    from companion.controller import GameController
    from companion.store import save_summary

    d = str(app.games_dir)
    g = GameController.new(d, ("Ana", "Ben"), ("blue", "green"), seed=4)
    g.roll_virtual()
    first = g.path
    g.close()
    n = 40
    for i in range(n - 1):
        dst = os.path.join(d, f"copy{i:02d}.journal")
        shutil.copy(first, dst)
        shutil.copy(save_summary.sidecar_path(first), save_summary.sidecar_path(dst))
    with open(os.path.join(d, "zz-broken.journal"), "wb") as f:  # a broken one: listed after the good
        f.write(b"not a journal at all" * 10)
    # file times that disagree with the list's order: the oldest file name written last
    for i in range(n - 1):
        t = 1_700_000_000 + (n - i) * 60
        os.utime(os.path.join(d, f"copy{i:02d}.journal"), (t, t))
    home = app.root.get_screen("home")
    read = []
    real = C.saved_game
    C.saved_game = lambda p: read.append(p) or real(p)
    try:
        home.refresh()
        assert len(read) == home.FIRST_ROWS and home.games_count == n + 1
        assert home.filling
        drv.wait_for(lambda: not home.filling, 15, "the list filled in")
    finally:
        C.saved_game = real
    assert sorted(read) == sorted(str(p) for p in C.saved_game_files(d))  # each read once
    rows = [w for w in reversed(home.ids.saved_list.children) if hasattr(w, "path")]
    want = [it.path for it in C.list_games(d)]
    assert [r.path for r in rows] == want and len(want) == n + 1
    assert rows[-1].path.endswith("zz-broken.journal") and type(rows[-1]).__name__ == "BrokenGameRow"


def test_first_screenful_read_first_then_the_list_is_complete(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_first_screenful_read_first_then_the_list_is_complete", tmp_path,
                 timeout=120)
