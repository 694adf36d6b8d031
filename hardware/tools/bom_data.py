"""Bill-of-materials data: parts, prices, and the rule giving each quantity.

Prices are US$ estimates for the quantity bought (small-batch distributor / marketplace
prices as known to the authors, NOT checked against a live quote; see hardware/bom.md).
A quantity rule is a function of the build counts `c` (see build_docs.counts()).
Variant tags: "pcb" rows go into the fab-PCB builds, "perf" rows into the perfboard build,
"both" into all.  Rows with per_lot=True have a lot price (qty = number of lots).
"""
import math


def spares(n, pct=3, minimum=2):
    return n + max(minimum, int(math.ceil(n * pct / 100.0)))


ROWS = [
    # ref, category, item, manufacturer, mpn, variant, unit_usd, qty(c), notes
    ("MCU1", "controller", "Raspberry Pi Pico (RP2040, non-W)", "Raspberry Pi Ltd", "SC0915", "both", 4.00,
     lambda c: 1, "profile firmware/profiles/pico.json; ESP32-DevKitC alternative see note A"),
    ("U1", "sensor", "Omnipolar micropower Hall switch, open-drain, SC59 (SOT-23 footprint)", "Diodes Inc.",
     "AH1807-W-7", "pcb", 0.12, lambda c: spares(c["sensors"]), "medium sensitivity, 2.5-5.5 V; one per printed space"),
    ("U1P", "sensor", "Omnipolar micropower Hall switch, open-drain, SIP-3L through-hole", "Diodes Inc.",
     "AH1807-P-B", "perf", 0.14, lambda c: spares(c["sensors"]), "perfboard build"),
    ("U2", "logic", "8-bit parallel-in shift register 74HC165, SOIC-16", "Nexperia", "74HC165D,653", "pcb", 0.14,
     lambda c: c["registers"] + 1, "one per 8 inputs, +1 spare"),
    ("U2P", "logic", "8-bit parallel-in shift register 74HC165, DIP-16", "Texas Instruments", "SN74HC165N", "perf", 0.45,
     lambda c: c["registers"] + 1, "perfboard build"),
    ("R1", "passive", "10 kOhm 1% 0603 (input pull-ups, SER pull-down)", "UNI-ROYAL", "0603WAF1002T5E", "pcb", 0.002,
     lambda c: c["registers"] * 8 + c["boards"], "one pull-up per register input (spares too) + one tail pull-down per board"),
    ("R1P", "passive", "10 kOhm 1/8 W carbon film, axial", "Yageo", "CFR-12JB-52-10K", "perf", 0.01,
     lambda c: c["registers"] * 8 + c["boards"], "perfboard build"),
    ("C1", "passive", "100 nF 50 V X7R 0603", "Samsung", "CL10B104KB8NNNC", "pcb", 0.003,
     lambda c: c["registers"] + c["boards"], "one at each 74HC165 + one at each board's UP connector"),
    ("C1P", "passive", "100 nF 50 V X7R radial 2.54 mm", "KEMET", "C320C104K5R5TA", "perf", 0.08,
     lambda c: c["registers"] + c["boards"], "perfboard build"),
    ("C2", "passive", "10 uF 10 V X5R 0805 (bulk, per board)", "Samsung", "CL21A106KPFNNNE", "pcb", 0.01,
     lambda c: c["boards"] + 1, "+1 on the controller carrier"),
    ("C2P", "passive", "10 uF 16 V electrolytic radial", "Panasonic", "ECA-1CM100", "perf", 0.06,
     lambda c: c["boards"] + 1, "perfboard build"),
    ("R2", "passive", "100 Ohm 1/4 W axial (series in SCK and LOAD at the controller)", "Yageo", "CFR-25JB-52-100R", "both", 0.02,
     lambda c: 2, "damps ringing on the chain cable"),
    ("R3", "passive", "10 kOhm 1/4 W axial (MISO pull-down at the controller)", "Yageo", "CFR-25JB-52-10K", "both", 0.02,
     lambda c: 1, "no board plugged in -> chain reads 0x00, self-test reports found = 0"),
    ("J1", "connector", "JST XH 6-pin header, 2.5 mm, vertical", "JST", "B6B-XH-A(LF)(SN)", "both", 0.10,
     lambda c: 2 * c["boards"] + 1, "UP + DOWN on each board, one on the controller"),
    ("W1", "cable", "6-pin JST XH cable, 300 mm, both ends crimped, straight-through", "generic", "XH2.54-6P-300mm-DE", "both", 0.40,
     lambda c: c["boards"], "controller->first board, board->board"),
    ("S1", "sensor", "TCS34725 RGB colour sensor breakout with white LED, 3.3 V", "generic (Adafruit 1334 = known-good alt.)",
     "TCS34725 module (Adafruit 1334)", "both", 3.00, lambda c: c["wells"], "Adafruit 1334 is US$7.95: +US$9.90 for two"),
    ("W2", "cable", "Dupont jumper wires female-female 200 mm, 40-pack", "generic", "DUPONT-FF-200-40", "both", 2.00,
     lambda c: 1, "4 wires per well (3V3, GND, SDA, SCL)"),
    ("K1", "controller", "Perfboard 70x90 mm + 2x 20-pin female header 2.54 mm (controller carrier)", "generic", "PERF-7x9 + HDR-1x20-F", "both", 1.20,
     lambda c: 1, "Pico socket, chain connector, well wires, REPL jumper"),
    ("J2", "connector", "2-pin header + jumper (REPL-at-boot)", "generic", "HDR-1x2-M + jumper", "both", 0.10,
     lambda c: 1, "fit the jumper to stay in the REPL at boot"),
    ("P1", "pcb", "Track board PCB, 2-layer 1.6 mm, 178 x 64 mm, lot of 10", "JLCPCB/PCBWay class fab", "hardware: track_board", "pcb", 18.00,
     lambda c: 1 if c["track_boards"] else 0, "8 used (4 development + 4 aspect), 2 spare; estimate"),
    ("P2", "pcb", "Resource board PCB, 2-layer 1.6 mm, 226 x 122 mm, lot of 5", "JLCPCB/PCBWay class fab", "hardware: resource_board", "pcb", 24.00,
     lambda c: 1 if c["resource_boards"] else 0, "2 used, 3 spare; estimate"),
    ("P3", "pcb", "PCB shipping, economy", "fab", "-", "pcb", 10.00, lambda c: 1, "estimate"),
    ("PB1", "pcb", "Perfboard double-sided 90 x 150 mm", "generic", "PERF-9x15-DS", "perf", 0.80,
     lambda c: c["track_boards"], "one per track strip"),
    ("PB2", "pcb", "Perfboard double-sided 120 x 180 mm", "generic", "PERF-12x18-DS", "perf", 1.50,
     lambda c: 2 * c["resource_boards"], "two halves (3 lanes each) per resource board"),
    ("PB3", "cable", "Hook-up wire 30 AWG wire-wrap, 3 colours", "generic", "KYNAR-30AWG-3x", "perf", 4.00,
     lambda c: 1, "perfboard build"),
    ("M1", "token", "NdFeB N35 disc magnet 5 x 2 mm, axially magnetised, 50-pack", "generic", "N35-D5x2-50", "both", 4.00,
     lambda c: 1 if c["tokens"] <= 45 else 2, "one glued under each token; either pole works (omnipolar)"),
    ("T1", "token", "Tokens: the game's own stat and resource cubes, magnet glued under each", "-", "-", "both", 0.00,
     lambda c: c["tokens"], "10 mm wooden cubes (50-pack ~US$3) if the originals must stay untouched"),
    ("D1", "dice", "16 mm six-sided die, white, rounded corners", "Koplow or generic", "16mm-D6-white", "both", 0.40,
     lambda c: c["wells"] + 1, "two for the wells + one spare; keeps the game's own dice unmarked"),
    ("L1", "dice", "Matte white sticker paper A4 (one sheet), colour print of artwork/dice_face_marks.svg", "Avery or generic", "L7871-class", "both", 0.50,
     lambda c: 1, "six colour marks per die"),
    ("K2", "wells", "Foam board 5 mm A4 + clear PET 0.3-0.5 mm (packaging offcut) for the well floors", "generic", "FOAMBOARD-A4", "both", 1.50,
     lambda c: 1, "template artwork/dice_well_template.svg"),
    ("K3", "controller", "USB cable, micro-B to USB-A or C, 1 m", "generic", "USB-MICRO-1M", "both", 2.00,
     lambda c: 1, "data-capable cable"),
]

NOTES = {
    "A": "ESP32 build: replace MCU1 by Espressif ESP32-DevKitC-32E (~US$10.00; CP210x clones ~US$5) "
         "and add a 3 mm LED + 1 kOhm on GPIO32 (~US$0.05); USB cable micro-B.",
}

BUDGET_USD = 100.0
