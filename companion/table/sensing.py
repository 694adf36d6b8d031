"""One board, every game: which of a game's counters sit on which lanes of the attached board,
and which rolls the dice wells fill (no Kivy, no serial).

The sensor map (hardware/sensor_map.json) describes the physical board: lanes with a seat, a kind
and a number of spaces. A game declares (its `Sensing`) the counters it would like sensed and the
rolls it asks for; `Binding.bind` puts the counters on the lanes:

1. a counter whose preferred `lane` exists, is free and is long enough takes it;
2. the others, in declaration order, take the best free lane that fits, ranked by same seat,
   then same kind, then fewest spaces (the tightest fit), then map order;
3. a counter that fits no lane is `unbound`: it stays on the tablet.

A counter's value v sits on position v - low of its lane.
"""
from __future__ import annotations

import dataclasses
from xml.sax.saxutils import escape


@dataclasses.dataclass(frozen=True)
class Lane:
    id: str
    seat: str | None
    kind: str | None
    track: str | None
    spaces: int


def lanes_of(smap) -> list:
    """The lanes of a firmware SensorMap (firmware/sensormap.py), in map order; [] for None."""
    if smap is None:
        return []
    return [Lane(smap.lane_ids[i], smap.lane_seats[i], smap.lane_kinds[i], smap.lane_tracks[i],
                 len(smap.lane_byte[i])) for i in range(smap.n_lanes)]


@dataclasses.dataclass(frozen=True)
class Counter:
    id: str
    name: str
    seat: str | None
    low: int
    high: int
    lane: str | None = None
    kind: str | None = None
    on_pad: bool = False  # the rules keep it on a pad: no token to place unless a lane holds it

    @property
    def size(self) -> int:
        return self.high - self.low + 1


@dataclasses.dataclass(frozen=True)
class Roll:
    """A roll the game asks the dice wells for: the chance action's type, its name in plain
    words, how many dice, and the fields the values fill (one per die, or one list field)."""
    action: str
    name: str
    dice: int
    fields: tuple

    def action_from(self, values) -> dict:
        values = list(values)
        if len(values) != self.dice:
            raise ValueError(f"{self.name} needs {self.dice} {'die' if self.dice == 1 else 'dice'}, got {len(values)}")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
                raise ValueError(f"{self.name}: a die shows 1 to 6, not {v!r}")
        if len(self.fields) == self.dice:
            return {"type": self.action, **dict(zip(self.fields, values))}
        if len(self.fields) == 1:
            return {"type": self.action, self.fields[0]: values}
        raise ValueError(f"{self.name}: {len(self.fields)} fields for {self.dice} dice")


class Sensing:
    """What a game would like sensed. Subclass it in the game's folder."""
    rolls: tuple = ()

    def counters(self, setup) -> list:
        return []

    def roll_for(self, action_type) -> Roll | None:
        return next((r for r in self.rolls if r.action == action_type), None)

    def dice_usable(self, state, action_type) -> int:
        """How many one-die throws of the awaited roll the wells may answer at once: the rules
        ask this roll and, with more than 1, as many one-die rolls right after it (a set-up's dice
        thrown two at a time, read well 1 first). With 1, a second fresh die is said and not used."""
        return 1

    def value(self, state, counter_id) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def value_text(self, counter_id, value) -> str:
        return str(value)

    def correction(self, counter_id, value) -> dict | None:
        """The engine action that records `value` read off the table (None: the game has none)."""
        return None


class Binding:
    def __init__(self, counters, lanes, lane_of):
        self.counters = {c.id: c for c in counters}
        self.lane_of = dict(lane_of)
        self._counter_of = {lane: self.counters[cid] for cid, lane in self.lane_of.items()}
        self.lanes = [ln.id for ln in lanes if ln.id in self._counter_of]
        self.unbound = [c for c in counters if c.id not in self.lane_of]

    @classmethod
    def bind(cls, counters, lanes) -> "Binding":
        counters, lanes = list(counters), list(lanes)
        by_id = {ln.id: ln for ln in lanes}
        taken, lane_of = set(), {}
        for c in counters:
            ln = by_id.get(c.lane) if c.lane else None
            if ln is not None and ln.id not in taken and ln.spaces >= c.size:
                lane_of[c.id] = ln.id
                taken.add(ln.id)
        order = {ln.id: i for i, ln in enumerate(lanes)}
        for c in counters:
            if c.id in lane_of:
                continue
            free = [ln for ln in lanes if ln.id not in taken and ln.spaces >= c.size]
            if not free:
                continue
            best = min(free, key=lambda ln: (ln.seat != c.seat, c.kind is not None and ln.kind != c.kind,
                                             ln.spaces, order[ln.id]))
            lane_of[c.id] = best.id
            taken.add(best.id)
        return cls(counters, lanes, lane_of)

    def counter_of(self, lane_id) -> Counter | None:
        return self._counter_of.get(lane_id)

    def position(self, counter_id, value) -> int:
        return value - self.counters[counter_id].low

    def value_at(self, lane_id, position) -> int | None:
        c = self._counter_of.get(lane_id)
        if c is None or not isinstance(position, int) or not 0 <= position < c.size:
            return None
        return c.low + position

    def unbound_text(self, seat_name=lambda seat: seat) -> str:
        if not self.unbound:
            return ""
        names = ", ".join(f"{c.name} ({seat_name(c.seat)})" if c.seat else c.name for c in self.unbound)
        return f"Not on the board (keep these on the tablet): {names}."


def seat_words(seat: str) -> str:
    """'p2' -> 'seat 2' (a printed overlay names seats as the table does, never by id)."""
    return f"seat {seat[1:]}" if seat[:1] == "p" and seat[1:].isdigit() else seat


def _strip_spots(strip, board) -> list:
    """Every spot of a strip as (chain bit, x, y) in strip mm, from its board's grid in the map
    (`boards`: spot c of row r is local bit r * cols + c); none when the map gives no grid."""
    if not board:
        return []
    base = strip["first_register"] * 8
    cols = board["cols"]
    return [(base + r * cols + c, board["first_x_mm"] + c * board["pitch_mm"], y)
            for r, y in enumerate(board["rows_mm"]) for c in range(cols)]


def _not_used(cx: float, cy: float) -> list:
    """A spot with no value on the overlay: dashed, 'not used'."""
    return [f'<circle cx="{cx:g}" cy="{cy:g}" r="5" fill="none" stroke="#bbb" stroke-width="0.3" '
            f'stroke-dasharray="1 1"/>',
            f'<text x="{cx:g}" y="{cy + 0.6:g}" font-size="1.8" fill="#999" text-anchor="middle">not used</text>']


def overlay_svg(title: str, binding: Binding, sensing_map: dict) -> str:
    """A printable 1:1 overlay (mm) of every strip (the boards in chain order): each lane's counter
    named above the lane's first space, each space with the value it means; a lane the game leaves
    free is named "unused", and every spot without a value (a lane's spaces past the counter's
    range, a free lane's, the spots no lane uses) is drawn dashed as "not used". Between a strip's
    rows: which board it is, counted from the controller, and the strip's id."""
    strips = sensing_map["strips"]
    gap = 6.0
    width = max(s["size_mm"][0] for s in strips) + 2 * gap
    y = gap + 10.0
    at = {}
    for s in strips:
        at[s["id"]] = y
        y += s["size_mm"][1] + gap
    height = y
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}mm" height="{height:g}mm" '
           f'viewBox="0 0 {width:g} {height:g}" font-family="sans-serif">',
           f'<text x="{gap:g}" y="{gap + 5:g}" font-size="6">{escape(title)}: board overlay (print at 100%)</text>']
    for n, s in enumerate(strips, 1):
        w, h = s["size_mm"]
        top = at[s["id"]]
        lanes = [ln for ln in sensing_map["lanes"] if ln["strip"] == s["id"]]
        rows = sorted({ln["at_mm"][1] for ln in lanes}) or [h / 2]
        mid = top + (rows[0] + rows[-1]) / 2 if len(rows) > 1 else top + h - 3
        out.append(f'<rect x="{gap:g}" y="{top:g}" width="{w:g}" height="{h:g}" fill="none" '
                   f'stroke="black" stroke-width="0.3"/>')
        out.append(f'<text x="{gap + w / 2:g}" y="{mid + 3:g}" font-size="2.5" fill="#777" '
                   f'text-anchor="middle">{escape(s["id"])}</text>')
        out.append(f'<text x="{gap + w / 2:g}" y="{mid - 1:g}" font-size="4" text-anchor="middle">'
                   f'{escape(title)}: board {n} of {len(strips)} from the controller</text>')
        used = set()
        for ln in lanes:
            x0, y0 = ln["at_mm"]
            dx, dy = ln["step_mm"]
            c = binding.counter_of(ln["id"])
            label = f"{c.name} ({seat_words(c.seat)})" if c is not None and c.seat else (c.name if c else "unused")
            out.append(f'<text x="{gap + x0 - 5:g}" y="{top + y0 - abs(dx) / 2 - 1.2:g}" '
                       f'font-size="3.2">{escape(label)}</text>')
            for i, bit in enumerate(ln["bits"]):
                used.add(bit)
                cx, cy = gap + x0 + i * dx, top + y0 + i * dy
                v = binding.value_at(ln["id"], i) if c is not None else None
                if v is None:
                    out += _not_used(cx, cy)
                    continue
                out.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="5" fill="none" stroke="#999" stroke-width="0.3"/>')
                out.append(f'<text x="{cx:g}" y="{cy + 1.2:g}" font-size="3.5" text-anchor="middle">{v}</text>')
        for bit, x, yy in _strip_spots(s, sensing_map.get("boards", {}).get(s.get("board"))):
            if bit not in used:
                out += _not_used(gap + x, top + yy)
    out.append("</svg>")
    return "\n".join(out) + "\n"
