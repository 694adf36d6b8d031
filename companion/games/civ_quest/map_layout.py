"""Where Civ Quest's schematic map draws each area (no Kivy): data/map_layout.json gives each
area a grid cell, roughly as it lies on the printed map; only the areas in play are drawn, the
grid cut to them. An area the layout does not name (a table's own map.json) is put in a free
cell below the others, so an edited map is always drawn whole."""
from __future__ import annotations

import json
import os

from .data_load import DATA, DataError


def load_layout(path=None) -> dict:
    path = path or os.path.join(DATA, "map_layout.json")
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except (OSError, ValueError) as exc:
        raise DataError(f"map_layout.json: cannot be read as JSON ({exc})") from None
    cells = raw.get("cells") if isinstance(raw, dict) else None
    if not isinstance(cells, dict):
        raise DataError("map_layout.json: needs a 'cells' object")
    seen = {}
    for aid, c in cells.items():
        if not (isinstance(c, list) and len(c) == 2 and all(isinstance(v, int) and v >= 0 for v in c)):
            raise DataError(f"map_layout.json: area {aid!r} needs [column, row] (whole numbers from 0)")
        if tuple(c) in seen:
            raise DataError(f"map_layout.json: {aid!r} and {seen[tuple(c)]!r} are in the same cell {c}")
        seen[tuple(c)] = aid
    return {aid: tuple(c) for aid, c in cells.items()}


_LAYOUT = None


def cells_for(board, layout=None) -> tuple:
    """({area: (column, row)} for the areas in play, row 0 at the top; columns, rows)."""
    global _LAYOUT
    if layout is None:
        if _LAYOUT is None:
            _LAYOUT = load_layout()
        layout = _LAYOUT
    placed = {a: layout[a] for a in board.order if a in layout}
    if placed:
        c0 = min(c for c, _ in placed.values())
        r0 = min(r for _, r in placed.values())
        placed = {a: (c - c0, r - r0) for a, (c, r) in placed.items()}
    cols = max((c for c, _ in placed.values()), default=-1) + 1
    rows = max((r for _, r in placed.values()), default=-1) + 1
    extra = [a for a in board.order if a not in placed]
    if extra:
        cols = max(cols, min(len(extra), 8))
        for i, a in enumerate(extra):
            placed[a] = (i % cols, rows + i // cols)
        rows += -(-len(extra) // cols)
    return placed, cols, rows
