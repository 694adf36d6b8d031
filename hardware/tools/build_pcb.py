"""Generate the fab-ready boards from hardware/sensor_map.json (KiCad 6, Debian's `kicad`).

    /usr/bin/python3 hardware/tools/build_pcb.py                 # rewrite hardware/pcb/ + docs pictures
    /usr/bin/python3 hardware/tools/build_pcb.py --map M --out D  # another map, another folder
    /usr/bin/python3 hardware/tools/build_pcb.py --check-map M    # only validate a map (no KiCad needed)

Needs Debian's /usr/bin/python3 (the `pcbnew` module of `apt-get install kicad kicad-footprints`).

One PCB design per `board` named by the map's strips (today: `track_board`, used by the 4
development and 4 aspect strips, and `resource_board`, one per seat).  For each design it writes
into the output folder:

    <board>.kicad_pcb, <board>.kicad_pro   the KiCad project (footprints from KiCad's own libraries)
    <board>_gerbers.zip                    Gerbers + Excellon drill files, as a fab takes them
    <board>_bom.csv, <board>_cpl.csv       JLCPCB assembly files (one pair per population variant)
    <board>_netlist.csv                    net, reference, pad (what the tests read)
    <board>_drc.txt                        KiCad's design-rule report (must say 0 and 0)
and the picture hardware/docs/pcb_<board>.png.

Placement follows the map (a hall switch centred on every space's x/y, on the underside, which is
also where every other part sits: the top stays flat for the printed overlay; beside each switch a
reverse-mount LED over a hole, lit by a 74HC595 on the same chain as the 74HC165s); the tracks are laid
by pcb_route.py; KiCad's DRC judges the result and the build fails unless it reports no violation
and no unconnected item.

A map the boards cannot realise is refused (exit status 2) with a message naming the entry:
a lane with more positions than its board holds, a strip with more lanes than its board holds, a
lane whose bits lie in another board's registers or whose spaces lie off its board (a lane may not
cross boards without a wire), strips of one board design that disagree.
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
BOARD_CAPACITY = {
    # board: (lanes, positions per lane, registers)
    "track_board": (2, 8, 2),
    "resource_board": (6, 11, 9),
}
EDGE_KEEP = 4.0      # a hall switch centre must be at least this far inside its board outline

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
    "ff": ("Package_TO_SOT_SMD", "SOT-23-5", "74LVC1G79", "Nexperia 74LVC1G79GV,125", ""),
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
    "ff": ("global", "Nexperia 74LVC1G79GV,125",
           "manufacturer part in a public KiCad schematic (74xGxx:74LVC1G79, SOT-23-5); no LCSC "
           "number found"),
    "conn": ("hand", "JST S9B-XH-A", "KiCad's own footprint and 3D model of the JST XH S9B-XH-A"),
}
ROUTES = ("fab", "global", "hand")
FP_DIR = "/usr/share/kicad/footprints"
HALL_PINS = {"VDD": "1", "OUT": "2", "GND": "3"}          # AH1806-W-7 SC59 (KiCad's pad numbers)
REG_INPUT_PIN = {"A": "11", "B": "12", "C": "13", "D": "14", "E": "3", "F": "4", "G": "5", "H": "6"}
# 74HC595 (TI pin naming): output QX lights the position read at 74HC165 input X
SR_OUTPUT_PIN = {"A": "15", "B": "1", "C": "2", "D": "3", "E": "4", "F": "5", "G": "6", "H": "7"}
SR_PINS = {"GND": "8", "QH'": "9", "/SRCLR": "10", "SRCLK": "11", "RCLK": "12", "/OE": "13", "SER": "14",
           "VCC": "16"}
INV_PINS = {"NC": "1", "A": "2", "GND": "3", "Y": "4", "VCC": "5"}   # SN74LVC1G14DBVR, SOT-23-5
FF_PINS = {"D": "1", "CLK": "2", "GND": "3", "Q": "4", "VCC": "5"}    # 74LVC1G79, SOT-23-5 (TI DBV, Nexperia GV)
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
# The router's costs per board design: a via costs this many grid steps, a step on the part side
# (B.Cu) this much (the top: 1).  Dear vias keep the vias per signal net low where the board has
# room (the track board); the crowded resource board routed completely with 12 and 1.6 (20 and 1.3 left 3-4 LED lines unrouted).
ROUTING_COSTS = {"track_board": (20.0, 1.3), "resource_board": (12.0, 1.6)}
DEFAULT_COSTS = (8.0, 2.0)


# Where a board with more than two registers puts its chips: "edge" (74HC165s in the label
# column, 74HC595s in rows along the top and bottom edges: the committed resource board), "bands"
# (each register's 74HC165 and 74HC595 side by side in the band between the lanes it serves, CLK,
# LOAD, SRCLK and /OE laid as planned trunks first) or "bands-split" (a register within one lane:
# its 74HC165 in the band above, its 74HC595 in the band below).  PCB_PLACEMENT overrides it.
PLACEMENT = {"resource_board": "edge"}


def placement(board):
    return os.environ.get("PCB_PLACEMENT", PLACEMENT.get(board, "edge"))


def routing_costs(board):
    via, cost_b = ROUTING_COSTS.get(board, DEFAULT_COSTS)
    return (float(os.environ.get("PCB_VIA_COST", via)), float(os.environ.get("PCB_COST_B", cost_b)))
RAIL_W = 0.5        # the lanes' 3V3 and GND rails (signals 0.25 mm)
RIP_BUDGET = int(os.environ.get("PCB_RIP_BUDGET", "150"))      # rip-ups per board (the router's retries, see _route_all)
RIP_PER_NET = int(os.environ.get("PCB_RIP_PER_NET", "4"))      # times one net may be taken up for others
LONG_MM, LONG_LIMIT = 60.0, 1500000    # connections longer than this (mm) search this many cells


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
    """Validate the map against what the boards hold; return {board: design}.

    design = {"board", "size", "registers", "lanes": [{"positions": [(x, y, local_bit)]}],
              "strips": [{"id", "first_register", "populated": set of (lane, i)}]}
    Raises MapError naming the offending entry."""
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
        w, h = s["size_mm"]
        if s["registers"] > cap_regs:
            raise MapError("strip '%s': %d registers, a %s holds %d" % (s["id"], s["registers"], board, cap_regs))
        my = by_strip[s["id"]]
        if len(my) > cap_lanes:
            raise MapError("strip '%s': %d lanes, a %s holds %d" % (s["id"], len(my), board, cap_lanes))
        lo, hi = s["first_register"] * 8, (s["first_register"] + s["registers"]) * 8
        lane_pos = []
        for k, lane in enumerate(my):
            bits = lane["bits"]
            if len(bits) > cap_pos:
                raise MapError("lane '%s' (strip '%s'): %d positions, a %s holds %d per lane"
                               % (lane["id"], s["id"], len(bits), board, cap_pos))
            (x0, y0), (dx, dy) = lane["at_mm"], lane["step_mm"]
            pos = []
            for i, b in enumerate(bits):
                if not lo <= b < hi:
                    other = owner_of_register.get(b >> 3, "no board")
                    raise MapError("lane '%s' position %d: bit %d is read by register %d on '%s', not on its "
                                   "own strip '%s' (registers %d-%d): a lane cannot cross boards without a wire"
                                   % (lane["id"], i + 1, b, b >> 3, other, s["id"], lo // 8, hi // 8 - 1))
                x, y = x0 + i * dx, y0 + i * dy
                if not (EDGE_KEEP <= x <= w - EDGE_KEEP and EDGE_KEEP <= y <= h - EDGE_KEEP):
                    raise MapError("lane '%s' position %d at (%.1f, %.1f) mm lies off its board '%s' "
                                   "(%.0f x %.0f mm): a lane cannot cross boards without a wire"
                                   % (lane["id"], i + 1, x, y, s["id"], w, h))
                pos.append((round(x, 3), round(y, 3), b - lo))
            lane_pos.append(pos)
        d = designs.get(board)
        if d is None:
            d = designs[board] = {"board": board, "size": (w, h), "registers": s["registers"],
                                  "lanes": [list(p) for p in lane_pos], "strips": [], "ref_strip": s["id"]}
        else:
            ref = d["ref_strip"]
            if (w, h) != d["size"] or s["registers"] != d["registers"] or len(lane_pos) != len(d["lanes"]):
                raise MapError("strip '%s' differs from strip '%s' (both a %s): size, registers or lane count"
                               % (s["id"], ref, board))
            for k, pos in enumerate(lane_pos):
                have = d["lanes"][k]
                for i, p in enumerate(pos):
                    if i < len(have):
                        if have[i] != p:
                            raise MapError("lane '%s' position %d (strip '%s') is at %s on the %s, strip '%s' "
                                           "puts that position at %s" % (my[k]["id"], i + 1, s["id"], p[:2],
                                                                        board, ref, have[i][:2]))
                    else:
                        have.append(p)
        d["strips"].append({"id": s["id"], "first_register": s["first_register"],
                            "populated": set((k, i) for k, pos in enumerate(lane_pos) for i in range(len(pos)))})
    for board, d in designs.items():
        used = {}
        for k, pos in enumerate(d["lanes"]):
            for i, (x, y, b) in enumerate(pos):
                if b in used:
                    raise MapError("%s: lane %d position %d and lane %d position %d share input %d"
                                   % (board, used[b][0] + 1, used[b][1] + 1, k + 1, i + 1, b))
                used[b] = (k, i)
    return designs


# ============================================================================================
# 2. a design -> parts with nets and places (pure Python)
# ============================================================================================
def netlist_parts(d):
    """Every part of the board: dict ref -> {kind, x, y, rot, pads: {pad: net}, place}.

    References: H<b+1> hall switch, R<b+1> its pull-up, D<b+1> its LED, R<n+9+b> the LED's 470 Ohm
    (b = local input bit, n = 8 x registers); U1..U<R> 74HC165, U<R+1> the Schmitt buffer,
    U<R+2>..U<2R+1> 74HC595 (595 r lights what 74HC165 r reads), U<2R+2> the clock inverter,
    U<2R+3> the lights' lock-up flip-flop; C1..C<R> and C<R+3>..C<2R+2> their 100 nF, C<R+1> the
    buffer's, C<R+2> the bulk 10 uF, C<2R+3> the inverter's, C<2R+4> the flip-flop's;
    R<n+1>..R<n+8> the buffer's, the chain's and the lights' resistors, R<2n+9> SRCLK's,
    R<2n+10> the buffered CLK's series resistor, R<2n+11> the /OE pull-up (LIGHTS_OFF);
    C<101+b> the 100 nF of the switch on input b."""
    parts = {}
    R = d["registers"]
    n = R * 8
    w, h = d["size"]
    # hall switches and their pull-ups: H<n>/R<n>, n = local input bit + 1; beside each switch its
    # LED (over its hole, inside the printed cell) and the LED's 470 Ohm from the 595 output
    used_bits = {}
    for k, pos in enumerate(d["lanes"]):
        for i, (x, y, b) in enumerate(pos):
            used_bits[b] = (k, i, x, y)
    for b in range(n):
        net = _in_net(b)
        if b in used_bits:
            k, i, x, y = used_bits[b]
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
            # its supply spike is met here, not over the lane's rails), just below the switch
            parts["C%d" % (HALL_CAP_BASE + b)] = {"kind": "c100n", "x": round(x + HCAP_DX, 3),
                                                  "y": round(y + HCAP_DY, 3), "rot": 0, "lane": k, "pos": i,
                                                  "pads": {"1": "3V3", "2": "GND"}}
    # registers in the label column, register 0 at the top; more than two registers go in two
    # staggered columns.  The 74HC595s: up to two registers, each above (register 0) or below
    # (register 1) its 74HC165, outputs towards the board edge; more registers: two rows along
    # the top and bottom edges, beyond the lanes (_edge_rows)
    narrow = R <= 2
    bands = not narrow and placement(d["board"]) != "edge"
    if bands:
        slots = _band_slots(d, R)
    elif not narrow:
        sr_slots = _edge_rows(d, R)
    y_top, y_bot = (12.0, h - 12.0) if narrow else (10.0, h - 4.0)
    pitch = (y_bot - y_top) / R
    spare = []
    col_a, col_b = 26.5, 39.0
    for r in range(R):
        cy = round(y_top + (r + 0.5) * pitch, 2)
        if narrow:
            cx = 33.0
            cap = (25.5, cy, 90)
            sx, sy, urot = cx, (9.0 if r == 0 else round(h - 9.0, 2)), (90 if r == 0 else 270)
            scap = (25.5, sy, 90)
        elif bands:
            (cx, cy, rrot), cap, (sx, sy, urot), scap = slots[r]
        else:
            cx = col_b if (r % 2 == 1 or r == R - 1) else col_a
            cap = (cx + 7.0, cy, 90) if cx == col_a else (cx - 7.0, cy, 90)
            sx, sy, urot, scap = sr_slots[r]
        pads = {"1": "LOAD", "2": "CLK", "15": "GND", "16": "3V3", "8": "GND", "7": None,
                "9": "QH0" if r == 0 else "Q%d" % r,
                "10": "DATA_IN" if r == R - 1 else "Q%d" % (r + 1)}
        for letter, pin in REG_INPUT_PIN.items():
            pads[pin] = "IN%d%s" % (r, letter)
        parts["U%d" % (r + 1)] = {"kind": "reg", "x": cx, "y": cy, "rot": rrot if bands else 90, "pads": pads}
        parts["C%d" % (r + 1)] = {"kind": "c100n", "x": cap[0], "y": cap[1], "rot": cap[2],
                                  "pads": {"1": "3V3", "2": "GND"}}
        # its 74HC595: outputs QA..QH light the positions read at inputs A..H; the chain runs
        # LIGHT_IN -> 595 0 -> ... -> last 595 -> flip-flop -> 100 Ohm -> LIGHT_OUT, clocked by
        # SRCLK (the board's CLK inverted), latched by LOAD's rising edge
        sp = {SR_PINS["GND"]: "GND", SR_PINS["VCC"]: "3V3", SR_PINS["/OE"]: OE_NET, SR_PINS["/SRCLR"]: "3V3",
              SR_PINS["SRCLK"]: "SRCLK", SR_PINS["RCLK"]: "LOAD",
              SR_PINS["SER"]: "LIGHT_IN" if r == 0 else "LQ%d" % r, SR_PINS["QH'"]: "LQ%d" % (r + 1)}
        for letter, pin in SR_OUTPUT_PIN.items():
            b = r * 8 + LETTERS.index(letter)
            sp[pin] = _led_net(b) if b in used_bits else None
        parts["U%d" % (R + 2 + r)] = {"kind": "sr", "x": sx, "y": sy, "rot": urot, "pads": sp}
        parts["C%d" % (R + 3 + r)] = {"kind": "c100n", "x": scap[0], "y": scap[1], "rot": scap[2],
                                      "pads": {"1": "3V3", "2": "GND"}}
        for j in range(8):
            b = r * 8 + j
            if b not in used_bits:
                spare.append(b)
    # spare inputs: a pull-up each, in a row beside (or left of) their register
    for m, b in enumerate(spare):
        r = b >> 3
        k = sum(1 for c in spare[:m] if c >> 3 == r)
        ux, uy = parts["U%d" % (r + 1)]["x"], parts["U%d" % (r + 1)]["y"]
        if narrow:
            xy, rot = (41.5, round(uy - 4.0 + 2.0 * k, 2)), 0
        elif bands:
            xy, rot = (round(ux - 10.5 - 3.2 * (k // 3), 2), round(uy - 2.0 + 2.0 * (k % 3), 2)), 0
        else:
            xy, rot = (round(ux - (10.0 if ux == col_b else 8.5), 2), round(uy - 5.0 + 2.0 * k, 2)), 0
        parts["R%d" % (b + 1)] = {"kind": "r10k", "x": xy[0], "y": xy[1], "rot": rot,
                                  "pads": {"1": _in_net(b), "2": "3V3"}}
    # connectors: UP (towards the controller) and DOWN, on the left edge, opening outwards
    conn_x = 10.2
    parts["J1"] = {"kind": "conn", "x": conn_x, "y": 6.0, "rot": 0, "pads": {}}
    parts["J2"] = {"kind": "conn", "x": conn_x, "y": 36.0, "rot": 0, "pads": {}}
    for p, sig in PINOUT.items():
        up = {"CLK": "CLK_IN", "LOAD": "LOAD_IN", "DATA": "DATA_UP", "LIGHT": "LIGHT_IN", "OE": OE_NET}.get(sig, sig)
        down = {"CLK": "CLK_OUT", "LOAD": "LOAD_OUT", "DATA": "DATA_IN", "LIGHT": "LIGHT_OUT", "OE": OE_NET}.get(sig, sig)
        parts["J1"]["pads"][str(p)] = up
        parts["J2"]["pads"][str(p)] = down
    # Schmitt buffer for CLK and LOAD, its decoupling, series resistors, tail pull-down, bulk
    bx, by = (19.5 if narrow else 16.5), 30.0
    parts["U%d" % (R + 1)] = {"kind": "buf", "x": bx, "y": by, "rot": 0,
                              "pads": {"1": "CLK_IN", "2": "GND", "3": "LOAD_IN", "4": "LOAD",
                                       "5": "3V3", "6": "CLK_BUF"}}
    # the buffered clock reaches 9 non-Schmitt 74HC165 clock inputs (~18 cm on the resource
    # board): 100 Ohm at the buffer's output damps the ringing that could clock one twice
    parts["R%d" % (2 * n + 10)] = {"kind": "r100", "x": bx + 3.5, "y": by + 1.0, "rot": 90,
                                   "pads": {"1": "CLK_BUF", "2": "CLK"}}
    # the lights' /OE (cable pins 1 and 9): pulled up, so every LED is dark until the firmware
    # drives it low after its first latched frame (hardware/docs/pcb.md, "Guidance lights")
    parts["R%d" % (2 * n + 11)] = {"kind": "r10k", "x": bx, "y": 20.0, "rot": 0,
                                   "pads": {"1": OE_NET, "2": "3V3"}}
    parts["C%d" % (R + 1)] = {"kind": "c100n", "x": bx, "y": by - 4.0, "rot": 0, "pads": {"1": "3V3", "2": "GND"}}
    parts["C%d" % (R + 2)] = {"kind": "c10u", "x": bx, "y": 8.0, "rot": 0, "pads": {"1": "3V3", "2": "GND"}}
    parts["R%d" % (n + 1)] = {"kind": "r100", "x": bx, "y": by + 6.0, "rot": 0, "pads": {"1": "CLK_BUF", "2": "CLK_OUT"}}
    parts["R%d" % (n + 2)] = {"kind": "r100", "x": bx, "y": by + 9.0, "rot": 0, "pads": {"1": "LOAD", "2": "LOAD_OUT"}}
    parts["R%d" % (n + 3)] = {"kind": "r100", "x": bx, "y": 13.0, "rot": 0, "pads": {"1": "QH0", "2": "DATA_UP"}}
    parts["R%d" % (n + 4)] = {"kind": "r10k", "x": bx, "y": by + 15.0, "rot": 0, "pads": {"1": "DATA_IN", "2": "GND"}}
    # CLK and LOAD inputs pulled to their idle level (high): an unplugged or reversed cable leaves
    # no Schmitt input floating
    parts["R%d" % (n + 5)] = {"kind": "r10k", "x": bx, "y": by + 3.0, "rot": 0, "pads": {"1": "CLK_IN", "2": "3V3"}}
    parts["R%d" % (n + 6)] = {"kind": "r10k", "x": bx, "y": by - 7.0, "rot": 0, "pads": {"1": "LOAD_IN", "2": "3V3"}}
    # the lights' data: LIGHT_IN pulled down (unplugged = dark), LIGHT_OUT through 100 Ohm like
    # every other output onto the cable; SRCLK = CLK inverted (the 595s shift on CLK's falling edge)
    parts["R%d" % (n + 7)] = {"kind": "r10k", "x": bx, "y": 17.0, "rot": 0, "pads": {"1": "LIGHT_IN", "2": "GND"}}
    # LIGHT_OUT leaves from a D flip-flop clocked on CLK's rising edge (a lock-up stage): the last
    # 74HC595's QH' changes on CLK's falling edge, the flip-flop passes it on half a clock later,
    # so the next board, which samples on its own (later) falling edge, sees data that has been
    # steady for ~500 ns either side: no hold-time race along the chain, and no extra bit
    ffx, ffy, ffcap = ((25.5, 48.5, (25.5, 45.0, 0)) if narrow else (bx, 42.0, (bx + 3.5, 42.0, 90)))
    parts["U%d" % (2 * R + 3)] = {"kind": "ff", "x": ffx, "y": ffy, "rot": 0,
                                  "pads": {FF_PINS["D"]: "LQ%d" % R, FF_PINS["CLK"]: "CLK",
                                           FF_PINS["GND"]: "GND", FF_PINS["Q"]: "LIGHT_RT",
                                           FF_PINS["VCC"]: "3V3"}}
    parts["C%d" % (2 * R + 4)] = {"kind": "c100n", "x": ffcap[0], "y": ffcap[1], "rot": ffcap[2],
                                  "pads": {"1": "3V3", "2": "GND"}}
    parts["R%d" % (n + 8)] = {"kind": "r100", "x": bx if narrow else bx + 3.5, "y": by + 12.0 if narrow else 45.5,
                              "rot": 0 if narrow else 90, "pads": {"1": "LIGHT_RT", "2": "LIGHT_OUT"}}
    parts["U%d" % (2 * R + 2)] = {"kind": "inv", "x": bx, "y": by + 19.5, "rot": 0,
                                  "pads": {INV_PINS["NC"]: None, INV_PINS["A"]: "CLK", INV_PINS["GND"]: "GND",
                                           INV_PINS["Y"]: "SRCLK_DRV", INV_PINS["VCC"]: "3V3"}}
    parts["C%d" % (2 * R + 3)] = {"kind": "c100n", "x": bx, "y": by + 23.5, "rot": 0,
                                  "pads": {"1": "3V3", "2": "GND"}}
    # SRCLK runs to every 74HC595 (up to ~50 cm of track on the resource board): 100 Ohm at the
    # inverter's output damps the ringing that could clock a 595 twice on one edge
    parts["R%d" % (2 * n + 9)] = {"kind": "r100", "x": bx, "y": by + 26.5, "rot": 0,
                                  "pads": {"1": "SRCLK_DRV", "2": "SRCLK"}}
    return parts


def _edge_rows(d, R):
    """Places of the 74HC595s on a board with more than two registers: (x, y, rotation, decoupling
    capacitor (x, y, rotation)) per register.  The first half (the upper lanes' registers) in a row
    along the top edge, above the first lane, the rest along the bottom edge, below the last lane,
    both left to right, outputs facing the lanes: the LED lines of the upper lanes run up between
    the spaces, those of the lower lanes down; SRCLK, LOAD and the chain run along the edge."""
    w, h = d["size"]
    top = R // 2
    nb = R - top
    slots = []
    for k in range(top):
        x = round(62.0 + k * (w - 78.0) / max(1, top - 1), 2)
        slots.append((x, 10.0, 270, (round(x + 6.8, 2), 10.0, 90)))
    for j in range(nb):
        x = round(65.0 + j * (w - 91.0) / max(1, nb - 1), 2)
        y = round(h - 7.0, 2)
        slots.append((x, y, 90, (round(x - 6.8, 2), y, 270)))
    return slots


def _band_slots(d, R):
    """Places of each register's 74HC165 and 74HC595 on a board with more than two registers:
    [(reg (x, y), reg cap (x, y, rot), sr (x, y, rot), sr cap (x, y, rot))] per register.

    Each pair lies in the band between two lanes (or above the first, below the last) beside the
    spaces it serves, the two chips side by side with their pins facing the lanes: a register's
    input and LED lines run a short way along the band instead of across the board to a column of
    registers (which cost 3-6 vias a line), and only the chain, the clocks, LOAD and /OE travel
    from band to band."""
    w, h = d["size"]
    lanes = d["lanes"]
    ly = [pos[0][1] for pos in lanes]
    # band j lies above lane j (j = len(lanes): below the last); the cells reach 1.5 mm above and
    # 3.7 mm below their switch row, the chips (6.9 mm pin to pin) sit in the middle of the rest
    tops = [3.0] + [y + 3.7 for y in ly]
    bots = [y - 1.5 for y in ly] + [h - 1.0]
    band_y = [round((a + b) / 2 * 4) / 4 for a, b in zip(tops, bots)]
    want = []
    for r in range(R):
        mine = [(k, x) for k, pos in enumerate(lanes) for (x, y, b) in pos if b >> 3 == r]
        if not mine:
            mine = [(len(lanes) - 1, lanes[-1][-1][0])]
        ks = sorted({k for k, _ in mine})
        want.append((ks, sum(x for _, x in mine) / len(mine)))
    if placement(d["board"]) == "bands-split":
        return _band_slots_split(d, R, want, band_y, w)
    load = {}
    choice = []
    for r, (ks, mx) in enumerate(want):
        if len(ks) > 1:
            j = ks[0] + 1                    # the band between its two lanes
        else:
            k = ks[0]
            j = min((k, k + 1), key=lambda j: (load.get(j, 0), -j if k else j))
        load[j] = load.get(j, 0) + 1
        choice.append([j, mx])
    PAIR = 31.0                              # a pair's width with its capacitors
    _spread(choice, 48.0 + PAIR / 2, w - 2.0 - PAIR / 2, PAIR)
    # each chip turns the side with pins 1-8 towards the lane that holds most of what those pins
    # reach (74HC165: inputs H-E = the register's first four bits; 74HC595: QH-QB = its first seven)
    # rotation 90 puts pins 1-8 on the upper side, 270 on the lower
    def facing(r, j, nbits):
        up = sum(1 for k, pos in enumerate(lanes) for (x, y, b) in pos
                 if b >> 3 == r and (b & 7) < nbits and k < j)
        down = sum(1 for k, pos in enumerate(lanes) for (x, y, b) in pos
                   if b >> 3 == r and (b & 7) < nbits and k >= j)
        return 90 if up >= down and j > 0 else 270
    out = []
    for r, (j, x) in enumerate(choice):
        x, y = round(x * 4) / 4, band_y[j]
        out.append(((x - 6.5, y, facing(r, j, 4)), (x - 13.5, y, 90), (x + 6.5, y, facing(r, j, 7)),
                    (x + 13.5, y, 90)))
    return out


def _spread(items, lo, hi, width):
    """items: [band, x, ...] lists; push apart along each band to `width`, inside lo..hi."""
    for j in set(c[0] for c in items):
        mine = sorted((c for c in items if c[0] == j), key=lambda c: c[1])
        for c in mine:
            c[1] = min(max(c[1], lo), hi)
        for a, b in zip(mine, mine[1:]):
            if b[1] - a[1] < width:
                b[1] = a[1] + width
        over = mine[-1][1] - hi
        if over > 0:
            for c in mine:
                c[1] -= over


def _band_slots_split(d, R, want, band_y, w):
    """As _band_slots, but a register wholly in one lane has its 74HC165 in the band above that
    lane and its 74HC595 in the band below (inputs one way, lights the other: half the chips per
    band); a register spread over two lanes has both in the band between them."""
    lanes = d["lanes"]
    chips = []
    for r, (ks, mx) in enumerate(want):
        if len(ks) > 1:
            jr = js = ks[0] + 1
        else:
            jr, js = ks[0], ks[0] + 1
        chips.append([jr, mx - (6.5 if jr == js else 0), r, "reg"])
        chips.append([js, mx + (6.5 if jr == js else 0), r, "sr"])
    _spread(chips, 48.0 + 8.0, w - 2.0 - 10.0, 17.0)

    def facing(r, j, nbits):
        up = sum(1 for k, pos in enumerate(lanes) for (x, y, b) in pos
                 if b >> 3 == r and (b & 7) < nbits and k < j)
        down = sum(1 for k, pos in enumerate(lanes) for (x, y, b) in pos
                   if b >> 3 == r and (b & 7) < nbits and k >= j)
        return 90 if up >= down and j > 0 else 270
    out = [[None] * 4 for _ in range(R)]
    for j, x, r, kind in chips:
        x, y = round(x * 4) / 4, band_y[j]
        if kind == "reg":
            out[r][0], out[r][1] = (x, y, facing(r, j, 4)), (x + 7.0, y, 90)
        else:
            out[r][2], out[r][3] = (x, y, facing(r, j, 7)), (x + 7.0, y, 90)
    return [tuple(o) for o in out]


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
    """Turn each connector so its pins run down the board's left side, pin 1 at the top, and the
    housing (opening) towards the board edge."""
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
            if pads["1"].x == pads["9"].x and bb.GetX() < pads["1"].x - mm(5):
                # the pin row runs up from pin 1: put its top pin at the part's y
                top = min(pads["1"].y, pads["9"].y)
                fp.Move(pcbnew.wxPoint(0, pt(0, p["y"]).y - top))
                p["rot"] = rot
                break
        else:
            raise RuntimeError("no orientation puts %s's opening at the board edge" % ref)


def _route_all(rt, d, parts, pad_geo, netid, log):
    """Connect every net.  Order: the switch and LED cells (short), the register/buffer/74HC595
    area (decoupling, SRCLK, the two chains, clock and load), the long input and LED lines lane by
    lane (nearest switch first), then clocks, load and power.  A connection that fails takes up
    the signal nets crowding its ends (at most RIP_BUDGET times per board, RIP_PER_NET per net)
    and they are routed again; PCB_TRACE=1 prints every take-up, PCB_DEBUG=1 keeps a board whose
    routing failed (for its picture)."""
    import pcb_route
    G = pcb_route.GRID
    via_cost, base_cost_b = routing_costs(d["board"])
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
    # power rails along every lane on the top layer: GND above the switch row, 3V3 below
    x_from = 40.0
    for k, pos in enumerate(d["lanes"]):
        xs = [p[0] for p in pos]
        y = pos[0][1]
        x1 = _snap(max(xs) + 6.0)
        for nn, dy in (("GND", -3.5), ("3V3", 3.5)):
            yy = _snap(y + dy)
            rt.add_segment(0, x_from, yy, x1, yy, netid[nn], width=RAIL_W)
            rt.rails.append(len(rt.tracks) - 1)
            isl[nn].append({"cells": rt.segment_cells(0, x_from, yy, x1, yy),
                            "pts": [(x_from + i * 2.0, yy) for i in range(int((x1 - x_from) / 2) + 1)],
                            "pads": set(), "rail": True})
    # planned trunks (registers in the bands, R > 2): CLK, LOAD, SRCLK and /OE laid before anything
    # else, each down the free left column on the part side and along every band it serves on the
    # top (a via where the two meet); the chips' pins join them by short stubs.  Searched one by one
    # these nets walled each other (and the bands' chips) in.  Trunks are never taken up.
    trunk_nets = set()
    if d["registers"] > 2 and placement(d["board"]) != "edge":
        trunk_nets = _lay_trunks(rt, d, parts, netid, isl, log)
    failures = []
    queue = []
    budget = [RIP_BUDGET]
    ripped = {}

    def find(nn, pad):
        return next(i for i, s in enumerate(isl[nn]) if pad in s["pads"])

    def dist(a, b):
        return min(abs(p[0] - q[0]) + abs(p[1] - q[1]) for p in a["pts"] for q in b["pts"])

    def join1(nn, i, j, cost_b):
        L = isl[nn]
        a, b = L[i], L[j]
        if len(a["cells"]) < len(b["cells"]):
            src, dst = b["cells"], a["cells"]
        else:
            src, dst = a["cells"], b["cells"]
        # a long way (across the lanes) may need a wider search than the default
        far = dist(a, b) > LONG_MM
        try:
            path = rt.route(netid[nn], src, dst, cost_b=cost_b, via_cost=via_cost, layer_pref=(0, 1),
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
        cost_b = base_cost_b if cost_b is None else cost_b
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
    # 2. register area: decoupling at every IC, chains, buffer, inverter, series resistors, tail, data
    # (with the registers in the bands beside their spaces, R > 2, the input and LED lines are short
    # and go first, each register's lines together; the chain and the clocks, which travel from band
    # to band, find their way round them afterwards)
    local = bool(trunk_nets)

    def lines():
        for hr in order:
            b = int(hr[1:]) - 1
            connect(_in_net(b))
            connect(_led_net(b))
        for b in range(R * 8):
            connect(_in_net(b))
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
    chains = (["Q%d" % r for r in range(1, R)] + ["QH0", "DATA_UP", "DATA_IN", "CLK_IN", "LOAD_IN",
                                                  "CLK_OUT", "LOAD_OUT", "LIGHT_IN", "LIGHT_RT", "LIGHT_OUT",
                                                  "CLK_BUF"]
              + ["LQ%d" % r for r in range(1, R + 1)])
    for nn in sorted(trunk_nets):       # the pins' stubs to their trunks, before the lines
        connect(nn, cost_b=1.5)
    if local:
        lines()
    connect("SRCLK_DRV")
    connect("SRCLK", cost_b=1.5)
    connect(OE_NET, cost_b=1.5)        # like SRCLK: to every 74HC595, along the edge rows
    for nn in chains:
        connect(nn)
    for nn in ("CLK", "LOAD", OE_NET):
        connect(nn, cost_b=1.5)
    # 3. the input lines and the LED lines: per lane, nearest switch first; then the spare inputs
    if not local:
        lines()
    # 4. clocks and load, then power
    for nn in ("CLK", "LOAD", OE_NET, "SRCLK", "3V3", "GND"):
        connect(nn, cost_b=1.5)
    # 5. whatever failed: once more, taking up more of its neighbours
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


TRUNK_X0, TRUNK_PITCH = 30.0, 0.75      # the left column: one vertical trunk per net, part side


def _lay_trunks(rt, d, parts, netid, isl, log):
    """Lay CLK, LOAD, SRCLK and /OE as trunks: a vertical on the part side (B.Cu) in the free
    column left of the lanes, from the first band to the last that needs the net, and a horizontal
    on the top (F.Cu) along each band through the chips that need it (between their pin rows),
    joined by a via.  Each net becomes one island of its net (the pins join it afterwards).
    Returns the trunks' nets."""
    import pcb_route
    G = pcb_route.GRID
    R = d["registers"]
    nets = ("LOAD", "CLK", "SRCLK", OE_NET)
    pins = {"LOAD": set(), "CLK": set(), "SRCLK": set(), OE_NET: set()}
    bands = {}          # y -> {net: max x}
    for r in range(R):
        for ref, ns in (("U%d" % (r + 1), ("LOAD", "CLK")), ("U%d" % (R + 2 + r), ("LOAD", "SRCLK", OE_NET))):
            p = parts[ref]
            b = bands.setdefault(p["y"], {})
            for nn in ns:
                b[nn] = max(b.get(nn, 0.0), p["x"] + 5.0)
    offs = {nn: -1.25 + 0.75 * i for i, nn in enumerate(nets)}
    xs = {nn: TRUNK_X0 + TRUNK_PITCH * i for i, nn in enumerate(nets)}
    blocked = []
    for nn in nets:
        nid = netid[nn]
        ys = sorted(y for y, b in bands.items() if nn in b)
        cells, pts = set(), []
        x = xs[nn]
        jys = [_snap(y + offs[nn]) for y in ys]

        def free(cs, grid):
            return all(grid[c[0], c[1], c[2]] in (pcb_route.FREE, nid) for c in cs)
        for ya, yb in zip(jys, jys[1:]):
            cs = rt.segment_cells(1, x, ya, x, yb)
            if not free(cs, rt.towner):
                blocked.append("%s column %.2f-%.2f" % (nn, ya, yb))
            rt.add_segment(1, x, ya, x, yb, nid)
            cells |= cs
            pts += [(x, ya + k * 1.0) for k in range(int((yb - ya) / 1.0) + 1)]
        for y, yy in zip(ys, jys):
            x1 = _snap(bands[y][nn])
            cs = rt.segment_cells(0, x, yy, x1, yy)
            if not free(cs, rt.towner):
                blocked.append("%s band %.2f" % (nn, yy))
            rt.add_segment(0, x, yy, x1, yy, nid)
            rt.rails.append(len(rt.tracks) - 1)
            cells |= cs
            pts += [(x + k * 1.0, yy) for k in range(int((x1 - x) / 1.0) + 1)]
            if len(jys) > 1:
                iy, ix = int(round(yy / G)), int(round(x / G))
                if rt.vowner[0, iy, ix] not in (pcb_route.FREE, nid) or rt.vowner[1, iy, ix] not in (pcb_route.FREE, nid):
                    blocked.append("%s via %.2f,%.2f" % (nn, x, yy))
                rt.add_via(x, yy, nid)
                cells |= {(0, iy, ix), (1, iy, ix)}
        isl[nn].append({"cells": cells, "pts": pts, "pads": set(), "rail": True})
    if blocked:
        log("  trunks over other copper: " + "; ".join(blocked))
    return set(nets)


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
    if d["registers"] <= 2:
        t.SetPosition(pt(w / 2, h - 2.5))
    else:
        # the bottom edge holds 74HC595s: up the right-hand edge instead, beyond the lanes
        t.SetPosition(pt(w - 4.0, h / 2))
        t.SetTextAngle(900)
    t.SetMirrored(True)
    board.Add(t)


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


def variants(d):
    """Population variants of a design: {suffix: (strip ids, populated set)}; '' = every position."""
    full = set((k, i) for k, pos in enumerate(d["lanes"]) for i in range(len(pos)))
    out = {}
    for s in d["strips"]:
        kind = s["id"].split("_")[0]
        key = "" if s["populated"] == full else kind
        if key in out and out[key][1] != s["populated"]:
            key = s["id"]
        out.setdefault(key, ([], s["populated"]))[0].append(s["id"])
    return out


# JLCPCB's placement convention as the most used KiCad plugin applies it (Bouni/kicad-jlcpcb-tools,
# fabrication.py fix_rotation/rotate): a bottom-side part's angle is mirrored, (180 - angle) mod
# 360, then the package's correction from the rotation database it uses
# (matthewlai/JLCKicadTools jlc_kicad_tools/cpl_rotations_db.csv) is added.  Our packages:
CPL_CORRECTIONS = [(r"^SOT-23", 180), (r"^SOIC-", 270)]   # SC-59, 0603/0805/1206, JST XH: none listed


def cpl_rotation(fp):
    rot = fp.GetOrientationDegrees() % 360
    if fp.IsFlipped():
        rot = (180 - rot) % 360
    name = str(fp.GetFPID().GetLibItemName())
    for pattern, corr in CPL_CORRECTIONS:
        if re.search(pattern, name):
            rot = (rot + corr) % 360
            break
    return rot


def write_assembly(board, parts, d, out, name):
    """JLCPCB BOM and CPL (placement) for every population variant."""
    pcbnew = _pcbnew()
    pos_of = {}
    for fp in board.GetFootprints():
        ref = fp.GetReference()
        xs = [q.GetPosition().x for q in fp.Pads()]
        ys = [q.GetPosition().y for q in fp.Pads()]
        cx = pcbnew.ToMM((min(xs) + max(xs)) // 2) - OFFSET[0]
        cy = pcbnew.ToMM((min(ys) + max(ys)) // 2) - OFFSET[1]
        pos_of[ref] = (cx, -cy, "Bottom" if fp.IsFlipped() else "Top", cpl_rotation(fp))
    written = []
    for suffix, (strip_ids, populated) in sorted(variants(d).items()):
        fit = []
        for ref in sorted(parts, key=_refkey):
            p = parts[ref]
            # an unpopulated position: no switch, no capacitor, no LED, no LED resistor (its pull-up stays:
            # the register input it keeps defined is still read)
            if "lane" in p and (p["lane"], p["pos"]) not in populated:
                continue
            fit.append(ref)
        tag = name + ("_" + suffix if suffix else "")
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
        for kind, text in (("bom", bom.getvalue()), ("cpl", cpl.getvalue())):
            path = os.path.join(out, "%s_%s.csv" % (tag, kind))
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
            written = [] if refs != set(parts) else (write_assembly(board, parts, d, tmp, name)
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
        check_parts()
        designs = designs_from_map(doc)
    except MapError as e:
        print("refused: %s: %s" % (os.path.basename(a.map), e), file=sys.stderr)
        return 2
    if a.refresh:
        pcbnew = _pcbnew()
        for b, d in sorted(designs.items()):
            if a.board and b not in a.board:
                continue
            board = pcbnew.LoadBoard(os.path.join(a.refresh, b + ".kicad_pcb"))
            parts = netlist_parts(d)
            for fn in write_assembly(board, parts, d, a.refresh, b) + [write_netlist(parts, a.refresh, b)]:
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
            print("%s: %d lanes, %d registers, %d positions, strips %s" % (
                b, len(d["lanes"]), d["registers"], sum(len(p) for p in d["lanes"]),
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
        write_assembly(board, parts, d, a.out, name)
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
                         "strips": [s["id"] for s in d["strips"]],
                         "variants": {k or "all": v[0] for k, v in sorted(variants(d).items())}}
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
