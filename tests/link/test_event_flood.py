"""The tablet's event queue under floods of every event kind (docs/protocol.md 4.7), over a real
pty with pyserial, the real HostLink and a BoardLink that sends as fast as its ring allows while
the UI does not drain: the queue stays small and the latest event of each kind arrives."""
import os
import time

from companion.link.board_link import DEFAULT_MAP, BoardConnection, EventQueue, fold_key
from companion.link.linksim import PtyBoardEndpoint
from firmware import sensormap
from protocol import link as plink
from protocol import wire

SMAP = sensormap.load(DEFAULT_MAP)


def _drain(conn):
    out = []
    while True:
        n = len(out)
        conn.drain(out.append, limit=10000)
        if len(out) == n:
            return out


def _wait(pred, limit=10.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.005)
    return False


def _paired_board_and_conn():
    board = PtyBoardEndpoint(lanes=[0] * SMAP.n_lanes, wells=SMAP.n_wells, map_hash=SMAP.hash8)
    board.start()
    conn = BoardConnection(board.path).start()
    assert _wait(lambda: conn.host.synced and board.link.synced)
    assert _wait(lambda: any(e["type"] == "TABLE" for e in conn.events.snapshot()))
    _drain(conn)
    return board, conn


def _flood(board, conn, make, n):
    """Send n sequenced messages as fast as the board's ring takes them; the UI does not
    drain. Returns the largest queue size seen."""
    peak = 0
    sent = 0
    while sent < n:
        if board.send(*make(sent)) >= 0:
            sent += 1
        else:
            time.sleep(0.0005)  # ring full: the tablet's acknowledgements free it
        peak = max(peak, conn.events.qsize())
    assert _wait(lambda: board.link.count == 0)
    return max(peak, conn.events.qsize())


def test_self_test_and_calibration_floods_fold_to_the_latest_of_each():
    board, conn = _paired_board_and_conn()
    try:
        n = 3000

        def self_test(i):
            return wire.SELF_TEST, {"trigger": 2, "registers": SMAP.chain_registers,
                                    "faults": [(wire.FAULT_SENSOR_MISSING, 0, 0)] if i % 2 else []}

        peak = _flood(board, conn, self_test, n)
        assert peak <= 3, peak
        ev = _drain(conn)
        reports = [e for e in ev if e["type"] == "SELF_TEST"]
        assert len(reports) == 1  # the latest, standing for all of them
        assert reports[0]["folded"] == n - 1 and reports[0]["faults"][0]["fault"]
        assert conn.host.counters["rx_delivered"] >= n  # every one went through the link

        def cal(i):  # answers for two wells: each well's latest stays
            return wire.CAL_STATUS, {"step": 2, "well": i % 2, "face": 1 + i % 6, "status": 0,
                                     "c": i, "r": 0, "g": 0, "b": 0}

        peak = _flood(board, conn, cal, n)
        assert peak <= 3, peak
        ev = _drain(conn)
        assert sorted((e["well"], e["c"], e["folded"]) for e in ev) == [
            (0, n - 2, n // 2 - 1), (1, n - 1, n // 2 - 1)]
    finally:
        conn.stop()
        board.close()


def test_error_flood_folds_per_code_and_table_events_still_arrive_in_order():
    board, conn = _paired_board_and_conn()
    try:
        lane = SMAP.lane_index("military_might.p2")
        codes = (wire.E_BAD_ARGUMENT, wire.E_INTERNAL, wire.E_BUSY)
        for i in range(3000):  # unsequenced: sent at once, no ring to wait for
            with board.lock:
                board.link.send_error(codes[i % 3], 0x21, i, "error %d" % i)
            if i % 1000 == 999:
                assert board.move(lane, 1 << (i // 1000))
        assert _wait(lambda: conn.host.counters["rx_frames"] >= 3000 and board.link.count == 0)
        assert conn.events.qsize() <= 3 + 3
        ev = _drain(conn)
        errors = [e for e in ev if e["type"] == "ERROR"]
        assert sorted((e["code"], e["folded"]) for e in errors) == [(c, 999) for c in sorted(codes)]
        assert [e["detail"] for e in errors] == ["error 2997", "error 2998", "error 2999"]
        # table events are never replaced one by one: all three moves, in order
        assert [e["mask"] for e in ev if e["type"] == "TRACK_CHANGE"] == [1, 2, 4]
    finally:
        conn.stop()
        board.close()


def test_hellos_with_changing_ids_leave_one_state_event_and_the_newest_board():
    """Boards restarting with a new session and id, as fast as the line takes their HELLOs:
    each pairs, the queue keeps only the latest state (and one dropped-commands report)."""
    board, conn = _paired_board_and_conn()
    try:
        board.running = False  # this test writes the HELLOs itself
        board.join(2)
        conn.command(wire.CMD_SELF_TEST)  # outstanding, so the next boards' pairings drop it
        assert _wait(lambda: conn.host.count == 1)
        n = 2000
        os.set_blocking(board.master, False)

        def read_back():  # what the tablet answers, so the pty's buffers never fill
            try:
                while os.read(board.master, 65536):
                    pass
            except BlockingIOError:
                pass

        def write(buf, start, end):
            data = bytes(buf[start:end])
            while data:
                try:
                    data = data[os.write(board.master, data):]
                except BlockingIOError:
                    read_back()
                    time.sleep(0.001)

        for i in range(n):
            info = dict(board.link.info, board_id="board-%d" % i)
            other = plink.BoardLink(write, board._ms, lambda m: None, info, 1000 + i,
                                    lambda: ([0] * SMAP.n_lanes, [(0, 0, 0, 0)] * SMAP.n_wells))
            other.send_hello(True)
            read_back()
        end = time.monotonic() + 10
        while time.monotonic() < end and conn.host.counters["hello_rx"] < n:
            read_back()
            time.sleep(0.005)
        assert conn.host.counters["hello_rx"] >= n
        # the count goes up as a HELLO arrives, the pairing's STATE is queued just after: on a busy
        # machine wait for the newest board's (peeking, not taking) before draining
        newest = "board-%d" % (n - 1)
        assert _wait(lambda: any(e.get("type") == "STATE" and newest in e.get("detail", "")
                                 for e in conn.events.snapshot()))
        assert conn.events.qsize() <= 3
        ev = _drain(conn)
        states = [e for e in ev if e["type"] == "STATE"]
        assert len(states) == 1 and "board-%d" % (n - 1) in states[0]["detail"]
        assert states[0]["folded"] >= n - 1 and states[0]["peer"]["board_id"] == "board-%d" % (n - 1)
        dropped = [e for e in ev if e["type"] == "COMMANDS_DROPPED"]
        assert [d["count"] for d in dropped] == [1]  # the one command, never lost from the count
    finally:
        conn.stop()
        board.close()


def test_queue_is_bounded_with_few_fold_keys_whatever_arrives():
    q = EventQueue(bound=50)
    table = {"type": "TABLE", "lanes": [0], "wells": [], "reason": "x", "folded": 0, "changed": []}
    kinds = [{"type": "STATE", "state": "paired", "detail": "x"},
             {"type": "SELF_TEST", "trigger": 2, "faults": []},
             {"type": "CAL_STATUS", "step": 9, "well": 300, "status": 0},
             {"type": "ERROR", "code": 200, "detail": "?"},
             {"type": "COMMANDS_DROPPED", "count": 2},
             {"type": "CMD_SNAPSHOT"}, {"type": "SOMETHING"}]
    for i in range(20000):
        q.put(dict(kinds[i % len(kinds)], n=i) if i % 3 else
              {"type": "DICE", "well": 0, "roll": i}, lambda: table)
        assert q.qsize() <= 50
    # CMD_SNAPSHOT and SOMETHING share the one key of 'any other type' (4.7)
    assert len({fold_key(k) for k in kinds}) == len(kinds) - 1
    got = q.snapshot()
    dropped = [e for e in got if e["type"] == "COMMANDS_DROPPED"]
    assert dropped[0]["count"] == 2 * (dropped[0]["folded"] + 1)  # counts summed, not replaced
    assert any(e["type"] == "TABLE" and e["reason"] == "overflow" for e in got)


def test_states_fold_per_state_and_the_last_one_queued_is_the_latest():
    q = EventQueue()
    for i, state in enumerate(["searching", "paired", "disconnected", "searching", "paired",
                               "searching", "paired"]):
        q.put({"type": "STATE", "state": state, "detail": str(i)})
    got = [(e["state"], e["detail"], e.get("folded", 0)) for e in q.snapshot()]
    # a short drop is still seen; the link's current state comes last
    assert got == [("disconnected", "2", 0), ("searching", "5", 2), ("paired", "6", 2)]


def test_the_fold_keys_are_the_specs_5_per_well_plus_22():
    """docs/protocol.md 4.7: 5 states, 1 self-test, 5 calibration steps per well plus 1,
    13 error keys, 1 dropped-commands count, 1 for any other type."""
    wells = SMAP.n_wells
    events = [{"type": "STATE", "state": st} for st in ("searching", "paired", "refused",
                                                          "disconnected", "weird")]
    events += [{"type": "SELF_TEST"}, {"type": "COMMANDS_DROPPED"}, {"type": "CMD_SNAPSHOT"},
               {"type": "SOMETHING"}]
    events += [{"type": "CAL_STATUS", "well": w, "step": step} for w in range(wells)
               for step in range(0, 9)]
    events += [{"type": "ERROR", "code": c} for c in range(0, 40)]
    keys = {fold_key(e) for e in events}
    assert len(keys) == 5 * wells + 22 == 32


def test_folded_is_cumulative_and_the_overflow_table_goes_to_the_back_counting_earlier_ones():
    q = EventQueue(bound=10)
    mirror = {"type": "TABLE", "lanes": [0], "wells": [], "reason": "x", "folded": 0, "changed": []}
    for k in range(3):
        q.put({"type": "ERROR", "code": 7, "detail": str(k)})
    q.put({"type": "STATE", "state": "paired", "detail": ""})
    n = 0
    while q.folds == 0:  # 8 non-table slots left: the 9th table event overflows
        q.put({"type": "DICE", "well": 0, "roll": n}, lambda: mirror)
        n += 1
    got = q.snapshot()
    assert [e["type"] for e in got] == ["ERROR", "STATE", "TABLE"]  # the TABLE at the back
    assert got[0]["folded"] == 2 and got[0]["detail"] == "2"  # cumulative, the newest detail
    assert got[2]["reason"] == "overflow" and got[2]["folded"] == n == 9
    q.put({"type": "STATE", "state": "searching", "detail": ""})
    m = 0
    while q.folds == 1:
        q.put({"type": "TRACK_CHANGE", "lane": 0, "mask": m}, lambda: mirror)
        m += 1
    got = q.snapshot()
    assert [e["type"] for e in got] == ["ERROR", "STATE", "STATE", "TABLE"]
    # the earlier overflow TABLE counts with the 9 events it stood for
    assert got[3]["folded"] == (1 + 9) + m
    assert q.qsize() <= 10


def _spec_event_fields():
    """4.7's table of events: {type: (always, sometimes)} from docs/protocol.md."""
    import re
    spec = open(os.path.join(os.path.dirname(DEFAULT_MAP), "..", "docs", "protocol.md")).read()
    sec = spec[spec.index("### 4.7"):spec.index("## 5.")]
    out = {}
    for line in sec.splitlines():
        m = re.match(r"\| `([A-Z_]+)` \| ([^|]*) \|", line)
        if m and m.group(1) not in out:
            always, _, sometimes = m.group(2).partition(";")
            out[m.group(1)] = (set(re.findall(r"`(\w+)`", always)),
                               set(re.findall(r"`(\w+)`", sometimes)))
    return out


def test_the_events_have_the_fields_the_spec_lists():
    """Every event type of 4.7, made by the real link layer from real frames, has the fields
    the spec's table lists (all of the first group, only those and 'folded')."""
    spec = _spec_event_fields()
    assert set(spec) == {"STATE", "TABLE", "TRACK_CHANGE", "DICE", "SELF_TEST", "CAL_STATUS",
                         "ERROR", "COMMANDS_DROPPED"}
    conn = BoardConnection("/dev/null-not-opened")  # frames fed by hand, no worker
    host = conn.host
    B1, B2 = 0x12345678, 0x0BADCAFE

    def hello(session, map_hash=SMAP.hash8):
        return wire.encode_frame(wire.HELLO, 0, 0, {
            "flags": 1, "role": wire.ROLE_BOARD, "version": (0, 1, 0), "rx_next": 0,
            "map_hash": map_hash, "lanes": SMAP.n_lanes, "wells": SMAP.n_wells,
            "board_id": "b", "profile": "pico"}, session, 0)

    def ev(seq, mtype, fields, session=B1):
        return wire.encode_frame(mtype, seq, 0, fields, session, host.session)
    host.feed(hello(B1))
    host.feed(ev(0, wire.SNAPSHOT, {"reason": 0, "folded": 0, "lanes": [0] * SMAP.n_lanes,
                                    "wells": [(0, 0, 0, 0)] * SMAP.n_wells}))
    host.feed(ev(1, wire.TRACK_CHANGE, {"lane": 2, "mask": 5}))
    host.feed(ev(2, wire.DICE, {"well": 0, "state": 2, "value": 4, "confidence": 90, "roll": 1}))
    host.feed(ev(3, wire.SELF_TEST, {"trigger": 1, "registers": 40, "faults": [(4, 3, 9)]}))
    host.feed(ev(4, wire.CAL_STATUS, {"step": 2, "well": 1, "face": 3, "status": 0, "c": 1,
                                      "r": 2, "g": 3, "b": 4}))
    host.feed(ev(5, wire.TRACK_CHANGE, {"lane": SMAP.n_lanes, "mask": 1}))  # not in the map
    host.feed(wire.encode_frame(wire.ERROR, 0, 0, {"code": 10, "ref_type": 0x22, "ref_seq": 1,
                                                   "detail": "well 9"}, B1, host.session))
    host.feed(hello(B2, b"\xff" * 8))  # refused while paired: an ERROR
    host.command(wire.CMD_SELF_TEST)
    host.feed(hello(B2))  # B1 reset as B2: the command is dropped
    conn._drop(OSError("unplugged"))  # the port goes: 'disconnected'
    refused = BoardConnection("/dev/null-not-opened")
    refused.host.feed(hello(B2, b"\xff" * 8))
    events = []
    conn.drain(events.append, limit=1000)
    refused.drain(events.append)
    seen = {e["type"] for e in events}
    assert seen == set(spec)
    for e in events:
        always, sometimes = spec[e["type"]]
        keys = set(e) - {"type"}
        assert always <= keys <= always | sometimes | {"folded"}, (e["type"], keys, always, sometimes)
    states = {e["state"] for e in events if e["type"] == "STATE"}
    assert states == {"paired", "refused", "disconnected"}
    errors = [e for e in events if e["type"] == "ERROR"]
    assert {e["code"] for e in errors} == {wire.E_BAD_PAYLOAD, wire.E_BAD_ARGUMENT, wire.E_MAP_MISMATCH}
    table = [e for e in events if e["type"] == "TABLE"][0]
    assert set(table["wells"][0]) == {"well", "well_id", "state", "value", "confidence", "roll"}
    st = [e for e in events if e["type"] == "SELF_TEST"][0]
    assert set(st["faults"][0]) == {"code", "fault", "where", "value"}
