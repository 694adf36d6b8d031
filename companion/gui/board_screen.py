"""Board screen: connection state, sensed table, and (issue 5) port picker, versions, self-test,
calibration and the virtual board's controls. Layout in board.kv."""
from __future__ import annotations

from kivy.app import App
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen


class BoardScreen(Screen):
    status_text = StringProperty("")
    lanes_text = StringProperty("")

    def on_pre_enter(self, *a):
        self.refresh()

    def refresh(self):
        app = App.get_running_app()
        st = app.board.status()
        self.status_text = (f"Mode: [b]{st['mode']}[/b]   State: [b]{st['state']}[/b]"
                            + (f"   Port: {st['port']}" if st.get("port") else "") + f"\n{st['detail']}")
        lanes = app.board.lanes()
        lines = []
        ctrl = app.ctrl
        if lanes and ctrl is not None:
            try:
                from companion.games.civmint import reconcile
                diffs = reconcile(ctrl.state, lanes)
                lines.append(f"{len(diffs)} lane(s) differ from the game:" if diffs else "Table matches the game.")
                lines += [f"  {d['lane']}: table {d['table_value']}, game {d['engine_value']}" for d in diffs]
            except Exception as exc:
                lines.append(f"Cannot compare with the game: {exc}")
        if lanes:
            lines += [f"{k}: {v}" for k, v in sorted(lanes.items())]
        wells = app.board.wells()
        lines += [f"{k}: {v}" for k, v in sorted(wells.items(), key=str)]
        self.lanes_text = "\n".join(lines) or "No table data. All input is by touch on the game screen."
