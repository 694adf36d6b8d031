"""Paths and modules shared by the hardware tests.

The modules under test are loaded from their files under private names, so that nothing
is added to sys.path (firmware/ and hardware/tools/ hold generic module names).
"""
import importlib.util
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HW = os.path.join(ROOT, "hardware")
FW = os.path.join(ROOT, "firmware")
TOOLS = os.path.join(HW, "tools")

FULL = os.path.join(HW, "sensor_map.json")
REDUCED = os.path.join(HW, "sensor_map_no_resources.json")


def _load(name, path, alias=None):
    key = "_hwtest_" + name
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[key] = mod
    if alias:
        # the tool scripts import their siblings by plain name; give them ours
        sys.modules.setdefault(alias, mod)
    spec.loader.exec_module(mod)
    return mod


sensormap = _load("sensormap", os.path.join(FW, "sensormap.py"))
design = _load("design", os.path.join(TOOLS, "design.py"))
bom_data = _load("bom_data", os.path.join(TOOLS, "bom_data.py"))
_saved = {k: sys.modules.get(k) for k in ("design", "bom_data")}
sys.modules["design"] = design
sys.modules["bom_data"] = bom_data
_path = list(sys.path)
try:
    build_docs = _load("build_docs", os.path.join(TOOLS, "build_docs.py"))
finally:
    sys.path[:] = _path
    for k, v in _saved.items():
        if v is None:
            sys.modules.pop(k, None)
        else:
            sys.modules[k] = v


def read_json(path):
    with open(path) as f:
        return json.load(f)
