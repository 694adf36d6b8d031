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
        to = v.get("to")  # the receiving side, when the vector is about what that side takes
        try:
            msg = wire.decode_frame(frame, None if to is None else
                                    (wire.ROLE_BOARD if to == "board" else wire.ROLE_HOST))
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


class _Clock:
    def __init__(self):
        self.t = 0

    def __call__(self):
        return self.t


LINK_CASE_RULES = [
    "A case runs one fresh endpoint (side 'board' or 'host') with the case's session, sensor map "
    "hash 0123456789abcdef, 2 lanes, 1 well; a board's snapshot source gives lanes [1, 0] and "
    "wells [(0, 0, 0, 0)]. The clock starts at 0 ms.",
    "For each step [at, hex]: while the clock is before `at`, add 1 ms and poll once; then feed "
    "the step's bytes (one read, any number of frames), then poll once more.",
    "A step may carry a third item, a command's type name (a host case only): after the feed, "
    "before the poll, the tablet's application sends that command with an empty payload.",
    "A step's 'delivered' lists what the endpoint passed to its application since the previous "
    "step, in the order it passed them: 'LINK_UP' (a new peer session, a fresh start, or the "
    "first pairing after a LINK_DOWN; 'LINK_UP resumed' when the streams resumed), 'LINK_DOWN', "
    "'COMMANDS_DROPPED <count>', 'REFUSED <code>', 'ERROR <code>' (the code as a decimal number, "
    "section 3.6: 'ERROR 8' is map_mismatch), or '<TYPE> <seq>' for a delivered message.",
    "A step's 'sent' lists every frame the endpoint wrote since the previous step (during the "
    "polls before the step, the feed and the poll after it), in order, as '<TYPE> <seq> <ack> "
    "<session> <peer>' (sessions in hex), ERROR frames followed by the error's name "
    "('bad_payload').",
    "A host step's 'state' is the tablet's state after the step (4.6: 'searching', 'paired' or "
    "'refused').",
]


def _summary(buf):
    """Frames in a byte string -> ["TYPE seq ack session peer", ...] (hex sessions)."""
    out = []
    for part in bytes(buf).split(b"\x00"):
        if not part:
            continue
        try:
            m = wire.decode_frame(part)
            line = "%s %d %d %08x %08x" % (m["type"], m["seq"], m["ack"], m["session"], m["peer"])
            if m["type"] == "ERROR":  # which error it reports
                line += " %s" % wire.ERROR_NAMES.get(m["code"], m["code"])
            out.append(line)
        except wire.ProtocolError as exc:
            out.append("undecodable %d" % exc.code)
    return out


def run_link_case(case):
    """Feed a case's frames to a fresh endpoint at their times (polling every ms between);
    return what it delivered and sent up to and including each step (the rules are
    LINK_CASE_RULES, copied into vectors.json and docs/protocol.md section 5)."""
    from protocol import link
    clock = _Clock()
    sent = []
    got = []

    def write(buf, start, end):
        sent.append(bytes(buf[start:end]))

    def on_message(msg):
        t = msg["type"]
        if t in ("LINK_UP", "LINK_DOWN"):
            got.append(t + (" resumed" if msg.get("resumed") else ""))
        elif t == "COMMANDS_DROPPED":
            got.append("%s %d" % (t, msg["count"]))
        elif t == "REFUSED":
            got.append("%s %d" % (t, msg["code"]))
        elif t == "ERROR":
            got.append("ERROR %d" % msg["code"])
        else:
            got.append("%s %d" % (t, msg.get("seq", 0)))

    info = {"version": (0, 1, 0), "map_hash": binascii.unhexlify("0123456789abcdef"),
            "lanes": 2, "wells": 1, "board_id": "x", "profile": "vector"}
    if case["side"] == "host":
        ep = link.HostLink(write, clock, on_message, info, case["session"])
    else:
        ep = link.BoardLink(write, clock, on_message, info, case["session"],
                            lambda: ([1, 0], [(0, 0, 0, 0)]))
    steps = []
    for step in case["steps"]:
        at, hx = step[0], step[1]
        while clock.t < at:
            clock.t += 1
            ep.poll()
        if hx:
            ep.feed(binascii.unhexlify(hx))
        if len(step) > 2:
            ep.command(wire.TYPE_CODES[step[2]])
        ep.poll()
        rec = {"at": at, "delivered": list(got), "sent": _summary(b"".join(sent))}
        if case["side"] == "host":
            rec["state"] = ep.state
        steps.append(rec)
        del got[:]
        del sent[:]
    return steps


def run_link_cases(cases):
    out = []
    for c in cases:
        out.append({"name": c["name"], "steps": run_link_case(c)})
    return out


def run_link_file(path):
    with open(path) as f:
        return run_link_cases(json.load(f)["link_cases"])
