"""A true history of a game for the log screen and exports (no Kivy, no serial).

Each entry's words are fixed when the action happens: the action is described against the state
*before* it (so "move Cavalry row 2 col 3 -> row 2 col 4" stays true after later moves), with
who did it, how it came in (board, by hand, automatic, the app's move for a seat it plays) and
what followed by itself (battles, eliminations, event effects, round ends: the game view's
`history_lines`). A roll or a draw names who threw or drew it (`roller`). Undone actions stay
in the history, marked undone, followed by the undo itself.

`HistoryLog.rebuild(entries)` replays the raw journal once (journal order, `_undo` rows
included), applying the actions only: an entry's words are worked out from the states before
and after it when first read, so a page of the Log (`newest_first(limit, skip)`) words its own
entries and no others. `record()` and `undone()` keep it up to date action by action, so the
log costs nothing per refresh.

`bg_stats_play()` turns a game into one play of BG Stats' JSON import format (a stable
`sourceName`, a unique `sourcePlayId` per save); `export` in the controller writes plain JSON.
"""
from __future__ import annotations

import copy

UNDO_TYPE = "_undo"
SOURCE_NAME = "Tabletop Companion"


_LAZY = ("round", "text", "effects", "table")


class LogEntry:
    """One entry of the history. Its words (`text`, `effects`, `table`) and `round` are worked
    out from the states before and after the action the first time they are read, so opening a
    long game replays its actions only and the Log words just the page it shows; the states
    never change once made, so the words are the same whenever they are read."""

    FIELDS = ("seq", "source", "created", "actor", "round", "text", "how", "correction", "manual",
              "effects", "action", "table", "undone", "undo_of")
    __slots__ = ("seq", "source", "created", "actor", "how", "correction", "manual", "action",
                 "undone", "undo_of", "_words", "_round", "_text", "_effects", "_table")

    def __init__(self, seq, source, created, actor, how, correction, manual, action, *,
                 undone=False, undo_of=None, words=None, round=None, text=None, effects=None, table=None):
        self.seq, self.source, self.created, self.actor = seq, source, created, actor
        self.how, self.correction, self.manual, self.action = how, correction, manual, action
        self.undone, self.undo_of = undone, undo_of
        self._words = words  # {field: fn() -> value} for the fields not worked out yet
        self._round, self._text, self._effects, self._table = round, text, effects, table

    def _get(self, name):
        words = self._words
        if words is not None and name in words:
            setattr(self, "_" + name, words.pop(name)())
            if not words:
                self._words = None  # all known: let go of the functions
        return getattr(self, "_" + name)

    round = property(lambda self: self._get("round"))
    text = property(lambda self: self._get("text"))          # what happened, fixed at the time
    effects = property(lambda self: self._get("effects"))    # what followed by itself, in plain words
    table = property(lambda self: self._get("table"))        # physical changes (view.table_changes)

    @property
    def unread(self) -> bool:
        """True while none of the entry's words has been worked out."""
        return self._words is not None and len(self._words) == len(_LAZY)

    def lines(self) -> list[str]:
        """The entry as the log screen shows it."""
        head = f"#{self.seq} {self.text}" + (f" ({self.how})" if self.how else "")
        if self.undone:
            head += " - undone"
        return [head] + [f"    {e}" for e in self.effects]

    def to_dict(self) -> dict:
        return {f: copy.deepcopy(getattr(self, f)) for f in self.FIELDS}

    def __repr__(self):
        return f"LogEntry(#{self.seq} {self.source} {self.action.get('type')!r})"


class HistoryLog:
    def __init__(self, game, view, setup):
        self.game = game
        self.view = view
        self.setup = setup
        self.entries: list[LogEntry] = []
        self._before: list = []  # state before each effective action, for undo

    # ------------------------------------------------------------------ marks
    def marks(self, action: dict, source: str) -> dict:
        """`correction`: the players overwrote a recorded value; `manual`: a value typed or
        fixed by hand on the tablet (dice entered by touch, corrections)."""
        correction = action.get("type") in self.game.correction_types
        chance = self.game.codec.is_chance(action)
        return {"correction": correction, "manual": source == "ui" and (correction or chance)}

    @staticmethod
    def mark_words(marks: dict, source: str) -> str:
        if marks["correction"]:
            return "manual correction" if marks["manual"] else "correction"
        if marks["manual"]:
            return "dice entered by hand"
        if source.startswith("phone:"):
            return "from the player's phone"
        return {"board": "read by the board", "system": "automatic",
                "app": "played by the app"}.get(source, "")

    def roller(self, before, action: dict) -> str:
        """Who threw the dice (or drew the card) of a chance action, as words after its label:
        the game's own (`view.roller_words(game, before, action, setup)`, e.g. attacker and
        defender), else the seat whose roll it was (`view.roll_owner`), else the players."""
        own = getattr(self.view, "roller_words", None)
        if own is not None:
            words = own(self.game, before, action, self.setup)
            if words:
                return words
        seat = self.view.roll_owner(before)
        return f"rolled by {self.view.name(self.setup, seat)}" if seat else "rolled by the players"

    # ------------------------------------------------------------------ building
    def rebuild(self, raw_entries, initial_state):
        """Replay the raw journal (journal.entries(): actions and `_undo` rows) from the start."""
        self.entries, self._before = [], []
        state = initial_state
        for e in raw_entries:
            if e.action.get("type") == UNDO_TYPE:
                state = self.undone(e.seq, e.source, e.created, e.action.get("target"), state)
                continue
            after = self.game.apply(state, e.action)
            self.record(e.seq, e.source, e.created, e.action, state, after)
            state = after
        return state

    def record(self, seq, source, created, action: dict, before, after) -> LogEntry:
        """One accepted action: its words against `before`, its automatic effects (worked out
        when first read)."""
        action = dict(action)
        m = self.marks(action, source)
        actor = action.get("player") or action.get("seat")

        def text():
            words = self.view.action_label(action, before, self.setup)
            if self.game.codec.is_chance(action):
                words += " - " + self._words(lambda *a: [self.roller(before, action)], before, action, after)[0]
            return words
        words = {"round": lambda: self.view.round(before), "text": text,
                 "effects": lambda: self._words(self.view.history_lines, before, action, after),
                 "table": lambda: self._words(self.view.table_changes, before, action, after)}
        entry = LogEntry(seq, source, created, actor, self.mark_words(m, source), m["correction"],
                         m["manual"], action, words=words)
        self.entries.append(entry)
        self._before.append((entry, before, after))
        return entry

    def _words(self, fn, before, action, after) -> list:
        try:
            return list(fn(self.game, before, action, after, self.setup))
        except Exception as exc:  # noqa: BLE001 - words must never stop the game
            return [f"(could not describe it: {exc.__class__.__name__})"]

    def undone(self, seq, source, created, target, state):
        """An undo row: mark the action it took back, add the undo itself; returns the state
        before that action (the journal only ever undoes the latest effective action)."""
        if not self._before:
            return state
        entry, before, after = self._before.pop()
        entry.undone = True
        undo = {"type": UNDO_TYPE, "target": target}
        words = {"round": lambda: self.view.round(before), "text": lambda: f"Undo: {entry.text}",
                 "effects": list, "table": lambda: self._words(self.view.table_changes, after, undo, before)}
        self.entries.append(LogEntry(seq, source, created, None, "", False, False, undo,
                                     undo_of=entry.seq, words=words))
        return before

    # ------------------------------------------------------------------ reading
    def effective(self) -> list:
        """(entry, state before, state after) of each effective action, oldest first."""
        return list(self._before)

    def newest_first(self, limit: int | None = None, skip: int = 0) -> list[LogEntry]:
        """A page of the history, newest first: `limit` entries after the `skip` newest."""
        n = len(self.entries)
        stop = max(0, n - skip)
        start = max(0, stop - limit) if limit else 0
        return self.entries[start:stop][::-1]

    def text(self, limit: int | None = None, skip: int = 0) -> str:
        return "\n".join(line for e in self.newest_first(limit, skip) for line in e.lines())


def bg_stats_play(module, setup, view, game, state, journal_meta, entries, play_id: str) -> dict:
    """One play in the format BG Stats imports from other apps (its "push plays" link,
    bgstats://app.import?data=<this JSON>; /work/shared/notes/bg-stats-import.md): `sourceName`
    stable and `sourcePlayId` unique per save, so importing the same save twice updates one play;
    `game` an object (name, bggId where the game has one, sourceGameId, highestWins, noPoints);
    each player with name, score, winner, rank, startPlayer and sourcePlayerId. Only the fields
    of that format: an unfinished game has no winner and says so in `comments`."""
    from datetime import datetime
    seats = view.seats(setup)
    over = game.is_over(state)
    score = view.score(game, state)
    result = view.result(game, state) if over else None
    if result and result.get("winner"):
        winners = {result["winner"]}
    elif over and score:  # a shared victory: every top scorer wins
        best = max(v["total"] for v in score.values())
        winners = {s for s, v in score.items() if v["total"] == best}
    else:
        winners = set()
    created = journal_meta.get("created", "")
    last = entries[-1].created if entries else created

    def parse(ts):
        try:
            return datetime.fromisoformat(ts)
        except (TypeError, ValueError):
            return None
    t0, t1 = parse(created), parse(last)
    minutes = max(0, int((t1 - t0).total_seconds() // 60)) if t0 and t1 else 0
    first = next((e.actor for e in entries if e.actor and not e.undone), None)
    totals = {seat: (score.get(seat) or {}).get("total") for seat in seats}
    players = []
    for seat in seats:
        total = totals[seat]
        player = {"name": view.name(setup, seat), "sourcePlayerId": seat,
                  "score": "" if total is None else str(total), "winner": seat in winners,
                  "startPlayer": seat == first}
        if over:  # 1 for the winners, then by score (the same score, the same rank)
            better = {totals[s] for s in seats if s not in winners and totals[s] is not None
                      and total is not None and totals[s] > total}
            player["rank"] = 1 if seat in winners else 1 + bool(winners) + len(better)
        players.append(player)
    bgg = getattr(module, "bgg_id", None) or getattr(view, "bgg_id", None)
    gdoc = {"name": module.title, "sourceGameId": module.id, "highestWins": True, "noPoints": False}
    if isinstance(bgg, int) and bgg > 0:
        gdoc["bggId"] = bgg
    rounds = view.round(state)
    notes = [] if over else ["Game not finished."]
    if rounds:
        notes.append(f"{rounds} round{'s' if rounds != 1 else ''}.")
    notes.append(f"{len([e for e in entries if not e.undone and e.undo_of is None])} actions.")
    return {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": play_id,
        "game": gdoc,
        "playDate": (t0.strftime("%Y-%m-%d %H:%M:%S") if t0 else ""),
        "durationMin": minutes,
        "players": players,
        "comments": " ".join(notes),
    }
