"""Civ Quest's Map tab: every land area with its owner, tokens and city, and this turn's rolls.
Reads the view's snapshot only; imports nothing of the shell but the kit."""
from __future__ import annotations

from kivy.properties import StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.kit import rgba


def _hex(colour):
    r, g, b, _ = rgba(colour)
    return "%02x%02x%02x" % (int(r * 255), int(g * 255), int(b * 255))


class CivQuestMap(BoxLayout):
    areas_text = StringProperty("")
    rolls_text = StringProperty("")

    def update(self, screen, ctrl, snap):
        rows = []
        for a in snap.get("cq_areas", ()):
            if a["owner"]:
                col = _hex(ctrl.colour(a["owner"]))
                what = f"{a['pt']} PT" + (" + city" if a["city"] else "")
                rows.append(f"[color={col}]\u25a0[/color] [b]{a['name']}[/b]  {ctrl.name(a['owner'])}: {what}")
        empty = [a["name"] for a in snap.get("cq_areas", ()) if not a["owner"]]
        rows.append("")
        rows.append(f"[b]Empty land ({len(empty)}):[/b] " + ", ".join(empty))
        self.areas_text = "\n".join(rows)
        rolls = snap.get("cq_rolls", ())
        self.rolls_text = "[b]Rolls this turn[/b]\n" + ("\n".join(rolls) if rolls else "none yet")
