"""Each game's own board, and a virtual die thrown where the decision is (issue 39 items 6 and 7),
in the real app on the real virtual board (firmware on simulated chips, real pty, real link):

* the Board screen's virtual table and exact controls show the open game's counters on the lanes
  its binding uses, and say plainly that the rest are not used by that game; no CivMint track
  name during Civ Quest or the Card Game;
* the virtual wells are emptied when a game starts or is resumed;
* while a roll is asked, the Now area has a throw button per virtual well; a tap on it throws the
  die into that well and the roll reaches the game through the board (journaled with source
  "board"); no such button with a USB board or with touch only;
* the Board screen opens on its Virtual board tab when the virtual board is in use."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(240)

SIZES = ["800x480", "1280x800", "412x915"]
CIVMINT_TRACKS = ("Government", "Economy", "Technology", "Culture", "Military", "Population", "Happiness")


def _paired(app, drv):
    drv.wait_for(lambda: app.board.status()["state"] == "paired" and app.board.wells(), 20,
                 "the virtual board to pair and report its table")
    drv.pump(2)


def _start(app, drv, game_id, roll_first=True):
    """A new game through the New game form (from wherever the app is)."""
    if app.ctrl is not None:
        app.leave_game()
        drv.pump(2)
    ng = drv.new_game_form(app, game_id)
    for i, name in enumerate(("Ana", "Ben")):
        ng.name_input(f"p{i + 1}").text = name
    ng.virtual_first = roll_first
    drv.press(ng.ids.start)
    drv.pump(3)
    assert app.root.current == "game" and app.ctrl.module.id == game_id
    return drv.game_screen(app)


def _show_now(drv, scr):
    if scr.portrait:
        scr.show_left("now")
        drv.pump(2)


def _layout_ok(drv, where, max_targets=30):
    """The layout check of the sweep (tests/app/layout_check.py) finds nothing on the screen now:
    no clipped words, no small or overlapping targets, at most `max_targets` controls in view."""
    from layout_check import check_window

    drv.pump(2)
    findings = [str(f) for f in check_window(max_targets=max_targets)]
    assert not findings, (where, findings)


def _throws(scr):
    return list(reversed(scr.ids.well_throws.children))


def _into_view(drv, scr, index):
    """Scroll the Now area to the throw buttons; the button of well `index` once it can be seen
    (the buttons are made again if the link dropped a moment under load and came back)."""
    from layout_check import visible_widgets

    def seen():
        scr.ids.now_scroll.scroll_to(scr.ids.well_throws, animate=False)
        drv.pump(1)
        throws = _throws(scr)
        shown = {id(w) for w, _ in visible_widgets()}
        return len(throws) > index and id(throws[index]) in shown
    drv.wait_for(seen, 10, lambda: f"the throw button of well {index + 1} on screen")
    return _throws(scr)[index]


def _throw_and_wait(app, drv, scr, index, action_type):
    before = len(app.ctrl.journal)
    drv.tap(_into_view(drv, scr, index))
    drv.wait_for(lambda: len(app.ctrl.journal) > before, 10, "the thrown die to reach the game")
    e = [e for e in app.ctrl.history.entries if not e.undone][-1]
    assert e.action["type"] == action_type and e.source == "board", (e.action, e.source)
    return e


def _well_states(app):
    return [o.state for o in app.board.virtual.world.optics]


def _open_board(app, drv):
    app.go("board")
    drv.pump(3)
    return app.root.get_screen("board")


def _lane_labels(board_scr):
    return [r.label for r in drv_find(board_scr.ids.v_table, "LaneRow")]


def drv_find(root, name):
    return [w for w in root.walk(restrict=True) if type(w).__name__ == name]


def scenario_each_game_its_board(app, drv):
    from kivy.core.window import Window

    size = "%dx%d" % tuple(Window.size)
    _paired(app, drv)

    # CivMint, its first-player roll left to the table: one throw button, for well 1
    scr = _start(app, drv, "civmint", roll_first=False)
    drv.wait_for(lambda: scr.well_throws == 1, 5, "the throw button")
    _show_now(drv, scr)
    [throw] = _throws(scr)
    assert throw.text == "Throw a die into well 1" and throw.height >= 48
    assert scr.bar_hint.startswith("Tap Throw "), scr.bar_hint
    drv.shot(f"throw-civmint-{size}")
    _layout_ok(drv, "CivMint first roll", 30)
    _throw_and_wait(app, drv, scr, 0, "roll_first_player")
    assert _well_states(app)[0] == "die"
    assert scr.message.startswith("Done: "), scr.message  # the roll said, as any from the board
    drv.shot(f"thrown-civmint-{size}")

    # the Board screen opens on the virtual table (the board in use), CivMint's counters on it
    board = _open_board(app, drv)
    assert board.view == "virtual" and board.ids.views.current == "virtual"
    labels = _lane_labels(board)
    assert len(labels) == app.board.smap.n_lanes and "Ana - Government" in labels, labels
    assert board.ids.v_table.note == ""
    app.go_back()
    drv.pump(2)

    # Civ Quest: a new game empties the wells; only its four counters are drawn, by name
    scr = _start(app, drv, "civ_quest")
    drv.wait_for(lambda: _well_states(app) == ["empty", "empty"], 5, "the wells emptied")
    board = _open_board(app, drv)
    assert board.view == "virtual"
    labels = _lane_labels(board)
    assert sorted(labels) == ["Ana - Idea Points", "Ana - Resource Points", "Ben - Idea Points",
                              "Ben - Resource Points"], labels
    note = board.ids.v_table.note
    assert note == ("Civ Quest uses 4 of the board's 28 tracks; the other 24 are not used by Civ Quest "
                    "and hidden here."), note
    assert sorted(board.v_lane_ids) == sorted(labels)  # the exact controls: the same four
    assert not any(t in " ".join(board.v_lane_ids + [board.v_lights_text, board.v_strip_text])
                   for t in CIVMINT_TRACKS)
    drv.shot(f"board-civ-quest-{size}")
    _layout_ok(drv, "Board screen, Civ Quest", None)
    drv.press(board.ids.tab_table)
    board.refresh()
    drv.pump(2)
    grid = [c.text for c in reversed(board.ids.table_grid.children)]
    assert "Idea Points" in grid and "Resource Points" in grid, grid
    assert not any(t in " ".join(grid) for t in CIVMINT_TRACKS), grid
    drv.press(board.ids.tab_virtual)
    app.go_back()
    drv.pump(2)

    # Civ Quest's first roll (after the start spaces): thrown from the Now area
    while not (app.ctrl.dice_request() or {}).get("spec"):
        app.ctrl.dispatch(app.ctrl.legal_actions()[0], "ui")
    drv.pump(3)
    drv.wait_for(lambda: scr.well_throws == 1, 5, "Civ Quest's throw button")
    _show_now(drv, scr)
    assert len(_throws(scr)) == 1
    _throw_and_wait(app, drv, scr, 0, "first_roll")

    # Civ Builder's attribute dice may be thrown two at a time: a button per well
    scr = _start(app, drv, "civ_builder")
    drv.wait_for(lambda: _well_states(app) == ["empty", "empty"], 5, "the wells emptied")
    while not (app.ctrl.dice_request() or {}).get("spec"):
        app.ctrl.dispatch(app.ctrl.legal_actions()[0], "ui")
    drv.pump(3)
    drv.wait_for(lambda: scr.well_throws == 2, 5, "two throw buttons")
    _show_now(drv, scr)
    one, two = _throws(scr)
    assert (one.text, two.text) == ("Throw into well 1", "Throw into well 2")
    drv.shot(f"throw-civ-builder-{size}")
    _layout_ok(drv, "Civ Builder attribute dice", 30)
    first = _throw_and_wait(app, drv, scr, 0, app.ctrl.dice_request()["action"])
    assert first.action["type"].startswith("roll_")

    # the Card Game keeps nothing on the tracks: none drawn, said plainly; no throw buttons
    scr = _start(app, drv, "civ_card_game")
    drv.wait_for(lambda: _well_states(app) == ["empty", "empty"], 5, "the wells emptied")
    assert scr.well_throws == 0
    board = _open_board(app, drv)
    assert _lane_labels(board) == [] and board.v_lane_ids == []
    assert board.ids.v_table.note.startswith("Civilization: The Card Game keeps nothing on the board's tracks")
    assert board.ids.v_place.disabled
    drv.shot(f"board-card-game-{size}")
    _layout_ok(drv, "Board screen, Card Game", None)
    app.go_back()
    drv.pump(2)

    # a saved game resumed: the wells hold nothing of the game before
    app.board.virtual.roll(0, value=6)
    drv.wait_for(lambda: (app.board.wells().get("well0") or ("",))[0] == "settled", 5, "a die in well 1")
    path = app.ctrl.path
    app.leave_game()
    drv.pump(2)
    assert app.resume_game(path)
    drv.wait_for(lambda: _well_states(app) == ["empty", "empty"], 5, "the wells emptied on resume")


@pytest.mark.parametrize("size", SIZES)
def test_each_game_its_board(xdisplay, tmp_path, size):
    run_scenario(__file__, "scenario_each_game_its_board", tmp_path, board="virtual", size=size)


def scenario_no_throw_buttons_without_the_virtual_board(app, drv):
    """Touch only: no throw button; a USB board (here a board on a serial port, so the app has no
    hand in its wells): none either."""
    from companion.link.virtual_board import VirtualBoard

    scr = _start(app, drv, "civmint", roll_first=False)
    drv.pump(3)
    assert app.board.mode == "manual" and app.ctrl.dice_request() is not None
    assert scr.well_throws == 0 and scr.ids.well_throws.height == 0 and not _throws(scr)
    usb = VirtualBoard(seed=3)
    path = usb.start()
    try:
        app.switch_board(path)
        drv.wait_for(lambda: app.board.status()["state"] == "paired", 15, "the serial board to pair")
        drv.pump(3)
        assert app.board.mode == "hardware" and app.board.virtual is None
        assert scr.well_throws == 0 and not _throws(scr)
        assert scr.bar_hint.startswith("Throw the dice at the table"), scr.bar_hint
    finally:
        app.switch_board("none")
        usb.stop()


def test_no_throw_buttons_without_the_virtual_board(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_no_throw_buttons_without_the_virtual_board", tmp_path, board="none",
                 size="800x480")


def scenario_two_dice_from_the_wells(app, drv):
    """CivMint's event roll (2 dice, the Event panel has its own entry): a throw button per well;
    one well thrown is waited for, the second completes the roll, journaled from the board."""
    from kivy.core.window import Window

    from economy_games import play_until, resume_in_app

    from companion.controller import GameController

    _paired(app, drv)
    c = GameController.new(app.games_dir, ("Ada", "Bo"), ("blue", "red"), seed=5)
    play_until(c, lambda ctrl: (ctrl.dice_request() or {}).get("action") == "roll_event")
    resume_in_app(app, c)
    scr = drv.game_screen(app)
    drv.wait_for(lambda: scr.well_throws == 2, 5, "two throw buttons")
    _show_now(drv, scr)
    one, two = _throws(scr)
    assert (one.text, two.text) == ("Throw into well 1", "Throw into well 2")
    drv.shot("throw-civmint-event-%dx%d" % tuple(Window.size))
    _layout_ok(drv, "CivMint event roll", 30)
    before = len(app.ctrl.journal)
    drv.tap(_into_view(drv, scr, 0))
    drv.wait_for(lambda: "Waiting for a die in well 2" in scr.dice_hint, 10, "the wait for well 2")
    assert len(app.ctrl.journal) == before
    _throw_and_wait(app, drv, scr, 1, "roll_event")


@pytest.mark.parametrize("size", ["800x480", "412x915"])
def test_two_dice_from_the_wells(xdisplay, tmp_path, size):
    run_scenario(__file__, "scenario_two_dice_from_the_wells", tmp_path, board="virtual", size=size)
