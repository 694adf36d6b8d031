"""What the saved-games list shows of a save, stored beside it (``<save>.summary.json``), so
the home screen does not replay every game at start-up.

The file is a cache, never the game: it is keyed on what the journal itself says (its action
count, the time of its last entry, its data version) and on the app's version, and a missing,
unreadable, foreign or stale file is simply rebuilt by replaying that save once. Written when
a game is closed and whenever the list had to replay a healthy save (a save that cannot be
resumed is replayed at every start, so its reason is always today's)."""
import json
import os
from pathlib import Path

from companion import sidecar

FORMAT = "tabletop-save-summary"
VERSION = 1
MAX_BYTES = 4096  # a larger file is not one this app wrote


def sidecar_path(save_path) -> Path:
    return sidecar.path(save_path, "summary")


def _key(summary, app_version) -> list:
    return [summary.action_count, summary.updated, summary.data_version, app_version]


def read(summary, app_version):
    """The round stored for this journal state, as (round or None, ""), or None when there is
    no fresh one."""
    path = sidecar_path(summary.path)
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        return None
    if doc.get("key") != _key(summary, app_version):
        return None
    rnd = doc.get("round")
    if not (rnd is None or (type(rnd) is int and 0 <= rnd < 10 ** 6)):
        return None
    return rnd, ""


def write(summary, app_version, rnd):
    """Store the round of this journal state; a folder that cannot be written only means the
    next start replays again."""
    path = sidecar_path(summary.path)
    doc = {"format": FORMAT, "version": VERSION, "key": _key(summary, app_version), "round": rnd}
    try:
        sidecar.write_json(path, doc, durable=False)
    except OSError:
        pass
