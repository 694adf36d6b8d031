"""The window's size from the command line (issue 39.11): any size down to the app's own least
(a 412x915 phone included), and without --size a window that fits the screen even when no window
manager maximizes it. Real app processes on their own bare Xvfb screens (no window manager)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from companion import app as appmod

# the real entry point, with a frame-time print of the window's size and place
PROBE = """
import json, sys
from kivy.clock import Clock
def report(dt):
    from kivy.core.window import Window
    print("WINDOW " + json.dumps({"size": list(Window.size), "left": Window.left, "top": Window.top}), flush=True)
Clock.schedule_once(report, 1.0)
from companion.app import main
sys.exit(main(sys.argv[1:] + ["--exit-after", "2.0", "--board", "none"]))
"""


def _bare_xvfb(screen):
    """An Xvfb of that size with no window manager; (process, display) or skip."""
    if not shutil.which("Xvfb"):
        pytest.skip("no Xvfb")
    for number in range(300 + os.getpid() % 100, 500):
        if os.path.exists("/tmp/.X%d-lock" % number):
            continue
        proc = subprocess.Popen(["Xvfb", ":%d" % number, "-screen", "0", "%sx24" % screen, "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if os.path.exists("/tmp/.X11-unix/X%d" % number):
                return proc, ":%d" % number
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        proc.kill()
    pytest.skip("no free display number")


def _run(screen, *args):
    proc, display = _bare_xvfb(screen)
    tmp = tempfile.mkdtemp(prefix="tc-winsize-")
    env = dict(os.environ, DISPLAY=display, KIVY_NO_ARGS="1", KIVY_WINDOW="sdl2", KIVY_NO_CONSOLELOG="1",
               KIVY_HOME=os.path.join(tmp, "kivy"), TABLETOP_COMPANION_DATA=os.path.join(tmp, "data"))
    try:
        r = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, cwd=tmp,
                           capture_output=True, text=True, timeout=90)
    finally:
        proc.terminate()
        proc.wait(10)
    assert r.returncode == 0, r.stderr[-3000:]
    line = [x for x in r.stdout.splitlines() if x.startswith("WINDOW ")]
    assert line, r.stdout[-2000:] + r.stderr[-2000:]
    return json.loads(line[-1][len("WINDOW "):])


def test_size_words_accept_down_to_the_apps_least():
    assert appmod.parse_size("412x915") == (412, 915)
    assert appmod.parse_size("320X480") == appmod.MIN_SIZE
    assert appmod.parse_size("800x480") == (800, 480)
    for bad in ("319x480", "320x479", "huge", "412x", "x915", "-412x915", "412 x 915", ""):
        assert appmod.parse_size(bad) is None, bad


def test_phone_size_from_the_command_line_opens_at_that_size():
    got = _run("1280x1024", "--size", "412x915")
    assert got["size"] == [412, 915]


def test_too_small_a_size_is_refused_with_the_least_named(tmp_path):
    r = subprocess.run([sys.executable, "-m", "companion.app", "--size", "300x480", "--board", "none"],
                       env=dict(os.environ, KIVY_NO_ARGS="1", TABLETOP_COMPANION_DATA=str(tmp_path)),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "at least 320x480" in r.stderr and "'300x480'" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("screen", ["800x480", "1024x600"])
def test_without_size_the_window_fills_a_screen_with_no_window_manager(screen):
    """A 7-inch panel with no window manager: before, a 1280x800 window hung off its edges."""
    got = _run(screen)
    assert got["size"] == [int(x) for x in screen.split("x")]
    assert (got["left"], got["top"]) == (0, 0)
