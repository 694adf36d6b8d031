"""Map view: the 2x2 map cards, units in their owner's colour, touch to move. Layout in map.kv.

The dashboard builds `MapView()` and calls `update(screen, ctrl, snap)` after every change.
During the Move step the acting player taps one of their units (a marker, a space holding it, or
its chip in the bar under the map); the spaces the engine's `reachable` lists light up; tapping a
space builds the same move action the engine lists and hands it to `screen.submit`, where it waits
for the dashboard's one Confirm. A space
the engine refuses shows the engine's own message (`ctrl.check`) and nothing is dispatched.
Outside the Move step a tap only tells what is on a space. No rule is decided here.

`show_layout(layout)` draws map faces without a game (the New game preview).
"""
from __future__ import annotations

import re

from kivy.clock import Clock
from kivy.graphics import Color, Ellipse
from kivy.metrics import dp, sp
from kivy.properties import (BooleanProperty, ListProperty, NumericProperty, ObjectProperty,
                             StringProperty)
from kivy.factory import Factory
from kivy.uix.anchorlayout import AnchorLayout
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from companion.engine.errors import SetupError
from companion.games.civmint.board import LETTERS, OFFSETS, Board, parse_token
from companion.games.civmint.data_load import DATA
from companion.games.civmint import labels as L

from companion.kit import die_pips, nice, rgba

ABBR = {"settler": "S", "village": "V", "city": "Ct", "capital": "Cap", "infantry": "I",
        "cavalry": "Cv", "artillery": "A", "ship": "Sh"}
RES_LETTER = {v: k for k, v in LETTERS.items()}
TINT_ALPHA = 0.30


def _rgba(colour):
    return list(rgba(colour))


def ink_for(fill) -> list:
    """Black text on light fills (yellow), white on the others."""
    r, g, b = fill[:3]
    return [0, 0, 0, 1] if 0.299 * r + 0.587 * g + 0.114 * b > 0.6 else [1, 1, 1, 1]


def layout_cells(layout: dict) -> list[dict]:
    """Spaces of a layout straight from the face data (also for layouts the engine refuses, so the
    preview still shows what was picked). Same ids and positions as the engine's Board."""
    faces, n = DATA.maps["faces"], DATA.maps["card_size"]
    out = []
    for pos, face in layout.items():
        if pos not in OFFSETS or face not in faces:
            continue
        r0, c0 = OFFSETS[pos]
        for r, row in enumerate(faces[face]):
            for c, tok in enumerate(row):
                water, cap, res = parse_token(tok)
                R, C = r0 * n + r, c0 * n + c
                out.append({"id": f"r{R}c{C}", "row": R, "col": C, "water": water,
                            "resources": list(res), "capital": cap, "card": face})
    return out


def layout_error(layout: dict) -> str | None:
    """The engine's refusal of a map layout, or None when it is accepted."""
    try:
        Board(layout)
    except SetupError as exc:
        return str(exc)
    return None


class UnitMarker(Label):
    """One marker per group of identical units on a space (kind, owner, damage, ship, moved),
    drawn as the die on the table: the owner's colour with the kind's face (the capital, not a
    die, by name); the text is only the count and a ship's cargo."""
    unit_ids = ListProperty([])
    fill = ListProperty([0.5, 0.5, 0.5, 1])
    ink = ListProperty([1, 1, 1, 1])
    selected = BooleanProperty(False)
    dimmed = BooleanProperty(False)
    carried = BooleanProperty(False)
    damage = NumericProperty(0)
    face = NumericProperty(0)  # the die face of the kind (units.json); 0: not a die

    def __init__(self, **kw):
        super().__init__(**kw)
        self.bind(pos=self._pips, size=self._pips, face=self._pips, ink=self._pips)

    def _pips(self, *_):
        self.canvas.after.remove_group("pips")
        if not self.face:
            return
        side = max(0.0, min(self.width, self.height) - dp(6))
        x, y = self.center_x - side / 2, self.center_y - side / 2
        r = max(dp(1.2), side / 11)
        self.canvas.after.add(Color(*self.ink, group="pips"))
        for cx, cy in die_pips(int(self.face), x, y, side):
            self.canvas.after.add(Ellipse(pos=(cx - r, cy - r), size=(2 * r, 2 * r), group="pips"))


class UnitChip(Button):
    """A unit in the bar under the map: a >= 48 dp target for picking one unit of a crowded space."""
    unit_id = NumericProperty(0)
    fill = ListProperty([0.5, 0.5, 0.5, 1])
    ink = ListProperty([1, 1, 1, 1])
    selected = BooleanProperty(False)
    view = ObjectProperty(None, allownone=True)


class MapSpace(BoxLayout):
    """One space of the map, drawn; the map takes the taps as one control (MapGrid)."""
    space_id = StringProperty("")
    water = BooleanProperty(False)
    capital = BooleanProperty(False)
    res_text = StringProperty("")
    tint = ListProperty([0, 0, 0, 0])
    contested = BooleanProperty(False)
    reachable = BooleanProperty(False)
    selected = BooleanProperty(False)
    cell = NumericProperty(dp(48))
    view = ObjectProperty(None, allownone=True)
    marker_cols = NumericProperty(1)


class MapLabels(BoxLayout):
    """The numbers of the map's rows (vertical) or columns, 1 to `count`, one per cell."""
    count = NumericProperty(0)

    def on_count(self, *_):
        self.clear_widgets()
        for i in range(int(self.count)):
            self.add_widget(Factory.MapLabel(text=str(i + 1)))


class MapGrid(GridLayout):
    """The spaces; one touch control for the whole map (so the board fits a small window whole,
    spaces under 48 dp): a tap goes to the space under the finger, and to the marker there."""
    cell = NumericProperty(dp(48))

    def on_touch_down(self, touch):
        if self.collide_point(*touch.pos) and not getattr(touch, "is_mouse_scrolling", False):
            touch.ud["map_grid"] = self
            return True
        return super().on_touch_down(touch)

    def on_touch_up(self, touch):
        if touch.ud.get("map_grid") is not self or not self.collide_point(*touch.pos):
            return super().on_touch_up(touch)
        for w in self.children:
            if isinstance(w, MapSpace) and w.view is not None and w.collide_point(*touch.pos):
                w.view.tap_space(w.space_id, tuple(touch.pos))
                return True
        return True


class MapView(BoxLayout):
    message = StringProperty("")
    error = BooleanProperty(False)
    preview = BooleanProperty(False)       # New game preview: no strip, no touch
    side = BooleanProperty(False)          # message and chips beside the map (set in map.kv)
    interactive = BooleanProperty(False)   # the Move step of a player
    min_cell = NumericProperty(dp(24))  # the whole board fits a 800x480 window (the map is one control)
    band = NumericProperty(dp(20))         # the strip of row and column numbers
    board_cols = NumericProperty(6)
    board_rows = NumericProperty(6)
    selected_unit = NumericProperty(0)     # 0 = none
    selected_space = StringProperty("")
    reach = ListProperty([])

    def __init__(self, **kw):
        super().__init__(**kw)
        self.screen = None
        self.ctrl = None
        self.acting = None
        self._cells = []
        self._spaces = {}       # id -> MapSpace
        self._cell_key = None
        self._seen_actions = None
        self._last_actor = None  # who acted at the last update: a new actor starts with no selection

    # ------------------------------------------------------------------ feeding
    def on_parent(self, _w, _parent):
        """Shown or hidden: the pickers' space question draws its own board only while the big
        map is not on screen (one map)."""
        if not self.preview:
            live = live_space_picker()
            if live is not None:
                Clock.schedule_once(lambda dt: live.sync(), 0)

    def offer_changed(self):
        if self.ctrl is not None:
            self._render()

    def update(self, screen, ctrl, snap):
        """Called by the dashboard after every change of state."""
        if self not in _maps and not self.preview:
            _maps[:] = [self]
        if ctrl is not self.ctrl:  # another game in the same dashboard: start clean
            self._unselect()
            self.selected_space, self.error = "", False
        self.screen, self.ctrl = screen, ctrl
        s = ctrl.state
        actor = snap.get("actor")
        self.interactive = (not snap.get("over") and snap.get("step") == "move"
                            and actor in s.players)
        self.acting = actor if self.interactive else None
        u = s.units.get(self.selected_unit) if self.selected_unit else None
        if u is None or not self.interactive or u.owner != self.acting:
            self._unselect()
        else:
            self.reach = list(ctrl.game.reachable(s, u))
        if self.selected_space and (self.selected_space not in s.board.spaces or actor != self._last_actor):
            self.selected_space = ""  # nothing of the previous player's picking carries over
        self._last_actor = actor
        self._set_cells([s.board.spaces[i].to_dict() for i in s.board.ids], s.board.size)
        self._render()
        changed = snap.get("actions") != self._seen_actions
        self._seen_actions = snap.get("actions")
        if changed or not self.message:  # a refusal or a space's details stay until the game moves on
            self.message, self.error = self._hint(), False

    def show_layout(self, layout: dict) -> str | None:
        """Preview of a layout without a game; returns the engine's refusal, or None."""
        self.ctrl = None
        n = DATA.maps["card_size"] * 2
        self._set_cells(layout_cells(layout), n)
        self._render()
        why = layout_error(layout)
        self.message, self.error = (why or ""), bool(why)
        return why

    def _set_cells(self, cells, size):
        key = tuple((c["id"], c["water"], tuple(c["resources"]), c["capital"]) for c in cells)
        if key == self._cell_key:
            return
        self._cell_key = key
        self._cells = sorted(cells, key=lambda c: (c["row"], c["col"]))
        self.board_cols = self.board_rows = size
        grid = self.ids.grid
        grid.clear_widgets()
        self._spaces = {}
        for c in self._cells:
            w = MapSpace(space_id=c["id"], water=c["water"], capital=c["capital"],
                         res_text=" ".join(RES_LETTER.get(r, "?") for r in c["resources"]),
                         view=None if self.preview else self)
            self._spaces[c["id"]] = w
            grid.add_widget(w)

    # ------------------------------------------------------------------ drawing
    def _groups(self, units):
        groups = {}
        for u in sorted(units, key=lambda u: (u.carrier != 0, u.owner, u.id)):
            key = (u.owner, u.kind, u.damage, u.carrier, u.moved, u.fresh)
            groups.setdefault(key, []).append(u)
        return list(groups.values())

    def _render(self):
        ctrl = self.ctrl
        s = ctrl.state if ctrl is not None else None
        tints, contested, by_space = {}, set(), {}
        if s is not None:
            g = ctrl.game
            for seat in s.players:
                col = _rgba(ctrl.colour(seat))
                for sid in g.controlled_spaces(s, seat):
                    tints[sid] = col[:3] + [TINT_ALPHA]
            contested = set(g.contested_spaces(s))
            for u in s.units.values():
                by_space.setdefault(u.space, []).append(u)
        reach = set(self.reach)
        live = live_space_picker()
        if live is not None and not self.preview:
            reach |= live.offered_ids()  # the pickers' question: the same spaces lit here
        for sid, w in self._spaces.items():
            w.tint = tints.get(sid, [0, 0, 0, 0])
            w.contested = sid in contested
            w.reachable = sid in reach
            w.selected = sid == self.selected_space
            box = w.ids.markers
            box.clear_widgets()
            groups = self._groups(by_space.get(sid, ()))
            w.marker_cols = 1 if len(groups) <= 1 else (2 if len(groups) <= 4 else 3)
            for grp in groups:
                box.add_widget(self._marker(s, grp))
            if s is None and w.capital:  # preview without units
                box.add_widget(Label(text="Cap", bold=True, color=(0.98, 0.85, 0.3, 1), font_size=sp(12)))
        self._fill_chips(by_space.get(self.selected_space, ()))

    def _marker(self, s, grp):
        u = grp[0]
        fill = _rgba(self.ctrl.colour(u.owner))
        kind = DATA.units[u.kind]
        face = (kind.get("face") or 0) if kind.get("die") else 0
        text = "" if face else ABBR.get(u.kind, u.kind[:2])
        if len(grp) > 1:
            text += f"\u00d7{len(grp)}"
        if u.kind == "ship":
            cargo = sum(1 for x in s.units.values() if x.carrier == u.id)
            if cargo:
                text += f"+{cargo}"
        ids = [x.id for x in grp]
        return UnitMarker(text=text, unit_ids=ids, fill=fill, ink=ink_for(fill), damage=u.damage, face=face,
                          carried=bool(u.carrier), selected=self.selected_unit in ids,
                          dimmed=self.interactive and u.owner == self.acting
                          and not self.ctrl.game.reachable(s, u))

    def _fill_chips(self, units):
        bar = self.ids.chips
        bar.clear_widgets()
        if self.ctrl is None:
            return
        for u in sorted(units, key=lambda u: (u.carrier != 0, u.owner, u.id)):
            fill = _rgba(self.ctrl.colour(u.owner))
            text = nice(u.kind)  # the chip's colour says whose; its place in the bar tells twins apart
            if u.damage:
                text += f", {u.damage} damage"
            if u.carrier:
                text += ", aboard"
            bar.add_widget(UnitChip(text=text, unit_id=u.id, fill=fill, ink=ink_for(fill),
                                    selected=u.id == self.selected_unit, view=self))
        Clock.schedule_once(self._show_selected_chip, 0)

    def _show_selected_chip(self, *_):
        """The selected unit's chip in view: a space with many units scrolls its chips."""
        chosen = [c for c in self.ids.chips.children if c.selected]
        if chosen and self.ids.chip_scroll.width > 0:
            self.ids.chip_scroll.scroll_to(chosen[0], padding=0, animate=False)

    # ------------------------------------------------------------------ text
    def _unit_name(self, u, owner=False) -> str:
        """'the Settler at row 2, column 5' ('one of the 2 Settlers ...'); with owner: "Ana's ..."."""
        return L.unit_words(u, self.ctrl.state, self.ctrl.name if owner else None)

    @staticmethod
    def _cap(text: str) -> str:
        return text[:1].upper() + text[1:]

    def _hint(self) -> str:
        if self.ctrl is None:
            return ""
        s = self.ctrl.state
        if self.interactive:
            u = s.units.get(self.selected_unit) if self.selected_unit else None
            if u is not None:
                if self.reach:
                    return (f"{self._cap(self._unit_name(u))}: tap a highlighted space "
                            f"({L.count(len(self.reach), 'space')} in reach), or another unit.")
                return f"{self._cap(self._unit_name(u))} cannot move: {self._why_immobile(u)}"
            if self.selected_space:
                return self._space_info(self.selected_space)
            return f"{self.ctrl.name(self.acting)}: tap one of your units, then a highlighted space."
        if self.selected_space:
            return self._space_info(self.selected_space)
        return "Tap a space to see what is on it."

    def _space_info(self, sid) -> str:
        ctrl, s = self.ctrl, self.ctrl.state
        sp = s.board.spaces[sid]
        parts = [f"{self._cap(L.space_words(sid))}: {'water' if sp.water else 'land'}"]
        if sp.res:
            parts.append(", ".join(nice(r) for r in sp.res))
        if sp.capital:
            parts.append("Capital City space")
        here = ctrl.game.units_at(s, sid)
        if not here:
            parts.append("empty")
        else:
            own = ctrl.game.controller(s, sid)
            parts.append(f"held by {ctrl.name(own)}" if own else "contested")
            parts.append(f"{L.count(len(here), 'unit')} (listed below)")
        return "; ".join(parts) + "."

    def _unit_info(self, u) -> str:
        bits = [self._cap(self._unit_name(u, owner=True))]
        cargo = [x for x in self.ctrl.state.units.values() if x.carrier == u.id]
        if cargo:
            bits.append("carrying " + "; ".join(L.unit_words(x, self.ctrl.state, self.ctrl.name, where=False)
                                                for x in cargo))
        if u.moved:
            bits.append("has moved this turn")
        return "; ".join(bits) + "."

    def _why_immobile(self, u) -> str:
        """The engine's reason, asked with a move to a neighbouring space."""
        s = self.ctrl.state
        for nb in s.board.adj[u.space]:
            why = self.ctrl.check({"type": "move", "player": u.owner, "unit": u.id, "to": nb})
            if why:
                return why
        return "no space in reach"

    # ------------------------------------------------------------------ touch
    def _unselect(self):
        self.selected_unit = 0
        self.reach = []

    def _select(self, u):
        self.selected_unit = u.id
        self.selected_space = u.space
        self.reach = list(self.ctrl.game.reachable(self.ctrl.state, u))

    def _marker_hit(self, sid, pos):
        w = self._spaces.get(sid)
        if w is None or pos is None:
            return None
        for m in w.ids.markers.children:
            if m.collide_point(*pos):
                return m
        return None

    def _pick_in_group(self, ids):
        """A unit of a marker's group: one that can still move when there is one."""
        s = self.ctrl.state
        us = [s.units[i] for i in ids if i in s.units]
        for u in us:
            if self.ctrl.game.reachable(s, u):
                return u
        return us[0] if us else None

    def tap_space(self, sid, pos=None) -> bool:
        """A tap on space `sid` (pos: window/touch coordinates, to tell which marker). Returns True
        when a move was dispatched."""
        if self.ctrl is None or sid not in self._spaces:
            return False
        live = live_space_picker()
        if live is not None and sid in live.offered_ids() and not (self.selected_unit and sid in self.reach):
            # the question asked under the prompt (a unit selected here keeps its own move)
            self.selected_space, self.error = sid, False
            self.message = f"{self._cap(L.space_words(sid))}: chosen; tap Confirm."
            live.on_pick(sid)
            self._render()  # the question answered: its spaces are no longer lit
            return True
        s = self.ctrl.state
        sel = s.units.get(self.selected_unit) if self.selected_unit else None
        if self.interactive and sel is not None and sid != sel.space:
            # a highlighted space always means "move there"; a space with more of your units
            # selects them; any other space is tried so the engine says why not
            mine = any(x.owner == self.acting for x in self.ctrl.game.units_at(s, sid))
            if sid in self.reach or not mine:
                return self._try_move(sel, sid)
        self.selected_space = sid
        self.error = False
        if self.interactive:
            hit = self._marker_hit(sid, pos)
            u = None
            if hit is not None and self.selected_unit in hit.unit_ids:
                self._unselect()  # tapping the selected unit again drops the selection
                self._render()
                self.message = self._space_info(sid)
                return False
            if hit is not None:
                u = self._pick_in_group(hit.unit_ids)
                if u is not None and u.owner != self.acting:
                    self._unselect()
                    self._render()
                    self.message = self._unit_info(u)
                    return False
            if u is None:
                reps = [self._pick_in_group([x.id for x in grp]) for grp in
                        self._groups([x for x in self.ctrl.game.units_at(s, sid) if x.owner == self.acting])]
                reps.sort(key=lambda x: not self.ctrl.game.reachable(s, x))  # movable ones first
                if reps:
                    ids = [x.id for x in reps]
                    cur = ids.index(self.selected_unit) if self.selected_unit in ids else -1
                    u = reps[(cur + 1) % len(reps)]  # tapping again cycles through the space's units
            if u is not None:
                self._select(u)
            else:
                self._unselect()
        self._render()
        self.message = self._hint()
        return False

    def tap_unit(self, uid) -> bool:
        """A tap on a unit chip (or marker). Selects it in the Move step; otherwise describes it."""
        if self.ctrl is None:
            return False
        u = self.ctrl.state.units.get(uid)
        if u is None:
            return False
        self.selected_space = u.space
        self.error = False
        if self.interactive and u.owner == self.acting:
            if self.selected_unit == u.id:
                self._unselect()
            else:
                self._select(u)
            self._render()
            self.message = self._hint() if self.selected_unit else self._unit_info(u)
            return True
        self._render()
        self.message = self._unit_info(u)
        return False

    def _try_move(self, u, sid) -> bool:
        a = {"type": "move", "player": self.acting, "unit": u.id, "to": sid}
        why = self.ctrl.check(a)
        if why:
            self.message, self.error = f"Not allowed: {why}", True
            return False
        name = self._cap(self._unit_name(u))
        if self.screen is None or not self.screen.submit(a):
            self.message = getattr(self.screen, "message", "") or "The move was not made."
            self.error = True
            return False
        self._unselect()
        self.selected_space = sid
        self._render()
        self.message, self.error = f"{name} to {L.space_words(sid)}: tap Confirm to move it.", False
        return True


# ---------------------------------------------------------------------- the pickers' space picker
_SPACE_ID = re.compile(r"^r(\d+)c(\d+)$")
_live = []   # the SpacePicker offering spaces now
_maps = []   # the game's MapView (the Map tab), once made


def live_space_picker():
    p = _live[0] if _live else None
    return p if p is not None and p.parent is not None and p.question is not None else None


def map_on_screen() -> list:
    """The big map when it is shown (the Map tab open), else []."""
    return [m for m in _maps if m.parent is not None and m.get_root_window() is not None]


class SpaceCell(Button):
    """A space the question offers: tap it to pick it."""
    value = StringProperty("")
    water = BooleanProperty(False)


class SpaceBlank(Widget):
    """A space the question does not offer (drawn so the offered ones sit where the table has them)."""
    water = BooleanProperty(False)


class SpacePicker(BoxLayout):
    """The map as the pickers' widget for "area" questions (GameModule.pickers): the board with its
    row and column numbers, the offered spaces lit and tappable (at least 48 dp), the others
    drawn dim. `offer(question, on_pick)`: question.options are (space id, words) pairs; a tap
    calls on_pick(space id). Options that are not map spaces are listed as buttons below."""

    question = None
    on_pick = None

    def offer(self, question, on_pick):
        self.question, self.on_pick = question, on_pick
        _live[:] = [self]
        self.sync()
        # the big map lights the same spaces (once this picker is on screen: the next frame)
        Clock.schedule_once(lambda dt: [mv.offer_changed() for mv in map_on_screen()], 0)

    def offered_ids(self) -> set:
        if self.question is None or self.parent is None:
            return set()
        return {str(v) for v, _ in self.question.options if _SPACE_ID.match(str(v))}

    def sync(self):
        """Draw the offer: while the big map is on screen it is the one map (a line here says
        so); otherwise the board is drawn here, the offered spaces lit."""
        from kivy.app import App

        question, on_pick = self.question, self.on_pick
        if question is None:
            return
        self.clear_widgets()
        offered = {}
        others = []
        for value, label in question.options:
            m = _SPACE_ID.match(str(value))
            if m:
                offered[(int(m.group(1)), int(m.group(2)))] = (value, label)
            else:
                others.append((value, label))
        ctrl = getattr(App.get_running_app(), "ctrl", None)
        board = getattr(getattr(ctrl, "state", None), "board", None)
        n = board.size if board is not None else (max((max(k) for k in offered), default=0) + 1)
        if offered and map_on_screen():
            self.add_widget(Label(text=f"Tap a lit space on the map ({L.count(len(offered), 'choice')}).",
                                  size_hint_y=None, height=dp(28), font_size="14sp"))
        elif offered:
            band, cell = dp(20), dp(48)
            grid = GridLayout(cols=n + 1, size_hint=(None, None), width=band + n * cell, height=band + n * cell)
            grid.add_widget(Widget(size_hint=(None, None), size=(band, band)))
            for c in range(n):
                grid.add_widget(Factory.MapLabel(text=str(c + 1), size_hint=(None, None), size=(cell, band)))
            for r in range(n):
                grid.add_widget(Factory.MapLabel(text=str(r + 1), size_hint=(None, None), size=(band, cell)))
                for c in range(n):
                    sid = f"r{r}c{c}"
                    water = bool(board is not None and sid in board.water)
                    if (r, c) in offered:
                        value, label = offered[(r, c)]
                        b = SpaceCell(value=value, water=water, size_hint=(None, None), size=(cell, cell))
                        b.bind(on_release=lambda w: on_pick(w.value))
                        grid.add_widget(b)
                    else:
                        grid.add_widget(SpaceBlank(water=water, size_hint=(None, None), size=(cell, cell)))
            holder = AnchorLayout(size_hint_y=None, height=grid.height)
            holder.add_widget(grid)
            self.add_widget(Label(text=f"Tap a lit space ({L.count(len(offered), 'choice')}).",
                                  size_hint_y=None, height=dp(28), font_size="14sp"))
            self.add_widget(holder)
        for value, label in others:
            b = Button(text=label, size_hint_y=None, height=dp(52))
            b.bind(on_release=lambda w, v=value: on_pick(v))
            self.add_widget(b)
        self.height = sum(w.height for w in self.children) + self.spacing * max(0, len(self.children) - 1)
