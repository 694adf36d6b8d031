"""The home screen: new game, board status, settings, and the saved games of every game.
Layout in companion.kv. Imports only what the list needs, so the app starts without loading
the dashboard, the sensing layer or any game it does not list."""
from __future__ import annotations

import bisect
import datetime as _dt

from kivy.app import App
from kivy.clock import Clock
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.utils import escape_markup

from companion.store.journal import BrokenJournal

from companion import controller as C


def _local_time(iso: str) -> str:
    try:
        return _dt.datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


class SavedGameRow(BoxLayout):
    path = StringProperty("")
    title = StringProperty("")
    subtitle = StringProperty("")
    outcome = StringProperty("")  # a finished game: "Ana wins"; "" while it can be played on


class BrokenGameRow(BoxLayout):
    path = StringProperty("")
    message = StringProperty("")


class HomeScreen(Screen):
    message = StringProperty("")
    games_count = NumericProperty(0)

    def on_pre_enter(self, *a):
        self.refresh()

    #: rows built before the first frame (a screenful at 800 px and more); the rest follow, a
    #: batch a frame once a frame has been drawn, so the home screen is usable at once however
    #: many games are saved. Only the first screenful of saves is read before that frame: the
    #: others are read as their rows are added, each put in its place in the list's order.
    FIRST_ROWS = 8
    ROWS_PER_FRAME = 24
    filling = BooleanProperty(False)  # rows are still being added
    _generation = 0  # which refresh the pending batches belong to

    def refresh(self):
        app = App.get_running_app()
        if app.settings_problems and not self.message:
            self.message = "Settings: " + "; ".join(app.settings_problems)
        self._generation += 1
        self.ids.saved_list.clear_widgets()
        self._order = []  # the sort keys of the saved games' rows shown, top first
        files = C.saved_game_files(app.games_dir)
        self.games_count = len(files)
        if not files:
            self.ids.saved_list.add_widget(Label(
                text="No saved games yet.", size_hint_y=None, height=dp(48), font_size="16sp",
                color=(0.7, 0.7, 0.7, 1)))
        todo = [lambda f=f: self._place(C.saved_game(str(f))) for f in files]
        # the notes on game folders this build refused come last: finding them loads every game
        self._add_rows(self._generation, todo[:self.FIRST_ROWS],
                       todo[self.FIRST_ROWS:] + [self._refused_rows])

    def _add_rows(self, generation, now, later):
        if generation != self._generation:
            return  # a newer refresh rebuilt the list
        for make in now:
            make()
        self.filling = bool(later)
        if not later:
            return
        from kivy.core.window import Window

        def after_flip(*_):  # Kivy runs 0-delay callbacks before the frame being drawn
            Window.unbind(on_flip=after_flip)
            Clock.schedule_once(lambda dt: self._add_rows(
                generation, later[:self.ROWS_PER_FRAME], later[self.ROWS_PER_FRAME:]), 0)
        Window.bind(on_flip=after_flip)

    def _place(self, item):
        """Add a saved game's row where the list's order puts it (its file's time only guessed it)."""
        key = C.saved_game_order(item)
        at = bisect.bisect_right(self._order, key)
        self._order.insert(at, key)
        box = self.ids.saved_list
        box.add_widget(self._row(item), index=len(box.children) - at)  # Kivy's index counts from the end

    def _refused_rows(self):
        for why in App.get_running_app().refused_games():
            self.ids.saved_list.add_widget(BrokenGameRow(path="", message=why))

    def _row(self, it):
        if isinstance(it, BrokenJournal):
            name = it.path.rsplit("/", 1)[-1]
            reason = str(it.reason).replace(str(it.path) + ": ", "")  # the name is said once
            return BrokenGameRow(path=it.path, message=f"{name}: cannot be resumed - {reason}")
        summ = it.summary
        setup = summ.setup if isinstance(summ.setup, dict) else {}
        pl = setup.get("players") if isinstance(setup.get("players"), dict) else {}
        names = " vs ".join(f"{pl[s].get('name', s)} ({pl[s].get('colour', '?')})"
                            for s in sorted(pl, key=str) if isinstance(pl[s], dict))
        if it.unavailable:
            name = it.path.rsplit("/", 1)[-1]
            return BrokenGameRow(path=it.path, message=(
                f"{it.title}: {names} ({name}) cannot be resumed - {it.unavailable}."))
        rnd, problem, outcome = C.saved_info(summ)
        if problem:
            name = it.path.rsplit("/", 1)[-1]
            return BrokenGameRow(path=it.path, message=(
                f"{it.title}: {names} ({name}) cannot be resumed - "
                + problem.replace(str(it.path) + ": ", "")))
        rtxt = f"round {rnd}" if rnd is not None else "round ?"
        return SavedGameRow(
            path=it.path, title=escape_markup(f"{it.title}: {names}"), outcome=escape_markup(outcome),
            subtitle=(f"{_local_time(summ.created)}  -  {rtxt}  -  {summ.action_count} action{'s' if summ.action_count != 1 else ''}  -  "
                      f"last played {_local_time(summ.updated)}"))
