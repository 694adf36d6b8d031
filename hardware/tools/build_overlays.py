"""Generate a printable board overlay for every game of the app (its sensing binding at 1:1).

    python hardware/tools/build_overlays.py           # rewrite
    python hardware/tools/build_overlays.py --check   # exit 1 if a committed file is stale

Writes hardware/overlays/<game>.svg: each strip of hardware/sensor_map.json with every lane
labelled by the game's counter on it and each space by the value it means, so one built board
serves every game (docs/games.md). Games come from the app's registry; each is drawn for two
players (or the nearest count the game allows).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.dirname(HERE)
ROOT = os.path.dirname(HW)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

import design  # noqa: E402

from companion import games  # noqa: E402
from companion.table.sensing import Binding, lanes_of, overlay_svg  # noqa: E402
from firmware import sensormap  # noqa: E402


def outputs():
    path = os.path.join(HW, "sensor_map.json")
    with open(path) as f:
        raw = json.load(f)
    lanes = lanes_of(sensormap.load(path))
    out = {}
    for m in games.modules():
        if m.sensing is None:
            continue
        setup = m.sample_setup(min(max(2, m.players[0]), m.players[1]))
        binding = Binding.bind(m.sensing.counters(setup), lanes)
        out[os.path.join(HW, "overlays", m.id + ".svg")] = overlay_svg(m.title, binding, raw)
    return out


def main(argv):
    os.makedirs(os.path.join(HW, "overlays"), exist_ok=True)
    return design.write_or_check(outputs(), argv, "build_overlays.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
