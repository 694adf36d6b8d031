"""Civ Builder's step panels (Kivy; they import only companion.kit): the trade phase with its
4-minute timer, and the meld entry that offers only melds the engine accepts.

The timer is display only: it starts when the panel is built for the trade step and the engine
never reads the clock (register CB-T1). Every action goes through `StepPanel.submit`, the same
validated and journaled path as the dashboard's Confirm; the generic action list stays below."""
from __future__ import annotations

from kivy.clock import Clock
from kivy.properties import NumericProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.label import Label

from companion.kit import StepPanel


class CBLabel(Label):
    pass


class CBButton(Button):
    pass


class CBTradePanel(StepPanel):
    """The trade phase: a 4-minute countdown, who holds the Trade privilege, End trade."""
    remaining = NumericProperty(0)
    timer_text = StringProperty("")
    info = StringProperty("")

    def __init__(self, **kw):
        super().__init__(**kw)
        self._event = None
        self._seconds = None
        self._action = None

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        if self._seconds is None:
            self._seconds = int(snap.get("trade_minutes", 4)) * 60
            self.remaining = self._seconds
            self._event = Clock.schedule_interval(self._tick, 1.0)
        leaders = [snap["players"][x]["name"] for x in snap.get("trade_leaders", ())]
        self.info = (f"Trade for up to {snap.get('trade_minutes', 4)} minutes. "
                     + (f"{' and '.join(leaders)} (highest Trade) may look at any hand." if leaders
                        else "Nobody holds the Trade privilege."))
        actor = snap.get("actor")
        self._action = {"type": "end_trade", "player": actor} if actor else None
        self._show()

    def _tick(self, _dt):
        self.remaining = max(0, self.remaining - 1)
        self._show()
        if self.remaining == 0 and self._event is not None:
            self._event.cancel()
            self._event = None

    def _show(self):
        m, s = divmod(int(self.remaining), 60)
        self.timer_text = f"{m}:{s:02d}" + ("  - time is up: finish the trades" if self.remaining == 0 else "")

    def end_trade(self):
        if self._action is not None:
            self.submit(self._action)

    def on_parent(self, _w, parent):
        if parent is None and self._event is not None:
            self._event.cancel()
            self._event = None


class CBMeldPanel(StepPanel):
    """The cards of the picked meld: counts by kind; the Meld button is enabled only when the
    engine accepts the meld as entered (ctrl.check), and says why not otherwise."""
    cards = NumericProperty(1)
    leader = NumericProperty(0)
    disasters = NumericProperty(0)
    seas = NumericProperty(0)
    title = StringProperty("")
    why = StringProperty("")

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        state = ctrl.state
        self._player, self._attribute = snap.get("actor"), state.meld_attr
        self.title = f"{snap['players'][self._player]['name']}: {str(self._attribute).title()} meld " \
                     f"(hand {snap['players'][self._player]['hand']} cards)"
        self._recheck()

    def action(self) -> dict:
        a = {"type": "meld", "player": self._player, "attribute": self._attribute, "cards": int(self.cards)}
        for k in ("leader", "disasters", "seas"):
            if getattr(self, k):
                a[k] = int(getattr(self, k))
        return a

    def change(self, field, delta):
        setattr(self, field, max(0, int(getattr(self, field)) + delta))
        self._recheck()

    def _recheck(self):
        if self.ctrl is None:
            return
        self.why = self.ctrl.check(self.action()) or ""
        if "ok" in self.ids:
            self.ids.ok.disabled = bool(self.why)

    def meld(self):
        if not self.why:
            self.submit(self.action())
