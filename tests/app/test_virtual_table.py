"""The virtual board drawn as the table (companion/gui/virtual_table.py), on the real virtual board
(firmware on simulated chips through the real link) under Xvfb: tracks named as the table knows
them, tokens moved by drag and by tap, a token lifted, a well rolled by a tap, lit spaces."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from gui_process import run_scenario  # noqa: E402


def _touch(drv, widget, x, y, to=None):
    """A finger down at (x, y) of the window, up at `to` (a drag) or at the same place."""
    from kivy.tests.common import UnitTestTouch

    t = UnitTestTouch(x, y)
    t.touch_down()
    drv.pump(1)
    if to is not None:
        import time
        end = time.monotonic() + 0.35  # a finger rests on the token, then slides (the scroll view's timeout)
        while time.monotonic() < end:
            drv.pump(1)
        t.touch_move(*to)
        drv.pump(1)
    t.touch_up()
    drv.pump(2)


def _space_xy(strip, i):
    x, y = strip.cell_origin(i)
    return strip.to_window(x + strip.cell_width() / 2, y + strip.cell_height() / 2)


def scenario_virtual_table(app, drv):
    from kivy.core.window import Window
    from kivy.uix.scrollview import ScrollView

    from companion.gui.virtual_table import VirtualTableModel, VirtualTable

    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "the virtual board to pair")
    smap = app.board.smap
    names = {smap.lane_ids[0]: ("Food", "Ana", (0.2, 0.4, 1, 1))}
    model = VirtualTableModel(app.board, counter_of=names.get)
    view = VirtualTable(size_hint_y=None)
    view.bind(minimum_height=view.setter("height"))
    scroll = ScrollView(size=Window.size)
    scroll.add_widget(view)
    Window.add_widget(scroll)
    view.model = model
    drv.pump(3)
    rows = drv.find(view, "LaneRow")
    assert len(rows) == smap.n_lanes
    assert rows[0].label == "Ana - Food"
    assert all("." not in r.label and "_" not in r.label for r in rows), [r.label for r in rows]
    assert all(r.height >= 48 for r in rows)
    strip = rows[1].ids.strip
    lane = strip.lane
    assert strip.width / strip.spaces >= 40

    # tap an empty lane: a token is put down; the board senses it
    _touch(drv, strip, *_space_xy(strip, 2))
    drv.wait_for(lambda: app.board.sensed_positions().get(lane) == [2], 10, "the token sensed on space 2")
    view.refresh()
    assert strip.tokens == [2]
    # tap another space: the lane's token slides there
    _touch(drv, strip, *_space_xy(strip, 4))
    drv.wait_for(lambda: app.board.sensed_positions().get(lane) == [4], 10, "the token slid to space 4")
    # drag it back to space 1
    _touch(drv, strip, *_space_xy(strip, 4), to=_space_xy(strip, 1))
    drv.wait_for(lambda: app.board.sensed_positions().get(lane) == [1], 10,
                 "the token dragged to space 1 (%r, %r)" % (view.message, app.board.sensed_positions().get(lane)))
    # tap the token: lifted off
    _touch(drv, strip, *_space_xy(strip, 1))
    drv.wait_for(lambda: app.board.sensed_positions().get(lane) == [], 10, "the token lifted")
    assert "lifted" in view.message

    # a tap on well 1 throws a die; the app sees it settle and the well draws its face
    [die1, _die2] = [w.ids.die for w in drv.find(view, "WellBox")]
    _touch(drv, die1, *die1.to_window(*die1.center))
    drv.wait_for(lambda: (app.board.wells().get(smap.well_ids[0]) or ("",))[0] == "settled", 10, "the die settled")
    view.refresh()
    assert die1.state == "settled" and 1 <= die1.value <= 6
    assert drv.find(view, "WellBox")[0].words == f"Well 1: shows {die1.value}"

    # a guidance light the firmware lit (asked through the board layer) shows on its space
    if hasattr(app.board, "show_lights"):
        app.board.show_lights({lane: 3})
        drv.wait_for(lambda: (lane, 3) in model.lit(), 10, "the space lit")
        view.refresh()
        assert strip.lit == [3]
    drv.shot("virtual-board-as-table")


def test_virtual_table(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_virtual_table", tmp_path, board="virtual")


def scenario_board_screen_draws_the_table(app, drv):
    """The Board screen's virtual tab opens on the table: the open game's tracks named by
    player, a token tapped down on a track is sensed and named in the game's words."""
    from companion.controller import GameController
    from economy_games import resume_in_app

    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "the virtual board to pair")
    c = GameController.new(app.games_dir, ("Ana", "Ben"), ("blue", "green"), seed=2, max_rounds=None)
    c.roll_virtual()
    resume_in_app(app, c)
    drv.pump(2)
    app.go("board")
    drv.pump(2)
    scr = app.root.get_screen("board")
    drv.press(scr.ids.tab_virtual)
    assert scr.view == "virtual"
    table = scr.ids.v_table
    rows = drv.find(table, "LaneRow")
    smap = app.board.smap
    assert len(rows) == smap.n_lanes
    labels = [r.label for r in rows]
    assert any(lb.startswith("Ana - ") for lb in labels) and any(lb.startswith("Ben - ") for lb in labels), labels
    row = next(r for r in rows if r.label.startswith("Ben - "))
    from companion.kit import rgba

    assert tuple(row.colour) == tuple(rgba(app.ctrl.colour("p2")))  # Ben's tokens in Ben's colour
    strip = row.ids.strip
    _touch(drv, strip, *_space_xy(strip, 0))
    drv.wait_for(lambda: app.board.sensed_positions().get(strip.lane) == [0], 10, "the token sensed")
    drv.pump(2)
    assert strip.tokens == [0]
    drv.shot("board-virtual-table")


def test_board_screen_draws_the_table(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_board_screen_draws_the_table", tmp_path, board="virtual")


def scenario_the_table_fits_the_window(app, drv):
    """Every strip, the 16-space resource lanes included, lies inside the window with spaces a
    finger can hit (>= 48 dp); on a phone the names go above the strips and a 16-space lane wraps
    into lines; a tap on space 12 of one puts the token on space 12."""
    from kivy.core.window import Window
    from kivy.metrics import dp

    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "the virtual board to pair")
    app.go("board")
    drv.pump(2)
    scr = app.root.get_screen("board")
    drv.press(scr.ids.tab_virtual)
    drv.pump(3)
    table = scr.ids.v_table
    rows = drv.find(table, "LaneRow")
    assert len(rows) == app.board.smap.n_lanes
    for r in rows:
        strip = r.ids.strip
        left, _ = strip.to_window(strip.x, strip.y)
        right, _ = strip.to_window(strip.right, strip.y)
        assert left >= 0 and right <= Window.width + 1, (r.label, left, right, Window.width)
        assert strip.cell_width() >= dp(48) - 0.5 and strip.cell_height() >= dp(48) - 0.5, r.label
    food = next(r for r in rows if r.ids.strip.lane == "food.p1")
    strip = food.ids.strip
    assert strip.spaces == 16
    if Window.width < 600:
        assert food.stacked and strip.rows == 3 and strip.cols == 6, (table.width, strip.rows, strip.cols)  # 48 dp: 6 a line
    name = food.children[-1]
    assert name.width >= (Window.width - dp(60) if food.stacked else dp(199)), name.width  # the name on one line
    sv = table.parent.parent
    sv.scroll_to(food, padding=dp(40), animate=False)
    drv.pump(3)
    _touch(drv, strip, *_space_xy(strip, 12))
    drv.wait_for(lambda: app.board.sensed_positions().get("food.p1") == [12], 10, "the token on space 12")
    drv.pump(2)
    assert strip.tokens == [12]
    drv.shot("board-virtual-table-%dx%d" % tuple(Window.size))


@pytest.mark.parametrize("size", ["800x480", "1280x800", "412x915"])
def test_the_table_fits_the_window(xdisplay, tmp_path, size):
    run_scenario(__file__, "scenario_the_table_fits_the_window", tmp_path, board="virtual", size=size)
