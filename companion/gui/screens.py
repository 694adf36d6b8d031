"""Screens of the companion app. Layout is in companion.kv; this module only moves data
between `GameController` (engine + journal) and widgets. No rules logic here."""
from __future__ import annotations

import datetime as _dt

from kivy.app import App
from kivy.logger import Logger
from kivy.metrics import dp
from kivy.properties import (BooleanProperty, ListProperty, NumericProperty,
                             ObjectProperty, StringProperty)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from companion.journal import BrokenJournal, JournalError, UndoRefused
from companion.table_sync import DiceFeeder, TableSync

from . import controller as C
from . import step_panels
from .labels import nice
from .step_panels import step_help

COLOUR_RGBA = {
    "blue": (0.20, 0.45, 0.90, 1), "green": (0.20, 0.70, 0.30, 1), "red": (0.85, 0.20, 0.20, 1),
    "yellow": (0.95, 0.80, 0.15, 1), "purple": (0.60, 0.30, 0.80, 1), "black": (0.15, 0.15, 0.15, 1),
}


def rgba(colour):
    return COLOUR_RGBA.get(colour, (0.5, 0.5, 0.5, 1))


def _local_time(iso: str) -> str:
    try:
        return _dt.datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


# ------------------------------------------------------------------------------ small widgets
class LegalActionButton(Button):
    action = ObjectProperty(None, allownone=True)
    selected = BooleanProperty(False)


class SavedGameRow(BoxLayout):
    path = StringProperty("")
    title = StringProperty("")
    subtitle = StringProperty("")


class BrokenGameRow(BoxLayout):
    path = StringProperty("")
    message = StringProperty("")


class SyncRow(BoxLayout):
    """One table-vs-app line: a token to move, or a mismatch with its two choices."""
    screen = ObjectProperty(None, allownone=True)
    lane = StringProperty("")
    kind = StringProperty("move")
    text = StringProperty("")
    table_text = StringProperty("")


def stepper_markup(flow, step) -> str:
    """The current phase's steps with the current one highlighted; other phases by name."""
    phase = flow.phase(step)
    parts = []
    for ph in flow.phases:
        if ph["id"] != phase:
            parts.append(f"[color=777777]{nice(ph['id'])}[/color]")
            continue
        for st in ph["steps"]:
            if st in flow.auto:
                continue
            parts.append(f"[b][color=ffd54f]{nice(st)}[/color][/b]" if st == step else nice(st))
    if phase == "setup":
        parts.insert(0, f"[b][color=ffd54f]{nice(step)}[/color][/b]")
    return "  >  ".join(parts)


BOARD_COLOURS = {"paired": "8be28b", "searching": "ffd54f", "disconnected": "ff8a80",
                 "refused": "ff8a80", "manual": "aaaaaa"}


class PlayerPanel(BoxLayout):
    seat = StringProperty("p1")
    title = StringProperty("")
    colour = ListProperty([0.5, 0.5, 0.5, 1])
    active = BooleanProperty(False)
    resources_text = StringProperty("")
    tracks_text = StringProperty("")
    aspects_text = StringProperty("")
    bonuses_text = StringProperty("")
    units_text = StringProperty("")
    score_text = StringProperty("")

    def update(self, p: dict, active: bool):
        self.title = f"{p['name']}  ({p['seat']}, {p['colour']})"
        self.colour = list(rgba(p["colour"]))
        self.active = active
        self.resources_text = "   ".join(f"{nice(r)} [b]{v}[/b]" for r, v in p["resources"].items())
        self.tracks_text = "\n".join(
            f"{nice(t)}: [b]{d['name']}[/b] (level {d['level']}, space {d['position']}/{d['top']})"
            for t, d in p["development"].items())
        self.aspects_text = "   ".join(f"{nice(t)} [b]{v}[/b]" for t, v in p["aspects"].items())
        b = p["bonuses"]
        keys = ("research", "taxes", "event_bonus", "supported", "trade_rate", "ship_carry",
                "ship_move", "combat_power_max")
        self.bonuses_text = "   ".join(f"{nice(k)} [b]{b[k]}[/b]" for k in keys if k in b)
        up = ", ".join(f"{n} {nice(r)}" for r, n in p["upkeep"].items()) or "none"
        counts = ", ".join(f"{n} {k}" for k, n in sorted(p["unit_counts"].items()))
        self.units_text = f"{counts}\nUpkeep: {up}\n" + "; ".join(p["units"])
        sc = p["score"]
        self.score_text = f"Score [b]{sc['total']}[/b]  (" + ", ".join(
            f"{nice(k)} {v}" for k, v in sc["items"].items() if v) + ")"


# ------------------------------------------------------------------------------ screens
class HomeScreen(Screen):
    message = StringProperty("")
    games_count = NumericProperty(0)

    def on_pre_enter(self, *a):
        self.refresh()

    def refresh(self):
        app = App.get_running_app()
        if app.settings_problems and not self.message:
            self.message = "Settings: " + "; ".join(app.settings_problems)
        box = self.ids.saved_list
        box.clear_widgets()
        items = C.list_games(app.games_dir)
        self.games_count = len(items)
        for it in items:
            if isinstance(it, BrokenJournal):
                name = it.path.rsplit("/", 1)[-1]
                box.add_widget(BrokenGameRow(path=it.path, message=f"{name}: cannot be resumed - {it.reason}"))
                continue
            pl = it.setup.get("players", {})
            names = " vs ".join(f"{pl[s].get('name', s)} ({pl[s].get('colour', '?')})" for s in sorted(pl))
            rnd = C.summary_round(it)
            rtxt = f"round {rnd}" if rnd is not None else "round ?"
            box.add_widget(SavedGameRow(
                path=it.path, title=names,
                subtitle=f"{_local_time(it.created)}  -  {rtxt}  -  {it.action_count} actions  -  last played {_local_time(it.updated)}"))
        if not items:
            box.add_widget(Label(text="No saved games yet.", size_hint_y=None, height=dp(48),
                                 font_size="16sp", color=(0.7, 0.7, 0.7, 1)))


class GameScreen(Screen):
    ctrl = ObjectProperty(None, allownone=True)
    header = StringProperty("")
    prompt = StringProperty("")
    message = StringProperty("")
    error = BooleanProperty(False)
    pending_text = StringProperty("")
    log_text = StringProperty("")
    can_undo = BooleanProperty(False)
    awaiting_dice = BooleanProperty(False)
    over = BooleanProperty(False)
    wide = BooleanProperty(True)
    pending = ObjectProperty(None, allownone=True)

    stepper_text = StringProperty("")
    help_text = StringProperty("")
    show_help = BooleanProperty(False)
    board_line = StringProperty("")
    dice_hint = StringProperty("")
    left_view = StringProperty("players")
    _sync = None       # TableSync of the open game
    _feeder = None     # DiceFeeder
    _board_state = "manual"
    _panel = None
    _panel_key = None
    _map = None
    _seen = None  # (round, over) at the last refresh
    _auto_map = False       # the map is shown because the Move step began
    _auto_map_done = False  # ... once per Move step (the player may switch away)

    def on_kv_post(self, base_widget):
        # ids are weak references: keep the swapped-out views alive
        self._views = {"players": self.ids.players_view.__self__, "log": self.ids.log_view.__self__}
        self.ids.left_holder.remove_widget(self._views["log"])  # shown by the Log toggle

    def set_controller(self, ctrl):
        self.ctrl = ctrl
        self.pending = None
        self.message = ""
        self._panel_key = "-"  # force a new panel for this game
        self._seen = (None, ctrl.game.is_over(ctrl.state))
        self.ids.notice_area.clear_widgets()
        self._sync = TableSync(seat_label=lambda seat: ctrl.colour(seat).capitalize())
        self._sync.start(ctrl.state, self._sensed_table(App.get_running_app().board))
        ctrl.subscribe(lambda c: self.refresh())
        self.refresh()

    # -------------------------------------------------------------- left side: players / map
    def show_left(self, which):
        """Swap the left column between the player panels and the map view."""
        holder = self.ids.left_holder
        holder.clear_widgets()
        if which == "log":
            holder.add_widget(self._views["log"])
        elif which == "map":
            if self._map is None:
                self._map = step_panels.make_map_view()
            holder.add_widget(self._map)
            if self.ctrl is not None:
                self._map.update(self, self.ctrl, self.ctrl.snapshot())
        else:
            holder.add_widget(self._views["players"])
        self.left_view = which
        self._auto_map = False

    # -------------------------------------------------------------- step panel
    def _update_step_panel(self, snap):
        key = step_panels.panel_key(snap)
        area = self.ids.step_area
        if key != self._panel_key:
            area.clear_widgets()
            self._panel = step_panels.make_panel(key)
            self._panel_key = key
            if self._panel is not None:
                area.add_widget(self._panel)
        if self._panel is not None:
            self._panel.update(self, self.ctrl, snap)
        # the Move step is played on the map: switch there, and back afterwards if we switched
        moving = snap["step"] == "move" and snap["actor"] in ("p1", "p2") and not snap["over"]
        if moving and self.left_view != "map" and not self._auto_map_done:
            self.show_left("map")
            self._auto_map = self._auto_map_done = True
        elif not moving:
            self._auto_map_done = False
            if self._auto_map:
                self.show_left("players")
        if self.left_view == "map" and self._map is not None:
            self._map.update(self, self.ctrl, snap)

    def _round_and_end(self, snap):
        """Round end summary card when the round number moves on; the Game End screen once."""
        seen = self._seen
        self._seen = (snap["round"], snap["over"])
        if seen is None or seen[0] is None:
            return
        if snap["round"] > seen[0] and not snap["over"]:
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
        if self._feeder is None:
            self._feeder = DiceFeeder()
        st = board.status()
        self._board_state = st["state"] if board.mode != "manual" else "manual"
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
        self._show_board_line(board, st)
        if self.ctrl is not None and sync is not None:
            self._render_sync()
            self._try_board_dice()

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

    def _render_sync(self):
        area = self.ids.table_area
        area.clear_widgets()
        sync = self._sync
        if not self._setting("table_checks"):
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
        try:
            action = self._sync.accept(lane)
        except ValueError as exc:
            self.message, self.error = str(exc), True
            return
        self.submit(action, "board")

    def _try_board_dice(self):
        """A roll is awaited and the wells hold fresh settled dice: use them (source "board")."""
        c = self.ctrl
        if (c is None or self._feeder is None or self._board_state != "paired" or not c.awaiting_dice()
                or not self._setting("board_dice")):
            self.dice_hint = ""
            return
        acts = c.legal_actions()
        if not acts:
            return
        action, hint = self._feeder.propose(acts[0]["type"])
        self.dice_hint = hint
        if action is not None:
            self._feeder.used(action)
            self.submit(action, "board", label="dice from the board: " + c.action_label(action))

    def submit(self, action, source="ui", label=None) -> bool:
        """Dispatch an action built by a panel or the map (same path as Confirm). True if done."""
        return self._run(lambda: self.ctrl.dispatch(action, source), label)

    def on_size(self, *a):
        self.wide = self.width >= dp(1100)

    def refresh(self):
        c = self.ctrl
        if c is None:
            return
        snap = c.snapshot()
        self.over = snap["over"]
        actor = snap["actor"]
        who = "the dice" if actor == "system" else (c.name(actor) if actor else "nobody")
        rounds = f"/{snap['max_rounds']}" if snap["max_rounds"] else ""
        self.header = (f"Round {snap['round']}{rounds}   -   {nice(snap['phase'])}: [b]{nice(snap['step'])}[/b]"
                       f"   -   to act: [b]{who}[/b]")
        for seat in ("p1", "p2"):
            self.ids["panel_" + seat].update(snap["players"][seat], active=(actor == seat))
        self.awaiting_dice = c.awaiting_dice()
        self.can_undo = c.can_undo()
        if snap["over"]:
            res = snap["result"]
            w = res["winner"]
            sc = res["score"]
            self.prompt = ("Game over - " + (f"{c.name(w)} wins" if w else "shared victory") +
                           f" ({sc['p1']['total']} : {sc['p2']['total']}, decided by {res['decided_by']}). "
                           + "; ".join(str(r) for r in res["end_reasons"]))
        elif actor == "system":
            self.prompt = "Roll the dice: use the virtual dice, or enter what the real dice show."
        else:
            self.prompt = f"{c.name(actor)}: choose an action for the {nice(snap['step'])} step."
        self.stepper_text = stepper_markup(c.game.flow, snap["step"])
        self.help_text = step_help(snap["step"]) if not snap["over"] else ""
        self._fill_actions()
        # helpers of the dashboard: a bug in one must not stop the game (the action is saved)
        for part in (self._update_step_panel, self._round_and_end):
            try:
                part(snap)
            except Exception as exc:  # noqa: BLE001
                Logger.exception(f"dashboard: {part.__name__} failed")
                self.message, self.error = f"Display problem ({exc.__class__.__name__}: {exc}); the game is saved.", True
        if self._sync is not None:
            self._sync.engine_changed(c.state)
            self._render_sync()
        self._try_board_dice()
        self.log_text = "\n".join(f"#{e['seq']} [{e['source']}] {e['text']}" for e in reversed(c.log(limit=40)))

    def _fill_actions(self):
        grid = self.ids.action_grid
        grid.clear_widgets()
        self.pending = None
        self.pending_text = ""
        if self.ctrl is None or self.over:
            return
        acts = self.ctrl.legal_actions()
        dice = self.awaiting_dice
        grid.cols = 6 if dice and len(acts) > 6 else (3 if dice else 1)
        for a in acts:
            text = self.ctrl.action_label(a)
            if dice and a["type"] != "roll_first_player":
                text = text.split(":", 1)[-1].strip()
            grid.add_widget(LegalActionButton(action=a, text=text))

    def select(self, button):
        for b in self.ids.action_grid.children:
            b.selected = b is button
        self.pending = button.action
        self.pending_text = "Confirm: " + self.ctrl.action_label(button.action)
        self.message = ""

    def cancel(self):
        for b in self.ids.action_grid.children:
            b.selected = False
        self.pending = None
        self.pending_text = ""

    def confirm(self):
        if self.pending is None:
            return
        a = self.pending
        self._run(lambda: self.ctrl.dispatch(a, "ui"), self.ctrl.action_label(a))

    def roll_virtual(self):
        self._run(self.ctrl.roll_virtual, None)

    def undo(self):
        try:
            a = self.ctrl.undo()
        except (UndoRefused, C.Rejected) as exc:
            self.message, self.error = f"Cannot undo: {exc}", True
            return
        self.message, self.error = f"Undone: {self.ctrl.action_label(a) if a else ''}", False

    def _run(self, fn, label) -> bool:
        try:
            a = fn()
        except C.Rejected as exc:
            self.message, self.error = f"Not allowed: {exc.message}", True
            return False
        except JournalError as exc:
            self.message, self.error = f"Could not save the action (nothing changed): {exc}", True
            return False
        done = label or self.ctrl.action_label(a.to_dict() if hasattr(a, "to_dict") else a)
        self.message, self.error = f"Done: {done}", False
        return True
