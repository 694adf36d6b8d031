"""The one object the screens talk to about a game: engine + journal, no Kivy, no rules.

`GameController` owns an engine `Session` (companion/engine/session.py) of any registered game:

* `dispatch(action, source)` asks the engine to apply the action (raises `Rejected` and writes
  nothing when it is illegal), appends it to the journal (fsynced), and only then replaces the
  state the screens see. So anything the UI shows as done is already on disk.
* `undo()` follows the journal's policy (`Journal.undo(game.is_chance)`): the latest action can be
  taken back unless a die has been revealed since; the state is rebuilt by replaying the journal.
* `snapshot()` is a plain-data view for the screens, from the game's view (contract.GameView).

Games are found through the registry (`companion.games`); this module names none of them.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import secrets
from pathlib import Path

from companion import games as registry
from companion import journal as J
from companion.engine.errors import Rejected  # noqa: F401  (re-exported for the screens)

APP_VERSION = "0.1.0"


def _session_cls():
    from companion.engine.session import Session
    return Session


class GameUnavailable(Exception):
    """A saved game this build cannot open (unknown game, newer game data): a plain reason, and
    the game's title as far as it is known."""

    def __init__(self, reason: str, title: str):
        super().__init__(reason)
        self.title = title


def module_of_save(game_id, data_version):
    """The game module that opens a save of `game_id` at `data_version`, or GameUnavailable."""
    try:
        module = registry.get_module(game_id)
    except KeyError:
        raise GameUnavailable(f"it is a game of {game_id!r}, which this version of the app does not have",
                              str(game_id)) from None
    if data_version > module.data_version:
        raise GameUnavailable(f"it was saved by a newer version of {module.title} (game data {data_version}, "
                              f"this app has {module.data_version}); update the app to open it", module.title)
    return module


class GameController:
    """Wraps an engine `Session` (which journals before it applies) for the screens."""

    def __init__(self, session, module):
        self.session = session
        self.module = module
        self.game = session.game
        self.view = module.view
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
            seed: int | None = None, game: str | None = None, **options) -> "GameController":
        """A new saved game of `game` (the first of the menu when None). `options` are the game's
        new-game options (GameModule.options) and its setup panel's values; ValueError or
        SetupError (plain words) before any file is made when the setup is refused."""
        module = registry.get_module(game or registry.default_id())
        players = [{"name": n, "colour": c} for n, c in zip(names, colours)]
        setup = module.setup_from_form(players, options)
        seed = secrets.randbits(31) if seed is None else int(seed)
        module.game.initial_state(setup)  # a bad setup raises SetupError before any file is made
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = directory / f"{module.id}-{stamp}-{secrets.token_hex(3)}.journal"
        sess = _session_cls().new(module.game, setup, journal_path=path, seed=seed,
                                  app_version=APP_VERSION, data_version=module.data_version)
        return cls(sess, module)

    @classmethod
    def open(cls, path) -> "GameController":
        """Resume a saved game exactly (replays the journal). Raises JournalError / ReplayError,
        or GameUnavailable for a game this build does not have or a newer data version."""
        found = []

        def game_for(meta):
            found.append(module_of_save(meta["game"], meta["data_version"]))
            return found[0].game
        return cls(_session_cls().resume(path, game_for=game_for), found[0])

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
        Nothing is applied or written; for previews such as a map's touch-to-move."""
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

    def dice_request(self) -> dict | None:
        """The roll awaited now (GameModule.roll_awaited) and whose it is ("who"), or None."""
        req = self.module.roll_awaited(self.state)
        if req is not None:
            req["who"] = self.view.roll_owner(self.state)
        return req

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
        return self.view.name(self.setup, seat)

    def colour(self, seat) -> str:
        return self.view.colour(self.setup, seat)

    def seats(self) -> list:
        return self.view.seats(self.setup)

    def marks(self, action: dict, source: str) -> dict:
        """How an entry came about, for the log and exports: `correction` (the players overwrote a
        recorded value) and `manual` (a value typed or fixed by hand on the tablet — dice entered
        by touch, corrections — rather than read by the board or drawn by the app)."""
        g = self.game
        correction = action.get("type") in g.correction_types
        chance = g.codec.is_chance(action)
        return {"correction": correction, "manual": source == "ui" and (correction or chance)}

    @staticmethod
    def mark_words(marks: dict, source: str) -> str:
        if marks["correction"]:
            return "manual correction" if marks["manual"] else "correction"
        if marks["manual"]:
            return "dice entered by hand"
        return {"board": "read by the board", "system": "automatic"}.get(source, "")

    def log(self, limit: int | None = None) -> list[dict]:
        acts = self.journal.actions(last=limit)
        out = []
        for e in acts:
            m = self.marks(e.action, e.source)
            out.append({"seq": e.seq, "source": e.source, "created": e.created, **m,
                        "how": self.mark_words(m, e.source),
                        "text": self.view.action_label(e.action, self.state, self.setup)})
        return out

    def snapshot(self) -> dict:
        """What the dashboard draws: the game's own snapshot (if its view has one) plus the keys
        every game has: round, step, phase, actor, over, players (name, colour, lines), result."""
        g, s, v = self.game, self.state, self.view
        snap = {
            "game": self.module.id, "round": v.round(s), "max_rounds": v.max_rounds(s),
            "step": s.step, "phase": g.flow.phase(s.step), "actor": g.actor(s), "over": g.is_over(s),
        }
        snap.update(v.snapshot(g, s, self.setup))
        if "result" not in snap:
            snap["result"] = v.result(g, s) if snap["over"] else None
        players = dict(snap.get("players", {}))
        score = None  # computed only when the game's own snapshot lacks it
        for seat in self.seats():
            p = dict(players.get(seat, {}))
            p.setdefault("seat", seat)
            p.setdefault("name", self.name(seat))
            p.setdefault("colour", self.colour(seat))
            if "score" not in p:
                score = v.score(g, s) if score is None else score
                p["score"] = score.get(seat)
            p["lines"] = v.player_lines(g, s, self.setup, seat, p)
            players[seat] = p
        snap["players"] = players
        snap["actions"] = len(self.journal)
        return snap

    def export(self) -> dict:
        """The whole game as plain JSON, for any game: what it is, who played, every effective
        action with its source, time and words, and the score now."""
        meta = self.journal.meta
        g, s = self.game, self.state
        over = g.is_over(s)
        return {
            "format": "tabletop-companion-export", "version": 1,
            "game": self.module.id, "title": self.module.title, "data_version": meta["data_version"],
            "app_version": meta["app_version"], "created": meta["created"], "setup": self.setup,
            "players": [{"seat": seat, "name": self.name(seat), "colour": self.colour(seat)} for seat in self.seats()],
            "actions": [{"seq": e.seq, "source": e.source, "created": e.created, "action": e.action,
                         **self.marks(e.action, e.source),
                         "text": self.view.action_label(e.action, s, self.setup)} for e in self.journal.actions()],
            "over": over, "score": self.view.score(g, s),
            "result": self.view.result(g, s) if over else None,
        }

    def export_to(self, directory) -> str:
        """Write `export()` next to the saves (<data>/exports/<save name>.json); returns the path."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / (Path(self.path).stem + ".json")
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.export(), indent=1, ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(tmp, path)
        return str(path)

    def action_label(self, action: dict) -> str:
        return self.view.action_label(action, self.state, self.setup)

    def step_help(self, step=None) -> str:
        return self.view.step_help(self.state.step if step is None else step)


@dataclasses.dataclass(frozen=True)
class SavedGame:
    """A row of the saved-games list: a journal summary, and why it cannot be opened (or '')."""
    summary: J.JournalSummary
    title: str
    unavailable: str = ""

    @property
    def path(self):
        return self.summary.path


def summary_round(summary: J.JournalSummary) -> int | None:
    """Round reached by a saved game (replays it; None when it cannot be replayed)."""
    try:
        module = registry.get_module(summary.game)
        sess = _session_cls().resume(summary.path, game_for=lambda meta: module.game)
    except Exception:
        return None
    try:
        return module.view.round(sess.state)
    finally:
        sess.close()


def list_games(directory) -> list:
    """Saved games for the Resume list, journal order: SavedGame (with its reason when this build
    cannot open it) and BrokenJournal. Never raises for one bad file."""
    if not os.path.isdir(directory):
        return []
    out = []
    for it in J.list_journals(directory):
        if isinstance(it, J.BrokenJournal):
            out.append(it)
            continue
        try:
            out.append(SavedGame(it, module_of_save(it.game, it.data_version).title))
        except GameUnavailable as exc:
            out.append(SavedGame(it, exc.title, str(exc)))
    return out
