"""The game screen's Phones panel: the "Phones may join" switch (off by default: nothing listens
while it is off), the address and port phones open, a QR code per seat and "Forget this phone"
(docs/phones.md). The server itself has no Kivy: companion/phones/server.py.

One `TableServer` per open game, made when the panel is first opened for it; it keeps the seats'
keys while the switch goes off and on. Leaving or changing the game stops it (the screen's `ctrl`
changes). Phone actions reach the controller on Kivy's thread (Clock), as a tap does.
"""
from __future__ import annotations

import io

from kivy.clock import Clock
from kivy.core.image import Image as CoreImage
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView

PREFERRED_PORT = 8765  # tried first, so the address stays the same from one evening to the next
HOST = None            # None: the local network address (tests set 127.0.0.1)
_tables: dict = {}     # id(screen) -> TableServer of the screen's open game


def kivy_owner(fn):
    """Run fn on Kivy's thread, where the controller lives (Clock is safe from any thread)."""
    Clock.schedule_once(lambda dt: fn(), 0)


def _real(screen):
    """The screen itself, not the weak proxy a .kv rule's `root` is."""
    return getattr(screen, "__self__", screen)


def table_for(screen, make=True):
    """The open game's TableServer (made once per game when `make`), or None."""
    screen = _real(screen)
    server = _tables.get(id(screen))
    if server is not None and server.ctrl is not screen.ctrl:
        stop(screen)
        server = None
    if server is None and make and screen.ctrl is not None:
        from companion.phones.server import TableServer
        server = _tables[id(screen)] = TableServer(screen.ctrl, kivy_owner, host=HOST, port=PREFERRED_PORT)
        screen.fbind("ctrl", _game_changed)
    return server


def _game_changed(screen, ctrl):
    server = _tables.get(id(_real(screen)))
    if server is not None and server.ctrl is not ctrl:
        stop(screen)


def stop(screen):
    """The game was left: its phones are closed and nothing listens."""
    server = _tables.pop(id(_real(screen)), None)
    if server is not None:
        server.stop()


def open_for(screen):
    """The Phones panel over the game screen (the header's Phones button)."""
    screen = _real(screen)
    if screen.ctrl is None:
        return None
    panel = PhonesPanel(screen=screen)
    panel.open()
    return panel


def qr_texture(png: bytes):
    tex = CoreImage(io.BytesIO(png), ext="png").texture
    tex.mag_filter = tex.min_filter = "nearest"  # sharp modules: a camera reads it at a distance
    return tex


class SeatCode(BoxLayout):
    """One seat: its name, its phones, its QR code and "Forget this phone"."""
    seat = StringProperty("")
    title = StringProperty("")
    status = StringProperty("")
    texture = ObjectProperty(None, allownone=True)
    live = BooleanProperty(False)
    panel = ObjectProperty(None)
    qr = NumericProperty(0)  # the code's side, px


class PhonesPanel(ModalView):
    screen = ObjectProperty(None)
    on = BooleanProperty(False)
    status = StringProperty("")

    def __init__(self, **kw):
        super().__init__(**kw)
        server = table_for(self.screen, make=False)
        self.on = server is not None and server.running
        self._rows = {}
        self._build()
        self._tick = Clock.schedule_interval(lambda dt: self._update_counts(), 1.0)
        self.bind(on_dismiss=lambda *_: self._tick.cancel())

    def _build(self):
        grid = self.ids.seats
        grid.clear_widgets()
        ctrl = self.screen.ctrl
        self._rows = {}
        for seat in ctrl.seats():
            row = SeatCode(seat=seat, title=f"[b]{ctrl.name(seat)}[/b] ({ctrl.colour(seat)})", panel=self)
            self._rows[seat] = row
            grid.add_widget(row)
        self._show()

    def switch(self, on: bool):
        """The "Phones may join" switch."""
        if on == self.on and (table_for(self.screen, make=False) is not None) == on:
            return
        if on:
            server = table_for(self.screen)
            try:
                server.start()
            except OSError as exc:
                if server.port:  # the usual port is taken: any free one
                    server.port = 0
                    try:
                        server.start()
                    except OSError as exc2:
                        exc = exc2
                if not server.running:
                    self.on = False
                    self.status = f"Phones cannot join: the network refused ({exc.strerror or exc})."
                    return
            self.on = True
        else:
            server = table_for(self.screen, make=False)
            if server is not None:
                server.stop()
            self.on = False
        self._show()

    def forget(self, seat):
        server = table_for(self.screen)
        server.forget(seat)
        self._show()

    def _show(self):
        server = table_for(self.screen, make=False)
        running = server is not None and server.running
        if running:
            host = server.address.split(":")[0]
            lan = "" if host != "127.0.0.1" else (" No local network was found: phones cannot reach this "
                                                  "tablet until it is on the table's Wi-Fi.")
            self.status = (f"Phones may join at [b]http://{server.address}[/b] (address {host}, port "
                           f"{server.address.split(':')[1]}). Each player, on the same Wi-Fi as this tablet, "
                           "scans their seat's code with the phone's camera." + lan)
        else:
            self.status = ("Off: nothing listens. Turn it on to let each player follow the game and make "
                           "their own decisions on their phone.")
        for seat, row in self._rows.items():
            row.live = running
            row.texture = qr_texture(server.qr_png(seat, scale=6)) if running else None
        self._update_counts()

    def _update_counts(self):
        server = table_for(self.screen, make=False)
        counts = server.connected() if server is not None and server.running else {}
        for seat, row in self._rows.items():
            n = counts.get(seat, 0)
            row.status = ("a phone is connected" if n == 1 else f"{n} phones are connected" if n
                          else "no phone connected") if row.live else ""
