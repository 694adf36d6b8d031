"""The window from the command line (issue 39 item 11), through the real `main()`:

* `--size 412x915` (a phone held upright) is accepted down to the app's own minimum of 320x480,
  and the window is made at that size; a smaller one is refused in words;
* without `--size`, on a display with no window manager to maximize it (a bare Xvfb, as on a
  kiosk panel), the window is made to the screen's usable size at its corner: whole on screen.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# main() with these arguments; at its first frame, print the window's size and place, and exit
PROBE = """
import json, os, sys
from kivy.clock import Clock

def report(dt):
    from kivy.core.window import Window
    print("WINDOW " + json.dumps({"size": list(Window.size), "left": Window.left, "top": Window.top}), flush=True)
    os._exit(0)

Clock.schedule_once(report, 1.0)
from companion import app
app.main(sys.argv[1:])
"""


def _env(tmp, display):
    env = dict(os.environ)
    env.update({"DISPLAY": display, "KIVY_HOME": os.path.join(tmp, "kivy"), "KIVY_NO_CONSOLELOG": "1",
                "KIVY_NO_ARGS": "1", "TABLETOP_COMPANION_DATA": os.path.join(tmp, "data"),
                "PYTHONPATH": ROOT})
    return env


def _window(display, *args):
    tmp = tempfile.mkdtemp(prefix="tc-window-")
    r = subprocess.run([sys.executable, "-c", PROBE, "--board", "none", *args], env=_env(tmp, display),
                       cwd=tmp, capture_output=True, text=True, timeout=90)
    line = [x for x in r.stdout.splitlines() if x.startswith("WINDOW ")]
    assert line, f"no window (exit {r.returncode})\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}"
    return json.loads(line[0][7:]), r


@pytest.mark.parametrize("size", ["412x915", "320x480", "800x480"])
def test_a_phone_size_is_accepted(xdisplay, size):
    got, _ = _window(xdisplay, "--size", size)
    assert got["size"] == [int(x) for x in size.split("x")], got


def test_under_the_minimum_is_refused_in_words(xdisplay):
    tmp = tempfile.mkdtemp(prefix="tc-window-")
    r = subprocess.run([sys.executable, "-m", "companion.app", "--size", "300x480", "--board", "none"],
                       env=_env(tmp, xdisplay), cwd=tmp, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "at least 320x480" in r.stderr and "Traceback" not in r.stderr


@pytest.fixture
def small_bare_display():
    """A 1024x600 Xvfb of its own, with no window manager."""
    import shutil

    if not shutil.which("Xvfb"):
        pytest.skip("no Xvfb")
    for number in range(300 + os.getpid() % 50, 400):
        if os.path.exists("/tmp/.X%d-lock" % number):
            continue
        proc = subprocess.Popen(["Xvfb", ":%d" % number, "-screen", "0", "1024x600x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if os.path.exists("/tmp/.X11-unix/X%d" % number):
                yield ":%d" % number
                proc.terminate()
                proc.wait(5)
                return
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        proc.kill()
    pytest.skip("no free display number")


def test_without_a_size_the_window_is_whole_on_a_screen_with_no_window_manager(small_bare_display):
    got, _ = _window(small_bare_display)
    w, h = got["size"]
    assert got["left"] >= 0 and got["top"] >= 0, got
    assert got["left"] + w <= 1024 and got["top"] + h <= 600, got
    assert (w, h) == (1024, 600), f"the window fills the screen: {got}"
