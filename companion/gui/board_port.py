"""The one small interface through which the app sees a physical (or virtual) board.

Screens only use `BoardPort`: `start()`, `stop()`, `poll()` (drain pending events on the UI
thread), `status()` (what to show on the Board status screen) and `lanes()` (lane id -> sensed
position, for reconciliation). `open_board()` picks an implementation:

* `ManualBoard`  - no board: every input is entered by touch (always available);
* `LinkBoard`    - `companion.board_link.BoardConnection` (serial worker thread + table mirror);
* `VirtualLinkBoard` - the same link to `companion.virtual_board.VirtualBoard`, which runs the
  firmware's own modules on simulated chips behind a real pty.

`TABLETOP_COMPANION_BOARD` chooses: `none` (manual only), `auto` (default: a USB board found by
VID/PID, else the virtual board), `virtual`, or a serial port name (e.g. `/dev/ttyACM0`).
Manual entry stays available in every mode.
"""
from __future__ import annotations

import os

ENV_VAR = "TABLETOP_COMPANION_BOARD"


class BoardPort:
    mode = "manual"

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

    def status(self) -> dict:
        return {"mode": self.mode, "state": "manual", "port": None,
                "detail": "No board connected: enter rolls and moves by touch."}


class ManualBoard(BoardPort):
    def __init__(self, detail: str | None = None):
        self._detail = detail

    def status(self) -> dict:
        st = super().status()
        if self._detail:
            st["detail"] = self._detail + " " + st["detail"]
        return st


class LinkBoard(BoardPort):
    """Adapter for companion.board_link.BoardConnection (lead's link layer)."""

    mode = "hardware"

    def __init__(self, conn, description: str = ""):
        self.conn = conn
        self.description = description
        self.state = "searching"
        self.detail = ""
        self._lanes = {}
        self._wells = {}

    def start(self):
        self.conn.start()

    def stop(self):
        try:
            self.conn.stop()
        except Exception:
            pass

    def _handle(self, ev, out):
        t = ev.get("type")
        if t == "STATE":
            self.state, self.detail = ev.get("state", "?"), ev.get("detail", "")
        elif t == "TABLE":
            from companion.board_link import mask_positions
            ids = self.conn.smap.lane_ids
            for i, mask in enumerate(ev.get("lanes", [])):
                pos = mask_positions(mask)
                if i < len(ids):
                    self._lanes[ids[i]] = pos[0] if len(pos) == 1 else None
        elif t == "TRACK_CHANGE":
            pos = ev.get("positions") or []
            self._lanes[ev["lane_id"]] = pos[0] if len(pos) == 1 else None
        elif t == "DICE":
            self._wells[ev.get("well_id", ev.get("well"))] = (ev.get("state"), ev.get("value"))
        out.append(ev)

    def poll(self) -> list[dict]:
        out = []
        self.conn.drain(lambda ev: self._handle(ev, out))
        return out

    def lanes(self) -> dict:
        return {k: v for k, v in self._lanes.items() if v is not None}

    def wells(self) -> dict:
        return dict(self._wells)

    def status(self) -> dict:
        return {"mode": self.mode, "state": self.state, "port": self.conn.port_name,
                "detail": " ".join(x for x in (self.description, self.detail) if x)}


class VirtualLinkBoard(LinkBoard):
    """The virtual board (firmware on simulated chips, real pty) through the real link layer."""

    mode = "virtual"

    def __init__(self, detail: str = ""):
        from companion import board_link
        from companion.virtual_board import VirtualBoard
        self.vboard = VirtualBoard()
        path = self.vboard.start()
        super().__init__(board_link.BoardConnection(path),
                         " ".join(x for x in (detail, "Virtual board on %s." % path) if x))

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
        from companion import board_link
    except Exception as exc:  # link layer missing or broken: manual entry still works
        return ManualBoard(f"Board link unavailable ({exc.__class__.__name__}).")
    try:
        if choice == "virtual":
            return VirtualLinkBoard()
        if choice == "auto":
            found = board_link.find_boards()
            if not found:
                return VirtualLinkBoard("No board found on USB.")
            port, what = found[0]
        else:
            port, what = choice, "serial port"
        return LinkBoard(board_link.BoardConnection(port), what)
    except Exception as exc:
        return ManualBoard(f"Board could not be opened ({exc}).")
