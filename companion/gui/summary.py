"""Round End summary card and Game End screen (first version: text only). Layout in summary.kv."""
from __future__ import annotations

from kivy.app import App
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen


class RoundSummaryCard(BoxLayout):
    """Shown on the dashboard when a round has ended; OK removes it."""
    screen = ObjectProperty(None, allownone=True)
    ctrl = ObjectProperty(None, allownone=True)
    ended_round = NumericProperty(0)
    text = StringProperty("")

    def on_ctrl(self, *a):
        snap = self.ctrl.snapshot()
        parts = [f"{p['name']}: score {p['score']['total']}" for p in snap["players"].values()]
        self.text = f"Round {self.ended_round} ended.  " + "   ".join(parts)

    def dismiss(self):
        if self.parent is not None:
            self.parent.remove_widget(self)


class GameEndScreen(Screen):
    text = StringProperty("")

    def on_pre_enter(self, *a):
        ctrl = App.get_running_app().ctrl
        if ctrl is None or not ctrl.snapshot()["over"]:
            self.text = "No finished game."
            return
        snap = ctrl.snapshot()
        res = snap["result"]
        w = res["winner"]
        lines = [("Winner: " + ctrl.name(w)) if w else "Shared victory", f"Decided by {res['decided_by']}"]
        for seat, p in snap["players"].items():
            items = ", ".join(f"{k} {v}" for k, v in p["score"]["items"].items())
            lines.append(f"{p['name']}: {p['score']['total']} ({items})")
        lines += [str(r) for r in res["end_reasons"]]
        self.text = "\n".join(lines)
