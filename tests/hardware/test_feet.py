"""Feet and support (issue 40, item 5): one foot size, feet where no part is, a press that does not
bend the board.  The generator's keep-out check (build_pcb.check_feet) works on its own courtyard
table; here the committed board's real courtyards (KiCad) are held to that table and to the feet,
and a placement with a part in a foot's circle is refused naming both."""
import json
import os
import re
import subprocess
import sys

import pytest

from hwcommon import FULL, HW, TOOLS, _load, bom_data, build_docs, design, read_json

TOOL = os.path.join(TOOLS, "build_pcb.py")
BOARD = os.path.join(HW, "pcb", "strip_board.kicad_pcb")
SYS_PY = "/usr/bin/python3"


def _bp():
    return _load("build_pcb", TOOL)


def _have_pcbnew():
    try:
        return subprocess.run([SYS_PY, "-c", "import pcbnew"], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


needs_kicad = pytest.mark.skipif(not _have_pcbnew() and not os.environ.get("CI"),
                                 reason="KiCad's pcbnew is not importable by /usr/bin/python3")


def test_one_foot_size_and_a_foot_on_every_corner_and_between():
    feet = design.feet()
    assert len(feet) == 2 * design.FEET_PER_EDGE and len({n for n, _, _ in feet}) == len(feet)
    r = design.FOOT_D_MM / 2
    for _, x, y in feet:
        assert r <= x <= design.STRIP_W - r and r <= y <= design.STRIP_H - r     # on the board
    xs = sorted({x for _, x, _ in feet})
    assert xs[0] < 10 and xs[-1] > design.STRIP_W - 10                            # the corners
    b = {r_["ref"]: r_ for r_ in build_docs.bom_rows()[0]}
    assert "%g mm across, %g mm tall" % (design.FOOT_D_MM, design.FOOT_H_MM) in b["F1"]["item"]
    assert design.FOOT_H_MM == bom_data.FOOT_MM >= bom_data.FOOT_MIN_MM
    assert b["F1"]["qty"]["full"] == len(feet) * len(read_json(FULL)["strips"])
    guide = open(os.path.join(HW, "docs", "assembly.md")).read()
    assert "one at each corner" not in guide and "eight feet (BOM F1" in guide


def test_the_sag_under_a_press_stays_under_half_a_millimetre():
    f = design.sag_figures()
    i = design.STRIP_H * design.PCB_MM ** 3 / 12
    low = min(design.FR4_E_MPA)
    xs = sorted({x for _, x, _ in design.feet()})
    span = max(b - a for a, b in zip(xs, xs[1:]))
    assert span == f["span_mm"]
    assert abs(f["sag_mm"] - design.PRESS_N * span ** 3 / (48 * low * i)) < 1e-9
    assert f["sag_mm"] < design.SAG_LIMIT_MM == 0.5
    assert 2.5 < f["corner_sag_typ_mm"] < f["corner_sag_mm"] < 5     # the corner-feet board it replaces: ~3 mm
    pcb = open(os.path.join(HW, "docs", "pcb.md")).read()
    assert "**%.2f mm**" % f["sag_mm"] in pcb


def test_no_part_of_the_placement_is_inside_a_foot_and_one_that_is_is_refused_naming_it(tmp_path):
    bp = _bp()
    (d,) = bp.designs_from_map(read_json(FULL)).values()
    parts = bp.netlist_parts(d)
    bp.check_feet(parts)
    # a foot moved 3.5 mm up from F5 reaches R17, the pull-up beside the bottom-left switch
    moved = [("F5", 4.5, 66.0)]
    with pytest.raises(bp.MapError, match=r"part R17 \(10k\) at \(8.0, 61.0\) mm: .* foot F5's keep-out"):
        bp.check_feet(parts, moved)
    bad = tmp_path / "feet.json"
    bad.write_text(json.dumps([["F9", 12.0, 66.0]]))
    r = subprocess.run([sys.executable, TOOL, "--check-map", "--feet", str(bad)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "part C117 (100nF)" in r.stderr and "foot F9's keep-out" in r.stderr


def test_the_board_marks_every_foot_on_its_underside():
    text = open(BOARD).read()
    circles = re.findall(r'\(gr_circle \(center ([-\d.]+) ([-\d.]+)\) \(end ([-\d.]+) ([-\d.]+)\) '
                         r'\(layer "B\.SilkS"\)', text)
    got = sorted((round(float(cx) - 20, 3), round(float(cy) - 20, 3)) for cx, cy, _, _ in circles)
    assert got == sorted((x, y) for _, x, y in design.feet())


_COURTYARDS = """
import json, sys, pcbnew
b = pcbnew.LoadBoard(sys.argv[1])
out = {}
for fp in b.GetFootprints():
    xs, ys = [], []
    for g in fp.GraphicalItems():
        if g.GetLayer() in (pcbnew.B_CrtYd, pcbnew.F_CrtYd):
            bb = g.GetBoundingBox()
            xs += [bb.GetX(), bb.GetRight()]
            ys += [bb.GetY(), bb.GetBottom()]
    out[fp.GetReference()] = [pcbnew.ToMM(min(xs)) - 20, pcbnew.ToMM(min(ys)) - 20,
                              pcbnew.ToMM(max(xs)) - 20, pcbnew.ToMM(max(ys)) - 20]
print(json.dumps(out))
"""


@needs_kicad
def test_the_committed_boards_real_courtyards_keep_out_of_every_foot():
    r = subprocess.run([SYS_PY, "-c", _COURTYARDS, BOARD], capture_output=True, text=True, timeout=300, check=True)
    real = json.loads(r.stdout.strip().splitlines()[-1])
    bp = _bp()
    (d,) = bp.designs_from_map(read_json(FULL)).values()
    parts = bp.netlist_parts(d)
    assert set(real) == set(parts)
    keep = design.foot_keepout_mm()
    for ref, (x0, y0, x1, y1) in real.items():
        # the generator's table is the board's courtyard (within KiCad's line width)
        mine = bp.part_box(parts[ref])
        assert all(abs(a - b) < 0.06 for a, b in zip(mine, (x0, y0, x1, y1))), (ref, mine, (x0, y0, x1, y1))
        for name, fx, fy in design.feet():
            dx = max(x0 - fx, 0.0, fx - x1)
            dy = max(y0 - fy, 0.0, fy - y1)
            assert dx * dx + dy * dy >= keep * keep, (ref, name)
