"""New game screen: players, colours, map cards and their placement, first player. Layout in new_game.kv."""
from __future__ import annotations

import random

from kivy.app import App
from kivy.properties import BooleanProperty, DictProperty, ListProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.games.civmint.data_load import DATA

from . import controller as C
from .map_view import MapView, layout_error  # noqa: F401  (MapView: used by new_game.kv)

POSITIONS = ("nw", "ne", "sw", "se")


def card_of(face: str) -> str:
    """'3B' -> '3': the two faces of a card share its number (data/maps.json)."""
    return face[:-1]


class NewGameScreen(Screen):
    colours = ListProperty(list(C.COLOURS))
    p1_colour = StringProperty("blue")
    p2_colour = StringProperty("green")
    virtual_first = BooleanProperty(True)
    message = StringProperty("")
    faces = ListProperty(sorted(DATA.maps["faces"]))
    layout = DictProperty(dict(DATA.maps["default_layout"]))
    map_message = StringProperty("")  # the engine's refusal of the chosen layout, if any

    def on_kv_post(self, base):
        self._show_layout()

    def pick(self, seat, colour):
        if seat == "p1":
            self.p1_colour = colour
        else:
            self.p2_colour = colour

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
        if not self.map_message and self.message.startswith("Cannot start"):
            self.message = ""

    # ------------------------------------------------------------------ start
    def start(self):
        if self.p1_colour == self.p2_colour:
            self.message = "Pick two different colours."
            return
        why = layout_error(dict(self.layout))
        if why:
            self.message = f"Cannot start the game: {why}"
            return
        names = (self.ids.p1_name.text.strip() or "Player 1", self.ids.p2_name.text.strip() or "Player 2")
        App.get_running_app().start_new_game(names, (self.p1_colour, self.p2_colour), self.virtual_first,
                                             map_layout=dict(self.layout))
