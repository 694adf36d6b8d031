"""The companion's link layer over a real pty with pyserial and the real sensor map."""
import time

from companion.link.board_link import DEFAULT_MAP, BoardConnection, describe_usb, mask_positions
from companion.link.linksim import PtyBoardEndpoint
from firmware import sensormap
from protocol import wire

SMAP = sensormap.load(DEFAULT_MAP)


def _collect(conn, until, limit=5.0):
    events = []
    end = time.monotonic() + limit
    while time.monotonic() < end:
        conn.drain(events.append)
        if until(events):
            return events
        time.sleep(0.005)
    return events


def _board(map_hash=SMAP.hash8):
    b = PtyBoardEndpoint(lanes=[1] * SMAP.n_lanes, wells=SMAP.n_wells, map_hash=map_hash)
    b.start()
    return b


def test_pairs_mirrors_the_table_and_names_lanes_and_faults():
    board = _board()
    conn = BoardConnection(board.path).start()
    try:
        ev = _collect(conn, lambda e: any(x["type"] == "TABLE" for x in e))
        assert any(x["type"] == "STATE" and x["state"] == "paired" for x in ev)
        table = [x for x in ev if x["type"] == "TABLE"][-1]
        assert table["lanes"] == [1] * SMAP.n_lanes
        lane = SMAP.lane_index("military_might.p2")
        board.move(lane, 0b1001)  # two tokens in one lane
        board.die(1, wire.DICE_SETTLED, 5, 93, 1)
        board.send(wire.SELF_TEST, {"trigger": 1, "registers": SMAP.chain_registers,
                                    "faults": [(wire.FAULT_BIT_STUCK, SMAP.lane_bits(lane)[2], 9),
                                               (wire.FAULT_SENSOR_MISSING, 0, 0)]})
        ev = _collect(conn, lambda e: any(x["type"] == "SELF_TEST" for x in e))
        tc = [x for x in ev if x["type"] == "TRACK_CHANGE"][0]
        assert (tc["lane_id"], tc["positions"]) == ("military_might.p2", [0, 3])
        dice = [x for x in ev if x["type"] == "DICE"][0]
        assert (dice["well_id"], dice["state"], dice["value"]) == (SMAP.well_ids[1], "settled", 5)
        faults = [x for x in ev if x["type"] == "SELF_TEST"][0]["faults"]
        assert faults[0]["where"] == "military_might.p2 space 2"
        assert faults[1]["where"] == "well 1" and "missing" in faults[1]["fault"]  # as the players number them
        assert conn.mirror.lanes[lane] == 0b1001
        conn.command(wire.CMD_SELF_TEST)
        end = time.monotonic() + 3
        got = []
        while time.monotonic() < end and not got:
            got = [c for c in board.commands if c["type"] == "CMD_SELF_TEST"]
            time.sleep(0.01)
        assert len(got) == 1
    finally:
        conn.stop()
        board.close()


def test_board_for_another_map_is_refused_with_both_hashes():
    board = _board(map_hash=b"\x99" * 8)
    conn = BoardConnection(board.path).start()
    try:
        ev = _collect(conn, lambda e: any(x.get("state") == "refused" for x in e))
        refused = [x for x in ev if x.get("state") == "refused"]
        assert refused and SMAP.hash_hex[:16] in refused[0]["detail"] and "9999999999999999" in refused[0]["detail"]
        assert not any(x["type"] == "TABLE" for x in ev)
    finally:
        conn.stop()
        board.close()


def test_unplug_shows_disconnected_and_replug_resumes_the_same_stream():
    board = _board()
    conn = BoardConnection(board.path).start()
    try:
        _collect(conn, lambda e: any(x["type"] == "TABLE" for x in e))
        board.close()  # the cable is pulled: the pty disappears
        ev = _collect(conn, lambda e: any(x.get("state") in ("disconnected", "searching") for x in e))
        assert any(x.get("state") in ("disconnected", "searching") for x in ev)
    finally:
        conn.stop()


def test_port_names_and_masks():
    assert "Pico" in describe_usb(0x2E8A, 0x0005)
    assert "CP210x" in describe_usb(0x10C4, 0xEA60)
    assert "CH340" in describe_usb(0x1A86, 0x7523)
    assert "ESP32" in describe_usb(0x303A, 0x1001)
    assert describe_usb(0x0403, 0x6001) is None
    assert mask_positions(0) == [] and mask_positions(0b100101) == [0, 2, 5]


def test_app_falls_back_to_the_virtual_board_running_the_real_firmware():
    from companion.link.board_port import open_board
    board = open_board("virtual")
    board.start()
    try:
        end = time.monotonic() + 10
        while time.monotonic() < end and board.status()["state"] != "paired":
            board.poll()
            time.sleep(0.02)
        assert board.status()["mode"] == "virtual" and board.status()["state"] == "paired"
        board.vboard.place("military_might.p1", 2)
        board.vboard.roll(1, value=6)
        end = time.monotonic() + 10
        well = SMAP.well_ids[1]
        while time.monotonic() < end and not (board.lanes() and board.wells().get(well, ("",))[0] == "settled"):
            board.poll()
            time.sleep(0.02)
        assert board.lanes() == {"military_might.p1": 2}
        assert board.wells()[SMAP.well_ids[1]] == ("settled", 6)
    finally:
        board.stop()


def test_mirror_refuses_messages_that_do_not_fit_the_map_and_keeps_its_state():
    from companion.link.board_link import TableMirror
    mirror = TableMirror(SMAP)
    good = {"type": "SNAPSHOT", "reason": 1, "folded": 0, "lanes": [1] * SMAP.n_lanes,
            "wells": [(0, 0, 0, 0)] * SMAP.n_wells}
    assert mirror.apply(good)["type"] == "TABLE"
    for bad in (dict(good, lanes=[2] * (SMAP.n_lanes - 1)), dict(good, wells=[(0, 0, 0, 0)]),
                {"type": "TRACK_CHANGE", "lane": SMAP.n_lanes, "mask": 1},
                {"type": "DICE", "well": SMAP.n_wells, "state": 2, "value": 3, "confidence": 90, "roll": 1}):
        ev = mirror.apply(bad)
        assert ev["type"] == "ERROR" and "sensor map has" in ev["detail"]
    assert mirror.lanes == [1] * SMAP.n_lanes


def test_short_unplug_of_the_port_returns_to_paired_without_a_new_hello():
    """The port errors (USB unplug), is reopened a second later while the link is still in
    session: the state must come back to 'paired' (no LINK_UP is sent again on a resume)."""
    import serial

    board = _board()
    real_open = lambda: serial.Serial(board.path, baudrate=115200, timeout=0.005, write_timeout=0.5)
    ports = []

    def open_port():
        ports.append(real_open())
        return ports[-1]

    conn = BoardConnection(board.path, open_port=open_port).start()
    try:
        _collect(conn, lambda e: any(x.get("state") == "paired" for x in e))

        class Unplugged:
            def read(self, n):
                raise serial.SerialException("device reports readiness to read but returned no data")

            def write(self, data):
                raise serial.SerialException("write failed")

            def close(self):
                ports[-1].close()

        conn._serial = Unplugged()  # the next read fails like a pulled cable
        ev = _collect(conn, lambda e: any(x.get("state") == "disconnected" for x in e)
                      and e[-1].get("state") == "paired", limit=6)
        states = [x["state"] for x in ev if x["type"] == "STATE"]
        assert "disconnected" in states and states[-1] == "paired", states
        assert conn.state == "paired"
    finally:
        conn.stop()
        board.close()


def test_refused_board_does_not_answer_the_hosts_error_with_an_error():
    """The host refuses a board with another sensor map and says so (ERROR map_mismatch); the
    firmware counts it and stays quiet instead of replying 'command ERROR not handled'."""
    import os

    from companion.link.virtual_board import VirtualBoard

    other_map = os.path.join(os.path.dirname(DEFAULT_MAP), "sensor_map_no_resources.json")
    vb = VirtualBoard(other_map, seed=1)
    conn = BoardConnection(vb.start()).start()
    try:
        ev = _collect(conn, lambda e: any(x.get("state") == "refused" for x in e))
        assert any(x.get("state") == "refused" for x in ev)
        end = time.monotonic() + 2.0
        while time.monotonic() < end and vb.board.host_errors == 0:
            time.sleep(0.02)
        assert vb.board.host_errors >= 1 and vb.board.last_host_error == wire.E_MAP_MISMATCH
        ev += _collect(conn, lambda e: False, limit=0.5)
        assert not [x for x in ev if x["type"] == "ERROR" and "not handled" in x.get("detail", "")]
    finally:
        conn.stop()
        vb.stop()


def test_event_queue_is_bounded_and_folds_into_the_table_and_a_snapshot_request():
    from companion.link.board_link import EventQueue
    board = _board()
    conn = BoardConnection(board.path)
    conn.events = EventQueue(bound=40)
    conn.start()
    try:
        _collect(conn, lambda e: any(x["type"] == "TABLE" for x in e))
        lanes = list(range(SMAP.n_lanes))
        peak = 0
        for i in range(400):  # the UI does not drain meanwhile
            while not board.move(lanes[i % len(lanes)], (i % 7) + 1):
                time.sleep(0.002)  # the board's ring is full: wait for acknowledgements
            peak = max(peak, conn.events.qsize())
        time.sleep(0.3)
        peak = max(peak, conn.events.qsize())
        assert conn.events.folds > 0 and peak <= 40
        ev = _collect(conn, lambda e: any(x["type"] == "TABLE" and x["reason"] == "request"
                                          for x in e))
        folded = [x for x in ev if x["type"] == "TABLE" and x["reason"] == "overflow"]
        assert folded and folded[0]["folded"] > 0
        assert conn.mirror.lanes == board.lanes  # the picture is the board's, nothing lost
        # a flood of error reports is bounded too: the latest of the code, counted
        q = EventQueue(bound=10)
        for k in range(100):
            q.put({"type": "ERROR", "code": 1, "detail": str(k)})
        assert [(e["detail"], e["folded"]) for e in q.snapshot()] == [("99", 99)]
    finally:
        conn.stop()
        board.close()


def test_a_board_refused_while_another_is_paired_leaves_the_state_paired():
    """docs/protocol.md 3.1/4.6: the refusal is shown (an ERROR event with its reason) but the
    tablet stays paired with its board; the app never shows 'refused' while it is paired."""
    conn = BoardConnection("/dev/null-not-opened")  # the worker never runs: frames fed by hand

    def hello(session, map_hash):
        return wire.encode_frame(wire.HELLO, 0, 0, {
            "flags": 1, "role": wire.ROLE_BOARD, "version": (0, 1, 0), "rx_next": 0,
            "map_hash": map_hash, "lanes": SMAP.n_lanes, "wells": SMAP.n_wells,
            "board_id": "b", "profile": "pico"}, session, 0)
    conn.host.feed(hello(0x12345678, SMAP.hash8))
    conn.host.feed(hello(0x0BADCAFE, b"\xff" * 8))
    events = []
    conn.drain(events.append)
    states = [e["state"] for e in events if e["type"] == "STATE"]
    assert states == ["paired"] and conn.state == "paired" and conn.host.state == "paired"
    err = [e for e in events if e["type"] == "ERROR"]
    assert len(err) == 1 and err[0]["code"] == wire.E_MAP_MISMATCH and "ffffffffffffffff" in err[0]["detail"]
