"""The game-module contract: what one folder `companion/games/<game>/` gives the shell.

A game package exports `MODULE`, a `GameModule`. The shell (home, new game, board screen, log,
summaries, history, settings, bots, phone pages) reads only this object: it never imports a game
by name. What a seat may read of a state is `GameModule.seat_view`, from the game's hooks. Kivy
pieces (panels, tabs, the setup form's extra widget) are named as "module:Class" strings and
imported only by the app, so everything here stays importable without Kivy (docs/games.md).
"""
from __future__ import annotations

import dataclasses
import os
from typing import Callable

from companion.engine.game import Game
from companion.games.hooks import GameHooks
from companion.words import COLOURS, nice

ROLE_SYSTEM = "system"  # engine.Game.actor() when a dice roll is awaited


class ContractError(ValueError):
    """A game module that does not give the shell what it needs (raised at registration)."""


@dataclasses.dataclass(frozen=True)
class Option:
    """One variant or setting of the new-game form.

    kind: "choice" (one of `choices`, a list of [value, label]), "int" (between low and high;
    `none_label` allows no value at all, e.g. "no round limit") or "bool"."""
    key: str
    label: str
    kind: str
    default: object = None
    choices: tuple = ()
    low: int | None = None
    high: int | None = None
    none_label: str | None = None
    help: str = ""

    def parse(self, raw):
        """The option's value from what a form or a test gave; ValueError with plain words."""
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.lower() in ("yes", "no", "true", "false", "1", "0"):
                return raw.lower() in ("yes", "true", "1")
            raise ValueError(f"{self.label}: answer yes or no")
        if self.kind == "int":
            if raw is None or (isinstance(raw, str) and not raw.strip()):
                if self.none_label is not None:
                    return None
                raise ValueError(f"{self.label}: enter a number")
            try:
                v = int(raw)
            except (TypeError, ValueError):
                raise ValueError(f"{self.label}: {raw!r} is not a whole number") from None
            if isinstance(raw, bool) or (self.low is not None and v < self.low) or (
                    self.high is not None and v > self.high):
                raise ValueError(f"{self.label}: enter a number from {self.low} to {self.high}")
            return v
        values = [c[0] for c in self.choices]
        if raw not in values:
            raise ValueError(f"{self.label}: choose one of {', '.join(str(c[1]) for c in self.choices)}")
        return raw


PICK_KINDS = ("area", "card", "count", "unit", "seat", "yesno", "choice")


@dataclasses.dataclass(frozen=True)
class Pick:
    """What a player picks for one field of an action (GameView.picks), so the shell builds the
    decision step by step instead of listing every combination: kind "area" (an area or space of
    the game's map), "card" (a card by name from a set), "count" (a number in a range), "unit",
    "seat", "yesno" or "choice" (a plain list); `question` in plain words ("Which area?")."""
    field: str
    kind: str = "choice"
    question: str = ""


@dataclasses.dataclass
class GameModule:
    """Everything the shell knows about one game.

    make_setup(players, options) -> the engine's setup dict. `players` is a list of
    {"name", "colour"} in seat order (seats are "p1", "p2", ...); `options` holds each Option's
    parsed value (defaults filled in) plus whatever the setup panel returned. Every setup keeps
    `setup["players"][seat] = {"name", "colour", ...}` so the shell can name and colour seats.
    """
    id: str
    title: str
    players: tuple            # (fewest, most)
    play_time: str            # "45-90 min"
    blurb: str                # one line: what the game is
    data_version: int         # bumped when the game's data or action meanings change
    game: Game                # the rules (engine.Game)
    view: "GameView"          # presentation without Kivy
    make_setup: Callable
    sensing: object = None    # companion.table.sensing.Sensing: counters and rolls for the board
    options: tuple = ()       # Option, shown by the new-game form
    setup_panel: str | None = None   # "module:Class": an extra widget for the setup form
    panels: dict = dataclasses.field(default_factory=dict)   # step id -> "module:Class"
    tabs: tuple = ()          # (key, title, "module:Class"): extra views beside Players and Log
    tab_for_step: dict = dataclasses.field(default_factory=dict)  # step id -> tab key it opens
    pickers: dict = dataclasses.field(default_factory=dict)  # Pick kind -> "module:Class": the game's own widget
    kv_files: tuple = ()      # the game's .kv layouts (absolute paths)
    register: str = ""        # interpretation register (path, relative to the repository)
    trace: str = ""           # rule -> code -> test table
    order: int = 100          # place in the game list (the flagship first)
    bgg_id: int | None = None  # BoardGameGeek's id, for exports (None: not known for sure)
    hooks: type = GameHooks   # the bots' hooks and what a seat may see (companion/games/hooks.py)

    def __post_init__(self):
        if self.sensing is not None and getattr(self.view, "sensing", None) is None:
            self.view.sensing = self.sensing  # the view's default table changes read its counters

    def seats(self, n: int) -> list:
        return [f"p{i + 1}" for i in range(n)]

    def seat_view(self, state, seat):
        """What `seat` may read of `state`: other seats' hidden things (named cards in a hand, a
        secret plan) dropped, their counts kept; a seat the game does not have sees only what is
        public. The hooks' `observe`, the one place that decides it for the bots and the phone
        pages alike. It may be `state` itself when nothing is hidden: read it, never change it."""
        return self.hooks(self.game).observe(state, seat)

    def setup_from_form(self, players: list, options: dict | None = None) -> dict:
        """Validate a new-game form and build the setup (ValueError in plain words)."""
        lo, hi = self.players
        if not lo <= len(players) <= hi:
            raise ValueError(f"{self.title} is for {lo}-{hi} players, not {len(players)}"
                             if lo != hi else f"{self.title} is for {lo} players, not {len(players)}")
        colours = [p.get("colour") for p in players]
        if len(set(colours)) != len(colours):
            raise ValueError("Each player needs a different colour.")
        clean = []
        for i, p in enumerate(players):
            name = str(p.get("name") or "").strip() or f"Player {i + 1}"
            clean.append({"name": name[:40], "colour": p.get("colour")})
        given = dict(options or {})
        parsed = {}
        for o in self.options:
            parsed[o.key] = o.parse(given.pop(o.key)) if o.key in given else o.default
        parsed.update(given)  # the setup panel's own values (e.g. a map layout)
        return self.make_setup(clean, parsed)

    def sample_setup(self, players: int | None = None) -> dict:
        """A setup with default names, colours and options (fewest players unless given): for
        previews, overlays and the board screen's words when no game is open."""
        n = self.players[0] if players is None else players
        return self.setup_from_form([{"name": "", "colour": c} for c in COLOURS[:n]], {})

    def roll_awaited(self, state) -> dict | None:
        """The roll the rules await in `state`: {"action", "roll" (its name), "count", "spec" (the
        sensing Roll, or None when the game declares none)}; None when no roll is awaited."""
        if self.game.is_over(state) or self.game.actor(state) != ROLE_SYSTEM:
            return None
        probe = _ProbeDice()
        a = self.game.chance_action(state, probe)
        if a is None:
            return None
        roll = self.sensing.roll_for(a.type) if self.sensing is not None else None
        # chance that throws no dice is a card or tile drawn or turned up at the table
        kind = "dice" if probe.count else "draw"
        if roll is not None:
            return {"action": roll.action, "roll": roll.name, "count": roll.dice, "spec": roll, "kind": kind}
        return {"action": a.type, "roll": self.view.step_label(a.type), "count": probe.count, "spec": None,
                "kind": kind}


class _ProbeDice:
    """Stands in for SeededDice to learn which roll a game awaits and how many dice it takes."""

    def __init__(self):
        self.count = 0

    def roll(self, n: int = 1) -> list:
        self.count += n
        return [1] * n


class GameView:
    """Presentation of a game's state for the shell, without Kivy. A game subclasses it and
    overrides what it can say better; the defaults work from the engine alone (the toy game of
    the tests uses nothing else)."""

    #: action types that end the player's step or turn: each gets a button of its own beside the
    #: pickers (so do the actions the prompt names: "tap No combat"); "end_step" has the bar's
    step_end_types: frozenset = frozenset({"done", "pass", "end_turn", "end_trade", "defend_done"})

    # names -------------------------------------------------------------------------------
    @staticmethod
    def seats(setup) -> list:
        return sorted(setup.get("players", {}), key=lambda s: (len(s), s))

    @staticmethod
    def name(setup, seat) -> str:
        if not seat:
            return "?"
        p = setup.get("players", {}).get(seat) or {}
        return p.get("name") or f"Player {seat[1:]}"

    @staticmethod
    def colour(setup, seat) -> str:
        return (setup.get("players", {}).get(seat) or {}).get("colour") or "grey"

    def step_label(self, step) -> str:
        return nice(step)

    def phase_label(self, phase) -> str:
        return nice(phase)

    def action_label(self, action: dict, state, setup) -> str:
        """One line for an action dict, e.g. 'Ada: bank'."""
        t = action.get("type", "?")
        who = f"{self.name(setup, action['player'])}: " if "player" in action else ""
        rest = ", ".join(f"{nice(k)} {v}" for k, v in action.items() if k not in ("type", "player"))
        return f"{who}{nice(t)}" + (f" ({rest})" if rest else "")

    def step_help(self, step) -> str:
        return ""

    # pickers ------------------------------------------------------------------------------
    def picks(self, game: Game, action_type, state=None, setup=None) -> tuple:
        """The fields a player picks for an action of `action_type`, in order (Pick). The default
        reads the rules' action schema: a seat field picks a seat, a whole number a count, any
        other field a choice. A game declares areas, cards and units here; `state` and `setup` are
        the moment the decision is for (a question may name where a card goes), None in general."""
        schema = getattr(getattr(game, "codec", None), "schemas", {}).get(action_type)
        if schema is None:
            return ()
        if schema.chance:  # a roll's dice or a card turned up: what the table shows
            return tuple(Pick(f, "card" if k == "str" else "choice", "What was drawn?" if k == "str" else "")
                         for f, k in schema.kinds.items() if f != "player")
        kinds = {"seat": "seat", "int": "count"}
        return tuple(Pick(f, kinds.get(k, "choice")) for f, k in schema.kinds.items() if f != "player")

    def type_label(self, action_type) -> str:
        """An action type as a choice among kinds of action ("Build", "Move")."""
        return self.step_label(action_type)

    def value_label(self, game: Game, state, setup, action_type, field, value) -> str:
        """One value of a field in plain words (a seat by its player's name)."""
        if isinstance(value, bool):
            return "Yes" if value else "No"
        if isinstance(value, str) and value in setup.get("players", {}):
            return self.name(setup, value)
        if isinstance(value, (list, tuple)):
            return ", ".join(self.value_label(game, state, setup, action_type, field, v) for v in value) or "none"
        if isinstance(value, dict):
            return ", ".join(f"{nice(k)} {v}" for k, v in value.items()) or "none"
        if value is None:
            return "none"
        return nice(value) if isinstance(value, str) else str(value)

    def unavailable_reason(self, game: Game, state, setup, action_type, field, typed: str) -> str | None:
        """Why nothing the player may pick now matches `typed` (a card named that can no longer
        be in the deck: "Both Gold Coast cards are already out"), in plain words; None when the
        game has no more to say than "nothing matches"."""
        return None

    def draw_prompt(self, game: Game, state, setup, request: dict) -> str:
        """What to do when the rules await a card or tile drawn at the table (no dice)."""
        return (f"{request['roll']}: draw at the table and tap what was drawn below, "
                "or let the app draw for you.")

    def table_changes(self, game: Game, before, action: dict, after, setup) -> list:
        """Every physical change the table must make after `action`, as dicts: `text` (plain
        words: whose piece, what, where), `kind` ("die", "track", "card", ...) and, for a counter
        the board may sense, its `lane` id. The dashboard lists them until done ("Do this at the
        table"). The default: every counter of the game's sensing whose value changed
        ("Ben - Mints: 3 -> 5: move the token."; a counter kept on a pad: "note it on the pad"),
        with its `counter` id; nothing without one."""
        sensing = getattr(self, "sensing", None)
        if sensing is None:
            return []
        out = []
        for c in sensing.counters(setup):
            v0, v1 = sensing.value(before, c.id), sensing.value(after, c.id)
            if v0 != v1:
                who = f"{self.name(setup, c.seat)} - " if c.seat else ""
                # a pad value: the pad; where the board holds it, the sensed lane's own row says "move"
                todo = "note it on the pad" if c.on_pad else "move the token"
                out.append({"text": f"{who}{c.name}: {sensing.value_text(c.id, v0)} -> "
                                    f"{sensing.value_text(c.id, v1)}: {todo}.",
                             "kind": "track", "lane": c.lane, "counter": c.id})
        return out

    def history_lines(self, game: Game, before, action: dict, after, setup) -> list:
        """What followed `action` by itself, in plain words, for the history (a game adds its
        battles, eliminations, event effects...). The default: round ends and the game's end."""
        out = []
        r0, r1 = self.round(before), self.round(after)
        if r0 is not None and r1 is not None and r1 != r0:
            out.append(f"Round {r0} ends; round {r1} begins.")
        if game.is_over(after) and not game.is_over(before):
            out.append("Game over: " + self.headline(game, after, setup) + ".")
        return out

    # the moment ---------------------------------------------------------------------------
    def snapshot(self, game: Game, state, setup) -> dict:
        """Extra plain data the game's own panels read (merged into the dashboard's snapshot)."""
        return {}

    def round(self, state) -> int | None:
        return getattr(state, "round", None)

    def max_rounds(self, state) -> int | None:
        return getattr(state, "max_rounds", None)

    def header(self, game: Game, state, setup) -> str:
        actor = game.actor(state)
        who = "the dice" if actor == ROLE_SYSTEM else (self.name(setup, actor) if actor else "nobody")
        rnd = self.round(state)
        mr = self.max_rounds(state)
        parts = []
        if rnd is not None:
            parts.append(f"Round {rnd}" + (f"/{mr}" if mr else ""))
        step = state.step
        phase = game.flow.phase(step)
        parts.append(f"{self.phase_label(phase)}: [b]{self.step_label(step)}[/b]"
                     if phase not in ("?", step) else f"[b]{self.step_label(step)}[/b]")
        parts.append(f"to act: [b]{who}[/b]")
        return "   -   ".join(parts)

    def prompt(self, game: Game, state, setup, dice: dict | None) -> str:
        """What to do at the table now, in plain words."""
        if game.is_over(state):
            return self.result_text(game, state, setup)
        actor = game.actor(state)
        if actor == ROLE_SYSTEM:
            if dice and dice.get("kind") == "draw":
                return self.draw_prompt(game, state, setup, dice)
            if dice:
                return (f"{dice_words(dice, lambda s: self.name(setup, s))}: roll at the table and put "
                        "the dice in the wells, enter what they show, or use the virtual dice.")
            return "Roll the dice: use the virtual dice, or enter what the real dice show."
        return f"{self.name(setup, actor)}: choose an action for the {self.step_label(state.step)} step."

    def roll_owner(self, state) -> str | None:
        """Whose roll the awaited dice are (None: nobody's in particular)."""
        return None

    # players and score -------------------------------------------------------------------
    def player_lines(self, game: Game, state, setup, seat, player=None) -> list:
        """[(label, markup text[, style])] for the seat's panel on the dashboard; style "small"
        (smaller type) or "block" (the label on a line of its own). `player` is the seat's entry of
        the snapshot when the shell has it."""
        sc = self.score(game, state).get(seat)
        return [("Score", f"[b]{sc['total']}[/b]")] if sc else []

    def private_lines(self, game: Game, state, setup, seat) -> list:
        """Lines as player_lines that only `seat`'s own phone shows, read from its own view (its
        face-down cards by name); the tablet, seen by everyone, never shows them."""
        return []

    def score(self, game: Game, state) -> dict:
        """seat -> {"total": int, "items": {label: int}} ({} when the game keeps no score)."""
        fn = getattr(game, "score", None)
        if fn is None:
            return {}
        raw = fn(state)
        out = {}
        for seat, v in raw.items():
            if isinstance(v, dict):
                out[seat] = {"total": v.get("total", 0), "items": dict(v.get("items", {}))}
            elif isinstance(v, int):
                out[seat] = {"total": v, "items": {}}
        return out

    def result(self, game: Game, state) -> dict:
        """{"winner": seat or None, "decided_by": str, "end_reasons": [...]} once the game is over."""
        fn = getattr(game, "result", None)
        if fn is not None:
            return fn(state)
        sc = self.score(game, state)
        if not sc:
            return {"winner": None, "decided_by": "none", "end_reasons": []}
        best = max(v["total"] for v in sc.values())
        top = [s for s, v in sc.items() if v["total"] == best]
        return {"winner": top[0] if len(top) == 1 else None, "decided_by": "total", "end_reasons": []}

    def headline(self, game: Game, state, setup) -> str:
        w = self.result(game, state).get("winner")
        return f"{self.name(setup, w)} wins" if w else "Shared victory"

    def end_reasons(self, game: Game, state, setup) -> list:
        return [nice(r) for r in self.result(game, state).get("end_reasons", ())]

    def tiebreak(self, game: Game, state, setup) -> str | None:
        return None

    def result_text(self, game: Game, state, setup) -> str:
        sc = self.score(game, state)
        totals = " : ".join(str(sc[s]["total"]) for s in self.seats(setup) if s in sc)
        reasons = " ".join(self.end_reasons(game, state, setup))
        return "Game over - " + self.headline(game, state, setup) + (f" ({totals})" if totals else "") + (
            f". {reasons}" if reasons else ".")

    def score_series(self, game: Game, setup, history) -> dict:
        """seat -> score total at the end of each round (the last: now), replaying `history`
        (the session's effective history: (Action, source) pairs) with the engine's own apply."""
        state = game.initial_state(setup)
        seats = self.seats(setup)
        series = {s: [] for s in seats}
        rnd = self.round(state)

        def mark(st):
            sc = self.score(game, st)
            for s in seats:
                series[s].append(sc.get(s, {}).get("total", 0))
        for a, _source in history:
            state = game.apply(state, a)
            r = self.round(state)
            if r is not None and r != rnd:
                mark(state)
                rnd = r
        mark(state)
        return series

    def round_summary(self, game: Game, setup, history, ended_round: int) -> dict | None:
        """{"title", "rows": [(seat, text)]} for the card shown when a round ends (None: no card)."""
        return None


def dice_words(dice: dict, name) -> str:
    """'Ana: Disaster roll, 1 die' for a dice request of GameView / the shell."""
    n = dice["count"]
    who = f"{name(dice['who'])}: " if dice.get("who") else ""
    return f"{who}{dice['roll']}, {n} {'die' if n == 1 else 'dice'}"


REQUIRED_GAME_METHODS = ("initial_state", "actor", "pseudo_legal_actions", "chance_action", "is_over")


def check_module(m) -> list:
    """What `m` (a game package's MODULE) lacks under the contract; [] when it is complete."""
    if not isinstance(m, GameModule):
        return [f"MODULE must be a companion.games.contract.GameModule, not {type(m).__name__}"]
    probs = []
    if not isinstance(m.id, str) or not m.id.isidentifier():
        probs.append(f"id must be a Python identifier (the folder name), got {m.id!r}")
    for f in ("title", "play_time", "blurb"):
        if not isinstance(getattr(m, f), str) or not getattr(m, f).strip():
            probs.append(f"{f} is missing (a non-empty text)")
    p = m.players
    if not (isinstance(p, tuple) and len(p) == 2 and all(isinstance(x, int) for x in p) and 1 <= p[0] <= p[1]):
        probs.append(f"players must be (fewest, most) with 1 <= fewest <= most, got {p!r}")
    if not isinstance(m.data_version, int) or isinstance(m.data_version, bool) or m.data_version < 1:
        probs.append(f"data_version must be a positive integer, got {m.data_version!r}")
    if not isinstance(m.game, Game):
        probs.append("game must be an engine.Game (the rules)")
    else:
        for meth in REQUIRED_GAME_METHODS:
            if getattr(type(m.game), meth) is getattr(Game, meth, None):
                probs.append(f"game does not implement {meth}()")
        if getattr(m.game, "name", None) != m.id:
            probs.append(f"game.name must be the module id {m.id!r}, got {getattr(m.game, 'name', None)!r}")
        if not probs:
            probs += [f"rules: {x}" for x in m.game.validate_definition()]
    if not isinstance(m.view, GameView):
        probs.append("view must be a companion.games.contract.GameView")
    if not callable(m.make_setup):
        probs.append("make_setup(players, options) is missing")
    for o in m.options:
        if not isinstance(o, Option) or o.kind not in ("choice", "int", "bool"):
            probs.append(f"option {o!r} is not an Option of kind choice, int or bool")
    refs = list(m.panels.values()) + [t[2] for t in m.tabs if len(t) == 3] + (
        [m.setup_panel] if m.setup_panel else [])
    for kind in m.pickers:
        if kind not in PICK_KINDS:
            probs.append(f"pickers: {kind!r} is not a pick kind ({', '.join(PICK_KINDS)})")
    refs += list(m.pickers.values())
    for ref in refs:
        if not isinstance(ref, str) or ":" not in ref:
            probs.append(f"Kivy piece {ref!r} must be named as 'module:Class'")
    if any(len(t) != 3 for t in m.tabs):
        probs.append("tabs must be (key, title, 'module:Class')")
    tab_keys = {t[0] for t in m.tabs}
    for step, key in m.tab_for_step.items():
        if key not in tab_keys:
            probs.append(f"tab_for_step: step {step!r} opens unknown tab {key!r}")
    for kv in m.kv_files:
        if not os.path.isfile(kv):
            probs.append(f"layout file {kv} does not exist")
    if not (isinstance(m.hooks, type) and issubclass(m.hooks, GameHooks)):
        probs.append(f"hooks must be a class deriving from companion.games.hooks.GameHooks, got {m.hooks!r}")
    if m.sensing is not None:
        for meth in ("counters", "value", "value_text", "correction"):
            if not callable(getattr(m.sensing, meth, None)):
                probs.append(f"sensing.{meth}() is missing")
        if not isinstance(getattr(m.sensing, "rolls", None), (tuple, list)):
            probs.append("sensing.rolls is missing (a tuple of Roll)")
    return probs
