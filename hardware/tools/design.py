"""CivMint sensing-board design data: the one place where the physical layout is decided.

Everything in hardware/ that describes sensors (sensor_map*.json, the tables in
hardware/docs/, the SVG artwork, the BOM quantities) is generated from this module by
hardware/tools/build_map.py, build_docs.py and build_art.py.  Change the layout here, run
the three scripts (hardware/README.md), commit the regenerated files.

Decisions (see hardware/README.md "Design decisions"):
- one physical *strip* (a small PCB or perfboard carrying its own 74HC165s) per printed
  track: 4 development strips, 4 aspect strips, 2 resource boards (one per seat);
- development and aspect strips: one register per lane (lane p1 first, then p2); the two
  spare inputs of a 6-space aspect lane are tied to 3V3 (they read 1, "no magnet");
- a resource board packs its 6 lanes x 11 spaces = 66 switches into 9 registers (72 inputs,
  6 spare, tied to 3V3): a lane of 11 does not fit one register and one register per
  11-space lane would cost 3 extra chips per board for nothing;
- chain order (byte 0 = register nearest the MCU): development strips, aspect strips,
  then resource board p1, resource board p2.  A build without resource boards is the same
  chain cut after the aspect strips.
- within a strip, lane L's space i sits on the strip's consecutive inputs in the order
  H, G, F, ... A of register 0, then H.. of register 1 (chain bit index order), so
  bits[i] = strip_first_bit + offset(L) + i.
"""
import os

GAME = "civmint"
SEATS = ["p1", "p2"]

# track id -> (kind, spaces per lane); order = printed/engine order (docs/architecture.md)
DEVELOPMENT = ["government", "economy", "technology", "culture"]
ASPECT = ["population_size", "military_might", "economic_strength", "civilian_happiness"]
RESOURCES = ["food", "wood", "stone", "metal", "money", "combat_power"]
KIND_SPACES = {"development": 8, "aspect": 6, "resource": 11}

TRACKS = []  # list of (track, kind, spaces)
for _kind, _tracks in (("development", DEVELOPMENT), ("aspect", ASPECT), ("resource", RESOURCES)):
    for _t in _tracks:
        TRACKS.append((_t, _kind, KIND_SPACES[_kind]))

# ---- physical geometry (mm) ------------------------------------------------------------
PITCH = 16.0          # centre-to-centre distance of printed spaces (and of hall switches)
SPACE = 14.0          # printed square side (token footprint area)
MARGIN = 8.0          # strip border around the spaces
LABEL_W = 34.0        # left column with the lane label (track name + seat)
TITLE_H = 10.0        # title band at the top of each strip
LANE_GAP = 6.0        # extra gap between lanes of a development/aspect strip

# Resource value labels printed under the spaces; levels for the other kinds
def space_label(kind, i):
    if kind == "resource":
        return str(i)
    return str(i + 1)


# Two PCB designs: the *track board* (2 lanes x 8 positions, 2 x 74HC165) carries a
# development strip, or an aspect strip with positions 7 and 8 of each lane left
# unpopulated (their pull-ups make them read 1); the *resource board* (6 lanes x 11
# positions, 9 x 74HC165) carries one seat's resource card.  Boards and overlays share
# their outline and origin (top-left corner), so the coordinates below are both the
# printed space centres and the hall-switch centres on the board.
BOARD_POSITIONS = {"development": 8, "aspect": 8, "resource": 11}
BOARD_OF_KIND = {"development": "track_board", "aspect": "track_board", "resource": "resource_board"}


def _strip(sid, title, kind, lanes, registers, optional_group=None):
    """lanes: list of (lane_id, track, seat). Geometry: lanes stacked top to bottom."""
    n = KIND_SPACES[kind]
    gap = 0.0 if kind == "resource" else LANE_GAP
    w = MARGIN + LABEL_W + BOARD_POSITIONS[kind] * PITCH + MARGIN
    h = MARGIN + TITLE_H + len(lanes) * PITCH + (len(lanes) - 1) * gap + MARGIN
    lane_geo = []
    for k, (lid, track, seat) in enumerate(lanes):
        x0 = MARGIN + LABEL_W + PITCH / 2.0
        y0 = MARGIN + TITLE_H + k * (PITCH + gap) + PITCH / 2.0
        lane_geo.append({"id": lid, "track": track, "seat": seat, "kind": kind, "spaces": n,
                         "x0": x0, "y0": y0, "dx": PITCH, "dy": 0.0})
    return {"id": sid, "title": title, "kind": kind, "board": BOARD_OF_KIND[kind],
            "w": w, "h": h, "registers": registers,
            "lanes": lane_geo, "optional_group": optional_group}


def strips(include_resources=True):
    """Strips in chain order. Each strip knows its register count; first register is
    assigned in that order."""
    out = []
    for t in DEVELOPMENT:
        out.append(_strip("dev_" + t, t.replace("_", " ").title() + " (development)",
                          "development", [(t + "." + s, t, s) for s in SEATS], 2))
    for t in ASPECT:
        out.append(_strip("aspect_" + t, t.replace("_", " ").title() + " (civilization aspect)",
                          "aspect", [(t + "." + s, t, s) for s in SEATS], 2))
    if include_resources:
        for s in SEATS:
            out.append(_strip("resources_" + s, "Resources " + s, "resource",
                              [(t + "." + s, t, s) for t in RESOURCES], 9, "resources"))
    first = 0
    for st in out:
        st["first_register"] = first
        first += st["registers"]
        base = st["first_register"] * 8
        used = 0
        for k, lane in enumerate(st["lanes"]):
            if st["kind"] == "resource":
                off = used                      # packed
            else:
                off = k * 8                     # one register per lane
            lane["bits"] = [base + off + i for i in range(lane["spaces"])]
            used = off + lane["spaces"]
        all_bits = set(b for lane in st["lanes"] for b in lane["bits"])
        st["spare_bits"] = [b for b in range(base, base + st["registers"] * 8) if b not in all_bits]
    return out


def input_name(bit):
    """Chain bit -> (register index, 74HC165 input letter)."""
    return bit >> 3, "HGFEDCBA"[bit & 7]


# ---- dice wells ------------------------------------------------------------------------
WELLS = [{"id": "well0", "bus": 0}, {"id": "well1", "bus": 1}]
TCS_ADDR = 0x29
TCS_IDS = [0x44, 0x4D]   # ID register 0x12: 0x44 = TCS34721/5, 0x4D = TCS34723/7

# Dice-face colour marks: the sensor under the well sees the BOTTOM face; the firmware
# reports top = 7 - bottom.  Marks are chosen far apart in hue and brightness for a
# TCS34725 lit by its white LED; an empty well reads dark (low clear count), so no
# face is black.
# The printed colours are the one source of the firmware's default centroids: firmware/calib.py
# DEFAULT_FACES are these colours through the optical model of firmware/sim/optics.py (whose
# MARKS must equal them; tests/firmware/test_dice_marks.py checks both and that every printed
# colour classifies as its own face). Magenta is #D70096, close to process magenta (CMYK
# 0/100/30/0), which an inkjet prints as it is; the earlier #C800C8 lies outside what CMYK inks
# print and was never what the centroids were computed from (it read 384 from its centroid,
# the acceptance threshold is 200).
FACE_COLOURS = [
    # value, name, sRGB target
    (1, "red", (220, 30, 40)),
    (2, "yellow", (250, 215, 0)),
    (3, "green", (0, 155, 70)),
    (4, "blue", (25, 70, 200)),
    (5, "magenta", (215, 0, 150)),
    (6, "white", (255, 255, 255)),
]

# Dice well: every dimension here; the template (build_art.py), the BOM line (bom_data.py) and
# the assembly guide's well section (build_docs.py fills it into docs/assembly.md) derive theirs.
DIE_SIZE = 16.0          # mm, standard D6 (the BOM's die)
FACE_MARK = 13.0         # mm square sticker per face
WELL_INNER = 22.0        # mm clear inside of the well: the die lies flat with 3 mm play a side
WELL_WINDOW = 7.0        # mm hole in the well floor over the sensor
WALL_T = 5.0             # mm foam board (floor, walls and roof all from one A4 sheet)
WALL_H = 26.0            # mm side and back walls above the floor; the roof lies on them
FRONT_H = 6.0            # mm front lip: the die is rolled in through the opening above it
FLOOR_RIM = 6.0          # mm of floor outside the walls
PET_T = 0.4              # mm clear PET glued under the window (0.3-0.5)
SENSOR_GAP = (2.0, 4.0)  # mm from the PET to the TCS34725 chip (LED reflection vs. focus)


def well_parts():
    """The hooded well's pieces as (name, count per well, width mm, height mm). The side walls
    run the full outer length and cover the ends of the back wall and the front lip, so the
    clear inside stays WELL_INNER square; the roof (the hood) lies on the side and back walls
    and shades the window from ceiling light; the die goes in through the front opening."""
    outer = WELL_INNER + 2 * WALL_T
    return [
        ("floor", 1, outer + 2 * FLOOR_RIM, outer + 2 * FLOOR_RIM),
        ("side wall", 2, outer, WALL_H),
        ("back wall", 1, WELL_INNER, WALL_H),
        ("front lip", 1, WELL_INNER, FRONT_H),
        ("roof", 1, outer, outer),
    ]


def well_checks():
    """Dimension rules of the well, (rule, ok): a failed one is a design error."""
    play = (WELL_INNER - DIE_SIZE) / 2.0
    return [
        ("the die fits the clear inside", WELL_INNER > DIE_SIZE),
        ("the window stays on the mark at full play (play + window/2 <= mark/2)",
         play + WELL_WINDOW / 2.0 <= FACE_MARK / 2.0 + 1e-9),
        ("the mark fits a face", FACE_MARK <= DIE_SIZE - 2.0),
        ("the die passes the front opening (4 mm spare both ways)",
         WALL_H - FRONT_H >= DIE_SIZE + 4 and WELL_INNER >= DIE_SIZE + 4),
        ("the lip keeps a rolling die in", FRONT_H >= DIE_SIZE / 4.0),
    ]


# ---- hall switch, magnet, debounce -----------------------------------------------------
# The switch on every position: Diodes AH1806-W-7 (SC59), micropower omnipolar, open drain (the
# AH1807 chosen before could not be checked: no readable source gave its magnetic table). Its
# figures, from its datasheet as quoted by BerkeleyHCI/PolymorphicBlocks
# edg/parts/MagneticSwitch_Ah1806.py (which also gives LCSC C126663): operate point typ. 30 G
# (15-45 G), release point typ. 20 G (10-40 G), 0.1 % duty, period 75 ms typ., 2.5-5.5 V, average
# supply current up to 40 uA. 1 mT = 10 G. No maximum period is quoted: 100 ms is kept as the
# bound the debounce is built against (firmware/tracks.py HALL_PERIOD_MS).
# tests/hardware/test_magnet.py recomputes every margin from these numbers.
HALL = {
    "part": "Diodes AH1806-W-7 (SC59)",
    "bop_max_mt": 4.5,     # operate point, worst case (45 G)
    "bop_min_mt": 1.5,
    "brp_min_mt": 1.0,     # release point, worst case (10 G)
    "brp_typ_mt": 2.0,
    "period_typ_ms": 75,
    "period_max_ms": 100,  # output update period bound (typ. 75 ms; no maximum quoted)
    "supply_avg_max_ua": 40,
    "verified": True,      # thresholds from the datasheet as quoted above, not measured
    "source": "BerkeleyHCI/PolymorphicBlocks edg/parts/MagneticSwitch_Ah1806.py (quoting Diodes' AH1806 datasheet)",
}
# Stack between the magnet's face and the switch's Hall plate
CARD_MM = 1.0            # the printed overlay in a sleeve / a thin card on the board
PCB_MM = 1.6             # the strip PCB; the switch sits on its underside
HALL_DEPTH_MM = 0.6      # Hall plate below the package's marked face (assumed, SC59)
TOKEN_PLAY_MM = 2.0      # a token set down by hand lands this far off the space's centre
# The magnet glued under each token: N35 NdFeB disc, axially magnetised
MAGNET = {"d_mm": 3.0, "h_mm": 1.0, "grade": "N35", "br_min_t": 1.17, "br_max_t": 1.21}
TRIP_MARGIN = 1.5        # field at the worst placement >= this x the worst-case operate point
LIFT_CLAIM_MM = 5.0      # the bring-up test lifts the token this far: the switch must release


def field_on_axis(br_t, d_mm, h_mm, z_mm):
    """Flux density (T) on the axis of an axially magnetised cylinder (remanence br_t, diameter
    d_mm, height h_mm) at distance z_mm from its face:
    B = Br/2 * ((D+z)/sqrt(R^2+(D+z)^2) - z/sqrt(R^2+z^2))."""
    import math
    r = d_mm / 2.0
    return br_t / 2.0 * ((h_mm + z_mm) / math.sqrt(r * r + (h_mm + z_mm) ** 2)
                         - z_mm / math.sqrt(r * r + z_mm * z_mm))


def field_off_axis(br_t, d_mm, h_mm, z_mm, x_mm, n=40):
    """Axial flux density (T) at distance z_mm below the magnet's face and x_mm off its axis:
    the two pole faces as discs of magnetic charge Br/mu0, summed on a polar grid (equals
    field_on_axis at x = 0 to better than 0.1 %; the tests check that)."""
    import math
    r_max = d_mm / 2.0
    dr = r_max / n
    dt = math.pi / n
    s = 0.0
    for zz, sign in ((z_mm, 1.0), (z_mm + h_mm, -1.0)):
        for i in range(n):
            r = (i + 0.5) * dr
            for j in range(2 * n):
                t = (j + 0.5) * dt
                dx = x_mm - r * math.cos(t)
                dy = r * math.sin(t)
                dd = math.sqrt(dx * dx + dy * dy + zz * zz)
                s += sign * zz / (dd * dd * dd) * r * dr * dt
    return br_t / (4 * math.pi) * s


def trip_distance_mm():
    return CARD_MM + PCB_MM + HALL_DEPTH_MM


def release_lift_mm(brp_mt, br_t=None, step=0.1):
    """How far the token must be lifted before the field on axis falls below brp_mt."""
    br = MAGNET["br_max_t"] if br_t is None else br_t
    z0 = trip_distance_mm()
    lift = 0.0
    while field_on_axis(br, MAGNET["d_mm"], MAGNET["h_mm"], z0 + lift) * 1000 > brp_mt:
        lift += step
    return round(lift, 1)


def magnet_figures():
    """The magnet against the switch (mT, mm): what the bring-up guide and the tests quote."""
    d, h = MAGNET["d_mm"], MAGNET["h_mm"]
    z0 = trip_distance_mm()
    return {
        "z_trip_mm": z0,
        "b_trip_mt": field_on_axis(MAGNET["br_min_t"], d, h, z0) * 1000,
        "b_trip_off_centre_mt": field_off_axis(MAGNET["br_min_t"], d, h, z0, TOKEN_PLAY_MM) * 1000,
        "b_lift_claim_mt": field_on_axis(MAGNET["br_max_t"], d, h, z0 + LIFT_CLAIM_MM) * 1000,
        "b_neighbour_mt": abs(field_off_axis(MAGNET["br_max_t"], d, h, z0, PITCH, 20)) * 1000,
        "lift_typ_mm": release_lift_mm(HALL["brp_typ_mt"]),
        "lift_worst_mm": release_lift_mm(HALL["brp_min_mt"]),
    }


def write_or_check(outputs, argv, script):
    """Write generated files, or with --check report the stale ones; returns the exit status."""
    bad = 0
    for path, text in outputs.items():
        if "--check" in argv:
            if not os.path.exists(path) or _read(path) != text:
                print("stale: %s (run python hardware/tools/%s)" % (path, script))
                bad = 1
        else:
            with open(path, "w", newline="\n") as f:
                f.write(text)
            print("wrote", path)
    return bad


def _read(path):
    with open(path) as f:
        return f.read()
