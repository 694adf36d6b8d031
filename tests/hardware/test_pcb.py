"""Fab-ready boards generated from the sensor map (issue 17, hardware/tools/build_pcb.py).

The generator needs KiCad's `pcbnew`, which only Debian's /usr/bin/python3 can import
(`apt-get install kicad kicad-footprints`, as .ci/run does); these tests call it through a
subprocess.  Without it they skip, except in CI (CI set), where they must run.  The map checks
(refusals) need no KiCad and always run.

Every strip of the set is one board design, the strip board (issue 32).  Routing it takes about
20-35 s of one core on an idle machine, so the tests route it again once per run (a shared
build, module time limit 900 s: minutes on a machine busy with other work) and compare it byte
for byte with the committed one; `--verify` also checks the committed board as it is (its parts
on the map's nets, KiCad's DRC, its netlist, BOM and placement files) without routing.
"""
import copy
import csv
import json
import os
import pathlib
import re
import subprocess
import sys
import zipfile

import pytest

from hwcommon import FULL, HW, REDUCED, TOOLS, _load, design, read_json

SYS_PY = "/usr/bin/python3"
TOOL = os.path.join(HW, "tools", "build_pcb.py")
HALL_PART = _load("build_pcb", os.path.join(TOOLS, "build_pcb.py")).PARTS["hall"][2]  # its value column
COMMITTED = os.path.join(HW, "pcb")
SMALL = "strip_board"      # the board the tests route again (the only design)
# Routing the strip board takes 20-35 s of one core; on a machine busy with other work (a CPU hog
# on both cores) that can stretch to minutes, so this module has its own, wider budget.
pytestmark = pytest.mark.timeout(900)
DOCS = os.path.join(HW, "docs")
BOARDS = tuple(sorted({s["board"] for s in read_json(FULL)["strips"]}))    # ("strip_board",)


def _have_pcbnew():
    try:
        return subprocess.run([SYS_PY, "-c", "import pcbnew"], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


HAVE_KICAD = _have_pcbnew()
needs_kicad = pytest.mark.skipif(not HAVE_KICAD and not os.environ.get("CI"),
                                 reason="KiCad's pcbnew is not importable by /usr/bin/python3 "
                                        "(apt-get install kicad kicad-footprints)")


def check_map(doc, tmp_path, full=False):
    """Run the generator on a map; returns (exit status, stdout + stderr)."""
    path = tmp_path / "map.json"
    path.write_text(json.dumps(doc))
    args = [sys.executable, TOOL, "--map", str(path)]
    args += ["--out", str(tmp_path / "out")] if full else ["--check-map"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


# ---- the map -> boards (no KiCad needed) ------------------------------------------------------
@pytest.mark.parametrize("path", [FULL, REDUCED])
def test_the_real_maps_fit_the_boards(path, tmp_path):
    rc, out = check_map(read_json(path), tmp_path)
    assert rc == 0, out
    assert "strip_board: 2 rows of 16 spots, 4 registers, 32 positions" in out
    assert out.count("strip_board:") == 1          # one design for every strip
    strips = read_json(path)["strips"]
    assert all(s["id"] in out for s in strips) and len(strips) == (10 if path == FULL else 4)


def test_strips_of_the_one_design_may_cut_their_rows_differently(full_doc):
    """A development strip (4 lanes of 8) and a resource strip (2 lanes of 16) are the same board,
    every spot populated on both: one BOM, one fab order."""
    bp = _load("build_pcb", os.path.join(TOOLS, "build_pcb.py"))
    (d,) = bp.designs_from_map(full_doc).values()
    lanes_per_strip = {s["id"]: sum(1 for l in full_doc["lanes"] if l["strip"] == s["id"])
                       for s in full_doc["strips"]}
    assert {lanes_per_strip["dev_government_economy"], lanes_per_strip["resources_p1_food_wood"]} == {4, 2}
    assert [len(row) for row in d["lanes"]] == [16, 16]      # the design is the whole grid,
    assert [s["id"] for s in d["strips"]] == [s["id"] for s in full_doc["strips"]]   # every strip that board


def _lane(doc, lid):
    return next(l for l in doc["lanes"] if l["id"] == lid)


def _one_more_space(lid):
    def grow(doc):
        lane = _lane(doc, lid)
        lane["bits"] = lane["bits"] + [lane["bits"][-1] + 1]
    return grow


def _read_bit(lid, i, bit):
    def rewire(doc):
        _lane(doc, lid)["bits"][i] = bit
    return rewire


def _moved_2mm(doc):
    lane = _lane(doc, "culture.p1")
    lane["at_mm"] = [lane["at_mm"][0] + 2.0, lane["at_mm"][1]]     # 2 mm beside the spots


def _first_two_spots_swapped(doc):
    bits = _lane(doc, "stone.p2")["bits"]
    bits[0], bits[1] = bits[1], bits[0]


def _a_fifth_lane(doc):
    extra = copy.deepcopy(_lane(doc, "government.p2"))
    extra["id"] = "government.p3"
    doc["lanes"].append(extra)


def _another_design(doc):
    doc["strips"][3]["board"] = "track_board"


MAP_REFUSALS = {
    # a resource lane is a whole row of 16
    "lane longer than its board": (_one_more_space("food.p1"),
        ["lane 'food.p1'", "17 positions", "holds 16 per lane"]),
    # government.p1 has spots 1-8 of row 1; economy.p1 holds spots 9-16
    "lane running into the next lane": (_one_more_space("government.p1"),
        ["share the spot at (140.0, 19.0) mm of strip 'dev_government_economy'",
         "lane 'government.p1' position 9", "lane 'economy.p1' position 1"]),
    # economy.p2 is on registers 0-3 (dev_government_economy); bit 40 is register 5, on dev_technology_culture
    "lane reading another board's register": (_read_bit("economy.p2", -1, 40),
        ["lane 'economy.p2' position 8", "dev_technology_culture", "cannot cross boards without a wire"]),
    "lane off the board's grid": (_moved_2mm,
        ["lane 'culture.p1' position 1", "is not on a spot of the strip_board", "strip 'dev_technology_culture'"]),
    "lane read by another spot's bit": (_first_two_spots_swapped,
        ["lane 'stone.p2' position 1", "is read by local bit 0"]),
    "strip with more lanes than its board": (_a_fifth_lane,
        ["strip 'dev_government_economy': 5 lanes", "holds 4"]),
    "strip of another board design": (_another_design,
        ["strip 'aspect_economic_strength_civilian_happiness': board 'track_board' is not a board design"]),
}


@pytest.mark.parametrize("case", MAP_REFUSALS)
def test_a_map_the_board_cannot_carry_is_refused_naming_the_entry(case, full_doc, tmp_path):
    mutate, words = MAP_REFUSALS[case]
    doc = copy.deepcopy(full_doc)
    mutate(doc)
    rc, out = check_map(doc, tmp_path)
    assert rc == 2
    for w in words:
        assert w in out


def test_the_full_generator_refuses_before_building(full_doc, tmp_path):
    doc = copy.deepcopy(full_doc)
    _read_bit("food.p1", 0, 0)(doc)            # register 0 is on dev_government_economy
    rc, out = check_map(doc, tmp_path, full=True)
    assert rc == 2 and out.startswith("refused: map.json: lane 'food.p1' position 1")
    assert not (tmp_path / "out").exists() or not os.listdir(tmp_path / "out")


# ---- the generated boards ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Generate the strip board once per test run (20-35 s idle): under pytest-xdist the workers
    share one build (the first one builds, the others wait on the lock and reuse it)."""
    if not HAVE_KICAD and not os.environ.get("CI"):
        pytest.skip("no pcbnew")
    import fcntl
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    out = root / "pcb_build"
    with open(str(root / "pcb_build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "pcb_build.done"
        if not done.exists():
            out.mkdir(exist_ok=True)
            r = subprocess.run([SYS_PY, TOOL, "--board", SMALL, "--out", str(out)], capture_output=True,
                               text=True, timeout=840)
            (root / "pcb_build.log").write_text(r.stdout + r.stderr)
            done.write_text(str(r.returncode))
        rc = int(done.read_text())
    assert rc == 0, (root / "pcb_build.log").read_text()
    return str(out)


def _folder(built, board):
    """Where a board's files are: the fresh build (test_the_committed_strip_board_is_what_the_map_generates
    holds the committed files to it)."""
    assert board == SMALL
    return built


def _netlist(built, board):
    with open(os.path.join(_folder(built, board), board + "_netlist.csv")) as f:
        rows = list(csv.DictReader(f))
    pin = {(r["Reference"], r["Pad"]): r["Net"] for r in rows}
    part = {r["Reference"]: r["Part"] for r in rows}
    members = {}
    for r in rows:
        members.setdefault(r["Net"], set()).add((r["Reference"], r["Pad"]))
    return pin, part, members


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_design_rule_check_is_clean(built, board):
    with open(os.path.join(_folder(built, board), board + "_drc.txt")) as f:
        text = f.read()
    assert "** Found 0 DRC violations **" in text
    assert "** Found 0 unconnected pads **" in text
    s = read_json(os.path.join(_folder(built, board), "summary.json"))[board]
    assert s["drc_violations"] == 0 and s["drc_unconnected"] == 0
    assert s["tracks"] > 100 and s["vias"] > 0


@needs_kicad
def test_the_committed_boards_are_what_the_map_gives():
    """Without routing again: each committed board has the map's parts on the map's nets, KiCad's
    DRC passes on it, and its netlist, BOM and placement files follow from the map and the board."""
    r = subprocess.run([SYS_PY, TOOL, "--verify", COMMITTED], capture_output=True, text=True, timeout=840)
    assert r.returncode == 0, r.stdout + r.stderr
    for board in BOARDS:
        assert "%s: checked" % board in r.stdout


@needs_kicad
def test_the_verify_gate_has_teeth(tmp_path):
    """A committed board whose file disagrees with the map (one pad moved to another net) or whose
    placement file was edited is reported."""
    import shutil
    for fn in os.listdir(COMMITTED):
        if fn.startswith(SMALL):
            shutil.copy(os.path.join(COMMITTED, fn), tmp_path / fn)
    script = ("import pcbnew, sys\n"
              "b = pcbnew.LoadBoard(sys.argv[1])\n"
              "pad = [p for p in b.FindFootprintByReference('R3').Pads() if p.GetNumber() == '1'][0]\n"
              "pad.SetNet(b.FindNet('GND'))\n"
              "pcbnew.SaveBoard(sys.argv[1], b)\n")
    subprocess.run([SYS_PY, "-c", script, str(tmp_path / (SMALL + ".kicad_pcb"))], check=True, timeout=280)
    cpl = tmp_path / (SMALL + "_cpl.csv")
    cpl.write_text(cpl.read_text().replace("Bottom", "Top", 1))
    r = subprocess.run([SYS_PY, TOOL, "--verify", str(tmp_path), "--board", SMALL], capture_output=True,
                       text=True, timeout=280)
    assert r.returncode == 1
    assert "pads on other nets than the map's" in r.stderr
    assert SMALL + "_cpl.csv: not what the map and the board give" in r.stderr


@needs_kicad
def test_the_drc_gate_has_teeth(built, tmp_path):
    """The same check on the generated board with one pull-up pushed onto its switch must fail."""
    script = (
        "import pcbnew, re, sys\n"
        "b = pcbnew.LoadBoard(sys.argv[1])\n"
        "b.FindFootprintByReference('R3').Move(pcbnew.wxPointMM(3.0, 0))\n"
        "pcbnew.WriteDRCReport(b, sys.argv[2], pcbnew.EDA_UNITS_MILLIMETRES, True)\n")
    rep = tmp_path / "drc.txt"
    subprocess.run([SYS_PY, "-c", script, os.path.join(built, SMALL + ".kicad_pcb"), str(rep)],
                   check=True, timeout=300)
    text = rep.read_text()
    assert "** Found 0 DRC violations **" not in text
    assert "courtyards_overlap" in text or "clearance" in text


@needs_kicad
def test_every_sensor_bit_of_the_map_is_a_switch_on_its_register(built):
    doc = read_json(FULL)
    regs_total = 0
    for strip in doc["strips"]:
        pin, part, members = _netlist(built, strip["board"])
        registers = sorted((r for r, p in part.items() if p == "74HC165D"), key=lambda r: int(r[1:]))
        assert len(registers) == strip["registers"]
        regs_total += len(registers)
        base = strip["first_register"] * 8
        seen = set()
        for lane in (l for l in doc["lanes"] if l["strip"] == strip["id"]):
            for i, bit in enumerate(lane["bits"]):
                local = bit - base
                reg = registers[local >> 3]
                letter = "HGFEDCBA"[local & 7]
                reg_pin = {"A": "11", "B": "12", "C": "13", "D": "14",
                           "E": "3", "F": "4", "G": "5", "H": "6"}[letter]
                net = pin[(reg, reg_pin)]
                on_net = members[net]
                switches = [(r, p) for r, p in on_net if part[r] == HALL_PART]
                assert len(switches) == 1 and switches[0][1] == "2", (lane["id"], i, on_net)
                sw = switches[0][0]
                assert pin[(sw, "1")] == "3V3" and pin[(sw, "3")] == "GND"
                pullups = [r for r, p in on_net if part[r] == "10k" and r != sw]
                assert len(pullups) == 1 and {pin[(pullups[0], "1")], pin[(pullups[0], "2")]} == {net, "3V3"}
                seen.add(sw)
        n_pos = sum(len(l["bits"]) for l in doc["lanes"] if l["strip"] == strip["id"])
        assert len(seen) == n_pos
    assert regs_total == doc["chain"]["registers"]


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_chain_wiring_and_schmitt_buffer(built, board):
    pin, part, members = _netlist(built, board)
    registers = sorted((r for r, p in part.items() if p == "74HC165D"), key=lambda r: int(r[1:]))
    buf = [r for r, p in part.items() if p == "74LVC2G17"]
    assert len(buf) == 1
    b = buf[0]
    # the connector's CLK and LOAD reach only the Schmitt inputs (pulled up to their idle level);
    # the buffered lines reach every register
    for conn_pin, buf_pin in (("2", "1"), ("4", "3")):
        on = members[pin[("J1", conn_pin)]]
        pulls = [(r, p) for r, p in on if part[r] == "10k"]
        assert on - set(pulls) == {("J1", conn_pin), (b, buf_pin)}
        assert len(pulls) == 1 and pin[(pulls[0][0], "2" if pulls[0][1] == "1" else "1")] == "3V3"
    # the buffered clock leaves the buffer through one 100 Ohm (the ~18 cm to 9 clock inputs);
    # CLK_OUT takes the buffer's output through its own 100 Ohm
    clk_buf = pin[(b, "6")]
    series = [r for r, _ in members[clk_buf] if r != b and part[r] == "100R"]
    assert len(series) == 2 and len(members[clk_buf]) == 3
    outs = {_other_pad(pin, r, clk_buf) for r in series}
    clk = next(n for n in outs if ("J2", "2") not in members[n])
    assert ("J2", "2") in members[(outs - {clk}).pop()]
    for reg in registers:
        assert pin[(reg, "2")] == clk and pin[(reg, "1")] == pin[(b, "4")]
        assert pin[(reg, "15")] == "GND" and pin[(reg, "16")] == "3V3"
    # register k's SER is register k+1's QH; the last SER comes from DOWN (with a pull-down)
    for k in range(len(registers) - 1):
        assert pin[(registers[k], "10")] == pin[(registers[k + 1], "9")]
    tail = members[pin[(registers[-1], "10")]]
    assert ("J2", "6") in tail
    assert any(part[r] == "10k" and "GND" in (pin.get((r, "1")), pin.get((r, "2"))) for r, _ in tail)
    # register 0's QH goes UP through a series resistor
    qh = members[pin[(registers[0], "9")]]
    series = [r for r, _ in qh if part[r] == "100R"]
    assert len(series) == 1
    other = pin[(series[0], "2")] if pin[(series[0], "1")] == pin[(registers[0], "9")] else pin[(series[0], "1")]
    assert ("J1", "6") in members[other]


# ---- the guidance lights ------------------------------------------------------------------------
SR_OUT = {"A": "15", "B": "1", "C": "2", "D": "3", "E": "4", "F": "5", "G": "6", "H": "7"}   # 74HC595 QA..QH


def _chips(part, value):
    return sorted((r for r, p in part.items() if p == value), key=lambda r: int(r[1:]))


def _other_pad(pin, ref, net):
    """The net on the other pad of a two-pad part, seen from `net`."""
    a, b = pin.get((ref, "1")), pin.get((ref, "2"))
    return b if a == net else a


@needs_kicad
def test_every_sensed_position_has_its_led_on_the_595_output_of_the_same_letter(built):
    """The position read at input X of 74HC165 r is lit by output QX of 74HC595 r: QX -> 470 Ohm ->
    the anode of that position's LED (D<n> beside H<n>), cathode to GND."""
    doc = read_json(FULL)
    for strip in doc["strips"]:
        pin, part, members = _netlist(built, strip["board"])
        registers = _chips(part, "74HC165D")
        lights = _chips(part, "74HC595D")
        assert len(lights) == len(registers) == strip["registers"]
        base = strip["first_register"] * 8
        for lane in (l for l in doc["lanes"] if l["strip"] == strip["id"]):
            for i, bit in enumerate(lane["bits"]):
                local = bit - base
                letter = "HGFEDCBA"[local & 7]
                reg_pin = {"A": "11", "B": "12", "C": "13", "D": "14",
                           "E": "3", "F": "4", "G": "5", "H": "6"}[letter]
                sensed = members[pin[(registers[local >> 3], reg_pin)]]
                switch = next(r for r, p in sensed if part[r] == HALL_PART)
                out = pin[(lights[local >> 3], SR_OUT[letter])]
                on_out = members[out] - {(lights[local >> 3], SR_OUT[letter])}
                assert len(on_out) == 1, (lane["id"], i, on_out)
                res, _ = next(iter(on_out))
                assert part[res] == "470R", (lane["id"], i, res)
                anode = _other_pad(pin, res, out)
                leds = [(r, p) for r, p in members[anode] if part[r] == "RED_RM1206"]
                assert leds == [("D" + switch[1:], "2")], (lane["id"], i, members[anode])
                assert members[anode] - set(leds) in ({(res, "1")}, {(res, "2")})
                assert pin[(leds[0][0], "1")] == "GND"


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_the_595_chain_runs_from_light_in_to_light_out(built, board):
    """J1 pin 8 (LIGHT_IN, 10 kOhm to GND) -> SER of 595 0 -> QH' -> SER of 595 1 -> ... -> QH' of the
    last 595 -> a 74LVC1G14 -> D of the 74LVC1G80 (clocked by CLK) -> /Q -> 100 Ohm -> J2 pin 8
    (LIGHT_OUT): inverted twice, so the next board gets the bit true; the 595s in the order of the
    74HC165s they serve."""
    pin, part, members = _netlist(built, board)
    lights = _chips(part, "74HC595D")
    light_in = pin[("J1", "8")]
    on_in = members[light_in]
    assert (lights[0], "14") in on_in
    pulls = [(r, p) for r, p in on_in if part[r] == "10k"]
    assert len(pulls) == 1 and _other_pad(pin, pulls[0][0], light_in) == "GND"
    assert on_in == {("J1", "8"), (lights[0], "14"), pulls[0]}
    for k in range(len(lights) - 1):
        link = pin[(lights[k], "9")]
        assert members[link] == {(lights[k], "9"), (lights[k + 1], "14")}, (k, members[link])
    # the last QH' goes through the lock-up flip-flop, clocked by the board's (buffered) CLK,
    # whose rising edge is half a clock after the 595s shift: LIGHT_OUT changes there
    last = pin[(lights[-1], "9")]
    ff = _chips(part, "74LVC1G80")
    assert len(ff) == 1 and len(members[last]) == 2
    [(inv, a)] = [m for m in members[last] if m[0] != lights[-1]]
    assert part[inv] == "74LVC1G14" and a == "2"                       # the input inverter's A
    assert members[pin[(inv, "4")]] == {(inv, "4"), (ff[0], "1")}      # its Y is the flip-flop's D
    assert pin[(inv, "3")] == "GND" and pin[(inv, "5")] == "3V3" and (inv, "1") not in pin
    assert pin[(ff[0], "2")] == pin[(_chips(part, "74HC165D")[0], "2")]      # the (buffered) CLK
    assert pin[(ff[0], "3")] == "GND" and pin[(ff[0], "5")] == "3V3"
    q = pin[(ff[0], "4")]
    series = [r for r, _ in members[q] if part[r] == "100R"]
    assert len(series) == 1 and len(members[q]) == 2
    out = _other_pad(pin, series[0], q)
    assert {r for r, _ in members[out]} == {"J2", series[0]} and ("J2", "8") in members[out]


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_595_clocks_and_control_pins(built, board):
    """SRCLK from the 74LVC1G14 fed by the buffered CLK (the 595s shift on CLK's falling edge),
    through a series resistor;
    RCLK on the buffered LOAD (the 74HC165s' SH/LD); /OE on LIGHTS_OFF, /SRCLR to 3V3."""
    pin, part, members = _netlist(built, board)
    buf = _chips(part, "74LVC2G17")[0]
    clk, load = pin[(_chips(part, "74HC165D")[0], "2")], pin[(buf, "4")]
    inv = [u for u in _chips(part, "74LVC1G14") if pin[(u, "2")] == clk]   # the other inverts the lights' data
    assert len(inv) == 1 and len(_chips(part, "74LVC1G14")) == 2
    inv = inv[0]
    assert pin[(inv, "2")] == clk and pin[(inv, "3")] == "GND" and pin[(inv, "5")] == "3V3"
    assert (inv, "1") not in pin                       # NC
    # the inverter drives SRCLK through one 100 Ohm series resistor (the long clock track)
    drv = pin[(inv, "4")]
    series = [r for r, _ in members[drv] if r != inv]
    assert len(series) == 1 and part[series[0]] == "100R" and len(members[drv]) == 2
    srclk = [n for (r, _), n in pin.items() if r == series[0] and n != drv][0]
    lights = _chips(part, "74HC595D")
    assert {r for r, _ in members[srclk]} == set(lights) | {series[0]}
    for reg in _chips(part, "74HC165D"):
        assert pin[(reg, "2")] == clk and pin[(reg, "1")] == load
    for u in lights:
        assert pin[(u, "11")] == srclk and pin[(u, "12")] == load
        assert pin[(u, "13")] == pin[("J1", "1")] and pin[(u, "8")] == "GND"
        assert pin[(u, "10")] == "3V3" and pin[(u, "16")] == "3V3"
    # a 100 nF per 74HC595, one for each inverter and one for the lock-up flip-flop (besides the
    # 74HC165s' and the buffer's), and one per hall switch
    caps = [r for r, p in part.items() if p == "100nF"]
    halls = [r for r, p in part.items() if p == HALL_PART]
    assert len(caps) == 2 * len(lights) + 4 + len(halls)


_HOLES = """
import json, sys, pcbnew
b = pcbnew.LoadBoard(sys.argv[1])
o = 20.0
def box(bb):
    return [pcbnew.ToMM(bb.GetX()) - o, pcbnew.ToMM(bb.GetY()) - o,
            pcbnew.ToMM(bb.GetRight()) - o, pcbnew.ToMM(bb.GetBottom()) - o]
out = {}
for fp in b.GetFootprints():
    ref = fp.GetReference()
    holes = [box(p.GetBoundingBox()) for p in fp.Pads() if p.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH]
    pads = [box(p.GetBoundingBox()) for p in fp.Pads() if p.GetAttribute() != pcbnew.PAD_ATTRIB_NPTH]
    out[ref] = {"holes": holes, "pads": pads, "bottom": fp.IsFlipped()}
print(json.dumps(out))
"""


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_every_led_hole_lies_in_its_space_beside_the_switch(built, board):
    """The LED shines up through its hole into the printed space: the hole lies inside the space's
    printed square, clear of the hall switch (and of every pad); the LED sits on the underside."""
    r = subprocess.run([SYS_PY, "-c", _HOLES, os.path.join(_folder(built, board), board + ".kicad_pcb")],
                       capture_output=True, text=True, timeout=300, check=True)
    fps = json.loads(r.stdout.strip().splitlines()[-1])
    leds = [ref for ref in fps if ref.startswith("D")]
    assert leds and all(fps[ref]["bottom"] for ref in leds)
    half = design.SPACE / 2.0
    for ref in leds:
        sw = "H" + ref[1:]
        (hole,) = fps[ref]["holes"]
        sx = sum((p[0] + p[2]) / 2 for p in fps[sw]["pads"]) / len(fps[sw]["pads"])
        sy = sum((p[1] + p[3]) / 2 for p in fps[sw]["pads"]) / len(fps[sw]["pads"])
        # the switch's centre is the space's centre (placement from the map)
        assert sx - half < hole[0] and hole[2] < sx + half and sy - half < hole[1] and hole[3] < sy + half, ref
        for p in fps[sw]["pads"] + [q for f in fps.values() for q in f["pads"]]:
            clear = p[2] < hole[0] or hole[2] < p[0] or p[3] < hole[1] or hole[3] < p[1]
            assert clear, (ref, p)
        assert not (hole[0] <= sx <= hole[2] and hole[1] <= sy <= hole[3]), ref
    # and no other part has a hole but the connectors' pins
    assert all(not f["holes"] for ref, f in fps.items() if not ref.startswith("D"))


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_a_reversed_cable_cannot_short_the_supply(built, board):
    """Pin p of one end meets pin 10-p of the other on a reversed 9-way cable: 3V3 must only ever
    meet 3V3, GND only GND, the lights' /OE only /OE (pins 1 and 9 both carry it); and every
    switching signal has a GND or 3V3 neighbour, no two switching signals touch (/OE is static:
    it changes only at start-up and before the REPL)."""
    pin, part, members = _netlist(built, board)
    oe = pin[("J1", "1")]
    for j in ("J1", "J2"):
        nets = {p: pin.get((j, str(p))) for p in range(1, 10)}
        assert nets[1] == nets[9] == oe
        for p in range(1, 10):
            a, b = nets[p], nets[10 - p]
            if a in ("3V3", "GND", oe) or b in ("3V3", "GND", oe):
                assert a == b, (j, p, a, b)
        for p in range(1, 9):
            pair = {nets[p], nets[p + 1]}
            assert pair & {"GND", "3V3", None, oe}, (j, p, pair)
        for p in range(2, 9):
            if nets[p] not in ("GND", "3V3", oe):
                assert {nets[p - 1], nets[p + 1]} & {"GND", "3V3"}, (j, p)
    for p in range(1, 10):
        up, down = pin.get(("J1", str(p))), pin.get(("J2", str(p)))
        if up in ("GND", "3V3") or down in ("GND", "3V3"):
            assert up == down, p           # UP and DOWN share one pinout


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_assembly_files_in_jlcpcb_format(built, board):
    doc = read_json(FULL)
    summary = read_json(os.path.join(_folder(built, board), "summary.json"))[board]
    pin, part, members = _netlist(built, board)
    # one design, fully populated on every strip: one BOM for the whole set (one fab order)
    assert summary["strips"] == [s["id"] for s in doc["strips"]]
    assert sorted(f for f in os.listdir(_folder(built, board)) if f.endswith(("_bom.csv", "_cpl.csv"))) == [
        board + "_bom.csv", board + "_cpl.csv"]
    with open(os.path.join(_folder(built, board), board + "_bom.csv")) as f:
        bom = list(csv.reader(f))
    with open(os.path.join(_folder(built, board), board + "_cpl.csv")) as f:
        cpl = list(csv.reader(f))
    assert bom[0][:4] == ["Comment", "Designator", "Footprint", "LCSC Part #"]
    assert cpl[0] == ["Designator", "Mid X", "Mid Y", "Layer", "Rotation"]
    placed = {r[0] for r in cpl[1:]}
    in_bom = {d for r in bom[1:] for d in r[1].split(",")}
    assert placed == in_bom
    for r in bom[1:]:
        if r[0] in ("74HC165D", "74HC595D", "74LVC2G17", "74LVC1G14", "74LVC1G80", "AH1806-W-7", "10k", "100R",
                    "470R", "100nF", "10uF"):
            assert r[3].startswith("C") and r[3][1:].isdigit(), r
        else:
            assert r[3] == "" or (r[3].startswith("C") and r[3][1:].isdigit()), r
    assert all(r[3] == "Bottom" for r in cpl[1:])
    w, h = summary["size_mm"]
    for r in cpl[1:]:
        x, y = float(r[1][:-2]), float(r[2][:-2])
        assert 0 < x < w and -h < y < 0
    halls = [d for d in in_bom if part[d] == HALL_PART]
    assert len(halls) == summary["positions"] == 32
    # every spot has its switch, its LED and the LED's 470 Ohm
    leds = sorted(d for d in in_bom if part[d] == "RED_RM1206")
    assert sorted("D" + h[1:] for h in halls) == leds
    assert len([d for d in in_bom if part[d] == "470R"]) == len(halls)
    # every register input has its pull-up; + tail pull-down, CLK/LOAD
    # pull-ups, LIGHT_IN pull-down, the /OE pull-up
    assert len([d for d in in_bom if part[d] == "10k"]) == 8 * summary["registers"] + 5
    # every switch has its 100 nF
    assert len([d for d in in_bom if part[d] == "100nF"]) == 2 * summary["registers"] + 4 + len(halls)
    # every 74HC595 is fitted
    assert len([d for d in in_bom if part[d] == "74HC595D"]) == summary["registers"]


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_gerbers_and_drill_files(built, board):
    with zipfile.ZipFile(os.path.join(_folder(built, board), board + "_gerbers.zip")) as z:
        names = z.namelist()
        for suffix in ("-F_Cu.gtl", "-B_Cu.gbl", "-F_Mask.gts", "-B_Mask.gbs", "-B_SilkS.gbo",
                       "-Edge_Cuts.gm1", "-PTH.drl"):
            assert board + suffix in names
        cu = z.read(board + "-B_Cu.gbl").decode()
        assert cu.rstrip().endswith("M02*") and "D03*" in cu
        assert "T1C0.300" in z.read(board + "-PTH.drl").decode()


@needs_kicad
def test_the_committed_strip_board_is_what_the_map_generates(built):
    """The strip board, routed again, is the committed one byte for byte (board, Gerbers, drill,
    assembly files, DRC report, picture, its summary entry), and nothing else is committed."""
    stale = []
    for fn in sorted(os.listdir(built)):
        if fn == "summary.json":
            continue
        mine = os.path.join(built, fn)
        theirs = os.path.join(DOCS if fn.endswith(".png") else COMMITTED, fn)
        if not os.path.exists(theirs):
            stale.append(fn + " (not committed)")
            continue
        with open(mine, "rb") as a, open(theirs, "rb") as b:
            if a.read() != b.read():
                stale.append(fn)
    for fn in os.listdir(COMMITTED):
        if not os.path.exists(os.path.join(built, fn)):
            stale.append(fn + " (no longer generated)")
    for fn in os.listdir(DOCS):
        if fn.startswith("pcb_") and fn.endswith(".png") and not os.path.exists(os.path.join(built, fn)):
            stale.append(fn + " (no longer generated)")
    if read_json(os.path.join(built, "summary.json"))[SMALL] != read_json(os.path.join(COMMITTED, "summary.json"))[SMALL]:
        stale.append("summary.json")
    assert not stale, "stale: %s (run /usr/bin/python3 hardware/tools/build_pcb.py)" % stale


# ---- issue 32: dark at power-up, the clock's series resistor, the switches' capacitors, solderable
# connectors, power on wide tracks, the router's figures, parts with confirmed numbers ------------
@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_oe_is_pulled_up_and_reaches_every_595_and_both_connectors(built, board):
    """LIGHTS_OFF: J1 pins 1 and 9, J2 pins 1 and 9 (passed on to the next board), every 74HC595's
    /OE, one 10 kOhm to 3V3 and nothing else: with nothing driving it every LED is dark."""
    pin, part, members = _netlist(built, board)
    oe = pin[("J1", "1")]
    lights = _chips(part, "74HC595D")
    pulls = [(r, p) for r, p in members[oe] if part[r] == "10k"]
    assert len(pulls) == 1 and _other_pad(pin, pulls[0][0], oe) == "3V3"
    assert members[oe] == ({("J1", "1"), ("J1", "9"), ("J2", "1"), ("J2", "9")} | {(u, "13") for u in lights}
                           | set(pulls))


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_every_hall_switch_has_its_own_100nf_beside_it(built, board):
    """C<100+n> across 3V3 and GND within 6 mm of switch H<n> (placement file, mm)."""
    pin, part, members = _netlist(built, board)
    with open(os.path.join(_folder(built, board), board + "_cpl.csv")) as f:
        at = {r["Designator"]: (float(r["Mid X"][:-2]), float(r["Mid Y"][:-2])) for r in csv.DictReader(f)}
    halls = [r for r, p in part.items() if p == HALL_PART]
    assert halls
    for h in halls:
        c = "C%d" % (100 + int(h[1:]))
        assert part[c] == "100nF" and pin[(c, "1")] == "3V3" and pin[(c, "2")] == "GND", h
        (hx, hy), (cx, cy) = at[h], at[c]
        assert ((hx - cx) ** 2 + (hy - cy) ** 2) ** 0.5 < 6.0, (h, c)


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_solderable_connectors_and_wide_power_rails(built, board):
    """The ground pours meet through-hole pads with thermal relief (a maker's iron can heat the
    connector's GND pins); the lanes' 3V3 and GND rails are 0.5 mm, signals 0.25 mm."""
    with open(os.path.join(_folder(built, board), board + ".kicad_pcb")) as f:
        text = f.read()
    zones = re.findall(r'\(zone \(net \d+\) \(net_name "GND"\).*?\(connect_pads ([a-z_]*)', text, re.S)
    assert len(zones) == 2 and all(z == "thru_hole_only" for z in zones), zones
    codes = {name: int(code) for code, name in re.findall(r'\(net (\d+) "([^"]*)"\)', text)}
    widths = {}
    for w, net in re.findall(r"\(segment \(start [^)]*\) \(end [^)]*\) \(width ([\d.]+)\) \(layer [^)]*\) "
                             r"\(net (\d+)\)", text):
        widths.setdefault(int(net), set()).add(float(w))
    assert 0.5 in widths[codes["GND"]] and 0.5 in widths[codes["3V3"]]
    assert widths[codes["CLK"]] == {0.25}


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_the_router_figures_are_measured_and_printed(built, board):
    """Vias per signal net (average and worst net) and the ground pour's islands per layer are in
    the summary, counted again here from the board file; the board meets the goals (<= 2 vias on
    average, no net over 8, at most 2 pour islands per layer) and its build printed them."""
    s = read_json(os.path.join(_folder(built, board), "summary.json"))[board]
    with open(os.path.join(_folder(built, board), board + ".kicad_pcb")) as f:
        text = f.read()
    names = {int(code): name for code, name in re.findall(r'\(net (\d+) "([^"]*)"\)', text)}
    per = {}
    for code in re.findall(r"\(via \(at [^)]*\) .*?\(net (\d+)\)", text):
        per[names[int(code)]] = per.get(names[int(code)], 0) + 1
    signals = [n for n in names.values() if n and n not in ("GND", "3V3")]
    assert len(signals) > 100 and sum(per.values()) == s["vias"]
    assert round(sum(per.get(n, 0) for n in signals) / len(signals), 2) == s["vias_per_signal_net"]
    worst = max(signals, key=lambda n: per.get(n, 0))
    assert per[worst] == s["max_vias_on_a_net"][1]
    pieces = re.findall(r'\(filled_polygon\s+\(layer "([FB])\.Cu"\)', text)
    assert s["pour_islands"] == [pieces.count("F"), pieces.count("B")]
    assert min(s["pour_islands"]) >= 1 and max(s["pour_islands"]) <= 2
    assert s["vias_per_signal_net"] <= 2.0 and s["max_vias_on_a_net"][1] <= 8
    root = pathlib.Path(built).parent
    log = (root / "pcb_build.log").read_text()
    assert "vias per signal net %.2f on average" % s["vias_per_signal_net"] in log
    assert "ground pour islands: %d on F.Cu, %d on B.Cu" % tuple(s["pour_islands"]) in log


@needs_kicad
@pytest.mark.parametrize("board", BOARDS)
def test_chips_and_connectors_sit_in_the_middle_band(built, board):
    """Between the rows' cells (design.MID_H, y 27-53 mm from the top): every chip, each register's
    pair under the 8 spots it serves (row 0's in the upper half, row 1's in the lower), J1 at the
    left short edge and J2 at the right; all on the underside (placement file, y up)."""
    pin, part, members = _netlist(built, board)
    with open(os.path.join(_folder(built, board), board + "_cpl.csv")) as f:
        rows = list(csv.DictReader(f))
    at = {r["Designator"]: (float(r["Mid X"][:-2]), -float(r["Mid Y"][:-2])) for r in rows}
    assert {r["Layer"] for r in rows} == {"Bottom"}
    top, bottom = design.ROW_Y[0] + design.PITCH / 2, design.ROW_Y[1] - design.PITCH / 2
    mid = (top + bottom) / 2
    for ref in [r for r in at if r.startswith("U") or r.startswith("J")]:
        assert top < at[ref][1] < bottom, (ref, at[ref])
    for kind in ("74HC165D", "74HC595D"):
        for r, u in enumerate(_chips(part, kind)):
            row, half = divmod(r, 2)
            xs = [design.spot_xy(row, c)[0] for c in range(8 * half, 8 * half + 8)]
            assert min(xs) < at[u][0] < max(xs), (u, at[u])
            assert (at[u][1] < mid) == (row == 0), (u, at[u])
    assert at["J1"][0] < 15 and at["J2"][0] > design.STRIP_W - 15


def test_a_part_without_a_confirmed_number_is_refused_naming_it(tmp_path):
    cases = (({"ff": ["fab", "", "a guess"]}, "part 'ff' (74LVC1G80): no part number confirmed"),
             ({"led": ["fab", "LTST-C230KRKT", "its datasheet"]},
              "part 'led' (RED_RM1206): placed by the fab but 'LTST-C230KRKT' is not an LCSC number"),
             ({"conn": ["hand", "JST S9B-XH-A", ""]}, "part 'conn' (S9B-XH-A): number JST S9B-XH-A names no source"),
             ({"hall": ["mail", "C126663", "x"]}, "part 'hall' (AH1806-W-7): route 'mail'"))
    for override, words in cases:
        bad = tmp_path / "parts.json"
        bad.write_text(json.dumps(override))
        r = subprocess.run([sys.executable, TOOL, "--check-map", "--parts", str(bad)], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 2 and words in r.stderr, (override, r.stderr)


def test_every_board_part_has_a_route_and_a_confirmed_number():
    bp = _load("build_pcb", os.path.join(TOOLS, "build_pcb.py"))
    bp.check_parts()
    assert set(bp.SOURCING) == set(bp.PARTS)
    for kind, (route, number, source) in bp.SOURCING.items():
        assert bp.lcsc_number(kind) == (number if route == "fab" else "")
