"""companion/link/board_port.py without Kivy: versions, refusal messages, commands, the port
picker's list and the calibration wizard, against the virtual board (real firmware, real pty,
real link) where it matters."""
import binascii
import os
import select
import struct
import threading
import time

import pytest

from companion.link import board_link
from companion.link import board_port as bp
from firmware import sensormap
from protocol import cobs, wire

pytestmark = pytest.mark.timeout(120)

SMAP = sensormap.load(board_link.DEFAULT_MAP)
NO_RES = os.path.join(board_link.ROOT, "hardware", "sensor_map_no_resources.json")


def _poll_until(board, pred, seconds=10.0, what="condition"):
    events = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        events += board.poll()
        if pred(events):
            return events
        time.sleep(0.01)
    raise AssertionError("timed out waiting for %s; status %r" % (what, board.status()))


def _paired(board):
    return _poll_until(board, lambda ev: board.status()["state"] == "paired", what="pairing")


def _wizard_runner(board, wiz):
    """poll the board, hand each batch of events to the wizard, until pred()."""
    def run(pred, what, seconds=10.0):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            wiz.on_events(board.poll())
            if pred():
                return
            time.sleep(0.01)
        raise AssertionError("timed out waiting for %s (wizard: %s %r)" % (what, wiz.phase, wiz.message))
    return run


@pytest.fixture
def vboard():
    b = bp.VirtualLinkBoard(seed=3)
    b.start()
    try:
        _paired(b)
        _poll_until(b, lambda ev: len(b.wells()) == SMAP.n_wells, what="the first snapshot")
        yield b
    finally:
        b.stop()


def test_virtual_board_versions_positions_and_dice_come_through_the_link(vboard):
    v = vboard.versions()
    assert v["app"] == {"version": "0.1.0", "protocol": wire.VERSION, "map": SMAP.hash_hex,
                        "lanes": SMAP.n_lanes, "wells": SMAP.n_wells}
    assert v["board"]["protocol"] == wire.VERSION and v["board"]["map"] == SMAP.hash_hex
    assert v["board"]["version"] == "0.1.0" and v["board"]["profile"] == "virtual"
    assert vboard.problem() is None and bp.firmware_warning(v["app"], v["board"]) is None
    assert vboard.virtual is vboard.vboard and vboard.smap.n_lanes == SMAP.n_lanes
    vb = vboard.virtual
    vb.place("food.p1", 1)
    vb.place("food.p1", 4)  # two tokens in one lane: reported as such, never picked from
    vb.place("military_might.p2", 3)
    vb.roll(1, value=5, settle_ms=100)
    _poll_until(vboard, lambda ev: vboard.sensed_positions().get("food.p1") == [1, 4]
                and vboard.lanes().get("military_might.p2") == 3
                and vboard.wells().get("well1") == ("settled", 5), what="tokens and a die")
    assert "food.p1" not in vboard.lanes()
    assert vboard.wells()["well0"][0] == "empty"


def test_self_test_names_injected_faults_by_place(vboard):
    vb = vboard.virtual
    spare = SMAP.spare_bits[0]
    vb.inject_stuck_bit(spare, level=0)
    vb.remove_sensor(1)
    time.sleep(0.1)  # let the board scan (every 5 ms) before asking
    assert vboard.self_test() is None and vboard.self_test_pending

    def done(ev):
        st = vboard.last_self_test
        return st is not None and st["trigger"] == wire.TEST_ON_COMMAND
    _poll_until(vboard, done, what="the self-test answer")
    assert not vboard.self_test_pending
    lines = [bp.describe_fault(f) for f in vboard.last_self_test["faults"]]
    assert any("sensor bit stuck on" in x and SMAP.bit_name(spare) in x for x in lines), lines
    assert any("dice sensor missing - well 2" in x for x in lines), lines
    assert any("calibration defaults in use" in x for x in lines), lines  # fresh flash


def test_calibration_wizard_to_saved_then_self_test_is_clean(vboard):
    vb = vboard.virtual
    wiz = bp.CalibrationWizard(vboard, 0)

    run = _wizard_runner(vboard, wiz)
    vb.roll(0, value=2, settle_ms=50)
    run(lambda: vboard.wells()["well0"][0] == "settled", "a die in well0")
    assert wiz.start() and wiz.phase == "empty"
    assert not wiz.confirm_empty() and "take the die out" in wiz.message
    vb.remove_die(0)
    run(lambda: wiz.well_empty(), "well0 empty")
    assert wiz.confirm_empty() and wiz.waiting == wire.CAL_BEGIN
    run(lambda: wiz.phase == "face", "BEGIN answered")
    assert wiz.face == 1 and "with 1 on top" in wiz.message
    assert wiz.capture()  # no die yet: the board says so and the wizard stays on face 1
    run(lambda: wiz.waiting is None, "CAPTURE answered")
    assert wiz.face == 1 and "No die" in wiz.message and wiz.phase == "face"
    for face in range(1, 7):
        vb.roll(0, value=face, settle_ms=60)
        run(lambda: vboard.wells()["well0"] == ("settled", face), "face %d settled" % face)
        assert wiz.capture()
        run(lambda: wiz.waiting is None, "capture %d" % face)
        assert face in wiz.captured, wiz.message
    assert wiz.phase == "save" and wiz.progress() == 1.0
    assert wiz.save()
    run(lambda: wiz.phase == "done", "SAVE answered")
    assert "saved" in wiz.message
    assert vb.call(lambda b: b.store.captured[0]) == [1] * 6
    assert vboard.self_test() is None
    _poll_until(vboard, lambda ev: any(e["type"] == "SELF_TEST" and e["trigger"] == 1 for e in ev),
                what="self-test")
    assert vboard.last_self_test["faults"] == []
    wiz = bp.CalibrationWizard(vboard, 0)
    run = _wizard_runner(vboard, wiz)
    assert wiz.restore_defaults()
    run(lambda: wiz.phase == "done", "DEFAULTS answered")
    assert vb.call(lambda b: b.store.captured[0]) == [0] * 6


def test_calibration_cancel_closes_the_boards_session(vboard):
    vb = vboard.virtual
    wiz = bp.CalibrationWizard(vboard, 1)
    run = _wizard_runner(vboard, wiz)
    assert wiz.start() and wiz.confirm_empty()
    run(lambda: wiz.phase == "face", "BEGIN answered")
    assert vb.call(lambda b: b.session_cal.active())
    assert wiz.cancel() and wiz.phase == "cancelled"
    run(lambda: wiz.waiting is None, "CANCEL answered")
    assert not vb.call(lambda b: b.session_cal.active())
    assert vb.call(lambda b: b.store.defaults_in_use)  # nothing saved


def test_board_with_another_sensor_map_is_refused_naming_both_maps():
    board = bp.VirtualLinkBoard(board_map=NO_RES)
    board.start()
    try:
        _poll_until(board, lambda ev: board.status()["state"] == "refused", what="refusal")
        other = sensormap.load(NO_RES)
        v = board.versions()
        assert v["board"]["map"] == other.hash_hex and v["board"]["lanes"] == other.n_lanes
        msg = board.problem()
        assert other.hash_hex in msg and SMAP.hash_hex in msg
        assert "%d lanes" % other.n_lanes in msg and "%d lanes" % SMAP.n_lanes in msg
        assert "firmware 0.1.0" in msg and board.lanes() == {}
        assert board.self_test() == bp.NOT_PAIRED
    finally:
        board.stop()


class NewerProtocolBoard(threading.Thread):
    """A pty peer whose frames carry protocol version 3 (a newer firmware)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.master, slave = os.openpty()
        import tty
        tty.setraw(slave)
        self.slave = slave
        self.path = os.ttyname(slave)
        self.running = True
        payload = wire.encode_payload(wire.HELLO, {
            "flags": 1, "role": wire.ROLE_BOARD, "version": (2, 0, 0),
            "rx_next": 0, "map_hash": SMAP.hash8, "lanes": SMAP.n_lanes,
            "wells": SMAP.n_wells, "board_id": "future", "profile": "pico"})
        head = struct.pack(wire.HEADER_FMT, 3, wire.HELLO, 0, 0, 5, 0) + payload
        body = head + struct.pack("<I", binascii.crc32(head) & 0xFFFFFFFF)
        self.frame = b"\x00" + cobs.encode(body) + b"\x00"

    def run(self):
        while self.running:
            try:
                os.write(self.master, self.frame)
                while select.select([self.master], [], [], 0)[0]:
                    os.read(self.master, 4096)  # what the app sends is read and ignored
            except OSError:
                return
            time.sleep(0.2)

    def close(self):
        self.running = False
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


def test_board_speaking_another_protocol_version_is_refused_naming_both_versions():
    peer = NewerProtocolBoard()
    peer.start()
    board = bp.LinkBoard(board_link.BoardConnection(peer.path), "test port")
    board.start()
    try:
        _poll_until(board, lambda ev: board.status()["state"] == "refused", what="refusal")
        v = board.versions()
        assert v["board"]["protocol"] == 3 and v["app"]["protocol"] == 2
        msg = board.problem()
        assert "protocol version 3" in msg and "protocol version 2" in msg
    finally:
        board.stop()
        peer.close()


def test_commands_need_a_paired_board_and_manual_board_has_none():
    m = bp.open_board("none")
    assert m.mode == "manual" and m.virtual is None and m.smap is None
    for r in (m.self_test(), m.calibrate(1, 0), m.identify(), m.request_snapshot()):
        assert r and "manual" in r
    v = m.versions()
    assert v["board"] is None and v["app"]["map"] == SMAP.hash_hex and v["app"]["protocol"] == 2
    master, slave = os.openpty()  # a port where nothing answers
    try:
        b = bp.LinkBoard(board_link.BoardConnection(os.ttyname(slave)))
        b.start()
        try:
            time.sleep(0.2)
            b.poll()
            assert b.status()["state"] == "searching"
            assert b.self_test() == bp.NOT_PAIRED and not b.self_test_pending
            assert b.versions()["board"] is None and b.problem() is None
        finally:
            b.stop()
    finally:
        os.close(master)
        os.close(slave)


def test_port_choices_recognised_boards_first_then_other_ports(monkeypatch):
    monkeypatch.setattr(board_link, "find_boards", lambda: [("/dev/ttyACM0", "Raspberry Pi Pico (MicroPython, RP2040)")])
    monkeypatch.setattr(board_link, "all_ports", lambda: [("/dev/ttyACM0", "Board CDC"), ("/dev/ttyS0", "n/a"),
                                                          ("/dev/ttyUSB1", "FT232R")])
    ch = bp.port_choices()
    assert [c["choice"] for c in ch] == ["auto", "virtual", "none", "/dev/ttyACM0", "/dev/ttyS0", "/dev/ttyUSB1"]
    assert ch[3]["kind"] == "board" and "Pico" in ch[3]["subtitle"]
    assert ch[4]["subtitle"] == "not a recognised board" and ch[5]["subtitle"] == "FT232R: not a recognised board"

    def boom():
        raise OSError("no serial support")
    monkeypatch.setattr(board_link, "find_boards", boom)
    ch = bp.port_choices()
    assert [c["kind"] for c in ch] == ["fixed"] * 3 + ["error"] and "no serial" in ch[3]["subtitle"]
    assert bp.current_choice(bp.ManualBoard(), None) in ("auto", os.environ.get(bp.ENV_VAR, "auto"))
    assert bp.current_choice(bp.ManualBoard(), "none") == "none"


def test_texts_for_faults_refusals_and_firmware_lines():
    assert bp.describe_fault({"code": 4, "fault": "sensor bit stuck on", "where": "food.p1 space 3",
                              "value": 61}) == ("sensor bit stuck on - food.p1 space 3 (seen for 61 s): "
                                                "a hall switch stuck on, or a token forgotten on that space")
    assert "more than the read can tell" in bp.describe_fault({"code": 3, "fault": "x", "where": "", "value": 0xFFFF})
    assert "0x77" in bp.describe_fault({"code": 2, "fault": "wrong dice sensor id", "where": "well0", "value": 0x77})
    assert "fault 99" in bp.describe_fault({"code": 99, "where": "", "value": 0})
    app = {"version": "0.1.0", "protocol": 1, "map": "aa", "lanes": 28, "wells": 2}
    assert "something odd" in bp.refusal_message(app, None, "something odd")
    assert bp.firmware_warning(app, {"version": "1.2.0"}).startswith("Board firmware 1.2.0")
    assert bp.firmware_warning(app, {"version": "0.9.1"}) is None


class FakeBoard:
    """Stands in for the link: records commands; the test plays the board's answers."""

    state = "paired"
    smap = SMAP

    def __init__(self):
        self.sent = []
        self._wells = {"well0": ("empty", 0), "well1": ("empty", 0)}

    def calibrate(self, step, well=0, face=0):
        self.sent.append((step, well, face))
        return None

    def wells(self):
        return self._wells


def _status(step, status, well=0, face=0, reading=None):
    """A CAL_STATUS; a capture of `face` reads that face's printed colour unless told otherwise."""
    from firmware import calib
    if reading is None:
        reading = calib.DEFAULT_FACES[face - 1] if step == wire.CAL_CAPTURE and 1 <= face <= 6 else (1, 2, 3, 4)
    c, r, g, b = reading
    return {"type": "CAL_STATUS", "step": step, "well": well, "face": face, "status": status,
            "c": c, "r": r, "g": g, "b": b}


def test_wizard_failures_end_it_with_a_reason():
    b = FakeBoard()
    wiz = bp.CalibrationWizard(b, 0)
    assert wiz.start() and wiz.confirm_empty()
    wiz.on_events([_status(wire.CAL_BEGIN, wire.CAL_OK)])
    assert wiz.capture()
    wiz.on_events([_status(wire.CAL_CAPTURE, wire.CAL_NOT_ACTIVE)])
    assert wiz.phase == "failed" and "no calibration in progress" in wiz.message
    assert wiz.restore_defaults() and b.sent[-1] == (wire.CAL_DEFAULTS, 0, 0)
    wiz.on_events([_status(wire.CAL_DEFAULTS, wire.CAL_OK)])
    assert wiz.phase == "done" and "default colours" in wiz.message

    wiz = bp.CalibrationWizard(b, 0)
    wiz.start()
    wiz.confirm_empty()
    wiz.on_events([{"type": "COMMANDS_DROPPED", "count": 1}])
    assert wiz.phase == "failed" and "nothing was saved" in wiz.message

    wiz = bp.CalibrationWizard(b, 0)
    wiz.start()
    wiz.confirm_empty()
    wiz.on_events([_status(wire.CAL_BEGIN, wire.CAL_OK)])
    for face in range(1, 7):
        assert wiz.capture() and not wiz.capture()  # one step at a time
        wiz.on_events([_status(wire.CAL_CAPTURE, wire.CAL_OK, face=face)])
    assert wiz.save()
    wiz.on_events([_status(wire.CAL_SAVE, wire.CAL_STORE_FAILED)])
    assert wiz.phase == "failed" and "could not store" in wiz.message

    wiz = bp.CalibrationWizard(b, 0)
    wiz.start()
    wiz.confirm_empty()
    wiz.on_events([_status(wire.CAL_BEGIN, wire.CAL_OK)])
    wiz.on_events([{"type": "STATE", "state": "searching", "detail": ""}])
    assert wiz.phase == "failed" and "went searching" in wiz.message
    b.state = "searching"
    assert not bp.CalibrationWizard(b, 0).start()


def test_wizard_gives_up_with_a_message_when_the_board_never_answers():
    now = [100.0]
    b = FakeBoard()
    wiz = bp.CalibrationWizard(b, 0, clock=lambda: now[0], timeout_s=5)
    assert wiz.start() and wiz.confirm_empty()
    wiz.on_events([_status(wire.CAL_BEGIN, wire.CAL_OK)])
    assert wiz.capture() and wiz.waiting == wire.CAL_CAPTURE
    now[0] += 4.9
    assert not wiz.tick() and wiz.phase == "face"
    wiz.on_events([])
    assert wiz.phase == "face"
    now[0] += 0.2
    wiz.on_events([])  # no answer at all: the poll's tick ends it
    assert wiz.phase == "failed" and wiz.waiting is None
    assert "did not answer" in wiz.message and "capture" in wiz.message and "Nothing was saved" in wiz.message
    assert b.sent[-1] == (wire.CAL_CANCEL, 0, 0)  # the board's half-done session is closed
    wiz.on_events([_status(wire.CAL_CAPTURE, wire.CAL_OK, face=1)])  # a late answer changes nothing
    assert wiz.phase == "failed" and wiz.captured == {}

    # an answer arriving in the same batch as the deadline is taken, not timed out
    wiz = bp.CalibrationWizard(b, 0, clock=lambda: now[0], timeout_s=5)
    wiz.start()
    wiz.confirm_empty()
    now[0] += 6
    wiz.on_events([_status(wire.CAL_BEGIN, wire.CAL_OK)])
    assert wiz.phase == "face"

    # a save the board never confirms says it may have been stored
    wiz = bp.CalibrationWizard(b, 0, clock=lambda: now[0], timeout_s=5)
    assert wiz.restore_defaults()
    now[0] += 5
    assert wiz.tick() and wiz.phase == "failed" and "may have saved" in wiz.message


def test_implausible_captures_are_refused_and_recaptured_not_saved():
    """A face read as another face's printed colour is not kept; two faces alike are captured
    again before the save reaches the board; the board's own refusal of a save does the same."""
    from firmware import calib
    b = FakeBoard()
    wiz = bp.CalibrationWizard(b, 0)
    wiz.start()
    wiz.confirm_empty()
    wiz.on_events([_status(wire.CAL_BEGIN, wire.CAL_OK)])
    assert wiz.capture()
    red = calib.DEFAULT_FACES[5]
    wiz.on_events([_status(wire.CAL_CAPTURE, wire.CAL_IMPLAUSIBLE, face=1, reading=red)])
    assert wiz.phase == "face" and wiz.face == 1 and 1 not in wiz.captured
    assert "printed colour of face 6" in wiz.message and "1 is on top" in wiz.message
    for face in range(1, 7):
        assert wiz.capture()
        reading = calib.DEFAULT_FACES[2] if face == 5 else None  # face 5 reads like face 3
        wiz.on_events([_status(wire.CAL_CAPTURE, wire.CAL_OK, face=face, reading=reading)])
    assert wiz.phase == "save"
    n = len(b.sent)
    assert not wiz.save() and len(b.sent) == n, "nothing implausible is sent to be saved"
    assert wiz.phase == "face" and wiz.face == 5 and "Faces 3 and 5 read too much alike" in wiz.message
    assert wiz.capture()
    wiz.on_events([_status(wire.CAL_CAPTURE, wire.CAL_OK, face=5)])
    assert wiz.phase == "save" and wiz.save() and b.sent[-1][0] == wire.CAL_SAVE
    # the board refuses the save on its own check: face 2 and face 4 too close
    wiz.on_events([{"type": "CAL_STATUS", "step": wire.CAL_SAVE, "well": 0, "face": 2,
                    "status": wire.CAL_IMPLAUSIBLE, "c": 4, "r": 80, "g": 0, "b": 0}])
    assert wiz.phase == "face" and wiz.face == 4 and 4 not in wiz.captured
    assert "Faces 2 and 4 read too much alike (difference 80" in wiz.message


def test_plausibility_rules_of_the_calibration_store():
    from firmware import calib
    faces = [list(f) for f in calib.DEFAULT_FACES]
    assert calib.check_faces(faces) is None
    assert [calib.check_capture(i + 1, f) for i, f in enumerate(faces)] == [None] * 6
    assert calib.check_capture(2, faces[5]) == 6
    brighter = [f[0] * 2 for f in faces]  # twice the light: same colours, still plausible
    assert [calib.check_capture(i + 1, [c] + [x * 2 for x in f[1:]]) for i, (c, f) in
            enumerate(zip(brighter, faces))] == [None] * 6
    faces[3] = list(faces[1])
    assert calib.check_faces(faces)[:2] == (2, 4)
