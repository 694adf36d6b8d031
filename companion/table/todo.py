""""Do this at the table": the physical changes the players still have to make (no Kivy).

The items come from the true history (companion/store/history_log.py): each entry's `table` list
(the game view's `table_changes`: dice to add, remove, turn or move with owner, kind and space;
cubes to move). An item is open until the players tap Done, or, for a cube on a lane the board
senses, until TableSync sees it there (the dashboard leaves those to TableSync's own rows).

Undo: the items of an undone action vanish if none of them was done; if some were, the undo's
own items (the table put back as it was) are listed instead.

A new game starts with a **setup checklist**: every counter the game keeps (the cubes on the
tracks) and where it starts ("Ana - Food: put the blue token on 2"), made once when the list is
first kept for a save with no player decision yet (`start_setup`). On a lane the board senses the
item ticks itself when the token is seen there, and a lane where no token is seen is flagged
(the dashboard does both); the others take a tap.

Which items are done is kept beside the save in `<save>.table.json`, written atomically, so the
list survives a restart or a kill. The file is untrusted: when it cannot be read the list
starts again from "nothing done" and `problem` says why; the game itself is never touched.
"""
from __future__ import annotations

import json
from pathlib import Path

from companion.store import sidecar

FORMAT = "tabletop-table-list"
VERSION = 1
MAX_KEYS = 100_000  # a larger file is not one this app wrote
MAX_SETUP = 500     # counters in a setup checklist
SETUP_PREFIX = "setup:"


def setup_checklist(sensing, setup, state, name, colour) -> list[dict]:
    """[{counter, text}]: every counter of the game where `state` has it, in the table's words
    ("Ana - Food: put the blue token on 2"); `name(seat)`, `colour(seat)` from the game's view."""
    out = []
    for c in sensing.counters(setup):
        if c.on_pad:  # no token at the table: nothing to place
            continue
        where = sensing.value_text(c.id, sensing.value(state, c.id))
        if c.seat:
            out.append({"counter": c.id, "text": f"{name(c.seat)} - {c.name}: put the {colour(c.seat).lower()} "
                                                  f"token on {where}."})
        else:
            out.append({"counter": c.id, "text": f"{c.name}: put the token on {where}."})
    return out


def sidecar_path(save_path) -> Path:
    return sidecar.path(save_path, "table")


class TableTodo:
    def __init__(self, save_path):
        self.path = sidecar_path(save_path)
        self.done: set[str] = set()
        self.setup: list[dict] = []   # {key, text, counter}: the setup checklist (see start_setup)
        self.problem: str | None = None
        self.kept = False              # a list was kept for this save before (so no new checklist)
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
        self.kept = True
        setup = doc.get("setup", [])
        if (isinstance(setup, list) and len(setup) <= MAX_SETUP
                and all(isinstance(it, dict) and all(isinstance(it.get(k), str) for k in ("key", "text", "counter"))
                        and it["key"].startswith(SETUP_PREFIX) for it in setup)):
            self.setup = [{"key": it["key"], "text": it["text"], "counter": it["counter"]} for it in setup]
        else:
            self.problem = "the setup checklist is not one this app wrote; it is left out"

    def _save(self):
        sidecar.write_json(self.path, {"format": FORMAT, "version": VERSION, "done": sorted(self.done),
                                       "setup": self.setup}, durable=True)

    def start_setup(self, items) -> bool:
        """Keep the setup checklist [{counter, text}] once, for a save that had no list yet; True
        if it was started. An OSError leaves no checklist and is raised."""
        if self.kept or self.problem or not items:
            return False
        self.setup = [{"key": SETUP_PREFIX + it["counter"], "text": it["text"], "counter": it["counter"]}
                      for it in items[:MAX_SETUP]]
        try:
            self._save()
        except OSError:
            self.setup = []
            raise
        self.kept = True
        return True

    def setup_items(self) -> list[dict]:
        """The setup items not done yet: {key, text, counter, kind: "setup"}."""
        return [dict(it, kind="setup") for it in self.setup if it["key"] not in self.done]

    @staticmethod
    def key(seq: int, i: int) -> str:
        return f"{seq}:{i}"

    def items(self, entries) -> list[dict]:
        """Open items, oldest first: {key, seq, text, kind, lane, counter}."""
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
                                "kind": item.get("kind", ""), "lane": item.get("lane"),
                                "counter": item.get("counter")})
        return out

    def mark_done(self, keys) -> None:
        """The players did these; kept at once (an OSError leaves them open and is raised)."""
        before = set(self.done)
        self.done.update(keys)
        try:
            self._save()
            self.kept = True
        except OSError:
            self.done = before
            raise
