"""Runs the shared protocol test vectors; the same file runs on CPython and on MicroPython."""
import binascii
import json

from protocol import wire


def jsonable(value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return binascii.hexlify(bytes(value)).decode()
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        out = {}
        for k in value:
            out[k] = jsonable(value[k])
        return out
    return value


def from_jsonable(mtype, fields):
    """Vector fields -> the types encode_payload takes."""
    f = dict(fields)
    if mtype == wire.HELLO:
        f["map_hash"] = binascii.unhexlify(f["map_hash"])
        f["version"] = tuple(f["version"])
    return f


def run(vectors):
    """Decode every frame and re-encode every message; return comparable results."""
    results = []
    for v in vectors:
        frame = binascii.unhexlify(v["frame"])
        try:
            msg = wire.decode_frame(frame)
            decoded = jsonable(msg)
        except wire.ProtocolError as exc:
            decoded = {"error": exc.code}
        encoded = None
        if "message" in v:
            m = v["message"]
            mtype = wire.TYPE_CODES[m["type"]]
            fields = from_jsonable(mtype, m)
            encoded = binascii.hexlify(
                wire.encode_frame(mtype, m["seq"], m["ack"], fields)).decode()
        results.append({"name": v["name"], "decoded": decoded, "encoded": encoded})
    return results


def run_file(path):
    with open(path) as f:
        return run(json.load(f)["vectors"])
