"""Deterministic test vectors for the pure modules (built on CPython from the simulators)."""
import random

from firmware.sim import optics
from protocol import wire


def chain_bytes(smap, tokens, stuck=(), registers=None):
    n = smap.chain_registers if registers is None else registers
    data = bytearray(b"\xff" * n)
    for k, poss in tokens.items():
        for p in poss:
            if smap.lane_byte[k][p] < n:
                data[smap.lane_byte[k][p]] &= ~smap.lane_mask[k][p]
    for b in stuck:
        if (b >> 3) < n:
            data[b >> 3] &= ~(0x80 >> (b & 7))
    # what a scan reads: registers + 1 bytes, tail bytes (0x00) after the connected chain
    nread = smap.chain_registers + 1
    return (bytes(data) + bytes(nread))[:nread].hex()


def build(smap, seed=7):
    rng = random.Random(seed)
    scans = []
    t = 0
    tokens = {}

    def emit(count, stuck=(), registers=None):
        nonlocal t
        for _ in range(count):
            scans.append([t, chain_bytes(smap, tokens, stuck, registers)])
            t += 5
    emit(6)
    # random placements, slides with short intermediate masks, two-token lanes
    for _ in range(12):
        k = rng.randrange(smap.n_lanes)
        n = smap.n_spaces(k)
        a, b = rng.randrange(n), rng.randrange(n)
        tokens[k] = {a}
        emit(6)
        step = 1 if b > a else -1
        p = a
        while p != b:
            tokens[k] = {p, p + step}
            emit(rng.randint(1, 3))
            tokens[k] = {p + step} if rng.random() < 0.7 else set()
            emit(rng.randint(1, 3) if tokens[k] else 1)
            tokens[k] = {p + step}
            emit(rng.randint(1, 3))
            p += step
        emit(6)
        if rng.random() < 0.3:
            tokens[k] = {b, (b + 2) % n}
            emit(6)
    emit(5, stuck=(70,))
    emit(8, registers=16)
    emit(8)
    dice_seqs = []
    for w, (top, crooked) in enumerate([(1, False), (2, False), (3, False), (4, False),
                                        (5, False), (6, False), (3, True), (5, True)]):
        o_rng = random.Random(seed * 100 + w)
        seq = [tuple(optics.DARK)] * 3
        for _ in range(5):  # tumbling
            seq.append(optics.face_counts(o_rng.randint(1, 6), o_rng.uniform(0.15, 1.0)))
        if crooked:
            a = 7 - top
            b = [m for m in range(1, 7) if m not in (a, 7 - a)][0]
            base = optics.mix_counts((optics.mark_lin(a), 0.5), (optics.mark_lin(b), 0.5),
                                     brightness=0.55)
        else:
            base = optics.face_counts(7 - top, 1.0, (1.05, 0.97, 1.03))
        for _ in range(6):
            seq.append(tuple(x * (1 + o_rng.gauss(0, 0.01)) for x in base))
        seq += [tuple(optics.DARK)] * 4
        dice_seqs.append([[int(round(x)) for x in s] for s in seq])
    classify = [list(map(int, optics.face_counts(m, rng.uniform(0.8, 1.2)))) for m in range(1, 7)]
    classify += [[0, 0, 0, 0], [65535, 65535, 65535, 65535], [300, 100, 100, 100]]
    good = ('{"format": "tabletop-cal", "version": 1, "atime": 246, "gain": 1, "wells": ['
            + ", ".join('{"faces": [[5000, 1000, 1200, 900], [1,1,1,1], [2,2,2,2], [3,3,3,3],'
                        ' [4,4,4,4], [5,5,5,5]], "captured": [1,0,0,0,0,0]}' for _ in range(2))
            + ']}')
    cal_texts = [good, good[:-5], good.replace('"version": 1', '"version": 2'),
                 good.replace("5000", "-5"), "", "[]", good.replace('"atime": 246', '"atime": 1')]
    frames = [
        [wire.TRACK_CHANGE, {"lane": 3, "mask": 0x41}],
        [wire.DICE, {"well": 1, "state": 2, "value": 6, "confidence": 97, "roll": 200}],
        [wire.SELF_TEST, {"trigger": 1, "registers": 34, "faults": [(4, 266, 12), (6, 0, 0)]}],
        [wire.CAL_STATUS, {"step": 2, "well": 0, "face": 3, "status": 0, "c": 1000, "r": 1,
                           "g": 2, "b": 65535}],
        [wire.SNAPSHOT, {"reason": 2, "folded": 0, "lanes": [0, 1, 1024], "wells": [(2, 3, 90, 1)]}],
    ]
    return {"stable_scans": 4, "stuck_ms": 1000, "scans": scans, "dice": dice_seqs,
            "classify": classify, "cal_texts": cal_texts, "frames": frames}
