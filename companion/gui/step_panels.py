"""Step panels and tabs of the open game: what the dashboard shows for the current step in its
now column, and the views beside Players and Log.

The dashboard asks `panel_key(ctrl, snapshot)` which panel fits the game's current step, builds
it once with `make_panel(ctrl, key)`, and calls `panel.update(screen, ctrl, snapshot)` after every
change. A panel only reads the controller and hands its choice to `screen.submit(action)`, where
it waits for the one Confirm (checked by the engine first, journaled on Confirm).

Panels are named by the game module (GameModule.panels: step id -> "module:Class", imported
lazily). A step without a panel is played on the dashboard's pickers (companion/decisions.py,
gui/pickers.py) and dice entry, so a game with no panels at all is fully playable.
"""
from __future__ import annotations

from importlib import import_module


_layouts_loaded: set = set()


def ensure_layouts(module) -> None:
    """Load a game's own .kv layouts (GameModule.kv_files) the first time one of its widgets
    is built, so the app does not parse every game's layouts at start."""
    if module.id in _layouts_loaded:
        return
    from kivy.lang import Builder

    for kv in module.kv_files:
        Builder.load_file(str(kv))
    _layouts_loaded.add(module.id)


def load(ref: str):
    mod, _, cls = ref.partition(":")
    return getattr(import_module(mod), cls)


def panel_key(ctrl, snap: dict) -> str | None:
    """The panel for a snapshot: its step, or None when the game is over / the game has none."""
    if snap.get("over"):
        return None
    step = snap.get("step")
    return step if step in ctrl.module.panels else None


def covers(ctrl, snap: dict) -> bool:
    """Whether the step's panel takes the whole decision of this moment. A panel class may say
    `covers(snap) -> bool` (a helper that only shows the state, or a moment its panel does not
    decide, such as a card to name first): then the pickers are shown under it as well."""
    key = panel_key(ctrl, snap)
    if key is None:
        return False
    said = getattr(load(ctrl.module.panels[key]), "covers", None)
    return True if said is None else bool(said(snap))


def make_panel(ctrl, key: str | None):
    if not key:
        return None
    ensure_layouts(ctrl.module)
    return load(ctrl.module.panels[key])()


def make_tab(ctrl, key: str):
    """The game's extra left-column view `key` (GameModule.tabs); a label when it cannot load."""
    ref = next((t[2] for t in ctrl.module.tabs if t[0] == key), None)
    try:
        ensure_layouts(ctrl.module)
        return load(ref)()
    except (ImportError, AttributeError, TypeError) as exc:
        from kivy.uix.label import Label

        why = f"This view is not available ({exc})."

        class Unavailable(Label):
            def update(self, screen, ctrl, snap):
                self.text = why
        return Unavailable()
