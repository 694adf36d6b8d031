"""Where the strips lie at the table and the chain cables that reach (issue 40, item 2).

design.table_layout places every strip of a map at a four-player table, routes each chain hop round
the strips' ends and picks the shortest stocked cable that is the margin longer than the route; the
drawing (artwork/table_layout.svg), the hop table (docs/table_layout.md) and the BOM's cable lines
all come from it.  A map the layout cannot take, or a hop no stocked cable reaches, is refused."""
import copy
import os
import re

import pytest

from hwcommon import FULL, HW, REDUCED, build_docs, design, read_json

MAPS = [("full", FULL), ("no_resources", REDUCED)]


def _overlap(a, b):
    return not (a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"] or
                a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"])


@pytest.mark.parametrize("build,path", MAPS)
def test_every_strip_lies_on_the_table_and_no_two_overlap(build, path):
    doc = read_json(path)
    lay = design.table_layout(doc)
    assert [s["id"] for s in lay["strips"]] == [s["id"] for s in doc["strips"]]
    for i, a in enumerate(lay["strips"]):
        for b in lay["strips"][i + 1:]:
            assert not _overlap(a, b), (a["id"], b["id"])
    # each seat's resource strips in its own row, upright for that seat
    for s in lay["strips"]:
        seat = design.strip_seat(doc, s["id"])
        if seat == "p1":
            assert s["row"] == "seat 1's resources" and not s["turned"]
        elif seat == "p2":
            assert s["row"] == "seat 2's resources" and s["turned"]


@pytest.mark.parametrize("build,path", MAPS)
def test_every_hop_has_a_cable_that_reaches_with_the_margin(build, path):
    lay = design.table_layout(read_json(path))
    ends = [("controller", None)] + [(s["id"], s["j2"]) for s in lay["strips"]]
    for hop, (src, a), s in zip(lay["hops"], ends, lay["strips"]):
        assert (hop["from"], hop["to"]) == (src, s["id"])
        b = s["j1"]
        if a is not None:
            # the route runs along the table's axes: never shorter than the connectors' distance that way
            assert hop["route_mm"] >= abs(a[0] - b[0]) + abs(a[1] - b[1]) - 1e-6
            # and the drawing's polyline is that route
            pts = design.route_points(a, b)
            drawn = sum(abs(p[0] - q[0]) + abs(p[1] - q[1]) for p, q in zip(pts, pts[1:]))
            assert abs(drawn - hop["route_mm"]) < 0.2, (hop, drawn)
        assert hop["cable_mm"] >= hop["route_mm"] * (1 + design.CABLE_MARGIN) - 0.1
        assert hop["cable_mm"] in design.CABLE_STOCK_MM
        shorter = [c for c in design.CABLE_STOCK_MM if c < hop["cable_mm"]]
        assert not shorter or max(shorter) < hop["need_mm"]          # the shortest that reaches


@pytest.mark.parametrize("build,path", MAPS)
def test_the_boms_cables_add_up_to_the_hops(build, path):
    """Sum of the hops' cables against the BOM's cable lines of the same build: the same lengths,
    as many cables as hops, and every hop's need covered."""
    lay = design.table_layout(read_json(path))
    rows, _ = build_docs.bom_rows()
    cables = {int(r["ref"].split(".")[1]): r["qty"][build] for r in rows if r["ref"].startswith("W1.")}
    cables = {k: v for k, v in cables.items() if v}
    assert sum(cables.values()) == len(lay["hops"]) == len(read_json(path)["strips"])
    assert sum(k * v for k, v in cables.items()) == sum(h["cable_mm"] for h in lay["hops"])
    assert sum(k * v for k, v in cables.items()) >= sum(h["need_mm"] for h in lay["hops"])
    # and each length covers the hops that need it, longest first
    need = sorted((h["need_mm"] for h in lay["hops"]), reverse=True)
    have = sorted((k for k, v in cables.items() for _ in range(v)), reverse=True)
    assert all(c >= n for c, n in zip(have, need))
    for k in cables:
        assert "%d mm" % k in next(r["item"] for r in rows if r["ref"] == "W1.%d" % k)


def test_the_drawing_and_the_table_follow_the_layout():
    lay = design.table_layout(read_json(FULL))
    svg = open(os.path.join(HW, "artwork", "table_layout.svg")).read()
    md = open(os.path.join(HW, "docs", "table_layout.md")).read()
    for s in lay["strips"]:
        m = re.search(r'<g class="strip" data-strip="%s"[^>]*>\n<rect x="([-\d.]+)" y="([-\d.]+)"' % s["id"], svg)
        assert m and abs(float(m.group(1)) - s["x"]) < 0.01 and abs(float(m.group(2)) - s["y"]) < 0.01
    for k, h in enumerate(lay["hops"]):
        assert 'data-from="%s" data-to="%s" data-cable-mm="%d"' % (h["from"], h["to"], h["cable_mm"]) in svg
        assert "| %d | `%s` -> `%s` | %.0f | %.0f | %d mm |" % (k, h["from"], h["to"], h["route_mm"],
                                                                h["need_mm"], h["cable_mm"]) in md
    for seat in ("seat 1 (p1)", "seat 2 (p2)", "seat 3", "seat 4"):
        assert seat in svg


def test_a_strip_the_layout_cannot_place_is_refused_naming_it():
    doc = copy.deepcopy(read_json(FULL))
    for lane in doc["lanes"]:
        if lane["strip"] == "resources_p2_stone_metal":
            lane["seat"] = "p3"
    with pytest.raises(design.LayoutError, match="strip 'resources_p2_stone_metal' .*seat p3.*no row"):
        design.table_layout(doc)


def test_a_hop_no_stocked_cable_reaches_is_refused_naming_it(monkeypatch):
    monkeypatch.setattr(design, "CABLE_STOCK_MM", (150, 200, 300, 400))
    with pytest.raises(design.LayoutError, match="hop resources_p1_money_combat_power -> resources_p2_food_wood: "
                                                 "its route is 378 mm, 472 mm with the margin"):
        design.table_layout(read_json(FULL))
    # the BOM generator refuses too, naming it (exit status 2, nothing written)
    assert build_docs.main(["--check"]) == 2
