"""Property tests: round trip of every message; the decoder on hostile bytes."""
import random

from hypothesis import given, settings, strategies as st

from protocol import link as plink
from protocol import wire

u8 = st.integers(0, 255)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
text = st.text(max_size=20).filter(lambda s: len(s.encode()) <= wire.MAX_TEXT)


def message_strategy():
    dice = st.one_of(
        st.fixed_dictionaries({"well": u8, "state": st.just(wire.DICE_SETTLED),
                               "value": st.integers(1, 6), "confidence": st.integers(0, 100), "roll": u8}),
        st.fixed_dictionaries({"well": u8, "state": st.sampled_from([0, 1, 3, 4]), "value": u8,
                               "confidence": st.integers(0, 100), "roll": u8}))
    return st.one_of(
        st.tuples(st.just(wire.TRACK_CHANGE), st.fixed_dictionaries({"lane": u8, "mask": u32})),
        st.tuples(st.just(wire.DICE), dice),
        st.tuples(st.just(wire.HEARTBEAT), st.fixed_dictionaries({"uptime_s": u32})),
        st.tuples(st.just(wire.CMD_CALIBRATE), st.fixed_dictionaries({"step": u8, "well": u8, "face": u8})),
        st.tuples(st.just(wire.CMD_INDICATOR), st.fixed_dictionaries({"mode": u8})),
        st.tuples(st.just(wire.CAL_STATUS), st.fixed_dictionaries(
            {"step": u8, "well": u8, "face": u8, "status": u8, "c": u16, "r": u16, "g": u16, "b": u16})),
        st.tuples(st.just(wire.SNAPSHOT), st.fixed_dictionaries({
            "reason": st.integers(0, 3), "folded": u16, "lanes": st.lists(u32, max_size=100),
            "wells": st.lists(st.tuples(st.integers(0, 4), u8, u8, u8), max_size=4)})),
        st.tuples(st.just(wire.SELF_TEST), st.fixed_dictionaries({
            "trigger": u8, "registers": u8, "faults": st.lists(st.tuples(u8, u16, u16), max_size=40)})),
        st.tuples(st.just(wire.ERROR), st.fixed_dictionaries(
            {"code": u8, "ref_type": u8, "ref_seq": u16, "detail": text})),
        st.tuples(st.just(wire.HELLO), st.fixed_dictionaries({
            "flags": u8, "role": st.sampled_from([0, 1]), "version": st.tuples(u8, u8, u8),
            "rx_next": u16, "map_hash": st.binary(min_size=8, max_size=8),
            "lanes": u8, "wells": u8, "board_id": text, "profile": text})),
    )


def _normal(v):
    if isinstance(v, (list, tuple)):
        return [_normal(x) for x in v]
    return v


@settings(max_examples=1500)
@given(message_strategy(), u16, u16, u32, u32)
def test_round_trip(msg, seq, ack, session, peer):
    mtype, fields = msg
    frame = wire.encode_frame(mtype, seq, ack, fields, session, peer)
    assert frame[0] == 0 and frame[-1] == 0 and 0 not in frame[1:-1]
    out = wire.decode_frame(frame)
    assert out.pop("type") == wire.TYPE_NAMES[mtype]
    assert (out.pop("seq"), out.pop("ack")) == (seq, ack)
    assert (out.pop("session"), out.pop("peer")) == (session, peer)
    for k, v in fields.items():
        assert _normal(out[k]) == _normal(v), k


@settings(max_examples=1500)
@given(st.binary(max_size=700))
def test_decode_frame_raises_only_protocol_error(data):
    try:
        wire.decode_frame(data)
    except wire.ProtocolError as exc:
        assert exc.code in wire.ERROR_NAMES


def _host(received):
    info = {"version": (0, 1, 0), "map_hash": b"\x11" * 8, "lanes": 3, "wells": 2,
            "board_id": "t", "profile": "test"}
    h = plink.HostLink(lambda b, s, e: None, lambda: 0, received.append, info, 7)
    h.rx_expected = 0
    h.peer_session = 1
    return h


@settings(max_examples=800)
@given(st.lists(st.binary(max_size=300), max_size=12))
def test_link_feed_never_raises_and_stays_bounded(chunks):
    received = []
    h = _host(received)
    sizes = (len(h.rx_buf), len(h.body), len(h.ring))
    for c in chunks:
        h.feed(c)
    assert (len(h.rx_buf), len(h.body), len(h.ring)) == sizes
    assert h.rx_len <= len(h.rx_buf)
    # after any garbage, the next delimited valid frame is delivered (resynchronisation)
    good = wire.encode_frame(wire.TRACK_CHANGE, h.rx_expected, 0, {"lane": 1, "mask": 4}, 1, 7)
    before = [m for m in received if m.get("type") == "TRACK_CHANGE"]
    h.feed(good)
    after = [m for m in received if m.get("type") == "TRACK_CHANGE"]
    assert len(after) == len(before) + 1 and after[-1]["mask"] == 4


def test_garbage_banner_and_traceback_on_the_same_line_are_skipped():
    received = []
    h = _host(received)
    frame = wire.encode_frame(wire.DICE, 0, 0, {"well": 0, "state": 2, "value": 5, "confidence": 90, "roll": 1},
                             1, 7)
    h.feed(b"MicroPython v1.22 on 2024-01-01; Raspberry Pi Pico\r\n>>> Traceback (most recent" + frame)
    assert [m["value"] for m in received if m["type"] == "DICE"] == [5]


def test_oversize_frame_is_counted_and_next_frame_still_arrives():
    received = []
    h = _host(received)
    h.feed(b"\x00" + bytes(random.Random(1).randrange(1, 256) for _ in range(3000)) + b"\x00")
    assert h.counters["too_long"] == 1
    h.feed(wire.encode_frame(wire.TRACK_CHANGE, 0, 0, {"lane": 2, "mask": 1}, 1, 7))
    assert received[-1]["lane"] == 2
