"""Board screen: connection (port picker, state, versions, refusal), the sensed table against
the game, self-test, the dice calibration wizard, and the virtual board's controls.

Layout in board.kv. Everything shown comes from `app.board` (a BoardPort) and the events the app
polls from it; the virtual board's controls act on the simulated world only, so what the app
learns from them arrives through the real link like any board's."""
from __future__ import annotations

import functools
import time
import types

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen
from kivy.uix.togglebutton import ToggleButton

from companion.link import board_port as bp
from companion.gui.virtual_table import VirtualTableModel
from companion.kit import nice, rgba
from companion.table.sensing import seat_words
from companion.words import well_name

TRIGGERS = {0: "at boot", 1: "on request", 2: "noticed by the board"}
STATE_COLOURS = {"paired": "88dd88", "refused": "ff7766", "searching": "ffcc66",
                 "disconnected": "ff9966", "manual": "aaaaaa"}
MODE_NAMES = {"manual": "Manual entry", "hardware": "USB board", "virtual": "Virtual board"}
NO_LANE = "No track in use"  # the exact controls' lane while the open game uses none
CAL_PRIMARY = {"idle": "Start calibration", "empty": "Well is empty: next", "face": "Capture",
               "save": "Save", "done": "Calibrate again", "failed": "Start again",
               "cancelled": "Start again", "defaults": "Restoring..."}


class BoardPortChoice(ToggleButton):
    choice = StringProperty("")
    title = StringProperty("")
    subtitle = StringProperty("")


class BoardCalWell(ToggleButton):
    index = NumericProperty(0)


class BoardWellRow(BoxLayout):
    index = NumericProperty(0)
    well_id = StringProperty("")
    well_label = StringProperty("")
    sensed = StringProperty("")


def _c(colour, text):
    return "[color=%s]%s[/color]" % (colour, text)


def _table_sync():
    """The open game's TableSync (its sensing binding on this board), or None."""
    app = App.get_running_app()
    if app is None or app.ctrl is None:
        return None
    return app.root.get_screen("game").sync


def _open_game():
    """(title, lanes its counters sit on) of the open game, or None with no game open: what the
    board screen draws and names goes through the game's binding, never a game's name in code."""
    app = App.get_running_app()
    if app is None or app.ctrl is None:
        return None
    sync = _table_sync()
    return app.ctrl.module.title, frozenset(sync.binding.lanes) if sync is not None else frozenset()


@functools.lru_cache(maxsize=4)
def _map_game_binding(game_id, smap):
    """With no game open: the binding of the game the sensor map was drawn for (its "game"), so
    a sensed space still reads in that game's words; None when this build lacks that game."""
    from companion import games
    from companion.table.sensing import Binding, lanes_of

    try:
        m = games.get_module(game_id)
        setup = m.sample_setup()
    except Exception:  # noqa: BLE001 - only words for the screen
        return None
    if m.sensing is None:
        return None
    return types.SimpleNamespace(sensing=m.sensing, binding=Binding.bind(m.sensing.counters(setup), lanes_of(smap)))


def _describer(board):
    sync = _table_sync()
    if sync is None and board.smap is not None:
        sync = _map_game_binding(getattr(board.smap, "game", None), board.smap)
    return sync


def space_text(lane_id, pos, sync=None):
    """What a sensed space means for the open game (through its binding), else its number."""
    counter = sync.binding.counter_of(lane_id) if sync is not None else None
    if counter is None:
        return "space %d" % pos
    value = sync.binding.value_at(lane_id, pos)
    if value is None:
        return "space %d (outside %s)" % (pos, counter.name)
    words = getattr(sync.sensing, "space_text", sync.sensing.value_text)
    return "space %d: %s" % (pos, words(counter.id, value))


def positions_text(lane_id, pos, sync=None):
    if pos is None:
        return "not reported yet"
    if not pos:
        return "no token"
    if len(pos) == 1:
        return space_text(lane_id, pos[0], sync)
    return "%d tokens, spaces %s (move the extra one off)" % (len(pos), ", ".join(map(str, pos)))


def well_text(state):
    if state is None:
        return "not reported yet"
    st, value = state
    return "%s %s" % (st, value) if st == "settled" else {
        "crooked": "crooked: roll again", "rolling": "rolling...", "removed": "die taken out",
        "empty": "empty"}.get(st, st)


class BoardScreen(Screen):
    status_text = StringProperty("")
    lanes_text = StringProperty("")
    summary_text = StringProperty("")
    view = StringProperty("connection")
    message = StringProperty("")
    hint_text = StringProperty("")
    problem_text = StringProperty("")
    versions_text = StringProperty("")
    link_text = StringProperty("")
    paired = BooleanProperty(False)
    virtual_mode = BooleanProperty(False)
    selftest_text = StringProperty("")
    selftest_busy = BooleanProperty(False)
    cal_well = NumericProperty(0)
    cal_step_text = StringProperty("")
    cal_text = StringProperty("")
    cal_well_text = StringProperty("")
    cal_captured_text = StringProperty("")
    cal_progress = NumericProperty(0)
    cal_primary_text = StringProperty(CAL_PRIMARY["idle"])
    cal_primary_enabled = BooleanProperty(False)
    cal_cancel_enabled = BooleanProperty(False)
    cal_defaults_enabled = BooleanProperty(False)
    v_lane_ids = ListProperty([])
    v_spaces = ListProperty([])
    v_sensed_text = StringProperty("")
    v_cable_text = StringProperty("")
    v_strip_text = StringProperty("")   # the chosen lane's spaces: tokens in bold, a lit space glows
    v_lights_text = StringProperty("")  # every lit guidance LED of the virtual board

    def __init__(self, **kw):
        super().__init__(**kw)
        self._board = None
        self._grid_rows = None
        self.wizard = None
        self._unplugged = False
        self._view_chosen = False  # a tab the player picked in this run (else the virtual board's)
        Clock.schedule_interval(self._wizard_tick, 0.5)

    def _wizard_tick(self, _dt):
        """A calibration step the board never answers ends with a message, even with no events;
        the virtual board's lights change with no event (the app lit them): shown twice a second."""
        if self.wizard is not None and self.wizard.tick():
            self.refresh()
        elif self.view == "virtual" and self.virtual_mode and "v_lane" in self.ids \
                and self.manager is not None and self.manager.current == self.name:
            self._refresh_lights(self.board, self.current_lane())

    # ------------------------------------------------------------ plumbing
    @property
    def board(self):
        return App.get_running_app().board

    def on_pre_enter(self, *a):
        self._attach(self.board, force=self._board is None)
        if self.virtual_mode and not self._view_chosen and self.view == "connection":
            self.view = "virtual"  # the virtual board in use: its table first, after a restart too
        self.build_ports()
        self.refresh()

    def on_view(self, *_):
        if "views" in self.ids:  # not bound in kv: the screens do not exist yet when it applies
            self.ids.views.current = self.view
        if self.view == "virtual" and "v_table" in self.ids:
            self.ids.v_table.rebuild()  # the open game may have changed: its names on the tracks
            self._name_lanes()

    @staticmethod
    def _counter_of(lane):
        """(counter name, player name, colour) of the open game's counter on `lane`, or None."""
        sync = _table_sync()
        c = sync.binding.counter_of(lane) if sync is not None else None
        if c is None:
            return None
        ctrl = App.get_running_app().ctrl
        if not c.seat:
            return c.name, None, (0.85, 0.85, 0.85, 1)
        return c.name, ctrl.name(c.seat), tuple(rgba(ctrl.colour(c.seat)))

    def show(self, view):
        if view == "virtual" and not self.virtual_mode:
            return
        self._view_chosen = True
        self.view = view
        self.message = ""
        self.refresh()

    def on_board_events(self, board, events):
        if board is not self._board:
            self._attach(board)
        if self.wizard is not None and events:
            self.wizard.on_events(events)
        if self.manager is not None and self.manager.current == self.name:
            self.refresh()

    def _attach(self, board, force=False):
        """A new board object (port picker, app start): reset what belonged to the old one."""
        if board is self._board and not force:
            return
        self._board = board
        self.wizard = None
        self._unplugged = False
        self.virtual_mode = board.mode == "virtual"
        if self.view == "virtual" and not self.virtual_mode:
            self.view = "connection"
        smap = board.smap
        self._name_lanes()
        ids = self.ids
        if "v_lane" in ids:
            ids.v_lane.text = self.v_lane_ids[0] if self.v_lane_ids else NO_LANE
            self.lane_chosen(ids.v_lane.text)
            ids.v_wells.clear_widgets()
            ids.cal_wells.clear_widgets()
            for i, wid in enumerate(smap.well_ids if smap is not None else []):
                if self.virtual_mode:
                    ids.v_wells.add_widget(BoardWellRow(index=i, well_id=wid, well_label=well_name(i)))
                ids.cal_wells.add_widget(BoardCalWell(index=i, text=well_name(i).capitalize(),
                                                      state="down" if i == 0 else "normal"))
            self.cal_well = 0
            ids.v_table.model = self._model() if self.virtual_mode else None
        self.build_ports()

    def game_changed(self):
        """Another game was opened or the game was left: nothing of the previous game stays
        (lane names, the virtual table's names and lights, the table grid, a calibration in
        progress is kept: it belongs to the board); drawn again from the open game's binding."""
        self._grid_rows = None
        if self._board is not None:
            self._name_lanes()
            if "v_table" in self.ids and self.virtual_mode:
                self.ids.v_table.model = self._model()  # rebuilt from the new game's lanes
            if "v_lane" in self.ids:
                self.lane_chosen(self.ids.v_lane.text)
        if self.manager is not None and self.manager.current == self.name:
            self.refresh()

    # ------------------------------------------------------------ refresh
    def refresh(self):
        board = self.board
        st = board.status()
        self.paired = st["state"] == "paired"
        colour = STATE_COLOURS.get(st["state"], "ffffff")
        self.problem_text = board.problem() or ""
        # a refusal's raw reason is restated in the problem box
        detail = getattr(board, "description", "") if self.problem_text else st["detail"]
        self.status_text = (f"Mode: [b]{st['mode']}[/b]   State: [b]{_c(colour, st['state'])}[/b]"
                            + (f"   Port: {st['port']}" if st.get("port") else "") + f"\n{detail}")
        self.summary_text = "%s  -  %s%s" % (MODE_NAMES.get(st["mode"], st["mode"]), _c(colour, st["state"]),
                                             "  -  " + st["port"] if st.get("port") else "")
        self.hint_text = self._hint(st)
        self.versions_text = self._versions_text(board.versions())
        self.link_text = self._link_text(board)
        self.lanes_text = self._table_text(board)
        if self.view == "table":
            self._fill_grid(self._table_rows(board))
        self._refresh_selftest(board)
        self._refresh_calibration(board)
        self._refresh_virtual(board)

    @staticmethod
    def _hint(st):
        if st["mode"] == "manual":
            return "All input is by touch on the game screen. Pick a board on the right to connect one."
        if st["state"] == "searching":
            return ("Waiting for the board to answer. If this lasts, check that the tabletop "
                    "firmware runs on it (tabletop-board deploy) and that this is the right port.")
        if st["state"] == "disconnected":
            return "The port cannot be used (cable out?). The app retries every second."
        return ""

    @staticmethod
    def _versions_text(v):
        app, board = v["app"], v["board"] or {}

        def pair(key, fmt=str):
            a, b = app.get(key), board.get(key)
            bt = "?" if b is None else fmt(b)
            if b is not None and a is not None and b != a:
                bt = _c("ff7766", bt)
            return "board %s, app %s" % (bt, "?" if a is None else fmt(a))

        lines = ["[b]Versions[/b]",
                 "Firmware / app version: " + pair("version"),
                 "Protocol version: " + pair("protocol"),
                 "Sensor map: " + pair("map"),
                 "Lanes: " + pair("lanes"), "Dice wells: " + pair("wells")]
        if board.get("board_id"):
            lines.append("Board: %s (profile %s)" % (board["board_id"], board.get("profile")))
        elif not v["board"]:
            lines.append("No board has said hello yet.")
        warn = bp.firmware_warning(app, v["board"])
        if warn:
            lines.append(_c("ffcc66", warn))
        return "\n".join(lines)

    @staticmethod
    def _link_text(board):
        c = board.counters()
        if not c:
            return ""
        errs = [f"{k} {c[k]}" for k in ("bad_crc", "bad_framing", "too_long", "too_short", "bad_version",
                                         "bad_payload", "map_mismatch", "unknown_type") if c.get(k)]
        lines = ["[b]Link[/b]  %d frames received, %d delivered, %d sent, %d resent, %d link drops" % (
            c.get("rx_frames", 0), c.get("rx_delivered", 0), c.get("tx_frames", 0),
            c.get("tx_resent", 0), c.get("link_down", 0)),
            "Receive errors: " + (", ".join(errs) if errs else "none")]
        for e in board.errors()[-3:]:
            lines.append(_c("ff9966", "%s  %s" % (time.strftime("%H:%M:%S", time.localtime(e["at"])),
                                                  e.get("detail") or "%s %s" % (e["type"], e.get("count", "")))))
        return "\n".join(lines)

    def _table_text(self, board):
        """Summary above the grid: comparison with the game, and the dice wells."""
        ctrl = App.get_running_app().ctrl
        lanes = board.lanes()
        lines = []
        sync = _table_sync()
        if ctrl is not None and lanes and sync is not None:
            try:
                diffs = sync.differences(ctrl.state, lanes)
                if diffs:
                    lines.append(_c("ffcc66", "[b]%d lane(s) differ from the game[/b]" % len(diffs)))
                    lines += ["  %s: table %s, game %s" % (self.lane_words(d["lane"]), d["table_value"],
                                                           d["engine_value"]) for d in diffs]
                else:
                    lines.append(_c("88dd88", "[b]The table matches the game.[/b]"))
            except Exception as exc:
                lines.append(f"Cannot compare with the game: {exc}")
        elif ctrl is not None and sync is None:
            lines.append("%s keeps nothing on the board's tracks." % ctrl.module.title)
        elif ctrl is None and board.sensed_positions():
            lines.append("No game open: the sensed table is shown without a comparison.")
        wells = board.wells()
        if wells:
            ids = list(board.smap.well_ids) if getattr(board, "smap", None) is not None else []
            lines.append("[b]Dice wells[/b]  " + "   ".join(
                "%s: %s" % (well_name(ids.index(k)) if k in ids else k, well_text(v))
                for k, v in sorted(wells.items(), key=str)))
        if not board.sensed_positions():
            lines.append("No table data. All input is by touch on the game screen.")
        return "\n".join(lines)

    def _table_rows(self, board):
        """Grid cells: a row per track, a column per seat (sensed value, and the game's). With a
        game open the rows are its counters on the lanes its binding uses (the others are not
        its tracks); with none, the map's tracks."""
        smap = board.smap
        sensed = board.sensed_positions()
        if smap is None or not sensed:
            return []
        ctrl = App.get_running_app().ctrl
        sync = _table_sync()
        cells = {}  # (row name, seat) -> lane
        for lane_id in smap.lane_ids:
            k = smap.lane_index(lane_id)
            seat = smap.lane_seats[k] or lane_id.partition(".")[2]
            if ctrl is None:
                cells[(nice(smap.lane_tracks[k] or lane_id.partition(".")[0]), seat)] = lane_id
            elif sync is not None and sync.binding.counter_of(lane_id) is not None:
                c = sync.binding.counter_of(lane_id)
                cells[(c.name, c.seat or seat)] = lane_id
        names = list(dict.fromkeys(name for name, _ in cells))
        seats = list(dict.fromkeys(seat for _, seat in cells))
        if not cells:
            return []
        rows = [["[b]Track[/b]"] + ["[b]%s[/b]" % (ctrl.name(s) if ctrl is not None else seat_words(s).capitalize())
                                    for s in seats]]
        for name in names:
            row = [name]
            for seat in seats:
                lane = cells.get((name, seat))
                row.append(self._cell(ctrl, sync, lane, sensed.get(lane)) if lane else _c("777777", "-"))
            rows.append(row)
        return rows

    @staticmethod
    def _cell(ctrl, sync, lane_id, pos):
        game = game_pos = None
        if ctrl is not None and sync is not None and lane_id in sync.engine:
            try:
                game_pos = sync.engine_position(ctrl.state, lane_id)
                game = space_text(lane_id, game_pos, sync).partition(": ")[2]
            except Exception:
                game = None
        if pos is None:
            return _c("777777", "not reported")
        if len(pos) > 1:
            return _c("ff9966", "%d tokens: spaces %s" % (len(pos), ", ".join(map(str, pos))))
        if not pos:
            return _c("777777", "no token") + ("" if game is None else "  (game %s)" % game)
        text = space_text(lane_id, pos[0], sync).partition(": ")[2] or str(pos[0])
        if game is None:
            return text
        if pos[0] == game_pos:
            return _c("88dd88", text + "  = game")
        return _c("ffcc66", "%s  (game %s)" % (text, game))

    def _fill_grid(self, rows):
        if "table_grid" not in self.ids or rows == self._grid_rows:
            return
        from kivy.factory import Factory
        self._grid_rows = rows
        grid = self.ids.table_grid
        grid.clear_widgets()
        grid.cols = len(rows[0]) if rows else 1
        for row in rows:
            for text in row:
                grid.add_widget(Factory.BoardCell(text=text))

    def _refresh_selftest(self, board):
        st = getattr(board, "last_self_test", None)
        self.selftest_busy = bool(getattr(board, "self_test_pending", False))
        lines = []
        if self.selftest_busy:
            lines.append("Waiting for the board's answer...")
        if st is None:
            if not self.selftest_busy:
                lines.append("No self-test result yet." + ("" if self.paired else " " + bp.NOT_PAIRED))
        else:
            when = time.strftime("%H:%M:%S", time.localtime(st["at"]))
            lines.append("[b]Self-test %s, %s[/b]" % (TRIGGERS.get(st.get("trigger"), "?"), when))
            faults = st.get("faults") or []
            if not faults:
                lines.append(_c("88dd88", "No faults."))
            else:
                lines.append(_c("ff9966", "%d fault(s):" % len(faults)))
                lines += ["  - " + bp.describe_fault(f) for f in faults]
        self.selftest_text = "\n".join(lines)

    def _refresh_calibration(self, board):
        wiz = self.wizard
        smap = board.smap
        wid = smap.well_ids[self.cal_well] if smap is not None and self.cal_well < smap.n_wells else "well%d" % self.cal_well
        self.cal_well_text = "The board sees %s: %s" % (well_name(self.cal_well), well_text(board.wells().get(wid)))
        if wiz is None:
            self.cal_step_text = "Dice calibration"
            self.cal_text = ("The board learns the colour its sensor sees under each face of the die. "
                             "Choose a well, then Start: empty the well, then put the die in six times, "
                             "with 1, 2, ... 6 on top." + ("" if self.paired else "\n" + bp.NOT_PAIRED))
            self.cal_progress = 0
            self.cal_captured_text = ""
            phase, waiting = "idle", False
        else:
            phase, waiting = wiz.phase, wiz.waiting is not None
            self.cal_step_text = {
                "empty": "Step 1 of 8: empty well", "face": "Step %d of 8: face %d of 6" % (wiz.face + 1, wiz.face),
                "save": "Step 8 of 8: save", "done": "Finished", "failed": "Stopped", "cancelled": "Cancelled",
                "defaults": "Restoring defaults"}.get(phase, phase) + " (%s)" % wiz.well_name
            self.cal_text = wiz.message + ("\nWaiting for the board..." if waiting else "")
            self.cal_progress = wiz.progress()
            self.cal_captured_text = "\n".join(
                "Face %d: clear %d, red %d, green %d, blue %d" % ((f,) + wiz.captured[f]) for f in sorted(wiz.captured))
        self.cal_primary_text = CAL_PRIMARY.get(phase, phase)
        self.cal_primary_enabled = self.paired and not waiting and phase != "defaults"
        self.cal_cancel_enabled = wiz is not None and not wiz.finished() and phase not in ("idle", "defaults")
        self.cal_defaults_enabled = self.paired and (wiz is None or wiz.finished())

    def _refresh_virtual(self, board):
        if not self.virtual_mode or "v_lane" not in self.ids:
            return
        self.ids.v_table.refresh()
        lane = self.current_lane()
        if board.smap is not None and lane in board.smap.lane_ids:
            self.v_sensed_text = "The app senses %s: %s" % (self.lane_words(lane), positions_text(
                lane, board.sensed_positions().get(lane), _describer(board)))
        else:
            self.v_sensed_text = ""
        wells = board.wells()
        for row in self.ids.v_wells.children:
            row.sensed = well_text(wells.get(row.well_id))
        self.v_cable_text = "Cable unplugged: the board keeps running, the app loses the link." if self._unplugged \
            else "Cable plugged in."
        self._refresh_lights(board, lane)

    def _refresh_lights(self, board, lane):
        """What the virtual board's LEDs show (the latched outputs of its simulated 74HC595s, so
        it is what the firmware shifted out, not what the app asked): the chosen lane as a strip of spaces, a lit
        one glowing, and a list of every lit position."""
        vb, smap = board.virtual, board.smap
        if vb is None or smap is None:
            self.v_strip_text = self.v_lights_text = ""
            return
        lit = sorted(vb.call(lambda _b: vb.world.lit_positions()))
        ids = smap.lane_ids
        tokens = vb.tokens()
        if lane in ids:
            k = smap.lane_index(lane)
            cells = []
            for i in range(smap.n_spaces(k)):
                cell = "[b]%d*[/b]" % i if i in tokens.get(lane, ()) else str(i)
                if (k, i) in lit:
                    cell = "[color=ffcc33][b]( %s )[/b][/color]" % cell
                cells.append(cell)
            self.v_strip_text = "%s:  " % self.lane_words(lane) + "  ".join(cells)
        else:
            self.v_strip_text = ""
        if not lit:
            self.v_lights_text = "[color=aaaaaa]No light is on. The app lights the space a token must go to; the board puts it out when the token arrives (* = a token).[/color]"
            return
        describe = _describer(board)
        self.v_lights_text = "[color=ffcc33]Lit:[/color] " + "; ".join(
            "%s %s" % (self.lane_words(ids[k]), space_text(ids[k], i, describe)) for k, i in lit)

    # ------------------------------------------------------------ connection
    def build_ports(self):
        if "port_list" not in self.ids:
            return
        app = App.get_running_app()
        current = bp.current_choice(app.board, app.board_choice)
        box = self.ids.port_list
        box.clear_widgets()
        for c in bp.port_choices():
            row = BoardPortChoice(choice=c["choice"] or "", title=c["title"], subtitle=c["subtitle"],
                                  state="down" if c["choice"] == current else "normal",
                                  disabled=c["choice"] is None)
            box.add_widget(row)

    def pick_port(self, choice):
        if not choice:
            return
        self.message = ""
        App.get_running_app().switch_board(choice)
        self.build_ports()
        self.refresh()

    def connect_typed_port(self):
        port = self.ids.port_input.text.strip()
        if not port:
            self.message = "Type a port name first (e.g. /dev/ttyACM0, COM3, or the pty of tabletop-board virtual)."
            return
        self.pick_port(port)

    def use_virtual(self):
        self.pick_port("virtual")

    def _say(self, why, ok_text):
        self.message = why if why else ok_text
        self.refresh()

    def identify(self):
        self._say(self.board.identify(), "The board's LED blinks fast for 3 s.")

    def request_snapshot(self):
        self._say(self.board.request_snapshot(), "Asked the board for a fresh snapshot of the table.")

    def run_self_test(self):
        self._say(self.board.self_test(), "")

    # ------------------------------------------------------------ calibration
    def choose_cal_well(self, index):
        if self.wizard is not None and not self.wizard.finished():
            self.message = "Finish or cancel the calibration of %s first." % self.wizard.well_name
        else:
            self.cal_well = index
            self.wizard = None
        for w in self.ids.cal_wells.children:
            w.state = "down" if w.index == self.cal_well else "normal"
        self.refresh()

    def cal_primary(self):
        wiz = self.wizard
        self.message = ""
        if wiz is None or wiz.finished():
            self.wizard = wiz = bp.CalibrationWizard(self.board, self.cal_well)
            wiz.start()
        elif wiz.phase == "empty":
            wiz.confirm_empty()
        elif wiz.phase == "face":
            wiz.capture()
        elif wiz.phase == "save":
            wiz.save()
        self.refresh()

    def cal_cancel(self):
        if self.wizard is not None:
            self.wizard.cancel()
        self.refresh()

    def cal_defaults(self):
        if self.wizard is None or self.wizard.finished():
            self.wizard = bp.CalibrationWizard(self.board, self.cal_well)
            self.wizard.restore_defaults()
        self.refresh()

    # ------------------------------------------------------------ virtual board
    def _model(self):
        return VirtualTableModel(self.board, self._counter_of, _open_game)

    def lane_words(self, lane):
        """A lane as the table knows it ('Ben - Food', 'Food (seat 2)'), never its id."""
        return self._model().lane_words(lane)

    def _name_lanes(self):
        """The exact controls list lanes by their words (v_lane_ids holds those words): with a
        game open only the lanes it uses."""
        model = self._model()
        lanes = model.shown_lanes()
        words = [model.lane_words(ln) for ln in lanes]
        self._lane_of_words = dict(zip(words, lanes))
        chosen = self.current_lane() if "v_lane" in self.ids else None
        self.v_lane_ids = words
        if "v_lane" in self.ids:
            self.ids.v_lane.text = words[lanes.index(chosen)] if chosen in lanes else (words[0] if words else NO_LANE)

    def current_lane(self):
        """The lane id the exact controls are set to."""
        text = self.ids.v_lane.text
        return getattr(self, "_lane_of_words", {}).get(text, text)

    def lane_chosen(self, text):
        lane = getattr(self, "_lane_of_words", {}).get(text, text)
        smap = self.board.smap
        if smap is None or lane not in smap.lane_ids:
            self.v_spaces = []
            return
        n = smap.n_spaces(smap.lane_index(lane))
        self.v_spaces = [str(i) for i in range(n)]
        for sid in ("v_space", "v_to"):
            if sid in self.ids and self.ids[sid].text not in self.v_spaces:
                self.ids[sid].text = "0"
        if self._board is not None:
            self.refresh()

    def _virtual_do(self, fn, done):
        vb = self.board.virtual
        if vb is None:
            self.message = "Only the virtual board has on-screen controls."
            return
        try:
            fn(vb)
        except (ValueError, KeyError) as exc:
            self.message = str(exc)
        else:
            self.message = done
        self.refresh()

    def _lane_space(self, sid="v_space"):
        return self.current_lane(), int(self.ids[sid].text or 0)

    def v_place(self):
        lane, pos = self._lane_space()
        self._virtual_do(lambda vb: vb.place(lane, pos), "Token put on %s, space %d." % (self.lane_words(lane), pos))

    def v_remove(self):
        lane, pos = self._lane_space()
        self._virtual_do(lambda vb: vb.remove(lane, pos), "Token taken off %s, space %d." % (self.lane_words(lane), pos))

    def v_move(self):
        lane, pos = self._lane_space()
        _, to = self._lane_space("v_to")
        self._virtual_do(lambda vb: vb.move(lane, pos, to, ms_per_space=40),
                         "Token slid along %s from space %d to %d." % (self.lane_words(lane), pos, to))

    def roll_die(self, index, value_text, crooked=False):
        value = int(value_text) if value_text.isdigit() else None
        self._virtual_do(lambda vb: vb.roll(index, value=value, crooked=crooked),
                         "Die thrown into %s%s." % (well_name(index), " (it will rest crooked)" if crooked else ""))

    def remove_die(self, index):
        self._virtual_do(lambda vb: vb.remove_die(index), "Die taken out of %s." % well_name(index))

    def set_cable(self, plugged):
        def fn(vb):
            (vb.replug if plugged else vb.unplug)()
            self._unplugged = not plugged
        self._virtual_do(fn, "Cable plugged back in." if plugged else "Cable pulled out.")
