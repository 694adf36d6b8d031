"""New game screen: players, colours, map cards and their placement, first player. Layout in new_game.kv."""
from __future__ import annotations

from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.screenmanager import Screen

from . import controller as C


class NewGameScreen(Screen):
    colours = ListProperty(list(C.COLOURS))
    p1_colour = StringProperty("blue")
    p2_colour = StringProperty("green")
    virtual_first = BooleanProperty(True)
    message = StringProperty("")

    def pick(self, seat, colour):
        if seat == "p1":
            self.p1_colour = colour
        else:
            self.p2_colour = colour

    def start(self):
        if self.p1_colour == self.p2_colour:
            self.message = "Pick two different colours."
            return
        names = (self.ids.p1_name.text.strip() or "Player 1", self.ids.p2_name.text.strip() or "Player 2")
        App.get_running_app().start_new_game(names, (self.p1_colour, self.p2_colour), self.virtual_first)
