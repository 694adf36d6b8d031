"""Kill the real app with SIGKILL mid-game; the next start resumes exactly (journal before UI)."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import scenario_env  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "app_driver.py")
ROOT = os.path.dirname(os.path.dirname(HERE))

pytestmark = pytest.mark.timeout(120)


def _env(tmp):
    return scenario_env(tmp)


def _ready_line(proc, deadline=60):
    end = time.time() + deadline
    while time.time() < end:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("READY "):
            return json.loads(line[6:])
    raise AssertionError("driver did not report: " + proc.stderr.read()[-2000:])


def test_sigkill_then_restart_resumes_exactly(xdisplay):
    tmp = tempfile.mkdtemp(prefix="tc-kill-")
    env = _env(tmp)
    p = subprocess.Popen([sys.executable, DRIVER, "play", "45", "2"], env=env, cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        before = _ready_line(p)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait(10)
    assert p.returncode == -signal.SIGKILL
    assert before["screen"] == "game" and before["journal_len"] >= 40

    r = subprocess.run([sys.executable, DRIVER, "report"], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    after = json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("READY ")][0][6:])
    assert after["screen"] == "game"  # reopened straight into the interrupted game
    for key in ("path", "journal_len", "state", "header", "panel_p1", "panel_p2", "actions"):
        assert after[key] == before[key], key
    # the reminders survive the kill: the same ones open, the one ticked off stays done
    assert before["todo"] and before["todo_done"] and before["todo_done"] not in before["todo"]
    assert after["todo"] == before["todo"]


def test_console_entry_point_starts_and_exits(xdisplay):
    """The README's run command: the `tabletop-companion` script (or python -m companion.app)."""
    tmp = tempfile.mkdtemp(prefix="tc-entry-")
    script = os.path.join(os.path.dirname(sys.executable), "tabletop-companion")
    cmd = [script] if os.path.exists(script) else [sys.executable, "-m", "companion.app"]
    r = subprocess.run(cmd + ["--exit-after", "1.0", "--board", "none"], env=_env(tmp), cwd=tmp,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-3000:]
    assert os.path.isdir(os.path.join(tmp, "data", "games"))


def test_bad_window_size_is_refused_in_words(xdisplay):
    tmp = tempfile.mkdtemp(prefix="tc-size-")
    r = subprocess.run([sys.executable, "-m", "companion.app", "--size", "huge", "--board", "none"],
                       env=_env(tmp), cwd=tmp, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "--size wants WIDTHxHEIGHT of at least 320x480" in r.stderr
    assert "Traceback" not in r.stderr
