"""Shared test set-up: a virtual X display for the Kivy tests when the machine has none."""
import os
import shutil
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _start_xvfb():
    """Start Xvfb on a free display number; return the process or None when Xvfb is missing."""
    if os.environ.get("DISPLAY") or not shutil.which("Xvfb"):
        return None
    for number in range(90 + os.getpid() % 50, 200):
        if os.path.exists("/tmp/.X%d-lock" % number):
            continue
        proc = subprocess.Popen(
            ["Xvfb", ":%d" % number, "-screen", "0", "1920x1200x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for _ in range(50):
            if os.path.exists("/tmp/.X11-unix/X%d" % number):
                os.environ["DISPLAY"] = ":%d" % number
                return proc
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        proc.kill()
    return None


@pytest.fixture(scope="session")
def xdisplay():
    """A display for real Kivy windows: the existing one, or a private Xvfb."""
    proc = _start_xvfb()
    if not os.environ.get("DISPLAY"):
        pytest.fail("no display and no Xvfb: install xvfb (see .ci/run)")
    yield os.environ["DISPLAY"]
    if proc is not None:
        proc.terminate()
        proc.wait(5)
