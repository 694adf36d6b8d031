"""Generate the fab-ready boards from hardware/sensor_map.json (KiCad 6, Debian's `kicad`).

    /usr/bin/python3 hardware/tools/build_pcb.py                 # rewrite hardware/pcb/ + docs pictures
    /usr/bin/python3 hardware/tools/build_pcb.py --map M --out D  # another map, another folder
    /usr/bin/python3 hardware/tools/build_pcb.py --check-map M    # only validate a map (no KiCad needed)

Needs Debian's /usr/bin/python3 (the `pcbnew` module of `apt-get install kicad kicad-footprints`).

One PCB design for every strip of the set, the strip board (hardware/tools/design.py: 2 rows of
16 spots, 4 registers, 264 x 74 mm), fully populated on every strip: one BOM, one fab order.  It
writes into the output folder:

    strip_board.kicad_pcb, .kicad_pro   the KiCad project (footprints from KiCad's own libraries)
    strip_board_gerbers.zip             Gerbers + Excellon drill files, as a fab takes them
    strip_board_bom.csv, _cpl.csv       JLCPCB assembly files
    strip_board_netlist.csv             net, reference, pad (what the tests read)
    strip_board_drc.txt                 KiCad's design-rule report (must say 0 and 0)
    summary.json                        size, parts, tracks, vias, the router's figures, DRC counts
and the picture hardware/docs/pcb_strip_board.png.

Placement: a cell per spot (a hall switch centred on the spot, on the underside, which is also
where every other part sits: the top stays flat for the printed overlay; beside each switch a
reverse-mount LED over a hole, lit by a 74HC595 on the same chain as the 74HC165s); the chips and
connectors in the band between the rows (netlist_parts); the tracks are laid by pcb_route.py;
KiCad's DRC judges the result and the build fails unless it reports no violation and no
unconnected item.  Routing takes about 30 s of one core.

A map the board cannot realise is refused (exit status 2) with a message naming the entry: a
strip of another board design, a lane longer than a row, a strip with more lanes than its rows
hold, a lane space off the board's spots or read by another spot's bit, two lanes on one spot, a
lane whose bits lie in another strip's registers (a lane may not cross boards without a wire).
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(HERE)
sys.path.insert(0, HERE)

# ---- what each board design holds (the generator refuses maps beyond it) ------------------
import design     # noqa: E402  (hardware/tools/design.py: the strip board's grid)

BOARD_CAPACITY = {
    # board: (lanes per strip, positions per lane, registers)
    design.BOARD: (design.ROWS * design.COLS // design.SEGMENT, design.COLS, design.REGISTERS),
}
BOARD_SIZE = {design.BOARD: (design.STRIP_W, design.STRIP_H)}

# ---- chain connector (UP and DOWN identical; pin p meets pin 10-p on a reversed cable) --------
CONNECTOR_PINS = 9
# Pins 1 and 9 carry the lights' /OE (LIGHTS_OFF, high = every LED dark): a reversed cable meets
# /OE with /OE, 3V3 with 3V3, GND with GND.  /OE changes only at start-up and before the REPL, so
# it may sit beside CLK and LIGHT, which it does not disturb (a static line, driven or pulled up).
PINOUT = {1: "OE", 2: "CLK", 3: "GND", 4: "LOAD", 5: "3V3", 6: "DATA", 7: "GND", 8: "LIGHT", 9: "OE"}
OE_NET = "LIGHTS_OFF"

# ---- parts: (KiCad library, footprint, value, manufacturer part, LCSC part) --------------------
PARTS = {
    "hall": ("Package_TO_SOT_SMD", "SC-59", "AH1806-W-7", "Diodes AH1806-W-7", "C126663"),
    "reg": ("Package_SO", "SOIC-16_3.9x9.9mm_P1.27mm", "74HC165D", "Nexperia 74HC165D,653", "C5613"),
    "buf": ("Package_TO_SOT_SMD", "SOT-23-6", "74LVC2G17", "TI SN74LVC2G17DBVR", "C10429"),
    "r10k": ("Resistor_SMD", "R_0603_1608Metric", "10k", "UNI-ROYAL 0603WAF1002T5E", "C25804"),
    "r100": ("Resistor_SMD", "R_0603_1608Metric", "100R", "UNI-ROYAL 0603WAF1000T5E", "C22775"),
    "c100n": ("Capacitor_SMD", "C_0603_1608Metric", "100nF", "Samsung CL10B104KB8NNNC", "C1591"),
    "c10u": ("Capacitor_SMD", "C_0805_2012Metric", "10uF", "Samsung CL21A106KAYNNNE", "C15850"),
    "conn": ("Connector_JST", "JST_XH_S9B-XH-A_1x09_P2.50mm_Horizontal", "S9B-XH-A",
             "JST S9B-XH-A", ""),
    # the guidance lights (hardware/docs/pcb.md, "Guidance lights")
    "sr": ("Package_SO", "SOIC-16_3.9x9.9mm_P1.27mm", "74HC595D", "Nexperia 74HC595D,118", "C5947"),
    "inv": ("Package_TO_SOT_SMD", "SOT-23-5", "74LVC1G14", "UMW SN74LVC1G14DBVR", "C434069"),
    "led": ("LED_SMD", "LED_1206_3216Metric_ReverseMount_Hole1.8x2.4mm", "RED_RM1206",
            "Lite-On LTST-C230KRKT", "C125107"),
    "r470": ("Resistor_SMD", "R_0603_1608Metric", "470R", "UNI-ROYAL 0603WAF4700T5E", "C23179"),
    "ff": ("Package_TO_SOT_SMD", "SOT-23-5", "74LVC1G80", "Nexperia 74LVC1G80GV,125", "C548432"),
}
# How each part reaches the board, and where its number was read (hardware/docs/pcb.md, "Parts"):
#   "fab"    the fab places it from its own stock: LCSC number (PARTS' last column) confirmed;
#   "global" the fab places it but buys it first (JLCPCB global sourcing / consigned parts): the
#            manufacturer part (PARTS' fourth column) and a distributor number confirmed;
#   "hand"   through-hole, the maker solders it (the thermal-relief pads make that easy).
# A part with no route or no source is refused (check_parts): nothing is ordered on a guess.
SOURCING = {
    "hall": ("fab", "C126663", "BerkeleyHCI/PolymorphicBlocks edg/parts/MagneticSwitch_Ah1806.py"),
    "reg": ("fab", "C5613", "CDFER/JLCPCB-Kicad-Library (LCSC datasheet file name)"),
    "buf": ("fab", "C10429", "two public JLCPCB BOMs list SN74LVC2G17DBVR as C10429 (Extended)"),
    "r10k": ("fab", "C25804", "CDFER/JLCPCB-Kicad-Library"),
    "r100": ("fab", "C22775", "CDFER/JLCPCB-Kicad-Library"),
    "c100n": ("fab", "C1591", "oomlout/oomlout_OOMP_parts"),
    "c10u": ("fab", "C15850", "CDFER/JLCPCB-Kicad-Library"),
    "sr": ("fab", "C5947", "CDFER/JLCPCB-Kicad-Library, tscircuit/jlcsearch"),
    "inv": ("fab", "C434069", "tscircuit/jlcsearch docs/generated/logic.md"),
    "r470": ("fab", "C23179", "CDFER/JLCPCB-Kicad-Library"),
    "led": ("fab", "C125107",
            "Lite-On LTST-C230KRKT (reverse-mount red 1206) = LCSC C125107 (extended) in two public "
            "designs: a KiCad board generator's LCSC table ('checked against JLCPCB's parts list') and "
            "a board's component file (LCSC/JLCPCB cache, reverse mount, extended); a third design's "
            "'suggested' table gives C125107 to another LED, so check the number in the fab's BOM tool"),
    "ff": ("fab", "C548432",
           "tscircuit/jlcsearch docs/generated/logic_ics.md (Flip Flops: lcsc 548432, Nexperia "
           "74LVC1G80GV,125, SOT-753 = SOT-23-5, D-type, positive edge, inverted output); pins D 1, "
           "CP 2, GND 3, /Q 4, VCC 5 as KiCad's 74xGxx:74LVC1G80 symbol numbers them"),
    "conn": ("hand", "JST S9B-XH-A", "KiCad's own footprint and 3D model of the JST XH S9B-XH-A"),
}
ROUTES = ("fab", "global", "hand")
FP_DIR = "/usr/share/kicad/footprints"
HALL_PINS = {"VDD": "1", "OUT": "2", "GND": "3"}          # AH1806-W-7 SC59 (KiCad's pad numbers)
# Where that pin order was read (pcb.md, "Parts"): the maker's datasheet for the AH1806 itself
# (diodes.com/assets/Datasheets/AH1806.pdf) could not be read here; Diodes' datasheet of the AH1802,
# the same family in the same SC59 ("W") package, gives it, and two designs with the AH1806 agree.
HALL_PINOUT_SOURCE = (
    "SC59 top view: pin 1 VDD, pin 2 OUTPUT, pin 3 GND, from Diodes' AH1802 datasheet (the same "
    "micropower omnipolar family in the same SC59 'W' package; dtsheet.com/model/747396, 'SC59 (Top "
    "View) 1. Vdd 2. Output 3. GND'), as KiCad numbers SC-59's pads (1 and 2 on one side, 3 alone); "
    "the AH1806's own datasheet (diodes.com/assets/Datasheets/AH1806.pdf) was not readable here. Two "
    "designs with the AH1806 wire it the same way: a public AH1806W symbol for KiCad's SC-59 (1 VDD, "
    "2 OUTPUT, 3 GND) and BerkeleyHCI/PolymorphicBlocks MagneticSwitch_Ah1806.py (pad 1 VDD, 2 output, "
    "3 GND), whose note 'kicad pin numbers differs from datasheet pin numbers' therefore cannot mean "
    "these pads. Read the AH1806 PDF's pin table before ordering, and measure one switch at bring-up")
REG_INPUT_PIN = {"A": "11", "B": "12", "C": "13", "D": "14", "E": "3", "F": "4", "G": "5", "H": "6"}
# 74HC595 (TI pin naming): output QX lights the position read at 74HC165 input X
SR_OUTPUT_PIN = {"A": "15", "B": "1", "C": "2", "D": "3", "E": "4", "F": "5", "G": "6", "H": "7"}
SR_PINS = {"GND": "8", "QH'": "9", "/SRCLR": "10", "SRCLK": "11", "RCLK": "12", "/OE": "13", "SER": "14",
           "VCC": "16"}
INV_PINS = {"NC": "1", "A": "2", "GND": "3", "Y": "4", "VCC": "5"}   # SN74LVC1G14DBVR, SOT-23-5
FF_PINS = {"D": "1", "CLK": "2", "GND": "3", "QN": "4", "VCC": "5"}   # 74LVC1G80 (output /Q), SOT-753 = SOT-23-5
LED_PINS = {"K": "1", "A": "2"}          # KiCad LED footprints: pad 1 cathode, pad 2 anode
# a space's cell (x, y = the space's centre): hall switch centred, its pull-up on the left (beside
# the switch's OUT and VDD pins), the LED on the right (its cathode beside the switch's GND pin),
# the LED's 470 Ohm below the LED
PULLUP_DX = -4.0
LED_DX, LED_DY = 4.6, 0.0
LR_DX, LR_DY = 4.6, 2.6
HCAP_DX, HCAP_DY = 0.0, 2.9      # the switch's 100 nF: just below it, 3V3 pad under VDD, GND pad under GND
HALL_CAP_BASE = 101               # C<101 + b>: the 100 nF of the switch on local input b
LETTERS = "HGFEDCBA"       # local bit b of a board -> register b >> 3, input LETTERS[b & 7]

OFFSET = (20.0, 20.0)   # where the board's top-left corner sits on the KiCad page, mm
# The router's costs: a via costs this many grid steps, a step on the part side (B.Cu) this much
# (the top: 1).  Dear vias keep the vias per signal net low (the old 2 x 8 track board reached 1.60
# vias per signal net with 20 and 1.3).  PCB_VIA_COST and PCB_COST_B override them for trials.
VIA_COST = float(os.environ.get("PCB_VIA_COST", "20"))
COST_B = float(os.environ.get("PCB_COST_B", "1.3"))
RAIL_W = 0.5        # the rows' 3V3 and GND rails (signals 0.25 mm)
RIP_BUDGET = int(os.environ.get("PCB_RIP_BUDGET", "150"))      # rip-ups per board (the router's retries, see _route_all)
RIP_PER_NET = int(os.environ.get("PCB_RIP_PER_NET", "4"))      # times one net may be taken up for others
LONG_MM, LONG_LIMIT = 60.0, 1500000    # connections longer than this (mm) search this many cells
# the nets that reach 4 or 8 chips: a via costs them 5 times as much (at the board's 20, LOAD, with
# 10 pads on 8 chips, took 11-16 vias, at 100 8-12; see also its trunk in _route_all)
NET_VIA_NETS = ("LOAD", "CLK", "SRCLK", OE_NET)
NET_VIA_COST = {nn: float(os.environ.get("PCB_DEAR_VIA_COST", "100")) for nn in NET_VIA_NETS}


class MapError(Exception):
    pass


# ============================================================================================
# 1. the sensor map -> board designs (pure Python: the tests call this without KiCad)
# ============================================================================================
def check_parts(sourcing=None):
    """Every kind of part the boards use has a way onto the board and a number read from a named
    source; raises MapError naming the first that has not ("fab" needs an LCSC number C<digits>)."""
    sourcing = SOURCING if sourcing is None else sourcing
    for kind in sorted(PARTS):
        value = PARTS[kind][2]
        entry = sourcing.get(kind)
        if not isinstance(entry, (list, tuple)) or len(entry) != 3:
            raise MapError("part '%s' (%s): no sourcing entry (route, number, source)" % (kind, value))
        route, number, source = entry
        if route not in ROUTES:
            raise MapError("part '%s' (%s): route '%s' is not one of %s" % (kind, value, route, ", ".join(ROUTES)))
        if not isinstance(number, str) or not number.strip():
            raise MapError("part '%s' (%s): no part number confirmed from a readable source" % (kind, value))
        if route == "fab" and not re.match(r"^C\d+$", number):
            raise MapError("part '%s' (%s): placed by the fab but '%s' is not an LCSC number (C<digits>)"
                           % (kind, value, number))
        if not isinstance(source, str) or not source.strip():
            raise MapError("part '%s' (%s): number %s names no source it was read from" % (kind, value, number))


def lcsc_number(kind):
    """The LCSC number of a fab-stocked part, '' for the others (global sourcing, hand-fitted)."""
    route, number, _ = SOURCING[kind]
    return number if route == "fab" else ""


def designs_from_map(doc):
    """Validate the map against the board's fixed grid; return {board: design}.

    design = {"board", "size", "registers", "lanes": the board's rows [[(x, y, local_bit)]] (every
              spot: every strip is the whole board), "strips": [{"id", "first_register"}]}
    A lane's spaces must sit on the board's spots (design.spot_xy), each read by that spot's own
    local bit (design.spot_bit); strips may cut the rows into lanes differently (one fab order:
    every board carries all its spots).  Raises MapError naming the offending entry."""
    strips = doc.get("strips") or []
    lanes = doc.get("lanes") or []
    if not strips:
        raise MapError("the map has no 'strips': nothing to build")
    by_strip = {}
    for s in strips:
        if s.get("board") not in BOARD_CAPACITY:
            raise MapError("strip '%s': board '%s' is not a board design this generator knows (%s)"
                           % (s.get("id"), s.get("board"), ", ".join(sorted(BOARD_CAPACITY))))
        by_strip[s["id"]] = []
    for lane in lanes:
        if lane.get("strip") not in by_strip:
            raise MapError("lane '%s': strip '%s' is not in the map's strips"
                           % (lane.get("id"), lane.get("strip")))
        by_strip[lane["strip"]].append(lane)
    owner_of_register = {}
    expect_first = 0
    for s in strips:
        if s["first_register"] != expect_first:
            raise MapError("strip '%s': first_register %d, expected %d (strips follow each other on the chain)"
                           % (s["id"], s["first_register"], expect_first))
        expect_first += s["registers"]
        for r in range(s["first_register"], s["first_register"] + s["registers"]):
            owner_of_register[r] = s["id"]
    chain_regs = (doc.get("chain") or {}).get("registers")
    if chain_regs is not None and chain_regs != expect_first:
        raise MapError("chain.registers is %d but the strips hold %d registers" % (chain_regs, expect_first))

    designs = {}
    for s in strips:
        board = s["board"]
        cap_lanes, cap_pos, cap_regs = BOARD_CAPACITY[board]
        grid = board_grid(board)
        spot_at = {(x, y): (r, c, b) for r, row in enumerate(grid) for c, (x, y, b) in enumerate(row)}
        if tuple(s["size_mm"]) != BOARD_SIZE[board]:
            raise MapError("strip '%s': %s x %s mm, a %s is %s x %s mm" % ((s["id"],) + tuple(s["size_mm"])
                                                                            + (board,) + BOARD_SIZE[board]))
        if s["registers"] != cap_regs:
            raise MapError("strip '%s': %d registers, a %s has %d" % (s["id"], s["registers"], board, cap_regs))
        my = by_strip[s["id"]]
        if len(my) > cap_lanes:
            raise MapError("strip '%s': %d lanes, a %s holds %d" % (s["id"], len(my), board, cap_lanes))
        lo, hi = s["first_register"] * 8, (s["first_register"] + s["registers"]) * 8
        used = {}
        for lane in my:
            bits = lane["bits"]
            if len(bits) > cap_pos:
                raise MapError("lane '%s' (strip '%s'): %d positions, a %s holds %d per lane"
                               % (lane["id"], s["id"], len(bits), board, cap_pos))
            (x0, y0), (dx, dy) = lane["at_mm"], lane["step_mm"]
            for i, b in enumerate(bits):
                if not lo <= b < hi:
                    other = owner_of_register.get(b >> 3, "no board")
                    raise MapError("lane '%s' position %d: bit %d is read by register %d on '%s', not on its "
                                   "own strip '%s' (registers %d-%d): a lane cannot cross boards without a wire"
                                   % (lane["id"], i + 1, b, b >> 3, other, s["id"], lo // 8, hi // 8 - 1))
                x, y = round(x0 + i * dx, 3), round(y0 + i * dy, 3)
                spot = spot_at.get((x, y))
                if spot is None:
                    raise MapError("lane '%s' position %d at (%.1f, %.1f) mm is not on a spot of the %s "
                                   "(strip '%s'): its spots are %d rows of %d at %g mm"
                                   % (lane["id"], i + 1, x, y, board, s["id"], len(grid), len(grid[0]),
                                      grid[0][1][0] - grid[0][0][0]))
                r, c, own = spot
                if b - lo != own:
                    raise MapError("lane '%s' position %d: the spot at (%.1f, %.1f) mm (row %d, spot %d of "
                                   "strip '%s') is read by local bit %d, the map gives bit %d (local %d)"
                                   % (lane["id"], i + 1, x, y, r + 1, c + 1, s["id"], own, b, b - lo))
                if own in used:
                    raise MapError("lane '%s' position %d and %s share the spot at (%.1f, %.1f) mm of strip '%s'"
                                   % (lane["id"], i + 1, used[own], x, y, s["id"]))
                used[own] = "lane '%s' position %d" % (lane["id"], i + 1)
        d = designs.get(board)
        if d is None:
            d = designs[board] = {"board": board, "size": BOARD_SIZE[board], "registers": cap_regs,
                                  "lanes": [list(row) for row in grid], "strips": []}
        # every board is fully populated: the spots no lane uses are spares (their switch reads no
        # magnet: 1), so every strip is the same board, one BOM, one fab order
        d["strips"].append({"id": s["id"], "first_register": s["first_register"]})
    return designs


def board_grid(board):
    """A board design's spots: per row [(x, y, local_bit)] (design.spot_xy, design.spot_bit)."""
    assert board == design.BOARD
    return [[tuple(round(v, 3) for v in design.spot_xy(r, c)) + (design.spot_bit(r, c),)
             for c in range(design.COLS)] for r in range(design.ROWS)]


# ============================================================================================
# 2. a design -> parts with nets and places (pure Python)
# ============================================================================================
def netlist_parts(d):
    """Every part of the board: dict ref -> {kind, x, y, rot, pads: {pad: net}, place}.

    References: H<b+1> hall switch, R<b+1> its pull-up, D<b+1> its LED, R<n+9+b> the LED's 470 Ohm
    (b = local input bit, n = 8 x registers); U1..U<R> 74HC165, U<R+1> the Schmitt buffer,
    U<R+2>..U<2R+1> 74HC595 (595 r lights what 74HC165 r reads), U<2R+2> the clock inverter,
    U<2R+3> the lights' lock-up flip-flop, U<2R+4> its input inverter; C1..C<R> and C<R+3>..C<2R+2>
    their 100 nF, C<R+1> the buffer's, C<R+2> the bulk 10 uF, C<2R+3> the inverter's, C<2R+4> the
    flip-flop's, C<2R+5> its inverter's;
    R<n+1>..R<n+8> the buffer's, the chain's and the lights' resistors, R<2n+9> SRCLK's,
    R<2n+10> the buffered CLK's series resistor, R<2n+11> the /OE pull-up (LIGHTS_OFF);
    C<101+b> the 100 nF of the switch on input b.

    Where (the strip board, hardware/docs/pcb.md): a cell per spot along each row; the chips in
    the middle band, each register's 74HC165 and 74HC595 side by side under the centre of the 8
    spots they serve (row 0's in the band's upper half, row 1's in its lower half); J1 (UP) at
    the left short edge and J2 (DOWN) at the right, both in the band and opening outwards; the
    buffer, inverter and their resistors beside J1, the lock-up flip-flop at the chain's end
    beside J2."""
    parts = {}
    R = d["registers"]
    n = R * 8
    w, h = d["size"]
    # hall switches and their pull-ups: H<n>/R<n>, n = local input bit + 1; beside each switch its
    # LED (over its hole, inside the printed cell) and the LED's 470 Ohm from the 595 output
    spots = {}
    for k, pos in enumerate(d["lanes"]):
        for i, (x, y, b) in enumerate(pos):
            spots[b] = (k, i, x, y)
    if sorted(spots) != list(range(n)):
        raise MapError("%s: its spots must be read by local bits 0-%d, one each" % (d["board"], n - 1))
    for b in range(n):
        net = _in_net(b)
        k, i, x, y = spots[b]
        parts["H%d" % (b + 1)] = {"kind": "hall", "x": x, "y": y, "rot": 0, "lane": k, "pos": i,
                                  "pads": {HALL_PINS["VDD"]: "3V3", HALL_PINS["OUT"]: net,
                                           HALL_PINS["GND"]: "GND"}}
        parts["R%d" % (b + 1)] = {"kind": "r10k", "x": x + PULLUP_DX, "y": y, "rot": 90,
                                  "pads": {"1": net, "2": "3V3"}}
        parts["D%d" % (b + 1)] = {"kind": "led", "x": round(x + LED_DX, 3), "y": round(y + LED_DY, 3),
                                  "rot": 0, "lane": k, "pos": i,
                                  "pads": {LED_PINS["K"]: "GND", LED_PINS["A"]: _anode_net(b)}}
        parts["R%d" % (n + 9 + b)] = {"kind": "r470", "x": round(x + LR_DX, 3), "y": round(y + LR_DY, 3),
                                      "rot": 0, "lane": k, "pos": i,
                                      "pads": {"1": _led_net(b), "2": _anode_net(b)}}
        # the switch's own 100 nF (the AH1806 wakes for a few microseconds every ~75 ms:
        # its supply spike is met here, not over the row's rails), just below the switch
        parts["C%d" % (HALL_CAP_BASE + b)] = {"kind": "c100n", "x": round(x + HCAP_DX, 3),
                                              "y": round(y + HCAP_DY, 3), "rot": 0, "lane": k, "pos": i,
                                              "pads": {"1": "3V3", "2": "GND"}}
    for r in range(R):
        (cx, cy, rrot), cap, (sx, sy, urot), scap = _register_slot(d, r)
        pads = {"1": "LOAD", "2": "CLK", "15": "GND", "16": "3V3", "8": "GND", "7": None,
                "9": "QH0" if r == 0 else "Q%d" % r,
                "10": "DATA_IN" if r == R - 1 else "Q%d" % (r + 1)}
        for letter, pin in REG_INPUT_PIN.items():
            pads[pin] = "IN%d%s" % (r, letter)
        parts["U%d" % (r + 1)] = {"kind": "reg", "x": cx, "y": cy, "rot": rrot, "pads": pads}
        parts["C%d" % (r + 1)] = {"kind": "c100n", "x": cap[0], "y": cap[1], "rot": cap[2],
                                  "pads": {"1": "3V3", "2": "GND"}}
        # its 74HC595: outputs QA..QH light the positions read at inputs A..H; the chain runs
        # LIGHT_IN -> 595 0 -> ... -> last 595 -> flip-flop -> 100 Ohm -> LIGHT_OUT, clocked by
        # SRCLK (the board's CLK inverted), latched by LOAD's rising edge
        sp = {SR_PINS["GND"]: "GND", SR_PINS["VCC"]: "3V3", SR_PINS["/OE"]: OE_NET, SR_PINS["/SRCLR"]: "3V3",
              SR_PINS["SRCLK"]: "SRCLK", SR_PINS["RCLK"]: "LOAD",
              SR_PINS["SER"]: "LIGHT_IN" if r == 0 else "LQ%d" % r, SR_PINS["QH'"]: "LQ%d" % (r + 1)}
        for letter, pin in SR_OUTPUT_PIN.items():
            sp[pin] = _led_net(r * 8 + LETTERS.index(letter))
        parts["U%d" % (R + 2 + r)] = {"kind": "sr", "x": sx, "y": sy, "rot": urot, "pads": sp}
        parts["C%d" % (R + 3 + r)] = {"kind": "c100n", "x": scap[0], "y": scap[1], "rot": scap[2],
                                      "pads": {"1": "3V3", "2": "GND"}}
    # connectors: UP (towards the controller) at the left short edge, DOWN at the right, both in the
    # middle band, opening outwards (the pin row CONN_X in from the edge, its top pin at CONN_Y)
    parts["J1"] = {"kind": "conn", "x": CONN_X, "y": CONN_Y, "rot": 0, "side": "left", "pads": {}}
    parts["J2"] = {"kind": "conn", "x": round(w - CONN_X, 3), "y": CONN_Y, "rot": 0, "side": "right", "pads": {}}
    for p, sig in PINOUT.items():
        up = {"CLK": "CLK_IN", "LOAD": "LOAD_IN", "DATA": "DATA_UP", "LIGHT": "LIGHT_IN", "OE": OE_NET}.get(sig, sig)
        down = {"CLK": "CLK_OUT", "LOAD": "LOAD_OUT", "DATA": "DATA_IN", "LIGHT": "LIGHT_OUT", "OE": OE_NET}.get(sig, sig)
        parts["J1"]["pads"][str(p)] = up
        parts["J2"]["pads"][str(p)] = down

    def put(ref, kind, key, pads):
        x, y, rot = GLUE[key]
        parts[ref] = {"kind": kind, "x": x if x >= 0 else round(w + x, 3), "y": y, "rot": rot, "pads": pads}
    # Schmitt buffer for CLK and LOAD, its decoupling, series resistors, tail pull-down, bulk
    put("U%d" % (R + 1), "buf", "buf", {"1": "CLK_IN", "2": "GND", "3": "LOAD_IN", "4": "LOAD",
                                         "5": "3V3", "6": "CLK_BUF"})
    # the buffered clock reaches the 74HC165s' non-Schmitt clock inputs over ~25 cm of track: 100 Ohm
    # at the buffer's output damps the ringing that could clock one twice
    put("R%d" % (2 * n + 10), "r100", "clk_r", {"1": "CLK_BUF", "2": "CLK"})
    # the lights' /OE (cable pins 1 and 9): pulled up, so every LED is dark until the firmware
    # drives it low after its first latched frame (hardware/docs/pcb.md, "Guidance lights")
    put("R%d" % (2 * n + 11), "r10k", "oe_pull", {"1": OE_NET, "2": "3V3"})
    put("C%d" % (R + 1), "c100n", "buf_c", {"1": "3V3", "2": "GND"})
    put("C%d" % (R + 2), "c10u", "bulk", {"1": "3V3", "2": "GND"})
    put("R%d" % (n + 1), "r100", "clk_out", {"1": "CLK_BUF", "2": "CLK_OUT"})
    put("R%d" % (n + 2), "r100", "load_out", {"1": "LOAD", "2": "LOAD_OUT"})
    put("R%d" % (n + 3), "r100", "data_up", {"1": "QH0", "2": "DATA_UP"})
    put("R%d" % (n + 4), "r10k", "tail", {"1": "DATA_IN", "2": "GND"})
    # CLK and LOAD inputs pulled to their idle level (high): an unplugged or reversed cable leaves
    # no Schmitt input floating
    put("R%d" % (n + 5), "r10k", "clk_pull", {"1": "CLK_IN", "2": "3V3"})
    put("R%d" % (n + 6), "r10k", "load_pull", {"1": "LOAD_IN", "2": "3V3"})
    # the lights' data: LIGHT_IN pulled down (unplugged = dark), LIGHT_OUT through 100 Ohm like
    # every other output onto the cable; SRCLK = CLK inverted (the 595s shift on CLK's falling edge)
    put("R%d" % (n + 7), "r10k", "light_pull", {"1": "LIGHT_IN", "2": "GND"})
    # LIGHT_OUT leaves from a D flip-flop clocked on CLK's rising edge (a lock-up stage): the last
    # 74HC595's QH' changes on CLK's falling edge, the flip-flop passes it on half a clock later,
    # so the next board, which samples on its own (later) falling edge, sees data that has been
    # steady for ~500 ns either side: no hold-time race along the chain, and no extra bit
    # The flip-flop is a 74LVC1G80 (a stocked part with a confirmed LCSC number; its output is /Q):
    # a second 74LVC1G14 inverts its input, so LIGHT_OUT carries the last QH' true, as before
    put("U%d" % (2 * R + 3), "ff", "ff", {FF_PINS["D"]: "LQ_N", FF_PINS["CLK"]: "CLK", FF_PINS["GND"]: "GND",
                                          FF_PINS["QN"]: "LIGHT_RT", FF_PINS["VCC"]: "3V3"})
    put("C%d" % (2 * R + 4), "c100n", "ff_c", {"1": "3V3", "2": "GND"})
    put("U%d" % (2 * R + 4), "inv", "ff_inv", {INV_PINS["NC"]: None, INV_PINS["A"]: "LQ%d" % R,
                                               INV_PINS["GND"]: "GND", INV_PINS["Y"]: "LQ_N",
                                               INV_PINS["VCC"]: "3V3"})
    put("C%d" % (2 * R + 5), "c100n", "ff_inv_c", {"1": "3V3", "2": "GND"})
    put("R%d" % (n + 8), "r100", "light_out", {"1": "LIGHT_RT", "2": "LIGHT_OUT"})
    put("U%d" % (2 * R + 2), "inv", "inv", {INV_PINS["NC"]: None, INV_PINS["A"]: "CLK", INV_PINS["GND"]: "GND",
                                            INV_PINS["Y"]: "SRCLK_DRV", INV_PINS["VCC"]: "3V3"})
    put("C%d" % (2 * R + 3), "c100n", "inv_c", {"1": "3V3", "2": "GND"})
    # SRCLK runs to every 74HC595 (~25 cm of track): 100 Ohm at the inverter's output damps the
    # ringing that could clock a 595 twice on one edge
    put("R%d" % (2 * n + 9), "r100", "srclk_r", {"1": "SRCLK_DRV", "2": "SRCLK"})
    return parts


# The strip board's middle band (design.ROW_Y[0] + cell .. design.ROW_Y[1] - cell): the connectors'
# pin rows CONN_X in from the short edges, their top pin at CONN_Y (9 pins at 2.5 mm: y 30-50)
CONN_X, CONN_Y = 10.2, 30.0
CHIP_Y = (31.0, 49.0)     # row 0's registers in the band's upper half, row 1's in its lower half
REG_ROT, SR_ROT = 270, 90     # row 0's; row 1's turned by 180
PAIR_DX, CAP_DX, CAP_DY = 6.5, 13.25, 2.0   # a register's 74HC165 left of its centre, its 74HC595 right; their 100 nF outside
# the parts beside the connectors: key -> (x, y, rotation); x < 0 counts from the right edge
GLUE = {
    "clk_pull": (16.0, 29.5, 0), "buf": (19.5, 34.5, 0), "buf_c": (19.5, 30.0, 0),
    "load_pull": (16.0, 39.0, 0), "clk_r": (23.5, 36.75, 0), "clk_out": (23.5, 38.75, 0),
    "load_out": (23.5, 32.25, 0), "data_up": (16.0, 43.0, 0), "light_pull": (16.0, 47.5, 0),
    "oe_pull": (16.0, 51.0, 0), "bulk": (20.0, 45.0, 90),
    "inv": (30.0, 44.0, 0), "inv_c": (30.0, 40.0, 0), "srclk_r": (30.0, 48.0, 0),
    "ff": (-28.0, 42.0, 0), "ff_c": (-28.0, 38.0, 0), "light_out": (-22.0, 46.0, 0),
    "ff_inv": (-34.0, 42.0, 0), "ff_inv_c": (-34.0, 38.0, 0),
    "tail": (-18.0, 42.0, 0),
}


def _register_slot(d, r):
    """Where register r's chips sit: (74HC165 (x, y, rot), its 100 nF (x, y, rot), 74HC595 (x, y, rot),
    its 100 nF): side by side in the band beside the row they serve, under the middle of their 8
    spots.  Both turn their clock and load pins towards the middle of the band, where those nets
    run from chip to chip: the 74HC165 its pins 1-8 (SH/LD, CLK, inputs E-H; inputs A-D face the
    row), the 74HC595 its pins 9-16 (SRCLK, RCLK, /OE, SER; outputs QB-QH face the row).  Rotation
    90 puts pins 1-8 on the upper side, 270 on the lower."""
    xs = [x for pos in d["lanes"] for (x, y, b) in pos if b >> 3 == r]
    row = next(k for k, pos in enumerate(d["lanes"]) for (x, y, b) in pos if b >> 3 == r)
    x = round((min(xs) + max(xs)) / 2 * 4) / 4
    y = CHIP_Y[row]
    reg, sr = (REG_ROT, SR_ROT) if row == 0 else ((REG_ROT + 180) % 360, (SR_ROT + 180) % 360)
    # their 100 nF beyond their outer ends, off the centre line (where LOAD's trunk runs)
    cy = y + (-CAP_DY if row == 0 else CAP_DY)
    return ((x - PAIR_DX, y, reg), (x - CAP_DX, cy, 0), (x + PAIR_DX, y, sr), (x + CAP_DX, cy, 0))


# Courtyard half-extents of each footprint (KiCad's own libraries, footprint at rotation 0; the tests
# compare them with the courtyards of the committed board): what check_feet keeps out of the feet.
COURTYARD_HALF = {
    "SC-59": (1.93, 1.82), "SOT-23-5": (2.08, 1.73), "SOT-23-6": (2.08, 1.73),
    "SOIC-16_3.9x9.9mm_P1.27mm": (3.73, 5.22), "R_0603_1608Metric": (1.5, 0.76),
    "C_0603_1608Metric": (1.5, 0.76), "C_0805_2012Metric": (1.73, 1.0),
    "LED_1206_3216Metric_ReverseMount_Hole1.8x2.4mm": (2.31, 1.49),
}
# the connector's courtyard from its pin 1 (KiCad's JST_XH_S9B-XH-A_1x09_P2.50mm_Horizontal turned
# so its pins run down the short edge, the housing towards the edge): outward, inward, up, down (mm)
CONN_COURTYARD = (9.72, 2.83, 2.98, 20.0 + 2.98)


def part_box(p):
    """(x0, y0, x1, y1) of a placed part's courtyard, board mm."""
    if p["kind"] == "conn":
        out, inw, up, down = CONN_COURTYARD
        x0, x1 = (p["x"] - out, p["x"] + inw) if p["side"] == "left" else (p["x"] - inw, p["x"] + out)
        return (x0, p["y"] - up, x1, p["y"] + down)
    hx, hy = COURTYARD_HALF[PARTS[p["kind"]][1]]
    if p["rot"] % 180:
        hx, hy = hy, hx
    return (p["x"] - hx, p["y"] - hy, p["x"] + hx, p["y"] + hy)


def check_feet(parts, feet=None):
    """No part's courtyard inside a foot's keep-out circle (design.feet, design.foot_keepout_mm);
    raises MapError naming the first part and foot that meet."""
    r = design.foot_keepout_mm()
    for name, fx, fy in (design.feet() if feet is None else feet):
        for ref in sorted(parts, key=_refkey):
            x0, y0, x1, y1 = part_box(parts[ref])
            dx = max(x0 - fx, 0.0, fx - x1)
            dy = max(y0 - fy, 0.0, fy - y1)
            if dx * dx + dy * dy < r * r:
                raise MapError("part %s (%s) at (%.1f, %.1f) mm: its courtyard reaches into foot %s's "
                               "keep-out (centre (%.1f, %.1f) mm, %.1f mm radius: a %g mm foot and %g mm "
                               "clearance)" % (ref, PARTS[parts[ref]["kind"]][2], parts[ref]["x"],
                                               parts[ref]["y"], name, fx, fy, r, design.FOOT_D_MM,
                                               design.FOOT_CLEAR_MM))


def _led_net(b):
    return "LED%d%s" % (b >> 3, LETTERS[b & 7])


def _anode_net(b):
    return "LEDA%d%s" % (b >> 3, LETTERS[b & 7])


# ============================================================================================
# 3. KiCad board, routing, DRC, outputs (needs pcbnew)
# ============================================================================================
def _pcbnew():
    import pcbnew
    return pcbnew


def mm(v):
    return _pcbnew().FromMM(v)


def pt(x, y):
    p = _pcbnew()
    return p.wxPoint(p.FromMM(x + OFFSET[0]), p.FromMM(y + OFFSET[1]))


def build_board(d, log=print):
    pcbnew = _pcbnew()
    import pcb_route
    pcbnew.KIID.SeedGenerator(1)
    board = pcbnew.BOARD()
    w, h = d["size"]
    ds = board.GetDesignSettings()
    ds.SetCopperLayerCount(2)
    ds.m_TrackMinWidth = mm(0.15)
    ds.m_ViasMinSize = mm(0.5)
    ds.m_MinThroughDrill = mm(0.3)
    ds.m_CopperEdgeClearance = mm(pcb_route.EDGE_CLEAR)
    ds.m_HoleToHoleMin = mm(0.25)
    ds.m_HoleClearance = mm(pcb_route.HOLE_CLEAR)
    nc = ds.GetNetClasses().GetDefault()
    nc.SetClearance(mm(pcb_route.CLEAR))
    nc.SetTrackWidth(mm(pcb_route.TRACK))
    nc.SetViaDiameter(mm(pcb_route.VIA_D))
    nc.SetViaDrill(mm(pcb_route.VIA_DRILL))
    ds.SetAuxOrigin(pt(0, 0))
    ds.SetGridOrigin(pt(0, 0))
    # outline
    corners = [(0, 0), (w, 0), (w, h), (0, h)]
    for a, b in zip(corners, corners[1:] + corners[:1]):
        seg = pcbnew.PCB_SHAPE(board)
        seg.SetShape(pcbnew.SHAPE_T_SEGMENT)
        seg.SetLayer(pcbnew.Edge_Cuts)
        seg.SetWidth(mm(0.1))
        seg.SetStart(pt(*a))
        seg.SetEnd(pt(*b))
        board.Add(seg)
    parts = netlist_parts(d)
    nets = {}

    def net(name):
        if name not in nets:
            ni = pcbnew.NETINFO_ITEM(board, name)
            board.Add(ni)
            nets[name] = ni
        return nets[name]
    for name in sorted({n for p in parts.values() for n in p["pads"].values() if n}):
        net(name)
    fps = {}
    for ref in sorted(parts, key=_refkey):
        p = parts[ref]
        lib, name, value = PARTS[p["kind"]][:3]
        fp = pcbnew.FootprintLoad(os.path.join(FP_DIR, lib + ".pretty"), name)
        fp.SetReference(ref)
        fp.SetValue(value)
        fp.SetPosition(pt(p["x"], p["y"]))
        fp.SetOrientationDegrees(p["rot"])
        board.Add(fp)
        fp.Flip(pt(p["x"], p["y"]), False)          # every part on the underside
        fp.Reference().SetVisible(False)
        fp.Value().SetVisible(False)
        for pad in fp.Pads():
            nn = p["pads"].get(pad.GetNumber())
            if nn:
                pad.SetNet(nets[nn])
        fps[ref] = fp
    if "J1" in fps:
        _orient_connectors(fps, parts)
    # router
    rt = pcb_route.Router(w, h)
    pad_geo = {}      # (ref, padnum) -> (layers, cx, cy, hw, hh, net)
    netid = {name: i for i, name in enumerate(sorted(nets))}
    for ref in sorted(fps, key=_refkey):
        fp = fps[ref]
        for pad in fp.Pads():
            bb = pad.GetBoundingBox()
            cx = pcbnew.ToMM(bb.GetCenter().x) - OFFSET[0]
            cy = pcbnew.ToMM(bb.GetCenter().y) - OFFSET[1]
            hw = pcbnew.ToMM(bb.GetWidth()) / 2
            hh = pcbnew.ToMM(bb.GetHeight()) / 2
            if pad.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH:
                # a plain hole (the reverse-mount LED shines through it): nothing on either layer
                # near it (copper-to-hole clearance), no via near it (hole to hole)
                rt.add_npth(cx, cy, hw, hh)
                continue
            thru = pad.GetAttribute() == pcbnew.PAD_ATTRIB_PTH
            layers = (0, 1) if thru else (1,)
            nn = parts[ref]["pads"].get(pad.GetNumber())
            nid = netid[nn] if nn else pcb_route.BLOCKED
            rt.add_rect(layers, cx, cy, hw, hh, nid, via_block=not thru)
            if thru:
                rt.add_hole(cx, cy, pcbnew.ToMM(pad.GetDrillSize().x) / 2)
            pad_geo[(ref, pad.GetNumber())] = (layers, cx, cy, hw, hh, nn)
    conns = _route_all(rt, d, parts, pad_geo, netid, log)
    for (layer, x1, y1, x2, y2, nid, width) in rt.tracks:
        t = pcbnew.PCB_TRACK(board)
        t.SetStart(pt(x1, y1))
        t.SetEnd(pt(x2, y2))
        t.SetWidth(mm(width))
        t.SetLayer(pcbnew.F_Cu if layer == 0 else pcbnew.B_Cu)
        t.SetNet(nets[sorted(nets)[nid]])
        board.Add(t)
    for (x, y, nid) in rt.vias:
        v = pcbnew.PCB_VIA(board)
        v.SetPosition(pt(x, y))
        v.SetWidth(mm(pcb_route.VIA_D))
        v.SetDrill(mm(pcb_route.VIA_DRILL))
        v.SetNet(nets[sorted(nets)[nid]])
        board.Add(v)
    _silk(board, d)
    board = _ground_pour(board, d)
    return board, parts, rt, conns


def _ground_pour(board, d):
    """GND pour on both layers over the whole board, filled after routing (solid connection to
    GND pads and vias; islands that reach no GND are removed).  KiCad 6 fills only a board that
    was loaded from a file, so the board goes through a temporary file first."""
    pcbnew = _pcbnew()
    import tempfile
    import pcb_route
    w, h = d["size"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "board.kicad_pcb")
        pcbnew.SaveBoard(path, board)
        board = pcbnew.LoadBoard(path)
    gnd = board.FindNet("GND")
    for layer in (pcbnew.F_Cu, pcbnew.B_Cu):
        z = pcbnew.ZONE(board)
        z.SetLayer(layer)
        z.SetNetCode(gnd.GetNetCode())
        ol = z.Outline()
        ol.NewOutline()
        for x, y in ((0.5, 0.5), (w - 0.5, 0.5), (w - 0.5, h - 0.5), (0.5, h - 0.5)):
            p = pt(x, y)
            ol.Append(p.x, p.y)
        # thermal relief on the through-hole (connector) pads, so a maker's iron can heat them;
        # SMD pads join the pour solidly (reflow heats the whole board)
        z.SetPadConnection(pcbnew.ZONE_CONNECTION_THT_THERMAL)
        z.SetThermalReliefGap(mm(0.5))
        z.SetThermalReliefSpokeWidth(mm(0.5))
        # the board's own clearance and a 0.15 mm minimum width (every fab's 2-layer minimum is
        # 0.127 mm): the pour squeezes between tracks 0.5 mm apart instead of breaking into islands
        z.SetLocalClearance(mm(pcb_route.CLEAR))
        z.SetMinThickness(mm(0.15))
        board.Add(z)
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())
    return board


def _pad_geometry(board):
    pcbnew = _pcbnew()
    out = []
    for fp in board.GetFootprints():
        for pad in fp.Pads():
            bb = pad.GetBoundingBox()
            thru = pad.GetAttribute() == pcbnew.PAD_ATTRIB_PTH
            npth = pad.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH
            out.append(((0, 1) if thru else () if npth else (1,), pcbnew.ToMM(bb.GetCenter().x) - OFFSET[0],
                        pcbnew.ToMM(bb.GetCenter().y) - OFFSET[1], pcbnew.ToMM(bb.GetWidth()) / 2,
                        pcbnew.ToMM(bb.GetHeight()) / 2))
    return sorted(out)


def _pour_polygons(board):
    """Filled GND pour outlines and holes per layer (0 = F.Cu, 1 = B.Cu), in board mm."""
    pcbnew = _pcbnew()
    out = []
    for z in board.Zones():
        for li, layer in ((0, pcbnew.F_Cu), (1, pcbnew.B_Cu)):
            if not z.IsOnLayer(layer):
                continue
            ps = z.GetFilledPolysList(layer)
            for i in range(ps.OutlineCount()):
                rings = [ps.Outline(i)] + [ps.Hole(i, k) for k in range(ps.HoleCount(i))]
                pts = []
                for ring in rings:
                    pts.append([(pcbnew.ToMM(ring.CPoint(j).x) - OFFSET[0], pcbnew.ToMM(ring.CPoint(j).y) - OFFSET[1])
                                for j in range(ring.PointCount())])
                out.append((li, pts))
    return out


def routing_quality(rt, board, parts):
    """The router's figures the issue sets goals for: vias per signal net (average, and the
    net with most), and the islands of the filled ground pour on each layer."""
    names = sorted({n for p in parts.values() for n in p["pads"].values() if n})   # = build_board's ids
    per = {}
    for (_, _, nid) in rt.vias:
        per[names[nid]] = per.get(names[nid], 0) + 1
    signals = [nm for nm in names if nm not in ("GND", "3V3")]
    worst = max(((per.get(nm, 0), nm) for nm in signals), default=(0, ""))
    islands = [0, 0]
    for li, _ in _pour_polygons(board):
        islands[li] += 1
    return {"vias_per_signal_net": round(sum(per.get(nm, 0) for nm in signals) / max(1, len(signals)), 2),
            "max_vias_on_a_net": [worst[1], worst[0]], "pour_islands": islands,
            "power_vias": per.get("GND", 0) + per.get("3V3", 0)}


def _refkey(ref):
    m = re.match(r"([A-Z]+)(\d+)", ref)
    return (m.group(1), int(m.group(2)))


def _orient_connectors(fps, parts):
    """Turn each connector so its pins run down the board's short edge (its "side"), the housing
    (opening) towards that edge, its top pin at the part's y."""
    pcbnew = _pcbnew()
    for ref in ("J1", "J2"):
        fp = fps[ref]
        p = parts[ref]
        for rot in (0, 90, 180, 270):
            if fp.IsFlipped():
                fp.Flip(pt(p["x"], p["y"]), False)
            fp.SetOrientationDegrees(rot)
            fp.SetPosition(pt(p["x"], p["y"]))
            fp.Flip(pt(p["x"], p["y"]), False)
            pads = {q.GetNumber(): q.GetPosition() for q in fp.Pads()}
            bb = fp.GetBoundingBox(False, False)
            out = (bb.GetX() < pads["1"].x - mm(5)) if p["side"] == "left" else (bb.GetRight() > pads["1"].x + mm(5))
            if pads["1"].x == pads["9"].x and out:
                top = min(pads["1"].y, pads["9"].y)
                fp.Move(pcbnew.wxPoint(pt(p["x"], 0).x - pads["1"].x, pt(0, p["y"]).y - top))
                p["rot"] = rot
                break
        else:
            raise RuntimeError("no orientation puts %s's opening at the board edge" % ref)


def _route_all(rt, d, parts, pad_geo, netid, log):
    """Connect every net.  Order: the switch and LED cells (short), the chips' decoupling, the
    input and LED lines, SRCLK, /OE, the two chains, clocks and load, then power.  A connection that fails takes up
    the signal nets crowding its ends (at most RIP_BUDGET times per board, RIP_PER_NET per net)
    and they are routed again; PCB_TRACE=1 prints every take-up, PCB_DEBUG=1 keeps a board whose
    routing failed (for its picture)."""
    import pcb_route
    G = pcb_route.GRID
    isl = {}     # net -> list of islands {"cells": set, "pts": [(x, y)], "pads": set, "rail": bool}
    aside = {}   # islands a net could not reach yet (tried again at the end)
    pads_of = {}
    names = {i: n for n, i in netid.items()}
    for (ref, num), geo in sorted(pad_geo.items(), key=lambda kv: (_refkey(kv[0][0]), kv[0][1])):
        if geo[5]:
            pads_of.setdefault(geo[5], []).append((ref, num))

    def pad_island(ref, num):
        layers, cx, cy, hw, hh, nn = pad_geo[(ref, num)]
        shrink = 0.45 if len(layers) == 2 else 0.9      # THT pads are ovals: keep inside them
        cells = rt.pad_cells(layers, cx, cy, hw * shrink, hh * shrink, netid[nn])
        return {"cells": cells, "pts": [(cx, cy)], "pads": {(ref, num)}, "rail": False}

    def reset(nn):
        isl[nn] = [pad_island(r, n) for r, n in pads_of[nn]]
        aside.pop(nn, None)
    for nn in pads_of:
        reset(nn)

    def lay_rail(layer, nn, xa, xb, y, step, width=pcb_route.TRACK):
        """A straight run laid before routing, never taken up: an island of nn that others join,
        its points every `step` mm."""
        rt.add_segment(layer, xa, y, xb, y, netid[nn], width=width)
        rt.rails.append(len(rt.tracks) - 1)
        isl[nn].append({"cells": rt.segment_cells(layer, xa, y, xb, y),
                        "pts": [(xa + i * step, y) for i in range(int((xb - xa) / step) + 1)],
                        "pads": set(), "rail": True})
    # power rails along every row on the top layer: GND above the switch row, 3V3 below
    for pos in d["lanes"]:
        xs = [p[0] for p in pos]
        y = pos[0][1]
        x_from, x1 = _snap(min(xs) - 6.0), _snap(max(xs) + 6.0)
        for nn, dy in (("GND", -3.5), ("3V3", 3.5)):
            lay_rail(0, nn, x_from, x1, _snap(y + dy), 2.0, width=RAIL_W)
    # LOAD reaches all 8 chips, whose SH/LD and RCLK pins all face the band's middle: one trunk on
    # the part side along the middle, which each pin joins by a short stub (routed before the
    # lines, never taken up); everything else crosses it on the top
    trunk_nets = {"LOAD"}
    chips = [(ref, num) for (ref, num) in pads_of["LOAD"] if parts[ref]["kind"] in ("reg", "sr")]
    xs = [pad_geo[k][1] for k in chips]
    lay_rail(1, "LOAD", _snap(min(xs)), _snap(max(xs)), _snap(sum(CHIP_Y) / 2.0), 1.0)
    failures = []
    queue = []
    budget = [RIP_BUDGET]
    ripped = {}

    def find(nn, pad):
        return next(i for i, s in enumerate(isl[nn]) if pad in s["pads"])

    def dist(a, b):
        return min(abs(p[0] - q[0]) + abs(p[1] - q[1]) for p in a["pts"] for q in b["pts"])

    def join1(nn, i, j, cost_b):
        vc = NET_VIA_COST.get(nn, VIA_COST)
        L = isl[nn]
        a, b = L[i], L[j]
        if len(a["cells"]) < len(b["cells"]):
            src, dst = b["cells"], a["cells"]
        else:
            src, dst = a["cells"], b["cells"]
        # a long way (across the lanes) may need a wider search than the default
        far = dist(a, b) > LONG_MM
        try:
            path = rt.route(netid[nn], src, dst, cost_b=cost_b, via_cost=vc, layer_pref=(0, 1),
                            limit=LONG_LIMIT if far else None)
        except pcb_route.RouteError:
            return False
        laid = rt.commit(netid[nn], path)
        a["cells"] |= b["cells"] | laid
        a["pts"] += b["pts"] + [(c[2] * G, c[1] * G) for c in path[::6]]
        a["pads"] |= b["pads"]
        a["rail"] = a["rail"] or b["rail"]
        L.pop(j)
        return True

    def join(nn, i, j, cost_b=None, tries=3):
        """Route island j to island i (both of net nn) and merge them; on failure take up the
        signal nets crowding the two ends and try again (they are routed again afterwards)."""
        cost_b = COST_B if cost_b is None else cost_b
        if join1(nn, i, j, cost_b):
            return True
        for attempt in range(tries):
            if budget[0] <= 0:
                break
            L = isl[nn]
            pts = [pad_geo[p][1:3] for p in sorted(L[i]["pads"] | L[j]["pads"])]
            victims = {names[v] for v in rt.near(pts, 1.5 + attempt)} - {nn, "GND", "3V3"} - trunk_nets
            # a net taken up again and again is left alone (two nets must not take turns forever)
            victims = {v for v in victims if ripped.get(v, 0) < RIP_PER_NET}
            if not victims:
                continue
            for v in victims:
                ripped[v] = ripped.get(v, 0) + 1
            budget[0] -= 1
            if os.environ.get("PCB_TRACE"):
                print("    rip for %s %s-%s: %s" % (nn, sorted(L[i]["pads"])[:2], sorted(L[j]["pads"])[:2],
                                                  sorted(victims)))
            rt.rip([netid[v] for v in victims])
            for v in sorted(victims):
                reset(v)
                if v not in queue:
                    queue.append(v)
            if join1(nn, i, j, cost_b):
                return True
        a, b = isl[nn][i], isl[nn][j]
        failures.append((nn, sorted(a["pads"]), sorted(b["pads"])))
        return False

    def connect(nn, cost_b=None):
        """Join all islands of nn, growing from the first one, nearest island next."""
        L = isl.get(nn, [])
        while len(L) > 1:
            j = min(range(1, len(L)), key=lambda k: (dist(L[0], L[k]), k))
            if not join(nn, 0, j, cost_b):
                aside.setdefault(nn, []).append(L.pop(j))
            L = isl[nn]
        drain()

    def drain():
        while queue:
            v = queue.pop(0)
            connect(v)

    def pair(nn, pa, pb):
        i, j = find(nn, pa), find(nn, pb)
        if i != j:
            join(nn, min(i, j), max(i, j))
        drain()

    def to_rail(nn, pad):
        i = find(nn, pad)
        rails = [k for k, s in enumerate(isl[nn]) if s["rail"] and k != i]
        if not rails or isl[nn][i]["rail"]:
            return
        px, py = isl[nn][i]["pts"][0]
        k = min(rails, key=lambda k: (min(abs(q[1] - py) + 0.1 * abs(q[0] - px) for q in isl[nn][k]["pts"]), k))
        join(nn, k, i) if k < i else join(nn, i, k)

    R = d["registers"]
    order = sorted((p for p in parts if p.startswith("H")), key=lambda r: (parts[r]["lane"], parts[r]["pos"]))
    # 1. switch cells: pull-up to its switch, switch and pull-up power pins to the lane rails
    for hr in order:
        b = int(hr[1:]) - 1
        pair(_in_net(b), (hr, HALL_PINS["OUT"]), ("R%d" % (b + 1), "1"))
    # the LED cells: 470 Ohm to its LED's anode, the cathode to the lane's GND rail
    n = R * 8
    for hr in order:
        b = int(hr[1:]) - 1
        pair(_anode_net(b), ("R%d" % (n + 9 + b), "2"), ("D%d" % (b + 1), LED_PINS["A"]))
    for hr in order:
        b = int(hr[1:]) - 1
        to_rail("GND", (hr, HALL_PINS["GND"]))
        to_rail("3V3", (hr, HALL_PINS["VDD"]))
        to_rail("3V3", ("R%d" % (b + 1), "2"))
        to_rail("GND", ("D%d" % (b + 1), LED_PINS["K"]))
        cap = "C%d" % (HALL_CAP_BASE + b)
        pair("3V3", (cap, "1"), (hr, HALL_PINS["VDD"]))     # straight to the switch's pins
        pair("GND", (cap, "2"), (hr, HALL_PINS["GND"]))
    # 2. decoupling at every IC; then LOAD's trunk, the input and LED lines (row by row, spot by
    # spot, each spot's two together), short with the chips beside their spots; the chains, the
    # clocks and LOAD, which travel along the band, find their way round them afterwards
    for r in range(R + 1):
        u, c = "U%d" % (r + 1), "C%d" % (r + 1)
        if r < R:
            pair("3V3", (u, "16"), (c, "1"))
            pair("GND", (u, "8"), (c, "2"))
            pair("GND", (u, "15"), (u, "8"))
        else:
            pair("3V3", (u, "5"), (c, "1"))
            pair("GND", (u, "2"), (c, "2"))
    for r in range(R):
        u, c = "U%d" % (R + 2 + r), "C%d" % (R + 3 + r)
        pair("3V3", (u, SR_PINS["VCC"]), (c, "1"))
        pair("GND", (u, SR_PINS["GND"]), (c, "2"))
        pair("3V3", (u, SR_PINS["/SRCLR"]), (u, SR_PINS["VCC"]))
    u, c = "U%d" % (2 * R + 2), "C%d" % (2 * R + 3)
    pair("3V3", (u, INV_PINS["VCC"]), (c, "1"))
    pair("GND", (u, INV_PINS["GND"]), (c, "2"))
    u, c = "U%d" % (2 * R + 3), "C%d" % (2 * R + 4)
    pair("3V3", (u, FF_PINS["VCC"]), (c, "1"))
    pair("GND", (u, FF_PINS["GND"]), (c, "2"))
    u, c = "U%d" % (2 * R + 4), "C%d" % (2 * R + 5)
    pair("3V3", (u, INV_PINS["VCC"]), (c, "1"))
    pair("GND", (u, INV_PINS["GND"]), (c, "2"))
    for nn in sorted(trunk_nets):
        connect(nn, cost_b=1.0)
    for hr in order:
        b = int(hr[1:]) - 1
        connect(_in_net(b))
        connect(_led_net(b))
    for b in range(R * 8):
        connect(_in_net(b))
    connect("SRCLK_DRV")
    connect("SRCLK", cost_b=1.5)
    connect(OE_NET, cost_b=1.5)        # like SRCLK: to every 74HC595
    connect("CLK", cost_b=1.5)        # to every 74HC165, before the chains take the band
    for nn in (["Q%d" % r for r in range(1, R)] + ["QH0", "DATA_UP", "DATA_IN", "CLK_IN", "LOAD_IN",
                                                   "CLK_OUT", "LOAD_OUT", "LIGHT_IN", "LIGHT_RT", "LIGHT_OUT",
                                                   "CLK_BUF", "LQ_N"]
               + ["LQ%d" % r for r in range(1, R + 1)]):
        connect(nn)
    for nn in ("CLK", "LOAD", OE_NET):
        connect(nn, cost_b=1.5)
    # 3. clocks and load, then power
    for nn in ("CLK", "LOAD", OE_NET, "SRCLK", "3V3", "GND"):
        connect(nn, cost_b=1.5)
    # 4. whatever failed: once more, taking up more of its neighbours
    for _ in range(int(os.environ.get("PCB_FINAL_PASSES", "2"))):
        again, failures[:] = list(failures), []
        for nn, lst in aside.items():
            isl[nn].extend(lst)
        aside.clear()
        for nn, pa, pb in again:
            try:
                i, j = find(nn, pa[0]), find(nn, pb[0])
            except StopIteration:
                # a pad whose island a later take-up rebuilt elsewhere: report it, do not crash
                failures.append((nn, pa, pb))
                continue
            if i != j:
                join(nn, min(i, j), max(i, j), tries=5)
                drain()
        if not failures:
            break
    failures[:] = ["%s: %s -> %s" % (nn, pa[:2], pb[:2]) for nn, pa, pb in failures]
    log("  routing: %d rip-ups" % (RIP_BUDGET - budget[0]))
    rt.trim_rails()
    if failures and os.environ.get("PCB_DEBUG"):
        print("routing failed on %d connection(s):\n  %s" % (len(failures), "\n  ".join(failures)))
        failures = []
    if failures:
        raise RuntimeError("routing failed on %d connection(s):\n  %s" % (len(failures), "\n  ".join(failures)))
    return len(rt.tracks)


def _in_net(b):
    return "IN%d%s" % (b >> 3, LETTERS[b & 7])


def _snap(v):
    import pcb_route
    return round(v / pcb_route.GRID) * pcb_route.GRID


def _silk(board, d):
    pcbnew = _pcbnew()
    t = pcbnew.PCB_TEXT(board)
    t.SetText("%s  (generated from sensor_map.json by hardware/tools/build_pcb.py)" % d["board"])
    t.SetLayer(pcbnew.B_SilkS)
    t.SetTextSize(pcbnew.wxSize(mm(1.2), mm(1.2)))
    t.SetTextThickness(mm(0.15))
    w, h = d["size"]
    t.SetPosition(pt(w / 2, h - 2.5))       # below the second row's cells
    t.SetMirrored(True)
    board.Add(t)
    # where the feet go (design.feet: no part within their keep-out, check_feet): a circle each on
    # the underside's silkscreen, for the maker sticking them on
    for name, fx, fy in design.feet():
        c = pcbnew.PCB_SHAPE(board)
        c.SetShape(pcbnew.SHAPE_T_CIRCLE)
        c.SetLayer(pcbnew.B_SilkS)
        c.SetWidth(mm(0.15))
        c.SetCenter(pt(fx, fy))
        c.SetEnd(pt(fx + design.FOOT_D_MM / 2.0 - 0.3, fy))
        board.Add(c)


def run_drc(board, path):
    pcbnew = _pcbnew()
    pcbnew.WriteDRCReport(board, path, pcbnew.EDA_UNITS_MILLIMETRES, True)
    with open(path) as f:
        text = f.read()
    viol = re.search(r"\*\* Found (\d+) DRC violations", text)
    unc = re.search(r"\*\* Found (\d+) unconnected pads", text)
    return (int(viol.group(1)) if viol else -1, int(unc.group(1)) if unc else -1, text)


# ---- outputs -----------------------------------------------------------------------------
_DATE_LINE = re.compile(r"(?im)^(G04 .*\bdate\b.*|%TF\.CreationDate.*|; #@! TF\.CreationDate.*|;.*\bdate\b.*"
                        r"|G04 #@! TF\.CreationDate.*)\r?\n")


def _normalise_kicad(text):
    """Deterministic KiCad files: uuids renumbered in order of appearance."""
    seen = {}

    def sub(m):
        u = m.group(0)
        if u not in seen:
            seen[u] = "00000000-0000-4000-8000-%012x" % (len(seen) + 1)
        return seen[u]
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", sub, text)


def save_project(board, out, name):
    pcbnew = _pcbnew()
    path = os.path.join(out, name + ".kicad_pcb")
    board.SetFileName(path)            # names the plots (Gerber ProjectId) after the board
    pcbnew.SaveBoard(path, board)
    with open(path) as f:
        text = _normalise_kicad(f.read())
    with open(path, "w", newline="\n") as f:
        f.write(text)
    prl = os.path.join(out, name + ".kicad_prl")      # local view settings: not part of the design
    if os.path.exists(prl):
        os.remove(prl)
    pro = os.path.join(out, name + ".kicad_pro")
    if os.path.exists(pro):
        with open(pro) as f:
            doc = json.load(f)
        doc.setdefault("meta", {})["filename"] = name + ".kicad_pro"
        with open(pro, "w", newline="\n") as f:
            f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    else:
        with open(pro, "w", newline="\n") as f:
            f.write(json.dumps({"meta": {"filename": name + ".kicad_pro", "version": 1}}, indent=2) + "\n")
    return path


GERBER_LAYERS = [
    ("F_Cu", "F.Cu", "Top copper"), ("B_Cu", "B.Cu", "Bottom copper"),
    ("F_Mask", "F.Mask", "Top solder mask"), ("B_Mask", "B.Mask", "Bottom solder mask"),
    ("F_SilkS", "F.SilkS", "Top silkscreen"), ("B_SilkS", "B.SilkS", "Bottom silkscreen"),
    ("B_Paste", "B.Paste", "Bottom paste"), ("Edge_Cuts", "Edge.Cuts", "Board outline"),
]


def write_fab(board, out, name, tmp):
    """Gerbers and Excellon drill files, zipped deterministically as <name>_gerbers.zip."""
    pcbnew = _pcbnew()
    gdir = os.path.join(tmp, name)
    os.makedirs(gdir, exist_ok=True)
    pctl = pcbnew.PLOT_CONTROLLER(board)
    po = pctl.GetPlotOptions()
    po.SetOutputDirectory(gdir)
    po.SetPlotFrameRef(False)
    po.SetUseGerberProtelExtensions(True)
    po.SetUseGerberX2format(False)
    po.SetUseGerberAttributes(False)
    po.SetIncludeGerberNetlistInfo(False)
    po.SetCreateGerberJobFile(False)
    po.SetUseAuxOrigin(True)
    po.SetSubtractMaskFromSilk(True)
    po.SetExcludeEdgeLayer(True)
    po.SetScale(1)
    po.SetMirror(False)
    po.SetDrillMarksType(pcbnew.PCB_PLOT_PARAMS.NO_DRILL_SHAPE)
    for attr, layer_name, desc in GERBER_LAYERS:
        pctl.SetLayer(getattr(pcbnew, attr))
        pctl.OpenPlotfile(attr, pcbnew.PLOT_FORMAT_GERBER, desc)
        pctl.PlotLayer()
    pctl.ClosePlot()
    drl = pcbnew.EXCELLON_WRITER(board)
    drl.SetOptions(False, False, board.GetDesignSettings().GetAuxOrigin(), False)
    drl.SetFormat(True)
    drl.CreateDrillandMapFilesSet(gdir, True, False)
    zpath = os.path.join(out, name + "_gerbers.zip")
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
        for fn in sorted(os.listdir(gdir)):
            with open(os.path.join(gdir, fn), "rb") as f:
                data = f.read().decode("ascii", "replace")
            data = _DATE_LINE.sub("", data)
            zi = zipfile.ZipInfo(name + "-" + fn.split("-", 1)[1], date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data.encode("ascii"))
    return zpath, sorted(os.listdir(gdir))


# JLCPCB's placement convention as the most used KiCad plugin applies it (Bouni/kicad-jlcpcb-tools,
# fabrication.py fix_rotation/rotate): a bottom-side part's angle is mirrored, (180 - angle) mod
# 360, then the correction of the first row of the rotation table whose pattern matches the
# footprint's name is added.  The table is hardware/tools/jlc_rotations.csv: the rows of the
# community table that plugin downloads (matthewlai/JLCKicadTools cpl_rotations_db.csv) for our
# packages, vendored with their source, and a row of our own for every other footprint, saying why.
# A footprint with no row is refused (check_rotations): no part is placed at a guessed angle.
ROTATIONS_CSV = os.path.join(HERE, "jlc_rotations.csv")


def load_rotations(path=ROTATIONS_CSV):
    """[(pattern, correction in degrees, source)] in the file's order (the first match wins)."""
    rows = []
    with open(path, newline="") as f:
        for n, r in enumerate(csv.DictReader(f), 2):
            try:
                rows.append((re.compile(r["pattern"]).pattern, int(r["correction"]), r["source"].strip()))
            except (KeyError, TypeError, ValueError, re.error) as e:
                raise MapError("%s line %d: not a rotation row (pattern, correction, source): %s"
                               % (os.path.basename(path), n, e))
            if not rows[-1][2]:
                raise MapError("%s line %d: the row for %s names no source"
                               % (os.path.basename(path), n, rows[-1][0]))
    return rows


ROTATIONS = load_rotations()


def rotation_row(footprint, table=None):
    """The first row of the rotation table matching a footprint name, or None."""
    for row in ROTATIONS if table is None else table:
        if re.search(row[0], footprint):
            return row
    return None


def check_rotations(table=None, parts=None):
    """Every footprint the boards use has a row in the rotation table; raises MapError naming the
    first that has none."""
    for kind, (lib, fpn, value, mpn, _) in sorted((parts or PARTS).items()):
        if rotation_row(fpn, table) is None:
            raise MapError("part '%s' (%s): footprint '%s' has no rotation entry in %s: add the fab "
                           "table's row, or one of our own with its reason"
                           % (kind, value, fpn, os.path.basename(ROTATIONS_CSV)))


def cpl_rotation(fp):
    rot = fp.GetOrientationDegrees() % 360
    if fp.IsFlipped():
        rot = (180 - rot) % 360
    name = str(fp.GetFPID().GetLibItemName())
    row = rotation_row(name)
    if row is None:
        raise MapError("%s: footprint '%s' has no rotation entry in %s"
                       % (fp.GetReference(), name, os.path.basename(ROTATIONS_CSV)))
    return (rot + row[1]) % 360


def write_assembly(board, parts, out, name):
    """JLCPCB BOM and CPL (placement): one pair, every strip being the whole board."""
    pcbnew = _pcbnew()
    pos_of = {}
    for fp in board.GetFootprints():
        ref = fp.GetReference()
        xs = [q.GetPosition().x for q in fp.Pads()]
        ys = [q.GetPosition().y for q in fp.Pads()]
        cx = pcbnew.ToMM((min(xs) + max(xs)) // 2) - OFFSET[0]
        cy = pcbnew.ToMM((min(ys) + max(ys)) // 2) - OFFSET[1]
        pos_of[ref] = (cx, -cy, "Bottom" if fp.IsFlipped() else "Top", cpl_rotation(fp))
    fit = sorted(parts, key=_refkey)
    groups = {}
    for ref in fit:
        lib, fpn, value, mpn, _ = PARTS[parts[ref]["kind"]]
        groups.setdefault((value, fpn, lcsc_number(parts[ref]["kind"]), mpn), []).append(ref)
    bom = io.StringIO()
    w = csv.writer(bom, lineterminator="\n")
    w.writerow(["Comment", "Designator", "Footprint", "LCSC Part #", "Manufacturer Part", "Quantity"])
    for (value, fpn, lcsc, mpn), refs in sorted(groups.items(), key=lambda kv: _refkey(kv[1][0])):
        w.writerow([value, ",".join(refs), fpn, lcsc, mpn, len(refs)])
    cpl = io.StringIO()
    w = csv.writer(cpl, lineterminator="\n")
    w.writerow(["Designator", "Mid X", "Mid Y", "Layer", "Rotation"])
    for ref in fit:
        x, y, layer, rot = pos_of[ref]
        w.writerow([ref, "%.4fmm" % x, "%.4fmm" % y, layer, "%g" % rot])
    written = []
    for kind, text in (("bom", bom.getvalue()), ("cpl", cpl.getvalue())):
        path = os.path.join(out, "%s_%s.csv" % (name, kind))
        with open(path, "w", newline="\n") as f:
            f.write(text)
        written.append(path)
    return written


def write_netlist(parts, out, name):
    rows = sorted((net, ref, pad) for ref, p in parts.items() for pad, net in p["pads"].items() if net)
    path = os.path.join(out, name + "_netlist.csv")
    with open(path, "w", newline="\n") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["Net", "Reference", "Pad", "Part"])
        for net, ref, pad in sorted(rows, key=lambda r: (r[0], _refkey(r[1]), r[2])):
            w.writerow([net, ref, pad, PARTS[parts[ref]["kind"]][2]])
    return path


def verify(designs, folder, log=print):
    """Check committed boards without routing them again: each <board>.kicad_pcb in `folder`
    has exactly the map's parts on the map's nets, KiCad's DRC finds 0 violations and 0
    unconnected items on it, and its netlist, BOM and placement files are what the map and that
    board give, byte for byte.  Returns the list of problems (empty: all good)."""
    pcbnew = _pcbnew()
    import tempfile
    problems = []
    for name, d in sorted(designs.items()):
        path = os.path.join(folder, name + ".kicad_pcb")
        if not os.path.exists(path):
            problems.append("%s: no committed board" % path)
            continue
        t0 = time.time()
        board = pcbnew.LoadBoard(path)
        parts = netlist_parts(d)
        want = {(ref, pad): net for ref, p in parts.items() for pad, net in p["pads"].items() if net}
        have = {}
        for fp in board.GetFootprints():
            for pad in fp.Pads():
                if pad.GetNetname():
                    have[(fp.GetReference(), pad.GetNumber())] = pad.GetNetname()
        refs = {fp.GetReference() for fp in board.GetFootprints()}
        if refs != set(parts):
            problems.append("%s: parts differ from the map's: missing %s, extra %s"
                            % (name, sorted(set(parts) - refs)[:5], sorted(refs - set(parts))[:5]))
        diff = sorted(k for k in set(want) | set(have) if want.get(k) != have.get(k))
        if diff:
            problems.append("%s: %d pads on other nets than the map's, e.g. %s"
                            % (name, len(diff), ["%s.%s: %s != %s" % (k[0], k[1], have.get(k), want.get(k))
                                                 for k in diff[:3]]))
        with tempfile.TemporaryDirectory() as tmp:
            viol, unc, _ = run_drc(board, os.path.join(tmp, "drc.txt"))
            if viol != 0 or unc != 0:
                problems.append("%s: DRC %d violations, %d unconnected" % (name, viol, unc))
            written = [] if refs != set(parts) else (write_assembly(board, parts, tmp, name)
                                                     + [write_netlist(parts, tmp, name)])
            for fn in written:
                theirs = os.path.join(folder, os.path.basename(fn))
                with open(fn, "rb") as a:
                    mine = a.read()
                if not os.path.exists(theirs):
                    problems.append("%s: not committed" % os.path.basename(fn))
                    continue
                with open(theirs, "rb") as b:
                    if mine != b.read():
                        problems.append("%s: not what the map and the board give" % os.path.basename(fn))
        log("%s: checked (parts and nets from the map, DRC %d/%d, assembly and netlist files) in %.1f s"
            % (name, viol, unc, time.time() - t0))
    return problems


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--map", default=os.path.join(HW, "sensor_map.json"))
    ap.add_argument("--out", default=os.path.join(HW, "pcb"))
    ap.add_argument("--docs", default=None, help="folder for the pictures (default: hardware/docs, or --out)")
    ap.add_argument("--check-map", action="store_true", help="only validate the map")
    ap.add_argument("--board", action="append", help="build only this board design")
    ap.add_argument("--refresh", metavar="DIR", help="rewrite the netlist, BOM and placement files of the "
                                                     "boards committed in DIR from the map and those boards "
                                                     "(no routing: for a change to those files' rules)")
    ap.add_argument("--verify", metavar="DIR", help="check the boards committed in DIR against the map "
                                                   "(nets, DRC, assembly files) without routing them")
    ap.add_argument("--feet", help="JSON [[name, x, y], ...]: feet under the board in place of design.feet() "
                                   "(a maker's own); every part must keep out of them")
    ap.add_argument("--rotations", help="a rotation table (pattern, correction, source) replacing "
                                        "tools/jlc_rotations.csv; every footprint needs a row")
    ap.add_argument("--parts", help="JSON {kind: [route, number, source]} replacing entries of the "
                                    "parts' sourcing (a maker's substitutes); checked like the built-in ones")
    a = ap.parse_args(argv)
    with open(a.map) as f:
        doc = json.load(f)
    try:
        if a.parts:
            with open(a.parts) as f:
                SOURCING.update(json.load(f))
            check_parts()
    except (MapError, ValueError, OSError) as e:
        print("refused: %s: %s" % (os.path.basename(a.parts), e), file=sys.stderr)
        return 2
    try:
        if a.rotations:
            ROTATIONS[:] = load_rotations(a.rotations)
        check_rotations()
    except (MapError, OSError) as e:
        print("refused: %s: %s" % (os.path.basename(a.rotations or ROTATIONS_CSV), e), file=sys.stderr)
        return 2
    try:
        check_parts()
        designs = designs_from_map(doc)
    except MapError as e:
        print("refused: %s: %s" % (os.path.basename(a.map), e), file=sys.stderr)
        return 2
    try:
        feet = None
        if a.feet:
            with open(a.feet) as f:
                feet = [tuple(x) for x in json.load(f)]
        for d in designs.values():
            check_feet(netlist_parts(d), feet)
    except (MapError, OSError, ValueError, TypeError) as e:
        print("refused: %s: %s" % (os.path.basename(a.feet or "design.py feet"), e), file=sys.stderr)
        return 2
    if a.refresh:
        pcbnew = _pcbnew()
        for b, d in sorted(designs.items()):
            if a.board and b not in a.board:
                continue
            board = pcbnew.LoadBoard(os.path.join(a.refresh, b + ".kicad_pcb"))
            parts = netlist_parts(d)
            for fn in write_assembly(board, parts, a.refresh, b) + [write_netlist(parts, a.refresh, b)]:
                print("wrote", fn)
        return 0
    if a.verify:
        wanted = {b: d for b, d in designs.items() if not a.board or b in a.board}
        problems = verify(wanted, a.verify)
        for p in problems:
            print("NOT AS GENERATED: " + p, file=sys.stderr)
        return 1 if problems else 0
    if a.check_map:
        for b, d in sorted(designs.items()):
            print("%s: %d rows of %d spots, %d registers, %d positions, strips %s" % (
                b, len(d["lanes"]), len(d["lanes"][0]), d["registers"], sum(len(p) for p in d["lanes"]),
                ", ".join(s["id"] for s in d["strips"])))
        return 0
    os.makedirs(a.out, exist_ok=True)
    names = [n for n in sorted(designs) if not a.board or n in a.board]
    if len(names) > 1:
        # each board in its own process: KiCad's footprint library cache, warm after the first
        # board, changes the ids a later board's footprints get (the seeded generator runs
        # differently), and the file lists footprints in id order: a board built after another
        # came out in another order than built alone
        spath = os.path.join(a.out, "summary.json")
        if not a.board and os.path.exists(spath):
            os.remove(spath)
        bad = 0
        for n in names:
            cmd = [sys.executable, os.path.abspath(__file__), "--map", a.map, "--out", a.out, "--board", n]
            cmd += ["--docs", a.docs] if a.docs else []
            cmd += ["--parts", a.parts] if a.parts else []
            cmd += ["--rotations", a.rotations] if a.rotations else []
            bad = max(bad, subprocess.call(cmd))
        return bad
    bad = 0
    summary = {}
    for name, d in sorted(designs.items()):
        if a.board and name not in a.board:
            continue
        t0 = time.time()
        board, parts, rt, ntracks = build_board(d)
        t1 = time.time()
        drc_path = os.path.join(a.out, name + "_drc.txt")
        viol, unc, text = run_drc(board, drc_path)
        with open(drc_path, "w", newline="\n") as f:
            text = re.sub(r"(?m)^\*\* Created on .*\n", "", text)
            text = re.sub(r"(?m)^\*\* Drc report for .*$", "** Drc report for %s.kicad_pcb **" % name, text)
            f.write(_DATE_LINE.sub("", text))
        t2 = time.time()
        print("%s: %.0f x %.0f mm, %d parts, %d tracks, %d vias; placed+routed in %.1f s, DRC %.1f s: "
              "%d violations, %d unconnected" % (name, d["size"][0], d["size"][1], len(parts), len(rt.tracks),
                                                 len(rt.vias), t1 - t0, t2 - t1, viol, unc))
        save_project(board, a.out, name)
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            write_fab(board, a.out, name, tmp)
        write_assembly(board, parts, a.out, name)
        write_netlist(parts, a.out, name)
        import pcb_route
        docs = a.docs or (os.path.join(HW, "docs") if os.path.abspath(a.out) == os.path.join(HW, "pcb") else a.out)
        pcb_route.render_png(os.path.join(docs, "pcb_%s.png" % name), d["size"][0], d["size"][1],
                             _pad_geometry(board), rt.tracks, rt.vias, pours=_pour_polygons(board),
                             title="%s (underside, generated from sensor_map.json)" % name)
        q = routing_quality(rt, board, parts)
        print("%s: vias per signal net %.2f on average (goal <= 2), at most %d on %s (goal <= 8); ground pour "
              "islands: %d on F.Cu, %d on B.Cu (goal <= 2 per layer)"
              % (name, q["vias_per_signal_net"], q["max_vias_on_a_net"][1], q["max_vias_on_a_net"][0],
                 q["pour_islands"][0], q["pour_islands"][1]))
        summary[name] = {"size_mm": list(d["size"]), "parts": len(parts), "tracks": len(rt.tracks),
                         "vias": len(rt.vias), "drc_violations": viol, "drc_unconnected": unc, **q,
                         "registers": d["registers"], "positions": sum(len(p) for p in d["lanes"]),
                         "strips": [s["id"] for s in d["strips"]]}
        if viol != 0 or unc != 0:
            print("DRC NOT CLEAN: see %s" % drc_path, file=sys.stderr)
            bad = 1
    spath = os.path.join(a.out, "summary.json")
    if a.board and os.path.exists(spath):
        # one board rebuilt: the others' entries stay as they were
        with open(spath) as f:
            summary = dict(json.load(f), **summary)
    with open(spath, "w", newline="\n") as f:
        f.write(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
