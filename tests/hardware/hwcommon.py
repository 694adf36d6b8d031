"""Paths and helpers shared by the hardware tests."""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HW = os.path.join(ROOT, "hardware")
FW = os.path.join(ROOT, "firmware")
for p in (FW, os.path.join(HW, "tools")):
    if p not in sys.path:
        sys.path.insert(0, p)

FULL = os.path.join(HW, "sensor_map.json")
REDUCED = os.path.join(HW, "sensor_map_no_resources.json")


def read_json(path):
    with open(path) as f:
        return json.load(f)


