"""The one small interface through which the app sees a physical (or virtual) board.

Screens only use `BoardPort`: `start()`, `stop()`, `poll()` (drain pending events on the UI
thread), `status()` (what to show on the Board status screen) and `lanes()` (lane id -> sensed
position, for reconciliation). `open_board()` picks an implementation:

* `ManualBoard`  - no board: every input is entered by touch (always available);
* `LinkBoard`    - `companion.link.board_link.BoardConnection` (serial worker thread + table mirror);
* `VirtualLinkBoard` - the same link to `companion.link.virtual_board.VirtualBoard`, which runs the
  firmware's own modules on simulated chips behind a real pty.

`TABLETOP_COMPANION_BOARD` chooses: `none` (manual only), `auto` (default: a USB board found by
VID/PID, else the virtual board), `virtual`, or a serial port name (e.g. `/dev/ttyACM0`).
Manual entry stays available in every mode.

Added for the Board screen (no Kivy here, so it is tested headless): `versions()` (firmware,
protocol and sensor map of both sides), `problem()` (why a board was refused, naming both
sides), commands (`self_test()`, `calibrate()`, `identify()`, `request_snapshot()`: each returns
None when queued, else the reason), `sensed_positions()`, `virtual` (the VirtualBoard or None),
`port_choices()` for the port picker, `describe_fault()` and `CalibrationWizard`.

Guidance lights: `show_lights({lane id: position})` is what TableSync calls with the targets of
its pending moves (a started LinkBoard registers it with `table_sync.set_light_sink`). The board
is sent CMD_LIGHTS with the first `MAX_LIT` of them whose space is empty, again whenever that set
changes (a token arriving puts its light out on the board by itself, and the next waiting target
takes its place) and after every fresh pairing (the board starts dark); `lit()` is what the app
believes is lit, by the same rule the board applies (docs/protocol.md 3.7).
"""
from __future__ import annotations

import collections
import functools
import os
import time

ENV_VAR = "TABLETOP_COMPANION_BOARD"
NOT_PAIRED = "The board is not paired: wait until the state says paired."


def version_text(v) -> str:
    return ".".join(str(x) for x in v) if v else "unknown"


@functools.lru_cache(maxsize=1)
def _default_smap():
    from companion.link import board_link
    from firmware import sensormap
    return sensormap.load(board_link.DEFAULT_MAP)


def _app_side(smap=None) -> dict:
    try:
        from companion.link import board_link
        from protocol import wire
        out = {"version": version_text(board_link.APP_VERSION), "protocol": wire.VERSION}
        if smap is None:
            smap = _default_smap()
        out.update(map=smap.hash_hex, lanes=smap.n_lanes, wells=smap.n_wells)
        return out
    except Exception as exc:  # link layer unavailable: say so, never raise
        return {"version": "unknown", "protocol": None, "map": None, "lanes": None, "wells": None,
                "error": str(exc)}


class BoardPort:
    mode = "manual"
    virtual = None  # the VirtualBoard when mode == "virtual"
    smap = None  # the app's sensor map when a link is open

    def start(self):
        pass

    def stop(self):
        pass

    def poll(self) -> list[dict]:
        return []

    def lanes(self) -> dict:
        return {}

    def wells(self) -> dict:
        return {}

    def sensed_positions(self) -> dict:
        """lane id -> every occupied space (empty list = no token), for lanes the board reported."""
        return {}

    def status(self) -> dict:
        return {"mode": self.mode, "state": "manual", "port": None,
                "detail": "No board connected: enter rolls and moves by touch."}

    def versions(self) -> dict:
        """{"app": {version, protocol, map, lanes, wells}, "board": None or the same plus
        board_id and profile (a field the board never told is None)}."""
        return {"app": _app_side(), "board": None}

    def problem(self) -> str | None:
        return None

    def errors(self) -> list[dict]:
        return []

    def counters(self) -> dict:
        return {}

    def _no_link(self):
        return "No board is connected (manual entry)."

    def self_test(self):
        return self._no_link()

    def calibrate(self, step, well=0, face=0):
        return self._no_link()

    def identify(self):
        return self._no_link()

    def request_snapshot(self):
        return self._no_link()

    def show_lights(self, targets: dict):
        return self._no_link()

    def lit(self) -> dict:
        return {}

    def empty_wells(self):
        """A game starts or is resumed: the virtual board's wells are emptied, so no die of another
        game lies in them (a real board's dice are in the players' hands: nothing to do)."""
        vb = self.virtual
        if vb is None:
            return
        for i in range(vb.smap.n_wells):
            vb.remove_die(i)


class ManualBoard(BoardPort):
    def __init__(self, detail: str | None = None):
        self._detail = detail

    def status(self) -> dict:
        st = super().status()
        if self._detail:
            st["detail"] = self._detail + " " + st["detail"]
        return st


class LinkBoard(BoardPort):
    """Adapter for companion.link.board_link.BoardConnection (lead's link layer)."""

    mode = "hardware"

    def __init__(self, conn, description: str = ""):
        self.conn = conn
        self.description = description
        self.state = "searching"
        self.detail = ""
        self._lanes = {}
        self._positions = {}
        self._wells = {}
        self._errors = collections.deque(maxlen=8)
        self.last_self_test = None  # the latest SELF_TEST event, plus "at" (time.time())
        self.self_test_pending = False
        self._peer = None  # the board's HELLO fields, from STATE events
        self._board_protocol = None
        self._light_want = {}  # lane id -> position: the targets TableSync asked for
        self._lit = {}         # lane id -> position: what the board was told to light and has not put out
        self._lit_sent = None  # the pairs of the last CMD_LIGHTS (None: none since the board's fresh start)

    @property
    def smap(self):
        return self.conn.smap

    def start(self):
        self.conn.start()
        from companion.table import sync as table_sync
        table_sync.set_light_sink(self.show_lights)

    def stop(self):
        from companion.table import sync as table_sync
        if table_sync.light_sink() == self.show_lights:
            table_sync.set_light_sink(None)
        try:
            self.conn.stop()
        except Exception:
            pass

    def _set_lane(self, lane_id, pos):
        self._positions[lane_id] = pos
        self._lanes[lane_id] = pos[0] if len(pos) == 1 else None

    def _handle(self, ev, out):
        t = ev.get("type")
        if t == "STATE":
            self.state, self.detail = ev.get("state", "?"), ev.get("detail", "")
            if "protocol" in ev:
                self._peer, self._board_protocol = ev["peer"], ev["protocol"]
            if self.state != "paired":
                self.self_test_pending = False
        elif t == "TABLE":
            from companion.link.board_link import mask_positions
            for lane_id, mask in zip(self.conn.smap.lane_ids, ev["lanes"]):  # the mirror checked the count
                self._set_lane(lane_id, mask_positions(mask))
            for w in ev["wells"]:
                self._wells[w["well_id"]] = (w["state"], w["value"])
            if ev.get("reason") in ("boot", "hello"):  # a fresh stream: the board is dark
                self._lit, self._lit_sent = {}, None
            self._send_lights()
        elif t == "TRACK_CHANGE":
            self._set_lane(ev["lane_id"], list(ev.get("positions") or []))
            lane = ev["lane_id"]
            if lane in self._lit and self._lit[lane] in self._positions[lane]:
                del self._lit[lane]  # the token arrived: the board put it out by itself
            self._send_lights()
        elif t == "DICE":
            self._wells[ev["well_id"]] = (ev["state"], ev["value"])
        elif t == "SELF_TEST":
            self.last_self_test = dict(ev, at=time.time())
            if ev.get("trigger") == 1:
                self.self_test_pending = False
        elif t in ("ERROR", "COMMANDS_DROPPED"):
            self._errors.append(dict(ev, at=time.time()))
            if ev.get("code") == 11:  # busy: a command (perhaps the lights) was not queued
                self._lit_sent = None  # sent again at the next change or report
            if t == "COMMANDS_DROPPED":
                self.self_test_pending = False
        out.append(ev)

    def poll(self) -> list[dict]:
        out = []
        self.conn.drain(lambda ev: self._handle(ev, out))
        return out

    def lanes(self) -> dict:
        return {k: v for k, v in self._lanes.items() if v is not None}

    def sensed_positions(self) -> dict:
        return {k: list(v) for k, v in self._positions.items()}

    def wells(self) -> dict:
        return dict(self._wells)

    def errors(self) -> list[dict]:
        return list(self._errors)

    def counters(self) -> dict:
        host = getattr(self.conn, "host", None)
        return dict(host.counters) if host is not None else {}

    def status(self) -> dict:
        return {"mode": self.mode, "state": self.state, "port": self.conn.port_name,
                "detail": " ".join(x for x in (self.description, self.detail) if x)}

    def versions(self) -> dict:
        app = _app_side(self.conn.smap)
        peer, proto = self._peer, self._board_protocol
        if peer is None and proto is None:
            return {"app": app, "board": None}
        board = {"version": None, "protocol": proto, "map": None, "lanes": None, "wells": None,
                 "board_id": None, "profile": None}
        if peer is not None:
            import binascii
            board.update(version=version_text(peer.get("version")),
                         map=binascii.hexlify(bytes(peer["map_hash"])).decode(),
                         lanes=peer.get("lanes"), wells=peer.get("wells"),
                         board_id=peer.get("board_id"), profile=peer.get("profile"))
        return {"app": app, "board": board}

    def problem(self) -> str | None:
        """A refused board: what differs, with both sides' numbers; else None."""
        if self.state != "refused":
            return None
        v = self.versions()
        return refusal_message(v["app"], v["board"], self.detail)

    # ------------------------------------------------------------ commands
    def _send(self, mtype, fields=None):
        if self.state != "paired":
            return NOT_PAIRED  # a fresh pairing would drop it anyway
        self.conn.command(mtype, fields or {})
        return None

    def self_test(self):
        from protocol import wire
        why = self._send(wire.CMD_SELF_TEST)
        if why is None:
            self.self_test_pending = True
        return why

    def calibrate(self, step, well=0, face=0):
        from protocol import wire
        return self._send(wire.CMD_CALIBRATE, {"step": step, "well": well, "face": face})

    def identify(self):
        from protocol import wire
        return self._send(wire.CMD_INDICATOR, {"mode": wire.IND_IDENTIFY})

    def request_snapshot(self):
        from protocol import wire
        return self._send(wire.CMD_SNAPSHOT)

    # ------------------------------------------------------------ guidance lights
    def show_lights(self, targets: dict):
        """Light the spaces {lane id: position} where tokens must go (TableSync's pending moves;
        {} puts them all out). None when sent or nothing changed, else why not (it is sent at
        the next pairing then)."""
        smap = self.conn.smap
        self._light_want = {lane: pos for lane, pos in targets.items()
                            if lane in smap.lane_ids and 0 <= pos < smap.n_spaces(smap.lane_index(lane))}
        return self._send_lights()

    def _light_pairs(self):
        """The first MAX_LIT wanted targets (lane order) whose space the board does not show
        occupied: the board would not light those (docs/protocol.md 3.7)."""
        from protocol import wire
        smap = self.conn.smap
        out = []
        for lane in sorted(self._light_want):
            pos = self._light_want[lane]
            if pos in (self._positions.get(lane) or ()):
                continue
            out.append((lane, pos))
            if len(out) == wire.MAX_LIT:
                break
        return out, [(smap.lane_index(lane), pos) for lane, pos in out]

    def _send_lights(self):
        from protocol import wire
        named, pairs = self._light_pairs()
        if pairs == self._lit_sent or (not pairs and self._lit_sent is None):
            return None  # unchanged, or nothing to light on a board that starts dark
        if self.state != "paired":
            return NOT_PAIRED  # the pairing's TABLE sends them
        self.conn.command(wire.CMD_LIGHTS, {"lights": pairs})
        self._lit_sent = pairs
        self._lit = dict(named)
        return None

    def lit(self) -> dict:
        """lane id -> position the board was told to light and has not put out yet."""
        return dict(self._lit)


def refusal_message(app: dict, board: dict | None, detail: str = "") -> str:
    """Why the link refused a board, naming both sides' versions / maps."""
    board = board or {}
    bp, ap = board.get("protocol"), app.get("protocol")
    if bp is not None and ap is not None and bp != ap:
        return ("This board speaks protocol version %s; this app speaks protocol version %s. "
                "Deploy this app's firmware to the board (tabletop-board deploy) or update the "
                "app, so that both speak the same version." % (bp, ap))
    if board.get("map") is not None and (board.get("map"), board.get("lanes"), board.get("wells")) \
            != (app.get("map"), app.get("lanes"), app.get("wells")):
        return ("This board was built for another sensor map: board map %s (%s lanes, %s wells), "
                "app map %s (%s lanes, %s wells). Board firmware %s, app %s; protocol %s on both "
                "sides. Flash the board with this app's sensor map, or pick the matching game." % (
                    board["map"], board.get("lanes"), board.get("wells"), app.get("map"),
                    app.get("lanes"), app.get("wells"), board.get("version") or "unknown",
                    app.get("version"), ap))
    return "The board was refused: %s" % (detail or "no reason given")


def firmware_warning(app: dict, board: dict | None) -> str | None:
    """A paired board whose firmware is from another release line than the app (major differs)."""
    if not board or not board.get("version") or board["version"] == "unknown":
        return None
    bmaj, amaj = board["version"].split(".")[0], str(app.get("version", "")).split(".")[0]
    if bmaj != amaj:
        return ("Board firmware %s is from another release line than this app %s: if anything "
                "misbehaves, deploy this app's firmware (tabletop-board deploy)."
                % (board["version"], app.get("version")))
    return None


FAULT_HINTS = {
    1: "check the sensor's cable and I2C wiring",
    2: "a different chip answers at the sensor's address",
    3: "check the chain cables between the strips (a strip unplugged, or a cable the wrong way); "
       "the guidance lights stay dark until the chain is right",
    4: "a hall switch stuck on, or a token forgotten on that space",
    5: "too much light: shade the well or check the LED",
    6: "run the dice calibration",
    10: "calibrate this well again; until then enter its dice by hand",
    9: "only older board firmware reports this (HT16K33 light drivers): deploy this app's firmware, "
       "whose lights ride the sensor chain (tabletop-board deploy)",
}


def describe_fault(f: dict) -> str:
    """One SELF_TEST fault (as TableMirror names it) as a line of text."""
    code, value, where = f.get("code"), f.get("value"), f.get("where") or ""
    extra = ""
    if code == 2:
        extra = "ID register read 0x%02X" % value
    elif code == 3:
        extra = "%s registers found" % ("more than the read can tell" if value == 0xFFFF else value)
    elif code == 4:
        extra = "seen for %d s" % value
    elif code == 5:
        extra = "clear reading %d" % value
    parts = [f.get("fault", "fault %s" % code)]
    if where:
        parts.append(where)
    text = " - ".join(parts)
    if extra:
        text += " (%s)" % extra
    hint = FAULT_HINTS.get(code)
    return text + (": " + hint if hint else "")


class VirtualLinkBoard(LinkBoard):
    """The virtual board (firmware on simulated chips, real pty) through the real link layer.

    board_map / app_map: sensor maps of the two sides (both the default map unless given; a
    different board_map makes a board that the app refuses)."""

    mode = "virtual"

    def __init__(self, detail: str = "", board_map: str | None = None, app_map: str | None = None,
                 seed=None):
        from companion.link import board_link
        from companion.link.virtual_board import VirtualBoard
        self.vboard = VirtualBoard(board_map or board_link.DEFAULT_MAP, seed=seed)
        path = self.vboard.start()
        try:
            conn = board_link.BoardConnection(path, app_map or board_link.DEFAULT_MAP)
        except Exception:
            self.vboard.stop()
            raise
        super().__init__(conn, " ".join(x for x in (detail, "Virtual board on %s." % path) if x))

    @property
    def virtual(self):
        return self.vboard

    def stop(self):
        super().stop()
        try:
            self.vboard.stop()
        except Exception:
            pass


def open_board(choice: str | None = None) -> BoardPort:
    """Best available board; never raises (falls back to manual entry with a reason)."""
    choice = (choice or os.environ.get(ENV_VAR) or "auto").strip()
    if choice == "none":
        return ManualBoard()
    try:
        from companion.link import board_link
    except Exception as exc:  # link layer missing or broken: manual entry still works
        return ManualBoard(f"Board link unavailable ({exc.__class__.__name__}).")
    try:
        if choice == "virtual":
            return VirtualLinkBoard()
        from companion.link import android_serial
        if android_serial.is_android():  # no /dev/tty*: the USB host API; waits for a board
            return LinkBoard(android_serial.board_connection(None if choice == "auto" else choice),
                             "USB board")
        if choice == "auto":
            found = board_link.find_boards()
            if not found:
                return VirtualLinkBoard("No board found on USB.")
            port, what = found[0]
        else:
            what = dict(board_link.find_boards()).get(choice, "serial port (not a recognised board)")
            port = choice
        return LinkBoard(board_link.BoardConnection(port), what)
    except Exception as exc:
        return ManualBoard(f"Board could not be opened ({exc}).")


FIXED_CHOICES = (
    ("auto", "Auto", "a USB board if one is attached, else the virtual board (on Android: waits for a USB board)"),
    ("virtual", "Virtual board", "simulated board with on-screen controls"),
    ("none", "Manual only", "no board: enter rolls and moves by touch"),
)


def port_choices() -> list[dict]:
    """Port picker entries: {choice, title, subtitle, kind: fixed|board|port}; never raises."""
    out = [{"choice": c, "title": t, "subtitle": s, "kind": "fixed"} for c, t, s in FIXED_CHOICES]
    try:
        from companion.link import board_link
        from companion.link import android_serial
        lister = android_serial if android_serial.is_android() else board_link
        boards = lister.find_boards()
        ports = lister.all_ports()
    except Exception as exc:
        out.append({"choice": None, "title": "Serial ports unavailable", "subtitle": str(exc),
                    "kind": "error"})
        return out
    seen = set()
    for dev, what in boards:
        seen.add(dev)
        out.append({"choice": dev, "title": dev, "subtitle": what, "kind": "board"})
    for dev, desc in ports:
        if dev not in seen:
            out.append({"choice": dev, "title": dev,
                        "subtitle": (desc + ": " if desc and desc != "n/a" else "")
                        + "not a recognised board", "kind": "port"})
    return out


def current_choice(board: BoardPort, requested: str | None) -> str:
    """The picker entry that matches the running board (auto stays auto)."""
    req = (requested or os.environ.get(ENV_VAR) or "auto").strip()
    if req in ("auto", "none", "virtual"):
        return req
    return board.status().get("port") or req


# --------------------------------------------------------------- calibration
CAL_STATUS_TEXT = {
    1: "The die is still moving: wait until it rests, then capture again.",
    2: "No die seen in the well: put the die in, then capture again.",
    3: "The board has no calibration in progress (did it restart?).",
    4: "The board refused the arguments.",
    5: "The board could not store the calibration; its previous calibration is kept.",
    6: "The board found the readings implausible.",
}


#: Seconds the wizard waits for the board's CAL_STATUS before it gives up with a message. The
#: board answers a step within one main-loop step (a capture takes the last stable samples), so
#: a few seconds covers a slow link and a resend; longer means the board is gone or busy.
CAL_TIMEOUT_S = 5.0


class CalibrationWizard:
    """Guided dice calibration of one well over CMD_CALIBRATE / CAL_STATUS (docs/firmware.md).

    Phases: idle -> empty (the app checks the board sees the well empty; the firmware keeps no
    empty-well reference, its dark threshold is fixed) -> face 1..6 (CAPTURE with that value on
    top) -> save (user confirms; SAVE) -> done. cancel() from any phase sends CANCEL when the
    board holds a session. failed / cancelled end it too. `waiting` is the step the board has
    not answered yet. The screen calls on_events() with every polled event and tick() now and
    then: a step the board has not answered within `timeout_s` ends the wizard with a message."""

    FACES = 6

    def __init__(self, board: BoardPort, well: int, clock=time.monotonic, timeout_s: float = CAL_TIMEOUT_S):
        from protocol import wire
        self.w = wire
        self.clock = clock
        self.timeout_s = timeout_s
        self.sent_at = None
        self.board = board
        self.well = well
        self.well_id = board.smap.well_ids[well] if board.smap is not None else "well%d" % well
        from companion.words import well_name
        self.well_name = well_name(well)  # what the players read (the map's id is for lookups)
        self.phase = "idle"
        self.face = 0
        self.captured = {}  # face -> (c, r, g, b)
        self.waiting = None  # CAL step sent and not answered
        self.session_open = False  # the board holds a calibration session for this well
        self.message = ""

    # --------------------------------------------------------------- queries
    def well_state(self):
        return self.board.wells().get(self.well_id)

    def well_empty(self) -> bool:
        st = self.well_state()
        return st is not None and st[0] in ("empty", "removed")

    def progress(self) -> float:
        return len(self.captured) / self.FACES

    def finished(self) -> bool:
        return self.phase in ("done", "failed", "cancelled")

    # --------------------------------------------------------------- actions
    def _send(self, step, face=0, well=None):
        why = self.board.calibrate(step, self.well if well is None else well, face)
        if why is not None:
            self.message = why
            return False
        self.waiting = step
        self.sent_at = self.clock()
        return True

    STEP_WORDS = {1: "start", 2: "capture", 3: "save", 4: "cancel", 5: "restore the defaults"}

    def tick(self) -> bool:
        """Give up on a step the board has not answered in time. True when it just timed out."""
        if self.waiting is None or self.sent_at is None or self.finished() and self.waiting != self.w.CAL_CANCEL:
            return False
        if self.clock() - self.sent_at < self.timeout_s:
            return False
        step = self.waiting
        if step == self.w.CAL_CANCEL:  # the cancel itself was not answered: already cancelled here
            self.waiting = None
            return True
        if self.session_open:  # best effort: do not leave a half-done session on the board
            self.board.calibrate(self.w.CAL_CANCEL, self.well, 0)
        saved = "The board may have saved it: check with a self-test." if step in (
            self.w.CAL_SAVE, self.w.CAL_DEFAULTS) else "Nothing was saved."
        self._fail("The board did not answer the calibration step (%s) within %g s. %s Check the "
                   "cable and the board's light, then start the calibration again."
                   % (self.STEP_WORDS.get(step, step), self.timeout_s, saved))
        return True

    def start(self):
        if getattr(self.board, "state", None) != "paired":
            self.message = NOT_PAIRED
            return False
        self.phase, self.face, self.captured, self.waiting = "empty", 0, {}, None
        self.message = "Take any die out of %s, so the board sees it empty." % self.well_name
        return True

    def confirm_empty(self):
        if self.phase != "empty" or self.waiting:
            return False
        if not self.well_empty():
            self.message = "The board still sees something in %s (%s): take the die out." % (
                self.well_name, (self.well_state() or ("unknown",))[0])
            return False
        self.message = "Starting the calibration on the board..."
        return self._send(self.w.CAL_BEGIN)

    def capture(self):
        if self.phase != "face" or self.waiting:
            return False
        self.message = "Capturing face %d..." % self.face
        return self._send(self.w.CAL_CAPTURE, self.face)

    def save(self):
        if self.phase != "save" or self.waiting:
            return False
        from firmware import calib
        near = calib.check_faces([self.captured[f] for f in range(1, self.FACES + 1)])
        if near is not None:
            self._recapture(*near)
            return False
        self.message = "Saving on the board..."
        return self._send(self.w.CAL_SAVE)

    def _recapture(self, a, b, dist):
        """Two faces read too much alike: capture the second again (the board keeps the session)."""
        from firmware import calib
        self.captured.pop(b, None)
        self.phase, self.face = "face", b
        self.message = ("Faces %d and %d read too much alike (difference %d, at least %d needed), so "
                        "the board could not tell them apart. Check the well's hood is on and the die "
                        "lies flat. %s" % (a, b, dist, calib.MIN_FACE_GAP, self._face_prompt()))

    def _next_face(self):
        missing = [f for f in range(1, self.FACES + 1) if f not in self.captured]
        return missing[0] if missing else None

    def restore_defaults(self):
        if not (self.phase == "idle" or self.finished()) or self.waiting:
            return False
        self.phase = "defaults"
        self.message = "Restoring the default colours of %s..." % self.well_name
        if not self._send(self.w.CAL_DEFAULTS):
            self.phase = "failed"
            return False
        return True

    def cancel(self):
        if self.finished() or self.phase == "idle":
            return False
        if self.session_open or self.waiting == self.w.CAL_BEGIN:
            self._send(self.w.CAL_CANCEL)
        self.phase = "cancelled"
        self.message = "Calibration of %s cancelled: the board keeps its previous calibration." % self.well_name
        self.session_open = False
        return True

    def _fail(self, text):
        self.phase, self.waiting, self.session_open = "failed", None, False
        self.message = text

    # --------------------------------------------------------------- events
    def on_events(self, events):
        for ev in events:
            t = ev.get("type")
            if t == "CAL_STATUS":
                self._on_status(ev)
            elif t == "COMMANDS_DROPPED" and self.waiting:
                self._fail("The board restarted or re-paired before answering: nothing was saved. Start again.")
            elif t == "STATE" and ev.get("state") != "paired" and not self.finished() \
                    and self.phase != "idle":
                self._fail("The link to the board went %s: nothing was saved. Start again."
                           % ev.get("state"))
        self.tick()  # after the events: an answer in this batch is not a timeout

    def _on_status(self, ev):
        w = self.w
        step, status = ev.get("step"), ev.get("status")
        if self.waiting is None or step != self.waiting:
            return  # not ours (or a late answer to a cancel)
        self.waiting = None
        if step == w.CAL_CANCEL:
            return
        retry = step == w.CAL_CAPTURE and status in (w.CAL_UNSTABLE, w.CAL_NO_DIE, w.CAL_IMPLAUSIBLE)
        if step == w.CAL_SAVE and status == w.CAL_IMPLAUSIBLE:  # the board's own check
            self._recapture(ev.get("face"), ev.get("c"), ev.get("r"))
            return
        if status != w.CAL_OK and not retry:
            self._fail(CAL_STATUS_TEXT.get(status, "calibration status %s" % status))
            return
        if step == w.CAL_BEGIN:
            self.session_open = True
            self.phase, self.face = "face", 1
            self.message = self._face_prompt()
        elif step == w.CAL_CAPTURE:
            if status == w.CAL_IMPLAUSIBLE:
                from firmware import calib
                other = calib.check_capture(self.face, (ev["c"], ev["r"], ev["g"], ev["b"]))
                self.message = ("That reading looks like the printed colour of face %s, not of face %d: "
                                "check that %d is on top and the well's hood is on. %s"
                                % (other or "another", self.face, self.face, self._face_prompt()))
                return
            if status != w.CAL_OK:
                self.message = CAL_STATUS_TEXT.get(status, "status %s" % status) + " " + self._face_prompt()
                return
            done = self.face
            self.captured[done] = (ev["c"], ev["r"], ev["g"], ev["b"])
            nxt = self._next_face()
            if nxt is not None:
                self.face = nxt
                self.message = "Face %d captured. %s" % (done, self._face_prompt())
            else:
                self.phase = "save"
                self.message = "All six faces captured. Save them on the board, or cancel."
        elif step == w.CAL_SAVE:
            self.session_open = False
            self.phase = "done"
            self.message = "Calibration of %s saved on the board." % self.well_name
        elif step == w.CAL_DEFAULTS:
            self.phase = "done"
            self.message = "%s uses the default colours again (saved on the board)." % self.well_name.capitalize()

    def _face_prompt(self):
        return ("Put the die in %s with %d on top, let it rest, then tap Capture (face %d of %d)."
                % (self.well_name, self.face, self.face, self.FACES))
