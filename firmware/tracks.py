"""Track scanning: lane masks from the 74HC165 chain, debounce, chain and spare-bit checks.

Pure logic (no machine): ``scan(buf, now)`` takes the buffer filled by ShiftChain.read()
(registers + 1 tail byte). Hall switches are active low: a 0 bit is a magnet (token).

Debounce: a lane's new raw mask is committed only after it was read identically in
consecutive scans, and how many depends on what it could be. The hall switches are micropower
parts that sample the field once per their own period (``hall_period_ms``) and hold the output
in between, so while a token slides from space i to i+1 the stale output of i can keep both
bits set, or neither, for up to one period:
* one token (exactly one bit): ``stable_scans`` scans (20 ms) - one token on one space cannot
  be the phantom of two, so a placement is reported quickly;
* an empty lane or several bits: ``hold_scans`` scans, longer than the switch period, so the
  stale output of a switch never makes a phantom token or a phantom empty lane;
* exactly two adjacent bits: never committed. In a lane that carries one counter this is one
  token resting between two spaces (or still leaving its space); the lane keeps the last
  committed state until the token rests on one space. Two bits that are not neighbours (two
  tokens, or a token and a stuck bit) are reported as they are after ``hold_scans``.

A hand sweeping the board readies every lane in one scan: at most ``COMMITS_PER_SCAN`` lanes
commit per scan, the rest in the following ones (docs/firmware.md, "The worst scan").

Chain health, checked every scan without allocation: the tail byte after the chain must be
the tail level, and the spare inputs (tied to the spare level) must read it. When the tail
byte is wrong, the chain's last register reads the tail byte (no real register does: at most
two lanes, one token each) or the last register with spare inputs reads none of them right for
``stable_scans`` scans, ``chain_suspect`` is set and commits are frozen (a missing board
would otherwise read as a lane full of tokens); the board then measures the chain length.

Double read (``scan_chain``): the chain is read twice back to back and the two reads compared;
only a read its twin confirms is scanned. A disagreeing pair (a clock glitch, a bit flipped on
the cable) is discarded and the chain read again, at most ``read_retries`` more pairs; each
disagreement counts in ``read_mismatches``, and a scan with no agreeing pair is skipped (counted
in ``reads_dropped``): nothing of it can commit a lane, so it can never be reported as a move.
Scans dropped in a row for longer than ``hold_scans`` (a switch period) are a chain that does
not read, not a burst: each further one counts as a bad chain scan (``chain_suspect``).

Stuck bits (``stuck_bits``): a spare input away from its level is stuck from the first scan;
a lane bit that stayed set while the lane's token moved on (other bits of the same lane
changed) for ``stuck_ms`` is reported as stuck on. A token that never moves is not a fault.
"""


def mask_bit(mask):
    """Input index 0-7 (0 = MSB = input H) of a one-bit byte mask (here rather than in
    firmware/sensormap.py, which the board drops after start-up)."""
    p = 0
    m = 0x80
    while m and m != mask:
        m >>= 1
        p += 1
    return p

# Output update period bound for the AH1806 micropower hall switches (typ. 75 ms; docs/firmware.md,
# "Debounce"): the windows that guard against stale outputs are longer than this.
HALL_PERIOD_MS = 100
COMMITS_PER_SCAN = 8

try:
    from time import ticks_diff  # pyright: ignore[reportAssignmentType]
except ImportError:
    def ticks_diff(a, b):
        return a - b


def _rev_table():
    t = bytearray(256)
    for v in range(256):
        r = 0
        for i in range(8):
            if v & (1 << i):
                r |= 0x80 >> i
        t[v] = r
    return bytes(t)


_REV = _rev_table()  # bit-reversed bytes


def _low_table():
    t = bytearray(256)
    for v in range(1, 256):
        i = 0
        while not v & (1 << i):
            i += 1
        t[v] = i
    return bytes(t)


_LOW = _low_table()  # index of the lowest set bit of a byte


class TrackScanner:
    def __init__(self, smap, stable_scans=4, stuck_ms=60000, spare_level=None, scan_ms=5,
                 hall_period_ms=HALL_PERIOD_MS):
        n = smap.n_lanes
        self.n = n
        self.nreg = smap.chain_registers
        self.stable_scans = stable_scans
        # more than one switch period plus a scan on each side of it
        hold = hall_period_ms // scan_ms + 2
        self.hold_scans = hold if hold > stable_scans else stable_scans
        self.stuck_ms = stuck_ms
        self.lane_byte = smap.lane_byte
        self.lane_mask = smap.lane_mask
        self.lane_r0 = bytearray(n)
        self.lane_r1 = bytearray(n)
        for k in range(n):
            bs = smap.lane_byte[k]
            self.lane_r0[k] = min(bs)
            self.lane_r1[k] = max(bs)
        self.stable = [0] * n  # committed mask per lane, bit i = space i occupied
        self.cand = [0] * n
        self.count = [0] * n
        self.prev_all = None  # the whole last read (made at the first scan, its length)
        self.spares_all_off = False  # the last spare register reads none of its spares right
        self.counting = 0  # lanes whose count is not 0 (a new mask being confirmed)
        self.chain_bad = False  # the last read's tail/spare verdict
        # fast path: a lane on consecutive chain bits within 3 bytes is cut out of a 24-bit
        # window and bit-reversed (~30 bytecodes instead of ~15 per space)
        self.lane_fast = bytearray(n)  # lane_r0 (its first register) is where its window starts
        self.lane_shift = bytearray(n)
        self.lane_n = bytearray(n)
        self.lane_full = [0] * n
        for k in range(n):
            bs = smap.lane_byte[k]
            ms = smap.lane_mask[k]
            ln = len(bs)
            b0 = bs[0] * 8 + mask_bit(ms[0])
            seq = ln <= 16 and (b0 & 7) + ln <= 24 and (b0 >> 3) + 2 <= self.nreg
            for i in range(ln):
                if bs[i] * 8 + mask_bit(ms[i]) != b0 + i:
                    seq = False
            if seq:
                self.lane_fast[k] = 1
                self.lane_shift[k] = 24 - (b0 & 7) - ln
                self.lane_n[k] = ln
                self.lane_full[k] = (1 << ln) - 1
        self.reg_changed = bytearray(self.nreg + 1)  # per byte of the read (sized at scan 1)
        self.changes = bytearray(n)  # lanes committed by the last scan: changes[0:n_changes]
        # a hand sweeping the board readies every lane in one scan: at most this many commit
        # per scan, the rest in the next ones (bounds the worst scan; a placement is one lane)
        self.commits_per_scan = COMMITS_PER_SCAN
        self.n_changes = 0
        self.scans = 0
        # double read: the twin of each chain read, compared before the scan uses it
        self.twin = bytearray(self.nreg + 1)
        self.read_retries = 2
        self.read_mismatches = 0
        self.reads_dropped = 0
        self.dropped_run = 0  # scans dropped in a row (no agreeing pair)
        # tail and spare expectations
        self.tail_byte = 0xFF if smap.tail_level else 0x00
        self.last_reg = self.nreg - 1 if not smap.tail_level else -1  # read as the tail, a short chain (_check_chain)
        if spare_level is None:
            spare_level = smap.spare_level
        regs = []
        for b in smap.spare_bits:
            if (b >> 3) not in regs:
                regs.append(b >> 3)
        regs.sort()
        self.spare_reg = bytearray(regs)
        self.spare_mask = bytearray(len(regs))
        self.spare_exp = bytearray(len(regs))
        for b in smap.spare_bits:
            j = regs.index(b >> 3)
            m = 0x80 >> (b & 7)
            self.spare_mask[j] |= m
            if spare_level:
                self.spare_exp[j] |= m
        self.spare_bad = bytearray(len(regs))  # bits away from the spare level, per register
        self.spare_since = [0] * (len(regs) * 8)
        self.chain_bad_scans = 0
        self.chain_good_scans = 0
        self.chain_suspect = False
        # stuck-on lane bits
        self.held = [0] * n
        self.set_ms = []
        for k in range(n):
            self.set_ms.append([0] * len(smap.lane_byte[k]))

    def lane_raw(self, buf, k):
        """Raw (undebounced) mask of lane k in buf."""
        if self.lane_fast[k]:
            r = self.lane_r0[k]
            v = (~((buf[r] << 16) | (buf[r + 1] << 8) | buf[r + 2]) >> self.lane_shift[k]) \
                & self.lane_full[k]  # space 0 in the top bit: reverse
            return ((_REV[v & 0xFF] << 8) | _REV[v >> 8]) >> (16 - self.lane_n[k])
        bs = self.lane_byte[k]
        ms = self.lane_mask[k]
        m = 0
        bit = 1
        for i in range(len(bs)):
            if not buf[bs[i]] & ms[i]:
                m |= bit
            bit <<= 1
        return m

    def read_agreed(self, chain):
        """Read the chain (a firmware.hc165.ShiftChain) twice and return its buffer when both
        reads agree byte for byte over the chain and the tail byte; else read the pair again, at
        most ``read_retries`` times, and return None. Allocates nothing."""
        twin = self.twin
        for _ in range(self.read_retries + 1):
            buf = chain.read()
            chain.read_twin(twin)  # latch again and read the twin (the same light image sent)
            if twin == chain.scan_view:
                return buf
            self.read_mismatches += 1
        self.reads_dropped += 1
        return None

    def scan_chain(self, chain, now):
        """One scan from two agreeing chain reads (``read_agreed``); a scan whose reads never
        agree commits nothing and returns 0."""
        buf = self.read_agreed(chain)
        if buf is None:
            # reads that keep disagreeing for longer than a switch period are not a noise
            # burst but a chain that does not read (noise past a reversed cable): each further
            # dropped scan counts as a bad chain scan, so the chain turns suspect as for a
            # wrong tail byte (commits frozen, the lights dark, the self-test measures it)
            self.dropped_run += 1
            if self.dropped_run > self.hold_scans:
                self.chain_bad = True
                self._chain_counters(True)
            self.n_changes = 0
            return 0
        self.dropped_run = 0
        return self.scan(buf, now)

    def scan(self, buf, now):
        """Process one chain read; returns the number of lanes committed (see .changes)."""
        self.scans += 1
        pa = self.prev_all
        first = pa is None
        if first:
            pa = self.prev_all = bytearray(len(buf))  # the last read, every byte
            self.reg_changed = bytearray(len(buf))
        elif not self.counting and buf == pa:
            # nothing moved and nothing is being confirmed: only the chain counters advance
            self._chain_counters(self.chain_bad)
            self.n_changes = 0
            return 0
        rc = self.reg_changed
        for r in range(len(pa)):
            v = buf[r]
            if v != pa[r] or first:
                pa[r] = v
                rc[r] = 1
            else:
                rc[r] = 0
        self._check_chain(buf, now, first)
        nch = 0
        stable = self.stable
        cand = self.cand
        count = self.count
        r0 = self.lane_r0
        r1 = self.lane_r1
        fast = self.lane_fast
        shift = self.lane_shift
        nbits = self.lane_n
        full = self.lane_full
        rev = _REV
        hold = self.hold_scans
        need_one = self.stable_scans
        frozen = self.chain_suspect
        held = self.held
        set_ms = self.set_ms
        low_bit = _LOW
        changes = self.changes
        budget = self.commits_per_scan
        for k in range(self.n):
            c = count[k]
            r = r0[k]
            if not c:
                while r <= r1[k] and not rc[r]:
                    r += 1
                if r > r1[k]:
                    continue  # none of its registers changed
                r = r0[k]
            if fast[k]:  # lane_raw inlined: this loop is the hand-sweep worst case
                v = (~((buf[r] << 16) | (buf[r + 1] << 8) | buf[r + 2]) >> shift[k]) & full[k]
                raw = ((rev[v & 0xFF] << 8) | rev[v >> 8]) >> (16 - nbits[k])
            else:
                raw = self.lane_raw(buf, k)
            if raw == stable[k]:
                if c:
                    count[k] = 0
                    self.counting -= 1
                continue
            if raw == cand[k] and c:
                if c < hold:
                    c += 1
            else:
                cand[k] = raw
                if not c:
                    self.counting += 1
                c = 1
            count[k] = c
            low = raw & (raw - 1)  # raw without its lowest bit: 0 when one token
            if raw and not low:
                need = need_one
            elif raw and not low & (low - 1) and raw & (raw >> 1):
                continue  # one token between two neighbouring spaces: keep the last state
            else:
                need = hold
            if c >= need and not frozen and nch < budget:  # over budget: the next scan
                # commit, inline (this loop is the hand-sweep worst case)
                old = stable[k]
                stable[k] = raw
                arrived = raw & ~old
                if arrived:
                    held[k] = (held[k] | (old & raw)) & raw
                else:
                    held[k] &= raw
                i = 0
                sm = set_ms[k]
                while arrived:
                    b = arrived & 0xFF
                    while b:
                        sm[i + low_bit[b]] = now
                        b &= b - 1
                    arrived >>= 8
                    i += 8
                count[k] = 0
                self.counting -= 1
                changes[nch] = k
                nch += 1
        self.n_changes = nch
        return nch

    def _check_chain(self, buf, now, first=True):
        """Tail byte and spare inputs; a spare register is looked at only when it changed
        (rc from scan), the verdict of the last one is kept."""
        bad = buf[self.nreg] != self.tail_byte
        # a real register never reads 0x00 (at most two lanes, one token each): a last register
        # reading it is the tail of a shorter chain (a strip with no spare input left to tell)
        if self.last_reg >= 0 and buf[self.last_reg] == 0:
            bad = True
        sr = self.spare_reg
        rc = self.reg_changed
        last = len(sr) - 1
        for j in range(len(sr)):
            if not (first or rc[sr[j]]):
                continue
            m = self.spare_mask[j]
            off = (buf[sr[j]] ^ self.spare_exp[j]) & m
            if off != self.spare_bad[j]:
                new = off & ~self.spare_bad[j]
                self.spare_bad[j] = off
                i = 0
                while i < 8:
                    if new & (0x80 >> i):
                        self.spare_since[j * 8 + i] = now
                    i += 1
            if j == last:
                self.spares_all_off = off == m
        bad = bad or self.spares_all_off
        self.chain_bad = bad
        self._chain_counters(bad)

    def _chain_counters(self, bad):
        if bad:
            self.chain_good_scans = 0
            self.chain_bad_scans += 1
            if self.chain_bad_scans >= self.stable_scans:
                self.chain_suspect = True
        else:
            self.chain_bad_scans = 0
            self.chain_good_scans += 1
            if self.chain_good_scans >= self.stable_scans:
                self.chain_suspect = False

    def stuck_signature(self, now):
        """A small int that changes when the set of stuck bits (as stuck_bits lists them)
        changes; 0 when there is none. Allocates nothing (checked every second by the board)."""
        sig = 0
        for j in range(len(self.spare_reg)):
            off = self.spare_bad[j]
            if off:
                sig = (sig * 31 + self.spare_reg[j] * 256 + off + 1) & 0x3FFFFFF
        for k in range(self.n):
            h = self.held[k] & self.stable[k]
            i = 0
            while h:
                if h & 1 and ticks_diff(now, self.set_ms[k][i]) >= self.stuck_ms:
                    sig = (sig * 31 + k * 64 + i + 1) & 0x3FFFFFF
                h >>= 1
                i += 1
        return sig

    def stuck_bits(self, now, out):
        """Append (chain bit, seconds) of stuck bits to the list out (allocates; self-test)."""
        for j in range(len(self.spare_reg)):
            off = self.spare_bad[j]
            for i in range(8):
                if off & (0x80 >> i):
                    s = ticks_diff(now, self.spare_since[j * 8 + i]) // 1000
                    out.append((self.spare_reg[j] * 8 + i, s))
        for k in range(self.n):
            h = self.held[k] & self.stable[k]
            i = 0
            while h:
                if h & 1:
                    age = ticks_diff(now, self.set_ms[k][i])
                    if age >= self.stuck_ms:
                        b = self.lane_byte[k][i] * 8 + mask_bit(self.lane_mask[k][i])
                        out.append((b, age // 1000))
                h >>= 1
                i += 1
        return out

