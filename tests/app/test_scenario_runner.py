"""The subprocess scenario runner itself: a passing and a failing scenario."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(120)


def scenario_home(app, drv):
    assert app.root.current == "home"
    drv.press(app.root.get_screen("home").ids.new_game)
    assert app.root.current == "new_game"


def scenario_fails(app, drv):
    assert app.root.current == "nowhere", "expected failure"


def test_runner_passes_and_fails(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_home", tmp_path)
    with pytest.raises(AssertionError, match="expected failure"):
        run_scenario(__file__, "scenario_fails", tmp_path)
