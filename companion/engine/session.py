"""One dispatch path for every input, whatever its source.

`Session.dispatch(action, source)` (source: "ui", "board", "system", "app", "camera", or a seat's
phone "phone:p2") validates the action
against the current state, appends it to the journal only when accepted (journal before state),
then replaces the in-memory state. `Session.resume(path)` rebuilds the exact state by replaying
the journal's effective actions through the same engine.
"""
from __future__ import annotations

from .actions import Action
from .dice import SeededDice
from .errors import MalformedAction, Rejected

SOURCES = ("ui", "board", "system", "app", "camera")  # app: a seat the app plays (a solitaire AI, a
# bot); camera: dice read from a photo, confirmed by the table
#: The session keeps the state after every this many effective actions (near the end
#: of a resumed game, and from then on), so an undo replays at most this many actions, not the game
MARK_EVERY = 64
#: ... and at most this many of them, the latest (memory stays bounded in a long game; an undo
#: further back than they reach replays from the start, keeping states on the way)
MARKS_KEPT = 16


class ResumeError(Exception):
    """A readable save this app cannot rebuild a game from: a game it does not have, or a
    setup that game cannot start from."""


class ReplayError(ResumeError):
    """The journal holds an action the engine rejects on replay (data or engine changed)."""

    def __init__(self, seq, rejected: Rejected):
        super().__init__(f"journal entry {seq} no longer applies: {rejected}")
        self.seq = seq
        self.rejected = rejected


def _resolve_game(game_module):
    if isinstance(game_module, str):
        from companion.games import get_game

        return get_game(game_module)
    return getattr(game_module, "GAME", game_module)


class Session:
    def __init__(self, game, setup: dict, state, journal=None, seed: int = 0, initial=None, history=(),
                 marks=()):
        self.game = game
        self.setup = setup
        self.state = state
        self.journal = journal
        self.seed = seed
        self.dice = SeededDice(seed, getattr(state, "chance_count", 0))
        self._initial = game.initial_state(setup) if initial is None else initial  # replay start of undo
        self._history = list(history)  # (Action, source) of the effective history (mirrors the journal's)
        # (n, the state after the first n effective actions), n ascending: where undo replays from
        self._marks = list(marks)
        self._listeners = []

    # -- creation --------------------------------------------------------------------------------
    @classmethod
    def new(cls, game_module, setup: dict | None = None, journal_path=None, seed: int = 0,
            app_version: str = "dev", data_version: int = 1) -> "Session":
        game = _resolve_game(game_module)
        setup = dict(setup if setup is not None else game.default_setup())
        setup["seed"] = seed
        state = game.initial_state(setup)  # a bad setup fails before a journal file exists
        journal = None
        if journal_path is not None:
            from companion.store.journal import Journal

            journal = Journal.create(journal_path, game.name, setup, app_version, data_version)
        return cls(game, setup, state, journal, seed, initial=state.copy())

    @classmethod
    def resume(cls, journal_path, game_for=None) -> "Session":
        """Replay a journal. Raises only: companion.store.journal.JournalError (the file: missing,
        not a journal, too new, damaged, read-only), ResumeError (a game this app does not have,
        a saved setup the game cannot start from), ReplayError (a subclass: an entry the
        engine no longer accepts), or what `game_for(meta)` raises when given (it picks the
        rules for the journal's meta data; default: the registry's game of that name). The
        file is closed on every error."""
        from companion.store.journal import Journal

        journal = Journal.open(journal_path)
        meta = journal.meta
        try:
            if game_for is not None:
                game = game_for(meta)
            else:
                try:
                    game = _resolve_game(meta["game"])
                except KeyError as exc:
                    raise ResumeError(f"{journal_path}: {exc.args[0] if exc.args else exc}") from None
            setup = meta["setup"]
            try:
                initial = state = game.initial_state(setup)
            except Exception as exc:  # any shape of setup: the save is not this app's to run
                raise ResumeError(f"{journal_path}: the saved setup cannot start a "
                                  f"{getattr(game, 'name', 'game')} game: {exc}") from exc
            history, marks = [], []
            state = initial.copy()  # the replay's working copy: each action applies in place
            # actions of the same text are one dict (parsed once, while verified), so each is
            # read into an Action once: the schema's answer for a text is always the same
            read = {}
            rows = journal.replay_actions(shared=True)
            mark_from = len(rows) - 2 * MARK_EVERY  # undo's starting points: the last two marks
            apply = game.apply_in_place
            for seq, source, action in rows:
                try:
                    a = read.get(id(action))
                    if a is None:
                        a = read[id(action)] = game.action_from_dict(action)
                    apply(state, a)
                except Rejected as exc:
                    raise ReplayError(seq, exc) from exc
                except Exception as exc:  # an entry the engine chokes on is not applicable either
                    raise ReplayError(seq, Rejected("engine.replay", f"{type(exc).__name__}: {exc}")) from exc
                history.append((a, source))
                n = len(history)
                if n % MARK_EVERY == 0 and n > mark_from:
                    # kept as it is; the replay goes on in a copy (a copy may share parts with
                    # the state it was made from, which then must not change)
                    marks.append((n, state))
                    state = state.copy()
        except BaseException:
            journal.close()
            raise
        return cls(game, setup, state, journal, setup.get("seed", 0), initial=initial, history=history,
                   marks=marks)

    # -- the one input path ----------------------------------------------------------------------
    def dispatch(self, action, source: str, sensed: dict | None = None) -> Action:
        """Validate, journal, then apply. Raises Rejected (nothing recorded) for bad input.
        `sensed`: how the action was read (a photo's confidence), journaled beside it."""
        if source not in SOURCES:
            from companion.store.journal import is_source  # the one list of what a journal records

            if not is_source(source):
                raise ValueError(f"source must be one of {SOURCES} or phone:<seat>, not {source!r}")
        if isinstance(action, Action):
            # an Action object is checked exactly like its dict: the same schema, kinds, seats
            try:
                d = action.to_dict()
            except Exception as exc:
                raise MalformedAction(f"action {action.type!r} cannot be read: {exc}") from None
            a = self.game.action_from_dict(d)
        else:
            a = self.game.action_from_dict(action)
        if a.type in self.game.correction_types and source != "ui":
            raise Rejected("correction.confirm",
                           "a correction is accepted only when the players confirm it on the tablet")
        new = self.game.apply(self.state, a)  # raises Rejected: never journaled, never applied
        if self.journal is not None:
            if sensed is None:
                self.journal.append(a.to_dict(), source)
            else:
                self.journal.append(a.to_dict(), source, sensed=sensed)
        self.state = new
        self._history.append((a, source))
        if len(self._history) % MARK_EVERY == 0:
            self._marks.append((len(self._history), new))  # a state is never changed once made
            del self._marks[:-MARKS_KEPT]
        for cb in list(self._listeners):
            cb(a, source, new)
        return a

    def roll(self) -> Action:
        """Roll the awaited dice with the seeded generator (virtual dice) and dispatch them."""
        self.dice.drawn = getattr(self.state, "chance_count", self.dice.drawn)
        a = self.game.chance_action(self.state, self.dice)
        if a is None:
            raise Rejected("flow.actor", "no dice roll is awaited now")
        return self.dispatch(a, "system")

    def undo(self):
        """Undo the latest action unless a dice roll was revealed after (or at) it."""
        if self.journal is not None:
            self.journal.undo(self.game.is_chance)  # raises UndoRefused (its own undo policy)
        elif not self._history:
            raise Rejected("session.undo", "nothing to undo")
        elif self.game.is_chance(self._history[-1][0]):
            raise Rejected("session.undo", "a revealed dice roll cannot be undone")
        self._rebuild(self._history[:-1])  # the journal removed exactly its latest effective action

    def _rebuild(self, history):
        """The state after `history` (a prefix of the effective history): replayed from the
        latest kept state at or before its end, else from the start (keeping states on the way,
        so the next undo does not replay the whole game again)."""
        n = len(history)
        marks = self._marks
        while marks and marks[-1][0] > n:
            marks.pop()
        start, base = marks[-1] if marks else (0, self._initial)
        state = base.copy()
        apply = self.game.apply_in_place
        for i in range(start, n):
            apply(state, history[i][0])
            if (i + 1) % MARK_EVERY == 0 and i + 1 < n:
                marks.append((i + 1, state))  # kept; the replay goes on in a copy (as in resume)
                state = state.copy()
        del marks[:-MARKS_KEPT]
        self.state = state
        self._history = list(history)

    # -- queries ---------------------------------------------------------------------------------
    def subscribe(self, callback):
        """callback(action, source, new_state) after every accepted action."""
        self._listeners.append(callback)

    @property
    def history(self):
        return list(self._history)

    def legal_actions(self, seat: str | None = None):
        """Legal actions of whoever must act now, or (seat given) of that seat, out-of-turn ones included."""
        if seat is None:
            return self.game.legal_actions(self.state)
        return self.game.legal_actions_for(self.state, seat)

    def actor(self):
        return self.game.actor(self.state)

    def view(self) -> dict:
        """Plain-data view of the current state (the game's `view`), for the UI."""
        return self.game.view(self.state)

    def status(self) -> list:
        """Problems that make the current state impossible ([] normally)."""
        return self.game.status(self.state)

    def close(self):
        if self.journal is not None:
            self.journal.close()
            self.journal = None
