"""Printable artwork (SVG, 1:1, units = mm) generated from hardware/sensor_map.json.

    python hardware/tools/build_art.py

Writes hardware/artwork/:
  strip_<strip id>.svg     one per strip of the full map (every strip is the one strip board,
                           design.py): its title in the middle band, each lane's name above its
                           first space, the printed spaces, a sensor mark (crosshair + circle)
                           at every hall switch the map reads, the spots no lane uses drawn
                           dashed as "not used".
                           Every mark is <g class="sensor" data-lane= data-space= data-bit=>
                           with a <circle cx cy> at the switch centre (strip coordinates,
                           origin = top-left corner of the strip, shared with the PCB).
  dice_well_template.svg   floor, walls and sensor window of the two dice wells
  dice_face_marks.svg      the six colour marks for the dice faces (3 dice' worth)
  table_layout.svg         where the strips lie at a four-player table and the chain's cables (1:5)
Print at 100 % ("actual size"); check the 50 mm scale bar on every sheet.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HW))

import design  # noqa: E402

from companion.table.sensing import seat_words  # noqa: E402  (the seats as the table names them)

ART = os.path.join(HW, "artwork")
TITLES = {s["id"]: s["title"] for s in design.strips()}   # the map carries no titles: once, from design.py
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'


def fmt(v):
    s = "%.2f" % v
    s = s.rstrip("0").rstrip(".")
    return s if s != "-0" else "0"


def svg_open(w, h, title):
    return ['<?xml version="1.0" encoding="UTF-8"?>',
            '<svg xmlns="http://www.w3.org/2000/svg" width="%smm" height="%smm" viewBox="0 0 %s %s">'
            % (fmt(w), fmt(h), fmt(w), fmt(h)),
            '<title>%s</title>' % esc(title)]


def esc(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def scale_bar(x, y):
    out = ['<g class="scale-bar">',
           '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="black" stroke-width="0.3"/>' % (
               fmt(x), fmt(y), fmt(x + 50), fmt(y)),
           '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="black" stroke-width="0.3"/>' % (
               fmt(x), fmt(y - 1.5), fmt(x), fmt(y + 1.5)),
           '<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="black" stroke-width="0.3"/>' % (
               fmt(x + 50), fmt(y - 1.5), fmt(x + 50), fmt(y + 1.5)),
           '<text x="%s" y="%s" font-size="2.2" %s>50 mm at 100 %%</text>' % (fmt(x + 52), fmt(y + 0.8), FONT),
           '</g>']
    return out


def corner_marks(w, h):
    out = ['<g class="registration">']
    for (x, y) in ((3, 3), (w - 3, 3), (3, h - 3), (w - 3, h - 3)):
        out.append('<path d="M %s %s h 4 M %s %s v 4" stroke="black" stroke-width="0.2" fill="none"/>'
                   % (fmt(x - 2), fmt(y), fmt(x), fmt(y - 2)))
    out.append('</g>')
    return out


def strip_spots():
    """Every spot of the strip board (every strip is one) as (row, col, local bit, x, y)."""
    return [(r, c, design.spot_bit(r, c)) + design.spot_xy(r, c)
            for r in range(design.ROWS) for c in range(design.COLS)]


def strip_svg(smap, strip):
    """One strip at 1:1: its title in the middle band, each lane's name in the band above the
    lane's first space, every space with its printed label and the hall switch's mark, and the
    spots no lane uses drawn plainly as "not used" (no mark: no token is read there)."""
    w, h = strip["size_mm"]
    lanes = [l for l in smap["lanes"] if l["strip"] == strip["id"]]
    out = svg_open(w, h, "CivMint sensing strip %s" % strip["id"])
    out.append('<rect class="outline" x="0" y="0" width="%s" height="%s" fill="white" stroke="black" stroke-width="0.3"/>'
               % (fmt(w), fmt(h)))
    out += corner_marks(w, h)
    out.append('<text class="title" x="%s" y="%s" font-size="5" font-weight="bold" text-anchor="middle" %s>%s</text>'
               % (fmt(w / 2), fmt(design.TITLE_Y), FONT, esc(TITLES.get(strip["id"], strip["id"]))))
    base = strip["first_register"] * 8
    out.append('<text x="%s" y="%s" font-size="2.2" text-anchor="middle" %s>strip %s, registers %d-%d, chain bits %d-%d</text>' % (
        fmt(w / 2), fmt(design.TITLE_Y + 4.5), FONT, strip["id"], strip["first_register"],
        strip["first_register"] + strip["registers"] - 1, base, base + strip["registers"] * 8 - 1))
    half = design.SPACE / 2.0
    used = set()
    for lane in lanes:
        x0, y0 = lane["at_mm"]
        dx, dy = lane["step_mm"]
        n = len(lane["bits"])
        label = "%s - %s" % (design.track_name(lane["track"]), seat_words(lane["seat"]))
        out.append('<g class="lane" data-lane="%s">' % lane["id"])
        out.append('<text class="lane-label" x="%s" y="%s" font-size="3.6" %s>%s</text>' % (
            fmt(x0 - half), fmt(y0 - design.PITCH / 2.0 - 1.2), FONT, esc(label)))
        out.append('<text x="%s" y="%s" font-size="2" fill="#555" text-anchor="end" %s>%s</text>' % (
            fmt(x0 + (n - 1) * dx + half), fmt(y0 - design.PITCH / 2.0 - 1.2), FONT, esc(lane["id"])))
        for i, bit in enumerate(lane["bits"]):
            cx = x0 + i * dx
            cy = y0 + i * dy
            used.add(bit - base)
            out.append('<rect class="space" x="%s" y="%s" width="%s" height="%s" rx="1.5" fill="none" stroke="black" stroke-width="0.35"/>'
                       % (fmt(cx - half), fmt(cy - half), fmt(design.SPACE), fmt(design.SPACE)))
            out.append('<text x="%s" y="%s" font-size="2.6" %s>%s</text>' % (
                fmt(cx - half + 0.8), fmt(cy - half + 3.0), FONT, design.space_label(strip["kind"], i)))
            out.append('<g class="sensor" data-lane="%s" data-space="%d" data-bit="%d">' % (lane["id"], i, bit))
            out.append('<circle cx="%s" cy="%s" r="1.2" fill="none" stroke="#c00" stroke-width="0.2"/>' % (fmt(cx), fmt(cy)))
            out.append('<path d="M %s %s h 4 M %s %s v 4" stroke="#c00" stroke-width="0.15"/>' % (
                fmt(cx - 2), fmt(cy), fmt(cx), fmt(cy - 2)))
            out.append('</g>')
        out.append('</g>')
    for r, c, local, x, y in strip_spots():
        if local in used:
            continue
        out.append('<g class="spare" data-bit="%d">' % (base + local))
        out.append('<rect class="spare-space" x="%s" y="%s" width="%s" height="%s" rx="1.5" fill="none" stroke="#aaa" '
                   'stroke-width="0.25" stroke-dasharray="1 1"/>'
                   % (fmt(x - half), fmt(y - half), fmt(design.SPACE), fmt(design.SPACE)))
        out.append('<text x="%s" y="%s" font-size="2.2" fill="#888" text-anchor="middle" %s>not used</text>'
                   % (fmt(x), fmt(y + 0.8), FONT))
        out.append('</g>')
    out += scale_bar(design.MARGIN, design.TITLE_Y + 8.5)
    out.append('</svg>')
    return "\n".join(out) + "\n"


def well_svg(smap):
    """Cut template of the hooded wells: every piece at 1:1 from design.well_parts(), the clear
    inside drawn dashed on the floor with the walls' footprints around it."""
    parts = design.well_parts()
    W = 200.0
    inner = design.WELL_INNER
    t = design.WALL_T
    floor = parts[0][2]
    H = 36.0 + floor + 3 * (design.WALL_H + 6) + 24
    out = svg_open(W, H, "CivMint dice-well template (cut and glue, %s mm foam board)" % fmt(t))
    out.append('<text x="8" y="10" font-size="4.5" font-weight="bold" %s>Dice wells - template, %s mm foam board, for a %s mm die</text>'
               % (FONT, fmt(t), fmt(design.DIE_SIZE)))
    out.append('<text x="8" y="15" font-size="2.4" %s>Per well: 1 floor, 2 long walls, 2 short walls, 1 hood. Clear inside %s x %s mm, walls %s mm high.</text>'
               % (FONT, fmt(inner), fmt(inner), fmt(design.WALL_H)))
    for k, well in enumerate(smap["wells"]):
        ox = 8.0 + k * 96.0
        oy = 20.0
        out.append('<g class="well" data-well="%s" data-bus="%d" data-inner="%s" data-wall-t="%s" data-die="%s">'
                   % (well["id"], well["bus"], fmt(inner), fmt(t), fmt(design.DIE_SIZE)))
        out.append('<text x="%s" y="%s" font-size="3.2" %s>%s (I2C bus %d)</text>' % (
            fmt(ox), fmt(oy + 3), FONT, well["id"], well["bus"]))
        fx, fy = ox, oy + 6
        cx, cy = fx + floor / 2.0, fy + floor / 2.0
        out.append('<rect class="piece floor" data-w="%s" data-h="%s" x="%s" y="%s" width="%s" height="%s" fill="none" stroke="black" stroke-width="0.3"/>'
                   % (fmt(floor), fmt(floor), fmt(fx), fmt(fy), fmt(floor), fmt(floor)))
        out.append('<rect class="clear-inside" x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#888" stroke-width="0.25" stroke-dasharray="1.5 1"/>'
                   % (fmt(cx - inner / 2), fmt(cy - inner / 2), fmt(inner), fmt(inner)))
        out.append('<rect class="wall-footprint" x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#bbb" stroke-width="0.2"/>'
                   % (fmt(cx - inner / 2 - t), fmt(cy - inner / 2 - t), fmt(inner + 2 * t), fmt(inner + 2 * t)))
        out.append('<circle class="window" data-well="%s" cx="%s" cy="%s" r="%s" fill="none" stroke="#c00" stroke-width="0.3"/>'
                   % (well["id"], fmt(cx), fmt(cy), fmt(design.WELL_WINDOW / 2)))
        out.append('<path d="M %s %s h 6 M %s %s v 6" stroke="#c00" stroke-width="0.15"/>' % (
            fmt(cx - 3), fmt(cy), fmt(cx), fmt(cy - 3)))
        out.append('<text x="%s" y="%s" font-size="2" %s>floor %s x %s: cut the red circle; walls stand on the grey band around the dashed square</text>' % (
            fmt(fx), fmt(fy + floor + 3), FONT, fmt(floor), fmt(floor)))
        y = fy + floor + 8
        x = fx
        for name, count, w, h in parts[1:]:
            for j in range(count):
                out.append('<rect class="piece %s" data-w="%s" data-h="%s" x="%s" y="%s" width="%s" height="%s" fill="none" stroke="black" stroke-width="0.3"/>'
                           % (name.replace(" ", "-"), fmt(w), fmt(h), fmt(x), fmt(y), fmt(w), fmt(h)))
                out.append('<text x="%s" y="%s" font-size="2" %s>%s %s x %s</text>' % (
                    fmt(x + 1), fmt(y + 3), FONT, name, fmt(w), fmt(h)))
                x += w + 3
                if x > ox + 90:
                    x = fx
                    y += h + 4
        out.append('</g>')
    out.append('<text x="8" y="%s" font-size="2.2" %s>Glue the walls on the grey band around the dashed square: the side walls cover the ends of the back wall and the front lip, so the clear inside stays %s x %s mm.</text>' % (
        fmt(H - 17), FONT, fmt(inner), fmt(inner)))
    out.append('<text x="8" y="%s" font-size="2.2" %s>The roof (hood) lies on the side and back walls; roll the die in through the front opening. Clear %s mm PET under the window.</text>' % (
        fmt(H - 13), FONT, fmt(design.PET_T)))
    out += scale_bar(8.0, H - 5)
    out.append('</svg>')
    return "\n".join(out) + "\n"


PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def faces_svg():
    W, H = 190.0, 95.0
    m = design.FACE_MARK
    out = svg_open(W, H, "CivMint dice-face colour marks")
    out.append('<text x="8" y="10" font-size="4.5" font-weight="bold" %s>Dice-face colour marks (print on matte white sticker paper)</text>' % FONT)
    out.append('<text x="8" y="15" font-size="2.4" %s>Stick mark N on the face showing N pips (pips stay visible in white). The sensor sees the bottom face; the board reports top = 7 - bottom.</text>' % FONT)
    for die in range(3):
        y = 20 + die * (m + 10)
        out.append('<text x="8" y="%s" font-size="2.6" %s>die %d%s</text>' % (fmt(y + m / 2 + 1), FONT, die + 1,
                                                                                " (spare)" if die == 2 else ""))
        for j, (value, name, rgb) in enumerate(design.FACE_COLOURS):
            x = 30 + j * (m + 14)
            hexc = "#%02X%02X%02X" % rgb
            out.append('<g class="face-mark" data-value="%d" data-colour="%s" data-rgb="%s">' % (value, name, hexc))
            out.append('<rect x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#999" stroke-width="0.15"/>'
                       % (fmt(x), fmt(y), fmt(m), fmt(m), hexc))
            pip = "#000000" if name == "white" else "#FFFFFF"
            for (px, py) in PIPS[value]:
                out.append('<circle cx="%s" cy="%s" r="0.9" fill="%s"/>' % (
                    fmt(x + m / 2 + px * m * 0.27), fmt(y + m / 2 + py * m * 0.27), pip))
            out.append('<text x="%s" y="%s" font-size="2" %s>%d %s %s</text>' % (
                fmt(x), fmt(y + m + 3), FONT, value, name, hexc))
            out.append('</g>')
    out += scale_bar(8.0, H - 5)
    out.append('</svg>')
    return "\n".join(out) + "\n"


TABLE_SCALE = 5.0     # the table drawing at 1:5


def table_svg(smap):
    """artwork/table_layout.svg: where the strips lie at a four-player table (design.table_layout), at
    1:5, with each strip's UP (J1) and DOWN (J2) connector, the chain cable of every hop and its
    length, the controller and the four seats."""
    lay = design.table_layout(smap)
    xs = [s["x"] for s in lay["strips"]] + [s["x"] + s["w"] for s in lay["strips"]] + [lay["controller"][0]]
    ys = [s["y"] for s in lay["strips"]] + [s["y"] + s["h"] for s in lay["strips"]]
    pad = 120.0
    x0, x1 = min(xs) - pad, max(xs) + pad
    y0, y1 = min(ys) - pad, max(ys) + pad
    w, h = (x1 - x0) / TABLE_SCALE, (y1 - y0) / TABLE_SCALE
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%smm" height="%smm" viewBox="%s %s %s %s">'
           % (fmt(w), fmt(h), fmt(x0), fmt(y0), fmt(x1 - x0), fmt(y1 - y0)),
           '<title>The strips on a four-player table (1:%g), generated from sensor_map.json</title>' % TABLE_SCALE,
           '<rect class="table" x="%s" y="%s" width="%s" height="%s" fill="#f4efe6" stroke="black" '
           'stroke-width="2"/>' % (fmt(x0 + 40), fmt(y0 + 40), fmt(x1 - x0 - 80), fmt(y1 - y0 - 80))]
    seats = [("seat 1 (p1)", (x0 + x1) / 2, y1 - 12), ("seat 2 (p2)", (x0 + x1) / 2, y0 + 30),
             ("seat 3", x0 + 20, (y0 + y1) / 2), ("seat 4", x1 - 20, (y0 + y1) / 2)]
    for words, sx, sy in seats:
        rot = (' transform="rotate(%d %s %s)"' % (-90 if words == "seat 3" else 90, fmt(sx), fmt(sy))
               if words in ("seat 3", "seat 4") else "")
        out.append('<text class="seat" x="%s" y="%s" font-size="22" text-anchor="middle" %s%s>%s</text>'
                   % (fmt(sx), fmt(sy), FONT, rot, esc(words)))
    for n, st in enumerate(lay["strips"], 1):
        out.append('<g class="strip" data-strip="%s" data-row="%s">' % (st["id"], esc(st["row"])))
        out.append('<rect x="%s" y="%s" width="%s" height="%s" fill="white" stroke="black" stroke-width="1.5"/>'
                   % (fmt(st["x"]), fmt(st["y"]), fmt(st["w"]), fmt(st["h"])))
        cx, cy = st["x"] + st["w"] / 2, st["y"] + st["h"] / 2
        rot = ' transform="rotate(180 %s %s)"' % (fmt(cx), fmt(cy)) if st["turned"] else ""
        out.append('<text x="%s" y="%s" font-size="11" text-anchor="middle" %s%s>%d: %s</text>'
                   % (fmt(cx), fmt(cy + 4), FONT, rot, n, esc(TITLES.get(st["id"], st["id"]))))
        for name, (jx, jy, _) in (("J1", st["j1"]), ("J2", st["j2"])):
            out.append('<circle class="%s" cx="%s" cy="%s" r="5" fill="%s" stroke="black" stroke-width="1.5"/>'
                       % (name, fmt(jx), fmt(jy), "black" if name == "J1" else "white"))
        out.append('</g>')
    cx, cy = lay["controller"]
    out.append('<rect class="controller" x="%s" y="%s" width="60" height="40" fill="#ddd" stroke="black"/>'
               % (fmt(cx - 60), fmt(cy - 20)))
    out.append('<text x="%s" y="%s" font-size="12" text-anchor="middle" %s>controller</text>'
               % (fmt(cx - 30), fmt(cy + 4), FONT))
    ends = [("controller", (cx, cy, 1))] + [(st["id"], st["j2"]) for st in lay["strips"]]
    for hop, (_, a), st in zip(lay["hops"], ends, lay["strips"]):
        pts = design.route_points(a, st["j1"]) if hop["from"] != "controller" else [(cx, cy), st["j1"][:2]]
        out.append('<polyline class="cable" data-from="%s" data-to="%s" data-cable-mm="%d" points="%s" '
                   'fill="none" stroke="#c0392b" stroke-width="3"/>'
                   % (hop["from"], hop["to"], hop["cable_mm"], " ".join("%s,%s" % (fmt(x), fmt(y)) for x, y in pts)))
        mx, my = pts[len(pts) // 2 - 1]
        out.append('<text x="%s" y="%s" font-size="12" fill="#c0392b" %s>%d mm</text>'
                   % (fmt(mx + 6), fmt(my - 6), FONT, hop["cable_mm"]))
    bx, by = x0 + 60, y1 - 60
    out.append('<g class="scale-bar"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="black" stroke-width="3"/>'
               '<text x="%s" y="%s" font-size="14" %s>200 mm at 1:%g</text></g>'
               % (fmt(bx), fmt(by), fmt(bx + 200), fmt(by), fmt(bx), fmt(by - 8), FONT, TABLE_SCALE))
    out.append('<text x="%s" y="%s" font-size="12" %s>black dot: UP (J1); white dot: DOWN (J2); red: the '
               'chain cable of each hop and its length (docs/table_layout.md)</text>'
               % (fmt(bx + 230), fmt(by), FONT))
    out.append('</svg>')
    return "\n".join(out) + "\n"


def outputs(map_path=None):
    with open(map_path or os.path.join(HW, "sensor_map.json")) as f:
        smap = json.load(f)
    out = {}
    for strip in smap["strips"]:
        out["strip_%s.svg" % strip["id"]] = strip_svg(smap, strip)
    out["dice_well_template.svg"] = well_svg(smap)
    out["dice_face_marks.svg"] = faces_svg()
    out["table_layout.svg"] = table_svg(smap)
    return {os.path.join(ART, k): v for k, v in out.items()}


def main(argv):
    os.makedirs(ART, exist_ok=True)
    try:
        outs = outputs()
    except design.LayoutError as e:
        print("refused: %s" % e, file=sys.stderr)
        return 2
    # a strip the map no longer has leaves no artwork behind
    return design.write_or_check(outs, argv, 'build_art.py', owned=(ART, "strip_"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
