"""The BOM agrees with the sensor maps (counts) and adds up."""
import csv
import os
import re

import pytest



from hwcommon import FULL, HW, REDUCED, build_docs, sensormap


def rows():
    with open(os.path.join(HW, "bom.csv")) as f:
        return list(csv.DictReader(f))


def by_ref():
    return {r["ref"]: r for r in rows() if r["ref"] != "TOTAL"}


@pytest.mark.parametrize("build,path", [("full_pcb", FULL), ("no_resources_pcb", REDUCED), ("full_perfboard", FULL)])
def test_counts_match_the_map(build, path):
    m = sensormap.load(path)
    b = by_ref()
    q = lambda ref: int(b[ref]["qty_" + build])  # noqa: E731
    hall = q("U1") + q("U1P")
    regs = q("U2") + q("U2P")
    assert m.n_sensors() <= hall <= m.n_sensors() * 1.05 + 2
    assert m.chain_registers <= regs <= m.chain_registers + 2
    assert q("R1") + q("R1P") >= m.chain_registers * 8          # one pull-up per register input
    assert q("C1") + q("C1P") >= m.chain_registers               # one per register
    assert q("S1") == m.n_wells
    boards = build_docs.counts(build_docs.load_json(path))["boards"]
    assert q("W1") == boards and q("J1") == 2 * boards + 1
    assert q("MCU1") == 1
    assert q("T1") == m.n_lanes                                   # one token per lane


def test_real_part_numbers():
    b = by_ref()
    assert b["U1"]["mpn"] == "AH1807-W-7" and b["U2"]["mpn"].startswith("74HC165")
    for r in b.values():
        assert r["item"] and r["mpn"], r["ref"]


@pytest.mark.parametrize("build", ["full_pcb", "no_resources_pcb", "full_perfboard"])
def test_totals_add_up(build):
    rs = rows()
    total = [r for r in rs if r["ref"] == "TOTAL"][0]
    s = 0.0
    for r in rs:
        if r["ref"] == "TOTAL":
            continue
        ext = float(r["ext_usd_" + build])
        assert abs(ext - float(r["unit_usd"]) * int(r["qty_" + build])) < 0.006, r["ref"]
        s += ext
    assert abs(s - float(total["ext_usd_" + build])) < 0.05
    md = open(os.path.join(HW, "bom.md")).read()
    assert ("%.2f" % float(total["ext_usd_" + build])) in md


def test_budget_statement_is_honest():
    md = open(os.path.join(HW, "bom.md")).read()
    totals = {r["ref"]: r for r in rows()}["TOTAL"]
    for build in ("full_pcb", "no_resources_pcb"):
        t = float(totals["ext_usd_" + build])
        line = [l for l in md.splitlines() if l.startswith("| ") and ("%.2f" % t) in l][0]
        if t > 100:
            assert "missed" in line
        else:
            assert "met" in line
    assert re.search(r"estimate", md, re.I)
