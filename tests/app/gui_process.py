"""Run a GUI scenario in its own process (one Kivy window per process), from a pytest test.

    from gui_process import run_scenario
    def test_x(xdisplay, tmp_path):
        run_scenario(__file__, "scenario_x", tmp_path, board="virtual")

`scenario_x(app, drv)` is a plain function in the test module (not collected: no test_ prefix);
it runs inside `app_driver.py scenario`, with `drv` = the driver module (press, pump, find, shot,
wait_for). A failed assert in it fails the test with the child's traceback.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "app_driver.py")


def scenario_env(tmp, board="none", extra=None):
    env = dict(os.environ)
    env.update({"KIVY_NO_ARGS": "1", "KIVY_WINDOW": "sdl2", "KIVY_HOME": os.path.join(str(tmp), "kivy"),
                "KIVY_NO_CONSOLELOG": "1", "TABLETOP_COMPANION_DATA": os.path.join(str(tmp), "data"),
                "TABLETOP_COMPANION_BOARD": board})
    env.update(extra or {})
    return env


def run_scenario(test_file, func, tmp, board="none", size="1280x800", timeout=240, env=None):
    cmd = [sys.executable, DRIVER, "scenario", f"{os.path.abspath(test_file)}:{func}", board, size]
    proc = subprocess.run(cmd, env=scenario_env(tmp, board, env), capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0 or "SCENARIO OK" not in proc.stdout:
        raise AssertionError(f"scenario {func} failed (exit {proc.returncode})\n"
                             f"--- stdout ---\n{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-8000:]}")
    return proc.stdout
