"""Settings and New game on a 412x915 phone (issue 39.9): the board choices whole, the New game
form's hints whole, and a cue that more game tiles follow past the edge (gone at the end)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(240)


def scenario_phone_forms(app, drv):
    from kivy.core.window import Window
    from layout_check import check_window

    phone = Window.width < 600
    app.go("settings")
    drv.pump(4)
    drv.shot(f"settings_{Window.width}x{Window.height}")
    assert check_window() == []
    scr = app.root.get_screen("settings")
    boxes = [scr.ids[k] for k in ("board_auto", "board_virtual", "board_none")]
    for b in boxes:
        assert b.texture_size[0] <= b.width, (b.text, b.texture_size, b.width)
    if phone:  # one above the other
        assert len({round(b.y) for b in boxes}) == 3
    app.go("new_game")
    drv.pump(4)
    drv.shot(f"new_game_{Window.width}x{Window.height}")
    assert check_window() == []
    ng = app.root.get_screen("new_game")
    for w in drv.find(ng, "TextInput"):
        if w.hint_text:
            from companion.gui.new_game import _text_width
            assert _text_width(w.hint_text, "18sp") + w.padding[0] + w.padding[2] <= w.width, w.hint_text
    cue, scroll, tiles = ng.ids.more_games, ng.ids.game_scroll, ng.ids.game_list
    if tiles.width > scroll.width:
        assert cue.opacity == 1 and "more >" in cue.text
        scroll.scroll_x = 1
        drv.pump(3)
        assert "more >" not in cue.text and cue.text.startswith("<")
    else:
        assert cue.opacity == 0


@pytest.mark.parametrize("size", ["412x915", "800x480", "1280x800"])
def test_settings_and_new_game_fit(xdisplay, tmp_path, size):
    run_scenario(__file__, "scenario_phone_forms", tmp_path, size=size)
