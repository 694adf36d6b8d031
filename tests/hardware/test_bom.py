"""The BOM (issue 17 item 7): quantities from the sensor maps and the generated boards, JLCPCB's fees
recomputed from their rules and the parts on each board, every total the sum of the lines (nothing
hard-coded), the guidance lights on the boards (74HC595s, LEDs, 470 Ohm resistors, a 74LVC1G14 per
board: nothing of the old I2C lights driver), each price marked looked-up/rule or estimate with the date,
every LCSC number either confirmed with its source or marked unconfirmed, and the well material,
the template and the assembly guide on the same dimensions."""
import csv
import os
import re
import xml.etree.ElementTree as ET

import pytest

from hwcommon import FULL, HW, REDUCED, bom_data, build_docs, design, sensormap

BUILDS = [("full", FULL), ("no_resources", REDUCED)]
OLD_LIGHTS = ("HT16K33", "PCA9306", "ROW")  # the I2C lights driver the boards' 74HC595s replaced


def rows():
    with open(os.path.join(HW, "bom.csv")) as f:
        return list(csv.DictReader(f))


def by_ref():
    return {r["ref"]: r for r in rows()}


def q(r, build):
    return int(r["qty_" + build])


def total(build, pred=lambda r: True):
    return round(sum(float(r["ext_usd_" + build]) for r in rows() if pred(r)), 2)


def kind(b, build, key):
    return sum(q(r, build) for ref, r in b.items() if ref.endswith("." + key))


@pytest.mark.parametrize("build,path", BUILDS)
def test_counts_match_the_map(build, path):
    m = sensormap.load(path)
    doc = build_docs.load_json(path)
    b = by_ref()
    hall = kind(b, build, "hall")
    boards = len(doc["strips"])
    # one board design, fully populated: a switch (and a light) at every spot the registers read,
    # the spots no lane uses too
    assert {st["board"] for st in doc["strips"]} == {design.BOARD}
    assert hall == boards * design.ROWS * design.COLS == m.chain_registers * 8
    assert hall - m.n_sensors() == len(doc["chain"]["spare_bits"])
    assert kind(b, build, "led") == hall                      # a guidance light at every switch
    assert kind(b, build, "r470") == hall                     # and its 470 Ohm resistor
    assert kind(b, build, "reg") == m.chain_registers
    assert kind(b, build, "sr") == m.chain_registers          # a 74HC595 beside every 74HC165
    assert kind(b, build, "inv") == 2 * boards                # the 595s' clock, the flip-flop's input
    assert kind(b, build, "ff") == boards                     # the lights' lock-up flip-flop
    assert kind(b, build, "r10k") >= m.chain_registers * 8
    # the lights are board parts now: the old I2C driver chips, their capacitors, the level
    # shifter and the ROW resistors are gone
    assert not any(ref in b for ref in ("U3", "C3", "U4"))
    assert not any(ref.endswith(".r150") for ref in b)
    for r in b.values():
        text = " ".join((r["item"], r["part"], r["shop"], r["notes"]))
        assert not any(w in text for w in OLD_LIGHTS), r["ref"]
    per_design = {st["board"]: bom_data.board_parts(st["board"]) for st in doc["strips"]}
    # every part the generated boards carry is ordered, as many as they carry, under their numbers
    for key in bom_data.ONBOARD_PRICES:
        assert kind(b, build, key) == sum(per_design[st["board"]].get(key, 0) for st in doc["strips"]), key
        assert all(r["part"] == bom_data.PCB_PARTS[key][3] for ref, r in b.items() if ref.endswith("." + key)), key
    assert q(b["S1"], build) == m.n_wells
    assert sum(q(r, build) for ref, r in b.items() if ref.startswith("W1.")) == boards   # a cable per hop
    assert kind(b, build, "conn") == 2 * boards
    assert q(b["MCU1"], build) == 1 and q(b["K5"], build) == 1 and q(b["F1"], build) >= 1
    assert q(b["T1"], build) == m.n_lanes
    assert q(b["M1"], build) * 100 >= m.n_lanes


def test_every_board_part_kind_has_a_price_line():
    """A part the boards carry without a BOM line would be left out of the totals: refused."""
    assert set(bom_data.PCB_PARTS) <= set(bom_data.ONBOARD_PRICES)
    assert set(bom_data.board_parts(design.BOARD)) <= set(bom_data.ONBOARD_PRICES)


@pytest.mark.parametrize("build", ["full", "no_resources"])
def test_jlcpcb_fees_follow_their_rules(build):
    b = by_ref()
    a = bom_data.ASSEMBLY
    designs = sorted({ref.split(".")[0] for ref in b if ref.startswith("B") and "." in ref})
    for d in designs:
        parts = {ref.split(".")[1]: r for ref, r in b.items() if ref.startswith(d + ".")}
        lots = [r for k, r in parts.items() if k.startswith("PCB") and q(r, build)]
        if not lots:
            continue
        assert len(lots) == 1            # one lot of bare boards per build
        fab = [k for k in bom_data.ONBOARD if bom_data.ONBOARD[k][5] != "maker"]   # the maker solders the rest
        smt = sum(q(parts[k], build) * bom_data.ONBOARD[k][6] for k in fab if not bom_data.ONBOARD[k][7])
        hand = sum(q(parts[k], build) * bom_data.ONBOARD[k][6] for k in fab if bom_data.ONBOARD[k][7])
        ext = sum(1 for k in bom_data.ONBOARD if bom_data.ONBOARD[k][5] in bom_data.FEE_CLASSES and q(parts[k], build))
        assert q(parts["SMT"], build) == smt and float(parts["SMT"]["unit_usd"]) == a["smt_joint_usd"]
        assert q(parts["MJ"], build) == hand and float(parts["MJ"]["unit_usd"]) == a["manual_joint_usd"]
        assert q(parts["EXT"], build) == ext and float(parts["EXT"]["unit_usd"]) == a["extended_part_usd"]
        assert float(parts["SET"]["unit_usd"]) == a["setup_usd"] + a["stencil_usd"]
        for k in ("SMT", "MJ", "EXT", "SET", "MAN"):
            assert parts[k]["basis"] == "rule"


@pytest.mark.parametrize("build", ["full", "no_resources"])
def test_lines_multiply_and_totals_add_up(build):
    for r in rows():
        assert abs(float(r["ext_usd_" + build]) - round(float(r["unit_usd"]) * q(r, build), 2)) < 0.006, r["ref"]
    t = total(build)
    md = open(os.path.join(HW, "bom.md")).read()
    line = [ln for ln in md.splitlines() if ln.startswith("| ") and ("| %.2f |" % t) in ln]
    assert line, "bom.md does not state the total %.2f of the %s lines" % (t, build)
    assert ("met" in line[0]) == (t <= bom_data.BUDGET_USD)
    if t > bom_data.BUDGET_USD:
        assert "missed by %.2f" % (t - bom_data.BUDGET_USD) in line[0]
    ship = total(build, lambda r: r["category"] == "shipping")
    assert ship > 0 and ("| %.2f |" % ship) in line[0]


def test_the_csv_has_no_total_row_to_trust():
    assert all(r["ref"] != "TOTAL" for r in rows())


def test_every_line_says_where_to_order_and_what_its_price_rests_on():
    md = open(os.path.join(HW, "bom.md")).read()
    for r in rows():
        assert r["item"] and r["part"] and r["shop"], r["ref"]
        assert r["basis"] in ("rule", "listed", "estimate", "prior"), r["ref"]
        if r["category"] == "board part":
            key = r["ref"].split(".")[1]
            if key in bom_data.LCSC_CHOOSE:
                assert "LCSC number not confirmed" in r["shop"], r["ref"]
            else:
                assert re.search(r"LCSC C\d+", r["shop"]), r["ref"]
    assert bom_data.PRICED_ON in md and "estimate" in md and "rule" in md
    assert "support.jlcpcb.com" in md
    assert by_ref()["BS.hall"]["part"] == bom_data.PCB_PARTS["hall"][3]
    assert by_ref()["BS.hall"]["part"].startswith("Diodes AH18")


def test_lcsc_numbers_are_confirmed_with_a_source_or_marked():
    """A confirmed number names the manufacturer part the boards carry and where it was read; the
    boards never carry another number; every other number is marked unconfirmed."""
    md = open(os.path.join(HW, "bom.md")).read()
    b = by_ref()
    for key, (num, mpn, src) in bom_data.LCSC_CONFIRMED.items():
        assert re.fullmatch(r"C\d+", num) and src, key
        assert bom_data.PCB_PARTS[key][3] == mpn, key            # the part it was confirmed for
        assert bom_data.PCB_PARTS[key][4] in ("", num), key      # the boards agree (or leave it empty)
        assert "| %s | %s | %s |" % (mpn, num, src) in md, key   # bom.md cites the source
        for ref, r in b.items():
            if ref.endswith("." + key):
                assert "LCSC %s," % num in r["shop"] and "unconfirmed" not in r["shop"], ref
    for key in set(bom_data.ONBOARD_PRICES) - set(bom_data.LCSC_CONFIRMED):
        for ref, r in b.items():
            if ref.endswith("." + key):
                assert "unconfirmed" in r["shop"] or "not confirmed" in r["shop"], ref
    # the buffer's, the LED's and the flip-flop's numbers are confirmed; the connector, with none,
    # says how it reaches the board
    assert "LCSC C10429," in b["BS.buf"]["shop"] and "LCSC C125107," in b["BS.led"]["shop"]
    assert "LCSC C548432," in b["BS.ff"]["shop"]
    assert b["BS.conn"]["shop"].startswith("LCSC, soldered by the maker")


def test_the_goal_is_stated_with_what_would_reach_it():
    """Each goal is judged on the landed cost; a missed one says by how much and what each change
    would do (recomputed through the same lines), including the bound of free switches and LEDs."""
    md = open(os.path.join(HW, "bom.md")).read()
    sec = md.split("## The goals\n", 1)[1].split("## Lines")[0]
    rows_, _ = build_docs.bom_rows()
    full = build_docs.kit_landed(rows_, "full")[1]
    goal = bom_data.KIT_GOALS["full"]
    assert ("US$%.2f" % total("full")) in md and ("US$%.2f" % total("no_resources")) in md
    if full > goal:
        assert "missed by US$%.2f" % (full - goal) in sec
        for what, landed, save in build_docs.what_ifs(rows_):
            assert "| %s | %.2f | %.2f |" % (what, landed, save) in sec
            assert abs(full - landed - save) < 0.011 and save > 0
        free = build_docs.kit_landed(build_docs.bom_rows(prices={"hall": 0.0, "led": 0.0})[0], "full")[1]
        assert (build_docs.break_even() is None) == (free > goal)
        assert "would" in sec
    else:
        assert "The full set meets the goal." in sec


def test_well_material_template_and_guide_agree_on_every_dimension():
    """One place (design.py): the BOM's foam board, the template's pieces and the guide's table."""
    b = by_ref()
    assert ("Foam board %g mm" % design.WALL_T) in b["K2"]["item"]
    assert ("PET %g mm" % design.PET_T) in b["K2"]["item"]
    guide = open(os.path.join(HW, "docs", "assembly.md")).read()
    assert ("%g mm foam board" % design.WALL_T) in guide
    for name, n, w, h in design.well_parts():
        assert "| %s | %d | %g x %g |" % (name, n, w, h) in guide, name
    assert "clear inside stays %g x %g mm" % (design.WELL_INNER, design.WELL_INNER) in guide
    assert "a %g mm die" % design.DIE_SIZE in guide
    svg = ET.parse(os.path.join(HW, "artwork", "dice_well_template.svg")).getroot()
    title = svg.find("{http://www.w3.org/2000/svg}title").text
    assert ("%g mm foam board" % design.WALL_T) in title
    assert b["D1"]["item"].startswith("%g mm six-sided die" % design.DIE_SIZE)


# ---- issue 32: kits with their landed cost, the feet -------------------------------------------
def test_kits_are_nested_and_their_landed_cost_adds_up_against_the_goals():
    rows_, _ = build_docs.bom_rows()
    md = open(os.path.join(HW, "bom.md")).read()
    refs = {k: {r["ref"] for r in rows_ if build_docs.kit_qty(r, k)} for k, _, _ in build_docs.KITS}
    lots = {r["ref"] for r in rows_ if r["category"] == "board"}
    assert refs["dice"] < refs["track"] and refs["track"] - lots <= refs["full"] - lots
    # each kit holds the one before it: no line has fewer in a bigger kit, the boards more
    for r in rows_:
        if r["category"] == "board":
            continue          # the bare boards: a lot of 5 for the track kit, of 10 for the full set
        assert build_docs.kit_qty(r, "dice") <= build_docs.kit_qty(r, "track") <= build_docs.kit_qty(r, "full"), r["ref"]
    assert not any(r.startswith("B") for r in refs["dice"])          # no boards in the dice kit
    assert {"MCU1", "S1", "K3"} <= refs["dice"] and {"BS.PCB5", "BS.hall"} <= refs["track"]
    b = {r["ref"]: r for r in rows_}
    doc_full, doc_red = build_docs.load_json(FULL), build_docs.load_json(REDUCED)
    assert build_docs.kit_qty(b["BS.hall"], "track") == len(doc_red["strips"]) * design.ROWS * design.COLS
    assert build_docs.kit_qty(b["BS.hall"], "full") == len(doc_full["strips"]) * design.ROWS * design.COLS
    for kit, title, path in build_docs.KITS:
        parts, landed = build_docs.kit_landed(rows_, kit)
        assert abs(sum(v for _, v, _ in parts) - landed) < 0.011
        lines = round(sum(round(r["unit_usd"] * build_docs.kit_qty(r, kit), 2) for r in rows_
                          if r["category"] != "shipping"), 2)
        assert abs(parts[0][1] - lines) < 0.011
        assert all(("sourced" in basis or "estimate" in basis or "rule" in basis) for _, _, basis in parts)
        assert [w for w, _, _ in parts][-1].startswith("import tax and duty")
        assert parts[-1][1] > 0 and parts[3][1] > 0                     # tax and shipping counted
        assert "### %s" % title in md and "| **landed, %s kit** | **%.2f** |" % (kit, landed) in md
        goal = bom_data.KIT_GOALS.get(kit)
        if goal:
            verdict = "met" if landed <= goal else "not met"
            assert "**US$%.2f** (goal US$%.0f: %s)" % (landed, goal, verdict) in md, kit


def test_the_feet_clear_the_connector_everywhere():
    """One height: the BOM's feet (F1) are at least what pcb.md asks for under the connector and its
    plug, and the assembly guide and pcb.md name the same feet."""
    b = by_ref()
    assert bom_data.FOOT_MM >= bom_data.FOOT_MIN_MM
    assert ("%g mm tall" % bom_data.FOOT_MM) in b["F1"]["item"]
    pcb = open(os.path.join(HW, "docs", "pcb.md")).read()
    guide = open(os.path.join(HW, "docs", "assembly.md")).read()
    assert "feet of at least %g mm" % bom_data.FOOT_MIN_MM in pcb and "BOM F1, %g mm" % bom_data.FOOT_MM in pcb
    assert "feet (BOM F1, %g mm tall)" % bom_data.FOOT_MM in guide
    assert "12 x 3 mm" not in b["F1"]["item"]


def test_a_map_needing_a_second_board_design_is_refused_naming_it():
    """Issue 32: one design, one order. A strip on another board (or the strip board with another
    size) would need a second order with its own fees: the BOM generator refuses it, naming it."""
    doc = build_docs.load_json(FULL)
    assert list(build_docs.board_designs(doc)) == [design.BOARD]
    odd = build_docs.load_json(FULL)
    odd["strips"][5]["board"] = "other_board"
    with pytest.raises(SystemExit) as e:
        build_docs.board_designs(odd)
    assert "2 board designs" in str(e.value) and "other_board" in str(e.value)
    odd = build_docs.load_json(FULL)
    odd["strips"][2]["size_mm"] = [178.0, 64.0]
    with pytest.raises(SystemExit) as e:
        build_docs.board_designs(odd)
    assert "strip %s" % odd["strips"][2]["id"] in str(e.value)


# ---- issue 40: shipping for every shop, cited prices, the track kit's lot, the dice kit's parcel, the floor
def test_every_shop_a_line_names_has_its_shipping_line():
    rows_, _ = build_docs.bom_rows()
    ships = {r["ref"]: r for r in rows_ if r["category"] == "shipping"}
    covers = {ref: sh[4] for sh in bom_data.SHIPPING for ref in [sh[0]]}
    assert set(ships) == set(covers)
    for r in rows_:
        if r["category"] == "shipping" or r["shop"] in bom_data.SHIP_FREE_SHOPS:
            continue
        which = [ref for ref, words in covers.items() if r["shop"].startswith(words)]
        assert len(which) == 1, (r["ref"], r["shop"], which)
    # the connectors (board part and carrier header) come from LCSC, in its own parcel
    b = {r["ref"]: r for r in rows_}
    assert b["BS.conn"]["shop"].startswith("LCSC") and b["J2"]["shop"].startswith("LCSC")


def test_the_switch_and_connector_prices_name_what_they_rest_on():
    md = open(os.path.join(HW, "bom.md")).read()
    for key, note in bom_data.PRICE_NOTES.items():
        assert ("US$%.2f" % bom_data.ONBOARD_PRICES[key][1]) in note
        assert note in md
    assert "AH1911-W-7" in bom_data.PRICE_NOTES["hall"] and bom_data.ONBOARD_PRICES["hall"][2] == "listed"
    assert bom_data.ONBOARD_PRICES["conn"][2] == "estimate"


def test_the_track_kit_buys_a_lot_that_fits_four_boards():
    rows_, _ = build_docs.bom_rows()
    boards = [r for r in rows_ if r["category"] == "board"]
    track = [r for r in boards if build_docs.kit_qty(r, "track")]
    full = [r for r in boards if build_docs.kit_qty(r, "full")]
    n_track = len(build_docs.load_json(REDUCED)["strips"])
    assert len(track) == len(full) == 1
    assert "lot of %d (%d used)" % (build_docs.jlc_lot(n_track), n_track) in track[0]["item"]
    assert build_docs.jlc_lot(n_track) == 5 and track[0]["unit_usd"] < full[0]["unit_usd"]


def test_the_dice_kit_is_one_parcel_by_default():
    rows_, _ = build_docs.bom_rows()
    dice = [r for r in rows_ if build_docs.kit_qty(r, "dice") and r["category"] == "shipping"]
    assert [r["ref"] for r in dice if r["unit_usd"] > 0] == ["SH3"]
    b = {r["ref"]: r for r in rows_}
    assert b["MCU1"]["shop"].startswith("AliExpress")
    landed = build_docs.kit_landed(rows_, "dice")[1]
    assert landed <= bom_data.KIT_GOALS["dice"]


def test_the_floor_is_the_same_lines_at_the_cheapest_sourced_prices():
    rows_, _ = build_docs.bom_rows()
    md = open(os.path.join(HW, "bom.md")).read()
    sec = md.split("## The floor\n", 1)[1].split("## Lines")[0]
    parts, floor = build_docs.kit_landed(build_docs.floor_rows(), "full")
    assert "| **floor** | **%.2f** |" % floor in sec
    assert abs(sum(v for _, v, _ in parts) - floor) < 0.011
    for key, (unit, cls, basis, src) in bom_data.FLOOR_PARTS.items():
        assert basis in ("listed", "estimate") and src
        assert unit <= bom_data.ONBOARD_PRICES[key][1]                 # a floor never costs more
        assert src in sec
    full = build_docs.kit_landed(rows_, "full")[1]
    assert floor < full
    goal = round(floor * (1 + bom_data.FLOOR_MARGIN), 2)
    assert "at most US$%.2f" % goal in sec
    if full > goal:
        assert "missed by US$%.2f" % (full - goal) in sec
        for what, v, save in build_docs.floor_closers(rows_):
            assert "| %s | %.2f | %.2f |" % (what, v, save) in sec
            assert save > 0 and abs(full - v - save) < 0.011
    else:
        assert "within" in sec
