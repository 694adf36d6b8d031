"""CivMint sensing-board design data: the one place where the physical layout is decided.

Everything in hardware/ that describes sensors (sensor_map*.json, the tables in
hardware/docs/, the SVG artwork, the BOM quantities) is generated from this module by
hardware/tools/build_map.py, build_docs.py and build_art.py.  Change the layout here, run
the three scripts (hardware/README.md), commit the regenerated files.

Decisions (see hardware/README.md "Design decisions"):
- ONE board design, the *strip board*: 2 rows of 16 sensed spots (a hall switch and a light
  each), 4 x 74HC165 (register 0: row 0 spots 1-8, register 1: row 0 spots 9-16, registers 2
  and 3 the same for row 1), 4 x 74HC595.  Every strip of the set is this board, fully
  populated, so a set is one fab order with one set of fees (issue 32);
- the map cuts a row into lanes: a row carries one lane of up to 16 spaces (a resource, 0-15:
  Civ Quest's Idea and Resource Points fit) or two lanes of up to 8 (a development track of 8,
  an aspect of 6) at its 1st and 9th spot (columns 0 and 8); the spots no lane uses are spares
  (they read 1);
- 10 strips for the full CivMint set: 2 development strips and 2 aspect strips (two tracks a
  strip, row 0 = p1, row 1 = p2), then 3 resource strips per seat (one resource a row).  The
  build without resources is the same chain cut after the aspect strips;
- chain order (byte 0 = register nearest the MCU): the strips in that order; within a strip
  spot c of row r is local bit 16 r + c (register (16 r + c) >> 3, input H first).
"""
import os

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repository

GAME = "civmint"
SEATS = ["p1", "p2"]

# track id -> (kind, spaces per lane); order = printed/engine order (docs/architecture.md)
DEVELOPMENT = ["government", "economy", "technology", "culture"]
ASPECT = ["population_size", "military_might", "economic_strength", "civilian_happiness"]
RESOURCES = ["food", "wood", "stone", "metal", "money", "combat_power"]
# CivMint's resources run 0-10; their lanes take a whole row (0-15) so that the games with
# longer counters (Civ Quest's points, 0-15) use the same spots: the overlay marks the rest unused
KIND_SPACES = {"development": 8, "aspect": 6, "resource": 16}

TRACKS = []  # list of (track, kind, spaces)
for _kind, _tracks in (("development", DEVELOPMENT), ("aspect", ASPECT), ("resource", RESOURCES)):
    for _t in _tracks:
        TRACKS.append((_t, _kind, KIND_SPACES[_kind]))

# ---- the strip board (mm; origin the top-left corner, the same on the PCB and the overlay) ---
BOARD = "strip_board"
ROWS, COLS = 2, 16    # sensed spots: 2 rows of 16
REGISTERS = ROWS * COLS // 8
PITCH = 16.0          # centre-to-centre distance of printed spaces (and of hall switches)
SPACE = 14.0          # printed square side (token footprint area)
MARGIN = 4.0          # strip border above the first row's labels
LABEL_H = 7.0         # the band above a row with its lanes' names
MID_H = 26.0          # between the rows' cells: the chips and connectors on the underside, the
#                       strip's title and the second row's labels on the overlay
EDGE_X = 12.0         # from the short edges to the first and last spot's centre
STRIP_W = 2 * EDGE_X + (COLS - 1) * PITCH           # 264: fits A4 and US Letter landscape
ROW_Y = (MARGIN + LABEL_H + PITCH / 2.0,
         MARGIN + LABEL_H + PITCH + MID_H + PITCH / 2.0)
STRIP_H = ROW_Y[1] + PITCH / 2.0 + 5.0               # 74
TITLE_Y = ROW_Y[0] + PITCH / 2.0 + 9.0               # the title's baseline, in the middle band
SEGMENT = 8           # a row carries two lanes of up to 8 at columns 0 and 8, or one of up to 16


def spot_xy(row, col):
    """Centre of spot `col` (0-15) of row `row` (0-1)."""
    return EDGE_X + col * PITCH, ROW_Y[row]


def spot_bit(row, col):
    """The strip's local chain bit of a spot."""
    return row * COLS + col


# Resource value labels printed under the spaces; levels for the other kinds
def space_label(kind, i):
    if kind == "resource":
        return str(i)
    return str(i + 1)


def _strip(sid, title, kind, rows, optional_group=None):
    """rows: per row, its lanes [(lane_id, track, seat)]: one lane takes the row from column 0,
    two start at columns 0 and 8."""
    n = KIND_SPACES[kind]
    lane_geo = []
    for r, lanes in enumerate(rows):
        if len(lanes) * max(n, SEGMENT) > COLS:
            raise ValueError("row %d of strip %s: %d lanes of %d spaces do not fit %d spots"
                             % (r, sid, len(lanes), n, COLS))
        for k, (lid, track, seat) in enumerate(lanes):
            x0, y0 = spot_xy(r, k * SEGMENT)
            lane_geo.append({"id": lid, "track": track, "seat": seat, "kind": kind, "spaces": n,
                             "row": r, "col": k * SEGMENT,
                             "x0": x0, "y0": y0, "dx": PITCH, "dy": 0.0})
    return {"id": sid, "title": title, "kind": kind, "board": BOARD,
            "w": STRIP_W, "h": STRIP_H, "registers": REGISTERS,
            "lanes": lane_geo, "optional_group": optional_group}


def track_name(track):
    """'military_might' -> 'Military Might' (strip titles, artwork labels)."""
    return track.replace("_", " ").title()


def strips(include_resources=True):
    """Strips in chain order; each strip's lanes in map (wire) order: a track's p1 lane, then p2."""
    out = []
    for prefix, kind, tracks, what in (("dev", "development", DEVELOPMENT, "development"),
                                       ("aspect", "aspect", ASPECT, "civilization aspects")):
        for a, b in zip(tracks[0::2], tracks[1::2]):
            st = _strip("%s_%s_%s" % (prefix, a, b),
                        "%s and %s (%s)" % (track_name(a), track_name(b), what), kind,
                        [[(t + "." + s, t, s) for t in (a, b)] for s in SEATS])
            st["lanes"].sort(key=lambda ln: (ln["track"] != a, ln["seat"]))
            out.append(st)
    if include_resources:
        for s in SEATS:
            for a, b in zip(RESOURCES[0::2], RESOURCES[1::2]):
                out.append(_strip("resources_%s_%s_%s" % (s, a, b), "Resources %s: %s and %s"
                                  % (s, track_name(a), track_name(b)), "resource",
                                  [[(t + "." + s, t, s)] for t in (a, b)], "resources"))
    first = 0
    for st in out:
        st["first_register"] = first
        first += st["registers"]
        base = st["first_register"] * 8
        for lane in st["lanes"]:
            lane["bits"] = [base + spot_bit(lane["row"], lane["col"] + i) for i in range(lane["spaces"])]
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


def write_or_check(outputs, argv, script, owned=None):
    """Write generated files, or with --check report the stale ones; returns the exit status.
    owned = (folder, prefix): the files there whose names start with prefix are all this script's,
    so one it no longer generates (a strip the map dropped) is removed, or with --check reported."""
    bad = 0
    for path, text in outputs.items():
        binary = isinstance(text, bytes)      # a PDF: compared and written byte for byte
        if "--check" in argv:
            if not os.path.exists(path) or _read(path, binary) != text:
                print("stale: %s (run python hardware/tools/%s)" % (path, script))
                bad = 1
        else:
            with (open(path, "wb") if binary else open(path, "w", newline="\n")) as f:
                f.write(text)
            print("wrote", path)
    if owned:
        folder, prefix = owned
        for fn in sorted(set(f for f in os.listdir(folder) if f.startswith(prefix))
                         - {os.path.basename(p) for p in outputs}):
            path = os.path.join(folder, fn)
            if "--check" in argv:
                print("stale: %s is no longer generated" % os.path.relpath(path, _ROOT))
                bad = 1
            else:
                os.remove(path)
                print("removed", path)
    return bad



def _read(path, binary=False):
    with open(path, "rb" if binary else "r") as f:
        return f.read()


# ---- the strips on the table (issue 40): where they lie, and the chain cable of every hop -------
# A table for up to 4 players: seat 1 (p1) at the south edge, seat 2 (p2) at the north, seats 3 and 4
# at the west and east ends.  The shared strips (development, aspects) lie in the middle, two to a
# row; each seat's resource strips in a row in front of it, upright for that seat.  Every strip's UP
# connector J1 is at its left short edge as its seat reads it, so the chain snakes: a row read
# west -> east (upright for seat 1) ends at the east, where the next row, turned for seat 2, starts.
# Rows, north to south: (name, turned by 180 degrees for seat 2, which strips).
TABLE_ROWS = [
    ("seat 2's resources", True, ("resource", "p2")),
    ("shared, north", False, ("shared", 0)),
    ("shared, south", True, ("shared", 1)),
    ("seat 1's resources", False, ("resource", "p1")),
]
SHARED_PER_ROW = 2
TABLE_GAP_END = 30.0      # mm between two strips end to end (room for the two plugs)
TABLE_GAP_ROW = 40.0      # mm between rows
CONN_IN = 10.2            # the connector's pin row from the short edge (build_pcb.CONN_X)
CONN_Y_MID = 40.0         # the middle of its pin row from the strip's top edge (pins y 30-50)
PLUG_OUT = 15.0           # a plug and the cable's first bend beyond the board edge, each end
CONTROLLER_GAP = 120.0    # the controller carrier this far beyond the first strip's UP connector
CABLE_MARGIN = 0.25       # a cable is at least 25 % longer than its route (slack, bends, a misplaced strip)
CABLE_STOCK_MM = (150, 200, 300, 400, 500, 600, 800, 1000)   # 9-way XH cables sold crimped both ends (estimate)


class LayoutError(ValueError):
    pass


def strip_seat(smap, strip_id):
    """The seat whose strip it is ('p1', 'p2'), or 'shared' when its lanes belong to both seats."""
    seats = {l["seat"] for l in smap["lanes"] if l["strip"] == strip_id}
    return seats.pop() if len(seats) == 1 else "shared"


def table_layout(smap):
    """Where each strip of a map lies on the table and the chain's hops.

    Returns {"strips": [{"id", "row", "x", "y", "w", "h", "turned", "j1", "j2"}] (table mm, x east,
    y south, origin the table's centre; j1/j2 = (x, y, outward direction +1 east / -1 west)),
    "controller": (x, y), "hops": [{"from", "to", "route_mm", "need_mm", "cable_mm"}]}.
    A strip that no row takes, or a hop no stocked cable reaches, is refused (LayoutError naming it)."""
    rows = [[] for _ in TABLE_ROWS]
    shared = [s for s in smap["strips"] if strip_seat(smap, s["id"]) == "shared"]
    for s in smap["strips"]:
        seat = strip_seat(smap, s["id"])
        for k, (_, _, (what, which)) in enumerate(TABLE_ROWS):
            if what == "resource" and s["kind"] == "resource" and seat == which:
                rows[k].append(s)
                break
            if what == "shared" and seat == "shared" and shared.index(s) // SHARED_PER_ROW == which:
                rows[k].append(s)
                break
        else:
            raise LayoutError("strip '%s' (%s, seat %s): no row of the table layout takes it "
                              "(design.TABLE_ROWS)" % (s["id"], s["kind"], seat))
    placed = {}
    n_rows = sum(1 for r in rows if r)
    y = -(n_rows * STRIP_H + (n_rows - 1) * TABLE_GAP_ROW) / 2.0
    for k, row in enumerate(rows):
        if not row:
            continue
        name, turned, _ = TABLE_ROWS[k]
        width = len(row) * STRIP_W + (len(row) - 1) * TABLE_GAP_END
        for i, s in enumerate(row):
            # upright: chain order west -> east; turned: east -> west
            slot = i if not turned else len(row) - 1 - i
            x = -width / 2.0 + slot * (STRIP_W + TABLE_GAP_END)
            if not turned:
                j1 = (x + CONN_IN, y + CONN_Y_MID, -1)
                j2 = (x + STRIP_W - CONN_IN, y + CONN_Y_MID, 1)
            else:
                j1 = (x + STRIP_W - CONN_IN, y + STRIP_H - CONN_Y_MID, 1)
                j2 = (x + CONN_IN, y + STRIP_H - CONN_Y_MID, -1)
            placed[s["id"]] = {"id": s["id"], "row": name, "x": x, "y": y, "w": STRIP_W, "h": STRIP_H,
                               "turned": turned, "j1": j1, "j2": j2}
        y += STRIP_H + TABLE_GAP_ROW
    order = [placed[s["id"]] for s in smap["strips"]]
    first = order[0]["j1"]
    controller = (first[0] + first[2] * CONTROLLER_GAP, first[1])
    hops = []
    prev_name, prev = "controller", (controller[0], controller[1], -first[2])
    for p in order:
        a, b = prev, p["j1"]
        route = _route_mm(a, b) if prev_name != "controller" else abs(a[0] - b[0]) + abs(a[1] - b[1]) + PLUG_OUT
        need = route * (1 + CABLE_MARGIN)
        fits = [c for c in CABLE_STOCK_MM if c >= need]
        if not fits:
            raise LayoutError("hop %s -> %s: its route is %.0f mm, %.0f mm with the margin, longer than the "
                              "longest cable stocked (%d mm)" % (prev_name, p["id"], route, need,
                                                                 max(CABLE_STOCK_MM)))
        hops.append({"from": prev_name, "to": p["id"], "route_mm": round(route, 1), "need_mm": round(need, 1),
                     "cable_mm": fits[0]})
        prev_name, prev = p["id"], p["j2"]
    return {"strips": order, "controller": controller, "hops": hops}


def _route_mm(a, b):
    """A cable's route between two connectors (x, y, outward direction): out of each plug by
    PLUG_OUT, then along the table's axes (around the strips' ends, never over a strip)."""
    ax, bx = a[0] + a[2] * PLUG_OUT, b[0] + b[2] * PLUG_OUT
    if a[2] == b[2]:
        # both open the same way (a turn at the end of a row): out to the farther of the two, back
        far = max(ax, bx) if a[2] > 0 else min(ax, bx)
        horiz = abs(far - ax) + abs(far - bx)
    else:
        horiz = abs(ax - bx)
    return 2 * PLUG_OUT + horiz + abs(a[1] - b[1])


def route_points(a, b):
    """The polyline _route_mm measures (for the drawing): connector, plug end, the turn, the other plug."""
    ax, bx = a[0] + a[2] * PLUG_OUT, b[0] + b[2] * PLUG_OUT
    if a[2] == b[2]:
        far = max(ax, bx) if a[2] > 0 else min(ax, bx)
        return [(a[0], a[1]), (far, a[1]), (far, b[1]), (b[0], b[1])]
    mid = (ax + bx) / 2.0
    return [(a[0], a[1]), (mid, a[1]), (mid, b[1]), (b[0], b[1])]


def cable_counts(layout):
    """{cable length mm: how many} for a layout's hops."""
    out = {}
    for h in layout["hops"]:
        out[h["cable_mm"]] = out.get(h["cable_mm"], 0) + 1
    return dict(sorted(out.items()))


# ---- feet and support (issue 40): one foot size, where the feet stand, how far a press bends the board
# Every part hangs under the board (the connectors' housings deepest, about 7 mm with the plug), so
# the board stands on feet.  The parts leave two bands free along the long edges: above the top row's
# cells (y 0-17 mm) and below the bottom row's (y 64.7-74 mm, the narrower); one foot size fits the
# narrower band with clearance, and the same feet go into both bands.  FEET_PER_EDGE feet along each
# long edge, evenly from corner to corner, so no span is long enough to sag under a press.
FOOT_D_MM = 8.0           # one foot size everywhere: 8 mm across
FOOT_H_MM = 10.0          # tall enough for the connectors and plugs under the board (bom_data.FOOT_MIN_MM)
FOOT_EDGE_MM = 0.5        # a foot's rim this far in from the board's edge
FOOT_CLEAR_MM = 0.5       # no part's courtyard within this of a foot's rim: the keep-out circle
FEET_PER_EDGE = 4
PRESS_N = 5.0             # a player's press on a space (issue 40)
SAG_LIMIT_MM = 0.5
FR4_E_MPA = (17000.0, 22000.0)   # FR-4 flexural modulus, low and typical (N/mm^2): the low one is used


def feet():
    """[(name, x, y)] of the feet under a strip board (board mm, origin top-left)."""
    r = FOOT_D_MM / 2.0 + FOOT_EDGE_MM
    xs = [r + k * (STRIP_W - 2 * r) / (FEET_PER_EDGE - 1) for k in range(FEET_PER_EDGE)]
    out = []
    for row, y in (("top", r), ("bottom", STRIP_H - r)):
        for k, x in enumerate(xs):
            out.append(("F%d" % (len(out) + 1), round(x, 3), round(y, 3)))
    return out


def foot_keepout_mm():
    """Radius of a foot's keep-out circle: its rim plus the clearance."""
    return FOOT_D_MM / 2.0 + FOOT_CLEAR_MM


def sag_figures():
    """A 5 N press at mid-span between two feet, the board as a simply supported beam of its full
    width (an upper bound: the board runs on over the next feet, which stiffens it):
    delta = F L^3 / (48 E I), I = b t^3 / 12.  Also the corner-feet-only board it replaces."""
    xs = sorted({x for _, x, _ in feet()})
    span = max(b - a for a, b in zip(xs, xs[1:]))
    i_mm4 = STRIP_H * PCB_MM ** 3 / 12.0
    e_low, e_typ = FR4_E_MPA

    def sag(length, e):
        return PRESS_N * length ** 3 / (48.0 * e * i_mm4)
    corner_span = xs[-1] - xs[0]
    return {"span_mm": span, "i_mm4": i_mm4, "sag_mm": sag(span, e_low), "sag_typ_mm": sag(span, e_typ),
            "corner_span_mm": corner_span, "corner_sag_mm": sag(corner_span, e_low),
            "corner_sag_typ_mm": sag(corner_span, e_typ)}


# ---- the guidance light through the board and the overlay (issue 40): is a lit space clear? ---------
# The LED (Lite-On LTST-C230KRKT, red 1206 reverse mount) shines up through its hole in the board and
# then through whatever lies on the board over the hole.  Its figures as a public parts table quotes
# Lite-On's datasheet: 20 mcd typical at 20 mA, 130 degrees, 631 nm (the datasheet itself not read);
# at these currents an AlInGaP LED's intensity is taken as proportional to its current.
LED_OPTICS = {
    "iv_mcd": 20.0, "iv_at_ma": 20.0, "max_ma": 30.0, "angle_deg": 130,
    "source": "a public parts table quoting Lite-On's LTST-C230KRKT datasheet: red 631 nm, 2.0 V, "
              "20 mcd typical at 20 mA, 130 degrees (the datasheet not read here)",
    "hole_mm": (1.8, 2.4),   # the footprint's hole (LED_1206_3216Metric_ReverseMount_Hole1.8x2.4mm)
}
# What lies over the hole, with its diffuse transmittance for red light (estimates: the one-LED test
# in assembly.md measures the real stack): (name, thickness mm, transmittance)
LIGHT_STACKS = [
    ("the 1.0 mm card over the hole", 1.0, 0.02),
    ("a window cut in the card, the printed overlay paper (0.1 mm) over it", 0.1, 0.25),
]
ROOM_LUX = 500.0          # a well-lit room or a table under a lamp
PAPER_REFLECTANCE = 0.8   # the overlay's white paper around the light
CLEAR_CONTRAST = 0.3      # a lit space is clear when its light adds at least 30 % to the paper's luminance


def light_figures(current_ma, stack):
    """Luminance (cd/m2) a lit space shows at `current_ma` through `stack` (a LIGHT_STACKS entry),
    against the paper around it in a lit room.  The LED as a Lambertian source: the hole (its area
    as a circle of radius r, the board's thickness t deep) passes the cone of half-angle atan(r/t),
    a fraction sin^2 of the flux pi * I; the layer over the hole spreads it over a circle its own
    thickness wider and passes `transmittance` of it, diffusely: L = T * flux / (pi * area)."""
    import math
    name, thick, trans = stack
    iv_cd = LED_OPTICS["iv_mcd"] / 1000.0 * current_ma / LED_OPTICS["iv_at_ma"]
    w, h = LED_OPTICS["hole_mm"]
    r = math.sqrt(w * h / math.pi)
    half = math.atan(r / PCB_MM)
    flux_lm = math.pi * iv_cd * math.sin(half) ** 2
    area_m2 = math.pi * ((r + thick) / 1000.0) ** 2
    lum = trans * flux_lm / (math.pi * area_m2)
    paper = PAPER_REFLECTANCE * ROOM_LUX / math.pi
    return {"stack": name, "current_ma": current_ma, "iv_mcd": iv_cd * 1000, "half_angle_deg": math.degrees(half),
            "flux_mlm": flux_lm * 1000, "luminance_cd_m2": lum, "paper_cd_m2": paper,
            "contrast": lum / paper, "clear": lum / paper >= CLEAR_CONTRAST}


def current_for_clear(stack):
    """The LED current (mA) at which a lit space is clear through `stack` (luminance is linear in it)."""
    per_ma = light_figures(1.0, stack)["contrast"]
    return CLEAR_CONTRAST / per_ma
