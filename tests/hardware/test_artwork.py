"""The SVG artwork has every sensor of the map, with its mark at its stated place."""
import glob
import itertools
import os
import re
import xml.etree.ElementTree as ET

from hwcommon import FULL, HW, design, read_json, sensormap

SVG = "{http://www.w3.org/2000/svg}"
ART = os.path.join(HW, "artwork")


def parse(path):
    return ET.parse(path).getroot()


def mm(v):
    assert v.endswith("mm"), v
    return float(v[:-2])


def sensor_marks():
    """(strip id, lane, space, bit, cx, cy, svg root) for every sensor mark in every strip SVG."""
    out = []
    for path in sorted(glob.glob(os.path.join(ART, "strip_*.svg"))):
        sid = os.path.basename(path)[len("strip_"):-4]
        root = parse(path)
        for g in root.iter(SVG + "g"):
            if g.get("class") != "sensor":
                continue
            circles = g.findall(SVG + "circle")
            assert len(circles) == 1, path
            out.append((sid, g.get("data-lane"), int(g.get("data-space")), int(g.get("data-bit")),
                        float(circles[0].get("cx")), float(circles[0].get("cy"))))
    return out


def test_one_svg_per_strip_at_1_to_1():
    doc = read_json(FULL)
    files = {os.path.basename(p) for p in glob.glob(os.path.join(ART, "strip_*.svg"))}
    assert files == {"strip_%s.svg" % s["id"] for s in doc["strips"]}
    for s in doc["strips"]:
        root = parse(os.path.join(ART, "strip_%s.svg" % s["id"]))
        w, h = mm(root.get("width")), mm(root.get("height"))
        assert [w, h] == s["size_mm"]
        assert [float(v) for v in root.get("viewBox").split()] == [0, 0, w, h]   # 1 user unit = 1 mm


def test_every_sensor_has_its_mark_at_its_place():
    doc = read_json(FULL)
    m = sensormap.load(FULL)
    marks = sensor_marks()
    assert len(marks) == m.n_sensors()
    assert len({mk[3] for mk in marks}) == len(marks)             # each bit once
    by_bit = {mk[3]: mk for mk in marks}
    sizes = {s["id"]: s["size_mm"] for s in doc["strips"]}
    for lane in doc["lanes"]:
        for i, b in enumerate(lane["bits"]):
            assert b in by_bit, "no mark for %s" % m.bit_name(b)
            sid, lid, space, bit, cx, cy = by_bit[b]
            assert (sid, lid, space) == (lane["strip"], lane["id"], i), m.bit_name(b)
            x = lane["at_mm"][0] + i * lane["step_mm"][0]
            y = lane["at_mm"][1] + i * lane["step_mm"][1]
            assert abs(cx - x) < 0.01 and abs(cy - y) < 0.01, m.bit_name(b)
            w, h = sizes[sid]
            assert 5 < cx < w - 5 and 5 < cy < h - 5


def test_marks_are_centred_in_printed_spaces_and_far_apart():
    for path in glob.glob(os.path.join(ART, "strip_*.svg")):
        root = parse(path)
        rects = [(float(r.get("x")), float(r.get("y")), float(r.get("width")))
                 for r in root.iter(SVG + "rect") if r.get("class") == "space"]
        circles = [(float(c.get("cx")), float(c.get("cy"))) for g in root.iter(SVG + "g")
                   if g.get("class") == "sensor" for c in g.findall(SVG + "circle")]
        assert len(rects) == len(circles)
        for (cx, cy) in circles:
            assert any(abs(x + s / 2 - cx) < 0.01 and abs(y + s / 2 - cy) < 0.01 for x, y, s in rects)
        for a, b in itertools.combinations(circles, 2):
            assert ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 >= design.PITCH - 0.01


def test_well_template_has_every_well():
    m = sensormap.load(FULL)
    root = parse(os.path.join(ART, "dice_well_template.svg"))
    wells = [g.get("data-well") for g in root.iter(SVG + "g") if g.get("class") == "well"]
    assert wells == m.well_ids
    windows = [c for c in root.iter(SVG + "circle") if c.get("class") == "window"]
    assert len(windows) == m.n_wells
    for c in windows:
        assert abs(float(c.get("r")) * 2 - design.WELL_WINDOW) < 0.01


def _rgb(h):
    return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))


def test_dice_face_marks_six_distinct_colours():
    root = parse(os.path.join(ART, "dice_face_marks.svg"))
    marks = [g for g in root.iter(SVG + "g") if g.get("class") == "face-mark"]
    values = sorted({int(g.get("data-value")) for g in marks})
    assert values == [1, 2, 3, 4, 5, 6]
    colours = {}
    for g in marks:
        rect = g.find(SVG + "rect")
        assert rect.get("fill") == g.get("data-rgb")
        assert abs(float(rect.get("width")) - design.FACE_MARK) < 0.01
        colours.setdefault(int(g.get("data-value")), set()).add(g.get("data-rgb"))
    assert all(len(v) == 1 for v in colours.values())
    rgbs = {k: _rgb(v.pop()) for k, v in colours.items()}
    target = {v: rgb for v, _, rgb in design.FACE_COLOURS}
    assert rgbs == target
    # far apart as the sensor sees them: tests/firmware/test_dice_marks.py classifies every
    # printed colour through the optical model (sRGB distance is no measure of that)
    # nothing near black (an empty well reads dark)
    assert min(sum(rgb) for rgb in rgbs.values()) > 200
    # the documented target RGB in the README matches the artwork
    readme = open(os.path.join(HW, "README.md")).read()
    for v, name, rgb in design.FACE_COLOURS:
        assert re.search(r"%d %s #%02X%02X%02X" % (v, name, rgb[0], rgb[1], rgb[2]), readme), name


def test_well_template_pieces_are_the_design_dimensions():
    """Every piece of the template at the size design.well_parts() gives, for both wells; the
    dashed clear inside is WELL_INNER and the walls stand outside it."""
    root = parse(os.path.join(ART, "dice_well_template.svg"))
    wells = [g for g in root.iter(SVG + "g") if g.get("class") == "well"]
    want = sorted((name.replace(" ", "-"), w, h) for name, n, w, h in design.well_parts()
                  for _ in range(n))
    for g in wells:
        assert float(g.get("data-inner")) == design.WELL_INNER
        assert float(g.get("data-wall-t")) == design.WALL_T
        assert float(g.get("data-die")) == design.DIE_SIZE
        got = []
        for r in g.iter(SVG + "rect"):
            cls = (r.get("class") or "").split()
            if cls and cls[0] == "piece":
                assert float(r.get("width")) == float(r.get("data-w"))
                assert float(r.get("height")) == float(r.get("data-h"))
                got.append((cls[1], float(r.get("width")), float(r.get("height"))))
            if cls == ["clear-inside"]:
                assert float(r.get("width")) == float(r.get("height")) == design.WELL_INNER
        assert sorted(got) == want
    # the clear inside holds the die; the old template glued 5 mm walls inside a 22 mm square
    assert design.WELL_INNER - design.DIE_SIZE >= 4
    assert all(ok for _, ok in design.well_checks()), design.well_checks()


def test_one_board_lanes_named_above_their_first_space_title_between_the_rows_spares_not_used():
    """Every strip is the one strip board (issue 32): each lane's name sits in the band above its
    first space (there is no label column), the strip's title in the middle band between the rows,
    and every spot no lane uses is drawn as "not used", without a sensor mark."""
    doc = read_json(FULL)
    for s in doc["strips"]:
        root = parse(os.path.join(ART, "strip_%s.svg" % s["id"]))
        assert s["board"] == design.BOARD and s["registers"] == design.REGISTERS
        lanes = {g.get("data-lane"): g for g in root.iter(SVG + "g") if g.get("class") == "lane"}
        for lane in (ln for ln in doc["lanes"] if ln["strip"] == s["id"]):
            label = [t for t in lanes[lane["id"]].iter(SVG + "text") if t.get("class") == "lane-label"]
            assert len(label) == 1 and label[0].text.startswith(lane["track"].replace("_", " ").title())
            x0, y0 = lane["at_mm"]
            assert abs(float(label[0].get("x")) - (x0 - design.SPACE / 2)) < 0.01        # over space 0
            assert y0 - design.PITCH / 2 - design.LABEL_H < float(label[0].get("y")) < y0 - design.SPACE / 2
        title = [t for t in root.iter(SVG + "text") if t.get("class") == "title"]
        assert len(title) == 1 and float(title[0].get("y")) == design.TITLE_Y
        assert design.ROW_Y[0] + design.SPACE / 2 < design.TITLE_Y < design.ROW_Y[1] - design.PITCH / 2 - design.LABEL_H
        spares = [g for g in root.iter(SVG + "g") if g.get("class") == "spare"]
        want = [b for b in doc["chain"]["spare_bits"]
                if s["first_register"] * 8 <= b < (s["first_register"] + s["registers"]) * 8]
        assert sorted(int(g.get("data-bit")) for g in spares) == want
        for g in spares:
            assert [t.text for t in g.iter(SVG + "text")] == ["not used"]
            assert not list(g.iter(SVG + "circle"))
        # the board's every spot is drawn once: the lanes' spaces and the spares
        spaces = [r for r in root.iter(SVG + "rect") if r.get("class") in ("space", "spare-space")]
        assert len(spaces) == design.ROWS * design.COLS
        assert {(float(r.get("x")) + design.SPACE / 2, float(r.get("y")) + design.SPACE / 2) for r in spaces} == {
            design.spot_xy(r, c) for r in range(design.ROWS) for c in range(design.COLS)}
