"""Bill-of-materials data: parts, where to order them, prices, JLCPCB's price rules.

Every total in hardware/bom.md and bom.csv is computed by build_docs.py from these lines and the
sensor maps; nothing here is a total. Each price says what it rests on (`basis`):

  "rule"       JLCPCB's published assembly price rules (ASSEMBLY below, with where they are from)
  "estimate"   the authors' estimate of the shop's price at the quantity bought: NOT a quote
  "prior"      carried from the earlier BOM, not re-checked

PRICED_ON is the date the estimates were last reviewed. The reference library had JLCPCB's
assembly FAQ but no live price list, so no part price could be looked up: re-price every
"estimate" line in the shop's cart before ordering (bom.md says so).

Boards: one JLCPCB order per board design (track_board, resource_board), both sides' parts on
the underside, assembled by JLCPCB: SMD parts by machine, the two 9-pin chain connectors by hand
(JLCPCB's "manual assembly"). One population per design: the aspect strips get all 16 switches
and lights of a track board too (their positions 7-8 are never reached by a token), which is
cheaper than a second assembly order (a setup fee, a stencil and the extended-part fees again).
"""
import csv
import importlib.util
import math
import os

PRICED_ON = "2026-11-26"
BUDGET_USD = 100.0

# ---- JLCPCB assembly rules (support.jlcpcb.com/article/83-smt-assembly-faqs, "What does your
# quoted price include?", read through the reference library on PRICED_ON) and the extended-part
# feeder fee (a third-party summary gives US$1.50-3.00 per unique extended part: 3.00 used).
ASSEMBLY = {
    "setup_usd": 8.00,            # per order (design)
    "stencil_usd": 1.50,          # per order
    "smt_joint_usd": 0.0017,      # per SMT joint
    "manual_fee_usd": 3.50,       # hand-soldering labour, per order with through-hole parts
    "manual_joint_usd": 0.0173,   # per hand-soldered joint
    "extended_part_usd": 3.00,    # per unique "extended" part per order
}
ASSEMBLY_SOURCE = ("JLCPCB assembly FAQ (support.jlcpcb.com/article/83-smt-assembly-faqs): setup "
                   "US$8.00, stencil US$1.50, SMT US$0.0017 per joint, hand-soldering US$3.50 + "
                   "US$0.0173 per joint; extended-part loading fee US$3.00 per unique part (upper "
                   "end of the US$1.50-3.00 a third-party summary gives)")

# Bare 2-layer FR-4 1.6 mm HASL boards. No JLCPCB price table was available: an ESTIMATE of
# their calculator for boards over 100 x 100 mm, US$4 + US$0.008 per cm2 ordered.
PCB_BASE_USD = 4.00
PCB_USD_PER_CM2 = 0.008
SHIPPING = [  # (ref, what, US$, basis)
    ("SH1", "JLCPCB boards, economy/global standard shipping, one parcel", 15.00, "estimate"),
    ("SH2", "Raspberry Pi reseller shipping (controller)", 5.00, "estimate"),
    ("SH3", "AliExpress parcels (modules, cables, magnets, feet, OTG)", 3.00, "estimate"),
]

# ---- parts JLCPCB places on each board -------------------------------------------------------
# The boards are the source: which parts (manufacturer and LCSC numbers, build_pcb.PARTS) and how
# many of each a board carries (its generated JLCPCB BOM, hardware/pcb/<board>_bom.csv). Here only
# what the boards do not say: the line's words, the price, JLCPCB's library class, the joints per
# part and whether it is hand-soldered. "led" and "r150" are the guidance lights, not on the
# generated boards yet: counted by `LIGHTS_PER_BOARD` and numbered here.
# key: (item, unit US$ at the quantity ordered, basis, "basic"/"extended", joints per part, through-hole)
ONBOARD_PRICES = {
    "hall": ("Omnipolar micropower Hall switch, open drain, SC59", 0.12, "estimate", "extended", 3, False),
    "r10k": ("10 kOhm 1 % 0603 (input pull-ups, CLK/LOAD pull-ups, SER pull-down)", 0.001, "estimate",
             "basic", 2, False),
    "r100": ("100 Ohm 1 % 0603 (series on the re-driven CLK and LOAD and on DATA)", 0.001, "estimate",
             "basic", 2, False),
    "c100n": ("100 nF 50 V X7R 0603", 0.002, "estimate", "basic", 2, False),
    "c10u": ("10 uF 25 V X5R 0805 (bulk, per board)", 0.006, "estimate", "basic", 2, False),
    "reg": ("8-bit parallel-in shift register, SOIC-16", 0.13, "estimate", "extended", 16, False),
    "buf": ("Dual Schmitt-trigger buffer for CLK and LOAD, SOT-23-6", 0.10, "estimate", "extended", 6, False),
    "conn": ("JST XH 9-pin header, right angle (chain UP and DOWN)", 0.10, "estimate", "extended", 9, True),
}
LIGHT_PARTS = {  # key: (item, manufacturer part, LCSC part, unit US$, basis, class, joints, through-hole)
    "led": ("Guidance light: LED 0603 red", "Hubei KENTO KT-0603R", "C2286",
            0.005, "estimate", "basic", 2, False),
    "r150": ("150 Ohm 1 % 0603 (light ROW resistors: (5 V - 2.0 V LED - ~0.6 V) / 150 Ohm = 16 mA "
             "peak)", "UNI-ROYAL 0603WAF1500T5E", "C22808", 0.001, "estimate", "basic", 2, False),
}


HERE = os.path.dirname(os.path.abspath(__file__))


def _pcb_parts():
    """build_pcb.PARTS, loaded by path (the tools are run and tested without being a package;
    build_pcb imports KiCad's pcbnew only when it builds a board)."""
    spec = importlib.util.spec_from_file_location("_bom_build_pcb", os.path.join(HERE, "build_pcb.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.PARTS


PCB_PARTS = _pcb_parts()


# LCSC numbers the boards leave empty (build_pcb could not confirm them): candidates, shown as
# unconfirmed; match them in JLCPCB's BOM tool before ordering
LCSC_UNCONFIRMED = {"hall": "C132217", "conn": "C157935"}


def _onboard():
    """key -> (item, manufacturer part, LCSC part or "", unit, basis, class, joints, through-hole)."""
    out = dict(LIGHT_PARTS)
    for key, (item, unit, basis, cls, joints, tht) in ONBOARD_PRICES.items():
        mpn, lcsc = PCB_PARTS[key][3], PCB_PARTS[key][4]
        if not lcsc and key in LCSC_UNCONFIRMED:
            lcsc = LCSC_UNCONFIRMED[key] + " unconfirmed"
        out[key] = (item, mpn, lcsc, unit, basis, cls, joints, tht)
    return out


ONBOARD = _onboard()


def board_parts(board):
    """key -> how many a generated board carries (hardware/pcb/<board>_bom.csv, by manufacturer
    part). The aspect strips take the same full population (one assembly order, see above)."""
    key_of = {PCB_PARTS[k][3]: k for k in ONBOARD_PRICES}
    path = os.path.join(os.path.dirname(HERE), "pcb", board + "_bom.csv")
    with open(path, newline="") as f:
        return {key_of[r["Manufacturer Part"]]: int(r["Quantity"]) for r in csv.DictReader(f)}


def onboard_per_board(board, positions, registers):
    """Parts per board of a design: what the generated board carries, and the guidance lights
    (a light per sensed position, one 150 Ohm ROW resistor per register: the HT16K33s run from
    5 V) that the boards do not carry yet."""
    per = board_parts(board)
    per.update(led=positions, r150=registers)
    return per


# ---- what the maker buys elsewhere ----------------------------------------------------------
# ref, category, item, manufacturer / part, shop and its part, unit US$, basis, qty(c), notes
def _magnet_packs(c):
    return int(math.ceil((c["tokens"] + 10) / 100.0))


MAKER = [
    ("MCU1", "controller", "Raspberry Pi Pico H (RP2040, headers fitted)", "Raspberry Pi SC0917",
     "The Pi Hut / any Raspberry Pi approved reseller", 5.00, "estimate", lambda c: 1,
     "profile firmware/profiles/pico.json; ESP32-DevKitC alternative: note A"),
    ("U3", "lights", "LED matrix driver, 16 x 8, I2C, SOP-28, VDD 4.5-5.5 V (from USB 5 V)",
     "Holtek HT16K33 (28SOP)", "LCSC (part number: search 'HT16K33 28SOP')", 0.60, "estimate",
     lambda c: c["light_chips"], "by board (firmware/ht16k33.py chip_starts): one for the track "
     "boards on the controller side, one on each resource board; placed where the PCB generator "
     "puts the lights' ROW/COM lines"),
    ("C3", "lights", "10 uF 25 V X5R 0805 + 100 nF 0603 at each HT16K33's VDD",
     "Samsung CL21A106KAYNNNE + CL10B104KB8NNNC", "LCSC C15850 + C1591", 0.05, "estimate",
     lambda c: c["light_chips"], "per HT16K33; LCSC sells them in packs of 20-100, the rest are "
     "spares"),
    ("U4", "lights", "I2C level shifter 3.3 V <-> 5 V for the lights bus, PCA9306 module with "
     "pull-ups on both sides", "TI PCA9306DCUR (LCSC C33196) on a generic breakout", "AliExpress",
     0.90, "estimate", lambda c: 1 if c["light_chips"] else 0,
     "on the controller carrier: MCU side to I2C bus 0 (3.3 V), chip side to the HT16K33s (5 V)"),
    ("S1", "wells", "TCS34725 colour sensor module with white LED and LED-control pin",
     "generic 'TCS34725 module' (CJMCU-34725 layout)", "AliExpress", 2.50, "estimate",
     lambda c: c["wells"], "Adafruit 1334 (US$7.95, prior) is the known-good alternative"),
    ("J2", "controller", "JST XH 9-pin header, vertical, for the controller carrier",
     "JST B9B-XH-A(LF)(SN)", "LCSC (search B9B-XH-A)", 0.15, "estimate", lambda c: 1,
     "the carrier's chain connector"),
    ("K1", "controller", "Perfboard 50 x 70 mm + 2 x 20-pin female headers 2.54 mm",
     "generic", "AliExpress", 1.50, "estimate", lambda c: 1,
     "controller carrier: Pico socket, chain connector, well leads, REPL jumper"),
    ("K4", "controller", "2-pin header + jumper (REPL-at-boot), 10 kOhm + 10 uF for the carrier",
     "generic", "AliExpress", 0.30, "estimate", lambda c: 1, "MISO pull-down, bulk capacitor"),
    ("W1", "cable", "JST XH 9-pin cable 300 mm, both ends crimped, pin 1 to pin 1",
     "generic", "AliExpress", 0.60, "estimate", lambda c: c["boards"],
     "controller -> first board, board -> board"),
    ("W2", "cable", "Dupont jumper wires female-female 200 mm, 40-pack", "generic", "AliExpress",
     2.00, "estimate", lambda c: 1, "6 wires per well: 5V, GND, SDA, SCL, LED, spare"),
    ("K3", "controller", "USB cable micro-B to USB-A, 1 m, data", "generic", "AliExpress", 1.50,
     "estimate", lambda c: 1, "board to the tablet through the OTG adapter"),
    ("K5", "controller", "USB OTG adapter, USB-C plug to USB-A socket", "generic", "AliExpress",
     1.50, "estimate", lambda c: 1, "a tablet with a micro-B port needs the micro-B version"),
    ("F1", "case", "Self-adhesive silicone bumper feet 12 x 3 mm, 100-pack", "generic",
     "AliExpress", 3.00, "estimate", lambda c: 1, "4 under every board"),
    ("M1", "token", "NdFeB N35 disc magnet 3 x 1 mm, axially magnetised, 100-pack", "generic",
     "AliExpress", 3.00, "estimate", _magnet_packs,
     "one glued under each token (design.MAGNET; field figures in docs/bringup.md)"),
    ("T1", "token", "Tokens: the game's own cubes, a magnet glued under each", "-", "-", 0.00,
     "estimate", lambda c: c["tokens"], "10 mm wooden cubes (~US$3 for 50) to keep the originals"),
    ("D1", "wells", lambda: die_item(), "generic", "AliExpress", 0.40,
     "estimate", lambda c: c["wells"] + 1, "two for the wells + one spare"),
    ("L1", "wells", "Matte white sticker paper A4 (colour print of artwork/dice_face_marks.svg)",
     "Avery L7871-class", "any stationer", 0.50, "estimate", lambda c: 1, "six marks per die"),
]


def well_material_item():
    """The well material line, from the design's dimensions (one place: tools/design.py)."""
    import design
    return ("Foam board %g mm, A4 + clear PET %g mm offcut (dice wells, template "
            "artwork/dice_well_template.svg)" % (design.WALL_T, design.PET_T))


def die_item():
    import design
    return "%g mm six-sided die, white, rounded corners (the wells are sized for it)" % design.DIE_SIZE


MAKER_WELLS = ("K2", "wells", "generic", "any stationer", 1.50, "estimate", lambda c: 1,
               "floor, walls and roof of both wells")

NOTES = {
    "A": "ESP32 build: replace MCU1 by Espressif ESP32-DevKitC-32E (~US$10.00, estimate) and add "
         "a 3 mm LED + 1 kOhm on GPIO32 (~US$0.05); USB cable micro-B.",
    "B": "The through-hole / perfboard build is dropped: the fab boards arrive with every switch, "
         "register and light soldered, so hand-wiring about 4,000 joints buys nothing. (Had it "
         "stayed: the AH1807's SIP-3L pinout is 1 VDD, 2 GND, 3 OUTPUT, not the SC59 order, and "
         "its marked face must face the token.)",
}
