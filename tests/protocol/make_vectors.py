"""Writes tests/protocol/vectors.json: frame vectors (decode/encode) and link cases (frames fed
to one endpoint, what it delivers and sends). Expected results are computed here on CPython;
test_vectors.py checks that both CPython and a real MicroPython VM reproduce them exactly.

Run after a deliberate protocol change: .venv/bin/python -m tests.protocol.make_vectors
"""
import binascii
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from protocol import cobs, wire  # noqa: E402
import vector_runner  # noqa: E402

BOARD = 0x12345678
TABLET = 0xCAFEBABE
HASH = "0123456789abcdef"


def frame(mtype, seq, ack, session, peer, fields):
    return wire.encode_frame(mtype, seq, ack, fields, session, peer)


def message_vector(name, mtype, seq, ack, session, peer, fields):
    f = vector_runner.from_jsonable(mtype, fields)
    raw = frame(mtype, seq, ack, session, peer, f)
    msg = dict(fields, type=wire.TYPE_NAMES[mtype], seq=seq, ack=ack, session=session, peer=peer)
    return {"name": name, "frame": binascii.hexlify(raw).decode(), "message": msg}


def error_vector(name, raw, error, to=None):
    v = {"name": name, "frame": binascii.hexlify(raw).decode(), "expect_error": error}
    if to is not None:  # decoded as that side receives it (wire.takes: the type first)
        v["to"] = to
    return v


def raw(body):
    return b"\x00" + cobs.encode(body) + b"\x00"


def recrc(body):
    body = bytes(body[:-4])
    return body + (binascii.crc32(body) & 0xFFFFFFFF).to_bytes(4, "little")


def hello(flags, role, rx_next, board_id, profile):
    return {"flags": flags, "role": role, "version": [0, 1, 0], "rx_next": rx_next,
            "map_hash": HASH, "lanes": 40, "wells": 2, "board_id": board_id, "profile": profile}


def frame_vectors():
    B, T = BOARD, TABLET
    v = [
        message_vector("hello-board", wire.HELLO, 0, 0, B, 0, hello(1, 0, 0, "e6614103e7", "pico")),
        message_vector("hello-host", wire.HELLO, 7, 1, T, B, hello(0, 1, 1, "tablet", "kivy")),
        message_vector("heartbeat", wire.HEARTBEAT, 0, 9, B, T, {"uptime_s": 3600}),
        message_vector("ack", wire.ACK, 0, 258, T, B, {}),
        message_vector("error-bad-crc", wire.ERROR, 0, 3, B, T,
                       {"code": 1, "ref_type": 0, "ref_seq": 0, "detail": "CRC mismatch"}),
        message_vector("snapshot", wire.SNAPSHOT, 0, 0, B, T,
                       {"reason": 1, "folded": 0, "lanes": [1, 2, 0, 1024, 17],
                        "wells": [[0, 0, 0, 0], [2, 5, 97, 3]]}),
        message_vector("track-change", wire.TRACK_CHANGE, 1, 0, B, T, {"lane": 12, "mask": 32}),
        message_vector("track-change-two-tokens", wire.TRACK_CHANGE, 2, 0, B, T, {"lane": 3, "mask": 9}),
        message_vector("track-change-empty-lane", wire.TRACK_CHANGE, 3, 0, B, T, {"lane": 39, "mask": 0}),
        message_vector("dice-rolling", wire.DICE, 4, 0, B, T,
                       {"well": 0, "state": 1, "value": 0, "confidence": 0, "roll": 6}),
        message_vector("dice-settled", wire.DICE, 5, 0, B, T,
                       {"well": 1, "state": 2, "value": 6, "confidence": 94, "roll": 7}),
        message_vector("dice-crooked", wire.DICE, 6, 0, B, T,
                       {"well": 1, "state": 3, "value": 0, "confidence": 40, "roll": 7}),
        message_vector("dice-removed", wire.DICE, 7, 0, B, T,
                       {"well": 0, "state": 4, "value": 0, "confidence": 0, "roll": 6}),
        # 3.3: a well that reads empty after the die was removed keeps that throw's number
        message_vector("dice-empty-after-removed", wire.DICE, 8, 0, B, T,
                       {"well": 0, "state": 0, "value": 0, "confidence": 0, "roll": 6}),
        message_vector("self-test", wire.SELF_TEST, 8, 0, B, T,
                       {"trigger": 1, "registers": 30, "faults": [[1, 1, 0], [4, 37, 12]]}),
        message_vector("cal-status", wire.CAL_STATUS, 9, 2, B, T,
                       {"step": 2, "well": 0, "face": 3, "status": 0, "c": 4000, "r": 2100,
                        "g": 900, "b": 700}),
        message_vector("cmd-snapshot", wire.CMD_SNAPSHOT, 0, 10, T, B, {}),
        message_vector("cmd-self-test", wire.CMD_SELF_TEST, 1, 10, T, B, {}),
        message_vector("cmd-calibrate", wire.CMD_CALIBRATE, 2, 10, T, B, {"step": 2, "well": 1, "face": 4}),
        message_vector("cmd-repl", wire.CMD_REPL, 3, 10, T, B, {}),
        message_vector("cmd-indicator", wire.CMD_INDICATOR, 4, 10, T, B, {"mode": 4}),
        message_vector("cmd-lights", wire.CMD_LIGHTS, 5, 10, T, B, {"lights": [[9, 3], [27, 10]]}),
        message_vector("cmd-lights-all-off", wire.CMD_LIGHTS, 6, 10, T, B, {"lights": []}),
        message_vector("cmd-lights-eight", wire.CMD_LIGHTS, 7, 10, T, B,
                       {"lights": [[k, k % 6] for k in range(8)]}),
        message_vector("seq-wrap", wire.TRACK_CHANGE, 65535, 65535, B, T, {"lane": 0, "mask": 4294967295}),
        message_vector("track-change-other-session", wire.TRACK_CHANGE, 1, 0, 0x0BADCAFE, T,
                       {"lane": 12, "mask": 32}),
    ]
    track = wire.build_body(wire.TRACK_CHANGE, 1, 0, bytes([12, 32, 0, 0, 0]), B, T)
    bad_crc = bytearray(track)
    bad_crc[-1] ^= 1
    newer = bytearray(track)
    newer[0] = wire.VERSION + 1
    die7 = wire.build_body(wire.DICE, 2, 0, bytes([1, 2, 7, 90, 1]), B, T)
    head = wire.encode_payload(wire.HELLO, vector_runner.from_jsonable(
        wire.HELLO, hello(1, 0, 0, "", "pico")))[:wire.HELLO_LEN]
    long_hello = wire.build_body(wire.HELLO, 0, 0, head + bytes([65]) + b"b" * 65 + b"\x04pico", B, 0)
    long_detail = wire.build_body(wire.ERROR, 0, 0, bytes([1, 0, 0, 0]) + b"x" * 65, B, T)
    # section 2: a version 1 peer. Its frames under 18 bytes are too_short (length is checked
    # before the CRC and the version); a longer one whose CRC holds is bad_version
    v1_short = bytearray(track[:wire.MIN_BODY - 2])
    v1_short[0] = 1
    v1_hello = bytearray(wire.build_body(wire.HELLO, 0, 0, head + b"\x01b\x04pico", B, 0))
    v1_hello[0] = 1
    v += [
        error_vector("error-version-1-short-frame", raw(recrc(v1_short)), "too_short"),
        error_vector("error-version-1-hello", raw(recrc(v1_hello)), "bad_version"),
        error_vector("error-crc", raw(bytes(bad_crc)), "bad_crc"),
        error_vector("error-too-short", raw(track[:wire.MIN_BODY - 1]), "too_short"),
        error_vector("error-newer-version", raw(recrc(newer)), "bad_version"),
        error_vector("error-unknown-type", raw(wire.build_body(0x7E, 1, 0, b"\x02", B, T)), "unknown_type"),
        error_vector("error-bad-payload-length", raw(wire.build_body(wire.DICE, 1, 0, b"\x02", B, T)),
                     "bad_payload"),
        error_vector("error-die-value-7", raw(die7), "bad_payload", "host"),
        # 2, 3.6: the type is checked before the payload: a board event sent to the board is
        # unknown_type whatever its values, a command sent to the tablet likewise
        error_vector("error-die-value-7-sent-to-the-board", raw(wire.build_body(
            wire.DICE, 2, 0, bytes([1, 2, 7, 90, 1]), T, B)), "unknown_type", "board"),
        error_vector("error-command-sent-to-the-tablet", raw(wire.build_body(
            wire.CMD_SELF_TEST, 3, 0, b"", B, T)), "unknown_type", "host"),
        error_vector("error-cobs-overrun", b"\x00\x05\x01\x02\x00", "bad_framing"),
        error_vector("error-ack-with-payload", raw(wire.build_body(wire.ACK, 0, 3, b"\x01", T, B)),
                     "bad_payload"),
        error_vector("error-hello-board-id-over-64", raw(long_hello), "bad_payload"),
        error_vector("error-detail-over-64", raw(long_detail), "bad_payload"),
        error_vector("error-lights-nine", raw(wire.build_body(
            wire.CMD_LIGHTS, 8, 10, bytes([9]) + bytes(18), T, B)), "bad_payload"),
        error_vector("error-lights-length", raw(wire.build_body(
            wire.CMD_LIGHTS, 8, 10, bytes([2, 9, 3, 27]), T, B)), "bad_payload"),
    ]
    return v


def link_cases():
    """Frames fed to one endpoint in time order; the runner records what it delivers and
    sends. Sessions: board B1 = 0x12345678, its next boot B2 = 0x0BADCAFE, tablet T =
    0xCAFEBABE, the tablet's previous start T0 = 0x01020304."""
    B1, B2, T, T0 = BOARD, 0x0BADCAFE, TABLET, 0x01020304
    bh = hello(1, 0, 0, "b", "pico")
    bh["lanes"], bh["wells"] = 2, 1
    th = hello(0, 1, 0, "tablet", "kivy")
    th["lanes"], th["wells"] = 2, 1

    def f(mtype, seq, ack, session, peer, fields=None):
        fields = vector_runner.from_jsonable(mtype, fields or {})
        return binascii.hexlify(frame(mtype, seq, ack, session, peer, fields)).decode()

    def tc(seq, session, lane=0, mask=1, peer=T):
        return f(wire.TRACK_CHANGE, seq, 0, session, peer, {"lane": lane, "mask": mask})

    snap = {"reason": 0, "folded": 0, "lanes": [1, 0], "wells": [[0, 0, 0, 0]]}
    T2 = 0x05060708
    th_head = wire.encode_payload(wire.HELLO, vector_runner.from_jsonable(
        wire.HELLO, dict(th, board_id="")))[:wire.HELLO_LEN]
    long_th = wire.build_body(wire.HELLO, 0, 1, th_head + bytes([65]) + b"t" * 65 + b"\x04kivy", T, B1)
    other_map = dict(bh, map_hash="ffffffffffffffff")
    v3 = bytearray(wire.build_body(wire.HELLO, 0, 0, wire.encode_payload(
        wire.HELLO, vector_runner.from_jsonable(wire.HELLO, bh)), B1, 0))
    v3[0] = 3
    v3_hello = binascii.hexlify(raw(recrc(v3))).decode()
    return [
        {"name": "host-pairs-then-drops-a-reset-boards-frames-until-its-hello",
         "note": "board B1 paired at seq 0; B1 sends seq 0..1; it resets as B2, its HELLO is lost "
                 "and its SNAPSHOT seq 0 and TRACK_CHANGE seq 1 arrive: numbered like B1's stream "
                 "but never delivered; the tablet asks for a HELLO; B2's HELLO (in a later read) "
                 "pairs it and B2's resent frames are delivered",
         "side": "host", "session": T,
         "steps": [
             [0, f(wire.HELLO, 0, 0, B1, 0, bh)],
             [1, f(wire.SNAPSHOT, 0, 0, B1, T, snap) + tc(1, B1)],
             [600, f(wire.SNAPSHOT, 0, 0, B2, T, dict(snap, reason=1)) + tc(1, B2, 1, 2)],
             [601, f(wire.HELLO, 0, 2, B2, T, dict(bh, flags=0, rx_next=0))],
             [602, f(wire.SNAPSHOT, 0, 0, B2, T, dict(snap, reason=1)) + tc(1, B2, 1, 2)],
         ]},
        {"name": "board-ignores-an-ack-from-the-tablets-previous-start",
         "note": "the board pairs with T (boot snapshot seq 0 queued); an ACK 1 from T0 (the "
                 "app before its restart) must not free it: it is resent; T's ACK 1 frees it",
         "side": "board", "session": B1,
         "steps": [
             [0, f(wire.HELLO, 0, 0, T, 0, th)],
             [5, f(wire.ACK, 0, 1, T0, B1)],
             [210, ""],
             [215, f(wire.ACK, 0, 1, T, B1)],
             [420, ""],
         ]},
        {"name": "board-sends-no-sequenced-frame-before-pairing",
         "note": "an unpaired board sends only HELLO, once a second: no boot snapshot resent to "
                 "nobody; a command before pairing is answered not_synced",
         "side": "board", "session": B1,
         "steps": [
             [0, ""], [999, ""], [1000, f(wire.CMD_SELF_TEST, 0, 0, T, B1)], [2100, ""],
         ]},
        {"name": "host-resumes-after-a-short-unplug",
         "note": "paired with B1 and 2 events delivered, then B1's HELLO knows the tablet and "
                 "resumes at seq 2: nothing is delivered twice",
         "side": "host", "session": T,
         "steps": [
             [0, f(wire.HELLO, 0, 0, B1, 0, bh)],
             [1, f(wire.SNAPSHOT, 0, 0, B1, T, snap) + tc(1, B1)],
             [2000, f(wire.HELLO, 1, 0, B1, T, dict(bh, rx_next=0))],
             [2001, tc(1, B1) + tc(2, B1, 1, 4)],
         ]},
        {"name": "board-answers-bad-frames",
         "note": "paired; an ACK with a payload, a DICE event sent to the board (a type the board "
                 "does not take: unknown_type, 3.6) and a HELLO with a 65-byte board id "
                 "(bad_payload) each get an ERROR; a DICE with value 7 sent to the board is "
                 "unknown_type too (the type is checked before the payload, 2); the pairing stays",
         "side": "board", "session": B1,
         "steps": [
             [0, f(wire.HELLO, 0, 0, T, 0, th)],
             [1, binascii.hexlify(raw(wire.build_body(wire.ACK, 0, 1, b"\x01", T, B1))).decode()],
             [150, f(wire.DICE, 0, 1, T, B1, {"well": 0, "state": 1, "value": 0,
                                             "confidence": 0, "roll": 0})],
             [300, binascii.hexlify(raw(long_th)).decode()],
             [310, f(wire.DICE, 1, 1, T, B1, {"well": 0, "state": 2, "value": 7,
                                             "confidence": 90, "roll": 1})],
         ]},
        {"name": "board-defers-its-hello-to-a-foreign-frame-inside-the-gap",
         "note": "4.1: the board pairs with T at 0 ms and sends its HELLO; at 221 ms a HEARTBEAT "
                 "of another pairing (a tablet session T2 it does not know) arrives, inside the "
                 "1000 ms HELLO gap: no HELLO then, one as soon as the gap ends (1000 ms). The "
                 "owed HELLO is cancelled only by a HELLO the board sends, not by one it receives",
         "side": "board", "session": B1,
         "steps": [
             [0, f(wire.HELLO, 0, 0, T, 0, th)],
             [221, f(wire.HEARTBEAT, 0, 0, T2, B1, {"uptime_s": 5})],
             [999, ""],
             [1001, ""],
             # T's resuming HELLO (knows the board, no reply wanted) draws no HELLO from the
             # board, so it does not answer the frame of T2: the HELLO owed since 1100 goes out
             # at 2001; T's HELLO asking a reply at 2100 is answered at once, and that HELLO
             # answers the frame of T2 of 2050 as well: nothing more at 3001
             [1100, f(wire.HEARTBEAT, 0, 0, T2, B1, {"uptime_s": 6})],
             [1200, f(wire.HELLO, 0, 1, T, B1, dict(th, rx_next=1))],
             [2001, ""],
             [2050, f(wire.HEARTBEAT, 0, 0, T2, B1, {"uptime_s": 7})],
             [2100, f(wire.HELLO, 0, 1, T, B1, dict(th, flags=1, rx_next=1))],
             [3001, ""],
         ]},
        {"name": "host-takes-frames-of-its-pairing-while-unpaired",
         "note": "4.1/4.6: paired with B1; B1 falls silent: LINK_DOWN at 1501 ms; a TRACK_CHANGE "
                 "of the pairing then is delivered and acknowledged (a HEARTBEAT of the pairing "
                 "is taken but, unsequenced, not acknowledged), but only a HELLO pairs "
                 "again (the tablet keeps sending HELLO); B1's HELLO resumes the streams",
         "side": "host", "session": T,
         "steps": [
             [0, f(wire.HELLO, 0, 0, B1, 0, bh)],
             [1, f(wire.SNAPSHOT, 0, 0, B1, T, snap) + tc(1, B1)],
             [1600, ""],
             [1601, tc(2, B1, 1, 2)],
             [1650, f(wire.HEARTBEAT, 0, 0, B1, T, {"uptime_s": 2})],
             [1700, f(wire.HELLO, 3, 0, B1, T, dict(bh, rx_next=0))],
         ]},
        {"name": "host-refuses-a-board-of-another-map",
         "note": "3.1: a board with another map is refused (REFUSED to the app) and its HELLO "
                 "answered ERROR map_mismatch; the header's peer is the tablet's peer_session as in "
                 "every frame: 0 before any pairing, then B1, also after B1's LINK_TIMEOUT. "
                 "REFUSED goes to the app once per refusal (again after LINK_UP or LINK_DOWN); "
                 "paired with B1 the tablet stays 'paired' and sends no HELLO",
         "side": "host", "session": T,
         "steps": [
             [0, f(wire.HELLO, 0, 0, B2, 0, other_map)],
             [1, f(wire.HELLO, 0, 0, B1, 0, bh)],
             [2, f(wire.HELLO, 0, 0, B2, 0, other_map)],
             # paired with B1, B2 refused again: ERROR, no second REFUSED, state 'paired',
             # and no HELLO from the tablet (its retry runs only while unpaired)
             [400, f(wire.HEARTBEAT, 0, 0, B1, T, {"uptime_s": 1}) + f(wire.HELLO, 0, 0, B2, 0, other_map)],
             [1000, f(wire.HEARTBEAT, 0, 0, B1, T, {"uptime_s": 2})],
             # B1 silent: LINK_DOWN at 2500; the tablet keeps B1 as peer_session, so its HELLO
             # and the map_mismatch ERROR to B2 carry peer = B1; the refusal is news again
             [2600, f(wire.HELLO, 0, 0, B2, 0, other_map)],
         ]},
        {"name": "host-refuses-a-newer-protocol-once",
         "note": "3.1, 4.6: frames of protocol version 3 (18 bytes or more, CRC good) are "
                 "bad_version: REFUSED once (not per frame), state 'refused', the tablet keeps "
                 "sending HELLO every 500 ms",
         "side": "host", "session": T,
         "steps": [
             [0, v3_hello],
             [10, v3_hello],
             [600, ""],
         ]},
        {"name": "host-reports-link-up-once-per-pairing",
         "note": "4.3: before pairing an ERROR of nobody's pairing is delivered (shown) and frees "
                 "nothing; B1 pairs (LINK_UP); the tablet sends two commands; B1's ERROR of the "
                 "pairing acknowledges the first; B1's resuming HELLO while still paired: no "
                 "LINK_UP, the second command resent; B1 resets as B2: COMMANDS_DROPPED before "
                 "LINK_UP",
         "side": "host", "session": T,
         "steps": [
             [0, f(wire.ERROR, 0, 0, B1, 0, {"code": 9, "ref_type": 0x20, "ref_seq": 0,
                                             "detail": "HELLO first"})],
             [1, f(wire.HELLO, 0, 0, B1, 0, bh)],
             [2, f(wire.SNAPSHOT, 0, 0, B1, T, snap), "CMD_SELF_TEST"],
             [3, "", "CMD_SNAPSHOT"],
             [50, f(wire.ERROR, 0, 1, B1, T, {"code": 10, "ref_type": 0x21, "ref_seq": 0,
                                              "detail": "well 5"})],
             [100, f(wire.HELLO, 1, 1, B1, T, dict(bh, flags=0, rx_next=1))],
             [200, f(wire.HELLO, 0, 0, B2, 0, bh)],
         ]},
        {"name": "host-unpairs-at-exactly-1500-ms",
         "note": "4.4: the last frame of the pairing at 1 ms: still paired at 1500 ms, "
                 "LINK_DOWN at 1501 ms (1500 ms without a frame of the pairing)",
         "side": "host", "session": T,
         "steps": [
             [0, f(wire.HELLO, 0, 0, B1, 0, bh)],
             [1, f(wire.SNAPSHOT, 0, 0, B1, T, snap)],
             [1500, ""],
             [1501, ""],
         ]},
        {"name": "board-takes-lights-and-refuses-nine",
         "note": "paired; CMD_LIGHTS with two lights is delivered to the board; one with nine "
                 "(over MAX_LIT) is consumed, acknowledged and answered ERROR bad_payload",
         "side": "board", "session": B1,
         "steps": [
             [0, f(wire.HELLO, 0, 0, T, 0, th)],
             [1, f(wire.CMD_LIGHTS, 0, 1, T, B1, {"lights": [[1, 0], [0, 5]]})],
             [2, binascii.hexlify(raw(wire.build_body(wire.CMD_LIGHTS, 1, 1, bytes([9]) + bytes(18),
                                                      T, B1))).decode()],
         ]},
    ]


def main():
    out = {"protocol_version": wire.VERSION, "vectors": frame_vectors(),
           "link_case_rules": vector_runner.LINK_CASE_RULES, "link_cases": link_cases()}
    out["link_expect"] = vector_runner.run_link_cases(out["link_cases"])
    with open(os.path.join(HERE, "vectors.json"), "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
