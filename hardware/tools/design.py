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
FACE_COLOURS = [
    # value, name, sRGB target
    (1, "red", (220, 30, 40)),
    (2, "yellow", (250, 215, 0)),
    (3, "green", (0, 155, 70)),
    (4, "blue", (25, 70, 200)),
    (5, "magenta", (200, 0, 200)),
    (6, "white", (255, 255, 255)),
]
DIE_SIZE = 16.0          # mm, standard D6
FACE_MARK = 13.0         # mm square sticker per face
WELL_INNER = 22.0        # mm inner side of the well (die lies flat, any rotation)
WELL_WINDOW = 7.0        # mm hole in the well floor over the sensor


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
