"""Civilization: The Card Game's step panels (Kivy; they import only companion.kit): the purchase
as a card picker (each card with what it costs the player, how its price is made a tap away, a
plot paid in any mix) and the combat helper that walks the walls, the defenders and the damage.
Every action goes through `StepPanel.submit`, the same validated and journaled path as the
dashboard's Confirm; the generic action list stays below."""
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


class CCCard(Button):
    """A purchase as a card in the picker: its name and what it costs this player (grey when it
    cannot be paid for now; a tap then says why)."""
    row = ObjectProperty(None, allownone=True)
    selected = BooleanProperty(False)
    dear = BooleanProperty(False)


class CCPurchasePanel(StepPanel):
    """The purchase step as a card picker: every purchase open to the player (a population, a
    face-up plot, a technology, a building or wonder) as a card showing what it costs them, those
    they cannot pay for now in grey. A tap on a card chooses it (it waits for the one Confirm) and
    says how its price is made; a build on one of several plots asks which; a face-up plot is paid
    in any mix. Trading with the bank, a resource card and Done buying are buttons below; builds
    that depend on the hidden hand are folded behind one button."""
    title = StringProperty("")
    prices = StringProperty("")
    detail = StringProperty("")
    plot = StringProperty("")
    food = NumericProperty(0)
    hammer = NumericProperty(0)
    coin = NumericProperty(0)
    why = StringProperty("")
    paying = BooleanProperty(False)
    hand_text = StringProperty("")
    opened = StringProperty("")   # the open extra: "", "hand", "trade" or "play_resource"

    EXTRA_WORDS = {"trade": "Trade 3 for 1 with the bank", "play_resource": "Play a resource card"}

    @staticmethod
    def covers(snap) -> bool:
        """The panel decides only while the player buys (a card to name first: the pickers)."""
        return bool((snap.get("cc_purchase") or {}).get("player"))

    def __init__(self, **kw):
        super().__init__(**kw)
        self._rows = []
        self._player = None
        self._selected = None       # the key of the card tapped last
        self._extra = {}            # "trade" / "play_resource" -> [(label, action)]
        self.done_button = None

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        info = snap.get("cc_purchase") or {}
        if info.get("player") != self._player:
            self._selected, self.opened = None, ""
            self.food = self.hammer = self.coin = 0
        self._player = info.get("player")
        self._rows = list(info.get("rows", ()))
        self.title = info.get("title", "")
        self.prices = "\n".join(snap.get("cc_prices", ()))
        self._extra = {}
        if self._player:
            for a in ctrl.legal_actions():
                if a.get("type") in self.EXTRA_WORDS:
                    words = ctrl.action_label(a).split(": ", 1)[-1]
                    self._extra.setdefault(a["type"], []).append((words[:1].upper() + words[1:], a))
        row = self._row(self._selected)
        if row is None or not row["can"] and row["group"] == "now":
            self._selected = None
        if self.opened in self.EXTRA_WORDS and self.opened not in self._extra:
            self.opened = ""
        self._fill()

    def _row(self, key):
        return next((r for r in self._rows if r["key"] == key), None)

    # ------------------------------------------------------------------ drawing
    def _fill(self):
        if "cards" not in self.ids:
            return
        hand = [r for r in self._rows if r["group"] == "hand"]
        shown = [r for r in self._rows if r["group"] != "hand" or self.opened == "hand"]
        grid = self.ids.cards
        grid.clear_widgets()
        for r in shown:
            grid.add_widget(self._card(r))
        if not shown and self._player:
            grid.add_widget(CCLabel(text="Nothing here can be bought now."))
        self.hand_text = (f"{'Hide' if self.opened == 'hand' else 'Show'} the builds from your hand, "
                          f"if you hold them ({len(hand)})") if hand else ""
        row = self._row(self._selected)
        self._show_detail(row)
        plots = self.ids.plots
        plots.clear_widgets()
        if row is not None and row["can"] and len(row["choices"]) > 1:
            plots.add_widget(CCLabel(text="On which plot?"))
            for label, action in row["choices"]:
                plots.add_widget(ChoiceButton(text=label, action=action,
                                              on_release=lambda _b, a=action, lb=label: self.submit(a, lb)))
        self.plot = row["plot"] if row is not None and row["can"] and row["plot"] else ""
        self.paying = bool(self.plot)
        self._show_pay()
        self._fill_extras()
        self._recheck()

    def _card(self, r):
        grey = "[color=aaaaaa]" if not r["can"] else "[color=ffe082]"
        cost = r["cost"] + (f" - {r['why']}" if not r["can"] else "")
        return CCCard(text=f"[b]{r['name']}[/b]\n{grey}{cost}[/color]", row=r, dear=not r["can"],
                      selected=r["key"] == self._selected, on_release=lambda b: self.choose(b.row))

    def _show_detail(self, row):
        if row is None:
            self.detail = ""
        elif not row["can"]:
            self.detail = f"{row['name']}: you cannot pay for it now ({row['why']}). {row['parts']}"
        else:
            self.detail = f"{row['name']}: {row['parts']}"

    def _fill_extras(self):
        box = self.ids.extras
        box.clear_widgets()
        for kind, words in self.EXTRA_WORDS.items():
            if kind not in self._extra:
                continue
            box.add_widget(CCButton(text=words if self.opened != kind else f"{words} (hide)",
                                    on_release=lambda _b, k=kind: self.open(k)))
        # the step's end, at the top beside the other choices (never scrolled out of view)
        self.done_button = CCButton(text="Done buying", disabled=not self._player, on_release=lambda _b: self.done())
        box.add_widget(self.done_button)
        opts = self.ids.extra_options
        opts.clear_widgets()
        for label, action in self._extra.get(self.opened, ()):
            opts.add_widget(ChoiceButton(text=label, action=action,
                                         on_release=lambda _b, a=action, lb=label: self.submit(a, lb)))

    # ------------------------------------------------------------------ taps
    def choose(self, row):
        """A card tapped: chosen when it can be paid for (one plot to build on, or the payment
        below for a plot card), otherwise only said why not."""
        self._selected = row["key"]
        if not row["can"] or row["plot"] or len(row["choices"]) != 1:
            self.withdraw()
        self._fill()
        if row["can"] and not row["plot"] and len(row["choices"]) == 1:
            label, action = row["choices"][0]
            self.submit(action, label)

    def open(self, what):
        self.opened = "" if self.opened == what else what
        self._fill()

    def toggle_hand(self):
        self.open("hand")

    def _show_pay(self):
        """The plot payment, only while a face-up plot is chosen."""
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
        """Choose the face-up plot `card` (its payment opens below)."""
        row = next((r for r in self._rows if r["plot"] == card), None)
        if row is not None:
            self.choose(row)

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
        self.why = (self.ctrl.check(a) or "") if a is not None else ""
        if self.buy_button is not None:
            self.buy_button.disabled = bool(self.why)

    def buy(self):
        a = self.action()
        if a is not None and not self.why:
            self.submit(a)


class CCCombatPanel(StepPanel):
    """The attack as it stands: each unit with its target and fate, whose walls bounce, who
    defends now and what each unblocked unit does. It only shows: the attacks, the blocks and
    "No combat" are chosen on the pickers under it."""
    text = StringProperty("")

    @staticmethod
    def covers(snap) -> bool:
        return False

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        self.text = "\n".join(snap.get("cc_combat") or ())
