"""The virtual board drawn as the table itself: every track with its spaces and tokens, the
guidance lights, and the two dice wells (issue 18 item 5).

`VirtualTable` knows nothing of serial or the firmware: it draws what a `VirtualTableModel` gives it and
hands taps back to it. A token is moved by dragging it to another space or by tapping the space
(a lane's single token slides there); tapping a token lifts it off; tapping an empty lane puts a
token down. A well is rolled by tapping it. Lanes are named as the table knows them (the open
game's counter and player, else the track and seat), never by their ids; with a game open only the
lanes its binding uses are drawn, and a line says the rest are not used by that game.
"""
from __future__ import annotations

from kivy.graphics import Color, Ellipse, Line, Rectangle, RoundedRectangle
from kivy.metrics import dp
from kivy.properties import (BooleanProperty, ListProperty, NumericProperty,
                             ObjectProperty, StringProperty)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.widget import Widget

from companion.kit import die_pips
from companion.table.sensing import seat_words
from companion.words import well_name

LIGHT = (1.0, 0.8, 0.2, 1)       # a lit guidance LED
SPACE = (0.22, 0.22, 0.25, 1)
SPACE_EDGE = (0.45, 0.45, 0.5, 1)


def lane_label(lane_id: str, track: str | None, seat: str | None, counter_name=None, player=None) -> str:
    """'Ben - Food' with a game open (its counter on this lane), else 'Food (seat 2)'."""
    if counter_name:
        return f"{player} - {counter_name}" if player else counter_name
    words = (track or lane_id.split(".")[0]).replace("_", " ").capitalize()
    return f"{words} ({seat_words(seat)})" if seat and seat_words(seat) != seat else words


class LaneStrip(Widget):
    """One track: its spaces in a row (or, on a narrow screen, in lines of at most `per_line` spaces read
    left to right, top to bottom), the tokens on them, the lit space."""
    lane = StringProperty("")
    spaces = NumericProperty(1)
    per_line = NumericProperty(0)   # most spaces a line holds; 0: all on one line
    cols = NumericProperty(1)       # spaces on a line and lines, as drawn (from the two above)
    rows = NumericProperty(1)
    tokens = ListProperty([])       # positions holding a token
    lit = ListProperty([])          # positions whose light is on
    colour = ListProperty([0.8, 0.8, 0.8, 1])
    view = ObjectProperty(None, allownone=True)

    def __init__(self, **kw):
        super().__init__(**kw)
        self._down = None
        self.bind(pos=self._draw, size=self._draw, tokens=self._draw, lit=self._draw, spaces=self._draw,
                  colour=self._draw, per_line=self._draw)
        self.bind(spaces=self._shape, per_line=self._shape)
        self._shape()

    def _shape(self, *_):
        self.cols, self.rows = self.line_length(), self.lines()

    def line_length(self) -> int:
        n = max(1, int(self.spaces))
        if not self.per_line or n <= self.per_line:
            return n
        lines = -(-n // int(self.per_line))
        return -(-n // lines)  # lines of even length: 16 in lines of 6 as 6, 6, 4; 8 as 4, 4

    def lines(self) -> int:
        return -(-max(1, int(self.spaces)) // self.line_length())

    def cell_width(self) -> float:
        return self.width / self.line_length()

    def cell_height(self) -> float:
        return self.height / self.lines()

    def cell_origin(self, i):
        """Bottom-left corner of space i."""
        line, col = divmod(i, self.line_length())
        return self.x + col * self.cell_width(), self.top - (line + 1) * self.cell_height()

    def space_at(self, x, y=None) -> int | None:
        col = int((x - self.x) // self.cell_width())
        line = 0 if y is None else int((self.top - y) // self.cell_height())
        i = line * self.line_length() + col
        return i if 0 <= col < self.line_length() and 0 <= line and i < int(self.spaces) else None

    def _draw(self, *_):
        self.canvas.clear()
        w, h, pad = self.cell_width(), self.cell_height(), dp(3)
        with self.canvas:
            for i in range(int(self.spaces)):
                x, y = self.cell_origin(i)
                Color(*(LIGHT if i in self.lit else SPACE))
                Rectangle(pos=(x + pad, y + pad), size=(w - 2 * pad, h - 2 * pad))
                Color(*SPACE_EDGE)
                Line(rectangle=(x + pad, y + pad, w - 2 * pad, h - 2 * pad), width=1)
            for i in self.tokens:
                if 0 <= i < int(self.spaces):
                    r = min(w, h) / 2 - dp(7)
                    x, y = self.cell_origin(i)
                    cx, cy = x + w / 2, y + h / 2
                    Color(0, 0, 0, 0.6)
                    Ellipse(pos=(cx - r - dp(1.5), cy - r - dp(1.5)), size=(2 * r + dp(3), 2 * r + dp(3)))
                    Color(*self.colour)
                    Ellipse(pos=(cx - r, cy - r), size=(2 * r, 2 * r))

    def on_touch_down(self, touch):
        if not self.collide_point(*touch.pos):
            return False
        self._down = self.space_at(touch.x, touch.y)
        touch.grab(self)
        return True

    def on_touch_up(self, touch):
        if touch.grab_current is not self:
            return False
        touch.ungrab(self)
        start = self._down
        end = self.space_at(touch.x, touch.y) if self.collide_point(*touch.pos) else None
        self._down = None
        if self.view is not None and start is not None:
            self.view.space_gesture(self.lane, start, end)
        return True


class LaneRow(BoxLayout):
    """A track's name and its strip (spaces of one width on every track, so they line up); on a
    narrow screen the name sits above the strip and a long strip wraps (`per_line`)."""
    lane = StringProperty("")
    label = StringProperty("")
    colour = ListProperty([0.8, 0.8, 0.8, 1])
    cell = NumericProperty(dp(56))
    stacked = BooleanProperty(False)
    per_line = NumericProperty(0)


class DieWell(Widget):
    """A dice well seen from above: the die with its pips (or what the board says instead)."""
    number = NumericProperty(1)        # well 1, well 2 (as the table numbers them)
    value = NumericProperty(0)         # 0: no settled die
    state = StringProperty("empty")    # empty / rolling / settled / crooked / removed
    view = ObjectProperty(None, allownone=True)
    pressed = BooleanProperty(False)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.bind(pos=self._draw, size=self._draw, value=self._draw, state=self._draw)

    def _draw(self, *_):
        self.canvas.clear()
        side = min(self.width, self.height) - dp(16)
        x, y = self.center_x - side / 2, self.center_y - side / 2
        with self.canvas:
            Color(0.1, 0.1, 0.12, 1)  # the well
            Ellipse(pos=(self.center_x - side / 2 - dp(8), self.center_y - side / 2 - dp(8)),
                    size=(side + dp(16), side + dp(16)))
            if self.state in ("settled", "crooked", "rolling") and self.value:
                Color(*((0.95, 0.95, 0.95, 1) if self.state == "settled" else (0.8, 0.7, 0.5, 1)))
                RoundedRectangle(pos=(x + dp(6), y + dp(6)), size=(side - dp(12), side - dp(12)), radius=[dp(8)])
                Color(0.1, 0.1, 0.1, 1)
                r = side / 14
                for cx, cy in die_pips(int(self.value), x + dp(6), y + dp(6), side - dp(12)):
                    Ellipse(pos=(cx - r, cy - r), size=(2 * r, 2 * r))

    def on_touch_down(self, touch):
        if not self.collide_point(*touch.pos):
            return False
        if self.view is not None:
            self.view.roll_well(int(self.number) - 1)
        return True


class VirtualTable(BoxLayout):
    """The whole table. `model` (a VirtualTableModel) supplies lanes, tokens, lights and wells and takes
    the gestures; `refresh()` redraws from it."""
    model = ObjectProperty(None, allownone=True)
    message = StringProperty("")
    note = StringProperty("")        # the tracks the open game does not use (hidden), in words
    cell = NumericProperty(dp(56))   # one space: at least 48 dp (a finger), at most 64 dp
    stacked = BooleanProperty(False)  # names above the strips (too narrow for them beside)
    per_line = NumericProperty(0)     # most spaces a line of a strip holds; 0: one line
    LABEL_W = dp(200)
    MIN_CELL, MAX_CELL = dp(48), dp(64)

    def on_width(self, *_):
        most = max((int(s.spaces) for s in getattr(self, "_strips", {}).values()), default=8)
        room = self.width - dp(24)
        if self.LABEL_W + most * self.MIN_CELL <= room:
            self.stacked, self.per_line = False, 0
            self.cell = min(self.MAX_CELL, (room - self.LABEL_W) / most)
            return
        # a phone, a small tablet: the names go above; a strip longer than the width wraps
        self.stacked = True
        fit = max(1, int(room // self.MIN_CELL))  # spaces a line holds at a finger's width
        self.per_line = 0 if fit >= most else fit
        self.cell = min(self.MAX_CELL, room / min(fit, most))

    def on_model(self, *_):
        self.rebuild()

    def rebuild(self):
        box = self.ids.lanes
        box.clear_widgets()
        self._strips = {}
        m = self.model
        if m is None:
            self.note = ""
            return
        self.note = m.note()
        for lane, label, spaces, colour in m.lanes():
            row = LaneRow(lane=lane, label=label, colour=colour)
            row.cell, row.stacked, row.per_line = self.cell, self.stacked, self.per_line
            self.bind(cell=row.setter("cell"), stacked=row.setter("stacked"), per_line=row.setter("per_line"))
            strip = row.ids.strip
            strip.view, strip.spaces, strip.colour, strip.lane = self, spaces, colour, lane
            box.add_widget(row)
            self._strips[lane] = strip
        wells = self.ids.wells
        wells.clear_widgets()
        self._wells = []
        for i in range(m.n_wells()):
            w = WellBox(number=i + 1)
            w.ids.die.view = self
            wells.add_widget(w)
            self._wells.append(w)
        self.on_width()
        self.refresh()

    def refresh(self):
        m = self.model
        if m is None or not hasattr(self, "_strips"):
            return
        tokens, lit = m.tokens(), m.lit()
        for lane, strip in self._strips.items():
            strip.tokens = sorted(tokens.get(lane, ()))
            strip.lit = sorted(p for (ln, p) in lit if ln == lane)
        for i, w in enumerate(self._wells):
            state, value, words = m.well(i)
            w.ids.die.state, w.ids.die.value, w.words = state, value, words

    # gestures -> the model
    def space_gesture(self, lane, start, end):
        m = self.model
        if m is None:
            return
        have = sorted(m.tokens().get(lane, ()))
        if end is not None and end != start and start in have:
            self.message = m.move(lane, start, end)           # a token dragged along its track
        elif end == start and start in have:
            self.message = m.remove(lane, start)              # a token lifted off
        elif end == start and len(have) == 1:
            self.message = m.move(lane, have[0], start)       # the lane's token slid to the tapped space
        elif end == start:
            self.message = m.place(lane, start)               # a token put down
        self.refresh()

    def roll_well(self, index):
        if self.model is not None:
            self.message = self.model.roll(index)
            self.refresh()


class WellBox(BoxLayout):
    number = NumericProperty(1)
    words = StringProperty("")


class VirtualTableModel:
    """What the view shows and where its gestures go, over a VirtualBoard (companion/link/virtual_board.py)
    and the board's sensor map; `counter_of(lane)` -> (counter name, player name, rgba) or None
    names a lane after the open game's counter; `game()` -> (the open game's title, the lanes its
    binding puts a counter on) or None (no game open: every lane, named by the map)."""

    def __init__(self, board, counter_of=lambda lane: None, game=lambda: None):
        self.board = board
        self.counter_of = counter_of
        self.game = game

    def shown_lanes(self) -> list:
        """The lane ids drawn, in map order: with a game open only those its counters sit on."""
        smap = self.board.smap
        if smap is None:
            return []
        g = self.game()
        return [ln for ln in smap.lane_ids if g is None or ln in g[1]]

    def note(self) -> str:
        """What is not drawn, in plain words ('' when every lane is)."""
        smap, g = self.board.smap, self.game()
        if smap is None or g is None:
            return ""
        title, used = g
        n, hidden = smap.n_lanes, sum(1 for ln in smap.lane_ids if ln not in used)
        if not hidden:
            return ""
        if hidden == n:
            return f"{title} keeps nothing on the board's tracks: they are not used by {title} and hidden here."
        return (f"{title} uses {n - hidden} of the board's {n} tracks; the other {hidden} are not used by "
                f"{title} and hidden here.")

    @property
    def vb(self):
        return self.board.virtual

    def lanes(self) -> list:
        smap = self.board.smap
        if smap is None:
            return []
        out = []
        for lane in self.shown_lanes():
            k = smap.lane_index(lane)
            c = self.counter_of(lane)
            colour = list(c[2]) if c else [0.85, 0.85, 0.85, 1]
            out.append((lane, self.lane_words(lane), smap.n_spaces(k), colour))
        return out

    def tokens(self) -> dict:
        vb = self.vb
        return vb.tokens() if vb is not None else {}

    def lit(self) -> set:
        vb, smap = self.vb, self.board.smap
        if vb is None or smap is None:
            return set()
        return {(smap.lane_ids[k], p) for k, p in vb.call(lambda _b: vb.world.lit_positions())}

    def n_wells(self) -> int:
        smap = self.board.smap
        return len(getattr(smap, "well_ids", ()) or ()) or 2

    def well(self, index):
        """(state, value, words) as the app senses well `index`."""
        smap = self.board.smap
        ids = getattr(smap, "well_ids", None) or []
        w = self.board.wells().get(ids[index]) if index < len(ids) else None  # (state, value)
        label = well_name(index).capitalize()
        if not w:
            return "empty", 0, f"{label}: empty - tap to throw a die"
        state, value = w[0], w[1] or 0
        words = {"settled": f"shows {value}", "rolling": "rolling", "crooked": "crooked: roll again",
                 "empty": "empty - tap to throw a die", "removed": "empty - tap to throw a die"}.get(state, state)
        return state, value, f"{label}: {words}"

    def _do(self, fn, done) -> str:
        vb = self.vb
        if vb is None:
            return "Only the virtual board can be played on screen."
        try:
            fn(vb)
        except (ValueError, KeyError) as exc:
            return str(exc)
        return done

    def lane_words(self, lane) -> str:
        """A lane as the table knows it: the open game's counter and player ('Ben - Food'), else
        its track and seat ('Food (seat 2)'); a lane the map lacks keeps its id."""
        smap = self.board.smap
        if smap is None or lane not in smap.lane_ids:
            return lane
        g = self.game()
        if g is not None and lane not in g[1]:
            return f"Not used by {g[0]}"  # the map's track name belongs to another game
        k = smap.lane_index(lane)
        c = self.counter_of(lane)
        return lane_label(lane, smap.lane_tracks[k], smap.lane_seats[k], *(c[:2] if c else ()))

    def place(self, lane, pos) -> str:
        return self._do(lambda vb: vb.place(lane, pos), f"{self.lane_words(lane)}: token put on space {pos}.")

    def remove(self, lane, pos) -> str:
        return self._do(lambda vb: vb.remove(lane, pos), f"{self.lane_words(lane)}: token lifted off space {pos}.")

    def move(self, lane, start, end) -> str:
        return self._do(lambda vb: vb.move(lane, start, end, ms_per_space=40),
                        f"{self.lane_words(lane)}: token slid from space {start} to {end}.")

    def roll(self, index) -> str:
        return self._do(lambda vb: vb.roll(index), f"A die thrown into {well_name(index)}.")

