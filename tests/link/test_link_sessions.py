"""Link sessions, deterministically: a real BoardLink and a real HostLink joined by a scripted
cable that can lose chosen frames and split what it carries into small serial reads.

Each test reproduces one way the two sides used to end up numbering different sessions'
frames as one stream (docs/protocol.md 4.3): every frame's header names both sessions, and
nothing of another pairing is ever delivered or acknowledged.
"""
from protocol import link as plink
from protocol import wire

LANES = 4
INFO = {"version": (0, 1, 0), "map_hash": b"\x11" * 8, "lanes": LANES, "wells": 1}


def frame_type(chunk):
    try:
        return wire.decode_frame(chunk)["type"]
    except wire.ProtocolError:
        return None


class Table:
    """A board world whose BoardLink can be reset, a tablet, and the cable between them."""

    def __init__(self, read_size=None):
        self.t = 0
        self.lanes = [0] * LANES
        self.wells = [(0, 0, 0, 0)]
        self.to_host = []  # chunks written by the board (one frame each)
        self.to_board = []
        self.lose = {"to_host": [], "to_board": []}  # predicates: lose the next matching frame
        self.cut = set()  # directions that lose everything
        self.read_size = read_size  # None: whole chunks; n: serial reads of at most n bytes
        self.got = []
        self.board_msgs = []
        self.sessions = iter([0xB1B1B1B1, 0xB2B2B2B2, 0xB3B3B3B3])
        self.host = plink.HostLink(self._host_write, self.clock, self.got.append,
                                   dict(INFO, board_id="tablet", profile="t"), 0x7AB1E7)
        self.boot()

    def clock(self):
        return self.t

    def boot(self):
        """Power on (or reset) the board: a new session, an empty ring."""
        self.board = plink.BoardLink(self._board_write, self.clock, self.board_msgs.append,
                                     dict(INFO, board_id="b", profile="virtual"),
                                     next(self.sessions),
                                     lambda: (list(self.lanes), list(self.wells)))

    def _board_write(self, buf, s, e):
        self.to_host.append(bytes(buf[s:e]))

    def _host_write(self, buf, s, e):
        self.to_board.append(bytes(buf[s:e]))

    def _carry(self, name, dst):
        chunks = getattr(self, name)
        if name in self.cut:
            del chunks[:]
            return
        data = bytearray()
        for c in chunks:
            lose = self.lose[name]
            for i, pred in enumerate(lose):
                if pred(c):
                    del lose[i]
                    break
            else:
                data += c
        del chunks[:]
        if not data:
            return
        n = self.read_size or len(data)
        for i in range(0, len(data), n):
            dst.feed(bytes(data[i:i + n]))

    def run(self, ms):
        for _ in range(ms):
            self.t += 1
            self._carry("to_board", self.board)
            self._carry("to_host", self.host)
            self.board.poll()
            self.host.poll()

    def move(self, lane, mask):
        self.lanes[lane] = mask
        return self.board.track_change(lane, mask)

    def of(self, mtype):
        return [m for m in self.got if m["type"] == mtype]

    def mirror(self):
        """The tablet's picture: last snapshot plus the TRACK_CHANGEs after it."""
        lanes = None
        for m in self.got:
            if m["type"] == "SNAPSHOT":
                lanes = list(m["lanes"])
            elif m["type"] == "TRACK_CHANGE" and lanes is not None:
                lanes[m["lane"]] = m["mask"]
        return lanes


def paired_table(**kw):
    tb = Table(**kw)
    tb.run(1100)
    assert tb.host.synced and tb.board.synced and tb.host.peer_session == tb.board.session
    assert tb.move(0, 0b1)
    tb.run(20)
    assert tb.mirror() == tb.lanes
    return tb


def test_reset_with_lost_hello_and_reply_read_after_its_snapshot_pairs_the_new_session():
    tb = paired_table()
    old = tb.board.session
    tb.move(1, 0b10)
    tb.run(5)
    # the board resets; its boot HELLO and its next one are lost while USB re-enumerates, and
    # so is its reply to the tablet's HELLO: its SNAPSHOT is read before any HELLO of it
    tb.boot()
    tb.lose["to_host"] += [lambda c: frame_type(c) == "HELLO"] * 3
    delivered = len(tb.got)
    tb.run(3000)
    assert tb.host.peer_session == tb.board.session != old
    snaps = [m for m in tb.got[delivered:] if m["type"] == "SNAPSHOT"]
    assert snaps, "the resync snapshot reached the tablet"
    assert tb.host.counters["rx_foreign"] > 0  # the frames read before the HELLO were set aside
    # token moves reach the screen again, once each, no unplug needed
    for mask in (0b100, 0b1000, 0b1):
        tb.move(2, mask)
        tb.run(5)
    tb.run(50)
    assert tb.mirror() == tb.lanes
    moves = [m["mask"] for m in tb.got[delivered:] if m["type"] == "TRACK_CHANGE"]
    assert moves == [0b100, 0b1000, 0b1]


def test_frames_of_a_reset_board_are_never_delivered_under_the_old_numbering():
    tb = paired_table()
    expected = tb.host.rx_expected
    delivered = len(tb.got)
    tb.boot()
    tb.lose["to_host"].append(lambda c: frame_type(c) == "HELLO")
    tb.run(1)
    # the new board pairs (with the tablet's HELLO) and numbers from 0; were the tablet to take
    # seq alone, frames numbered like the old stream's next one would be delivered now
    tb.board.tx_next = expected
    tb.board.peer_session = tb.host.session
    tb.board.synced = True
    tb.board.queue_snapshot(wire.SNAP_BOOT)
    tb.move(3, 0b1111)
    tb._carry("to_host", tb.host)
    assert tb.got[delivered:] == []
    assert tb.host.counters["rx_foreign"] == 2 and tb.host.counters["rx_delivered"] == 2


def test_a_stale_ack_of_the_old_pairing_frees_nothing_of_the_new_one():
    tb = paired_table()
    for k in range(3):
        tb.move(k, 1 << k)
    # the tablet's ACK of those, in flight, is held back; the board resets meanwhile
    tb.run(1)
    stale = [c for c in tb.to_board if frame_type(c) == "ACK"]
    assert stale
    del tb.to_board[:]
    tb.boot()
    tb.lose["to_host"].append(lambda c: frame_type(c) == "SNAPSHOT")  # the resync snapshot is lost once
    tb.run(1200)
    assert tb.board.peer_session == tb.host.session
    # the old ACK (its ack number covers the new stream's first frames) arrives now
    old_ack = wire.decode_frame(stale[-1])["ack"]
    assert plink.seq_diff(old_ack, tb.board.oldest_seq()) > 0 or tb.board.count == 0
    outstanding = tb.board.count
    tb.board.feed(stale[-1])
    assert tb.board.count == outstanding
    tb.run(400)
    assert tb.mirror() == tb.lanes


def test_a_stale_ack_cannot_free_the_resync_snapshot_after_an_app_restart():
    tb = paired_table()
    tb.move(1, 0b10)
    tb.run(1)
    stale = [c for c in tb.to_board if frame_type(c) == "ACK"][-1]
    tb.run(20)
    # the app restarts: a new tablet session; the board drops its ring and queues a snapshot
    tb.got.clear()
    tb.host = plink.HostLink(tb._host_write, tb.clock, tb.got.append,
                             dict(INFO, board_id="tablet", profile="t"), 0x7AB1E8)
    tb.lose["to_host"].append(lambda c: frame_type(c) == "SNAPSHOT")
    tb.run(600)
    assert tb.board.peer_session == tb.host.session
    snap_seq = tb.board.oldest_seq()
    ack = wire.decode_frame(stale)["ack"]
    stale_ack = wire.encode_frame(wire.ACK, 0, (snap_seq + 1) & 0xFFFF, {},
                                  wire.decode_frame(stale)["session"], tb.board.session)
    assert ack is not None
    before = tb.board.count
    tb.board.feed(stale_ack)  # the old app session's ACK, numbered past the snapshot
    assert tb.board.count == before
    assert tb.board.counters["rx_foreign"] >= 1
    tb.run(400)
    assert tb.of("SNAPSHOT") and tb.mirror() == tb.lanes


def test_reset_during_a_resend_then_the_new_board_is_paired_and_commands_are_reported():
    tb = paired_table()
    tb.host.command(wire.CMD_SELF_TEST)
    for k in range(4):
        tb.move(k, 0b11)
    tb.cut = {"to_host", "to_board"}  # a bad cable: nothing acknowledged, the board resends
    tb.run(210)
    tb.cut = set()
    assert tb.board.counters["tx_resent"] > 0
    # the board resets in the middle of writing a resent frame: half of it reaches the tablet
    half = bytearray()
    tb.board.write = lambda b, s, e: half.extend(bytes(b[s:s + (e - s) // 2]))
    tb.board._resend_all()
    tb.host.feed(bytes(half))
    tb.boot()
    tb.run(1500)
    assert tb.host.peer_session == tb.board.session
    assert {"type": "COMMANDS_DROPPED", "count": 1} in tb.got
    assert tb.mirror() == tb.lanes
    tb.move(0, 0)
    tb.run(20)
    assert tb.mirror() == tb.lanes


def test_replies_split_across_serial_reads_of_one_to_seven_bytes():
    for size in (1, 2, 3, 7):
        tb = paired_table(read_size=size)
        tb.boot()
        tb.run(1500)
        assert tb.host.peer_session == tb.board.session
        for k in range(LANES):
            tb.move(k, 1 << k)
        tb.run(50)
        assert tb.mirror() == tb.lanes, size
        assert tb.host.counters["rx_out_of_order"] == 0 and tb.host.counters["bad_crc"] == 0


def test_after_pairing_the_snapshot_arrives_at_once_and_nothing_went_to_nobody():
    tb = Table()
    tb.t = 5000
    tb.boot()  # the tablet has been searching; the board boots now
    tb.run(3)
    # one HELLO each way, then the snapshot in the same millisecond
    assert tb.host.synced and tb.of("SNAPSHOT")
    assert tb.of("SNAPSHOT")[0]["reason"] == wire.SNAP_BOOT
    tb.run(300)
    assert len(tb.of("SNAPSHOT")) == 1
    assert tb.host.counters["rx_not_synced"] == 0 and tb.host.counters["rx_foreign"] == 0
    # a board left alone sends only HELLOs, once a second
    tb2 = Table()
    tb2.host = plink.HostLink(lambda b, s, e: None, tb2.clock, tb2.got.append,
                              dict(INFO, board_id="tablet", profile="t"), 0x1111)
    tb2.lose["to_host"].append(lambda c: False)
    sent = []
    tb2.board.write = lambda b, s, e: sent.append(frame_type(bytes(b[s:e])))
    for _ in range(3000):
        tb2.t += 1
        tb2.board.poll()
    assert sent == ["HELLO"] * 3


def test_hello_reply_goes_before_the_resync_frames():
    tb = paired_table()
    tb.boot()
    tb.run(1200)
    # the board's answer to a HELLO from a tablet that does not know it: HELLO, then SNAPSHOT
    tb.host = plink.HostLink(tb._host_write, tb.clock, tb.got.append,
                             dict(INFO, board_id="tablet", profile="t"), 0x5151)
    tb.host.send_hello(True)
    tb.board.feed(b"".join(tb.to_board))
    del tb.to_board[:]
    order = [frame_type(c) for c in tb.to_host]
    assert order[:2] == ["HELLO", "SNAPSHOT"]
