"""Sensor map loader and validator (hardware/sensor_map.json).

Runs unchanged on MicroPython 1.20+ and CPython 3.11+: uses only json, hashlib (sha256)
and binascii.  It loads, validates and names sensors; scanning is done elsewhere.

Chain bit index b (hardware/README.md): byte b >> 3 of the buffer filled by one
spi.readinto(buf) after the load pulse, mask 0x80 >> (b & 7); byte 0 is the 74HC165 whose
QH drives MISO, the MSB is that register's input H.  Hall switches are active low.

    m = sensormap.load("sensor_map.json")
    m.lane_ids[3], m.lane_byte[3][i], m.lane_mask[3][i]   # where space i of lane 3 is
    m.bit_name(203)  -> "food.p2 space 3"
    m.hash8          -> 8 bytes, first 8 bytes of sha256 over the exact file bytes
"""
import json
import hashlib
import binascii

from firmware.tracks import mask_bit  # the board keeps tracks; this loader is dropped

FORMAT = 1
MAX_REGISTERS = 256       # lane_byte holds byte offsets in one byte each
INPUTS = "HGFEDCBA"       # input letter of chain bit (b & 7)
MAX_LANE_SPACES = 32      # a lane's state travels as one u32 mask (TRACK_CHANGE, SNAPSHOT)
# SNAPSHOT payload: 5 header bytes + 4 per lane + 4 per well, within one frame
SNAPSHOT_HEAD = 5
SNAPSHOT_ITEM = 4
MAX_PAYLOAD = 494         # protocol/wire.py MAX_PAYLOAD (a test keeps them equal; no import so
                          # this module stays standalone)

# Games whose track table is built in.  A map may also carry its own "seats" and "tracks";
# for a built-in game they must agree with this table, for any other game they are used
# as given.  track -> (kind, spaces per lane)
GAMES = {
    "civmint": {
        "seats": ("p1", "p2"),
        "tracks": {
            "government": ("development", 8),
            "economy": ("development", 8),
            "technology": ("development", 8),
            "culture": ("development", 8),
            "population_size": ("aspect", 6),
            "military_might": ("aspect", 6),
            "economic_strength": ("aspect", 6),
            "civilian_happiness": ("aspect", 6),
            "food": ("resource", 16),
            "wood": ("resource", 16),
            "stone": ("resource", 16),
            "metal": ("resource", 16),
            "money": ("resource", 16),
            "combat_power": ("resource", 16),
        },
    },
}


class SensorMapError(ValueError):
    pass


def _is_int(v):
    return type(v) is int


def _is_str(v):
    return type(v) is str


def _need(obj, key, where):
    if not isinstance(obj, dict):
        raise SensorMapError("malformed file: %s is not an object" % where)
    if key not in obj:
        raise SensorMapError("malformed file: %s has no %r" % (where, key))
    return obj[key]


class SensorMap:
    """A validated sensor map.

    Attributes: game, variant, chain_registers, n_lanes, lane_ids, lane_tracks, lane_seats,
    lane_kinds, lane_byte (list of bytes: byte offset per space), lane_mask (list of bytes:
    bit mask per space), spare_bits (tuple), spare_level (what a spare input reads),
    tail_level (what the chain reads after its last register), n_wells, well_ids, well_buses,
    well_addrs, well_chip_ids (list of tuples), omittable (dict group -> tuple of lane
    indices), strip_starts (first chain register of each strip = board, in file order; the
    board firmware does not use them: its guidance lights need no per-board layout)
    and strip_ids (their ids), both None for a map without 'strips', hash8 (bytes), hash_hex (str).
    """
    # declared for the type checker (set by parse); annotations cost nothing at run time
    game: str
    variant: str
    chain_registers: int
    tail_level: int
    spare_level: int
    spare_bits: tuple
    n_lanes: int
    lane_ids: list
    lane_tracks: list
    lane_seats: list
    lane_kinds: list
    lane_byte: list
    lane_mask: list
    n_wells: int
    well_ids: list
    well_buses: list
    well_addrs: list
    well_chip_ids: list
    omittable: dict
    strip_starts: "list | None"
    strip_ids: "list | None"
    hash8: bytes
    hash_hex: str

    def lane_index(self, lane_id):
        try:
            return self.lane_ids.index(lane_id)
        except ValueError:
            raise SensorMapError("unknown lane %r" % (lane_id,))

    def well_index(self, well_id):
        try:
            return self.well_ids.index(well_id)
        except ValueError:
            raise SensorMapError("unknown well %r" % (well_id,))

    def lane_bits(self, k):
        """Chain bit indices of lane k, space 0 first (a new list)."""
        out = []
        bs = self.lane_byte[k]
        ms = self.lane_mask[k]
        for i in range(len(bs)):
            out.append(bs[i] * 8 + mask_bit(ms[i]))
        return out

    def n_spaces(self, k):
        return len(self.lane_byte[k])

    def n_bits(self):
        return self.chain_registers * 8

    def n_sensors(self):
        n = 0
        for bs in self.lane_byte:
            n += len(bs)
        return n

    def owner(self, b):
        """(lane index, space) of chain bit b, or None for a spare/unmapped bit."""
        byte = b >> 3
        mask = 0x80 >> (b & 7)
        for k in range(len(self.lane_byte)):
            bs = self.lane_byte[k]
            ms = self.lane_mask[k]
            for i in range(len(bs)):
                if bs[i] == byte and ms[i] == mask:
                    return (k, i)
        return None

    def bit_location(self, b):
        """'register 5 input C' for chain bit b (register 0 is the one nearest the MCU)."""
        return "register %d input %s" % (b >> 3, INPUTS[b & 7])

    def bit_name(self, b):
        """Human name of chain bit b for self-test reports, e.g. 'military_might.p2 space 3'."""
        if b < 0 or b >= self.chain_registers * 8:
            return "bit %d (beyond the chain of %d registers)" % (b, self.chain_registers)
        o = self.owner(b)
        if o is not None:
            return "%s space %d" % (self.lane_ids[o[0]], o[1])
        if b in self.spare_bits:
            return "spare bit %d (%s)" % (b, self.bit_location(b))
        return "unmapped bit %d (%s)" % (b, self.bit_location(b))


def _game_table(doc):
    """(seats tuple, tracks dict track -> (kind, spaces)) from the built-in table and/or
    the file.  Raises for a disagreement."""
    game = _need(doc, "game", "the top level")
    if not _is_str(game):
        raise SensorMapError("malformed file: 'game' is not a string")
    builtin = GAMES.get(game)
    fseats = doc.get("seats")
    ftracks = doc.get("tracks")
    if fseats is not None:
        if not isinstance(fseats, list) or not fseats:
            raise SensorMapError("malformed file: 'seats' is not a non-empty list")
        for s in fseats:
            if not _is_str(s):
                raise SensorMapError("malformed file: seat %r is not a string" % (s,))
    tracks = None
    if ftracks is not None:
        if not isinstance(ftracks, dict):
            raise SensorMapError("malformed file: 'tracks' is not an object")
        tracks = {}
        for t in ftracks:
            e = ftracks[t]
            kind = _need(e, "kind", "track %r" % (t,))
            n = _need(e, "spaces", "track %r" % (t,))
            if not _is_str(kind) or not _is_int(n) or n < 1:
                raise SensorMapError("malformed file: track %r needs a string kind and spaces >= 1" % (t,))
            if n > MAX_LANE_SPACES:
                raise SensorMapError("track %r: %d spaces, but a lane holds at most %d (its state is one 32-bit "
                      "mask on the wire)" % (t, n, MAX_LANE_SPACES))
            tracks[t] = (kind, n)
    if builtin is None:
        if fseats is None or tracks is None:
            raise SensorMapError("unknown game %r: the map must carry 'seats' and 'tracks'" % (game,))
        return tuple(fseats), tracks
    if fseats is not None:
        for s in fseats:
            if s not in builtin["seats"]:
                raise SensorMapError("seats: unknown seat %r for game %r" % (s, game))
    if tracks is not None:
        for t in tracks:
            if t not in builtin["tracks"]:
                raise SensorMapError("tracks: unknown track %r for game %r" % (t, game))
            if tuple(builtin["tracks"][t]) != tracks[t]:
                raise SensorMapError("tracks: track %r is %s/%d here but %s/%d for game %r" % (
                    t, tracks[t][0], tracks[t][1], builtin["tracks"][t][0],
                    builtin["tracks"][t][1], game))
    return builtin["seats"], builtin["tracks"]


def parse(data):
    """Validate a sensor map given as str or bytes; return a SensorMap."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    else:
        data = bytes(data)
    digest = hashlib.sha256(data).digest()
    try:
        doc = json.loads(data.decode("utf-8"))
    except Exception as e:  # ValueError (CPython, MicroPython), UnicodeError
        raise SensorMapError("malformed file: not JSON (%s)" % (e,))
    if not isinstance(doc, dict):
        raise SensorMapError("malformed file: the top level is not an object")
    fmt = _need(doc, "format", "the top level")
    if fmt != FORMAT or not _is_int(fmt):
        raise SensorMapError("format %r is not supported (this loader reads format %d)" % (fmt, FORMAT))
    seats, tracks = _game_table(doc)

    chain = _need(doc, "chain", "the top level")
    regs = _need(chain, "registers", "'chain'")
    if not _is_int(regs) or regs < 1 or regs > MAX_REGISTERS:
        raise SensorMapError("chain: registers must be an integer 1..%d, not %r" % (MAX_REGISTERS, regs))
    nbits = regs * 8
    used = bytearray(nbits)      # 0 = free, else 1 + lane index (lanes < 255) / 255 spare

    m = SensorMap()
    m.game = doc["game"]
    m.variant = doc.get("variant", "")
    if not _is_str(m.variant):
        raise SensorMapError("malformed file: 'variant' is not a string")
    m.chain_registers = regs
    m.tail_level = chain.get("tail_level", 0)
    m.spare_level = chain.get("spare_level", 1)
    if not _is_int(m.tail_level) or not _is_int(m.spare_level) \
            or m.tail_level not in (0, 1) or m.spare_level not in (0, 1):
        raise SensorMapError("chain: tail_level and spare_level must be the integer 0 or 1")

    spare = chain.get("spare_bits", [])
    if not isinstance(spare, list):
        raise SensorMapError("malformed file: chain.spare_bits is not a list")
    for b in spare:
        if not _is_int(b) or b < 0 or b >= nbits:
            raise SensorMapError("chain.spare_bits: bit %r is beyond the chain of %d registers (bits 0..%d)"
                  % (b, regs, nbits - 1))
        if used[b]:
            raise SensorMapError("chain.spare_bits: bit %d listed twice" % b)
        used[b] = 255
    m.spare_bits = tuple(spare)

    if m.tail_level:
        # hall switches read 1 with no token: a last register with no input held at 0 reads
        # 0xFF, the tail byte itself, and the board would count the chain one register short
        # (hc165.chain_length); a spare input at 0 there keeps it apart from the tail
        last = regs * 8 - 8
        if m.spare_level or not [b for b in spare if b >= last]:
            raise SensorMapError("chain: tail_level 1 needs a spare input at level 0 in the last register "
                  "(bits %d..%d): with no token on it, that register reads 0xFF like the tail "
                  "and the board would count the chain one register short" % (last, last + 7))

    lanes = _need(doc, "lanes", "the top level")
    if not isinstance(lanes, list) or not lanes:
        raise SensorMapError("malformed file: 'lanes' is not a non-empty list")
    if len(lanes) > 254:
        raise SensorMapError("malformed file: more than 254 lanes")
    ids = []
    ltracks = []
    lseats = []
    lkinds = []
    lbyte = []
    lmask = []
    for k in range(len(lanes)):
        lane = lanes[k]
        where = "lanes[%d]" % k
        lid = _need(lane, "id", where)
        if not _is_str(lid):
            raise SensorMapError("malformed file: %s id is not a string" % where)
        where = "lane %r (lanes[%d])" % (lid, k)
        if lid in ids:
            raise SensorMapError("%s: duplicate lane id (also lanes[%d])" % (where, ids.index(lid)))
        track = _need(lane, "track", where)
        seat = _need(lane, "seat", where)
        if not _is_str(track) or not _is_str(seat):
            raise SensorMapError("malformed file: %s track and seat must be strings" % where)
        if track not in tracks:
            raise SensorMapError("%s: unknown track %r" % (where, track))
        if seat not in seats:
            raise SensorMapError("%s: unknown seat %r (seats: %s)" % (where, seat, ", ".join(seats)))
        if lid != "%s.%s" % (track, seat):
            raise SensorMapError("%s: id must be %r" % (where, "%s.%s" % (track, seat)))
        kind, nsp = tracks[track]
        lk = lane.get("kind", kind)
        if not _is_str(lk):
            raise SensorMapError("malformed file: %s kind is not a string" % where)
        if lk != kind:
            raise SensorMapError("%s: kind %r, but track %r is %r" % (where, lk, track, kind))
        bits = _need(lane, "bits", where)
        if not isinstance(bits, list):
            raise SensorMapError("malformed file: %s bits is not a list" % where)
        for i in range(len(bits)):
            b = bits[i]
            if b is None:
                raise SensorMapError("%s: gap at space %d (no bit)" % (where, i))
            if not _is_int(b):
                raise SensorMapError("%s space %d: bit %r is not an integer" % (where, i, b))
            if b < 0 or b >= nbits:
                raise SensorMapError("%s space %d: bit %d is beyond the chain of %d registers (bits 0..%d)"
                      % (where, i, b, regs, nbits - 1))
            if used[b]:
                if used[b] == 255:
                    other = "chain.spare_bits"
                else:
                    j = used[b] - 1
                    if j == k:
                        other = "space %d of the same lane" % bits.index(b)
                    else:
                        other = "lane %r space %d" % (ids[j], lanes[j]["bits"].index(b))
                raise SensorMapError("%s space %d: duplicate bit %d, already used by %s" % (where, i, b, other))
            used[b] = k + 1
        if len(bits) != nsp:
            raise SensorMapError("%s: %d bits but track %r has %d spaces (wrong length)" % (
                where, len(bits), track, nsp))
        ids.append(lid)
        ltracks.append(track)
        lseats.append(seat)
        lkinds.append(kind)
        bb = bytearray(nsp)
        mm = bytearray(nsp)
        for i in range(nsp):
            bb[i] = bits[i] >> 3
            mm[i] = 0x80 >> (bits[i] & 7)
        lbyte.append(bytes(bb))
        lmask.append(bytes(mm))

    wells = _need(doc, "wells", "the top level")
    if not isinstance(wells, list):
        raise SensorMapError("malformed file: 'wells' is not a list")
    wids = []
    wbus = []
    waddr = []
    wchip = []
    for k in range(len(wells)):
        w = wells[k]
        wid = _need(w, "id", "wells[%d]" % k)
        where = "well %r (wells[%d])" % (wid, k)
        if not _is_str(wid):
            raise SensorMapError("malformed file: wells[%d] id is not a string" % k)
        if wid in wids:
            raise SensorMapError("%s: duplicate well id" % where)
        bus = _need(w, "bus", where)
        if not _is_int(bus) or bus < 0:
            raise SensorMapError("%s: bus %r is not a bus number" % (where, bus))
        addr = w.get("addr", 0x29)
        if not _is_int(addr) or addr < 0 or addr > 127:
            raise SensorMapError("%s: addr %r is not an I2C address" % (where, addr))
        for j in range(len(wids)):
            if wbus[j] == bus and waddr[j] == addr:
                raise SensorMapError("%s: bus %d address 0x%02x already used by well %r" % (where, bus, addr, wids[j]))
        chip = w.get("ids", [0x44, 0x4D])
        if not isinstance(chip, list) or not chip or len(chip) > 8:
            raise SensorMapError("%s: ids must be a list of 1..8 chip ID bytes" % where)
        for x in chip:
            if not _is_int(x) or x < 0 or x > 255:
                raise SensorMapError("%s: chip ID %r is not a byte" % (where, x))
        wids.append(wid)
        wbus.append(bus)
        waddr.append(addr)
        wchip.append(tuple(chip))

    if len(wids) > 255:
        raise SensorMapError("malformed file: more than 255 wells")
    snap = SNAPSHOT_HEAD + SNAPSHOT_ITEM * (len(ids) + len(wids))
    if snap > MAX_PAYLOAD:
        raise SensorMapError("lanes and wells: %d lanes and %d wells make a SNAPSHOT of %d bytes, over the "
              "frame limit of %d (at most %d lanes and wells together)" % (
                  len(ids), len(wids), snap, MAX_PAYLOAD,
                  (MAX_PAYLOAD - SNAPSHOT_HEAD) // SNAPSHOT_ITEM))

    om = doc.get("omittable", {})
    if not isinstance(om, dict):
        raise SensorMapError("malformed file: 'omittable' is not an object")
    omittable = {}
    for g in om:
        if not isinstance(om[g], list) or not om[g]:
            raise SensorMapError("omittable %r: not a non-empty list of lane ids" % (g,))
        idx = []
        for lid in om[g]:
            if not _is_str(lid) or lid not in ids:
                raise SensorMapError("omittable %r: unknown lane %r" % (g, lid))
            idx.append(ids.index(lid))
        # an omitted group must be a tail of the chain: its lanes after all kept lanes,
        # each of its bits after every kept bit
        keep_max = -1
        om_min = nbits
        for k in range(len(ids)):
            bits = lanes[k]["bits"]
            if k in idx:
                om_min = min(om_min, min(bits))
            else:
                keep_max = max(keep_max, max(bits))
        for k in idx:
            for j in range(len(ids)):
                if j not in idx and j > k:
                    raise SensorMapError("omittable %r: lane %r must come after kept lane %r" % (g, ids[k], ids[j]))
        if (om_min >> 3) <= (keep_max >> 3):
            raise SensorMapError("omittable %r: its bits must start in a register after the last kept bit %d"
                  % (g, keep_max))
        omittable[g] = tuple(idx)

    # strips (boards): only where each starts and its id
    m.strip_starts = m.strip_ids = None
    strips = doc.get("strips")
    if strips is not None:
        if not isinstance(strips, list):
            raise SensorMapError("malformed file: 'strips' is not a list")
        sst = []
        sid = []
        for k in range(len(strips)):
            st = strips[k]
            sk = _need(st, "id", "strips[%d]" % k)
            if not _is_str(sk):
                raise SensorMapError("malformed file: strips[%d] id is not a string" % k)
            where = "strip %r (strips[%d])" % (sk, k)
            if sk in sid:
                raise SensorMapError("%s: duplicate strip id (also strips[%d])" % (where, sid.index(sk)))
            first = _need(st, "first_register", where)
            if not _is_int(first) or first < 0 or first >= regs:
                raise SensorMapError("%s: first_register %r is not a register of the chain (0..%d)"
                                     % (where, first, regs - 1))
            if first in sst:
                raise SensorMapError("%s: first_register %d is also where strip %r starts"
                                     % (where, first, sid[sst.index(first)]))
            sst.append(first)
            sid.append(sk)
        if sst:
            m.strip_starts = sst
            m.strip_ids = sid

    m.lane_ids = ids
    m.lane_tracks = ltracks
    m.lane_seats = lseats
    m.lane_kinds = lkinds
    m.lane_byte = lbyte
    m.lane_mask = lmask
    m.n_lanes = len(ids)
    m.well_ids = wids
    m.well_buses = wbus
    m.well_addrs = waddr
    m.well_chip_ids = wchip
    m.n_wells = len(wids)
    m.omittable = omittable
    m.hash8 = digest[:8]
    m.hash_hex = binascii.hexlify(m.hash8).decode()
    return m


def check_profile(m, profile):
    """Can a board with this pin profile run map m? Raises SensorMapError naming the first
    entry it cannot serve: a well on an I2C bus the profile does not define, or a second well
    on a bus whose dice LED the profile switches (one LED pin per bus)."""
    buses = profile.get("i2c") if isinstance(profile, dict) else None
    if not isinstance(buses, list):
        raise SensorMapError("board profile: 'i2c' is not a list of buses")
    for k in range(m.n_wells):
        bus = m.well_buses[k]
        if bus >= len(buses):
            raise SensorMapError("well %r (wells[%d]): bus %d is missing from the board profile %r (its I2C "
                  "buses are 0..%d)" % (m.well_ids[k], k, bus, profile.get("board", "?"),
                                        len(buses) - 1))
        c = buses[bus]
        if isinstance(c, dict) and c.get("well_led") is not None:
            for j in range(k):
                if m.well_buses[j] == bus:
                    # each reading is LED-on minus LED-off: two modules switching one LED pin
                    # spoil each other's halves, so neither die would ever settle
                    raise SensorMapError("well %r (wells[%d]): bus %d already carries well %r, and the "
                          "board profile %r switches one dice LED per bus (i2c[%d].well_led): "
                          "each well needs a bus of its own" % (
                              m.well_ids[k], k, bus, m.well_ids[j], profile.get("board", "?"), bus))
    return m


def load(path):
    """Read and validate the sensor map file at path."""
    with open(path, "rb") as f:
        data = f.read()
    return parse(data)
