""""Do this at the table": the physical changes the players still have to make (no Kivy).

The items come from the true history (companion/history_log.py): each entry's `table` list
(the game view's `table_changes`: dice to add, remove, turn or move with owner, kind and space;
cubes to move). An item is open until the players tap Done, or, for a cube on a lane the board
senses, until TableSync sees it there (the dashboard leaves those to TableSync's own rows).

Undo: the items of an undone action vanish if none of them was done; if some were, the undo's
own items (the table put back as it was) are listed instead.

Which items are done is kept beside the save in `<save>.table.json`, written atomically, so the
list survives a restart or a kill. The file is untrusted: when it cannot be read the list
starts again from "nothing done" and `problem` says why; the game itself is never touched.
"""
from __future__ import annotations

import json
from pathlib import Path

from companion import sidecar

FORMAT = "tabletop-table-list"
VERSION = 1
MAX_KEYS = 100_000  # a larger file is not one this app wrote


def sidecar_path(save_path) -> Path:
    return sidecar.path(save_path, "table")


class TableTodo:
    def __init__(self, save_path):
        self.path = sidecar_path(save_path)
        self.done: set[str] = set()
        self.problem: str | None = None
        self._load()

    def _load(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                doc = json.load(f)
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            self.problem = f"the list of table changes could not be read ({exc.__class__.__name__}); it starts again"
            return
        keys = doc.get("done") if isinstance(doc, dict) and doc.get("format") == FORMAT else None
        if not isinstance(keys, list) or len(keys) > MAX_KEYS or not all(isinstance(k, str) for k in keys):
            self.problem = "the list of table changes is not one this app wrote; it starts again"
            return
        self.done = set(keys)

    def _save(self):
        sidecar.write_json(self.path, {"format": FORMAT, "version": VERSION,
                                       "done": sorted(self.done)}, durable=True)

    @staticmethod
    def key(seq: int, i: int) -> str:
        return f"{seq}:{i}"

    def items(self, entries) -> list[dict]:
        """Open items, oldest first: {key, seq, text, kind, lane}."""
        by_seq = {e.seq: e for e in entries}
        out = []
        for e in entries:
            if e.undone:
                continue
            if e.undo_of is not None:
                target = by_seq.get(e.undo_of)
                started = target is not None and any(
                    self.key(target.seq, i) in self.done for i in range(len(target.table)))
                if not started:
                    continue
            for i, item in enumerate(e.table):
                if not isinstance(item, dict):
                    continue
                k = self.key(e.seq, i)
                if k not in self.done:
                    out.append({"key": k, "seq": e.seq, "text": item.get("text", ""),
                                "kind": item.get("kind", ""), "lane": item.get("lane")})
        return out

    def mark_done(self, keys) -> None:
        """The players did these; kept at once (an OSError leaves them open and is raised)."""
        before = set(self.done)
        self.done.update(keys)
        try:
            self._save()
        except OSError:
            self.done = before
            raise
