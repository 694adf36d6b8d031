"""The tablet's event queue under floods (docs/protocol.md 4.7): queue size and cost per event
for a minute of each event kind at UART line rate, against the cost of one event put into an
empty queue and drained at once (the reference, same run).

    .venv/bin/python benchmarks/bench_event_queue.py [--seconds 60] [--pty-seconds 20]

Then the same through the real link: a BoardLink on a pty sends SELF_TEST reports paced at
115200 baud to the app's BoardConnection (pyserial, HostLink, worker thread) while the UI
never drains; it prints the queue's peak size and the process CPU time per event.
"""
import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from companion.link.board_link import EventQueue  # noqa: E402

# frames per second at 115200 8N1 (11520 bytes/s) for each kind's encoded size
LINE_BYTES_PER_S = 11520
KINDS = {
    "SELF_TEST (3 faults)": (44, lambda i: {"type": "SELF_TEST", "trigger": 2, "registers": 7,
                                            "faults": [(1, 0, 0), (4, i % 50, i), (5, 1, 999)]}),
    "CAL_STATUS": (36, lambda i: {"type": "CAL_STATUS", "step": 2, "well": i % 2, "face": 1,
                                  "status": 1, "c": i, "r": 0, "g": 0, "b": 0}),
    "ERROR": (40, lambda i: {"type": "ERROR", "code": 1 + i % 12, "ref_type": 0, "ref_seq": 0,
                             "detail": "noise %d" % i}),
    "STATE (HELLO, new id)": (60, lambda i: {"type": "STATE", "state": "paired",
                                             "detail": "board b%d" % i, "peer": {}}),
    "DICE": (28, lambda i: {"type": "DICE", "well": i % 2, "state": 1, "value": 0,
                            "confidence": 0, "roll": i & 255}),
}
TABLE = {"type": "TABLE", "lanes": [0] * 40, "wells": [], "reason": "overflow", "folded": 0,
         "changed": []}


def reference(make, n=20000):
    q = EventQueue()
    evs = [make(i) for i in range(n)]
    t = time.perf_counter()
    for ev in evs:
        q.put(ev, lambda: TABLE)
        q.get_nowait()
    return (time.perf_counter() - t) / n


def flood(make, n):
    q = EventQueue()
    evs = [make(i) for i in range(n)]
    peak = 0
    t = time.perf_counter()
    for ev in evs:
        q.put(ev, lambda: TABLE)
        if q.qsize() > peak:
            peak = q.qsize()
    return (time.perf_counter() - t) / n, peak, q.qsize()


def pty_flood(seconds):
    from companion.link.board_link import DEFAULT_MAP, BoardConnection
    from companion.link.linksim import PtyBoardEndpoint
    from firmware import sensormap
    from protocol import wire
    smap = sensormap.load(DEFAULT_MAP)
    board = PtyBoardEndpoint(lanes=[0] * smap.n_lanes, wells=smap.n_wells, map_hash=smap.hash8)
    board.start()
    conn = BoardConnection(board.path).start()
    try:
        end = time.monotonic() + 10
        while time.monotonic() < end and not (conn.host.synced and board.link.synced):
            time.sleep(0.01)
        fields = {"trigger": 2, "registers": smap.chain_registers,
                  "faults": [(wire.FAULT_SENSOR_MISSING, 0, 0), (wire.FAULT_BIT_STUCK, 3, 9),
                             (wire.FAULT_SENSOR_SATURATED, 1, 999)]}
        frame = 44  # bytes on the wire of this report
        sent, peak = 0, 0
        cpu0, t0 = time.process_time(), time.monotonic()
        while time.monotonic() - t0 < seconds:
            due = int((time.monotonic() - t0) * LINE_BYTES_PER_S / frame)
            while sent < due and board.send(wire.SELF_TEST, fields) >= 0:
                sent += 1
            peak = max(peak, conn.events.qsize())
            time.sleep(0.002)
        end = time.monotonic() + 5
        while time.monotonic() < end and board.link.count:
            time.sleep(0.01)
        cpu = time.process_time() - cpu0
        delivered = conn.host.counters["rx_delivered"]
        print("pty flood: %d SELF_TEST in %.0f s (%d delivered), queue peak %d, now %d; "
              "process CPU %.1f us per event (both ends, pyserial, the link, the queue)"
              % (sent, seconds, delivered, peak, conn.events.qsize(), cpu / max(1, delivered) * 1e6))
    finally:
        conn.stop()
        board.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--pty-seconds", type=float, default=20)
    a = ap.parse_args()
    print("%-24s %9s %7s %7s %11s %11s %6s" % ("kind", "events", "peak", "after", "ref us/ev",
                                               "flood us/ev", "ratio"))
    for name, (size, make) in KINDS.items():
        n = int(a.seconds * LINE_BYTES_PER_S / size)
        ref = min(reference(make) for _ in range(3))
        cost, peak, after = min(flood(make, n) for _ in range(3))
        print("%-24s %9d %7d %7d %11.2f %11.2f %6.2f" % (name, n, peak, after, ref * 1e6,
                                                         cost * 1e6, cost / ref))
    if a.pty_seconds:
        pty_flood(a.pty_seconds)


if __name__ == "__main__":
    main()
