"""Home marks a finished game with its winner, and the Game End screen saves the exports where a
player finds them and says where (issue 27 item 6), in the real app under Xvfb at 800x480,
1280x800 and a phone held upright (412x915): nothing clipped, targets at least 48 dp."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(240)

SIZES = ((800, 480), (1280, 800), (412, 915))


def _finished_solitaire(directory):
    from companion.controller import GameController
    c = GameController.new(directory, ("Ana",), ("blue",), seed=3, game="mint_works", opponent="justin")
    while not c.game.is_over(c.state):
        if c.awaiting_dice():
            c.roll_virtual()
        else:
            c.dispatch({"type": "pass", "player": "p1"})
    outcome = c.view.headline(c.game, c.state, c.setup)
    path = c.path
    c.close()
    return path, outcome


def _fits(drv, widget, what):
    """Inside the window, and its text inside it (wrapped, never cut)."""
    from kivy.core.window import Window
    from kivy.metrics import dp
    x, y = widget.to_window(widget.x, widget.y)
    assert x >= -1 and y >= -1 and x + widget.width <= Window.width + 1 and y + widget.height <= Window.height + 1, \
        (what, x, y, widget.size, Window.size)
    if hasattr(widget, "texture_size") and getattr(widget, "text", ""):
        tw, th = widget.texture_size
        assert tw <= widget.width + 1 and th <= widget.height + 1, (what, widget.texture_size, widget.size)
    if type(widget).__name__ in ("Button", "BigButton") or "Button" in type(widget).__name__:
        assert widget.height >= dp(48) - 0.5 and widget.width >= dp(48) - 0.5, (what, widget.size)


def _settle(drv, w, h):
    """The window has its new size and a few real frames have been drawn at it (an X server
    resizes asynchronously: a frame read too early is garbage)."""
    import time

    from kivy.core.window import Window
    drv.wait_for(lambda: tuple(Window.size) == (w, h), 5, "the window's new size")
    until = time.monotonic() + 0.6
    drv.wait_for(lambda: time.monotonic() > until, 5, "frames at the new size")


def scenario_home_marks_finished_games_and_the_end_screen_says_where(app, drv):
    from kivy.core.window import Window

    from companion.controller import GameController

    d = str(app.games_dir)
    done, outcome = _finished_solitaire(d)
    g = GameController.new(d, ("Ana", "Ben"), ("blue", "green"), seed=4)  # CivMint, unfinished
    g.roll_virtual()
    going = g.path
    g.close()
    home = app.root.get_screen("home")
    for w, h in SIZES:
        Window.size = (w, h)
        _settle(drv, w, h)
        home.refresh()
        drv.wait_for(lambda: len(drv.find(home, "SavedGameRow")) == 2, 10, "both rows")
        drv.pump(4)
        rows = {r.path: r for r in drv.find(home, "SavedGameRow")}
        assert rows[done].outcome == outcome and outcome in ("Ana wins", "Justin wins")
        assert "Finished: " + outcome in rows[done].children[0].text
        assert rows[going].outcome == "" and "Finished" not in rows[going].children[0].text
        for r in rows.values():
            _fits(drv, r.children[0], f"row at {w}x{h}")
        for b in (home.ids.new_game, home.ids.board_status, home.ids.settings):
            _fits(drv, b, f"{b.text} at {w}x{h}")
        drv.shot(f"home-finished-{w}x{h}")

    # the finished game opens; its end screen saves the exports and says where
    Window.size = SIZES[1]
    drv.pump(4)
    assert app.resume_game(done)
    app.go("game_end")
    drv.pump(4)
    end = app.root.get_screen("game_end")
    assert end.ids.export.text == "Save for BG Stats" and end.export_text == ""
    assert "open_bg_stats" not in [getattr(w, "text", None) for w in drv.find(end, "Button")]  # desktop
    drv.press(end.ids.export)
    exports = os.path.join(os.environ["TABLETOP_COMPANION_DATA"], "exports")
    files = sorted(os.listdir(exports))
    assert len(files) == 2 and files[0].startswith("Mint Works - Ana vs Justin - "), files
    bg = json.loads(open(os.path.join(exports, next(f for f in files if f.endswith(".bgstats.json")))).read())
    assert bg["game"] == {"name": "Mint Works", "bggId": 200077, "sourceGameId": "mint_works",
                          "highestWins": True, "noPoints": False}
    assert f"Saved in [b]{exports}[/b]" in end.export_text
    assert all(f in end.export_text for f in files) and not end.export_failed
    for w, h in SIZES:
        Window.size = (w, h)
        _settle(drv, w, h)
        for b in (end.ids.back_to_game, end.ids.export, end.ids.home):
            _fits(drv, b, f"{b.text} at {w}x{h}")
        _fits(drv, end.ids.export_text, f"the export words at {w}x{h}")
        _fits(drv, end.ids.title, f"the headline at {w}x{h}")
        drv.shot(f"game-end-export-{w}x{h}")
    # a folder that cannot be written: refused in words, nothing lost
    os.environ["TABLETOP_COMPANION_EXPORTS"] = os.path.join(exports, files[0])  # a file, not a folder
    try:
        drv.press(end.ids.export)
    finally:
        del os.environ["TABLETOP_COMPANION_EXPORTS"]
    assert end.export_failed and end.export_text.startswith("Could not save the files in ")
    assert "Nothing of the game is lost" in end.export_text
    drv.shot("game-end-export-refused")
    Window.size = SIZES[1]
    drv.pump(4)


def test_home_marks_finished_games_and_the_end_screen_says_where(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_home_marks_finished_games_and_the_end_screen_says_where", tmp_path,
                 timeout=200)


def test_the_outcome_is_stored_with_the_save_and_found_again_by_a_replay(tmp_path):
    from companion import controller as C
    from companion.store import journal as J
    from companion.store import save_summary
    path, outcome = _finished_solitaire(str(tmp_path))
    [summary] = [s for s in J.list_journals(str(tmp_path)) if s.path == path]
    assert save_summary.read_full(summary, C.APP_VERSION)[1] == outcome  # written at close
    assert C.saved_info(summary)[2] == outcome and C.saved_round(summary)[1] == ""
    save_summary.sidecar_path(path).unlink()  # gone (or of an older app): one replay finds it
    assert C.saved_info(summary)[2] == outcome
    assert save_summary.read_full(summary, C.APP_VERSION)[1] == outcome  # and stores it again
    g = C.GameController.new(str(tmp_path), ("Ana", "Ben"), ("blue", "green"), seed=4)
    g.roll_virtual()
    going = g.path
    g.close()
    [unfinished] = [s for s in J.list_journals(str(tmp_path)) if s.path == going]
    assert C.saved_info(unfinished)[2] == ""
