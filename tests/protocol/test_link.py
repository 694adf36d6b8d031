"""The reliable link between a real BoardLink and a real HostLink over a simulated faulty cable."""
import binascii

from companion.link.linksim import Faults, Harness
from protocol import cobs
from protocol import link as plink
from protocol import wire

def raw_frame(body):
    return b"\x00" + cobs.encode(body) + b"\x00"


NOISY = dict(bit_flip=1e-3, drop=5e-4, garbage=0.01, truncate=0.01)


def _summary(h):
    return {k: v for k, v in h.report().items() if k not in ("board", "host")}


def test_20000_events_through_every_fault_exactly_once_in_order():
    h = Harness(seed=2024, faults=Faults(unplug_every_ms=15000, unplug_ms=2500,
                                         reset_every_ms=40000, **NOISY))
    h.run_events(20000)
    r = h.report()
    print(_summary(h))
    assert r["generated"] == 20000
    assert (r["lost"], r["duplicated"], r["reordered"]) == (0, 0, 0)
    assert r["unplugs"] >= 3 and r["resets"] >= 2
    assert r["host"]["bad_crc"] > 0 and r["host"]["bad_framing"] > 0  # the faults did happen
    assert r["state_matches"]
    # only a board reset may supersede queued events, and each reset brought a snapshot
    # (or, between a reset and the pairing, the pairing snapshot carries them)
    assert r["delivered"] + r["superseded_by_reset_snapshot"] + r["carried_by_pairing_snapshot"] == 20000
    assert len(h.resync_times) == r["resets"]


def test_unplug_and_replug_resume_without_a_single_superseded_event():
    h = Harness(seed=7, faults=Faults(unplug_every_ms=4000, unplug_ms=2500, **NOISY))
    h.run_events(5000)
    r = h.report()
    assert r["unplugs"] >= 3 and r["host"]["link_down"] >= 3
    assert r["delivered"] == r["generated"] == 5000
    assert r["superseded_by_reset_snapshot"] == 0 and r["lost"] == 0
    assert r["state_matches"]


def test_full_resend_ring_folds_into_an_overflow_snapshot_never_a_silent_drop():
    h = Harness(seed=9, back_pressure=False, faults=Faults(unplug_every_ms=3000, unplug_ms=4000))
    h.run_events(2000, rate_per_ms=0.05)
    r = h.report()
    assert r["folded_into_snapshot"] > 0
    assert r["board"]["overflow_snapshots"] > 0
    assert ("snapshot", wire.SNAP_OVERFLOW) in h.host_events
    assert r["lost"] == 0 and r["duplicated"] == 0 and r["reordered"] == 0
    assert r["state_matches"]


def _pair(map_hash=b"\x11" * 8, lanes=4):
    t = [0]
    wires = {"to_host": [], "to_board": []}
    board_msgs, host_msgs = [], []
    binfo = {"version": (0, 1, 0), "map_hash": b"\x11" * 8, "lanes": 4, "wells": 2,
             "board_id": "b1", "profile": "virtual"}
    hinfo = dict(binfo, map_hash=map_hash, lanes=lanes, board_id="tablet", profile="t")
    board = plink.BoardLink(lambda b, s, e: wires["to_host"].append(bytes(b[s:e])), lambda: t[0],
                            board_msgs.append, binfo, 1, lambda: ([0, 1, 2, 4], [(0, 0, 0, 0)] * 2))
    host = plink.HostLink(lambda b, s, e: wires["to_board"].append(bytes(b[s:e])), lambda: t[0],
                          host_msgs.append, hinfo, 2)

    def run(ms):
        for _ in range(ms):
            t[0] += 1
            for name, dst in (("to_board", board), ("to_host", host)):
                data = b"".join(wires[name])
                wires[name].clear()
                if data:
                    dst.feed(data)
            board.poll()
            host.poll()
    return board, host, board_msgs, host_msgs, run, wires


def test_sensor_map_mismatch_is_refused_with_a_clear_reason():
    board, host, _, host_msgs, run, _ = _pair(map_hash=b"\x22" * 8)
    run(2000)
    refused = [m for m in host_msgs if m["type"] == "REFUSED"]
    assert refused and "1111111111111111" in refused[0]["reason"] and "2222222222222222" in refused[0]["reason"]
    assert not host.synced and host.counters["map_mismatch"] > 0
    assert not [m for m in host_msgs if m["type"] in ("SNAPSHOT", "TRACK_CHANGE")]
    # the board refuses the tablet's HELLO too: unpaired, nothing queued, nothing resent
    assert board.counters["map_mismatch"] > 0 and not board.synced and board.peer_session is None
    assert board.count == 0 and board.counters["tx_resent"] == 0
    assert board.counters["hello_tx"] == 2  # still looking for a tablet, once a second


def test_host_commands_are_acknowledged_and_delivered_once():
    board, host, board_msgs, host_msgs, run, _ = _pair()
    run(50)
    assert host.synced and board.synced
    seqs = [host.command(wire.CMD_SELF_TEST), host.command(wire.CMD_INDICATOR, {"mode": wire.IND_BLINK})]
    run(50)
    assert host.count == 0  # both acknowledged
    got = [m for m in board_msgs if m["type"].startswith("CMD_")]
    assert [m["seq"] for m in got] == seqs and got[1]["mode"] == wire.IND_BLINK
    host.command(wire.CMD_SNAPSHOT)
    run(50)
    assert [m["reason"] for m in host_msgs if m["type"] == "SNAPSHOT"][-1] == wire.SNAP_REQUEST


def test_garbled_and_unknown_commands_get_an_error_reply():
    board, host, board_msgs, host_msgs, run, wires = _pair()
    run(50)
    # a valid frame of an unknown sequenced type, then a frame with a broken CRC
    wires["to_board"].append(raw_frame(wire.build_body(0x2E, host.tx_next, 0, b"\x01",
                                                       host.session, board.session)))
    run(200)
    errors = [m for m in host_msgs if m["type"] == "ERROR"]
    assert errors and errors[-1]["code"] == wire.E_UNKNOWN_TYPE
    frame = bytearray(wire.encode_frame(wire.CMD_SELF_TEST, 5, 0, {}))
    frame[3] ^= 0x40
    wires["to_board"].append(bytes(frame))
    run(200)
    assert [m for m in host_msgs if m["type"] == "ERROR"][-1]["code"] in (wire.E_BAD_CRC, wire.E_BAD_FRAMING)
    assert board.counters["bad_crc"] + board.counters["bad_framing"] == 1


def test_newer_protocol_version_is_refused_with_both_numbers():
    board, host, _, host_msgs, run, wires = _pair()
    body = bytearray(wire.build_body(wire.HELLO, 0, 0, b""))
    body[0] = 3
    body = bytes(body[:-4]) + binascii.crc32(bytes(body[:-4])).to_bytes(4, "little")
    host.feed(raw_frame(body))
    refused = [m for m in host_msgs if m["type"] == "REFUSED"]
    assert refused and "version 3" in refused[0]["reason"] and "speaks 2" in refused[0]["reason"]
    assert host.counters["bad_version"] == 1


def test_every_intact_bad_command_gets_its_error_but_noise_errors_are_rate_limited():
    board, host, board_msgs, host_msgs, run, wires = _pair()
    run(50)
    seq = host.tx_next
    for k in range(3):  # three unknown commands inside one millisecond
        wires["to_board"].append(raw_frame(wire.build_body(0x2D, (seq + k) & 0xFFFF, 0, b"",
                                                           host.session, board.session)))
    for _ in range(5):  # five frames with broken CRCs
        frame = bytearray(wire.encode_frame(wire.CMD_SELF_TEST, 5, 0, {}))
        frame[5] ^= 0x01
        wires["to_board"].append(bytes(frame))
    run(5)
    errors = [m["code"] for m in host_msgs if m["type"] == "ERROR"]
    assert errors.count(wire.E_UNKNOWN_TYPE) == 3
    noise = [c for c in errors if c in (wire.E_BAD_CRC, wire.E_BAD_FRAMING, wire.E_TOO_SHORT)]
    assert len(noise) == 1  # five broken frames in one millisecond: one reply
    assert sum(board.counters[k] for k in ("bad_crc", "bad_framing", "too_short")) >= 5


def test_a_board_reset_drops_the_hosts_unacknowledged_commands_and_reports_them():
    board, host, _, host_msgs, run, wires = _pair()
    run(50)
    host.command(wire.CMD_SELF_TEST)
    host.command(wire.CMD_INDICATOR, {"mode": wire.IND_BLINK})
    wires["to_board"].clear()  # never arrived: the board restarted meanwhile
    hello = dict(host.peer_info, flags=wire.HELLO_REPLY_WANTED, rx_next=0)
    host.feed(wire.encode_frame(wire.HELLO, 0, 0, hello, 0x1234, 0))
    assert {"type": "COMMANDS_DROPPED", "count": 2} in host_msgs
    assert host.count == 0 and host.peer_session == 0x1234
