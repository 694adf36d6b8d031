"""Where the app keeps its saved games: a per-user data directory.

`TABLETOP_COMPANION_DATA` overrides it (tests, portable installs). Saved games are journal files
(`*.journal`) in `<data>/games`.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ENV_VAR = "TABLETOP_COMPANION_DATA"
APP_DIR_NAME = "tabletop-companion"


def data_dir() -> Path:
    over = os.environ.get(ENV_VAR)
    if over:
        return Path(over).expanduser()
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / APP_DIR_NAME


def games_dir(create: bool = True) -> Path:
    d = data_dir() / "games"
    if create:
        d.mkdir(parents=True, exist_ok=True)
    return d
