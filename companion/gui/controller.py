"""The one object the screens talk to about a game: engine + journal, no Kivy, no rules.

`GameController` owns a `companion.journal.Journal` and the engine state rebuilt from it:

* `dispatch(action, source)` asks the engine to apply the action (raises `Rejected` and writes
  nothing when it is illegal), appends it to the journal (fsynced), and only then replaces the
  state the screens see. So anything the UI shows as done is already on disk.
* `undo()` follows the journal's policy (`Journal.undo(game.is_chance)`): the latest action can be
  taken back unless a die has been revealed since; the state is rebuilt by replaying the journal.
* `snapshot()` is a plain-data view for the screens (resources, tracks, bonuses, units, step,
  legal actions with labels, score).

The rules live in the engine (`companion.games.civmint`); this module only calls its public
queries. Dispatch, journaling and replay are the engine `Session`'s (companion/engine/session.py).
"""
from __future__ import annotations

import datetime as _dt
import os
import secrets
from pathlib import Path

from companion import journal as J
from companion.engine.errors import Rejected  # also re-exported for the screens
from companion.games import get_game

from . import labels

APP_VERSION = "0.1.0"
GAME = "civmint"
COLOURS = ("blue", "green", "red", "yellow", "purple", "black")


def _session_cls():
    from companion.engine.session import Session
    return Session


class GameController:
    """Wraps an engine `Session` (which journals before it applies) for the screens."""

    def __init__(self, session):
        self.session = session
        self.game = session.game
        self.setup = session.setup
        self._listeners = []

    @property
    def state(self):
        return self.session.state

    @property
    def journal(self) -> J.Journal:
        return self.session.journal

    # ---------------------------------------------------------------- lifecycle
    @classmethod
    def new(cls, directory, names=("Player 1", "Player 2"), colours=("blue", "green"),
            seed: int | None = None, max_rounds=..., map_layout: dict | None = None) -> "GameController":
        """max_rounds: the game's default when omitted; None = no round limit.
        map_layout: {"nw"|"ne"|"sw"|"se": face id} (data/maps.json); the default layout when None."""
        game = get_game(GAME)
        setup = game.default_setup()
        setup["players"] = {
            "p1": {"colour": colours[0], "name": names[0] or "Player 1"},
            "p2": {"colour": colours[1], "name": names[1] or "Player 2"},
        }
        if map_layout is not None:
            setup["map"] = dict(map_layout)
        if max_rounds is not ...:
            setup["max_rounds"] = max_rounds
        seed = secrets.randbits(31) if seed is None else int(seed)
        game.initial_state(setup)  # a bad setup raises SetupError before any file is made
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = directory / f"civmint-{stamp}-{secrets.token_hex(3)}.journal"
        sess = _session_cls().new(GAME, setup, journal_path=path, seed=seed, app_version=APP_VERSION)
        return cls(sess)

    @classmethod
    def open(cls, path) -> "GameController":
        """Resume a saved game exactly (replays the journal). Raises JournalError / ReplayError."""
        return cls(_session_cls().resume(path))

    def close(self):
        self.session.close()

    @property
    def path(self) -> str:
        return str(self.journal.path)

    def subscribe(self, fn):
        """fn(controller) is called after every change of state (dispatch, undo)."""
        self._listeners.append(fn)

    def _changed(self):
        for fn in list(self._listeners):
            fn(self)

    # ---------------------------------------------------------------- actions
    def dispatch(self, action, source: str = "ui"):
        """Validate, journal (fsynced), then apply and publish. Raises Rejected (nothing written)."""
        a = self.session.dispatch(action, source)
        self._changed()
        return a

    def roll_virtual(self):
        """Roll the awaited dice with the seeded virtual dice and dispatch them."""
        a = self.session.roll()
        self._changed()
        return a

    def check(self, action: dict) -> str | None:
        """Why `action` is not allowed now (the engine's message), or None when it is legal.
        Nothing is applied or written; for previews such as the map's touch-to-move."""
        try:
            a = self.game.action_from_dict(action)
            self.game.check(self.state, a)
        except Rejected as exc:
            return exc.message
        return None

    def legal_actions(self) -> list[dict]:
        return [a.to_dict() for a in self.session.legal_actions()]

    def awaiting_dice(self) -> bool:
        return not self.game.is_over(self.state) and self.game.actor(self.state) == "system"

    def can_undo(self) -> bool:
        return self.journal.undo_refusal(self.game.is_chance) is None

    def undo(self) -> dict:
        """Take back the latest action (journal policy). Raises journal.UndoRefused."""
        history = self.session.history
        last = history[-1][0].to_dict() if history else None
        self.session.undo()
        self._changed()
        return last

    # ---------------------------------------------------------------- views
    def name(self, seat) -> str:
        return self.setup["players"][seat].get("name") or seat

    def colour(self, seat) -> str:
        return self.setup["players"][seat]["colour"]

    def log(self, limit: int | None = None) -> list[dict]:
        acts = self.journal.actions(last=limit)
        return [{"seq": e.seq, "source": e.source, "created": e.created,
                 "text": labels.describe(e.action, self.state, self.name)} for e in acts]

    def snapshot(self) -> dict:
        g, s = self.game, self.state
        d = s.to_dict()
        actor = g.actor(s)
        players = {}
        score = g.score(s)
        for seat, p in d["players"].items():
            units = sorted(g.units_of(s, seat), key=lambda u: u.id)
            counts = {}
            for u in units:
                counts[u.kind] = counts.get(u.kind, 0) + 1
            players[seat] = {
                "seat": seat, "name": self.name(seat), "colour": p["colour"],
                "resources": p["resources"],
                "development": {t: labels.dev_space(t, pos) for t, pos in p["development"].items()},
                "aspects": p["aspects"],
                "bonuses": dict(g.bonuses(s, seat)),
                "upkeep": g.upkeep(s, seat),
                "units": [labels.unit_text(u) for u in units],
                "unit_counts": counts,
                "score": score[seat],
            }
        return {
            "round": d["round"], "max_rounds": d["max_rounds"], "step": d["step"],
            "phase": g.flow.phase(d["step"]), "first": d["first"], "active": d["active"],
            "actor": actor, "over": d["over"], "end_reasons": d["end_reasons"],
            "combat": d["combat"], "players": players,
            "result": g.result(s) if d["over"] else None,
            "actions": len(self.journal),
        }

    def action_label(self, action: dict) -> str:
        return labels.describe(action, self.state, self.name)


def summary_round(summary: J.JournalSummary) -> int | None:
    """Round reached by a saved game (replays it; None when it cannot be replayed)."""
    try:
        sess = _session_cls().resume(summary.path)
    except Exception:
        return None
    try:
        return sess.state.round
    finally:
        sess.close()


def list_games(directory) -> list:
    """Saved games for the Resume list: JournalSummary / BrokenJournal (journal order)."""
    if not os.path.isdir(directory):
        return []
    return J.list_journals(directory)
