"""The real companion app under Xvfb: one Kivy window for this whole module (Kivy allows one per
process), driven by pressing real widgets; screenshots of every main screen in test-artifacts/."""
import importlib.util
import os
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "app")

pytestmark = pytest.mark.timeout(300)  # a whole game by touch: ~45 s idle, 2-3 x that on a busy machine


def _load_driver():
    spec = importlib.util.spec_from_file_location("app_driver", os.path.join(HERE, "app_driver.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def env(xdisplay):
    tmp = tempfile.mkdtemp(prefix="tc-app-")
    os.environ.update({
        "KIVY_NO_ARGS": "1", "KIVY_WINDOW": "sdl2", "KIVY_HOME": os.path.join(tmp, "kivy"),
        "KIVY_NO_CONSOLELOG": "1", "TABLETOP_COMPANION_DATA": os.path.join(tmp, "data"),
        "TABLETOP_COMPANION_BOARD": "none",
    })
    if "kivy" in sys.modules and "kivy.core.window" in sys.modules:
        pytest.skip("a Kivy window already exists in this process")
    from companion.store import paths
    from companion.controller import GameController

    games = paths.games_dir()
    # one healthy saved game, a few actions in ...
    c = GameController.new(games, ("Ada", "Bo"), ("red", "yellow"), seed=7)
    c.roll_virtual()
    c.dispatch(c.legal_actions()[0])
    c.close()
    # ... and one damaged save that must be reported without hiding the good one
    with open(games / "broken.journal", "wb") as f:
        f.write(b"SQLite format 3\x00" + b"\xff" * 300)
    os.makedirs(ARTIFACTS, exist_ok=True)
    return {"tmp": tmp, "games": str(games)}


@pytest.fixture(scope="module")
def drv(env):
    return _load_driver()


@pytest.fixture(scope="module")
def app(drv):
    a = drv.boot((1280, 800))
    yield a
    a.stop()


def shot(drv, name):
    from kivy.core.window import Window

    drv.pump(3)
    made = Window.screenshot(os.path.join(ARTIFACTS, name + ".png"))  # Kivy adds a counter
    path = os.path.join(ARTIFACTS, name + ".png")
    os.replace(made, path)
    assert os.path.getsize(path) > 2000
    mean, var = drv.pixels_stats()
    assert var > 50, f"{name}: screen looks blank (grey variance {var:.1f})"
    return path


def _window_is_landscape_1280x800(app):
    from kivy.core.window import Window

    assert tuple(Window.size) == (1280, 800)
    assert app.root.current == "home"


def _home_lists_saved_games_and_reports_the_broken_one(app, drv, env):
    home = app.root.get_screen("home")
    rows = drv.find(home, "SavedGameRow")
    broken = drv.find(home, "BrokenGameRow")
    assert len(rows) == 1 and len(broken) == 1
    assert "Ada (red) vs Bo (yellow)" in rows[0].title
    assert "round 1" in rows[0].subtitle and "2 actions" in rows[0].subtitle
    assert "broken.journal" in broken[0].message and "cannot be resumed" in broken[0].message
    for bid in ("new_game", "board_status"):
        assert home.ids[bid].height >= 48
    shot(drv, "01-home")


def _board_status_screen_offers_manual_entry(app, drv):
    drv.press(app.root.get_screen("home").ids.board_status)
    scr = app.root.get_screen("board")
    assert app.root.current == "board"
    assert "manual" in scr.status_text
    shot(drv, "02-board-status")
    drv.press(scr.ids.back)
    assert app.root.current == "home"


def _new_game_draws_first_player_and_opens_dashboard(app, drv):
    drv.press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    assert app.root.current == "new_game"
    ng.name_input("p1").text = "Cleo"
    ng.name_input("p2").text = "Dan"
    purple = [w for w in drv.find(ng, "ColourChoice") if w.seat == "p2" and w.colour_name == "purple"][0]
    drv.press(purple)
    assert ng.chosen["p2"] == "purple"
    shot(drv, "03-new-game")
    drv.press(ng.ids.start)
    assert app.root.current == "game"
    ctrl = app.ctrl
    assert ctrl.name("p1") == "Cleo" and ctrl.colour("p2") == "purple"
    assert ctrl.state.first in ("p1", "p2")  # drawn by the virtual die, journaled
    assert ctrl.journal.actions()[0].action["type"] == "roll_first_player"
    scr = app.root.get_screen("game")
    assert "Round 1" in scr.header
    assert drv.list_buttons(scr)
    assert all(b.height >= 48 for b in drv.list_buttons(scr))
    shot(drv, "04-dashboard")


def _touch_play_is_journaled_before_shown(app, drv):
    from companion.engine.session import Session

    scr = app.root.get_screen("game")
    n = drv.play(app, 40, seed=3)
    assert n == 40
    ctrl = app.ctrl
    # the journal alone rebuilds exactly what the screen shows
    other = Session.resume(ctrl.path)
    try:
        assert other.state.to_dict() == ctrl.state.to_dict()
    finally:
        other.close()
    assert scr.header.startswith("Round ")
    assert f"#{ctrl.journal.last_seq}" in scr.log_text or len(ctrl.journal) == 0
    shot(drv, "05-dashboard-played")
    # the Log is read a page at a time (issue 39 item 12): its Older and Newer buttons turn pages
    entries = ctrl.history.entries
    assert len(entries) > scr.LOG_PAGE, len(entries)
    scr.show_left("log")
    drv.pump(2)
    older, newer = scr.ids.log_older, scr.ids.log_newer
    assert newer.disabled and not older.disabled and older.height >= 48
    assert f"#{entries[-1].seq} " in scr.log_text
    drv.press(older)
    page2 = entries[-2 * scr.LOG_PAGE:-scr.LOG_PAGE]
    assert scr.log_page == 1 and f"#{page2[-1].seq} " in scr.log_text and f"#{entries[-1].seq} " not in scr.log_text
    assert f"of {len(entries)}, newest first" in scr.log_text
    shot(drv, "05b-log-older-page")
    drv.press(scr.ids.log_newer)
    assert scr.log_page == 0 and f"#{entries[-1].seq} " in scr.log_text
    scr.show_left("players")
    drv.pump(2)


def _undo_follows_journal_policy(app, drv):
    scr = app.root.get_screen("game")
    ctrl = app.ctrl
    # get to a decision, make one, then undo it
    while scr.awaiting_dice:
        drv.press(scr.ids.roll_virtual)
    before = ctrl.state.to_dict()
    buttons = drv.legal_buttons(scr)
    drv.press(buttons[0])
    drv.press(scr.ids.confirm)
    assert scr.can_undo
    n = len(ctrl.journal.entries())
    drv.press(scr.ids.undo)
    assert scr.pending_text.startswith("Undo ") and len(ctrl.journal.entries()) == n  # asks first
    drv.press(scr.ids.confirm)
    assert ctrl.state.to_dict() == before
    assert scr.message.startswith("Undone")
    # a revealed die cannot be taken back: play until right after a roll
    for _ in range(400):
        if scr.awaiting_dice:
            drv.press(scr.ids.roll_virtual)
            break
        drv.play(app, 1, seed=5)
    if ctrl.journal.actions() and ctrl.game.is_chance(ctrl.journal.actions()[-1].action):
        assert not scr.can_undo and scr.ids.undo.disabled


def _illegal_action_is_refused_and_not_journaled(app, drv):
    scr = app.root.get_screen("game")
    ctrl = app.ctrl
    from companion.gui.screens import LegalActionButton

    n = len(ctrl.journal)
    bogus = LegalActionButton(action={"type": "research", "player": "p1", "track": "nonsense"}, text="x")
    scr.pending = bogus.action
    scr.pending_text = "Confirm: x"
    drv.pump(1)
    drv.press(scr.ids.confirm)
    assert len(ctrl.journal) == n
    assert scr.error and scr.message.startswith("Not allowed")


def _small_window_800x480_still_usable(app, drv):
    from kivy.core.window import Window

    Window.size = (800, 480)
    drv.pump(5)
    scr = app.root.get_screen("game")
    scr.refresh()
    drv.pump(3)
    assert not scr.wide  # player panels stack in one column
    assert scr.ids.home.height >= 48 and scr.ids.undo.height >= 48
    # the list may be empty right now (dice awaited, or only 'done' legal): play on until it is not
    for _ in range(60):
        if drv.list_buttons(scr):
            break
        drv.play(app, 1, seed=7)
        scr.refresh()
        drv.pump(2)
    drv.list_buttons(scr)  # the manual list opened, its first page shown
    drv.pump(2)
    buttons = list(scr.ids.action_grid.children)
    assert buttons and all(b.height >= 48 and b.width > 200 for b in buttons)
    if scr.end_step_text:
        assert scr.ids.end_step.height >= 48
    shot(drv, "06-dashboard-800x480")
    Window.size = (1280, 800)
    drv.pump(5)


def _leave_and_resume_from_home(app, drv):
    ctrl = app.ctrl
    state, path = ctrl.state.to_dict(), ctrl.path
    drv.press(app.root.get_screen("game").ids.home)
    assert app.root.current == "home" and app.ctrl is None
    home = app.root.get_screen("home")
    rows = [r for r in drv.find(home, "SavedGameRow") if r.path == path]
    assert len(rows) == 1 and "Cleo (blue) vs Dan (purple)" in rows[0].title
    shot(drv, "07-home-two-games")
    drv.press(rows[0].children[-1] if rows[0].children else rows[0])
    assert app.root.current == "game"
    assert app.ctrl.path == path and app.ctrl.state.to_dict() == state


def _play_a_whole_game_by_touch(app, drv):
    """A short game (max_rounds 2) from New game to Game over, only through buttons."""
    from companion.controller import GameController

    drv.press(app.root.get_screen("game").ids.home)
    c = GameController.new(app.games_dir, ("E", "F"), ("blue", "green"), seed=11, max_rounds=2)
    path = c.path
    c.close()
    app.resume_game(path)
    drv.pump(2)
    scr = app.root.get_screen("game")
    drv.play(app, 3000, seed=1)
    assert scr.over, scr.header
    assert "Game over" in scr.prompt
    assert not drv.list_buttons(scr)
    shot(drv, "08-game-over")


STEPS = [
    _window_is_landscape_1280x800,
    _home_lists_saved_games_and_reports_the_broken_one,
    _board_status_screen_offers_manual_entry,
    _new_game_draws_first_player_and_opens_dashboard,
    _touch_play_is_journaled_before_shown,
    _undo_follows_journal_policy,
    _illegal_action_is_refused_and_not_journaled,
    _small_window_800x480_still_usable,
    _leave_and_resume_from_home,
    _play_a_whole_game_by_touch,
]


def test_gui_scenario(app, drv, env):
    """The steps above in order, in one test: pytest-xdist must not split one window's story
    across workers (each worker is a process with its own window)."""
    import inspect

    for step in STEPS:
        kw = {k: {"app": app, "drv": drv, "env": env}[k] for k in inspect.signature(step).parameters}
        step(**kw)
