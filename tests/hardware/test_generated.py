"""Generated files in hardware/ are up to date with their sources."""
import subprocess
import sys

import pytest

from hwcommon import HW, ROOT


@pytest.mark.parametrize("script", ["build_map.py", "build_docs.py", "build_art.py", "build_overlays.py"])
def test_generated_files_are_current(script):
    r = subprocess.run([sys.executable, "hardware/tools/" + script, "--check"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_docs_mention_every_lane_and_bit():
    from hwcommon import FULL, sensormap
    m = sensormap.load(FULL)
    text = open(HW + "/docs/sensor_map.md").read()
    for k in range(m.n_lanes):
        for i, b in enumerate(m.lane_bits(k)):
            reg = b >> 3
            assert "| `%s` | %d |" % (m.lane_ids[k], i) in text
            assert "| %d | %d | %s |" % (b, reg, "HGFEDCBA"[b & 7]) in text
    for w in m.well_ids:
        assert "`%s`" % w in text
