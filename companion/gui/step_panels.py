"""Step panels: what the round dashboard shows for the current step, above the legal-action list.

The dashboard (`GameScreen`) asks `panel_key(snapshot)` which panel fits the game's current step,
builds it once with `make_panel(key)`, and calls `panel.update(screen, ctrl, snapshot)` after every
change. A panel only reads the controller and submits actions through `screen.submit(action)`,
the same validated + journaled path as the Confirm button; the engine decides legality.

Panels are registered here by step id as "module:Class" (imported lazily, so a step's panel
lives in its own module and .kv file). A step without a panel shows only the legal actions.
The map view (`make_map_view`) is the same kind of widget, shown in the left column.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import import_module
from pathlib import Path

# step id (companion/games/civmint/data/flow.json) -> "module:Class"
PANELS: dict[str, str] = {
    "production": "companion.gui.economy_panels:ProductionPanel",
    "trade": "companion.gui.economy_panels:TradePanel",
    "upkeep": "companion.gui.economy_panels:UpkeepPanel",
    "build": "companion.gui.economy_panels:BuildPanel",
    "research": "companion.gui.economy_panels:ResearchPanel",
    "taxation": "companion.gui.economy_panels:TaxationPanel",
    "combat": "companion.gui.combat_panel:CombatPanel",
    "event_roll": "companion.gui.event_panel:EventPanel",
    "event_choice": "companion.gui.event_panel:EventPanel",
}

MAP_VIEW = "companion.gui.map_view:MapView"
HELP_FILE = Path(__file__).parent / "help" / "civmint_steps.json"


@lru_cache(maxsize=1)
def _help() -> dict:
    with open(HELP_FILE, encoding="utf-8") as f:
        return json.load(f)["steps"]


def step_help(step: str | None) -> str:
    """Short rule help for a step id of data/flow.json ('' when there is none); the dashboard's
    Rules toggle shows it for every step."""
    return _help().get(step or "", "")


def _load(ref: str):
    mod, _, cls = ref.partition(":")
    return getattr(import_module(mod), cls)


def panel_key(snap: dict) -> str | None:
    """The panel for a snapshot: its step, or None when the game is over / no panel is registered."""
    if snap.get("over"):
        return None
    step = snap.get("step")
    return step if step in PANELS else None


def make_panel(key: str | None):
    return _load(PANELS[key])() if key else None


def make_map_view():
    try:
        return _load(MAP_VIEW)()
    except ImportError:
        from kivy.uix.label import Label

        class NoMap(Label):
            def update(self, screen, ctrl, snap):
                self.text = "No map view available."
        return NoMap()
