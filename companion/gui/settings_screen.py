"""Settings screen (layout in settings.kv); values are kept by companion/store/settings.py."""
from __future__ import annotations

from kivy.app import App
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.store import settings as S


class SettingsScreen(Screen):
    board = StringProperty("auto")
    board_dice = BooleanProperty(True)
    table_checks = BooleanProperty(True)
    max_rounds = NumericProperty(0)
    message = StringProperty("")

    def on_pre_enter(self, *a):
        app = App.get_running_app()
        v = app.settings
        self.board, self.board_dice, self.table_checks = v["board"], v["board_dice"], v["table_checks"]
        self.max_rounds = v["max_rounds"]
        self.message = "; ".join(app.settings_problems)

    def step_rounds(self, delta):
        self.max_rounds = max(0, min(200, int(self.max_rounds) + delta))

    def save(self):
        app = App.get_running_app()
        values = {"board": self.board, "board_dice": self.board_dice,
                  "table_checks": self.table_checks, "max_rounds": int(self.max_rounds)}
        try:
            saved = S.save(values)
        except (OSError, ValueError) as exc:
            self.message = f"Not saved: {exc}"
            return
        old_board = app.settings["board"]
        app.settings, app.settings_problems = saved, []
        self.message = "Saved."
        if saved["board"] != old_board:
            app.switch_board(saved["board"])
            self.message = f"Saved. Board: {saved['board']}."
