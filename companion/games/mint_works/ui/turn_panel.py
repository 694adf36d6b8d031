"""The Development turn panel: tap a location (only those you can use now are offered, each with
its free spaces), then one of its choices (which plan to buy or build, whom the Crowdfunder
helps...), or Pass; the choice waits for the dashboard's Confirm. Under the buttons: the Plan
Supply, the deck and the locations not open now (the prompt keeps only the decision). Every choice is a legal action of the engine; the list of every
legal action stays the manual way in."""
from __future__ import annotations

from kivy.metrics import dp
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label

from companion.kit import ChoiceButton, StepPanel


class TurnPanel(StepPanel):
    def __init__(self, **kw):
        super().__init__(orientation="vertical", size_hint_y=None, spacing=dp(4), **kw)
        self.bind(minimum_height=self.setter("height"))
        self.height = self.minimum_height  # no event fires while it stays at 0
        # the state the decision needs, under the buttons (the prompt says only what to do)
        self.info = Label(size_hint_y=None, halign="left", valign="top", font_size="15sp", markup=True,
                          color=(0.85, 0.9, 1, 1))
        self.info.bind(width=lambda w, v: setattr(w, "text_size", (v, None)),
                       texture_size=lambda w, v: setattr(w, "height", v[1] + dp(6)))
        # three to a row (the name over its free spaces): the line and Pass fit above the fold
        self.places = GridLayout(cols=3, size_hint_y=None, spacing=dp(4))
        self.places.bind(minimum_height=self.places.setter("height"))
        self.places.height = self.places.minimum_height  # no event fires while it stays at 0
        self.options = GridLayout(cols=1, size_hint_y=None, spacing=dp(4))
        self.options.bind(minimum_height=self.options.setter("height"))
        self.options.height = self.options.minimum_height  # no event fires while it stays at 0
        for w in (self.places, self.options, self.info):
            self.add_widget(w)
        self._key = None
        self.location = None   # the location tapped
        self.pending = None    # the action waiting for Confirm
        self.by_location = {}  # location id -> [legal place actions]

    def update(self, screen, ctrl, snap):
        self.screen, self.ctrl = screen, ctrl
        key = (ctrl.path, snap.get("actions"))
        if key == self._key:
            return
        self._key = key
        self.location, self.pending = None, None
        acts = ctrl.legal_actions()
        self.by_location = {}
        for a in acts:
            if a["type"] == "place":
                self.by_location.setdefault(a["location"], []).append(a)
        self._pass = next((a for a in acts if a["type"] == "pass"), None)
        mw = snap.get("mint_works") or {}
        taken = [loc["text"] for loc in mw.get("line", ()) if loc["id"] not in self.by_location]
        self.info.text = mw.get("supply_words", "") + (
            ("\nNot open to you now: " + "; ".join(taken) + ".") if taken else "")
        self._fill_places()
        self.options.clear_widgets()

    def _fill_places(self):
        self.places.clear_widgets()
        view, state = self.ctrl.view, self.ctrl.state
        for loc in state.line:
            if loc not in self.by_location:
                continue
            free = sum(1 for o in state.spaces[loc] if o is None)
            b = ChoiceButton(text=f"{view.loc(loc)}\n{free} free", halign="center")
            b.location = loc
            b.selected = loc == self.location
            b.bind(on_release=lambda btn: self.pick_location(btn.location))
            self.places.add_widget(b)
        if self._pass is not None:
            b = ChoiceButton(text="Pass", halign="center")
            b.location = None
            b.bind(on_release=lambda btn: self.choose(self._pass))
            self.places.add_widget(b)

    def pick_location(self, loc):
        self.location = loc
        self._fill_places()
        opts = self.by_location.get(loc, [])
        self.options.clear_widgets()
        self.pending = None
        self.withdraw()
        if len(opts) == 1:
            self.choose(opts[0])
            return
        for a in opts:
            b = ChoiceButton(text=self.ctrl.action_label(a))
            b.action = a
            b.bind(on_release=lambda btn: self.choose(btn.action))
            self.options.add_widget(b)

    def choose(self, action):
        """The choice waits for the dashboard's Confirm."""
        for b in self.options.children:
            b.selected = b.action == action
        if self.submit(action):
            self.pending = action
