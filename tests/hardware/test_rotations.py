"""Placement rotations from a maintained table (issue 40, item 1).

The placement file's rotations come from tools/jlc_rotations.csv: the rows of the community table
the most used KiCad fab plugin downloads (matthewlai/JLCKicadTools cpl_rotations_db.csv, through
Bouni/kicad-jlcpcb-tools) for our packages, and a row of our own, with its reason, for every other
footprint.  These tests read the committed board file and placement file as text (no KiCad)."""
import csv
import os
import re
import subprocess
import sys

import pytest

from hwcommon import HW, TOOLS, _load

BOARD = os.path.join(HW, "pcb", "strip_board.kicad_pcb")
CPL = os.path.join(HW, "pcb", "strip_board_cpl.csv")
TABLE = os.path.join(TOOLS, "jlc_rotations.csv")
TOOL = os.path.join(TOOLS, "build_pcb.py")
FP_DIR = "/usr/share/kicad/footprints"
# the two rows taken from the community table, as that file has them (commit cd88491)
UPSTREAM = {'"^SOT-23",-90', '"^SOIC-",270'}


def _bp():
    return _load("build_pcb", TOOL)


def _footprints():
    """ref -> (footprint name, KiCad angle, bottom) from the committed board file."""
    text = open(BOARD).read()
    out = {}
    for block in text.split("\n  (footprint ")[1:]:
        name = re.match(r'"([^"]+)"', block).group(1)
        layer = re.search(r'\(layer "([FB])\.Cu"\)', block).group(1)
        at = re.search(r"\n    \(at [-\d.]+ [-\d.]+(?: ([-\d.]+))?\)", block)
        ref = re.search(r'\(fp_text reference "([^"]+)"', block).group(1)
        out[ref] = (name, float(at.group(1) or 0), layer == "B")
    return out


def _table():
    with open(TABLE, newline="") as f:
        return [(r["pattern"], int(r["correction"]), r["source"]) for r in csv.DictReader(f)]


def test_every_placement_line_has_the_rotation_the_table_gives():
    table = _table()
    fps = _footprints()
    with open(CPL, newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and {r["Designator"] for r in rows} == set(fps)
    seen = set()
    for r in rows:
        name, angle, bottom = fps[r["Designator"]]
        match = [row for row in table if re.search(row[0], name)]
        assert match, (r["Designator"], name)
        base = (180 - angle) % 360 if bottom else angle % 360
        assert float(r["Rotation"]) == (base + match[0][1]) % 360, (r["Designator"], name, r["Rotation"])
        seen.add(match[0][0])
    # every row of the table is used by some footprint, and the switches are drawn like SOT-23 parts
    assert seen == {row[0] for row in table}
    rot = {r["Designator"]: r["Rotation"] for r in rows}
    assert rot["H1"] == rot["U5"] == rot["U10"]          # SC-59 switch, SOT-23-6 buffer, SOT-23-5 inverter, all at KiCad angle 0


def test_the_vendored_rows_are_the_community_tables_and_every_row_names_its_source():
    table = _table()
    text = open(TABLE).read()
    for line in UPSTREAM:
        pat, corr = line.replace('"', "").split(",")
        assert (pat, int(corr)) in [(p, c) for p, c, _ in table]
    for pat, corr, src in table:
        assert src.startswith(("table: matthewlai/JLCKicadTools", "project: ")), pat
        if src.startswith("table:"):
            assert '"%s",%d' % (pat, corr) in UPSTREAM
    assert "cd88491" in text


def _pads(name):
    with open(os.path.join(FP_DIR, "Package_TO_SOT_SMD.pretty", name + ".kicad_mod")) as f:
        return {n: (float(x), float(y)) for n, x, y in
                re.findall(r'\(pad "(\d)" smd \w+\s*\(at ([-\d.]+) ([-\d.]+)', f.read())}


@pytest.mark.skipif(not os.path.isdir(FP_DIR) and not os.environ.get("CI"),
                    reason="KiCad's footprint library is not installed (apt-get install kicad-footprints)")
def test_the_switch_footprint_has_the_sot23_land_it_borrows_the_row_of():
    """SC-59 takes the table's SOT-23 row: the same three pads, 1 and 2 on one side 1.9 mm apart, 3
    alone opposite, in the same places (the SC-59 body is only longer)."""
    sc59, sot23 = _pads("SC-59"), _pads("SOT-23")
    assert set(sc59) == set(sot23) == {"1", "2", "3"}
    for n in "123":
        assert sc59[n][1] == sot23[n][1]
        assert (sc59[n][0] < 0) == (sot23[n][0] < 0)
    assert sc59["1"][0] == sc59["2"][0] and sc59["3"][0] == -sc59["1"][0]


def test_a_footprint_with_no_rotation_entry_is_refused_naming_it(tmp_path):
    table = [r for r in _table() if r[0] != "^SC-59"]
    bad = tmp_path / "rot.csv"
    with open(bad, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["pattern", "correction", "source"])
        w.writerows(table)
    r = subprocess.run([sys.executable, TOOL, "--check-map", "--rotations", str(bad)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2
    assert "part 'hall' (AH1806-W-7): footprint 'SC-59' has no rotation entry" in r.stderr
    # a row without its source is refused too
    with open(bad, "a", newline="") as f:
        csv.writer(f).writerow(["^SC-59", "-90", ""])
    r = subprocess.run([sys.executable, TOOL, "--check-map", "--rotations", str(bad)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "the row for ^SC-59 names no source" in r.stderr


def test_the_built_in_table_covers_every_part():
    bp = _bp()
    bp.check_rotations()
    with pytest.raises(bp.MapError, match="part 'led' .*'LED_1206_3216Metric_ReverseMount_Hole1.8x2.4mm'"):
        bp.check_rotations([row for row in bp.ROTATIONS if not row[0].startswith("^LED")])
