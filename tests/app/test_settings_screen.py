"""Settings screen in the real app: a corrupt settings file is reported on Home, values are
changed by touch, saved, and used (board switched, round limit of a new game)."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(120)


def scenario_settings(app, drv):
    from companion.store import settings

    home = app.root.get_screen("home")
    assert "Settings:" in home.message and "not valid" in home.message
    drv.press(home.ids.settings)
    scr = app.root.get_screen("settings")
    assert app.root.current == "settings" and scr.board == "auto"  # the bad value fell back
    drv.shot("settings")
    drv.press(scr.ids.board_none)
    drv.press(scr.ids.board_dice)
    for _ in range(37):
        drv.press(scr.ids.rounds_down, frames=0)
    drv.pump(2)
    assert scr.ids.rounds.text == "3"
    drv.press(scr.ids.save)
    assert scr.message.startswith("Saved")
    assert settings.load()[0] == {"board": "none", "board_dice": False, "table_checks": True, "max_rounds": 3}
    drv.pump(3)
    assert app.board.mode == "manual"
    drv.press(scr.ids.back)
    drv.press(home.ids.new_game)
    drv.press(app.root.get_screen("new_game").ids.start)
    assert app.root.current == "game" and app.ctrl.state.max_rounds == 3


def test_settings_screen(xdisplay, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"board": "usb9", "max_rounds": 40}))
    run_scenario(__file__, "scenario_settings", tmp_path, board="auto",
                 env={"TABLETOP_COMPANION_BOARD": ""})
