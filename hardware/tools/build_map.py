"""Generate hardware/sensor_map.json and hardware/sensor_map_no_resources.json from design.py.

    python hardware/tools/build_map.py          # rewrite both maps
    python hardware/tools/build_map.py --check  # exit 1 if the committed files differ

The output is deterministic (fixed key order, one lane per line) because the board and the
app identify a map by the first 8 bytes of sha256 over the exact file bytes.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import design  # noqa: E402


def _dump(obj):
    return json.dumps(obj, separators=(", ", ": "))


def map_document(include_resources=True):
    strips = design.strips(include_resources)
    registers = sum(s["registers"] for s in strips)
    spare = [b for s in strips for b in s["spare_bits"]]
    tracks = {}
    for t, kind, n in design.TRACKS:
        tracks[t] = {"kind": kind, "spaces": n}
    lines = []
    lines.append('{"format": 1, "game": %s, "variant": %s,' % (
        _dump(design.GAME), _dump("full" if include_resources else "no_resources")))
    lines.append(' "seats": %s,' % _dump(design.SEATS))
    lines.append(' "tracks": {')
    tl = ['  %s: %s' % (_dump(t), _dump(tracks[t])) for t, _, _ in design.TRACKS]
    lines.append(",\n".join(tl) + "},")
    lines.append(' "chain": {"registers": %d, "tail_level": 0, "spare_level": 1, "spare_bits": %s},'
                 % (registers, _dump(spare)))
    # the board design's grid of spots, so a reader of the map (the printed overlays) can draw the
    # spots no lane uses: spot c of row r is local bit r * cols + c, at (first_x + c * pitch, row y)
    lines.append(' "boards": {%s: %s},' % (_dump(design.BOARD), _dump({
        "size_mm": [design.STRIP_W, design.STRIP_H], "cols": design.COLS, "first_x_mm": design.EDGE_X,
        "pitch_mm": design.PITCH, "rows_mm": list(design.ROW_Y)})))
    lines.append(' "strips": [')
    sl = []
    for s in strips:
        sl.append('  ' + _dump({"id": s["id"], "kind": s["kind"], "board": s["board"], "first_register": s["first_register"],
                               "registers": s["registers"], "size_mm": [s["w"], s["h"]]}))
    lines.append(",\n".join(sl) + "],")
    lines.append(' "lanes": [')
    ll = []
    for s in strips:
        for lane in s["lanes"]:
            ll.append('  ' + _dump({"id": lane["id"], "track": lane["track"], "seat": lane["seat"],
                                   "kind": lane["kind"], "bits": lane["bits"], "strip": s["id"],
                                   "at_mm": [lane["x0"], lane["y0"]],
                                   "step_mm": [lane["dx"], lane["dy"]]}))
    lines.append(",\n".join(ll) + "],")
    wl = []
    for w in design.WELLS:
        wl.append('  ' + _dump({"id": w["id"], "bus": w["bus"], "sensor": "tcs34725",
                               "addr": design.TCS_ADDR, "ids": design.TCS_IDS}))
    lines.append(' "wells": [')
    lines.append(",\n".join(wl) + "],")
    if include_resources:
        om = [lane["id"] for s in strips if s["optional_group"] == "resources" for lane in s["lanes"]]
        lines.append(' "omittable": {"resources": %s}}' % _dump(om))
    else:
        lines.append(' "omittable": {}}')
    text = "\n".join(lines) + "\n"
    json.loads(text)  # must be valid JSON
    return text


OUTPUTS = {
    "sensor_map.json": lambda: map_document(True),
    "sensor_map_no_resources.json": lambda: map_document(False),
}


def main(argv):
    outputs = {os.path.join(HW, name): fn() for name, fn in OUTPUTS.items()}
    return design.write_or_check(outputs, argv, "build_map.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
