"""Bill-of-materials data: parts, where to order them, prices, JLCPCB's price rules.

Every total in hardware/bom.md and bom.csv is computed by build_docs.py from these lines and the
sensor maps; nothing here is a total. Each price says what it rests on (`basis`):

  "rule"       JLCPCB's published assembly price rules (ASSEMBLY below, with where they are from)
  "listed"     the price listed in a cited parts library snapshot (sourced, not a live quote)
  "estimate"   the authors' estimate of the shop's price at the quantity bought: NOT a quote
  "prior"      carried from the earlier BOM, not re-checked

PRICED_ON is the date the estimates were last reviewed. The reference library had JLCPCB's
assembly FAQ but no live price list, so no part price could be looked up: re-price every
"estimate" line in the shop's cart before ordering (bom.md says so).

Boards: one board design, the strip board, for every strip; every board fully populated, so the
whole set is one JLCPCB order (one setup fee, one stencil, one loading fee per extended part).
Every part on the underside, placed by JLCPCB from its own stock (every LCSC number confirmed
from a named source); the two 9-pin chain connectors are
soldered by the maker (through-hole, thermal-relief pads). The guidance lights are board parts
like any other (one 74HC595 per 74HC165 on the same chain, a reverse-mount LED and a 470 Ohm
resistor at every spot, a 74LVC1G14 clock inverter and a lock-up flip-flop per board). The spots
no lane uses get their switch and light too: a second population would be a second order.
"""
import csv
import importlib.util
import math
import os

PRICED_ON = "2026-11-26"
FOOT_MM = 10.0      # the boards' feet (BOM F1; design.FOOT_H_MM, the tests hold them equal)
FOOT_MIN_MM = 8.0   # what the chain connector and its plug need under the board (pcb.md)
BUDGET_USD = 150.0   # the full set with lights (issue 32; landed: KIT_GOALS)

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
# ---- landed cost (issue 32): what the order really costs at the door, per kit
# JLCPCB bills each part line for at least MOQ_PARTS pieces plus ATTRITION spares (a maker's
# report of his order, hackaday.io/page/11900 "Costing assembly service for my PCB": "a minimum
# charge of quantity 20 for each part with headroom of 5 for wastage"; JLCPCB's parts library
# gives each part's own MOQ and attrition, jlc3dp.com/help/answers/detail/92).
MOQ_PARTS = 20
ATTRITION = 5
MOQ_SOURCE = ("hackaday.io/page/11900 (a maker's JLCPCB order: at least 20 of each part line, "
              "5 more for wastage); JLCPCB's parts library states each part's MOQ and attrition")
SPARE_RATE = 0.10        # spares of the maker's own small parts (cables, wires, dice, feet): estimate
TAX_RATE = 0.20          # import VAT / duty on goods + shipping: estimate (EU/UK VAT ~20 %; US
                         # tariffs and de-minimis rules vary): check your country's rules
KIT_GOALS = {"dice": 30.0, "full": 150.0}   # landed, US$ (issue 32)
# The cheapest hall switch seen listed (tscircuit/jlcsearch docs/generated/magnetic_sensors.md, "Hall
# Switches": HAL2041SO, SOT-23, LCSC 22400320, min_q_price US$0.0458): only a lead for the goal
# section's what-if; its operate/release points were not read, so it is not on the board.
HALL_LEAD = ("HAL2041SO, LCSC C22400320, US$0.046 in tscircuit/jlcsearch docs/generated/magnetic_sensors.md",
             0.046)
# Every shop a line names has its own shipping line (tests/hardware/test_bom.py checks it): (ref, what,
# US$, basis, the words of the shops it covers as the lines name them). The default path is one
# parcel per shop: the Pico comes in the modules' AliExpress parcel (the dice kit's one-shop path).
SHIPPING = [
    ("SH1", "JLCPCB boards, economy/global standard shipping, one parcel", 15.00, "estimate", ("JLCPCB",)),
    ("SH3", "AliExpress parcel (controller, modules, cables, magnets, feet, OTG)", 3.00, "estimate",
     ("AliExpress",)),
    ("SH4", "LCSC parcel (the JST chain connectors for the boards and the carrier)", 5.00, "estimate",
     ("LCSC",)),
    ("SH5", "local stationer (foam board, sticker paper): bought in person", 0.00, "estimate",
     ("any stationer",)),
]
SHIP_FREE_SHOPS = ("-",)     # the game's own tokens: nothing bought

# ---- the floor (issue 40): the same sensing, the cheapest credible parts, one order ---------------
# What the full set would land at with the cheapest part seen listed for each board line (a bound: the
# switch's magnetic figures and the LED's mounting are not checked), the same boards, fees and maker's
# lines, one fab parcel and one AliExpress parcel. key: (unit US$, JLCPCB class, basis, source)
FLOOR_PARTS = {
    "hall": (0.046, "extended", "listed", "HAL2041SO (SOT-23 hall switch), LCSC C22400320, min_q_price "
             "US$0.0458 in tscircuit/jlcsearch docs/generated/magnetic_sensors.md; operate and release "
             "points not checked against the token's field"),
    "led": (0.0051, "basic", "listed", "KT-0603R red 0603 LED, LCSC C2286, min_q_price US$0.0051 in "
            "tscircuit/jlcsearch docs/generated/ledphotoelectric_devices.md (3.2 million in stock; its basic "
            "class is an estimate); a top-mount LED: a bound, not a drop-in for the reverse-mount one"),
    "sr": (0.094, "basic", "listed", "74HC595D,118 (C5947) min_q_price US$0.094 in tscircuit/jlcsearch "
           "docs/generated/logic_ics.md"),
    "inv": (0.036, "extended", "listed", "SN74LVC1G14DBVR (C434069) min_q_price US$0.036 in tscircuit/jlcsearch "
            "docs/generated/logic.md"),
    "conn": (0.08, "maker", "estimate", "a JST-XH-compatible 9-pin right-angle header from an AliExpress "
             "pack (estimate), in the AliExpress parcel"),
}
FLOOR_SHIPPING = ("SH1", "SH3")   # one fab parcel, one AliExpress parcel (connectors and Pico in it)
FLOOR_MARGIN = 0.15               # issue 40: the full set with lights within 15 % of its floor

# ---- parts JLCPCB places on each board -------------------------------------------------------
# The boards are the source: which parts (manufacturer and LCSC numbers, build_pcb.PARTS) and how
# many of each a board carries (its generated JLCPCB BOM, hardware/pcb/<board>_bom.csv). Here only
# what the boards do not say: the line's words, the price, JLCPCB's library class, the joints per
# part and whether it is hand-soldered. Every kind of part the boards carry needs a line here
# (board_parts refuses an unknown part).
# key: (item, unit US$ at the quantity ordered, basis, "basic"/"extended", joints per part, through-hole)
ONBOARD_PRICES = {
    "hall": ("Omnipolar micropower Hall switch, open drain, SC59", 0.27, "listed", "extended", 3, False),
    "r10k": ("10 kOhm 1 % 0603 (input pull-ups, CLK/LOAD pull-ups, SER and LIGHT_IN pull-downs)", 0.001,
             "estimate", "basic", 2, False),
    "r100": ("100 Ohm 1 % 0603 (series on the re-driven CLK and LOAD, on DATA and on LIGHT_OUT)", 0.001,
             "estimate", "basic", 2, False),
    "c100n": ("100 nF 50 V X7R 0603", 0.002, "estimate", "basic", 2, False),
    "c10u": ("10 uF 25 V X5R 0805 (bulk, per board)", 0.006, "estimate", "basic", 2, False),
    "reg": ("8-bit parallel-in shift register (74HC165), SOIC-16", 0.232, "listed", "preferred", 16, False),
    "buf": ("Dual Schmitt-trigger buffer for CLK and LOAD, SOT-23-6", 0.10, "estimate", "extended", 6, False),
    "conn": ("JST XH 9-pin header, right angle (chain UP and DOWN), soldered by the maker", 0.45, "estimate",
             "maker", 9, True),
    # the guidance lights (docs/pcb.md, "Guidance lights"): a 74HC595 beside every 74HC165, an LED and its
    # resistor at every sensed position, the inverted clock for the 595s
    "sr": ("Guidance lights: 8-bit shift register with output latches (74HC595), SOIC-16", 0.254,
           "listed", "basic", 16, False),
    "inv": ("Guidance lights: single Schmitt inverter (74LVC1G14), two per board: the 74HC595 clock and "
            "the lock-up flip-flop's input, SOT-23-5", 0.04, "estimate", "extended", 5, False),
    "led": ("Guidance light: red LED 1206, reverse mount (shines up through the board)", 0.12,
            "estimate", "extended", 2, False),
    "r470": ("470 Ohm 1 % 0603 (guidance light series resistor: ~2.6 mA from 3V3)", 0.001, "estimate",
             "basic", 2, False),
    "ff": ("Guidance lights: D flip-flop with inverted output (74LVC1G80), lock-up stage before "
           "LIGHT_OUT, SOT-23-5", 0.088, "listed", "extended", 5, False),
}
# Where the two prices the issue-40 review questioned rest (bom.md, "Where the prices come from"):
PRICE_NOTES = {
    "hall": ("US$0.27: no listing of the AH1806-W-7 itself was readable; its SC-59 sibling from the same "
             "maker, the AH1911-W-7 (LCSC C5246112), is listed at min_q_price US$0.2696 in tscircuit/"
             "jlcsearch docs/generated/magnetic_sensors.md (\"Hall Switches\"), and the AH1806 is priced "
             "like it (the 0.12 used before had no source)"),
    "conn": ("US$0.45: no listing of the JST S9B-XH-A(LF)(SN) was readable; its 5-way sibling, the "
             "right-angle S5B-XH, is listed at GBP 0.234 a piece (about US$0.30) on a public project page "
             "(less-smog/ESP8266-AirQuality wiki, 'Nova Fitness SDS011'), and the issue-40 review puts the "
             "9-way at US$0.30-0.60 at a distributor: the middle is used (the 0.15 used before was a "
             "guess), the one price to check in the cart"),
}
# Classes: "basic" and "preferred" parts carry no loading fee at JLCPCB; "extended" and "global"
# (bought through JLCPCB's global sourcing, then placed like an extended part) one fee per order
# each; "maker": not placed by the fab (the maker solders it: no JLCPCB fee, bought separately).
FEE_CLASSES = ("extended", "global")
# Classes: "basic" where the part's JLCPCB class was read (CDFER/JLCPCB-Kicad-Library, property
# "Class": C5947, C22775, C23179, C25804, C15850 "Basic Component"; C5613 "Preferred Component":
# no loading fee (one other public BOM, checked 2026-09-29, lists C5613 as Extended: if the BOM
# tool says so, add US$3.00); the AH1806's source says not basic); the rest "extended" as the
# conservative guess (one loading fee each).
# Prices: "listed" = the library's listed price as the issue-32 review read it (74HC165D,653
# US$0.232, 74HC595D,118 US$0.254) or, for the 74LVC1G80GV,125, tscircuit/jlcsearch's min_q_price
# (US$0.0878, logic_ics.md "Flip Flops"); the rest estimates. Snapshots seen in the sources (not
# quotes): tscircuit/jlcsearch min_q_price 74HC595D,118 US$0.094, SN74LVC1G14DBVR US$0.036; one
# public BOM lists LTST-C230KRKT at US$0.25 a piece at Digi-Key (160-1457-1-ND).


HERE = os.path.dirname(os.path.abspath(__file__))


def _pcb_parts():
    """build_pcb.PARTS, loaded by path (the tools are run and tested without being a package;
    build_pcb imports KiCad's pcbnew only when it builds a board)."""
    spec = importlib.util.spec_from_file_location("_bom_build_pcb", os.path.join(HERE, "build_pcb.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.PARTS


PCB_PARTS = _pcb_parts()


# LCSC numbers confirmed from a public source read through the reference library (the number
# tied to the manufacturer part there; bom.md lists them with these sources). An LCSC
# datasheet file name is <date>_<maker>-<part>_<LCSC number>.pdf: CDFER's library stores it in
# each symbol's "Datasheet" property.
CDFER = "CDFER/JLCPCB-Kicad-Library (commit e37fb96f) symbols/"
JLCSEARCH = "tscircuit/jlcsearch docs/generated/"
LCSC_CONFIRMED = {  # key: (LCSC number, manufacturer part as the source names it, source)
    "hall": ("C126663", "Diodes AH1806-W-7",
             "BerkeleyHCI/PolymorphicBlocks (commit 404c0c2a) edg/parts/MagneticSwitch_Ah1806.py: "
             "part='AH1806-W-7', mfr Diodes Incorporated, lcsc_part 'C126663', not a basic part"),
    "reg": ("C5613", "Nexperia 74HC165D,653",
            CDFER + "JLCPCB-ICs.kicad_sym: LCSC C5613, Part 74HC165D,653, datasheet "
            "..._Nexperia-74HC165D-653_C5613.pdf"),
    "sr": ("C5947", "Nexperia 74HC595D,118",
           JLCSEARCH + "logic_ics.md (Registers: lcsc 5947, Nexperia 74HC595D,118, SOIC-16); "
           + CDFER + "JLCPCB-ICs.kicad_sym: LCSC C5947, class Basic Component"),
    "ff": ("C548432", "Nexperia 74LVC1G80GV,125",
           JLCSEARCH + "logic_ics.md (Flip Flops: lcsc 548432, Nexperia 74LVC1G80GV,125, SOT-753, D-type, "
           "positive edge, inverted output); its pins D 1, CP 2, GND 3, /Q 4, VCC 5 as KiCad's "
           "74xGxx:74LVC1G80 symbol numbers them"),
    "inv": ("C434069", "UMW SN74LVC1G14DBVR",
            JLCSEARCH + "logic_ics.md and logic.md (Inverters: lcsc 434069, UMW SN74LVC1G14DBVR, SOT-23-5)"),
    "r470": ("C23179", "UNI-ROYAL 0603WAF4700T5E",
             CDFER + "JLCPCB-Resistors.kicad_sym: LCSC C23179, Part 0603WAF4700T5E, datasheet "
             "..._UNI-ROYAL-Uniroyal-Elec-0603WAF4700T5E_C23179.pdf"),
    "r10k": ("C25804", "UNI-ROYAL 0603WAF1002T5E",
             JLCSEARCH + "resistors.md (lcsc 25804, UNI-ROYAL 0603WAF1002T5E); " + CDFER
             + "JLCPCB-Resistors.kicad_sym: LCSC C25804"),
    "r100": ("C22775", "UNI-ROYAL 0603WAF1000T5E",
             CDFER + "JLCPCB-Resistors.kicad_sym: LCSC C22775, Part 0603WAF1000T5E"),
    "c100n": ("C1591", "Samsung CL10B104KB8NNNC",
              "oomlout/oomlout_OOMP_parts_V2 CAPC/0603/X/NF100/V50/basic.json: LCSC C1591 = "
              "Samsung CL10B104KB8NNNC"),
    "c10u": ("C15850", "Samsung CL21A106KAYNNNE",
             CDFER + "JLCPCB-Capacitors.kicad_sym: LCSC C15850, Part CL21A106KAYNNNE"),
    "buf": ("C10429", "TI SN74LVC2G17DBVR",
            "two public JLCPCB BOMs found by the code search: a parts table 'SN74LVC2G17DBVR | C10429 | "
            "SN74LVC2G17DBVR | SOT-23-6 | Extended' and a BOM script 'SN74LVC2G17DB': ('C10429', 'Texas "
            "Instruments', 'SN74LVC2G17DBVR')"),
    "led": ("C125107", "Lite-On LTST-C230KRKT",
            "two public designs read through the code search: a KiCad board generator's LCSC table "
            "(\"LTST-C230KRKT\": \"C125107\", 'checked against JLCPCB's parts list') and a board's "
            "component file ('LTST-C230KRKT ... status LED (reverse mount) | C125107 | ext'); a third, "
            "a 'suggested' table, gives C125107 to LTST-C150TBKT: check it in the BOM tool"),
}
LCSC_UNCONFIRMED = {}
# No LCSC number confirmed: these reach the board another way (build_pcb.SOURCING), with the
# number that route needs, read from a named source.
LCSC_CHOOSE = {"conn": "LCSC number not confirmed: the maker buys JST S9B-XH-A(LF)(SN) (LCSC, or any JST "
                       "distributor) and solders it"}


def lcsc_of(key):
    """The LCSC words of a board part: the confirmed number, a candidate marked unconfirmed, or
    what to do. The board's own number (build_pcb.PARTS) must agree with a confirmed one."""
    board = PCB_PARTS[key][4]
    if key in LCSC_CONFIRMED:
        num = LCSC_CONFIRMED[key][0]
        if board and board != num:
            raise ValueError("%s: the boards say LCSC %s, the confirmed number is %s" % (key, board, num))
        return num
    cand = board or LCSC_UNCONFIRMED.get(key, "")
    if cand:
        return cand + " unconfirmed"
    if key not in LCSC_CHOOSE:
        raise ValueError("%s: no LCSC number and no other route (LCSC_CHOOSE)" % key)
    return LCSC_CHOOSE[key]


def _onboard():
    """key -> (item, manufacturer part, LCSC words, unit, basis, class, joints, through-hole)."""
    out = {}
    for key, (item, unit, basis, cls, joints, tht) in ONBOARD_PRICES.items():
        if key in PCB_PARTS:  # a kind the boards do not have (any more) is not ordered
            out[key] = (item, PCB_PARTS[key][3], lcsc_of(key), unit, basis, cls, joints, tht)
    return out


ONBOARD = _onboard()


def board_parts(board):
    """key -> how many a generated board carries (hardware/pcb/<board>_bom.csv, by manufacturer
    part). The aspect strips take the same full population (one assembly order, see above)."""
    key_of = {PCB_PARTS[k][3]: k for k in ONBOARD_PRICES if k in PCB_PARTS}
    path = os.path.join(os.path.dirname(HERE), "pcb", board + "_bom.csv")
    with open(path, newline="") as f:
        out = {}
        for r in csv.DictReader(f):
            if r["Manufacturer Part"] not in key_of:
                raise KeyError("%s: board part %r has no BOM line (bom_data.ONBOARD_PRICES)"
                               % (path, r["Manufacturer Part"]))
            out[key_of[r["Manufacturer Part"]]] = int(r["Quantity"])
        return out


def onboard_per_board(board):
    """Parts per board of a design: what the generated board carries (lights included)."""
    return board_parts(board)


# ---- what the maker buys elsewhere ----------------------------------------------------------
# ref, category, item, manufacturer / part, shop and its part, unit US$, basis, qty(c), notes
def _magnet_packs(c):
    return int(math.ceil((c["tokens"] + 10) / 100.0))


MAKER = [
    ("MCU1", "controller", "Raspberry Pi Pico H (RP2040, headers fitted)", "Raspberry Pi SC0917",
     "AliExpress (in the modules' parcel)", 5.00, "estimate", lambda c: 1,
     "profile firmware/profiles/pico.json; from a Raspberry Pi approved reseller instead add its "
     "shipping (~US$5, estimate); ESP32-DevKitC alternative: note A"),
    ("S1", "wells", "TCS34725 colour sensor module with white LED and LED-control pin",
     "generic 'TCS34725 module' (CJMCU-34725 layout)", "AliExpress", 2.50, "estimate",
     lambda c: c["wells"], "Adafruit 1334 (US$7.95, prior) is the known-good alternative"),
    ("J2", "controller", "JST XH 9-pin header, vertical, for the controller carrier",
     "JST B9B-XH-A(LF)(SN)", "LCSC (search B9B-XH-A)", 0.15, "estimate", lambda c: 1,
     "the carrier's chain connector"),
    ("K1", "controller", "Perfboard 50 x 70 mm + 2 x 20-pin female headers 2.54 mm",
     "generic", "AliExpress", 1.50, "estimate", lambda c: 1,
     "controller carrier: Pico socket, chain connector, well leads, REPL jumper"),
    ("K4", "controller", "2-pin header + jumper (REPL-at-boot), 10 kOhm + 10 uF + 3 x 100 Ohm for "
     "the carrier", "generic", "AliExpress", 0.30, "estimate", lambda c: 1,
     "MISO pull-down, bulk capacitor, series resistors on SCK, LOAD and MOSI (LIGHT)"),
    ("W2", "cable", "Dupont jumper wires female-female 200 mm, 40-pack", "generic", "AliExpress",
     2.00, "estimate", lambda c: 1, "6 wires per well: 5V, GND, SDA, SCL, LED, spare"),
    ("K3", "controller", "USB cable micro-B to USB-A, 1 m, data", "generic", "AliExpress", 1.50,
     "estimate", lambda c: 1, "board to the tablet through the OTG adapter"),
    ("K5", "controller", "USB OTG adapter, USB-C plug to USB-A socket", "generic", "AliExpress",
     1.50, "estimate", lambda c: 1, "a tablet with a micro-B port needs the micro-B version"),
    ("F1", "case", lambda: feet_item(), "generic", "AliExpress", 0.06, "estimate", lambda c: feet_per_board() * c["boards"],
     "on the circles printed under every board (pcb.md, \"Feet and support\"): the chain connector and its "
     "plug hang %g mm under it, so the feet are %g mm" % (FOOT_MIN_MM, FOOT_MM)),
    ("K6", "case", "JST XHP-9 housing without contacts: a cap over the last board's open DOWN connector",
     "JST XHP-9", "AliExpress", 0.05, "estimate", lambda c: 1,
     "the one chain connector no cable covers: its pins stay out of reach (ESD, pcb.md)"),
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


# The chain cables: one per hop of the table layout (design.table_layout, docs/table_layout.md), each
# the shortest stocked length that reaches with the margin. Price: an estimate of a 9-way XH cable
# crimped both ends (AliExpress), a base and a part per metre: US$0.60 at 300 mm as before.
CABLE_BASE_USD, CABLE_USD_PER_M = 0.45, 0.50


def cable_line(length_mm, qty):
    """The BOM line of the chain cables of one length (ref, category, item, part, shop, unit, basis,
    qty, notes)."""
    return ("W1.%d" % length_mm, "cable", "JST XH 9-pin cable %d mm, both ends crimped, pin 1 to pin 1"
            % length_mm, "generic", "AliExpress", round(CABLE_BASE_USD + CABLE_USD_PER_M * length_mm / 1000.0, 2),
            "estimate", qty, "the hops that need it: docs/table_layout.md")


def well_material_item():
    """The well material line, from the design's dimensions (one place: tools/design.py)."""
    import design
    return ("Foam board %g mm, A4 + clear PET %g mm offcut (dice wells, template "
            "artwork/dice_well_template.svg)" % (design.WALL_T, design.PET_T))


def feet_item():
    import design
    return ("Self-adhesive rubber feet (cylinders), %g mm across, %g mm tall, one size for every foot"
            % (design.FOOT_D_MM, design.FOOT_H_MM))


def feet_per_board():
    import design
    return len(design.feet())


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
