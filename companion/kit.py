"""The shell kit: the only part of the shell a game's panels import (layouts in kit.kv).

* colours: `COLOURS` (the seat colours offered by the new-game form) and `rgba(name)`;
* `StepPanel`: the base of a step panel (what the dashboard calls, and `submit`);
* `DiceEntry`: touch entry for a roll of one or two dice; `ChoiceButton`: a tappable option;
  `DieFaceRow`: a row of die faces to tap one (one control, however many faces).

Panels never dispatch on their own and have no Confirm of their own: `StepPanel.submit` hands the
chosen action to the dashboard, where it waits for the one pinned Confirm (the same validated and
journaled path as every decision); `StepPanel.withdraw` takes back a choice that is no longer
complete.
"""
from __future__ import annotations

from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button

from companion.words import COLOURS, nice  # noqa: F401  (re-exported for panels)

COLOUR_RGBA = {
    "blue": (0.20, 0.45, 0.90, 1), "green": (0.20, 0.70, 0.30, 1), "red": (0.85, 0.20, 0.20, 1),
    "yellow": (0.95, 0.80, 0.15, 1), "purple": (0.60, 0.30, 0.80, 1), "black": (0.15, 0.15, 0.15, 1),
    "orange": (0.95, 0.55, 0.15, 1), "white": (0.92, 0.92, 0.92, 1),
}


def rgba(colour):
    return COLOUR_RGBA.get(colour, (0.5, 0.5, 0.5, 1))


# pips of a die face on a 3x3 grid (column, row from the top), for dice drawn as dice
PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (2, 0), (0, 2), (2, 2)],
        5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)], 6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}


def die_pips(value: int, x: float, y: float, size: float) -> list:
    """Centres of the pips of `value` on a die of `size` whose lower-left corner is (x, y)."""
    step = size / 4
    return [(x + step * (1 + c), y + size - step * (1 + r)) for c, r in PIPS.get(value, [])]


class StepPanel(BoxLayout):
    """A step panel: the dashboard builds it once per step and calls `update` after every change.
    `screen` is the dashboard (it offers `submit(action, source="ui")`, `message`, `error`)."""
    screen = None
    ctrl = None

    def update(self, screen, ctrl, snap):  # pragma: no cover - every panel overrides it
        raise NotImplementedError

    def submit(self, action, label=None) -> bool:
        """Choose `action`: it waits for the dashboard's Confirm (False: refused, said why)."""
        return self.screen.submit(action, label=label) if self.screen is not None else False

    def submit_series(self, actions, label=None) -> bool:
        """Choose several actions taken in this order by one Confirm (a form of dice): each is
        journaled on its own, and the series stops, said why, at the first the engine refuses."""
        return self.screen.submit_series(actions, label=label) if self.screen is not None else False

    def withdraw(self):
        """The panel's choice is no longer complete: nothing of it waits for Confirm."""
        if self.screen is not None:
            self.screen.withdraw()


class DiceEntry(BoxLayout):
    """One or two 1..6 selectors and Enter. `callback(d1, d2)` is called with the chosen values
    (d2 is None when `count` is 1)."""
    count = NumericProperty(2)
    label1 = StringProperty("Die 1")
    label2 = StringProperty("Die 2")
    value1 = NumericProperty(1)
    value2 = NumericProperty(1)
    enter_text = StringProperty("Enter dice")
    callback = ObjectProperty(None, allownone=True)

    def on_kv_post(self, base_widget):
        self._row2 = self.ids.row2.__self__  # kept while out of the tree
        self.on_count()

    def on_count(self, *_):
        row2 = getattr(self, "_row2", None)
        if row2 is None:
            return
        rows = self.ids.rows
        if self.count > 1 and row2.parent is None:
            rows.add_widget(row2, index=0)
        elif self.count < 2 and row2.parent is not None:
            rows.remove_widget(row2)

    def step(self, which, delta):
        name = "value%d" % which
        setattr(self, name, min(6, max(1, getattr(self, name) + delta)))

    def values(self) -> list:
        return [int(self.value1), int(self.value2)][:max(1, int(self.count))]

    def enter(self):
        if self.callback is not None:
            v = self.values()
            self.callback(v[0], v[1] if len(v) > 1 else None)


class ChoiceButton(Button):
    """An option of a panel (attack, defender, retreat...): tap selects, Confirm dispatches."""
    action = ObjectProperty(None, allownone=True)
    selected = BooleanProperty(False)


class DieFaceRow(BoxLayout):
    """A row of die faces (1 to 6) to tap one: one control for the player, however many faces
    it shows (a screen's count of controls counts it once)."""

