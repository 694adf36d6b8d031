"""Reliable link endpoint shared by the board and the tablet (docs/protocol.md, "Link").

Sequenced frames are kept, COBS-encoded, in a preallocated ring until the peer acknowledges
them (cumulative ack = next sequence number expected) and are resent go-back-N on a timer.
The receiver delivers only the next expected sequence number; duplicates and frames after a
gap are dropped and re-acknowledged. HELLO both ways pairs two sessions and says where each
side's stream resumes, so an unplug resumes exactly and a reset restarts from a snapshot.
Every frame's header names the sender's session and the peer session it is paired with; seq
and ack are acted on only for frames of the pair this side belongs to, so nothing numbered in
another session (a board before its reset, an app before its restart) is ever delivered or
frees a frame.
"""
import binascii
import struct

from protocol import cobs, wire

try:
    from time import ticks_diff  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython: plain millisecond integers
    def ticks_diff(a, b):
        return a - b

RESEND_MS = 200
HEARTBEAT_MS = 500
LINK_TIMEOUT_MS = 1500
HELLO_RETRY_HOST_MS = 500
HELLO_RETRY_BOARD_MS = 1000
ERROR_REPLY_GAP_MS = 100

# errors that line noise produces: their ERROR replies are rate limited
NOISE_ERRORS = (wire.E_BAD_CRC, wire.E_BAD_FRAMING, wire.E_TOO_LONG, wire.E_TOO_SHORT,
                wire.E_BAD_VERSION)

COUNTER_NAMES = (
    "rx_frames", "rx_delivered", "rx_duplicate", "rx_out_of_order", "rx_not_synced",
    "tx_frames", "tx_resent", "tx_acked", "hello_rx", "hello_tx", "link_down", "folded",
    "overflow_snapshots", "rx_foreign", "replies_held", "bad_crc", "bad_framing", "too_long", "too_short", "unknown_type",
    "bad_version", "bad_payload", "map_mismatch", "not_synced", "bad_argument", "busy", "internal",
)


def seq_diff(a, b):
    """a - b in 16-bit serial-number arithmetic, in -32768..32767."""
    return ((a - b + 0x8000) & 0xFFFF) - 0x8000


class Link:
    """One side of the link. Subclasses: BoardLink, HostLink."""

    role = wire.ROLE_HOST
    reply_errors = False

    def __init__(self, write, now_ms, on_message, info, session, window=32, ring_size=2048):
        self.write = write  # write(buf, start, end): send buf[start:end]
        self.now_ms = now_ms
        self.on_message = on_message  # on_message(dict): delivered messages and link events
        self.info = info  # dict: version, board_id, profile, map_hash, lanes, wells
        self.session = (session & 0xFFFFFFFF) or 1  # 0 means "no session" on the wire
        self.counters = {}
        for name in COUNTER_NAMES:
            self.counters[name] = 0
        self.last_error = None
        # transmit side
        self.window = window
        self.ring = bytearray(ring_size)
        self.slot_off = [0] * window
        self.slot_len = [0] * window
        self.head = 0
        self.count = 0
        self.tail = 0
        self.tx_next = 0
        self.sent_ms = 0
        self.last_tx_ms = now_ms()
        self.scratch = bytearray(wire.MAX_BODY)
        self.spare = bytearray(wire.MAX_ENCODED + 2)  # unsequenced frames are encoded here
        self.hello_payload = None  # encoded at the first HELLO (send_hello)
        self.ack_pending = False
        # receive side
        self.rx_buf = bytearray(wire.MAX_ENCODED)
        self.rx_len = 0
        self.rx_over = False
        self.body = bytearray(wire.MAX_BODY)
        self.rx_expected = None
        self.peer_session = None
        self.peer_info = None
        self.synced = False
        self.last_rx_ms = now_ms()
        self.hello_ms = None
        self.hello_owed = False  # a frame of another pairing came inside the HELLO gap
        self.error_ms = None

    # ---------------------------------------------------------------- transmit
    def _seal(self, mtype, seq, n):
        """Header and CRC around the payload in scratch[HEADER_LEN:n]; returns the body length."""
        ack = self.rx_expected if self.rx_expected is not None else 0
        struct.pack_into(wire.HEADER_FMT, self.scratch, 0, wire.VERSION, mtype, seq, ack,
                         self.session, self.peer_session or 0)
        wire.crc_into(self.scratch, n)
        return n + wire.CRC_LEN

    def oldest_seq(self):
        return (self.tx_next - self.count) & 0xFFFF

    def room_for(self, n):
        """Ring offset where a frame of body length n fits, or -1."""
        if self.count >= self.window:
            return -1
        need = cobs.max_encoded_len(n + wire.CRC_LEN) + 2
        size = len(self.ring)
        if self.count == 0:
            return 0 if need <= size else -1
        start = self.slot_off[self.head]
        tail = self.tail
        if tail > start:
            if tail + need <= size:
                return tail
            return 0 if need <= start else -1
        return tail if tail + need <= start else -1

    def _queue_scratch(self, mtype, n):
        """Queue header+payload already in scratch[0:n] as the next sequenced frame; it goes
        out at once when paired (else at the resume). Returns its seq or -1 (ring full)."""
        pos = self.room_for(n)
        if pos < 0:
            return -1
        seq = self.tx_next
        body_len = self._seal(mtype, seq, n)
        ring = self.ring
        ring[pos] = 0
        end = cobs.encode_into(self.scratch, body_len, ring, pos + 1)
        ring[end] = 0
        end += 1
        slot = (self.head + self.count) % self.window
        self.slot_off[slot] = pos
        self.slot_len[slot] = end - pos
        self.tail = end
        if self.count == 0:
            self.sent_ms = self.now_ms()
        self.count += 1
        self.tx_next = (seq + 1) & 0xFFFF
        if self.synced:
            self._transmit(ring, pos, end)
        return seq

    def _send_unsequenced(self, mtype, n, seq=0):
        """Send header+payload in scratch[0:n] once, outside the ring."""
        body_len = self._seal(mtype, seq, n)
        out = self.spare
        out[0] = 0
        end = cobs.encode_into(self.scratch, body_len, out, 1)
        out[end] = 0
        self._transmit(out, 0, end + 1)

    def _transmit(self, buf, start, end):
        self.counters["tx_frames"] += 1
        self.last_tx_ms = self.now_ms()
        self.write(buf, start, end)

    def _stage(self, mtype, fields):
        """Encode the payload into scratch after the header; returns header + payload length."""
        payload = wire.encode_payload(mtype, fields)
        n = wire.HEADER_LEN + len(payload)
        if n + wire.CRC_LEN > wire.MAX_BODY:
            raise wire.ProtocolError(wire.E_TOO_LONG, "message of %d bytes exceeds the frame limit" % n)
        self.scratch[wire.HEADER_LEN:n] = payload
        return n

    def send_message(self, mtype, fields):
        """Encode and send any message; sequenced types are queued. Returns seq, 0, or -1 (full)."""
        n = self._stage(mtype, fields)
        if wire.is_sequenced(mtype):
            return self._queue_scratch(mtype, n)
        self._send_unsequenced(mtype, n)
        return 0

    def _resend_all(self):
        i = 0
        while i < self.count:
            slot = (self.head + i) % self.window
            off = self.slot_off[slot]
            self._transmit(self.ring, off, off + self.slot_len[slot])
            self.counters["tx_resent"] += 1
            i += 1
        self.sent_ms = self.now_ms()

    def _on_ack(self, ack):
        d = seq_diff(ack, self.oldest_seq())
        if 0 < d <= self.count:
            self.head = (self.head + d) % self.window
            self.count -= d
            self.counters["tx_acked"] += d
            self.sent_ms = self.now_ms()
            if self.count == 0:
                self.tail = 0
            self._acked()

    def _acked(self):
        pass

    def _clear_tx(self):
        dropped = self.count
        self.head = 0
        self.count = 0
        self.tail = 0
        return dropped

    def send_hello(self, reply_wanted):
        # the payload is encoded once; only flags (byte 0) and rx_next (bytes 5-6) change, so
        # an unpaired board retrying HELLO allocates nothing
        hp = self.hello_payload
        if hp is None:
            info = self.info
            hp = self.hello_payload = wire.encode_payload(wire.HELLO, {
                "flags": 0, "role": self.role, "version": info["version"], "rx_next": 0,
                "map_hash": info["map_hash"], "lanes": info["lanes"], "wells": info["wells"],
                "board_id": info["board_id"], "profile": info["profile"]})
        sc = self.scratch
        h = wire.HEADER_LEN
        n = h + len(hp)
        sc[h:n] = hp
        sc[h] = wire.HELLO_REPLY_WANTED if reply_wanted else 0
        rx = self.rx_expected if self.rx_expected is not None else 0
        sc[h + 5] = rx & 0xFF
        sc[h + 6] = rx >> 8
        # HELLO's seq field: the oldest unacknowledged seq, where this side's stream resumes
        self._send_unsequenced(wire.HELLO, n, self.oldest_seq())
        self.counters["hello_tx"] += 1
        self.hello_ms = self.now_ms()
        self.hello_owed = False  # any HELLO on the line answers a frame of another pairing

    def _send_ack(self):
        self.ack_pending = False
        self._send_unsequenced(wire.ACK, wire.HEADER_LEN)

    def _send_heartbeat(self):
        # ticks_ms wraps at 2**30 on MicroPython: the quotient is a small int (no allocation)
        struct.pack_into("<I", self.scratch, wire.HEADER_LEN, (self.now_ms() // 1000) & 0x3FFFFFFF)
        self._send_unsequenced(wire.HEARTBEAT, wire.HEADER_LEN + 4)

    def _hello_gap(self):
        return HELLO_RETRY_HOST_MS if self.role == wire.ROLE_HOST else HELLO_RETRY_BOARD_MS

    def _hello_due(self):
        return self.hello_ms is None or ticks_diff(self.now_ms(), self.hello_ms) >= self._hello_gap()

    def send_error(self, code, ref_type=0, ref_seq=0, detail="", rate_limited=False):
        """ERROR to the peer. Line-noise errors are rate limited so noise cannot flood the line;
        errors about a command the peer really sent always go out."""
        now = self.now_ms()
        if rate_limited:
            if self.error_ms is not None and ticks_diff(now, self.error_ms) < ERROR_REPLY_GAP_MS:
                return
            self.error_ms = now
        self.send_message(wire.ERROR, {"code": code, "ref_type": ref_type, "ref_seq": ref_seq,
                                       "detail": detail})

    # ----------------------------------------------------------------- receive
    def feed(self, data):
        """Bytes from the wire, in any chunking."""
        if not isinstance(data, (bytes, bytearray)):
            data = bytes(data)
        n = len(data)
        i = 0
        rx_buf = self.rx_buf
        cap = len(rx_buf)
        while i < n:
            j = data.find(b"\x00", i)
            if j < 0:
                j = n
            if j > i:
                k = self.rx_len + j - i
                if self.rx_over or k > cap:
                    self.rx_over = True
                else:
                    rx_buf[self.rx_len:k] = data[i:j]
                    self.rx_len = k
            if j < n and (self.rx_len or self.rx_over):
                self._end_of_frame()
            i = j + 1

    def _end_of_frame(self):
        n = self.rx_len
        over = self.rx_over
        self.rx_len = 0
        self.rx_over = False
        if over:
            self._bad(wire.E_TOO_LONG, 0, 0, "frame longer than %d bytes" % wire.MAX_ENCODED)
            return
        try:
            size = wire.unstuff(self.rx_buf, n, self.body)
            mtype, seq, ack, src, dst, payload = wire.parse_body(self.body, size)
        except wire.ProtocolError as exc:
            self._bad(exc.code, 0, 0, exc.message)
            return
        self.counters["rx_frames"] += 1
        self._on_frame(mtype, seq, ack, src, dst, payload)

    def _bad(self, code, ref_type, ref_seq, detail):
        self.counters[wire.ERROR_NAMES.get(code, "internal")] += 1
        self.last_error = (code, detail)
        if self.reply_errors:
            self.send_error(code, ref_type, ref_seq, detail, code in NOISE_ERRORS)
        elif code == wire.E_BAD_VERSION:  # body[0] is the version byte the peer sent
            self._refuse({"type": "REFUSED", "code": code, "reason": detail, "protocol": self.body[0]})

    def _refuse(self, msg):
        """Only the tablet refuses (HostLink)."""

    def _foreign(self, mtype, seq):
        """A frame of a session pair this side is not in: a peer that restarted (its HELLO
        lost), or one that has not yet heard this side's HELLO. Never acted on; a HELLO
        (rate limited) makes the two sides pair again."""
        self.counters["rx_foreign"] += 1
        if self.peer_session is None and wire.is_sequenced(mtype):
            self.counters["rx_not_synced"] += 1
            if self.reply_errors:
                self.send_error(wire.E_NOT_SYNCED, mtype, seq, "HELLO first", True)
        if self._hello_due():
            self.send_hello(True)
        else:
            # inside the gap since the last HELLO: answered when the gap ends (poll), once,
            # however many such frames came, so a frame just after a pairing is not left
            # unanswered for good
            self.hello_owed = True

    def _on_frame(self, mtype, seq, ack, src, dst, payload):
        if mtype == wire.HELLO:
            try:
                hello = wire.decode_payload(mtype, payload)
            except wire.ProtocolError as exc:
                self._bad(exc.code, mtype, seq, exc.message)
                return
            self.counters["hello_rx"] += 1
            self._on_hello(seq, src, dst, hello)
            return
        ours = self.peer_session is not None and src == self.peer_session and dst == self.session
        if not wire.is_sequenced(mtype):
            try:
                msg = wire.decode_payload(mtype, payload)
            except wire.ProtocolError as exc:
                self._bad(exc.code, mtype, seq, exc.message)
                return
            if mtype == wire.ERROR:  # informative from anyone (e.g. a refusal before pairing)
                if ours:
                    self.last_rx_ms = self.now_ms()
                    self._on_ack(ack)
                msg["type"] = "ERROR"
                msg["seq"] = seq
                self.on_message(msg)
                return
            if not ours:
                self._foreign(mtype, seq)
                return
            self.last_rx_ms = self.now_ms()
            self._on_ack(ack)
            return  # ACK and HEARTBEAT: the header was the content
        if not ours:
            self._foreign(mtype, seq)
            return
        self.last_rx_ms = self.now_ms()
        self._on_ack(ack)
        d = seq_diff(seq, self.rx_expected)
        self.ack_pending = True
        if d < 0:
            self.counters["rx_duplicate"] += 1
            return
        if d > 0:
            self.counters["rx_out_of_order"] += 1
            return
        self.rx_expected = (seq + 1) & 0xFFFF
        try:
            wire.check_type(self.role, mtype)  # the type first, then the payload (spec 2)
            msg = wire.decode_payload(mtype, payload)
            wire.check_fields(mtype, msg)
        except wire.ProtocolError as exc:
            # consumed anyway, so the sender stops resending it; the error is reported
            self._bad(exc.code, mtype, seq, exc.message)
            return
        self.counters["rx_delivered"] += 1
        msg["type"] = wire.TYPE_NAMES[mtype]
        msg["seq"] = seq
        self._deliver(mtype, msg)

    def _deliver(self, mtype, msg):
        self.on_message(msg)

    def _link_changed(self):
        """LINK_UP or LINK_DOWN is about to be reported."""

    def _accept_peer(self, hello):
        return True

    def _fresh_start(self, hello, dropped, peer_changed):
        """The peer does not hold this side's stream: it starts again (tx_next is already
        where the new stream starts)."""

    def _on_hello(self, seq, src, dst, hello):
        if hello["role"] == self.role:
            self._bad(wire.E_BAD_PAYLOAD, wire.HELLO, seq, "peer claims this side's role")
            return
        if src == 0:
            self._bad(wire.E_BAD_PAYLOAD, wire.HELLO, seq, "HELLO without a session")
            return
        hello["session"] = src
        hello["peer_session"] = dst
        if not self._accept_peer(hello):
            return
        peer_changed = src != self.peer_session
        if peer_changed:
            self.peer_session = src
            self.rx_expected = seq
        elif seq_diff(seq, self.rx_expected) > 0:
            # the peer dropped frames this side never got (its fresh start): they are gone
            self.rx_expected = seq
        self.peer_info = hello
        knows_me = dst == self.session
        d = seq_diff(hello["rx_next"], self.oldest_seq())
        # resume only a stream built for this very peer
        resumed = knows_me and not peer_changed and 0 <= d <= self.count
        dropped = 0
        if resumed:
            self._on_ack(hello["rx_next"])
        else:
            dropped = self._clear_tx()
            if knows_me:  # continue numbering where the peer expects
                self.tx_next = hello["rx_next"]
        was_synced = self.synced
        self.synced = True
        self.last_rx_ms = self.now_ms()
        # the HELLO goes first so the peer knows this stream before its frames arrive
        if hello["flags"] & wire.HELLO_REPLY_WANTED or not knows_me:
            self.send_hello(not knows_me and not hello["flags"] & wire.HELLO_REPLY_WANTED)
        if resumed:
            if self.count:
                self._resend_all()
        else:
            self._fresh_start(hello, dropped, peer_changed)
        if peer_changed or not resumed or not was_synced:
            self._link_changed()
            self.on_message({"type": "LINK_UP", "peer": hello, "resumed": resumed,
                             "peer_changed": peer_changed})

    # ------------------------------------------------------------------ timers
    def poll(self):
        """Call often (every few ms): resends, acks, heartbeats, HELLO retries, timeouts."""
        now = self.now_ms()
        if self.synced and ticks_diff(now, self.last_rx_ms) >= LINK_TIMEOUT_MS:
            self.synced = False
            self.counters["link_down"] += 1
            self._link_changed()
            self.on_message({"type": "LINK_DOWN"})
        if not self.synced or self.hello_owed:
            if self._hello_due():
                self.hello_owed = False
                self.send_hello(True)
        if self.synced and self.count and ticks_diff(now, self.sent_ms) >= RESEND_MS:
            self._resend_all()
        if self.ack_pending:
            self._send_ack()
        if self.synced and ticks_diff(now, self.last_tx_ms) >= HEARTBEAT_MS:
            self._send_heartbeat()


MAX_HELD_REPLIES = 16  # the tablet has at most 16 commands outstanding


class BoardLink(Link):
    """The board's endpoint: events out, host commands in.

    snapshot_source() -> (lane_masks, wells) with wells as (state, value, confidence, roll).
    Nothing is queued before the first pairing: the pairing's SNAPSHOT (reason boot) carries
    the table. When the resend ring is full, new events are not queued: they are counted as
    folded and a SNAPSHOT (reason overflow, with the folded count) is queued as soon as it
    fits. Replies to commands are held (never dropped) until the ring has room.
    """

    role = wire.ROLE_BOARD
    reply_errors = True

    def __init__(self, write, now_ms, on_message, info, session, snapshot_source,
                 window=32, ring_size=2048):
        Link.__init__(self, write, now_ms, on_message, info, session, window, ring_size)
        self.snapshot_source = snapshot_source
        self.snapshot_pending = False
        self.folded = 0
        self.paired_once = False
        self.held = []  # (type, fields) of replies waiting for ring room, oldest first

    def queue_snapshot(self, reason):
        lanes, wells = self.snapshot_source()
        seq = self.send_message(wire.SNAPSHOT, {"reason": reason, "folded": self.folded,
                                                "lanes": lanes, "wells": wells})
        if seq < 0:
            self.snapshot_pending = True
        else:
            self.snapshot_pending = False
            self.folded = 0
        return seq

    def _fold(self):
        self.counters["folded"] += 1
        self.folded += 1
        if not self.snapshot_pending:
            self.snapshot_pending = True
            self.counters["overflow_snapshots"] += 1

    def _queue_event(self, mtype, n):
        """Queue the event packed in scratch[0:n]; False when a coming snapshot carries it."""
        if self.peer_session is None:
            return False  # never paired: the pairing snapshot carries it
        if self.snapshot_pending or self.held or self._queue_scratch(mtype, n) < 0:
            self._fold()
            return False
        return True

    def track_change(self, lane, mask):
        """Queue a TRACK_CHANGE; returns False when it was folded into a coming snapshot."""
        struct.pack_into("<BI", self.scratch, wire.HEADER_LEN, lane, mask)
        return self._queue_event(wire.TRACK_CHANGE, wire.HEADER_LEN + 5)

    def dice(self, well, state, value, confidence, roll):
        """Queue a DICE event; returns False when it was folded into a coming snapshot."""
        struct.pack_into("<BBBBB", self.scratch, wire.HEADER_LEN, well, state, value,
                         confidence, roll)
        return self._queue_event(wire.DICE, wire.HEADER_LEN + 5)

    def reply(self, mtype, fields):
        """Queue a reply (SELF_TEST, CAL_STATUS). When the ring is full it is held and sent as
        soon as acknowledgements free room (a newer SELF_TEST replaces a held one); if even
        the hold is full the tablet gets ERROR busy. Returns True when queued or held."""
        if self.peer_session is None:
            return False  # nobody to answer; the pairing sends a fresh report
        if not self.held and self.send_message(mtype, fields) >= 0:
            return True
        held = self.held
        if mtype == wire.SELF_TEST:
            for i in range(len(held)):
                if held[i][0] == wire.SELF_TEST:
                    held[i] = (mtype, fields)
                    return True
        if len(held) >= MAX_HELD_REPLIES:
            self.counters["busy"] += 1
            self.send_error(wire.E_BUSY, mtype, 0, "board ring full: %s reply lost"
                            % wire.TYPE_NAMES[mtype])
            return False
        held.append((mtype, fields))
        self.counters["replies_held"] += 1
        return True

    def _flush_held(self):
        held = self.held
        while held:
            if self.send_message(held[0][0], held[0][1]) < 0:
                return False
            held.pop(0)
        return True

    def _acked(self):
        if self._flush_held() and self.snapshot_pending:
            self.queue_snapshot(wire.SNAP_OVERFLOW)

    def _fresh_start(self, hello, dropped, peer_changed):
        if peer_changed:
            self.held = []  # answers meant for another tablet session
        self.snapshot_pending = False
        self.folded = 0
        self.queue_snapshot(wire.SNAP_HELLO if self.paired_once else wire.SNAP_BOOT)
        self.paired_once = True
        self._flush_held()

    def _accept_peer(self, hello):
        # a tablet built for another sensor map refuses this board: pairing with it would
        # only resend frames it drops. It reports the mismatch; the board stays unpaired.
        info = self.info
        if bytes(hello["map_hash"]) != bytes(info["map_hash"]) or hello["lanes"] != info["lanes"] \
                or hello["wells"] != info["wells"]:
            self.counters["map_mismatch"] += 1
            return False
        return True

    def _deliver(self, mtype, msg):
        if mtype == wire.CMD_SNAPSHOT:
            if self.queue_snapshot(wire.SNAP_REQUEST) < 0:
                self._fold()  # the overflow snapshot answers it
            return
        self.on_message(msg)


class HostLink(Link):
    """The tablet's endpoint: commands out, events in. Refuses a board built for another map."""

    role = wire.ROLE_HOST

    def __init__(self, write, now_ms, on_message, info, session, window=16, ring_size=1024):
        Link.__init__(self, write, now_ms, on_message, info, session, window, ring_size)
        self.refused = None

    def _accept_peer(self, hello):
        expected = bytes(self.info["map_hash"])
        if bytes(hello["map_hash"]) != expected or hello["lanes"] != self.info["lanes"] \
                or hello["wells"] != self.info["wells"]:
            reason = ("board %s (%s) has sensor map %s with %d lanes and %d wells; this app "
                      "expects map %s with %d lanes and %d wells: flash the board with this "
                      "app's sensor map or pick the matching game" % (
                          hello["board_id"], hello["profile"],
                          binascii.hexlify(bytes(hello["map_hash"])).decode(),
                          hello["lanes"], hello["wells"], binascii.hexlify(expected).decode(),
                          self.info["lanes"], self.info["wells"]))
            self.counters["map_mismatch"] += 1
            if self.peer_session == hello["session"]:
                # the paired board was reflashed with another map: its stream is not ours
                self.peer_session = None
                self.rx_expected = None
                self.synced = False
                self.refused = None  # a change of state: the refusal is news again
                self._report_dropped(self._clear_tx())
            self._refuse({"type": "REFUSED", "code": wire.E_MAP_MISMATCH, "reason": reason,
                          "peer": hello})
            self.send_error(wire.E_MAP_MISMATCH, wire.HELLO, 0, "sensor map mismatch")
            return False
        return True

    def _refuse(self, msg):
        # REFUSED once per refusal: again only when its reason changes, or after the link
        # state changed (LINK_UP, LINK_DOWN); every refused HELLO still gets its ERROR
        if self.refused != msg["reason"]:
            self.refused = msg["reason"]
            self.on_message(msg)

    def _link_changed(self):
        self.refused = None

    @property
    def state(self):
        """The tablet's link state (4.6): 'paired' while paired, whatever another board's
        refusal; 'refused' while unpaired after a refusal; else 'searching'."""
        if self.synced:
            return "paired"
        return "refused" if self.refused is not None else "searching"

    def _report_dropped(self, dropped):
        if dropped:
            self.on_message({"type": "COMMANDS_DROPPED", "count": dropped})

    def _fresh_start(self, hello, dropped, peer_changed):
        self._report_dropped(dropped)

    def command(self, mtype, fields=None):
        """Queue a host command; returns its seq. Raises ProtocolError: E_NOT_SYNCED before
        any board paired, E_BUSY when the ring is full."""
        if not 0x20 <= mtype <= 0x2F:
            raise wire.ProtocolError(wire.E_UNKNOWN_TYPE, "0x%02x is not a host command" % mtype)
        if self.peer_session is None:
            raise wire.ProtocolError(wire.E_NOT_SYNCED, "no board paired yet")
        seq = self.send_message(mtype, fields or {})
        if seq < 0:
            raise wire.ProtocolError(wire.E_BUSY, "%d commands await acknowledgement"
                                     % self.count)
        return seq
