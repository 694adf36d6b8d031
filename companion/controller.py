"""The one object the screens talk to about a game: engine + journal, no Kivy, no rules.

`GameController` owns an engine `Session` (companion/engine/session.py) of any registered game:

* `dispatch(action, source)` asks the engine to apply the action (raises `Rejected` and writes
  nothing when it is illegal), appends it to the journal (fsynced), and only then replaces the
  state the screens see. So anything the UI shows as done is already on disk.
* Seats the app plays (the game's `app_seats`, e.g. Mint Works' solitaire AI): after every change,
  while such a seat is to act and the game is not over, its move (`game.app_action`) is
  dispatched as that seat's action with source "app", so it is journaled and logged like any
  other. Nothing is played for the app while a player's decision is awaited. The app's screens
  open a controller with `think_aside`: a bot's search then runs off the screen's thread
  (`bot_turn`, `play_thought`), so the screen stays live while the app thinks.
* `undo()` follows the journal's policy (`Journal.undo(game.is_chance)`): it takes back the latest
  action that was not the app's, together with the app's moves that followed it, unless a die or a
  draw has been revealed since; the state is rebuilt by replaying the journal (docs/journal.md).
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
from companion.store import journal as J
from companion.store import save_summary
from companion.engine.errors import Rejected  # noqa: F401  (re-exported for the screens)

APP_VERSION = "0.1.0"


def _session_cls():
    from companion.engine.session import Session
    return Session


class UndoNotPossible(J.UndoRefused):
    """Undo refused, in the players' words (no file name)."""

    def __str__(self):
        return self.reason


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

    def __init__(self, session, module, think_aside: bool = False):
        self.session = session
        # True (the app's screens): a bot's search is not run inside dispatch, where it would
        # hold the screen; the screen runs `bot_turn()`'s search aside and hands the move back
        self.think_aside = think_aside
        self.module = module
        self.game = session.game
        self.view = module.view
        self.setup = session.setup
        self._listeners = []
        self._history = None
        self._history_state = None
        self.app_moves: list[str] = []  # the app's moves since the latest other action, in words
        self._bots = {}  # seat -> the bot the app plays it with (setup["app_players"])
        self._bot_gave_up = None  # the position whose bot move failed: chosen by hand
        self.app_problem = ""  # why the app stopped playing a seat (plain words), or ""
        session.subscribe(self._on_session)
        self._play_app_seats()  # a new game the app starts, or a save closed before its move

    @property
    def state(self):
        return self.session.state

    @property
    def journal(self) -> J.Journal:
        return self.session.journal

    # ---------------------------------------------------------------- lifecycle
    @classmethod
    def new(cls, directory, names=("Player 1", "Player 2"), colours=("blue", "green"),
            seed: int | None = None, game: str | None = None, app_players=None,
            think_aside: bool = False, **options) -> "GameController":
        """A new saved game of `game` (the first of the menu when None). `options` are the game's
        new-game options (GameModule.options) and its setup panel's values; `app_players` maps a
        seat to the level of the bot the app plays it with ("easy", "normal", "hard"; kept in the
        save, so a resumed game has the same bots). ValueError or SetupError (plain words) before
        any file is made when the setup is refused."""
        module = registry.get_module(game or registry.default_id())
        players = [{"name": n, "colour": c} for n, c in zip(names, colours)]
        setup = module.setup_from_form(players, options)
        bots = dict(app_players or {})
        if bots:
            from companion.bots import LEVELS

            seats = set(setup.get("players", {}))
            bad = [f"{s}: {lv}" for s, lv in bots.items() if s not in seats or lv not in LEVELS]
            if bad:
                raise ValueError(f"The app can play a seat of this game at level {', '.join(LEVELS)}; "
                                 f"not {', '.join(bad)}.")
            if len(bots) == len(seats):
                raise ValueError("At least one seat must be a player at the table.")
            setup["app_players"] = bots
        seed = secrets.randbits(31) if seed is None else int(seed)
        module.game.initial_state(setup)  # a bad setup raises SetupError before any file is made
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = directory / f"{module.id}-{stamp}-{secrets.token_hex(3)}.journal"
        sess = _session_cls().new(module.game, setup, journal_path=path, seed=seed,
                                  app_version=APP_VERSION, data_version=module.data_version)
        return cls(sess, module, think_aside)

    @classmethod
    def open(cls, path, think_aside: bool = False) -> "GameController":
        """Resume a saved game exactly (replays the journal). Raises JournalError / ReplayError,
        or GameUnavailable for a game this build does not have or a newer data version."""
        found = []

        def game_for(meta):
            found.append(module_of_save(meta["game"], meta["data_version"]))
            return found[0].game
        return cls(_session_cls().resume(path, game_for=game_for), found[0], think_aside)

    def close(self):
        try:  # what the saved-games list will show, so it need not replay this game
            summary, rnd = self.journal.summary(), self.module.view.round(self.state)
            outcome = game_outcome(self.module, self.state, self.setup)
        except Exception:  # noqa: BLE001 - a cache: the list replays when it is missing
            summary = None
        self.session.close()
        if summary is not None:  # stamped once the file is at rest
            save_summary.write(summary, APP_VERSION, rnd, self.module.title, outcome)

    @property
    def path(self) -> str:
        return str(self.journal.path)

    def subscribe(self, fn):
        """fn(controller) is called after every change of state (dispatch, undo)."""
        self._listeners.append(fn)

    def unsubscribe(self, fn):
        """Stop calling fn (a listener given to subscribe); nothing when it is not one."""
        if fn in self._listeners:
            self._listeners.remove(fn)

    def _changed(self):
        for fn in list(self._listeners):
            fn(self)

    # ---------------------------------------------------------------- actions
    def dispatch(self, action, source: str = "ui", sensed: dict | None = None):
        """Validate, journal (fsynced), then apply and publish; then the app plays its seats.
        Raises Rejected (nothing written). `sensed`: how a sensed action was read (a photo's
        confidence: companion/table/photo_roll.py), journaled beside it."""
        a = self.session.dispatch(action, source, sensed)
        self._after_change()
        return a

    def roll_virtual(self):
        """Roll the awaited dice with the seeded virtual dice and dispatch them."""
        a = self.session.roll()
        self._after_change()
        return a

    def _after_change(self):
        self.app_moves = []
        try:
            self._play_app_seats()
        finally:
            self._changed()

    # ---------------------------------------------------------------- seats the app plays
    #: more moves in a row than any game makes between two player decisions: a game whose app
    #: seats never hand over stops here instead of hanging the screen
    APP_MOVES_MAX = 500

    def app_seats(self) -> tuple:
        """The seats the app plays in this game now: the game's own (a solitaire AI) and the
        seats set to "played by the app" at the new-game form (a bot, docs/bots.md)."""
        own = tuple(self.game.app_seats(self.state))
        return own + tuple(s for s in self.setup.get("app_players", {}) if s not in own)

    def _bot(self, seat):
        if seat not in self._bots:
            from companion.bots import bot_for

            # seeded by the save and the seat: a resumed game's bot plays as it would have
            level = self.setup["app_players"][seat]
            self._bots[seat] = bot_for(self.module.id, level, seed=f"{self.session.seed}:{seat}")
        return self._bots[seat]

    def _is_bot_seat(self, seat) -> bool:
        """A seat played by a bot (the New game form), not by the game's own AI."""
        return seat in self.setup.get("app_players", {}) and seat not in self.game.app_seats(self.state)

    def _app_choice(self, seat):
        if not self._is_bot_seat(seat):
            return self.game.app_action(self.state, seat)
        return self.game.action_from_dict(self._bot(seat).choose(self.session, seat))

    def _play_app_seats(self):
        """While a seat the app plays is to act and the game is not over, dispatch its move as
        that seat's action (source "app"). Stops at the first actor that is a player (or the
        dice), so it never acts while a player's decision is awaited; with `think_aside`, also
        at a bot's seat (see bot_turn)."""
        for _ in range(self.APP_MOVES_MAX):
            s = self.state
            if self.game.is_over(s):
                return
            seat = self.game.actor(s)
            if seat is None or seat not in self.app_seats():
                return
            if self.think_aside and self._is_bot_seat(seat):
                return
            try:
                a = self._app_choice(seat)
            except ValueError as exc:  # a bot that found no move (companion.bots.BotError)
                self.app_problem = f"The app could not choose {self.name(seat)}'s move ({exc}): choose it by hand."
                return
            if not self._play_app_move(seat, a):
                return
        self.app_problem = "The app stopped after many moves in a row: choose the next one by hand."

    def _play_app_move(self, seat, a) -> bool:
        """Dispatch the app's move `a` for `seat` (source "app"); False, with app_problem said,
        when it could not be applied or recorded."""
        try:
            label = self.action_label(a.to_dict())
            self.session.dispatch(a, "app")
        except Rejected as exc:  # a bug in the seat's player: say so, let the table play it
            self.app_problem = (f"The app could not play {self.name(seat)}'s move "
                                f"({self.refusal_text(exc)}): choose it by hand.")
            return False
        except J.JournalError as exc:  # e.g. a read-only card: nothing applied, the move waits
            self.app_problem = (f"The app could not record {self.name(seat)}'s move "
                                f"({getattr(exc, 'reason', None) or exc}).")
            return False
        self.app_problem = ""
        self.app_moves.append(label)
        return True

    def bot_turn(self):
        """With `think_aside`: (seat, position, think) when a bot's seat is to act, else None.
        `think()` may run on another thread (it searches a frozen position and writes nothing)
        and returns the move or raises ValueError; hand its outcome to `play_thought` on the
        thread that owns this controller."""
        s = self.state
        if self.game.is_over(s) or s is self._bot_gave_up:
            return None
        seat = self.game.actor(s)
        if seat is None or not self._is_bot_seat(seat):
            return None
        bot, game, history = self._bot(seat), self.game, [a for a, _ in self.session.history]

        def think():
            return bot.choose_state(game, s, seat, len(history), history)
        return seat, s, think

    def play_thought(self, seat, position, move=None, error=None) -> bool:
        """Apply a bot's move searched aside (bot_turn); True when it was. A position the game has
        left since (an undo, a correction) makes it stale: nothing is applied. `error` (the
        search's ValueError) or a move the rules refuse is said, and the players choose that
        seat's move by hand: bot_turn offers no search for that position again."""
        if self.state is not position or self.game.actor(position) != seat:
            return False
        played = False  # app_moves keeps the turn's earlier moves: the screen says the turn whole
        try:
            if error is not None:
                self.app_problem = f"The app could not choose {self.name(seat)}'s move ({error}): choose it by hand."
            else:
                played = self._play_app_move(seat, move)
            if played:
                self._play_app_seats()
            else:  # this position's move is the players' now (no endless retry)
                self._bot_gave_up = position
        finally:
            self._changed()
        return played

    def check(self, action: dict) -> str | None:
        """Why `action` is not allowed now (the engine's message), or None when it is legal.
        Nothing is applied or written; for previews such as a map's touch-to-move."""
        try:
            a = self.game.action_from_dict(action)
            self.game.check(self.state, a)
        except Rejected as exc:
            return self.refusal_text(exc)
        return None

    def refusal_text(self, exc: Rejected) -> str:
        """A refusal in the table's words. The rules' own refusals are written for players; the
        engine's generic ones (wrong step, not this player's turn) name step and seat ids, so
        they are said again with the step's and the player's names."""
        s, rule = self.state, getattr(exc, "rule", "")
        if rule == "game.over":
            return "the game is over."
        if rule == "engine.malformed":
            return "the app could not read that action; nothing changed."
        if rule == "flow.step":
            return f"that is not part of the {self.view.step_label(s.step)} step."
        if rule == "flow.actor":
            who = self.game.actor(s)
            if who == "system":
                return "a dice roll is awaited now: roll it (or enter it) first."
            if exc.message.startswith("no dice roll"):
                return f"no dice roll is awaited now; it is {self.name(who)}'s decision."
            return f"it is {self.name(who)}'s decision now."
        return exc.message

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

    def _undo_span(self) -> list:
        """The effective actions one Undo takes back, oldest first (Action, source): the latest
        action that is not the app's, with the app's moves after it ([] when only the app's
        moves are left: a player has nothing to take back)."""
        history = self.session.history
        for i in range(len(history) - 1, -1, -1):
            if history[i][1] != "app":
                return history[i:]
        return []

    def undo_refusal(self) -> str | None:
        """Why Undo would refuse now, in plain words, or None."""
        span = self._undo_span()
        if not span:
            return "there is nothing to undo" if not self.session.history else \
                "there is no move of a player to take back, only the app's own"
        if self.journal.undo_refusal(self.game.is_chance, back=len(span)) is None:
            return None
        revealed = next((a for a, _ in reversed(span) if self.game.is_chance(a)), None)
        what = f" ({self.action_label(revealed.to_dict())})" if revealed is not None else ""
        return (f"a roll or a draw{what} has been revealed; what it showed is final, and so is "
                "everything before it")

    def undo_preview(self) -> list[str]:
        """What Undo would take back, oldest first, in words: the player's action, then the
        app's moves after it ([] when Undo is refused)."""
        if self.undo_refusal() is not None:
            return []
        entries = [e for e in self.history.entries if not e.undone and e.undo_of is None]
        return [e.text for e in entries[-len(self._undo_span()):]]

    def can_undo(self) -> bool:
        return self.undo_refusal() is None

    def undo(self) -> dict:
        """Take back the latest action that was not the app's and the app's moves after it
        (journal policy, checked for all of them first). Raises UndoNotPossible (a
        journal.UndoRefused) in plain words. Returns the player's action taken back."""
        why = self.undo_refusal()
        if why is not None:
            raise UndoNotPossible(self.journal.path, why)
        span = self._undo_span()
        for _ in span:  # newest first; one undo row each (docs/journal.md: undo and the app's moves)
            self.session.undo()
            if self._history is not None:
                e = self.journal.entries(last=1)[-1]  # the undo row just written
                self._history_state = self._history.undone(e.seq, e.source, e.created,
                                                           e.action.get("target"), self._history_state)
        self.app_moves = []
        try:
            self._play_app_seats()  # only if the undone action was made when the app was to act
        finally:
            self._changed()
        return span[0][0].to_dict()

    # ---------------------------------------------------------------- views
    def name(self, seat) -> str:
        return self.view.name(self.setup, seat)

    def colour(self, seat) -> str:
        return self.view.colour(self.setup, seat)

    def seats(self) -> list:
        return self.view.seats(self.setup)

    @property
    def history(self):
        """The true history (companion/store/history_log.py), built by one replay on first use and
        kept up to date action by action."""
        if self._history is None:
            from companion.store.history_log import HistoryLog
            self._history = HistoryLog(self.game, self.view, self.setup)
            self._history_state = self._history.rebuild(self.journal.entries(), self.game.initial_state(self.setup))
        return self._history

    def _on_session(self, action, source, new):
        if self._history is None:
            return
        last = self.journal.actions(last=1)
        seq, created = (last[0].seq, last[0].created) if last else (len(self._history.entries) + 1, "")
        self._history.record(seq, source, created, action.to_dict(), self._history_state, new)
        self._history_state = new

    def marks(self, action: dict, source: str) -> dict:
        return self.history.marks(action, source)

    def log(self, limit: int | None = None) -> list[dict]:
        """The history, newest first: each entry's words fixed when it happened, undone ones
        marked, automatic consequences listed under it."""
        return [e.to_dict() for e in self.history.newest_first(limit)]

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
        snap["app_seats"] = list(self.app_seats())
        snap["app_moves"] = list(self.app_moves)  # the app's moves since the latest other action
        snap["app_problem"] = self.app_problem
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
                         "actor": e.actor, "round": e.round, "text": e.text, "how": e.how,
                         "correction": e.correction, "manual": e.manual, "effects": e.effects}
                        for e in self.history.entries if not e.undone and e.undo_of is None],
            "history": [e.to_dict() for e in self.history.entries],
            "over": over, "score": self.view.score(g, s),
            "result": self.view.result(g, s) if over else None,
        }

    def bg_stats(self) -> dict:
        """The game as one play of BG Stats' JSON import format (companion/store/history_log.py)."""
        from companion.store.history_log import bg_stats_play
        play_id = Path(self.path).stem  # unique per save: a re-export updates the same play
        return bg_stats_play(self.module, self.setup, self.view, self.game, self.state,
                             self.journal.meta, self.history.entries, play_id)

    def bg_stats_link(self) -> str:
        """The play as BG Stats' import link (bgstats://app.import?data=<JSON>): opened on a
        device with BG Stats, it shows BG Stats' import dialog (BG Stats 3.3.2+)."""
        from urllib.parse import quote
        return "bgstats://app.import?data=" + quote(json.dumps(self.bg_stats(), separators=(",", ":"),
                                                               ensure_ascii=False), safe="")

    def export_name(self) -> str:
        """The exports' file name stem: the game, the players and the save's date, so a player
        finds it among other files ("Mint Works - Ana vs Justin - 2026-11-26 1940")."""
        import re
        names = " vs ".join(self.name(s) for s in self.seats())
        stamp = str(self.journal.meta.get("created", ""))[:16].replace("T", " ").replace(":", "")
        raw = f"{self.module.title} - {names} - {stamp}".strip(" -")
        return re.sub(r'[\\/:*?"<>|\x00-\x1f]+', "_", raw)[:120] + f" ({Path(self.path).stem[-6:]})"

    def export_to(self, directory=None) -> str:
        """Write `export()` (<name>.json) and the BG Stats play (<name>.bgstats.json) into
        `directory`, or (None) the first folder of store.paths.export_dirs() that takes them: the
        documents folder where a player finds them. Returns the plain export's path; OSError
        when no folder can be written."""
        from companion.store import paths
        dirs = [Path(directory)] if directory is not None else paths.export_dirs()
        docs = ((".json", self.export()), (".bgstats.json", self.bg_stats()))
        stem = self.export_name()
        problem = None
        for folder in dirs:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                out = []
                for suffix, doc in docs:
                    path = folder / (stem + suffix)
                    tmp = path.with_name(path.name + ".tmp")
                    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False, default=str), encoding="utf-8")
                    os.replace(tmp, path)
                    out.append(str(path))
            except OSError as exc:  # not writable here (no permission, full): the next folder
                problem = problem or exc
                continue
            paths.announce_files(out)
            return out[0]
        raise problem or OSError("no folder to export to")

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


def game_outcome(module, state, setup) -> str:
    """A finished game's headline in words ("Ana wins", "Shared victory: Ana and Ben"), or ""."""
    if not module.game.is_over(state):
        return ""
    try:
        return module.view.headline(module.game, state, setup) or "Game over"
    except Exception:  # noqa: BLE001 - words for a list: never stop it
        return "Game over"


def saved_round(summary: J.JournalSummary) -> tuple:
    """(round reached or None, why it cannot be resumed or ""): see saved_info."""
    return saved_info(summary)[:2]


def saved_info(summary: J.JournalSummary) -> tuple:
    """(round reached or None, why it cannot be resumed or "", outcome: "Ana wins" when the game
    is finished, else ""): from the summary stored with the save when it is fresh, else by
    replaying it once (and storing the result)."""
    got = save_summary.read_full(summary, APP_VERSION)
    if got is not None:
        return got[0], "", got[1]
    rnd, problem, outcome = replay_summary(summary)
    if not problem:
        save_summary.write(summary, APP_VERSION, rnd, registry.get_module(summary.game).title, outcome)
    return rnd, problem, outcome


def replay_summary(summary: J.JournalSummary) -> tuple:
    """(round reached or None, why it cannot be resumed or "", outcome or ""), by replaying the save."""
    try:
        module = registry.get_module(summary.game)
        sess = _session_cls().resume(summary.path, game_for=lambda meta: module.game)
    except Exception as exc:  # noqa: BLE001 - any save, however odd, is listed with a reason
        return None, str(exc) or exc.__class__.__name__, ""
    try:
        return module.view.round(sess.state), "", game_outcome(module, sess.state, sess.setup)
    except Exception as exc:  # noqa: BLE001
        return None, f"its state cannot be read ({exc.__class__.__name__})", ""
    finally:
        sess.close()


def list_games(directory) -> list:
    """Saved games for the Resume list, journal order: SavedGame (with its reason when this build
    cannot open it) and BrokenJournal. Never raises for one bad file."""
    return sorted((saved_game(p) for p in saved_game_files(directory)), key=saved_game_order)


def saved_game_files(directory) -> list:
    """The saved games' files, none opened, most recently written first (a cheap guess at the
    list's order: the home screen reads the first screenful of them, then the rest)."""
    return J.journal_files(directory) if os.path.isdir(directory) else []


def saved_game_order(item):
    """Sort key of the Resume list's order (list_games)."""
    return J.listing_order(item.summary if isinstance(item, SavedGame) else item)


def saved_game(path):
    """One row of the Resume list: SavedGame or BrokenJournal. Never raises for a bad file."""
    stored_title = []

    def known(p):
        got = save_summary.listed(p, APP_VERSION)
        if got is None:
            return None
        stored_title.append(got[1])
        return got[0]
    it = J.summarise(path, known)
    if isinstance(it, J.BrokenJournal):
        return it
    if stored_title:  # its game is not even loaded (see save_summary.listed)
        return SavedGame(it, stored_title[0])
    try:
        module = module_of_save(it.game, it.data_version)
    except GameUnavailable as exc:
        return SavedGame(it, exc.title, str(exc))
    got = save_summary.read_full(it, APP_VERSION)
    if got is not None:  # verified just now, its round still fresh (a copy): stamp it again
        save_summary.write(it, APP_VERSION, got[0], module.title, got[1])
    return SavedGame(it, module.title)
