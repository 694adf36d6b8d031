"""The saved-games list and app start survive any file in the games folder (issue 16, item 4):
a FIFO (must not block), a directory, an empty or non-SQLite file, a dangling symlink, a save of a
game this build lacks and a save whose setup the game cannot start from are each listed as broken
with a plain reason; the good save is still listed and opens."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(240)


def scenario_odd_files_are_listed_as_broken(app, drv):
    from companion.store import journal as J
    from companion.controller import GameController

    d = str(app.games_dir)
    good = GameController.new(d, ("Ana", "Ben"), ("blue", "green"), seed=4)
    good.roll_virtual()
    good_path = good.path
    good.close()
    os.mkfifo(os.path.join(d, "pipe.journal"))
    os.mkdir(os.path.join(d, "folder.journal"))
    open(os.path.join(d, "empty.journal"), "w").close()
    with open(os.path.join(d, "notes.journal"), "w") as f:
        f.write("shopping list\n")
    os.symlink("/nonexistent/save.journal", os.path.join(d, "dangling.journal"))
    J.Journal.create(os.path.join(d, "chess.journal"), "chess", {"players": {}}, "test").close()
    J.Journal.create(os.path.join(d, "odd-setup.journal"), "civmint",
                     {"players": {"p1": {"colour": "blue"}}, "map": "upside down"}, "test").close()
    home = app.root.get_screen("home")
    home.refresh()  # returns: the FIFO is never opened
    drv.pump(2)
    broken = {r.message.split(":", 1)[0]: r.message for r in drv.find(home, "BrokenGameRow")}
    rows = drv.find(home, "SavedGameRow")
    assert [r.path for r in rows] == [good_path]
    texts = " | ".join(broken.values())
    for name, words in [("pipe.journal", "not a regular file"), ("folder.journal", "directory"),
                        ("empty.journal", "empty"), ("notes.journal", "SQLite"),
                        ("dangling.journal", "")]:
        assert any(name in m and words in m for m in broken.values()), (name, texts)
    assert any("chess" in m and "does not have" in m for m in broken.values()), texts
    assert any("odd-setup.journal" in m and "cannot be resumed" in m for m in broken.values()), texts
    drv.shot("home-odd-files")
    drv.press(rows[0].children[0])  # the row's button
    drv.pump(3)
    assert app.root.current == "game" and app.ctrl.path == good_path


def test_odd_files_are_listed_as_broken(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_odd_files_are_listed_as_broken", tmp_path, timeout=120)
