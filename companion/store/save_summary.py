"""What the saved-games list shows of a save, stored beside it (``<save>.summary.json``), so
the home screen neither verifies nor replays every game at start-up.

The file is a cache, never the game. Its round is keyed on what the journal itself says (its
action count, the time of its last entry, its data version) and on the app's version; its copy
of the journal's summary is used only while the save file is exactly the one it was written
for (journal.file_stamp), so a save changed, copied or damaged since is verified again. A
missing, unreadable, foreign or stale file is simply rebuilt by reading and replaying that save
once. Written when a game is closed and whenever the list had to replay a healthy save (a save
that cannot be resumed is replayed at every start, so its reason is always today's); opening a
game always verifies its journal in full."""
import dataclasses
import json
import os
from pathlib import Path

from companion.store import journal as J
from companion.store import sidecar

FORMAT = "tabletop-save-summary"
VERSION = 3  # 3: the outcome of a finished game (older files are rebuilt by one replay)
MAX_BYTES = 16384  # a larger file is not one this app wrote
#: JournalSummary fields stored (all but the path, which is where the file is now) and their types
_FIELDS = {"game": str, "setup": dict, "created": str, "updated": str, "action_count": int,
           "app_version": str, "schema_version": int, "data_version": int}


def sidecar_path(save_path) -> Path:
    return sidecar.path(save_path, "summary")


def _key(summary, app_version) -> list:
    return [summary.action_count, summary.updated, summary.data_version, app_version]


def _load(save_path):
    path = sidecar_path(save_path)
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        return None
    return doc


def listed(save_path, app_version):
    """(journal summary, game title) stored for this save when the file is still the one they
    were stored for (same stamp, same app version), else None: then the list reads the journal
    itself. The same app version means the same games, so the save's game was there and could
    open it (a save that cannot be resumed is never stored)."""
    doc = _load(save_path)
    stamp = J.file_stamp(save_path)
    if doc is None or stamp is None or doc.get("stamp") != stamp or doc.get("app") != app_version:
        return None
    fields, title = doc.get("summary"), doc.get("title")
    if not isinstance(fields, dict) or set(fields) != set(_FIELDS) or not all(
            type(fields[k]) is t for k, t in _FIELDS.items()) or not isinstance(title, str):
        return None
    summary = J.JournalSummary(path=str(save_path), **fields)
    return (summary, title) if read(summary, app_version) is not None else None


def read(summary, app_version):
    """The round stored for this journal state, as (round or None, ""), or None when there is
    no fresh one."""
    got = read_full(summary, app_version)
    return None if got is None else (got[0], "")


def read_full(summary, app_version):
    """(round or None, outcome) stored for this journal state, or None when there is no fresh
    one. The outcome is the finished game's headline ("Ana wins"), "" while it is unfinished."""
    doc = _load(summary.path)
    if doc is None or doc.get("key") != _key(summary, app_version):
        return None
    rnd, outcome = doc.get("round"), doc.get("outcome")
    if not (rnd is None or (type(rnd) is int and 0 <= rnd < 10 ** 6)):
        return None
    if not isinstance(outcome, str) or len(outcome) > 400:
        return None
    return rnd, outcome


def write(summary, app_version, rnd, title, outcome=""):
    """Store the round of this journal state, its outcome ("Ana wins"; "" while unfinished) and
    its game's title; a folder that cannot be written only means the next start reads and
    replays it again."""
    path = sidecar_path(summary.path)
    fields = dataclasses.asdict(summary)
    del fields["path"]
    doc = {"format": FORMAT, "version": VERSION, "key": _key(summary, app_version), "round": rnd,
           "app": app_version, "stamp": J.file_stamp(summary.path), "summary": fields,
           "title": title, "outcome": outcome}
    try:
        sidecar.write_json(path, doc, durable=False)
    except OSError:
        pass
