"""CivMint's part of the New game form: the four map cards, their faces and places, with a
preview drawn from the engine's own Board. Layout in setup.kv.

The shell's new-game screen shows it below the players and asks `problem()` (the engine's refusal
of the layout, or None) and `values()` ({"map": layout}) when the game starts."""
from __future__ import annotations

import random

from kivy.properties import BooleanProperty, DictProperty, ListProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from ..data_load import DATA
from .map_view import MapView, layout_error  # noqa: F401  (MapView: used by setup.kv)

POSITIONS = ("nw", "ne", "sw", "se")


def card_of(face: str) -> str:
    """'3B' -> '3': the two faces of a card share its number (data/maps.json)."""
    return face[:-1]


class MapSetup(BoxLayout):
    faces = ListProperty(sorted(DATA.maps["faces"]))
    layout = DictProperty(dict(DATA.maps["default_layout"]))
    map_message = StringProperty("")  # the engine's refusal of the chosen layout, if any
    wide = BooleanProperty(True)

    def on_kv_post(self, base):
        self._show_layout()

    # ------------------------------------------------------------------ the form's questions
    def problem(self) -> str | None:
        return layout_error(dict(self.layout))

    def values(self) -> dict:
        return {"map": dict(self.layout)}

    # ------------------------------------------------------------------ map cards
    def set_face(self, pos, face):
        """Put `face` at `pos`. A card lies on the table once: if another position shows a face of
        the same card, that position takes the card `pos` had (the two swap)."""
        if pos not in POSITIONS or face not in self.faces or self.layout.get(pos) == face:
            return
        new = dict(self.layout)
        old = new[pos]
        for q, f in new.items():
            if q != pos and card_of(f) == card_of(face):
                new[q] = old
        new[pos] = face
        self.layout = new
        self._show_layout()

    def default_layout(self):
        self.layout = dict(DATA.maps["default_layout"])
        self._show_layout()

    def random_layout(self, rng=None):
        """Random cards, faces and places, redrawn until the engine accepts the layout."""
        rng = rng or random.Random()
        cards = {}
        for f in self.faces:
            cards.setdefault(card_of(f), []).append(f)
        for _ in range(1000):
            pick = rng.sample(sorted(cards), len(POSITIONS))
            lay = {p: rng.choice(cards[c]) for p, c in zip(POSITIONS, pick)}
            if layout_error(lay) is None:
                break
        self.layout = lay
        self._show_layout()

    def _show_layout(self):
        self.map_message = self.ids.map_preview.show_layout(dict(self.layout)) or ""
        for pos in POSITIONS:
            self.ids["choice_" + pos].ids.spin.text = self.layout[pos]
