"""Civ Quest's map, drawn: every area in play as a tile on a grid laid out roughly as the printed
map (data/map_layout.json), land, sea and deep sea in their colours, borders as lines between
tiles, each held area in its owner's colour with its PT and city.

`AreaPicker` is the game's picker for the "area" kind (GameModule.pickers): the shell calls
`offer(question, on_pick)`; the legal areas are lit, the rest dimmed; a tap on a lit area picks
it, a tap on any other area says why not (the view's `why_not_area`, the rules' own words) and
picks nothing. `AreaMap` is the same drawing for the Map tab, which lights and takes the same
taps while an area is asked (`live_picker`). Reads the running app's
controller (state, setup, colours) and the view's `map_model`; imports nothing of the shell but
the kit."""
from __future__ import annotations

from kivy.app import App
from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, InstructionGroup, Line, Rectangle
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.relativelayout import RelativeLayout

from companion.kit import rgba

TERRAIN = {"land": (0.50, 0.45, 0.32, 1), "sea": (0.22, 0.42, 0.62, 1), "deep": (0.10, 0.19, 0.38, 1)}
TERRAIN_WORDS = {"land": "land", "sea": "sea", "deep": "deep sea"}
LIT = (1, 0.85, 0.2, 1)


def cell_size():
    return dp(84), dp(58)


def _fit(text, width, sizes=(13, 12, 11, 10)):
    """(font size, text) so every word of `text` fits `width` (long words hyphenated last)."""
    for s in sizes:
        fs = sp(s)
        if all(CoreLabel(text=w, font_size=fs).get_extents(w)[0] <= width for w in text.split()):
            return fs, text
    fs = sp(sizes[-1])
    words = []
    for w in text.split():
        while CoreLabel(text=w, font_size=fs).get_extents(w)[0] > width and len(w) > 4:
            cut = len(w) // 2
            words.append(w[:cut] + "-")
            w = w[cut:]
        words.append(w)
    return fs, " ".join(words)


class AreaCell(ButtonBehavior, Label):
    """One area of the map: a tile that can be tapped."""
    area_id = StringProperty("")
    fill = ListProperty([0.5, 0.5, 0.5, 1])
    ring = ListProperty([0, 0, 0, 0])
    lit = BooleanProperty(False)

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.canvas.before:
            self._fill_c = Color(*self.fill)
            self._fill_r = Rectangle(pos=self.pos, size=self.size)
            self._ring_c = Color(*self.ring)
            self._ring_l = Line(rectangle=(*self.pos, *self.size), width=dp(2))
        self.bind(pos=self._redraw, size=self._redraw, fill=self._redraw, ring=self._redraw)

    def _redraw(self, *_):
        self._fill_c.rgba = self.fill
        self._fill_r.pos, self._fill_r.size = self.pos, self.size
        self._ring_c.rgba = self.ring
        self._ring_l.width = dp(3) if self.lit else dp(1.5)
        self._ring_l.rectangle = (self.x + dp(1), self.y + dp(1), self.width - dp(2), self.height - dp(2))


class AreaMap(RelativeLayout):
    """The drawing itself: tiles on the grid and the borders between them."""

    def __init__(self, **kw):
        kw.setdefault("size_hint", (None, None))
        super().__init__(**kw)
        self.cells = {}
        self._bg = InstructionGroup()  # after the layout's own translation in canvas.before
        self.canvas.before.add(self._bg)

    def draw(self, model, colour_of, name_of, legal=None, on_tap=None, window=None, width=None):
        """`model`: the view's map_model; `legal`: the ids to light (None: a read-only map, nothing
        dimmed); `on_tap(area_id)` for a tap on any area; `window` (first column, columns): draw
        only those columns, `width` wide (the picker pans the map instead of scrolling it)."""
        self.clear_widgets()
        self._bg.clear()
        self.cells = {}
        cw, ch = cell_size()
        c0, ncols = window or (0, model["cols"])
        if width:
            cw = width / ncols
        gap = dp(4)
        rows = model["rows"]
        self.size = (ncols * cw, rows * ch)
        areas = [dict(a, col=a["col"] - c0) for a in model["areas"] if c0 <= a["col"] < c0 + ncols]
        pos = {}
        for a in areas:
            x, y = a["col"] * cw, (rows - 1 - a["row"]) * ch
            pos[a["id"]] = (x + cw / 2, y + ch / 2)
        bg = self._bg
        bg.add(Color(0.07, 0.09, 0.12, 1))
        bg.add(Rectangle(pos=(0, 0), size=self.size))
        bg.add(Color(0.85, 0.85, 0.8, 0.55))
        for a, b in model["edges"]:  # borders: a line between the tiles of every two neighbours
            if a in pos and b in pos:
                bg.add(Line(points=[*pos[a], *pos[b]], width=dp(1.2)))
        for a in areas:
            kind = a["kind"]
            fill = list(TERRAIN[kind])
            ring = [0, 0, 0, 0]
            if a["owner"]:
                r, g, b, _ = rgba(colour_of(a["owner"]))
                fill = [0.35 * fill[0] + 0.65 * r, 0.35 * fill[1] + 0.65 * g, 0.35 * fill[2] + 0.65 * b, 1]
                ring = [r, g, b, 1]
            is_lit = legal is not None and a["id"] in legal
            if is_lit:
                ring = list(LIT)
            elif legal is not None:
                fill = [fill[0] * 0.45, fill[1] * 0.45, fill[2] * 0.45, 1]  # not a choice now: dimmed
            fs, name = _fit(a["name"], cw - gap - dp(6))
            lines = [f"[b]{name}[/b]" if is_lit else name]
            if a["owner"]:
                held = f"{a['pt']} PT" + (" + city" if a["city"] else "")
                lines.append(f"{name_of(a['owner'])}: {held}" if cw > dp(100) else held)
            cell = AreaCell(area_id=a["id"], text="\n".join(lines), markup=True, font_size=fs,
                            halign="center", valign="middle", fill=fill, ring=ring, lit=is_lit,
                            color=(1, 1, 1, 1) if (legal is None or is_lit or kind != "land") else (0.8, 0.8, 0.8, 1),
                            outline_width=1, outline_color=(0, 0, 0),
                            size_hint=(None, None), size=(cw - gap, ch - gap),
                            pos=(a["col"] * cw + gap / 2, (rows - 1 - a["row"]) * ch + gap / 2))
            cell.text_size = (cell.width - dp(4), cell.height - dp(2))
            if on_tap is not None:
                cell.bind(on_release=lambda c: on_tap(c.area_id))
            self.add_widget(cell)
            self.cells[a["id"]] = cell


def _controller():
    app = App.get_running_app()
    return getattr(app, "ctrl", None)


_live = []  # the AreaPicker offering an area question now (the Map tab takes its taps too)


def live_picker():
    """The AreaPicker whose question is open on the screen now, or None."""
    p = _live[0] if _live else None
    return p if p is not None and p.parent is not None and p.question is not None else None


class AreaPicker(BoxLayout):
    """The map as the picker of an area (see the module docstring). The map is as wide as the
    decision column: where the areas in play need more columns than fit, "West" and "East" pan
    it (no scroll area inside the scrolling column, so a tap is never taken for a scroll)."""
    hint = StringProperty("")
    why = StringProperty("")

    def __init__(self, **kw):
        kw.setdefault("orientation", "vertical")
        kw.setdefault("size_hint_y", None)
        kw.setdefault("spacing", dp(4))
        super().__init__(**kw)
        self.question = None
        self.on_pick = None
        self.legal = {}
        self.c0 = 0
        self._model = None
        self.hint_label = Label(text="", markup=True, size_hint_y=None, font_size=sp(14), halign="left",
                                valign="middle", color=(0.85, 0.9, 1, 1))
        self.hint_label.bind(width=lambda w, v: setattr(w, "text_size", (v, None)),
                             texture_size=lambda w, v: setattr(w, "height", max(dp(24), v[1] + dp(4))))
        self.why_label = Label(text="", markup=True, size_hint_y=None, font_size=sp(15), halign="left",
                               valign="middle", color=(1, 0.7, 0.55, 1))
        self.why_label.bind(width=lambda w, v: setattr(w, "text_size", (v, None)),
                            texture_size=lambda w, v: setattr(w, "height", (v[1] + dp(6)) if w.text else 0))
        self.pan = BoxLayout(size_hint_y=None, height=0, spacing=dp(6))
        self.west = Button(text="< West", font_size=sp(15), size_hint_x=None, width=dp(96))
        self.east = Button(text="East >", font_size=sp(15), size_hint_x=None, width=dp(96))
        self.where_label = Label(text="", font_size=sp(13), color=(0.8, 0.8, 0.8, 1), halign="center",
                                 valign="middle")
        self.where_label.bind(size=lambda w, v: setattr(w, "text_size", v))
        self.west.bind(on_release=lambda *_: self.pan_by(-1))
        self.east.bind(on_release=lambda *_: self.pan_by(1))
        for w in (self.west, self.where_label, self.east):
            self.pan.add_widget(w)
        self.map = AreaMap()
        for w in (self.hint_label, self.why_label, self.pan, self.map):  # why: above the map, in sight
            self.add_widget(w)
            w.bind(height=self._fit_height)
        self._panned = False  # the player moved the map: a new width keeps their place
        self.bind(width=lambda *_: Clock.schedule_once(lambda dt: self.redraw(first=not self._panned), 0))

    def _fit_height(self, *_):
        self.height = sum(c.height for c in self.children) + self.spacing * (len(self.children) - 1)

    def offer(self, question, on_pick):
        """Light the areas of `question.options` ([(area id, label)]); a tap on one calls on_pick."""
        self.question, self.on_pick = question, on_pick
        _live[:] = [self]
        self.legal = {v: lbl for v, lbl in question.options}
        self.why = self.why_label.text = ""
        self._model = None
        n = len(self.legal)
        # the question itself stands above (the picker's words): say how to answer it here
        self.hint = self.hint_label.text = (f"Tap one of the {n} lit areas on the map." if n != 1
                                            else "Tap the lit area on the map.")
        self.redraw(first=True)

    def visible_cols(self):
        m = self._model
        if m is None:
            return 0
        fit = max(1, int(max(self.width, dp(200)) // cell_size()[0]))
        return min(m["cols"], fit)

    def redraw(self, first=False):
        ctrl = _controller()
        if ctrl is None or self.question is None:
            return
        if self._model is None:
            self._model = ctrl.view.map_model(ctrl.game, ctrl.state, ctrl.setup)
        m, n = self._model, self.visible_cols()
        if first:  # start where the lit areas are
            cols = sorted(a["col"] for a in m["areas"] if a["id"] in self.legal) or [0]
            self.c0 = cols[0] if cols[-1] - cols[0] < n else max(0, cols[len(cols) // 2] - n // 2)
        self.c0 = max(0, min(self.c0, m["cols"] - n))
        self.map.draw(m, ctrl.colour, ctrl.name, legal=set(self.legal), on_tap=self.tap,
                      window=(self.c0, n), width=max(self.width, dp(200)))
        panning = n < m["cols"]
        self.pan.height = dp(48) if panning else 0
        self.pan.opacity = 1 if panning else 0
        self.west.disabled = not panning or self.c0 == 0
        self.east.disabled = not panning or self.c0 + n >= m["cols"]
        hidden_w = sum(1 for a in m["areas"] if a["id"] in self.legal and a["col"] < self.c0)
        hidden_e = sum(1 for a in m["areas"] if a["id"] in self.legal and a["col"] >= self.c0 + n)
        self.where_label.text = (f"{hidden_w} lit west\n{hidden_e} lit east"
                                 if panning and (hidden_w or hidden_e) else "")

    def pan_by(self, direction):
        self._panned = True
        self.c0 += direction * max(1, self.visible_cols() // 2)
        self.redraw()

    def show_area(self, area_id):
        """Pan so that `area_id` is drawn (for a player who searched it, and for tests)."""
        a = next((x for x in (self._model or {}).get("areas", ()) if x["id"] == area_id), None)
        if a is not None and area_id not in self.map.cells:
            self.c0 = a["col"] - self.visible_cols() // 2
            self._panned = True
            self.redraw()

    def tap(self, area_id):
        """A tap on an area: picks it when legal now, else says why in plain words."""
        if area_id in self.legal:
            self.why = self.why_label.text = ""
            if self.on_pick is not None:
                self.on_pick(area_id)
            return
        ctrl = _controller()
        if ctrl is None:
            return
        actions = ctrl.legal_actions()
        why = ctrl.view.why_not_area(ctrl.game, ctrl.state, ctrl.setup, actions, self.question.field, area_id)
        self.why = self.why_label.text = why + " Tap a lit area."
