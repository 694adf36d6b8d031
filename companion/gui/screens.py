"""The round dashboard (GameScreen), the screen a game is played on.
Layout in game.kv; this module only moves data between `GameController` (engine + journal)
and widgets, and asks the open game's view (contract.GameView) what to say. It names no game and
holds no rules."""
from __future__ import annotations

import threading

from kivy.app import App
from kivy.clock import Clock
from kivy.logger import Logger
from kivy.metrics import dp
from kivy.properties import (BooleanProperty, ListProperty, NumericProperty,
                             ObjectProperty, StringProperty)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.togglebutton import ToggleButton

from companion.decisions import Decision
from companion.games.contract import dice_words
from companion.store.journal import JournalError, UndoRefused
from companion.kit import DiceEntry, rgba
from companion.table.sensing import Binding, lanes_of
from companion.table.sync import DiceFeeder, TableSync
from companion.gui import photo_dice  # noqa: F401  (PhotoDiceButtons of game.kv)
from companion.table.todo import TableTodo, setup_checklist
from companion.words import well_name

from companion import controller as C
from . import step_panels
from .pickers import PAGE, DecisionPicker  # noqa: F401  (DecisionPicker: a rule of game.kv)


def _app_map():
    """The app's own sensor map (what a board would report) when no board is attached."""
    from companion.link.board_port import _default_smap
    try:
        return _default_smap()
    except Exception:  # noqa: BLE001 - no map: nothing is sensed
        return None


# ------------------------------------------------------------------------------ small widgets
class LegalActionButton(Button):
    action = ObjectProperty(None, allownone=True)
    selected = BooleanProperty(False)


class NowColumn(BoxLayout):
    """What to do now (game.kv): prompt, last roll, the decision, the table list. Its ids are
    the screen's too (GameScreen.on_kv_post), wherever the layout puts the column."""
    screen = ObjectProperty(None, allownone=True)


class LeftTab(ToggleButton):
    """A toggle of the dashboard's left column: Players, the game's own views, Log."""
    key = StringProperty("")


class TodoRow(BoxLayout):
    """One "do this at the table" line with its Done button (companion/table/todo.py)."""
    screen = ObjectProperty(None, allownone=True)
    key = StringProperty("")
    text = StringProperty("")


class SetupRow(BoxLayout):
    """One line of the setup checklist: a token to place (flagged when its track is empty)."""
    screen = ObjectProperty(None, allownone=True)
    key = StringProperty("")
    text = StringProperty("")
    empty = BooleanProperty(False)


class SyncRow(BoxLayout):
    """One table-vs-app line: a token to move, or a mismatch with its two choices."""
    screen = ObjectProperty(None, allownone=True)
    lane = StringProperty("")
    kind = StringProperty("move")
    text = StringProperty("")
    table_text = StringProperty("")


def stepper_markup(flow, step, view) -> str:
    """The current phase's steps with the current one highlighted; other phases by name."""
    phase = flow.phase(step)
    parts = []
    for ph in flow.phases:
        if ph["id"] != phase:
            parts.append(f"[color=777777]{view.phase_label(ph['id'])}[/color]")
            continue
        for st in ph["steps"]:
            if st in flow.auto:
                continue
            parts.append(f"[b][color=ffd54f]{view.step_label(st)}[/color][/b]" if st == step else view.step_label(st))
    if phase == "setup":
        parts.insert(0, f"[b][color=ffd54f]{view.step_label(step)}[/color][/b]")
    return "  >  ".join(parts)


PORTRAIT_WIDTH = 700  # dp: narrower than this (a phone in portrait), one column with a Now tab


BOARD_COLOURS = {"paired": "8be28b", "searching": "ffd54f", "disconnected": "ff8a80",
                 "refused": "ff8a80", "manual": "aaaaaa"}


class PlayerPanel(BoxLayout):
    """One seat on the dashboard: name in its colour, then the lines the game's view gives."""
    seat = StringProperty("p1")
    title = StringProperty("")
    colour = ListProperty([0.5, 0.5, 0.5, 1])
    active = BooleanProperty(False)
    body_text = StringProperty("")
    small_text = StringProperty("")

    def update(self, p: dict, active: bool):
        self.title = f"{p['name']}  ({p['colour']})"
        self.colour = list(rgba(p["colour"]))
        self.active = active
        body, small = [], []
        for line in p.get("lines", ()):
            label, text = line[0], line[1]
            style = line[2] if len(line) > 2 else ""
            head = f"[color=aaaaaa]{label}[/color]" if label else ""
            out = (head + ("\n" if style == "block" else "  ") if head else "") + text
            (small if style == "small" else body).append(out)
        self.body_text = "\n".join(body)
        self.small_text = "\n".join(small)


# ------------------------------------------------------------------------------ screens
class WellThrowButton(Button):
    """Throws a die into one of the virtual board's wells (GameScreen.throw_well)."""
    well = NumericProperty(0)


class GameScreen(Screen):
    ctrl = ObjectProperty(None, allownone=True)
    header = StringProperty("")
    prompt = StringProperty("")
    message = StringProperty("")
    error = BooleanProperty(False)
    pending_text = StringProperty("")
    log_text = StringProperty("")
    log_page = NumericProperty(0)   # the Log's page shown, 0 the newest (LOG_PAGE entries a page)
    log_pages = NumericProperty(1)
    can_undo = BooleanProperty(False)
    awaiting_dice = BooleanProperty(False)
    over = BooleanProperty(False)
    wide = BooleanProperty(True)
    pending = ObjectProperty(None, allownone=True)
    end_step_text = StringProperty("")  # the pinned "done with this step" button ("" = none now)

    stepper_text = StringProperty("")
    help_text = StringProperty("")
    show_help = BooleanProperty(False)
    board_line = StringProperty("")
    dice_hint = StringProperty("")
    dice_prompt = StringProperty("")   # "Ana: Event roll, 2 dice" while a roll is awaited
    dice_count = NumericProperty(0)    # dice of the touch entry (0: none shown)
    roll_result_text = StringProperty("")  # the last roll and what it did, until OK is tapped
    app_turn_text = StringProperty("")     # the app's turn for its seats, whole, until OK or the next player acts
    card_text = StringProperty("")         # what just happened (the roll, the app's turn): the card atop Now
    left_view = StringProperty("players")
    portrait = BooleanProperty(False)   # one column with tabs (a phone), else two columns
    bar_hint = StringProperty("")       # the confirm bar's words while nothing waits for Confirm
    chance_button_text = StringProperty("Roll virtual dice")
    well_throws = NumericProperty(0)    # throw buttons for the virtual board's wells (0: none shown)
    show_all = BooleanProperty(False)   # the manual list of every legal action is open
    all_count = NumericProperty(0)      # how many legal actions that list holds
    all_pages = NumericProperty(1)
    _sync = None       # TableSync of the open game
    _feeder = None     # DiceFeeder
    _thinking_for = None       # the bot's seat whose move is being searched aside
    _thinking_position = None  # the state that search is for
    _thinking_note = None      # the message said to a tap while the app thinks (goes with the move)
    _app_turn_ack = None       # the seq of the app's last move whose card was OKed
    _board_state = "manual"
    _panel = None
    _panel_key = None
    _binding_key = None   # (game, sensor map) the TableSync was bound for
    _unbound_said = None  # ... and for which the counters kept on the tablet were named
    _dice = None          # the roll awaited at the last refresh (controller.dice_request)
    _pending_from = None  # what made the pending decision: picker, panel, list, dice, end, undo, correction
    _pending_label = None
    _series = ()          # the rest of a form's actions, applied after the pending one by Confirm
    _seen = None  # (round, over) at the last refresh
    _auto_tab = False       # a game view is shown because its step began
    _auto_tab_done = False  # ... once per such step (the player may switch away)

    def on_roll_result_text(self, *_):
        self.card_text = "\n\n".join(t for t in (self.roll_result_text, self.app_turn_text) if t)

    on_app_turn_text = on_roll_result_text

    def on_kv_post(self, base_widget):
        now = self.ids.now_panel.__self__
        self.ids.update({k: v for k, v in now.ids.items()})  # one set of ids for the whole screen
        # ids are weak references: keep the swapped-out views alive
        self._views = {"players": self.ids.players_view.__self__, "log": self.ids.log_view.__self__,
                       "now": now}
        self.ids.left_holder.remove_widget(self._views["log"])  # shown by the Log toggle
        self._moment = None    # (journal length, step, actor): a new one is a new decision
        self._decision = None  # the Decision the pickers are building
        self._all_page = 0
        self.bind(size=lambda *_: self._apply_layout())
        self.tabs = {}          # key -> the game's tab widget, made when first shown
        self.tab_buttons = {}   # key -> its LeftTab
        self.player_panels = {}

    def set_controller(self, ctrl):
        """Open a game: everything bound to the previous one is reset (panel, pickers, roll card,
        table list, notices, scroll positions, left view), then drawn from this game alone."""
        step_panels.ensure_layouts(ctrl.module)
        self._apply_layout()
        self._forget_game()
        self.ctrl = ctrl
        self._seen = (None, ctrl.game.is_over(ctrl.state))
        self._build_players(ctrl)
        self._build_tabs(ctrl)
        self._todo = TableTodo(ctrl.path)
        notes = list(getattr(ctrl.journal, "notes", ()) or ())
        if notes:  # what opening the save did first (a stray journal set aside), said once
            self.message, self.error = " ".join(notes), False
        if self._todo.problem:
            self.message, self.error = self._todo.problem[0].upper() + self._todo.problem[1:] + ".", True
        self._start_setup_checklist(ctrl)
        board = App.get_running_app().board
        # this screen may have been built after the board's last event
        self._show_board_line(board, self._board_status(board))
        self._bind_table(board)
        ctrl.subscribe(lambda c: self.refresh())
        self.refresh()

    @property
    def sync(self):
        """The open game's TableSync (None: no game, or a game with nothing on the board)."""
        return self._sync if self.ctrl is not None else None

    def _build_players(self, ctrl):
        grid = self.ids.players_grid
        grid.clear_widgets()
        self.player_panels = {}
        for seat in ctrl.seats():
            self.player_panels[seat] = PlayerPanel(seat=seat)
            grid.add_widget(self.player_panels[seat])

    def _build_tabs(self, ctrl):
        """Players, the game's own views (GameModule.tabs), Log; Now first on a phone."""
        bar = self.ids.tab_bar
        bar.clear_widgets()
        self.tabs, self.tab_buttons = {}, {}
        first = "now" if self.portrait else "players"
        keys = ([("now", "Now")] if self.portrait else []) + [("players", "Players")] + [
            (k, t) for k, t, _ in ctrl.module.tabs] + [("log", "Log")]
        for key, title in keys:
            b = LeftTab(key=key, text=title, group="left_view", allow_no_selection=False,
                        state="down" if key == first else "normal")
            b.bind(on_release=lambda btn: self.show_left(btn.key))
            self.tab_buttons[key] = b
            bar.add_widget(b)
        self.show_left(first)

    def _size_columns(self):
        """Landscape: a map or another view of the game gets the wider column, the players and
        the log the narrower one; portrait: one column."""
        left, holder = self.ids.left_column, self.ids.now_holder
        if self.portrait:
            left.size_hint_x = 1
            return
        share = 0.58 if self.left_view in self.tabs else 0.45
        left.size_hint_x, holder.size_hint_x = share, 1 - share

    def _apply_layout(self):
        """Two columns on a tablet in landscape; one column with a Now tab on a phone. Re-laid
        out when the window is resized or rotated, mid-decision included (nothing is lost: the
        pending decision and the picks stay)."""
        portrait = self.width < dp(PORTRAIT_WIDTH) or self.height > self.width * 1.15
        self.wide = self.width >= dp(1100)
        if portrait == self.portrait and self.ids.now_panel.parent is not None:
            return
        self.portrait = portrait
        now = self._views["now"]
        if now.parent is not None:
            now.parent.remove_widget(now)
        holder = self.ids.now_holder
        if portrait:
            holder.size_hint_x, holder.width, holder.opacity = None, 0, 0
        else:
            holder.opacity = 1
            holder.add_widget(now)
        self._size_columns()
        if self.ctrl is not None:
            was = self.left_view
            self._build_tabs(self.ctrl)
            if was not in ("now", "players") and was in self.tab_buttons:
                self.show_left(was)  # a view of the game or the log stays; else the decision first
        elif not portrait and self.left_view == "now":
            self.left_view = "players"

    # -------------------------------------------------------------- left side: players / game views / log
    def show_left(self, which):
        """Swap the left column between the player panels, a view of the game and the log."""
        holder = self.ids.left_holder
        holder.clear_widgets()
        if which == "now" and not self.portrait:
            which = "players"  # the now column stands beside the tabs in landscape
        if which in ("log", "players", "now"):
            holder.add_widget(self._views[which])
        else:
            if which not in self.tabs:
                self.tabs[which] = step_panels.make_tab(self.ctrl, which)
            holder.add_widget(self.tabs[which])
            if self.ctrl is not None:
                self.tabs[which].update(self, self.ctrl, self.ctrl.snapshot())
        self.left_view = which
        self._size_columns()
        for key, b in self.tab_buttons.items():
            b.state = "down" if key == which else "normal"
        self._auto_tab = False

    # -------------------------------------------------------------- step panel
    def _update_step_panel(self, snap):
        key = step_panels.panel_key(self.ctrl, snap)
        area = self.ids.step_area
        if key != self._panel_key:
            area.clear_widgets()
            self._panel = step_panels.make_panel(self.ctrl, key)
            self._panel_key = key
            if self._panel is not None:
                area.add_widget(self._panel)
        if self._panel is not None:
            self._panel.update(self, self.ctrl, snap)
        # a step the game plays on one of its views (CivMint's Move on the map): switch there,
        # and back afterwards if we switched
        tab = self.ctrl.module.tab_for_step.get(snap["step"])
        playing = tab is not None and snap["actor"] not in (None, "system") and not snap["over"]
        if playing and self.left_view != tab and not self._auto_tab_done:
            self.show_left(tab)
            self._auto_tab = self._auto_tab_done = True
        elif not playing:
            self._auto_tab_done = False
            if self._auto_tab:
                self.show_left("now" if self.portrait else "players")
        if self.left_view in self.tabs:
            self.tabs[self.left_view].update(self, self.ctrl, snap)

    def _round_and_end(self, snap):
        """Round end summary card when the round number moves on; the Game End screen once."""
        seen = self._seen
        self._seen = (snap["round"], snap["over"])
        if seen is None:
            return
        if (seen[0] is not None and seen[0] >= 1 and snap["round"] is not None and snap["round"] > seen[0]
                and not snap["over"]):  # a round of play ended (not the set-up's round 0)
            from .summary import RoundSummaryCard

            area = self.ids.notice_area
            area.clear_widgets()
            area.add_widget(RoundSummaryCard(screen=self, ctrl=self.ctrl, ended_round=seen[0]))
        if snap["over"] and not seen[1]:
            App.get_running_app().go("game_end")

    # -------------------------------------------------------------- the board (UI thread)
    def on_board_events(self, board, events):
        """Called by the app with each batch of board events (already on the UI thread, after
        the board itself took them in, so `board.lanes()` is the table as of this batch)."""
        self._bind_table(board)  # a new board or map: bind again; a board seen: say once what it cannot hold
        st = self._board_status(board)
        sync = self._sync
        for ev in events:
            t = ev.get("type")
            if t == "STATE" and ev.get("state") == "refused":
                self._feeder.forget()
                if sync is not None:
                    sync.clear_table()
            elif t == "STATE" and ev.get("state") != "paired":
                # the link resumes exactly on reconnect (missed changes are re-sent, a reset
                # sends a snapshot), so the last sensed table stays; dice in the wells do not
                self._feeder.forget()
            elif t == "TABLE":
                for w in ev["wells"]:
                    self._feeder.seen(w["well"], w["state"], w["value"], w["roll"], initial=True)
                if sync is not None:
                    table = self._sensed_table(board)
                    if not sync.table:  # the first report for this game
                        sync.start(self.ctrl.state, table)
                    else:
                        ids = board.smap.lane_ids
                        sync.table_snapshot(table, {ids[i] for i in ev["changed"]})
            elif t == "TRACK_CHANGE" and sync is not None:
                sync.table_changed(ev["lane_id"], board.lanes().get(ev["lane_id"]))
            elif t == "DICE":
                self._feeder.seen(ev["well"], ev["state"], ev["value"], ev["roll"])
                if self._dice is None and self.ctrl is not None and self._feeder.drop_unasked(ev["well"]):
                    self.message, self.error = (f"No roll is asked now: the die in well {ev['well'] + 1} is not used. "
                                                "Throw it again when the app asks for a roll."), False
        self._show_board_line(board, st)
        if self.ctrl is not None and sync is not None:
            self._render_sync()
            self._try_board_dice()
        self._update_well_throws()

    def _board_status(self, board) -> dict:
        st = board.status()
        self._board_state = st["state"] if board.mode != "manual" else "manual"
        return st

    def _bind_table(self, board):
        """Put the open game's counters on the board's lanes (the sensing binding) and start
        comparing; say once which counters the board cannot hold. Cheap when nothing changed."""
        ctrl = self.ctrl
        sensing = ctrl.module.sensing if ctrl is not None else None
        if self._feeder is None:
            self._feeder = DiceFeeder(sensing.rolls if sensing is not None else ())
        if sensing is None:
            self.close_table()
            return
        smap = board.smap if getattr(board, "smap", None) is not None else _app_map()
        key = (ctrl.path, getattr(smap, "hash_hex", None))
        if self._binding_key != key or self._sync is None:
            self.close_table()
            self._binding_key = key
            binding = Binding.bind(sensing.counters(ctrl.setup), lanes_of(smap))
            self._sync = TableSync(sensing, binding, seat_label=lambda seat: ctrl.colour(seat).capitalize(),
                                   seat_name=ctrl.name)
            self._sync.start(ctrl.state, self._sensed_table(board))
        if board.mode != "manual" and self._unbound_said != key:
            self._unbound_said = key  # once per game and board, not on every action
            note = self._sync.binding.unbound_text(ctrl.name)
            if note:
                self.message, self.error = note, False

    def clear_game(self):
        """The game was left: nothing of it stays on this screen for the next one."""
        self._forget_game()
        self.ctrl = None

    def _forget_game(self):
        """Everything bound to the open game: the table comparison ends (its lights go out), the
        panel, pickers, pending choice, roll card, notices, lists and scroll positions go."""
        self.close_table()
        self._feeder = self._unbound_said = None
        self._thinking_for = self._thinking_position = None  # a search still running is ignored
        self.pending, self.pending_text, self._pending_from = None, "", None
        self.message, self.error = "", False
        self.roll_result_text = self.dice_hint = self.app_turn_text = ""
        self._app_turn_ack = self._thinking_note = None
        self.show_help = self.show_all = False
        self._moment = self._decision = self._todo_shown = None
        self._panel, self._panel_key = None, "-"  # a new panel for the next game
        self._auto_tab = self._auto_tab_done = False
        for area in ("step_area", "notice_area", "action_grid", "table_area", "todo_area"):
            self.ids[area].clear_widgets()
        self.ids.picker.clear()
        self.ids.now_scroll.scroll_y = self.ids.players_view.scroll_y = 1

    def close_table(self):
        """The game's table comparison ends (another game, another board, the game left): its
        pending moves are no longer wanted, so their guidance lights go out."""
        if self._sync is not None:
            self._sync.close()
        self._sync = self._binding_key = None

    @staticmethod
    def _sensed_table(board) -> dict:
        """lane -> sensed position (None: no single token) for every lane the board reported."""
        single = board.lanes()
        return {lane: single.get(lane) for lane in board.sensed_positions()}

    @staticmethod
    def _setting(key):
        return App.get_running_app().settings[key]

    def _show_board_line(self, board, st):
        state = self._board_state
        colour = BOARD_COLOURS.get(state, "aaaaaa")
        if state == "manual":
            text = "No board: enter rolls and moves by touch"
        elif state == "paired":
            text = f"{board.mode.capitalize()} board connected"
        elif state == "refused":
            text = "Board refused (see Board screen); play continues by touch"
        elif state == "disconnected":
            text = "Board disconnected: play continues by touch; the table is checked on reconnect"
        else:
            text = "Looking for the board... play continues by touch"
        self.board_line = f"[color={colour}]{text}[/color]"

    TODO_SHOWN = 6
    SETUP_SHOWN = 3  # the setup checklist is long (every token): a few lines and "All placed"

    def _todo_items(self):
        """Open "do this at the table" items, less the cubes a paired board senses (TableSync's
        own rows tick those off by themselves)."""
        todo = getattr(self, "_todo", None)
        if todo is None or self.ctrl is None:
            return []
        sync = self._sync
        sensed = (sync is not None and self._board_state == "paired" and self._setting("table_checks"))
        return [it for it in todo.items(self.ctrl.history.entries)
                if not (sensed and ((it["lane"] and sync.binding.counter_of(it["lane"]) is not None)
                                    or (it["counter"] and it["counter"] in sync.binding.lane_of)))]

    def _start_setup_checklist(self, ctrl):
        """A game with no player decision yet (rolls only) and no table list kept: ask the
        players to place every counter where the game starts it."""
        sensing = ctrl.module.sensing
        if self._todo.kept or sensing is None:
            return
        items = setup_checklist(sensing, ctrl.setup, ctrl.state, ctrl.name, ctrl.colour)
        if not items or not all(ctrl.game.is_chance(a) for a, _ in ctrl.session.history):
            return  # nothing to place, or a game already under way (read only then)
        try:
            self._todo.start_setup(items)
        except OSError as exc:
            self.message, self.error = f"Could not keep the setup checklist ({exc}); the game is saved.", True

    def _setup_rows(self) -> list:
        """Open setup items as rows: {key, text, empty}. On a lane the paired board senses, the
        token seen where the game has it ticks the item; no token seen flags the track; a token
        elsewhere is TableSync's move row (not listed twice)."""
        todo = getattr(self, "_todo", None)
        if todo is None or self.ctrl is None:
            return []
        sync = self._sync
        sensed = sync is not None and self._board_state == "paired" and self._setting("table_checks")
        rows, ticked = [], []
        for it in todo.setup_items():
            lane = sync.binding.lane_of.get(it["counter"]) if sensed else None
            if lane is not None and lane in sync.table:
                pos = sync.table[lane]
                if pos is None:
                    head, _, rest = it["text"].partition(": ")
                    rows.append({"key": it["key"], "empty": True,
                                 "text": f"{head}: {rest.rstrip('.')}; not seen on the board yet."})
                elif pos == sync.engine.get(lane):
                    ticked.append(it["key"])
                continue
            rows.append({"key": it["key"], "text": it["text"], "empty": False})
        if ticked:
            try:
                todo.mark_done(ticked)
            except OSError:
                pass  # shown again next time; the board will tick them again
        return rows

    def _render_todo(self):
        setup = self._setup_rows()
        setup.sort(key=lambda it: not it["empty"])  # an empty track first
        items = self._todo_items()
        shown = ([(it["key"], it["text"], it["empty"]) for it in setup[:self.SETUP_SHOWN]], len(setup),
                 [(it["key"], it["text"]) for it in items[:self.TODO_SHOWN]], len(items))
        if shown == getattr(self, "_todo_shown", None) and self.ids.todo_area.children:
            return  # unchanged: a board event must not replace a button under a finger
        self._todo_shown = shown
        area = self.ids.todo_area
        area.clear_widgets()
        for it in setup[:self.SETUP_SHOWN]:
            area.add_widget(SetupRow(screen=self, key=it["key"], text=it["text"], empty=it["empty"]))
        if len(setup) > 1:
            keys = [x["key"] for x in setup]
            b = Button(text=f"All placed: {len(setup)} tokens" + (f" ({len(setup) - self.SETUP_SHOWN} more not shown)"
                                                                  if len(setup) > self.SETUP_SHOWN else ""),
                       size_hint_y=None, height=dp(48), font_size="15sp")
            b.bind(on_release=lambda *_: self.todo_done(keys))
            area.add_widget(b)
        for it in items[:self.TODO_SHOWN]:
            area.add_widget(TodoRow(screen=self, key=it["key"], text=it["text"]))
        if len(items) > 1:
            more = f"{len(items) - self.TODO_SHOWN} more below; " if len(items) > self.TODO_SHOWN else ""
            b = Button(text=f"{more}All {len(items)} done at the table", size_hint_y=None, height=dp(48),
                       font_size="15sp")
            b.bind(on_release=lambda *_: self.todo_done([x["key"] for x in items[:self.TODO_SHOWN]]
                                                         if len(items) > self.TODO_SHOWN else
                                                         [x["key"] for x in items]))
            area.add_widget(b)

    def todo_done(self, keys):
        try:
            self._todo.mark_done(keys)
        except OSError as exc:
            self.message, self.error = f"Could not keep the table list ({exc}); the game is saved.", True
        self._render_sync()

    def _render_sync(self):
        area = self.ids.table_area
        area.clear_widgets()
        self._render_todo()
        sync = self._sync
        if sync is None or not self._setting("table_checks"):
            return
        confirmed = sync.take_confirmed()
        items = sync.items()
        if confirmed:
            self.message = "Board confirms: " + "; ".join(sync.confirmation_text(l) for l in confirmed)
            self.error = False
        for it in items[:5]:
            area.add_widget(SyncRow(screen=self, lane=it["lane"], kind=it["kind"], text=it["text"],
                                    table_text=it["table_text"] or ""))
        if len(items) > 5:
            area.add_widget(Label(text=f"... and {len(items) - 5} more token(s) to check on the table",
                                  size_hint_y=None, height=dp(28), font_size="14sp"))

    def fix_table(self, lane):
        self._sync.fix_table(lane)
        self._render_sync()

    def accept_reading(self, lane):
        """"Keep" the board's value: a correction, applied only after the players confirm it
        (Confirm dispatches it with source "ui", so the log marks it a manual correction)."""
        try:
            action = self._sync.accept(lane)
        except ValueError as exc:
            self.message, self.error = str(exc), True
            return
        self._mark_selected(None)
        self.pending, self._pending_from, self._pending_label = action, "correction", None
        self.pending_text = ("Confirm correction: " + self.ctrl.action_label(action)
                             + ". The game takes the table's value (no gains or costs); Undo reverts it.")
        self.message = ""

    def _try_board_dice(self):
        """A roll is awaited and the wells hold fresh settled dice: use them (source "board")."""
        c = self.ctrl
        if (c is None or self._feeder is None or self._board_state != "paired" or self._dice is None
                or not self._setting("board_dice")):
            self.dice_hint = ""
            return
        sensing = c.module.sensing
        usable = sensing.dice_usable(c.state, self._dice["action"]) if sensing is not None else 1
        action, hint = self._feeder.propose(self._dice["action"], usable)
        if action is not None and self.pending is not None:
            self.dice_hint = "The dice wait in the wells: first tap Confirm or Cancel below."
            return
        self.dice_hint = hint
        if action is not None:
            self._feeder.used(action)
            self.submit(action, "board", label="dice from the board: " + c.action_label(action))

    def submit(self, action, source="ui", label=None, sensed=None) -> bool:
        """A panel, the map or the dice entry chose `action`. The players' choice ("ui") waits
        for Confirm like every decision (True: it is the pending decision now); a roll from the
        board, or a photo's values the table confirmed (gui/photo_dice.py, `sensed`: how it was
        read, journaled beside it), is applied at once (True: done)."""
        if source != "ui":
            return self._run(lambda: self.ctrl.dispatch(action, source, sensed), label)
        return self.propose(action, label)

    def propose(self, action, label=None, origin="panel") -> bool:
        """Make `action` the decision waiting for Confirm (the engine checks it first: a choice
        that is no longer legal, say from a control a newer decision replaced, is refused in
        words and nothing changes). A newer choice replaces the one waiting."""
        if self.ctrl is None or self.over:
            return False
        if self._thinking_for:
            self._thinking_note = f"The app is choosing {self.ctrl.name(self._thinking_for)}'s move: a moment."
            self.message, self.error = self._thinking_note, True
            return False
        if self._pending_from in ("undo", "correction"):
            # an undo or a correction is answered first: a tap elsewhere must not replace it unseen
            self.message, self.error = "First tap Confirm or Cancel below; nothing else was done.", True
            return False
        why = self.ctrl.check(action)
        if why:
            self.message, self.error = f"Not possible now: {why}", True
            return False
        self.pending, self._pending_from = action, origin
        self._pending_label, self._series = label, ()
        self.pending_text = "Confirm: " + (label or self.ctrl.action_label(action))
        self.message = ""
        self._mark_selected(action)
        return True

    def submit_series(self, actions, label=None) -> bool:
        """Several actions from one form (a player's dice), applied in order by one Confirm."""
        actions = list(actions)
        if not actions or not self.propose(actions[0], label):
            return False
        self._series = actions[1:]
        return True

    def withdraw(self):
        """A panel's choice is no longer complete: it no longer waits for Confirm."""
        if self._pending_from == "panel":
            self.pending, self.pending_text, self._pending_from = None, "", None
            self._mark_selected(None)

    def _mark_selected(self, action):
        for b in list(self.ids.action_grid.children) + list(self.ids.step_area.walk(restrict=True)):
            if hasattr(b, "selected") and hasattr(b, "action"):
                b.selected = action is not None and b.action == action

    def refresh(self):
        c = self.ctrl
        if c is None:
            return
        snap = c.snapshot()
        self.over = snap["over"]
        actor = snap["actor"]
        view = c.view
        moment = (c.path, len(c.journal), snap["step"], actor, self.over)
        new = moment != self._moment
        self._moment = moment
        self.header = view.header(c.game, c.state, c.setup)
        acting = actor if actor in self.player_panels else view.roll_owner(c.state)  # a roll: its thrower
        for seat, panel in self.player_panels.items():
            panel.update(snap["players"][seat], active=(acting == seat))
        self.awaiting_dice = c.awaiting_dice()
        self.can_undo = c.can_undo()
        self._dice = dice = c.dice_request()  # every change of state refreshes: valid until the next
        draw = bool(dice) and dice.get("kind") == "draw"
        self.chance_button_text = "Let the app draw" if draw else "Roll virtual dice"
        self.dice_prompt = "" if (not dice or draw) else dice_words(dice, c.name)
        self.dice_count = dice["count"] if dice and not draw and dice["spec"] is not None and dice["count"] <= 2 else 0
        turn = c.bot_turn() if c.think_aside else None
        self._thinking_for = turn[0] if turn else None
        if turn:  # a bot's seat is to act: it thinks aside, the screen stays live; the game's
            # prompt speaks to that seat's player, so the table is told to wait instead
            self.prompt = (f"[b]The app is choosing {c.name(turn[0])}'s move...[/b]\n"
                           "Wait a moment: the app then says what to do at the table.")
            self._think_aside(c, turn)
        else:
            self.prompt = view.prompt(c.game, c.state, c.setup, dice)
        if not turn and self._thinking_note and self.message == self._thinking_note:
            self.message, self.error = "", False  # the app's move is made: its "a moment" goes
        # what the app's bots did for their seats, the turn whole (a game words its own AI's moves)
        self.app_turn_text = self._app_turn_words(c, turn) if c.setup.get("app_players") else ""
        self.stepper_text = stepper_markup(c.game.flow, snap["step"], view)
        self.help_text = c.step_help(snap["step"]) if not snap["over"] else ""
        if new:
            self.ids.now_scroll.scroll_y = 1  # a new decision: its prompt first
            self.show_all, self._all_page = False, 0
        self._fill_actions(snap, new)
        if snap.get("app_problem"):  # the app could not play a seat: the players choose by hand
            self.message, self.error = snap["app_problem"], True
        # helpers of the dashboard: a bug in one must not stop the game (the action is saved)
        for part in (self._update_step_panel, self._round_and_end):
            try:
                part(snap)
            except Exception as exc:  # noqa: BLE001
                Logger.exception(f"dashboard: {part.__name__} failed")
                self.message, self.error = f"Display problem ({exc.__class__.__name__}: {exc}); the game is saved.", True
        if self.dice_count and self._panel_enters_dice():
            self.dice_count = 0  # the step's panel has its own entry for this roll: one entry shown
        if self._sync is not None:
            self._sync.engine_changed(c.state)
        self._render_sync()
        self._try_board_dice()
        self._update_well_throws()
        self.show_log_page(0)

    LOG_PAGE = 40  # Log entries a page: only the page shown is put in words

    def show_log_page(self, page: int):
        """Show the Log's `page` (0: the newest entries); a new decision shows page 0 again."""
        if self.ctrl is None:
            return
        history = self.ctrl.history
        n = len(history.entries)
        self.log_pages = max(1, -(-n // self.LOG_PAGE))
        page = max(0, min(int(page), self.log_pages - 1))
        turned, self.log_page = page != self.log_page, page
        text = history.text(limit=self.LOG_PAGE, skip=page * self.LOG_PAGE)
        if self.log_pages > 1:
            last = min(n, (page + 1) * self.LOG_PAGE)
            text += f"\n[color=aaaaaa]Entries {n - last + 1}-{n - page * self.LOG_PAGE} of {n}, newest first.[/color]"
        self.log_text = text
        if turned:
            self.ids.log_view.scroll_y = 1  # a page turned: its newest entry first

    APP_TURN_SHOWN = 6  # moves listed on the card; the Log has every one

    def _app_turn_words(self, c, thinking) -> str:
        """The app's moves since the latest other action (its bots' turn), each with what it
        changed, then what the table must do for them; "" once OK was tapped for them."""
        from kivy.utils import escape_markup as esc

        turn = []
        for e in reversed(c.history.entries):
            if e.source != "app" or e.undone or e.undo_of is not None:
                break
            turn.append(e)
        turn.reverse()
        if not turn or turn[-1].seq == self._app_turn_ack:
            return ""
        names = []
        for e in turn:
            name = c.name(e.actor) if e.actor else None
            if name and name not in names:
                names.append(name)
        who = " and ".join(names) or "its seats"
        n = len(turn)
        moves = f"{n} move{'s' if n != 1 else ''}"
        head = (f"[b]The app is playing {who}'s turn[/b] ({moves} so far)" if thinking else
                f"[b]The app played {who}'s turn[/b] ({moves})")
        lines = [head]
        # what changed: a move that only ended a step changed nothing at the table
        changed = [e for e in turn if e.action.get("type") != "end_step" or e.effects or e.table]
        for e in changed[:self.APP_TURN_SHOWN]:
            lines.append("- " + esc(e.text))
            lines += ["    " + esc(x) for x in e.effects[:3]]
        if len(changed) > self.APP_TURN_SHOWN:
            lines.append(f"... and {len(changed) - self.APP_TURN_SHOWN} more (each one in the Log)")
        seqs = {e.seq for e in turn}
        todo = getattr(self, "_todo", None)
        table = [it["text"] for it in todo.items(c.history.entries) if it["seq"] in seqs] if todo else []
        if table:
            lines.append("[b]At the table:[/b]")
            lines += ["- " + esc(t) for t in table[:self.APP_TURN_SHOWN]]
            if len(table) > self.APP_TURN_SHOWN:
                lines.append(f"... and {len(table) - self.APP_TURN_SHOWN} more in the table list below")
        else:
            lines.append("[b]At the table:[/b] make these moves for " + who + ".")
        return "\n".join(lines)

    def _panel_enters_dice(self) -> bool:
        """The open step panel shows a dice entry of its own now."""
        if self._panel is None:
            return False
        return any(isinstance(w, DiceEntry) and not w.disabled and w.opacity > 0 and w.height > 0
                   for w in self._panel.walk(restrict=True))

    def enter_dice(self, d1, d2=None):
        """The generic dice entry: the awaited roll from the values set by touch (waits for Confirm)."""
        req = self._dice if self.ctrl is not None else None
        if req is None or req["spec"] is None:
            self.message, self.error = "No dice roll is awaited now.", True
            return
        values = [d1] if req["count"] == 1 else [d1, d2]
        try:
            action = req["spec"].action_from(values)
        except ValueError as exc:
            self.message, self.error = str(exc), True
            return
        self.propose(action, label=f"{req['roll']}: " + ", ".join(map(str, values)), origin="dice")

    def _fill_actions(self, snap, new):
        """The decision of this moment: the game's panel or the pickers, the manual list behind
        them, and the pinned bar's "Done with step"."""
        if new:
            self.pending = None
            self.pending_text = ""
            self._pending_from = None
        self._end_step, self.end_step_text = None, ""
        picker = self.ids.picker
        acts = [] if (self.ctrl is None or self.over or self._thinking_for) else self.ctrl.legal_actions()
        self._end_step = next((a for a in acts if a.get("type") == "end_step"), None)
        self.end_step_text = self.ctrl.action_label(self._end_step) if self._end_step else ""
        self.ids.end_step.action = self._end_step  # what the pinned button stands for
        self._choices = [a for a in acts if a is not self._end_step]
        self.all_count = len(self._choices)
        self._fill_all()
        dice = self._dice
        own_panel = step_panels.covers(self.ctrl, snap) if self.ctrl is not None else False
        by_entry = bool(self.dice_count)  # the dice entry (or the wells) answers a roll of 1-2 dice
        if not self._choices or own_panel or by_entry or (dice and dice.get("kind") != "draw" and dice["count"] > 2):
            picker.clear()
            self._decision = None
        elif new or self._decision is None:
            c = self.ctrl
            g, st, su, v = c.game, c.state, c.setup, c.view
            self._decision = Decision(self._choices, c.action_label, lambda t: v.picks(g, t, st, su),
                                      lambda t, f, val: v.value_label(g, st, su, t, f, val), v.type_label,
                                      lambda t, f, typed: v.unavailable_reason(g, st, su, t, f, typed),
                                      prompt=self.prompt, step_end_types=v.step_end_types)
            pickers = {}
            for kind, ref in c.module.pickers.items():
                try:
                    pickers[kind] = step_panels.load(ref)
                except (ImportError, AttributeError) as exc:
                    Logger.warning(f"dashboard: the game's {kind} picker is not available ({exc})")
            picker.show(self._decision, self._picked, self._pick_refused, pickers)
        self._say_bar_hint(dice)

    def _think_aside(self, ctrl, turn):
        """Run a bot's search on a worker thread (once per position); its move is applied back
        on this thread, unless the game has moved on (an undo) or was left meanwhile."""
        seat, position, think = turn
        if self._thinking_position is position:
            return
        self._thinking_position = position

        def work():
            try:
                move, error = think(), None
            except ValueError as exc:  # the bot found no move (BotError): said, chosen by hand
                move, error = None, exc
            except Exception as exc:  # noqa: BLE001 - a bug in a bot must not stop the game
                Logger.exception("dashboard: the bot's search failed")
                move, error = None, ValueError(f"its search failed: {exc}")
            Clock.schedule_once(lambda dt: self._thought(ctrl, seat, position, move, error))
        threading.Thread(target=work, name="bot-search", daemon=True).start()

    def _thought(self, ctrl, seat, position, move, error):
        if self._thinking_position is position:
            self._thinking_position = None
        if ctrl is not self.ctrl:  # the game was left while the app thought
            return
        if not ctrl.play_thought(seat, position, move, error):
            self.refresh()  # stale (an undo came first) or refused: the screen says what now

    def _say_bar_hint(self, dice):
        where = "on Now" if self.portrait else "above"
        if self._thinking_for:
            self.bar_hint = f"The app is choosing {self.ctrl.name(self._thinking_for)}'s move."
        elif self.over:
            self.bar_hint = "The game is over."
        elif dice and dice.get("kind") == "draw":
            self.bar_hint = f"Tap what was drawn {where}, or let the app draw; then Confirm."
        elif dice and self._throwable_wells():
            self.bar_hint = f"Tap Throw {where}, set the dice {where} or roll the virtual dice."
        elif dice:
            self.bar_hint = f"Throw the dice at the table, or set them {where} or roll the virtual dice."
        elif not self._choices and self._end_step is not None:
            self.bar_hint = "Nothing else to do in this step: tap Done with step, then Confirm."
        else:
            self.bar_hint = f"Choose {where}, then Confirm."

    def _picked(self, action):
        """The pickers completed a decision (action) or are not complete (None)."""
        if action is not None:
            self.propose(action, origin="picker")
        elif self._pending_from == "picker":
            self.pending, self.pending_text, self._pending_from = None, "", None

    def _pick_refused(self, why):
        self.message, self.error = why + " Choose again.", True

    def toggle_all(self):
        self.show_all = not self.show_all
        self._all_page = 0
        self._fill_all()

    def turn_all_page(self, delta):
        self._all_page += delta
        self._fill_all()

    def _fill_all(self):
        """The manual list, a screenful at a time (only while it is open)."""
        grid = self.ids.action_grid
        grid.clear_widgets()
        choices = getattr(self, "_choices", [])
        self.all_pages = max(1, -(-len(choices) // PAGE))
        self._all_page = max(0, min(self._all_page, self.all_pages - 1))
        if not self.show_all:
            return
        dice = self.awaiting_dice
        for a in choices[self._all_page * PAGE:(self._all_page + 1) * PAGE]:
            text = self.ctrl.action_label(a)
            if dice and "player" not in a:  # one button per outcome: the values say enough
                text = text.split(":", 1)[-1].strip()
            grid.add_widget(LegalActionButton(action=a, text=text, selected=a == self.pending))

    def select(self, button):
        self.propose(button.action, origin="list")

    def cancel(self):
        self.pending, self._series = None, ()
        self.pending_text = ""
        if self._pending_from == "picker" and self._decision is not None:
            self._decision.back()
            self.ids.picker.show(self._decision, self._picked, self._pick_refused,
                                 self.ids.picker.game_pickers)
        self._pending_from = None
        self._mark_selected(None)
        self._try_board_dice()  # dice that waited for this decision

    UNDO = {"type": "_undo"}  # the pending "undo" (asked first, like any decision)

    def confirm(self):
        if self.pending is None:
            return
        a = self.pending
        if a is self.UNDO:
            self.cancel()
            self._undo_now()
            return
        label = getattr(self, "_pending_label", None)
        series, self._series = self._series, ()
        if not self._run(lambda: self.ctrl.dispatch(a, "ui"), label or self.ctrl.action_label(a)):
            if self.ctrl.check(a) is not None:  # the engine said no: the choice no longer waits
                message = self.message            # (a save error keeps it, to try again)
                self.cancel()
                self.message, self.error = message, True
            return
        for i, b in enumerate(series):  # the rest of a form, each journaled on its own
            if not self._run(lambda b=b: self.ctrl.dispatch(b, "ui"), None):
                self.message = f"Done {i + 1} of {len(series) + 1}; the next was not applied. {self.message}"
                return
        if series:
            self.message, self.error = f"Done: {label or self.ctrl.action_label(a)}", False

    def end_step(self):
        """The bar's "Done with step": asks for Confirm like every decision."""
        if self._end_step is None:
            return
        self.propose(self._end_step, self.end_step_text, origin="end")

    def roll_virtual(self):
        self._run(self.ctrl.roll_virtual, None)

    # -------------------------------------------------------------- the virtual board's wells
    def _throwable_wells(self) -> int:
        """How many of the virtual board's wells the awaited roll reads (0: no throw buttons):
        only with the virtual board paired as the dice source, never with a USB board or touch only."""
        c, board, dice = self.ctrl, App.get_running_app().board, self._dice
        sensing = c.module.sensing if c is not None else None
        if (sensing is None or board.virtual is None or self._board_state != "paired" or not dice
                or dice.get("kind") == "draw" or board.smap is None or not self._setting("board_dice")):
            return 0
        roll = sensing.roll_for(dice["action"])
        wells = board.smap.n_wells
        if roll is None or roll.dice > wells:
            return 0
        usable = sensing.dice_usable(c.state, dice["action"]) if roll.dice == 1 else roll.dice
        return min(wells, max(roll.dice, usable))

    def _update_well_throws(self):
        """A throw button per well the roll reads, beside the dice entry (the table's throw in one tap)."""
        n = self._throwable_wells()
        self.well_throws = n
        box = self.ids.well_throws
        if len(box.children) == n:
            return
        self._say_bar_hint(self._dice)  # the board paired or went: the bar names the way in
        box.clear_widgets()
        for i in range(n):
            text = f"Throw a die into {well_name(i)}" if n == 1 else f"Throw into {well_name(i)}"
            box.add_widget(WellThrowButton(well=i, text=text, on_release=lambda b: self.throw_well(b.well)))

    def throw_well(self, index):
        """Throw a die into the virtual board's well `index`: the board senses it settle and the
        roll arrives through the link like any throw at the table (source "board")."""
        vb = App.get_running_app().board.virtual
        if vb is None or self.ctrl is None:
            return
        try:
            vb.roll(index)
        except (ValueError, KeyError, IndexError) as exc:
            self.message, self.error = str(exc), True
            return
        self.message, self.error = f"A die was thrown into {well_name(index)}: the board reads it when it settles.", False

    def undo(self):
        """Undo asks first and says what it takes back."""
        if self.ctrl is None or not self.can_undo:
            return
        preview = self.ctrl.undo_preview()  # the player's action, then the app's moves after it
        self._mark_selected(None)
        self.pending, self._pending_from, self._pending_label = self.UNDO, "undo", None
        more = len(preview) - 1
        also = (f", and the app's {'move' if more == 1 else f'{more} moves'} after it" if more > 0 else "")
        self.pending_text = ("Undo " + (preview[0] if preview else "the last action") + also
                             + "? The game goes back to just before it; the table must follow.")
        self.message = ""

    def _undo_now(self):
        try:
            a = self.ctrl.undo()
        except (UndoRefused, C.Rejected) as exc:
            self.message, self.error = f"Cannot undo: {exc}", True
            return
        self.message, self.error = f"Undone: {self.ctrl.action_label(a) if a else ''}", False

    def acknowledge_roll(self):
        """OK on the card: the roll and the app's turn shown on it were seen."""
        self.roll_result_text = ""
        if self.app_turn_text and self.ctrl is not None:
            last = next((e for e in reversed(self.ctrl.history.entries) if e.source == "app"), None)
            self._app_turn_ack = last.seq if last is not None else None
        self.app_turn_text = ""

    def _show_roll_result(self, req):
        """Where the roll was asked: who rolled what and what it did (the history entry, fixed
        when it happened), until the players tap OK."""
        entry = self.ctrl.history.entries[-1] if self.ctrl.history.entries else None
        if entry is None:
            return
        who = self.ctrl.name(req["who"]) + ": " if req.get("who") else ""
        lines = [f"[b]{who}{req['roll']}[/b] - {entry.text}"] + list(entry.effects)
        self.roll_result_text = "\n".join(lines)

    def _run(self, fn, label) -> bool:
        req = self._dice  # the roll asked for now, if any: its outcome is shown where it was asked
        try:
            a = fn()
        except C.Rejected as exc:
            self.message, self.error = f"Not allowed: {self.ctrl.refusal_text(exc)}", True
            return False
        except JournalError as exc:
            self.message, self.error = f"Could not save the action (nothing changed): {exc}", True
            return False
        done = label or self.ctrl.action_label(a.to_dict() if hasattr(a, "to_dict") else a)
        self.message, self.error = f"Done: {done}", False
        if req is not None and self.ctrl.game.is_chance(a.to_dict() if hasattr(a, "to_dict") else a):
            try:
                self._show_roll_result(req)
            except Exception:  # noqa: BLE001 - a display helper: the roll is saved
                Logger.exception("dashboard: roll result")
        return True
