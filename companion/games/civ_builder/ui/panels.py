"""Civ Builder's step panels (Kivy; they import only companion.kit and the game's own modules).

- the set-up rolls: every die of the player rolling now in one form, each named by its attribute;
- the trade phase: its 4-minute clock (kept in trade_clock, outside the panel, so a rebuilt
  panel shows the same clock; the header shows it too), End trade, a gift between players;
- the meld builder: a count per card kind, the wild cards marked wild, the engine's verdict
  live: a legal meld waits for the screen's one Confirm, an illegal one says why.
The hand-count correction (CB-C1) is offered in the trade and meld panels, where counts show.

No panel dispatches: every choice goes through `StepPanel.submit` and waits for Confirm; the
list of every legal action stays the manual way in. The screen's Confirm applies one action, so
a form of several dice hands them over one at a time: the next after each Confirm (CB-H2)."""
from __future__ import annotations

from kivy.clock import Clock
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label

from companion.kit import DieFaceRow, StepPanel

from .. import trade_clock
from ..data_load import DATA
from ..view import VIEW, attr_name, civ_name, plural


class CBLabel(Label):
    pass


class CBButton(Button):
    pass


class CBPick(Button):
    """A tap that marks itself chosen (a die's face, a player): not a decision of its own, so the
    screen's marking of the decision waiting for Confirm leaves it alone."""
    chosen = BooleanProperty(False)


class CBCount(BoxLayout):
    """A count with - and +: `panel.change(field, delta)`."""
    label = StringProperty("")
    value = NumericProperty(0)
    field = StringProperty("")
    can_add = BooleanProperty(True)
    low = NumericProperty(0)
    panel = ObjectProperty(None, allownone=True)

    def change(self, delta):
        if self.panel is not None:
            self.panel.change(self.field, delta)


def _moment(ctrl):
    return ctrl.path, len(ctrl.journal)


# ------------------------------------------------------------------------------ hand counts
class CBHandFix(BoxLayout):
    """The hand counts the app keeps, and a way to say what the table really holds (CB-C1): open
    it, set a player's count; the correction waits for Confirm like every choice."""
    summary = StringProperty("")
    open = BooleanProperty(False)

    def __init__(self, panel, **kw):
        super().__init__(orientation="vertical", size_hint_y=None, spacing=dp(4), **kw)
        self.bind(minimum_height=self.setter("height"))
        self.height = self.minimum_height  # no event fires while it stays at 0
        self.panel = panel
        self.counts = {}     # seat -> the count the app keeps
        self.wanted = {}     # seat -> the count set here
        self.names = {}
        self.head = CBLabel()
        self.toggle = CBButton(text="A hand count is wrong? Correct it")
        self.toggle.bind(on_release=lambda *_: self.flip())
        self.rows = BoxLayout(orientation="vertical", size_hint_y=None, spacing=dp(4))
        self.rows.bind(minimum_height=self.rows.setter("height"))
        self.rows.height = self.rows.minimum_height  # no event fires while it stays at 0
        for w in (self.head, self.toggle, self.rows):
            self.add_widget(w)

    def update(self, ctrl, snap):
        players = snap["players"]
        counts = {x: players[x]["hand"] for x in players}
        self.names = {x: players[x]["name"] for x in players}
        changed = counts != self.counts
        self.counts = counts
        self.head.text = "Hands: " + ", ".join(f"{self.names[x]} {plural(n, 'card')}" for x, n in counts.items())
        if changed:
            self.wanted = {}
            self._fill()

    def flip(self):
        self.open = not self.open
        self.toggle.text = "Close the correction" if self.open else "A hand count is wrong? Correct it"
        if not self.open and self.wanted:
            self.wanted = {}
            self.panel.withdraw()
            self.panel.choice_changed()
        self._fill()

    def _fill(self):
        self.rows.clear_widgets()
        if not self.open:
            return
        self.rows.add_widget(CBLabel(text="Count the cards at the table and set the player's real count:"))
        for seat, n in self.counts.items():
            v = self.wanted.get(seat, n)
            row = CBCount(panel=self, label=f"{self.names[seat]} (app: {n})", value=v, field=seat)
            self.rows.add_widget(row)

    def change(self, seat, delta):
        v = max(0, self.wanted.get(seat, self.counts[seat]) + delta)
        self.wanted = {seat: v} if v != self.counts[seat] else {}  # one correction at a time
        self._fill()
        if self.wanted:
            action = {"type": "correct_hand", "seat": seat, "count": v}
            self.panel.submit(action)
        else:
            self.panel.withdraw()
            self.panel.choice_changed()


# ------------------------------------------------------------------------------ set-up rolls
class CBRollsPanel(StepPanel):
    """All of one player's set-up dice in one form, each row named by its attribute: tap the face
    each die shows. The awaited die and the entered ones after it wait for one Confirm, which
    applies them in order (one journal entry per die, as the rules roll each attribute
    separately)."""
    title = StringProperty("")
    note = StringProperty("")

    def __init__(self, **kw):
        super().__init__(**kw)
        self.values = {}       # (seat, attribute, extra?) -> face entered, not yet applied
        self._seat = None
        self._moment = None
        self._offered = None   # the roll action handed to Confirm

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        s, g = ctrl.state, ctrl.game
        if s.step != "setup_roll":
            return
        seat = s.seats[s.setup_seat]
        if seat != self._seat:
            self._seat, self.values = seat, {}
        moment = _moment(ctrl)
        fresh = moment != self._moment
        self._moment = moment
        name = snap["players"][seat]["name"]
        self.title = f"[b]{name}'s dice[/b] ({civ_name(s.civ[seat])}): tap what each die shows"
        self._rows(s, g, seat)
        if fresh:
            rolled = {(seat, a, e) for a, e in self.rolls(g, s, seat)[:len(s.setup_rolls[seat])]}
            self.values = {k: v for k, v in self.values.items() if k not in rolled}
            self._offered = None
            self._offer_next()

    def rolls(self, g, s, seat) -> list:
        return VIEW.rolls_of(g, s, seat)

    def _rows(self, s, g, seat):
        box = self.ids.rows
        box.clear_widgets()
        done = s.setup_rolls[seat]
        awaited = g.awaited_roll(s)
        for i, (attr, extra) in enumerate(self.rolls(g, s, seat)):
            key = (seat, attr, extra)
            label = attr_name(attr) + (" (extra)" if extra else "")
            row = DieFaceRow(size_hint_y=None, height=dp(48), spacing=dp(2))
            lab = Label(text=label, markup=True, halign="left", valign="middle", font_size="15sp")
            lab.bind(size=lambda w, v: setattr(w, "text_size", v))
            row.add_widget(lab)
            if i < len(done):
                row.add_widget(Label(text=f"[b]{done[i]}[/b]  rolled", markup=True, size_hint_x=None,
                                     width=dp(6 * 50), font_size="15sp"))
            else:
                now = awaited is not None and (awaited[1], awaited[2]) == (attr, extra)
                lab.text = f"[b]{label}[/b]" if now else label
                for face in range(1, 7):
                    b = CBPick(text=str(face), size_hint_x=None, width=dp(48))
                    b.key, b.face = key, face
                    b.chosen = self.values.get(key) == face
                    b.bind(on_release=lambda btn: self.set_face(btn.key, btn.face))
                    row.add_widget(b)
            box.add_widget(row)
        left = len(self.rolls(g, s, seat)) - len(done)
        entered = sum(1 for k in self.values if k[0] == seat)
        self.note = (f"{plural(left, 'die', 'dice')} to go, {entered} entered. One Confirm applies them in order; "
                     "dice in the wells are taken too (well 1 first).")

    def set_face(self, key, face):
        self.values[key] = face
        self._offered = None
        s, g = self.ctrl.state, self.ctrl.game
        self._rows(s, g, self._seat)
        self._offer_next()

    def _offer_next(self):
        """The awaited die's value from the form, if entered: it waits for Confirm."""
        s, g = self.ctrl.state, self.ctrl.game
        aw = g.awaited_roll(s)
        if aw is None:
            return
        seat, attr, extra = aw
        if self.values.get((seat, attr, extra)) is None:
            return
        # the awaited die and every die after it whose face is entered, in the rules' order:
        # one Confirm applies them all, one journal entry per die
        rolls = self.rolls(g, s, seat)
        start = rolls.index((attr, extra)) if (attr, extra) in rolls else 0
        series, words = [], []
        for a, e in rolls[start:]:
            face = self.values.get((seat, a, e))
            if face is None:
                break
            series.append({"type": "roll_" + a, "die": face})
            words.append(f"{attr_name(a)}{' extra' if e else ''} {face}")
        label = f"{self.ctrl.name(seat)}'s dice: " + ", ".join(words)
        if series != self._offered and self.submit_series(series, label=label):
            self._offered = series

    def clear_form(self):
        self.values = {}
        self.withdraw()
        self._offered = None
        self._rows(self.ctrl.state, self.ctrl.game, self._seat)


# ------------------------------------------------------------------------------ trade phase
class CBTradePanel(StepPanel):
    """The trade phase: its clock (trade_clock: kept across rebuilds, also in the header), who
    holds the Trade privilege, a gift recorded (an uneven trade), End trade, hand corrections."""
    timer_text = StringProperty("")
    info = StringProperty("")
    gift_text = StringProperty("")

    def __init__(self, **kw):
        super().__init__(**kw)
        self._event = None
        self._key = None
        self._moment = None
        self.giver = self.taker = None
        self.count = 1
        self.end_action = None
        self.fix = CBHandFix(self)
        self.ids.fix_area.add_widget(self.fix)

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        s = ctrl.state
        self._key = (ctrl.path, s.round)
        trade_clock.start(ctrl.path, s.round, ctrl.setup)
        if self._event is None:
            self._event = Clock.schedule_interval(self._tick, 1.0)
        minutes = snap.get("trade_minutes", DATA.trade_minutes)
        leaders = [snap["players"][x]["name"] for x in snap.get("trade_leaders", ())]
        self.info = (f"Trade for up to {plural(minutes, 'minute')}. "
                     + (f"{' and '.join(leaders)} (highest Trade) may look at any hand. " if leaders
                        else "Nobody holds the Trade privilege. ")
                     + "Even swaps change no count: record only cards given without a card back.")
        actor = snap.get("actor")
        self.end_action = {"type": "end_trade", "player": actor} if actor else None
        self.ids.end_trade.action = self.end_action
        self.fix.update(ctrl, snap)
        self._names = {x: p["name"] for x, p in snap["players"].items()}
        self._hands = {x: p["hand"] for x, p in snap["players"].items()}
        moment = _moment(ctrl)
        if moment != self._moment:  # a gift recorded (or undone): the form starts empty
            self._moment = moment
            self.giver = self.taker = None
            self.count = 1
        self._fill_gift(offer=False)
        self._show()

    def _secs(self):
        return trade_clock.left(self._key[0], self._key[1], DATA.trade_minutes * 60) if self._key else None

    def _tick(self, _dt):
        if self.ctrl is None or self.ctrl.state.step != "trade":
            return
        self._show()
        if self.screen is not None:  # the header shows the clock too
            c = self.ctrl
            self.screen.header = c.view.header(c.game, c.state, c.setup)

    def _show(self):
        secs = self._secs()
        self.timer_text = trade_clock.text(secs) + ("  - finish the trades" if secs == 0 else "")

    def end_trade(self):
        if self.end_action is not None:
            self.submit(self.end_action)

    # a gift: giver, taker, count
    def _fill_gift(self, offer=True):
        box = self.ids.gift
        box.clear_widgets()
        seats = list(self._names)
        for title, attr in (("Who gives?", "giver"), ("To whom?", "taker")):
            box.add_widget(CBLabel(text=title))
            row = BoxLayout(size_hint_y=None, height=dp(52), spacing=dp(4))
            for x in seats:
                b = CBPick(text=self._names[x])
                b.seat, b.role = x, attr
                b.chosen = getattr(self, attr) == x
                b.disabled = (attr == "giver" and self._hands.get(x, 0) < 1) or (
                    attr == "taker" and x == self.giver)
                b.bind(on_release=lambda btn: self.set_party(btn.role, btn.seat))
                row.add_widget(b)
            box.add_widget(row)
        self.ids.gift_count.value = self.count
        self.ids.gift_count.can_add = self.giver is None or self.count < self._hands.get(self.giver, 0)
        if offer:
            self._offer_gift()
        elif not (self.giver and self.taker):
            self.gift_text = "Pick who gives and who takes."

    def set_party(self, role, seat):
        setattr(self, role, seat)
        if self.giver == self.taker:
            self.taker = None
        self.count = max(1, min(self.count, self._hands.get(self.giver, 1) if self.giver else self.count))
        self._fill_gift()

    def change(self, field, delta):
        top = self._hands.get(self.giver, 13) if self.giver else 13
        self.count = max(1, min(top, self.count + delta))
        self._fill_gift()

    def _offer_gift(self):
        if self.giver and self.taker:
            a = {"type": "give_cards", "giver": self.giver, "taker": self.taker, "count": self.count}
            self.gift_text = f"{self._names[self.giver]} gives {plural(self.count, 'card')} to {self._names[self.taker]}"
            self.submit(a)
        else:
            self.gift_text = "Pick who gives and who takes."

    def choice_changed(self):
        pass

    def on_parent(self, _w, parent):
        if parent is None and self._event is not None:
            self._event.cancel()
            self._event = None


# ------------------------------------------------------------------------------ melds
KINDS = ("cards", "leader", "disasters", "seas")


class CBMeldPanel(StepPanel):
    """The meld builder: a count per card kind (the attribute's own cards, then the wild cards
    the player may use now, marked wild); the engine's verdict on every change (ctrl.check): a
    legal meld waits for Confirm, otherwise the reason is said and nothing waits."""
    cards = NumericProperty(1)
    leader = NumericProperty(0)
    disasters = NumericProperty(0)
    seas = NumericProperty(0)
    title = StringProperty("")
    why = StringProperty("")
    verdict = StringProperty("")
    wild_note = StringProperty("")

    def __init__(self, **kw):
        super().__init__(**kw)
        self._moment = None
        self._player = self._attribute = None
        self.fix = CBHandFix(self)
        self.ids.fix_area.add_widget(self.fix)

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        state, game = ctrl.state, ctrl.game
        moment = _moment(ctrl)
        fresh = moment != self._moment
        self._moment = moment
        self._player, self._attribute = snap.get("actor"), state.meld_attr
        if self._player not in snap["players"] or self._attribute is None:
            return
        p = snap["players"][self._player]
        self._hand = p["hand"]
        need = game.min_meld(state)
        self.title = (f"[b]{p['name']}: {attr_name(self._attribute)} meld[/b] - {plural(p['hand'], 'card')} in hand; "
                      f"this {'first' if need == 1 else 'next'} meld needs at least {plural(need, 'card')}")
        religion = self._player in game.holders(state, "religion")
        sea = self._attribute in DATA.sea_wild_melds and self._player in game.holders(state, "seafaring")
        self.allowed = {"cards": True, "leader": True, "disasters": religion, "seas": sea}
        notes = []
        if not religion:
            notes.append("Disasters are wild only for the highest Religion")
        if not sea:
            notes.append("Seafaring cards are wild only in Trade and Conquest melds of the highest Seafaring"
                         if self._attribute not in DATA.sea_wild_melds else
                         "Seafaring cards are wild here only for the highest Seafaring")
        self.wild_note = ("Not wild for you now: " + "; ".join(notes) + ".") if notes else ""
        self.ids.disasters.opacity = 1 if religion else 0
        self.ids.disasters.disabled = not religion
        self.ids.disasters.height = dp(50) if religion else 0
        self.ids.seas.opacity = 1 if sea else 0
        self.ids.seas.disabled = not sea
        self.ids.seas.height = dp(50) if sea else 0
        self.ids.back.action = {"type": "cancel_meld", "player": self._player}
        self.fix.update(ctrl, snap)
        if fresh:
            self.cards, self.leader, self.disasters, self.seas = max(1, min(need, self._hand)), 0, 0, 0
            self._recheck(offer=True)
        else:
            self._recheck(offer=False)

    def action(self) -> dict:
        a = {"type": "meld", "player": self._player, "attribute": self._attribute, "cards": int(self.cards)}
        for k in ("leader", "disasters", "seas"):
            if getattr(self, k):
                a[k] = int(getattr(self, k))
        return a

    def total(self) -> int:
        return int(self.cards + self.leader + self.disasters + self.seas)

    def change(self, field, delta):
        if not self.allowed.get(field, False):
            return
        setattr(self, field, max(0, int(getattr(self, field)) + delta))
        self._recheck(offer=True)

    def choice_changed(self):
        """The hand correction was closed: the meld as built waits for Confirm again."""
        self._recheck(offer=True)

    def _recheck(self, offer):
        if self.ctrl is None or self._player is None:
            return
        self.why = self.ctrl.check(self.action()) or ""
        n = self.total()
        if self.why:
            self.verdict = f"[color=ff8a80]Not a legal meld: {self.why}[/color]"
        else:
            self.verdict = (f"[color=a5d6a7]Legal: {plural(n, 'card')} to the discard pile, "
                            f"+{n} {attr_name(self._attribute)}, +{n} VP.[/color] Tap Confirm below.")
        for k in KINDS:
            self.ids[k].can_add = self.total() < self._hand and (k != "leader" or self.leader < DATA.max_leaders)
        if not offer:
            return
        if self.why:
            self.withdraw()
        else:
            self.submit(self.action())
