"""Civilization: The Card Game's step panels (Kivy; they import only companion.kit): the purchase
list with every price and what lowers it, a plot payment in any mix, and the combat helper that
walks the walls, the defenders and the damage. Every action goes through `StepPanel.submit`, the
same validated and journaled path as the dashboard's Confirm; the generic action list stays below."""
from __future__ import annotations

from kivy.properties import NumericProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.label import Label

from companion.kit import StepPanel


class CCLabel(Label):
    pass


class CCButton(Button):
    pass


class CCPurchasePanel(StepPanel):
    """Prices (base - each modifier = price) and a payment for a face-up plot in any mix; the Buy
    button is enabled only when the engine accepts the payment, and says why not otherwise."""
    title = StringProperty("")
    prices = StringProperty("")
    plot = StringProperty("")
    food = NumericProperty(0)
    hammer = NumericProperty(0)
    coin = NumericProperty(0)
    why = StringProperty("")

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        info = snap.get("cc_purchase") or {}
        self._player = info.get("player")
        self._plots = list(info.get("plot_row", ()))
        self.title = info.get("title", "")
        self.prices = "\n".join(snap.get("cc_prices", ()))
        if self.plot not in self._plots:
            self.plot = self._plots[0] if self._plots else ""
        self._recheck()

    def next_plot(self):
        if self._plots:
            i = self._plots.index(self.plot) if self.plot in self._plots else -1
            self.plot = self._plots[(i + 1) % len(self._plots)]
            self._recheck()

    def change(self, field, delta):
        setattr(self, field, max(0, int(getattr(self, field)) + delta))
        self._recheck()

    def action(self) -> dict | None:
        if not self._player or not self.plot:
            return None
        pay = {r: int(getattr(self, r)) for r in ("food", "hammer", "coin") if getattr(self, r)}
        return {"type": "buy_plot", "player": self._player, "card": self.plot, "pay": pay}

    def _recheck(self):
        if self.ctrl is None:
            return
        a = self.action()
        if a is None:
            self.why = "No plot to buy now." if self._player else "Buying waits for the decision below."
        else:
            self.why = self.ctrl.check(a) or ""
        if "buy" in self.ids:
            self.ids.buy.disabled = bool(self.why)

    def buy(self):
        a = self.action()
        if a is not None and not self.why and self.submit(a):
            self.food = self.hammer = self.coin = 0


class CCCombatPanel(StepPanel):
    """The attack as it stands: each unit with its target and fate, whose walls bounce, who
    defends now and what each unblocked unit does."""
    text = StringProperty("")

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        self.text = "\n".join(snap.get("cc_combat") or ())
