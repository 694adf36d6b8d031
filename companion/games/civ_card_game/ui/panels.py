"""Civilization: The Card Game's step panels (Kivy; they import only companion.kit): the purchase
list, what can be paid for first with each price's parts a tap away, a plot payment in any mix, and the combat helper that
walks the walls, the defenders and the damage. Every action goes through `StepPanel.submit`, the
same validated and journaled path as the dashboard's Confirm; the generic action list stays below."""
from __future__ import annotations

from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label

from companion.kit import ChoiceButton, StepPanel


class CCLabel(Label):
    pass


class CCButton(Button):
    pass


class CCPayBlock(BoxLayout):
    """The payment of a face-up plot in any mix (its layout in the .kv)."""
    panel = ObjectProperty(None, allownone=True)


class CCRowButton(Button):
    """A purchase line that opens its choices (a build: which plot) or the plot payment."""


class CCPriceRow(BoxLayout):
    """One purchase: its line (a choice, or plain text when it cannot be paid for now), a Price
    button that shows how the price is made, and the plots to build on when there are several."""

    def __init__(self, panel, row, **kw):
        super().__init__(orientation="vertical", size_hint_y=None, spacing=dp(2), **kw)
        self.bind(minimum_height=self.setter("height"))
        self.height = self.minimum_height  # no event fires while it stays at 0
        self.panel, self.row = panel, row
        top = BoxLayout(size_hint_y=None, spacing=dp(4))
        choices = row["choices"]
        if not row["can"]:
            main = CCLabel(text=f"{row['text']} [color=aaaaaa](too dear: {row['why']})[/color]")
        elif row["plot"]:
            main = CCRowButton(text=f"{row['text']}: choose the mix below",
                               on_release=lambda *_: panel.pick_plot(row["plot"]))
        elif len(choices) == 1:
            label, action = choices[0]
            main = ChoiceButton(text=f"{row['text']}", action=action,
                                on_release=lambda *_: panel.submit(action, label))
        else:
            main = CCRowButton(text=f"{row['text']}: on which plot?",
                               on_release=lambda *_: panel.toggle(row, "plots"))
        top.add_widget(main)

        def fit(*_):  # the line as tall as its text, and never below a touch target
            top.height = max(dp(48), main.height)
        main.bind(height=fit)
        fit()
        if row["parts"]:
            open_ = panel.opened(row, "parts")
            top.add_widget(CCButton(text="Hide" if open_ else "Price", size_hint=(None, 1), width=dp(84),
                                    on_release=lambda *_: panel.toggle(row, "parts")))
        self.add_widget(top)
        if row["parts"] and panel.opened(row, "parts"):
            self.add_widget(CCLabel(text="   " + row["parts"]))
        if len(choices) > 1 and panel.opened(row, "plots"):
            for label, action in choices:
                self.add_widget(ChoiceButton(text="   " + label, action=action,
                                             on_release=lambda _b, a=action, lb=label: panel.submit(a, lb)))


class CCPurchasePanel(StepPanel):
    """The purchase step, compact: what the player can pay for first, one line each, its choice a
    tap away (it waits for the one Confirm); how a price is made behind its Price button; a plot
    paid in any mix (Buy enabled only when the engine accepts the payment, saying why not
    otherwise); Done buying; then, folded, the builds that depend on the hand and what is too
    dear now."""
    title = StringProperty("")
    prices = StringProperty("")
    plot = StringProperty("")
    food = NumericProperty(0)
    hammer = NumericProperty(0)
    coin = NumericProperty(0)
    why = StringProperty("")
    paying = BooleanProperty(False)
    hand_text = StringProperty("")
    dear_text = StringProperty("")

    def __init__(self, **kw):
        super().__init__(**kw)
        self._open = set()          # (row key, "parts" | "plots" | group) the player opened
        self._rows = []
        self._player = None
        self._plots = []

    def opened(self, row, what) -> bool:
        return (row["key"], what) in self._open

    def toggle(self, row, what):
        key = (row["key"] if isinstance(row, dict) else row, what)
        self._open ^= {key}
        self._fill()

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        info = snap.get("cc_purchase") or {}
        if info.get("player") != self._player:
            self._open = set()
        self._player = info.get("player")
        self._plots = list(info.get("plot_row", ()))
        self._rows = list(info.get("rows", ()))
        self.title = info.get("title", "")
        self.prices = "\n".join(snap.get("cc_prices", ()))
        if self.plot not in self._plots:
            self.plot = self._plots[0] if self._plots else ""
        self.paying = bool(self._plots)
        self._fill()
        self._show_pay()
        self._recheck()

    def _fill(self):
        if "rows" not in self.ids:
            return
        now = [r for r in self._rows if r["group"] == "now"]
        hand = [r for r in self._rows if r["group"] == "hand"]
        dear = [r for r in self._rows if r["group"] == "dear"]
        box = self.ids.rows
        box.clear_widgets()
        if not now and self._player:
            box.add_widget(CCLabel(text="Nothing here can be paid for now. Trade 3 for 1 with the bank or play a "
                                        "resource card (All choices as a list), or tap Done buying."))
        for r in now:
            box.add_widget(CCPriceRow(self, r))
        for group, rows, box, title in (("hand", hand, self.ids.hand, "Build from your hand, if you hold it"),
                                        ("dear", dear, self.ids.dear, "Too dear now")):
            box.clear_widgets()
            shown = ("group", group) in self._open
            text = f"{title}: {len(rows)} ({'hide' if shown else 'show'})" if rows else ""
            setattr(self, f"{group}_text", text)
            if rows:
                box.add_widget(CCButton(text=text, on_release=lambda _b, g=group: self.toggle("group", g)))
            if shown:
                for r in rows:
                    box.add_widget(CCPriceRow(self, r))

    def _show_pay(self):
        """The plot payment, only while a face-up plot can be paid for."""
        if "pay" not in self.ids:
            return
        box = self.ids.pay
        if self.paying and not box.children:
            self.pay_block = CCPayBlock(panel=self)
            box.add_widget(self.pay_block)
        elif not self.paying and box.children:
            box.clear_widgets()
            self.pay_block = None

    @property
    def buy_button(self):
        block = getattr(self, "pay_block", None)
        return block.ids.buy if block is not None else None

    def pick_plot(self, card):
        if card in self._plots:
            self.plot = card
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

    def done(self):
        if self._player:
            self.submit({"type": "done", "player": self._player}, "Done buying")

    def _recheck(self):
        if self.ctrl is None:
            return
        a = self.action()
        if a is None:
            self.why = "No plot to buy now." if self._player else "Buying waits for the decision above."
        else:
            self.why = self.ctrl.check(a) or ""
        if self.buy_button is not None:
            self.buy_button.disabled = bool(self.why)
        if "done" in self.ids:
            self.ids.done.disabled = not self._player

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
