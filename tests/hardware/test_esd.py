"""ESD on the chain connectors (issue 40, item 8): the decision in pcb.md rests on what a touched pin
reaches, which its table states from the netlist; these tests hold the table and the decision's
premises to the committed netlist, the BOM and the assembly guide."""
import csv
import os

from hwcommon import HW, build_docs

NETLIST = os.path.join(HW, "pcb", "strip_board_netlist.csv")


def _rows():
    with open(NETLIST) as f:
        return list(csv.DictReader(f))


def test_the_table_states_what_every_connector_pin_reaches():
    pcb = open(os.path.join(HW, "docs", "pcb.md")).read()
    block = pcb.split("<!-- generated:esd", 1)[1].split("<!-- /generated:esd -->")[0]
    assert build_docs.esd_block() in block
    rows = _rows()
    for r in rows:
        if r["Reference"] in ("J1", "J2") and r["Net"] not in ("GND", "3V3"):
            others = [x for x in rows if x["Net"] == r["Net"] and x["Reference"] not in ("J1", "J2")]
            assert others
            for x in others:
                assert "%s %s pin %s" % (x["Reference"], x["Part"], x["Pad"]) in block


def test_every_touched_signal_pin_meets_a_pull_or_a_series_resistor():
    """The premise of the decision: no connector pin is a bare chip pin. An output leaves through
    100 Ohm (the resistor is all the pin meets); an input has its 10 kOhm pull beside the chip."""
    rows = _rows()
    for r in rows:
        if r["Reference"] not in ("J1", "J2") or r["Net"] in ("GND", "3V3"):
            continue
        others = [x for x in rows if x["Net"] == r["Net"] and x["Reference"] not in ("J1", "J2")]
        parts = {x["Part"] for x in others}
        chips = [x for x in others if x["Reference"].startswith("U")]
        if chips:
            assert "10k" in parts, (r["Net"], parts)
        else:
            assert parts == {"100R"}, (r["Net"], parts)


def test_the_open_connector_is_capped_and_the_handling_rule_is_in_the_guide():
    rows, _ = build_docs.bom_rows()
    cap = next(r for r in rows if r["ref"] == "K6")
    assert "XHP-9" in cap["part"] and cap["qty"]["full"] == cap["qty"]["no_resources"] == 1
    assert build_docs.kit_qty(cap, "dice") == 0 and build_docs.kit_qty(cap, "track") == 1
    guide = open(os.path.join(HW, "docs", "assembly.md")).read()
    assert "BOM K6" in guide and "unplug the USB cable before you plug or unplug any chain" in guide
    assert "no TVS diodes on the boards" in open(os.path.join(HW, "docs", "pcb.md")).read()
