"""The companion's link layer: a serial worker thread, a mirror of the table, port detection.

Serial I/O runs in one worker thread that owns the pyserial port and the protocol's HostLink.
It never touches widgets: everything it learns goes into `events` (an EventQueue, bounded for
every kind of event, docs/protocol.md 4.7: a state, self-test, calibration or error event
replaces a queued one of the same kind and source; past EVENT_BOUND the queued table events fold
into one TABLE event and a snapshot request) which the UI thread drains (Kivy:
Clock.schedule_interval(lambda dt: conn.drain(handler), 0)). Commands
from the UI go the other way through a queue, so HostLink is only ever used by the worker.

Event dicts put on the queue (docs/protocol.md 4.7 lists every field; test_event_flood checks
them against it):
    {"type": "STATE", "state": "searching" | "paired" | "refused" | "disconnected", "detail": str,
     on paired/refused also "peer": the board's HELLO fields or None, "protocol": its version}
    {"type": "TABLE", "lanes": [mask...], "wells": [{well, well_id, state, value, confidence, roll}],
     "reason": str, "folded": n, "changed": [lane...]}
    {"type": "TRACK_CHANGE", "lane": i, "lane_id": "...", "mask": m, "positions": [...]}
    {"type": "DICE", "well": i, "well_id": "...", "state": "settled", "value": v, "confidence": c,
     "roll": r}
    {"type": "SELF_TEST", "trigger": t, "registers": n, "faults": [{code, fault, where, value}]}
    {"type": "CAL_STATUS" | "ERROR" | "COMMANDS_DROPPED", ...}  (as decoded)
    Any event may carry "folded": how many earlier events it stands for (cumulative).
"""
import collections
import os
import queue
import random
import threading
import time

from firmware import sensormap
from protocol import link as plink
from companion.words import well_name
from protocol import wire

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MAP = os.path.join(ROOT, "hardware", "sensor_map.json")
APP_VERSION = (0, 1, 0)

# (vid, pid or None for any) -> what it is
KNOWN_USB = {
    (0x2E8A, 0x0005): "Raspberry Pi Pico (MicroPython, RP2040)",
    (0x2E8A, None): "Raspberry Pi RP2040",
    (0x303A, None): "ESP32 native USB (Espressif)",
    (0x10C4, 0xEA60): "CP210x USB-UART (ESP32 dev board)",
    (0x1A86, 0x7523): "CH340 USB-UART (ESP32 dev board)",
    (0x1A86, 0x55D4): "CH9102 USB-UART (ESP32 dev board)",
}


def describe_usb(vid, pid):
    if vid is None:
        return None
    return KNOWN_USB.get((vid, pid)) or KNOWN_USB.get((vid, None))


def find_boards():
    """Serial ports that look like a supported board: [(device, description)]."""
    from serial.tools import list_ports
    found = []
    for p in list_ports.comports():
        what = describe_usb(p.vid, p.pid)
        if what:
            found.append((p.device, what))
    return found


def all_ports():
    """Every serial port, for the manual port picker: [(device, description)]."""
    from serial.tools import list_ports
    return [(p.device, p.description or "") for p in list_ports.comports()]


EVENT_BOUND = 512
TABLE_EVENTS = ("TABLE", "TRACK_CHANGE", "DICE")
LINK_STATES = ("searching", "paired", "refused", "disconnected")


CAL_STEPS = (wire.CAL_BEGIN, wire.CAL_CAPTURE, wire.CAL_SAVE, wire.CAL_CANCEL, wire.CAL_DEFAULTS)


def fold_key(ev):
    """The key under which a newer event replaces a queued one (docs/protocol.md 4.7, its
    table of fold keys), or None for a table event, which is never replaced one by one. Keys
    are few (5 link states, 1 self-test, 5 calibration steps per well plus 1, 13 error keys,
    1 dropped-commands count, 1 for anything else), so the folded events alone can never fill
    the queue."""
    t = ev.get("type")
    if t in TABLE_EVENTS:
        return None
    if t == "ERROR":
        code = ev.get("code")
        return (t, code if code in wire.ERROR_NAMES else "other")
    if t == "CAL_STATUS":  # the mirror keeps wells inside the map
        well, step = ev.get("well"), ev.get("step")
        if isinstance(well, int) and step in CAL_STEPS:
            return (t, well, step)
        return (t, "other")
    if t == "STATE":  # one per state: the UI still sees a short drop, the last put is the latest
        state = ev.get("state")
        return (t, state if state in LINK_STATES else "other")
    if t in ("SELF_TEST", "COMMANDS_DROPPED"):
        return (t,)
    return ("other",)  # none arises in protocol v2 (the link delivers no other message type)


class EventQueue:
    """Worker -> UI events, thread-safe, bounded for every kind of event, O(1) per event.

    A state, self-test, calibration, error or other non-table event replaces a queued one of
    the same fold_key (the newer goes to the back; `folded` counts what it replaced, a
    COMMANDS_DROPPED sums their counts). Table events (TABLE, TRACK_CHANGE, DICE) queue one by
    one; when the queue reaches its bound they are dropped and `fold()` puts one TABLE event
    from the worker's mirror in their place (reason "overflow"), which happens at most once
    per (bound - number of fold keys) events, so the cost per event stays flat."""

    def __init__(self, bound=EVENT_BOUND):
        self.bound = bound
        self._q = collections.OrderedDict()  # key -> event, oldest first
        self._n = 0  # unique keys of table events
        self._lock = threading.Lock()
        self.folds = 0  # table overflows
        self.replaced = 0  # non-table events replaced by a newer one of their key

    def qsize(self):
        return len(self._q)

    def snapshot(self):
        """The queued events, oldest first (a copy, for tests and the board screen)."""
        with self._lock:
            return list(self._q.values())

    def put(self, ev, fold=None):
        """Queue ev. Returns True when the table events overflowed and were folded into
        fold() (the mirror's TABLE event): the caller then asks the board for a snapshot."""
        key = fold_key(ev)
        with self._lock:
            q = self._q
            if key is not None:
                old = q.pop(key, None)
                if old is not None:
                    self.replaced += 1
                    ev = dict(ev, folded=old.get("folded", 0) + 1)
                    if ev.get("type") == "COMMANDS_DROPPED":
                        ev["count"] = ev.get("count", 0) + old.get("count", 0)
                q[key] = ev
                if len(q) <= self.bound:
                    return False
                ev = None  # queued: only the table events below make room
            elif len(q) < self.bound:
                self._n += 1
                q[self._n] = ev
                return False
            # full: the table events go, one TABLE event of the mirror stands for them; like
            # every fold it counts what it stands for: each dropped event, and what a dropped
            # TABLE stood for itself (an earlier overflow, or a snapshot of the board's folds)
            kept = collections.OrderedDict()
            dropped = 0
            for k, e in q.items():
                if isinstance(k, int):
                    dropped += 1 + (e.get("folded", 0) if e.get("type") == "TABLE" else 0)
                else:
                    kept[k] = e
            if ev is not None:
                dropped += 1 + (ev.get("folded", 0) if ev.get("type") == "TABLE" else 0)
            table = fold() if fold is not None else None
            if table is not None:
                self._n += 1
                kept[self._n] = dict(table, reason="overflow", folded=dropped)
            self._q = kept
            self.folds += 1
            return True

    def get_nowait(self):
        with self._lock:
            if not self._q:
                raise queue.Empty
            return self._q.popitem(last=False)[1]


def mask_positions(mask):
    """Occupied spaces of a lane mask, lowest first."""
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


class TableMirror:
    """What the board says is on the table: a mask per lane, a state per dice well."""

    def __init__(self, smap):
        self.smap = smap
        self.lanes = None
        self.wells = None
        self.last_roll = {}

    @staticmethod
    def _mismatch(what, got, have):
        """A board message that does not fit the sensor map: an error event, nothing applied."""
        return {"type": "ERROR", "code": wire.E_BAD_PAYLOAD,
                "detail": "board reported %s %d; the sensor map has %d" % (what, got, have)}

    def _well(self, well, state, value, confidence, roll):
        """One well as the UI sees it (DICE events and each entry of a TABLE's wells)."""
        return {"well": well, "well_id": self.smap.well_ids[well], "state": wire.DICE_STATE_NAMES[state],
                "value": value, "confidence": confidence, "roll": roll}

    def table_event(self, reason="overflow"):
        """The whole table as one TABLE event (None before the first snapshot)."""
        if self.lanes is None:
            return None
        return {"type": "TABLE", "lanes": list(self.lanes),
                "wells": [self._well(i, *w) for i, w in enumerate(self.wells)],
                "reason": reason, "folded": 0, "changed": list(range(len(self.lanes)))}

    def apply(self, msg):
        """Apply a delivered message; return the event for the UI, or None."""
        t = msg["type"]
        if t == "SNAPSHOT":
            if len(msg["lanes"]) != self.smap.n_lanes:
                return self._mismatch("a snapshot of lanes:", len(msg["lanes"]), self.smap.n_lanes)
            if len(msg["wells"]) != self.smap.n_wells:
                return self._mismatch("a snapshot of wells:", len(msg["wells"]), self.smap.n_wells)
            old = self.lanes
            self.lanes = list(msg["lanes"])
            self.wells = [tuple(w) for w in msg["wells"]]
            changed = [i for i in range(len(self.lanes)) if old is None or old[i] != self.lanes[i]]
            return {"type": "TABLE", "lanes": list(self.lanes),
                    "wells": [self._well(i, *w) for i, w in enumerate(self.wells)],
                    "reason": wire.SNAP_REASON_NAMES[msg["reason"]]
                    if msg["reason"] < len(wire.SNAP_REASON_NAMES) else "unknown",
                    "folded": msg["folded"], "changed": changed}
        if t == "TRACK_CHANGE":
            lane = msg["lane"]
            if lane >= self.smap.n_lanes:
                return self._mismatch("lane", lane, self.smap.n_lanes)
            if self.lanes is not None:
                self.lanes[lane] = msg["mask"]
            return {"type": "TRACK_CHANGE", "lane": lane, "lane_id": self.smap.lane_ids[lane],
                    "mask": msg["mask"], "positions": mask_positions(msg["mask"])}
        if t == "DICE":
            well = msg["well"]
            if well >= self.smap.n_wells:
                return self._mismatch("well", well, self.smap.n_wells)
            if self.wells is not None:
                self.wells[well] = (msg["state"], msg["value"], msg["confidence"], msg["roll"])
            return dict(self._well(well, msg["state"], msg["value"], msg["confidence"], msg["roll"]),
                        type="DICE")
        if t == "SELF_TEST":
            faults = []
            for code, index, value in msg["faults"]:
                name = wire.FAULT_NAMES.get(code, "fault %d" % code)
                if code == wire.FAULT_BIT_STUCK:
                    where = self.smap.bit_name(index)
                elif code in (wire.FAULT_SENSOR_MISSING, wire.FAULT_SENSOR_ID, wire.FAULT_SENSOR_SATURATED):
                    where = well_name(index)
                elif code == wire.FAULT_CAL_IMPLAUSIBLE:
                    where = "%s: %s" % (well_name(index), wire.cal_fault_words(value))
                else:
                    where = wire.fault_where(code, index, value)
                faults.append({"code": code, "fault": name, "where": where, "value": value})
            return {"type": "SELF_TEST", "trigger": msg["trigger"], "registers": msg["registers"],
                    "faults": faults}
        if t == "CAL_STATUS" and msg["well"] >= self.smap.n_wells:
            return self._mismatch("a calibration answer for well", msg["well"], self.smap.n_wells)
        return dict(msg)


class BoardConnection:
    """Owns one serial port in a worker thread; reconnects by itself after an unplug."""

    def __init__(self, port, map_path=DEFAULT_MAP, baudrate=115200, open_port=None):
        self.port_name = port
        self.smap = sensormap.load(map_path)
        self.mirror = TableMirror(self.smap)
        self.events = EventQueue()
        self._commands = queue.Queue()
        self._open_port = open_port or (lambda: __import__("serial").Serial(
            port, baudrate=baudrate, timeout=0.005, write_timeout=0.5))
        self._stop = threading.Event()
        self._thread = None
        self._serial = None
        self.state = "disconnected"
        self.detail = ""
        self._paired_detail = ""
        info = {"version": APP_VERSION, "map_hash": self.smap.hash8, "lanes": self.smap.n_lanes,
                "wells": self.smap.n_wells, "board_id": "tablet", "profile": "kivy"}
        self.host = plink.HostLink(self._write, self._now, self._on_message, info,
                                   random.getrandbits(32))

    @staticmethod
    def _now():
        return int(time.monotonic() * 1000)

    # -------------------------------------------------------------- UI thread
    def start(self):
        self._thread = threading.Thread(target=self._run, name="board-link", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(2)
        self._close()

    def command(self, mtype, fields=None):
        """Queue a host command (thread-safe); the worker sends it."""
        self._commands.put((mtype, fields or {}))

    def drain(self, handler, limit=200):
        """Call handler(event) for queued events; from the UI thread."""
        for _ in range(limit):
            try:
                ev = self.events.get_nowait()
            except queue.Empty:
                return
            handler(ev)

    # ---------------------------------------------------------- worker thread
    def _set_state(self, state, detail="", **peer):
        """peer: what the board said of itself (`peer` = its HELLO fields, `protocol` = the
        protocol version its frames carry), on pairing and on refusal."""
        if (state, detail) != (self.state, self.detail):
            self.state, self.detail = state, detail
            self.events.put(dict(peer, type="STATE", state=state, detail=detail))

    def _write(self, buf, start, end):
        if self._serial is None:
            return
        try:
            self._serial.write(bytes(buf[start:end]))
        except Exception as exc:  # serial.SerialException, OSError, write timeout
            self._drop(exc)

    def _on_message(self, msg):
        t = msg["type"]
        if t == "LINK_UP":
            self._paired_detail = "board %s (%s), firmware %d.%d.%d" % (
                msg["peer"]["board_id"], msg["peer"]["profile"], *msg["peer"]["version"])
            self._set_state("paired", self._paired_detail, peer=dict(msg["peer"]), protocol=wire.VERSION)
        elif t == "LINK_DOWN":
            self._set_state("searching", "no answer from the board")
        elif t == "REFUSED":
            if self.host.synced:
                # another board refused while this one stays paired (4.6): the state stays
                # 'paired'; the refusal is shown as an error with its reason
                self._put({"type": "ERROR", "code": msg["code"], "detail": msg["reason"]})
            elif msg.get("peer"):  # its HELLO was readable, so it speaks our protocol
                self._set_state("refused", msg["reason"], peer=dict(msg["peer"]), protocol=wire.VERSION)
            else:
                self._set_state("refused", msg["reason"], peer=None, protocol=msg.get("protocol"))
        else:
            ev = self.mirror.apply(msg)
            if ev is not None:
                self._put(ev)

    def _put(self, ev):
        if self.events.put(ev, self.mirror.table_event):
            # the UI is far behind: it gets the mirror now and the board's own picture next
            try:
                self.host.command(wire.CMD_SNAPSHOT)
            except wire.ProtocolError:
                pass  # not paired or ring full: the next pairing sends a snapshot anyway

    def _drop(self, exc):
        self._close()
        self._set_state("disconnected", "%s: %s" % (self.port_name, exc))

    def _close(self):
        s, self._serial = self._serial, None
        if s is not None:
            try:
                s.close()
            except Exception:
                pass

    def _run(self):
        retry_at = 0.0
        while not self._stop.is_set():
            if self._serial is None:
                if time.monotonic() < retry_at:
                    time.sleep(0.05)
                    continue
                try:
                    self._serial = self._open_port()
                    if self.host.synced:
                        # a short unplug: the link resumes where it was (no new LINK_UP comes);
                        # if the board is gone or was reset, LINK_DOWN / a new HELLO follow
                        self._set_state("paired", self._paired_detail)
                    else:
                        self._set_state("searching", "opened %s" % self.port_name)
                except Exception as exc:
                    self._set_state("disconnected", "%s: %s" % (self.port_name, exc))
                    retry_at = time.monotonic() + 1.0
                    continue
            try:
                data = self._serial.read(4096)
            except Exception as exc:
                self._drop(exc)
                retry_at = time.monotonic() + 1.0
                continue
            if data:
                self.host.feed(data)
            while True:
                try:
                    mtype, fields = self._commands.get_nowait()
                except queue.Empty:
                    break
                try:
                    self.host.command(mtype, fields)
                except wire.ProtocolError as exc:
                    self.events.put({"type": "ERROR", "code": exc.code, "detail": exc.message})
            self.host.poll()
