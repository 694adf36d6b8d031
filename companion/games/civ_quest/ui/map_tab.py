"""Civ Quest's Map tab: the drawn map (ui/map_picker.AreaMap, the same drawing the players tap
when they pick an area: while an area is asked it is lit here too and a tap here picks it), a
line per civilisation, and this turn's rolls. Reads the
view's snapshot and map_model only; imports nothing of the shell but the kit."""
from __future__ import annotations

from kivy.properties import StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.kit import rgba

from .map_picker import AreaMap, live_picker


def _hex(colour):
    r, g, b, _ = rgba(colour)
    return "%02x%02x%02x" % (int(r * 255), int(g * 255), int(b * 255))


class CivQuestMap(BoxLayout):
    areas_text = StringProperty("")
    rolls_text = StringProperty("")
    why_text = StringProperty("")   # a tap on an area that is not a choice now: why
    _ctrl = None

    def update(self, screen, ctrl, snap):
        self._ctrl = ctrl
        holder = self.ids.map_holder
        if not holder.children:
            self.map = AreaMap()
            holder.add_widget(self.map)
        self.redraw()
        held = {}
        for a in snap.get("cq_areas", ()):
            if a["owner"]:
                held.setdefault(a["owner"], []).append(a)
        rows = []
        for seat in ctrl.seats():
            mine = held.get(seat, [])
            pt = sum(a["pt"] for a in mine)
            cities = sum(1 for a in mine if a["city"])
            rows.append(f"[color={_hex(ctrl.colour(seat))}][b]{ctrl.name(seat)}:[/b][/color] "
                        f"{len(mine)} {'area' if len(mine) == 1 else 'areas'}, {pt} PT, "
                        f"{cities} {'city' if cities == 1 else 'cities'}")
        empty = sum(1 for a in snap.get("cq_areas", ()) if not a["owner"])
        rows.append(f"Empty land: {empty} {'area' if empty == 1 else 'areas'}. Lines join areas that border.")
        self.areas_text = "\n".join(rows)
        rolls = snap.get("cq_rolls", ())
        self.rolls_text = "[b]Rolls this turn[/b]\n" + ("\n".join(rolls) if rolls else "none yet")

    def redraw(self):
        """The map; while the screen asks for an area, the same areas lit and a tap picks one
        (or says why not) exactly as on the picker under the prompt."""
        ctrl = self._ctrl
        live = live_picker()
        model = ctrl.view.map_model(ctrl.game, ctrl.state, ctrl.setup)
        if live is None:
            self.map.draw(model, ctrl.colour, ctrl.name)
            self.why_text = ""
            return
        self.map.draw(model, ctrl.colour, ctrl.name, legal=set(live.legal), on_tap=self.tap)

    def tap(self, area_id):
        live = live_picker()
        if live is None:
            return
        live.tap(area_id)
        self.why_text = live.why
        self.redraw()
