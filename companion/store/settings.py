"""App settings: a small JSON file `<data>/settings.json` (no Kivy).

The file is user-editable and therefore untrusted: an unreadable file, bad JSON or a bad value
falls back to the default for that key and says why (`load()` returns the problems); saving is
atomic (write a temporary file, then rename).
"""
from __future__ import annotations

import json
import os

from companion.store import paths

BOARD_CHOICES = ("auto", "virtual", "none")
DEFAULTS = {
    "board": "auto",          # how the app looks for a board at start (a port is picked on the Board screen)
    "board_dice": True,       # settled dice in the wells fill the awaited roll by themselves
    "table_checks": True,     # compare the sensed tracks with the game and list what to move
    "max_rounds": 0,          # round limit of new games (0 = none, as the rules texts say)
}


def _valid(key, value):
    if key == "board":
        return value in BOARD_CHOICES
    if key in ("board_dice", "table_checks"):
        return isinstance(value, bool)
    if key == "max_rounds":
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 200
    return False


def settings_path():
    return paths.data_dir() / "settings.json"


def load() -> tuple[dict, list[str]]:
    """(settings, problems). Never raises: every key has a valid value."""
    out = dict(DEFAULTS)
    problems = []
    path = settings_path()
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except FileNotFoundError:
        return out, []
    except (OSError, ValueError) as exc:
        return out, [f"{path.name} could not be read ({exc.__class__.__name__}); defaults are used"]
    if not isinstance(raw, dict):
        return out, [f"{path.name} is not a JSON object; defaults are used"]
    for key, value in raw.items():
        if key not in DEFAULTS:
            problems.append(f"unknown setting {key!r} ignored")
        elif not _valid(key, value):
            problems.append(f"setting {key!r} = {value!r} is not valid; {DEFAULTS[key]!r} is used")
        else:
            out[key] = value
    return out, problems


def save(values: dict) -> dict:
    """Validate and write atomically; raises ValueError naming the first bad key."""
    out = dict(DEFAULTS)
    for key, value in values.items():
        if key not in DEFAULTS or not _valid(key, value):
            raise ValueError(f"setting {key!r} = {value!r} is not valid")
        out[key] = value
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return out
