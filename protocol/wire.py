"""Frame and message layouts of the board <-> tablet protocol (docs/protocol.md).

Runs unchanged on MicroPython 1.20+ and CPython 3.11+. Frame body, little-endian:

    version u8 | type u8 | seq u16 | ack u16 | session u32 | peer u32 | payload ... | crc32 u32

`session` is the sender's session, `peer` the session of the receiver it is paired with (0 if
none): a receiver acts on seq and ack only for frames of the pair it belongs to.

The body is COBS-encoded and sent between 0x00 delimiters (one before, one after).
"""
import binascii
import struct

from protocol import cobs

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x

VERSION = const(2)
HEADER_FMT = "<BBHHII"
HEADER_LEN = const(14)
CRC_LEN = const(4)
MIN_BODY = const(18)  # header + crc
MAX_BODY = const(512)  # header + payload + crc
MAX_PAYLOAD = const(494)
# COBS of MAX_BODY bytes, without the delimiters
MAX_ENCODED = const(515)

# Message types. 0x00-0x0F are unsequenced; 0x10-0x7F are sequenced (acknowledged, resent).
HELLO = const(0x01)
HEARTBEAT = const(0x02)
ACK = const(0x03)
ERROR = const(0x04)
SNAPSHOT = const(0x10)
TRACK_CHANGE = const(0x11)
DICE = const(0x12)
SELF_TEST = const(0x13)
CAL_STATUS = const(0x14)
CMD_SNAPSHOT = const(0x20)
CMD_SELF_TEST = const(0x21)
CMD_CALIBRATE = const(0x22)
CMD_REPL = const(0x23)
CMD_INDICATOR = const(0x24)
CMD_LIGHTS = const(0x25)

TYPE_NAMES = {
    HELLO: "HELLO", HEARTBEAT: "HEARTBEAT", ACK: "ACK", ERROR: "ERROR",
    SNAPSHOT: "SNAPSHOT", TRACK_CHANGE: "TRACK_CHANGE", DICE: "DICE",
    SELF_TEST: "SELF_TEST", CAL_STATUS: "CAL_STATUS",
    CMD_SNAPSHOT: "CMD_SNAPSHOT", CMD_SELF_TEST: "CMD_SELF_TEST",
    CMD_CALIBRATE: "CMD_CALIBRATE", CMD_REPL: "CMD_REPL", CMD_INDICATOR: "CMD_INDICATOR",
    CMD_LIGHTS: "CMD_LIGHTS",
}
TYPE_CODES = {}
for _code in TYPE_NAMES:
    TYPE_CODES[TYPE_NAMES[_code]] = _code


def is_sequenced(mtype):
    return 0x10 <= mtype <= 0x7F


def takes(role, mtype):
    """Does a receiver of this role take the type? The link types both ways, board events
    (0x10-0x1F) only the tablet, commands (0x20-0x2F) only the board. Checked before the
    payload (docs/protocol.md 2): a DICE sent to the board is unknown_type, whatever its value."""
    if mtype not in TYPE_NAMES:
        return False
    if mtype < 0x10:
        return True
    if mtype < 0x20:
        return role == ROLE_HOST
    return role == ROLE_BOARD


def check_type(role, mtype):
    """Raise unknown_type when a receiver of this role does not take the type."""
    if not takes(role, mtype):
        if mtype in TYPE_NAMES:
            raise ProtocolError(E_UNKNOWN_TYPE, "%s is not a message the %s takes" % (
                TYPE_NAMES[mtype], "board" if role == ROLE_BOARD else "tablet"))
        raise ProtocolError(E_UNKNOWN_TYPE, "unknown message type 0x%02x" % mtype)


# HELLO
ROLE_BOARD = const(0)
ROLE_HOST = const(1)
HELLO_REPLY_WANTED = const(0x01)

# DICE well states
DICE_EMPTY = const(0)
DICE_ROLLING = const(1)
DICE_SETTLED = const(2)
DICE_CROOKED = const(3)
DICE_REMOVED = const(4)
DICE_STATE_NAMES = ("empty", "rolling", "settled", "crooked", "removed")

# SNAPSHOT reasons
SNAP_BOOT = const(0)
SNAP_HELLO = const(1)
SNAP_REQUEST = const(2)
SNAP_OVERFLOW = const(3)
SNAP_REASON_NAMES = ("boot", "hello", "request", "overflow")

# SELF_TEST triggers and fault codes
TEST_AT_BOOT = const(0)
TEST_ON_COMMAND = const(1)
TEST_UNPROMPTED = const(2)  # the board noticed a fault appear or clear by itself
FAULT_SENSOR_MISSING = const(1)  # index = well, value = 0
FAULT_SENSOR_ID = const(2)  # index = well, value = the ID register read
FAULT_CHAIN_LENGTH = const(3)  # index = registers expected, value = registers found (0xFFFF unknown)
FAULT_BIT_STUCK = const(4)  # index = chain bit, value = seconds seen stuck
FAULT_SENSOR_SATURATED = const(5)  # index = well, value = clear channel reading
FAULT_CAL_DEFAULTS = const(6)  # index = 0, value = 0: calibration file missing/corrupt
FAULT_PROFILE_PIN = const(7)  # index = the pin (0xFFFF: not a number), value = its PIN_* role
FAULT_MAP_TOO_LARGE = const(8)  # index = KB the map's tables need, value = KB of heap free
# reserved, no longer raised: the HT16K33 light drivers' "driver missing" (index = driver number,
# 0xFFFF the map could not be lit; value = its I2C address). The guidance lights are 74HC595s on
# the chain now (firmware/hc595.py), which cannot be probed; a board from before may still send it
FAULT_LIGHTS = const(9)
# index = well, value = rule << 12 | face << 8 | other: the stored calibration of the well fails
# the capture rules (CAL_RULE_COLOUR: face's centroid reads like the printed colour of `other`;
# CAL_RULE_GAP: it lies too near face `other`); the well reports no dice until calibrated again
FAULT_CAL_IMPLAUSIBLE = const(10)
CAL_RULE_COLOUR = const(0)  # the capture's check (docs/protocol.md 3.5)
CAL_RULE_GAP = const(1)  # the save's check: two faces closer than twice the acceptance margin
# FAULT_PROFILE_PIN roles: which entry of the board profile names the pin
PIN_SPI_SCK = const(1)
PIN_SPI_MOSI = const(2)
PIN_SPI_MISO = const(3)
PIN_LOAD = const(4)
PIN_I2C_SDA = const(5)
PIN_I2C_SCL = const(6)
PIN_LED = const(7)
PIN_REPL = const(8)
PIN_LIGHTS_OE = const(9)  # the guidance lights' /OE (chain pins 1 and 9): dark until driven low
PIN_ROLE_NAMES = ("", "spi.sck", "spi.mosi", "spi.miso", "load_pin", "i2c sda", "i2c scl", "led.pin",
                  "repl_pin", "lights_oe_pin")
FAULT_NAMES = {
    FAULT_SENSOR_MISSING: "dice sensor missing", FAULT_SENSOR_ID: "wrong dice sensor id",
    FAULT_CHAIN_LENGTH: "shift-register chain length wrong", FAULT_BIT_STUCK: "sensor bit stuck on",
    FAULT_SENSOR_SATURATED: "dice sensor saturated", FAULT_CAL_DEFAULTS: "calibration defaults in use",
    FAULT_PROFILE_PIN: "board profile names a pin this board lacks",
    FAULT_MAP_TOO_LARGE: "sensor map too large for the board's memory",
    FAULT_LIGHTS: "guidance-light driver missing (reserved: older firmware)",
    FAULT_CAL_IMPLAUSIBLE: "stored dice calibration implausible",
}

def fault_where(code, index, value):
    """Plain words for the start-up faults' index and value ("" for the others)."""
    if code == FAULT_PROFILE_PIN:
        role = PIN_ROLE_NAMES[value] if 0 < value < len(PIN_ROLE_NAMES) else "entry %d" % value
        return "profile %s: %s" % (role, "not a pin number" if index == 0xFFFF else "pin %d" % index)
    if code == FAULT_MAP_TOO_LARGE:
        return "its tables need %d KB, %d KB of heap free" % (index, value)
    if code == FAULT_LIGHTS:  # reserved: only a board with the old HT16K33 firmware sends it
        if index == 0xFFFF:
            return "older firmware: its HT16K33 light drivers could not reach the map (%d registers)" % value
        return "older firmware: HT16K33 number %d at I2C address 0x%02X did not answer" % (index, value)
    if code == FAULT_CAL_IMPLAUSIBLE:
        return "well %d: %s" % (index + 1, cal_fault_words(value))
    return ""


def cal_fault_value(face, other, rule):
    """FAULT_CAL_IMPLAUSIBLE's value: the rule that failed, the stored face, the other face."""
    return (rule << 12) | (face << 8) | other


def cal_fault_words(value):
    """Plain words for FAULT_CAL_IMPLAUSIBLE's value (which rule failed, on which faces)."""
    face = (value >> 8) & 0x0F
    other = value & 0xFF
    if value >> 12 == CAL_RULE_GAP:
        return "its stored faces %d and %d lie too close together to tell apart" % (face, other)
    return "its stored face %d reads like face %d" % (face, other)


# CMD_CALIBRATE steps and CAL_STATUS results
CAL_BEGIN = const(1)
CAL_CAPTURE = const(2)
CAL_SAVE = const(3)
CAL_CANCEL = const(4)
CAL_DEFAULTS = const(5)
CAL_OK = const(0)
CAL_UNSTABLE = const(1)
CAL_NO_DIE = const(2)
CAL_NOT_ACTIVE = const(3)
CAL_BAD_ARG = const(4)
CAL_STORE_FAILED = const(5)
CAL_IMPLAUSIBLE = const(6)  # CAPTURE: reading nearer another face's printed colour; SAVE: two
                            # faces too close (face = the first, c = the other on SAVE)

# CMD_INDICATOR modes
IND_AUTO = const(0)
IND_OFF = const(1)
IND_ON = const(2)
IND_BLINK = const(3)
IND_IDENTIFY = const(4)

# CMD_LIGHTS: the lit set becomes exactly the n (lane, position) pairs of the payload
MAX_LIT = const(8)  # at most this many guidance lights at once (hardware/docs/power_budget.md)

# ERROR codes (also the keys of the receive counters)
E_BAD_CRC = const(1)
E_BAD_FRAMING = const(2)
E_TOO_LONG = const(3)
E_TOO_SHORT = const(4)
E_UNKNOWN_TYPE = const(5)
E_BAD_VERSION = const(6)
E_BAD_PAYLOAD = const(7)
E_MAP_MISMATCH = const(8)
E_NOT_SYNCED = const(9)
E_BAD_ARGUMENT = const(10)
E_BUSY = const(11)
E_INTERNAL = const(12)
ERROR_NAMES = {
    E_BAD_CRC: "bad_crc", E_BAD_FRAMING: "bad_framing", E_TOO_LONG: "too_long",
    E_TOO_SHORT: "too_short", E_UNKNOWN_TYPE: "unknown_type", E_BAD_VERSION: "bad_version",
    E_BAD_PAYLOAD: "bad_payload", E_MAP_MISMATCH: "map_mismatch", E_NOT_SYNCED: "not_synced",
    E_BAD_ARGUMENT: "bad_argument", E_BUSY: "busy", E_INTERNAL: "internal",
}

MAX_TEXT = const(64)  # board id, profile and error detail are cut to this many bytes

# Fixed payload layouts; variable ones (HELLO, SNAPSHOT, SELF_TEST, ERROR) are coded below.
FIXED = {
    HEARTBEAT: ("<I", ("uptime_s",)),
    ACK: ("<", ()),
    TRACK_CHANGE: ("<BI", ("lane", "mask")),
    DICE: ("<BBBBB", ("well", "state", "value", "confidence", "roll")),
    CAL_STATUS: ("<BBBBHHHH", ("step", "well", "face", "status", "c", "r", "g", "b")),
    CMD_SNAPSHOT: ("<", ()),
    CMD_SELF_TEST: ("<", ()),
    CMD_CALIBRATE: ("<BBB", ("step", "well", "face")),
    CMD_REPL: ("<", ()),
    CMD_INDICATOR: ("<B", ("mode",)),
}
LIGHTS_HEAD = const(1)  # n u8, then n x (lane u8, position u8)
HELLO_FMT = "<BBBBBH8sBB"
HELLO_LEN = const(17)
SNAP_HEAD_FMT = "<BHBB"
SNAP_WELL_FMT = "<BBBB"
FAULT_FMT = "<BHH"


class ProtocolError(ValueError):
    """A frame or payload that cannot be accepted; .code is one of the E_* error codes."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def _text(value):
    if isinstance(value, str):
        value = value.encode()
    value = bytes(value[:MAX_TEXT])
    while value:  # never cut inside a UTF-8 sequence
        try:
            str(value, "utf-8")
            break
        except UnicodeError:
            value = value[:-1]
    return value


def _read_text(payload, pos):
    if pos >= len(payload):
        raise ProtocolError(E_BAD_PAYLOAD, "text field missing")
    n = payload[pos]
    if n > MAX_TEXT:
        raise ProtocolError(E_BAD_PAYLOAD, "text field of %d bytes, at most %d" % (n, MAX_TEXT))
    if pos + 1 + n > len(payload):
        raise ProtocolError(E_BAD_PAYLOAD, "text field runs past the payload")
    try:
        return str(bytes(payload[pos + 1:pos + 1 + n]), "utf-8"), pos + 1 + n
    except UnicodeError:
        raise ProtocolError(E_BAD_PAYLOAD, "text field is not UTF-8")


def encode_payload(mtype, fields):
    """Message fields (a dict) -> payload bytes."""
    if mtype in FIXED:
        fmt, names = FIXED[mtype]
        try:
            return struct.pack(fmt, *[fields[k] for k in names])
        except (KeyError, struct.error, OverflowError, TypeError) as exc:
            raise ProtocolError(E_BAD_PAYLOAD, "cannot encode %s: %s" % (TYPE_NAMES[mtype], exc))
    if mtype == HELLO:
        v = fields["version"]
        head = struct.pack(HELLO_FMT, fields["flags"], fields["role"], v[0], v[1], v[2],
                           fields["rx_next"], bytes(fields["map_hash"]), fields["lanes"],
                           fields["wells"])
        a = _text(fields["board_id"])
        b = _text(fields["profile"])
        return head + bytes((len(a),)) + a + bytes((len(b),)) + b
    if mtype == SNAPSHOT:
        lanes = fields["lanes"]
        wells = fields["wells"]
        out = bytearray(struct.pack(SNAP_HEAD_FMT, fields["reason"], fields["folded"],
                                    len(lanes), len(wells)))
        for mask in lanes:
            out += struct.pack("<I", mask)
        for w in wells:
            out += struct.pack(SNAP_WELL_FMT, w[0], w[1], w[2], w[3])
        return bytes(out)
    if mtype == SELF_TEST:
        faults = fields["faults"]
        out = bytearray(struct.pack("<BBB", fields["trigger"], fields["registers"], len(faults)))
        for f in faults:
            out += struct.pack(FAULT_FMT, f[0], f[1], f[2])
        return bytes(out)
    if mtype == CMD_LIGHTS:
        lights = fields["lights"]
        if len(lights) > MAX_LIT:
            raise ProtocolError(E_BAD_PAYLOAD, "CMD_LIGHTS of %d lights, at most %d"
                                % (len(lights), MAX_LIT))
        out = bytearray((len(lights),))
        try:
            for lane, pos in lights:
                out += struct.pack("<BB", lane, pos)
        except (struct.error, OverflowError, TypeError, ValueError) as exc:
            raise ProtocolError(E_BAD_PAYLOAD, "cannot encode CMD_LIGHTS: %s" % (exc,))
        return bytes(out)
    if mtype == ERROR:
        t = _text(fields.get("detail", ""))
        return struct.pack("<BBH", fields["code"], fields["ref_type"], fields["ref_seq"]) + t
    raise ProtocolError(E_UNKNOWN_TYPE, "unknown message type 0x%02x" % mtype)


def decode_payload(mtype, payload):
    """Payload bytes -> dict of fields; raises ProtocolError on any inconsistency."""
    n = len(payload)
    if mtype in FIXED:
        fmt, names = FIXED[mtype]
        if n != struct.calcsize(fmt):
            raise ProtocolError(E_BAD_PAYLOAD, "%s payload is %d bytes, expected %d"
                                % (TYPE_NAMES[mtype], n, struct.calcsize(fmt)))
        return dict(zip(names, struct.unpack(fmt, payload)))
    if mtype == HELLO:
        if n < HELLO_LEN + 2:
            raise ProtocolError(E_BAD_PAYLOAD, "HELLO payload too short (%d bytes)" % n)
        v = struct.unpack(HELLO_FMT, payload[:HELLO_LEN])
        board_id, pos = _read_text(payload, HELLO_LEN)
        profile, pos = _read_text(payload, pos)
        if pos != n:
            raise ProtocolError(E_BAD_PAYLOAD, "HELLO payload has %d trailing bytes" % (n - pos))
        if v[1] not in (ROLE_BOARD, ROLE_HOST):
            raise ProtocolError(E_BAD_PAYLOAD, "HELLO role %d unknown" % v[1])
        return {"flags": v[0], "role": v[1], "version": (v[2], v[3], v[4]), "rx_next": v[5],
                "map_hash": v[6], "lanes": v[7], "wells": v[8], "board_id": board_id,
                "profile": profile}
    if mtype == SNAPSHOT:
        if n < 5:
            raise ProtocolError(E_BAD_PAYLOAD, "SNAPSHOT payload too short")
        reason, folded, nl, nw = struct.unpack(SNAP_HEAD_FMT, payload[:5])
        if n != 5 + 4 * nl + 4 * nw:
            raise ProtocolError(E_BAD_PAYLOAD, "SNAPSHOT of %d lanes and %d wells cannot be %d bytes"
                                % (nl, nw, n))
        lanes = []
        for i in range(nl):
            lanes.append(struct.unpack("<I", payload[5 + 4 * i:9 + 4 * i])[0])
        wells = []
        base = 5 + 4 * nl
        for i in range(nw):
            w = struct.unpack(SNAP_WELL_FMT, payload[base + 4 * i:base + 4 * i + 4])
            if w[0] > DICE_REMOVED:
                raise ProtocolError(E_BAD_PAYLOAD, "SNAPSHOT dice state %d unknown" % w[0])
            wells.append(w)
        return {"reason": reason, "folded": folded, "lanes": lanes, "wells": wells}
    if mtype == SELF_TEST:
        if n < 3 or n != 3 + 5 * payload[2]:
            raise ProtocolError(E_BAD_PAYLOAD, "SELF_TEST payload length %d inconsistent" % n)
        faults = []
        for i in range(payload[2]):
            faults.append(struct.unpack(FAULT_FMT, payload[3 + 5 * i:8 + 5 * i]))
        return {"trigger": payload[0], "registers": payload[1], "faults": faults}
    if mtype == CMD_LIGHTS:
        if n < LIGHTS_HEAD or n != LIGHTS_HEAD + 2 * payload[0]:
            raise ProtocolError(E_BAD_PAYLOAD, "CMD_LIGHTS payload length %d inconsistent" % n)
        if payload[0] > MAX_LIT:
            raise ProtocolError(E_BAD_PAYLOAD, "CMD_LIGHTS of %d lights, at most %d"
                                % (payload[0], MAX_LIT))
        lights = []
        for i in range(payload[0]):
            lights.append((payload[1 + 2 * i], payload[2 + 2 * i]))
        msg = {}  # type: dict
        msg["lights"] = lights
        return msg
    if mtype == ERROR:
        if n < 4:
            raise ProtocolError(E_BAD_PAYLOAD, "ERROR payload too short")
        code, ref_type, ref_seq = struct.unpack("<BBH", payload[:4])
        if n - 4 > MAX_TEXT:
            raise ProtocolError(E_BAD_PAYLOAD, "ERROR detail of %d bytes, at most %d"
                                % (n - 4, MAX_TEXT))
        try:
            detail = str(bytes(payload[4:]), "utf-8")
        except UnicodeError:
            detail = ""
        return {"code": code, "ref_type": ref_type, "ref_seq": ref_seq, "detail": detail}
    raise ProtocolError(E_UNKNOWN_TYPE, "unknown message type 0x%02x" % mtype)


def check_fields(mtype, fields):
    """Range checks beyond the byte layout (a die value 1-6 when settled, known states)."""
    if mtype == DICE:
        if fields["state"] > DICE_REMOVED:
            raise ProtocolError(E_BAD_PAYLOAD, "dice state %d unknown" % fields["state"])
        if fields["state"] == DICE_SETTLED and not 1 <= fields["value"] <= 6:
            raise ProtocolError(E_BAD_PAYLOAD, "settled die value %d outside 1-6" % fields["value"])
        if fields["confidence"] > 100:
            raise ProtocolError(E_BAD_PAYLOAD, "dice confidence %d above 100" % fields["confidence"])


def body_crc(body, n):
    """CRC-32 of body[0:n] as an unsigned int (allocates a long int on MicroPython)."""
    return binascii.crc32(memoryview(body)[:n]) & 0xFFFFFFFF


# CRC-32 (IEEE, reflected 0xEDB88320) in two 16-bit halves: on MicroPython an int above
# 2**30 is a heap object, so binascii.crc32 allocates on every frame. The table is built
# once (1 KB); the board's frame paths use crc_into/crc_matches and never allocate.
def _crc_tables():
    import array
    lo_t = array.array("H", bytes(512))
    hi_t = array.array("H", bytes(512))
    for i in range(256):
        lo = i
        hi = 0
        for _ in range(8):
            if lo & 1:
                lo = ((lo >> 1) | ((hi & 1) << 15)) ^ 0x8320
                hi = (hi >> 1) ^ 0xEDB8
            else:
                lo = (lo >> 1) | ((hi & 1) << 15)
                hi >>= 1
        lo_t[i] = lo
        hi_t[i] = hi
    return lo_t, hi_t


_CRC_LO, _CRC_HI = _crc_tables()


def _crc_at(buf, n, out, pos):
    """CRC-32 of buf[0:n] written little-endian to out[pos:pos + 4]; small ints only (a
    returned tuple or a 32-bit int would be a heap object on MicroPython)."""
    lo = 0xFFFF
    hi = 0xFFFF
    tl = _CRC_LO
    th = _CRC_HI
    for i in range(n):
        j = (lo ^ buf[i]) & 0xFF
        lo = ((lo >> 8) | ((hi & 0xFF) << 8)) ^ tl[j]
        hi = (hi >> 8) ^ th[j]
    lo ^= 0xFFFF
    hi ^= 0xFFFF
    out[pos] = lo & 0xFF
    out[pos + 1] = lo >> 8
    out[pos + 2] = hi & 0xFF
    out[pos + 3] = hi >> 8


try:
    import sys as _sys
    _MICROPYTHON = _sys.implementation.name == "micropython"
except AttributeError:
    _MICROPYTHON = True

_crc_check = bytearray(4)


def crc_into(buf, n):
    """Write the CRC-32 of buf[0:n], little-endian, into buf[n:n + 4]."""
    if _MICROPYTHON:
        _crc_at(buf, n, buf, n)
    else:  # CPython: ints are objects anyway; the C routine is faster
        struct.pack_into("<I", buf, n, binascii.crc32(memoryview(buf)[:n]))


def crc_matches(buf, n):
    """Does buf[n - 4:n] hold the CRC-32 of buf[0:n - 4]?"""
    m = n - 4
    if _MICROPYTHON:
        c = _crc_check
        _crc_at(buf, m, c, 0)
        return c[0] == buf[m] and c[1] == buf[m + 1] and c[2] == buf[m + 2] and c[3] == buf[m + 3]
    return binascii.crc32(memoryview(buf)[:m]) == struct.unpack_from("<I", buf, m)[0]


def unstuff(src, n, body):
    """COBS-decode src[0:n] (no delimiters) into body; return the body length.

    Raises ProtocolError: too_long when it does not fit body, bad_framing otherwise.
    """
    try:
        return cobs.decode_into(src, 0, n, body)
    except cobs.CobsOverflow as exc:
        raise ProtocolError(E_TOO_LONG, str(exc))
    except cobs.CobsError as exc:
        raise ProtocolError(E_BAD_FRAMING, str(exc))


def parse_body(body, n):
    """Check a decoded frame body; return (type, seq, ack, session, peer, payload memoryview).

    Raises ProtocolError with the error code that the receive counters use.
    """
    if n < MIN_BODY:
        raise ProtocolError(E_TOO_SHORT, "frame of %d bytes is shorter than %d" % (n, MIN_BODY))
    if not crc_matches(body, n):
        raise ProtocolError(E_BAD_CRC, "CRC mismatch")
    if body[0] != VERSION:
        raise ProtocolError(E_BAD_VERSION, "protocol version %d, this side speaks %d"
                            % (body[0], VERSION))
    ver, mtype, seq, ack, session, peer = struct.unpack_from(HEADER_FMT, body, 0)
    return mtype, seq, ack, session, peer, memoryview(body)[HEADER_LEN:n - 4]


def build_body(mtype, seq, ack, payload, session=0, peer=0):
    """Header + payload + CRC as bytes (allocates; the board's hot path packs in place)."""
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(E_TOO_LONG, "payload of %d bytes exceeds %d" % (len(payload), MAX_PAYLOAD))
    head = struct.pack(HEADER_FMT, VERSION, mtype, seq & 0xFFFF, ack & 0xFFFF,
                       session & 0xFFFFFFFF, peer & 0xFFFFFFFF) + bytes(payload)
    return head + struct.pack("<I", binascii.crc32(head) & 0xFFFFFFFF)


def encode_frame(mtype, seq, ack, fields, session=None, peer=None):
    """A whole frame on the wire: 0x00, COBS(body), 0x00. The header's session and peer
    default to fields["session"] and fields["peer"] (0 when absent)."""
    if session is None:
        session = fields.get("session", 0)
    if peer is None:
        peer = fields.get("peer", 0)
    body = build_body(mtype, seq, ack, encode_payload(mtype, fields), session, peer)
    return b"\x00" + cobs.encode(body) + b"\x00"


def decode_frame(raw, receiver=None):
    """One frame (with or without delimiters) -> message dict; raises ProtocolError.
    receiver: ROLE_BOARD or ROLE_HOST checks the type is one that side takes (`takes`)."""
    raw = bytes(raw).strip(b"\x00")
    body = bytearray(MAX_BODY)
    n = unstuff(raw, len(raw), body)
    mtype, seq, ack, session, peer, payload = parse_body(body, n)
    if receiver is not None:
        check_type(receiver, mtype)
    msg = decode_payload(mtype, bytes(payload))
    check_fields(mtype, msg)
    msg["type"] = TYPE_NAMES[mtype]
    msg["seq"] = seq
    msg["ack"] = ack
    msg["session"] = session
    msg["peer"] = peer
    return msg
