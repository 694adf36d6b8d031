"""Table vs app: what the board senses, compared with what the engine says (no Kivy, no serial).

`TableSync` keeps, per sensed lane, the position the board reports and the position the engine
wants, and sorts every difference into one of two kinds:

* **move** - the game changed and the table has not followed yet: the app tells the players
  which token to move ("Military Might: move Red to 3") and confirms when the board shows it;
* **mismatch** - the table changed and no action asked for it: the players either put the token
  back (`fix_table`: it becomes a *move*) or keep it (`accept`: returns the engine's
  `correct_track` action, which the caller dispatches with source "board").

A lane with no single token sensed (lifted, empty, or two tokens) is *unknown*: it never raises a
mismatch by itself, and a pending move stays pending until the token is seen on its space.

`DiceFeeder` turns settled dice in the board's wells into the roll the engine awaits. Only a
throw made while the app was listening counts (dice left in a well from before are not reused),
each throw is used once, and a crooked die asks for a re-roll instead of guessing.

**Guidance lights**: the target space of every pending *move* is lit on the board (an LED under
each sensed position, docs/protocol.md 3.7) until the move is done or no longer wanted. TableSync
only works out which spaces (`light_targets()`) and hands them to a plain function whenever they
change: the board layer's `show_lights` (companion/link/board_port.py), given as `lights=` or
registered with `set_light_sink()`. No serial or protocol code here.

What a lane means comes from the open game: its `Sensing` (companion/table/sensing.py) says which
counters it has and what their values are, the `Binding` which lane holds which counter. No game
is named here.
"""
from __future__ import annotations

MOVE, MISMATCH = "move", "mismatch"

_light_sink = None  # where TableSyncs built without lights= send their targets (the board layer)


def set_light_sink(fn):
    """The board layer registers its `show_lights(targets)` here (None: no board)."""
    global _light_sink
    _light_sink = fn


def light_sink():
    return _light_sink


class TableSync:
    def __init__(self, sensing, binding, seat_label=lambda seat: seat, seat_name=None, lights=None):
        """`seat_label(seat)`: the colour of the seat's tokens ("Blue"); `seat_name(seat)`: the
        player's name, so a token is named as the table knows it ("Ben - Food", the blue
        token); without it the colour names the token. `lights(targets)`: called with
        {lane: position} whenever the spaces to light change (default: the registered sink)."""
        self.sensing = sensing
        self.binding = binding
        self.seat_label = seat_label
        self.seat_name = seat_name
        self.known = set(binding.lanes)
        self.table: dict[str, int | None] = {}   # lane -> sensed position (None: unknown)
        self.engine: dict[str, int] = {}         # lane -> position the engine wants
        self.pending: set[str] = set()
        self.mismatch: set[str] = set()
        self.unknown_lanes: set[str] = set()     # lanes the board has that the game does not
        self.confirmed: list[str] = []           # lanes confirmed since the last take_confirmed()
        self.lights = lights
        self._lit: dict[str, int] | None = None  # the targets last handed to the lights
        self._lit_fn = None                      # ... and to which function (a new board: again)

    # ------------------------------------------------------------------ inputs
    def start(self, state, table: dict | None = None):
        """A game (re)opened or a board (re)connected: everything that differs is a move to make."""
        self.engine = {lane: self.engine_position(state, lane) for lane in self.known}
        if table is not None:
            self._set_table(table)
        self.mismatch.clear()
        self.pending = {lane for lane, pos in self.table.items()
                        if pos is not None and pos != self.engine[lane]}
        self._show_lights()

    def engine_changed(self, state):
        """After every accepted action (or undo): new moves for the lanes the game moved."""
        for lane in self.known:
            want = self.engine_position(state, lane)
            old = self.engine.get(lane)
            self.engine[lane] = want
            have = self.table.get(lane)
            if have == want:
                self._settle(lane, confirm=lane in self.pending)
            elif want != old:
                self.mismatch.discard(lane)
                if lane in self.table:  # only lanes the board senses
                    self.pending.add(lane)
        self._show_lights()

    def table_changed(self, lane: str, position: int | None):
        """The board reports a lane (position None: no single token there)."""
        if lane not in self.known:
            self.unknown_lanes.add(lane)
            return
        self.table[lane] = position
        if position is None:
            return
        if position == self.engine.get(lane):
            self._settle(lane, confirm=lane in self.pending or lane in self.mismatch)
        elif lane not in self.pending:
            self.mismatch.add(lane)
        self._show_lights()

    def table_snapshot(self, table: dict, changed: set | None = None):
        """A whole-table report (reconnect, board reset). Lanes in `changed` (or all when None),
        and lanes with no reading here yet (never seen, or cleared), are handled as physical
        changes; lanes that differ and changed while away are mismatches."""
        for lane, pos in table.items():
            if changed is None or lane in changed or self.table.get(lane) is None:
                self.table_changed(lane, pos)

    def clear_table(self):
        """Board gone: nothing is sensed any more (pending moves and mismatches stay listed)."""
        for lane in self.table:
            self.table[lane] = None

    def engine_position(self, state, lane: str) -> int:
        """Where the token of `lane` should sit for `state`."""
        c = self.binding.counter_of(lane)
        return self.binding.position(c.id, self.sensing.value(state, c.id))

    def differences(self, state, sensed: dict) -> list:
        """Bound lanes whose single sensed token is not where `state` has it:
        [{"lane", "table", "engine", "table_value", "engine_value"}], lane order."""
        out = []
        for lane, pos in sorted(sensed.items()):
            c = self.binding.counter_of(lane)
            if c is None or pos is None:
                continue
            want = self.engine_position(state, lane)
            if pos != want:
                out.append({"lane": lane, "table": pos, "engine": want,
                            "table_value": self.binding.value_at(lane, pos),
                            "engine_value": self.sensing.value(state, c.id)})
        return out

    def _set_table(self, table):
        for lane, pos in table.items():
            if lane in self.known:
                self.table[lane] = pos
            else:
                self.unknown_lanes.add(lane)

    def _settle(self, lane, confirm):
        self.pending.discard(lane)
        self.mismatch.discard(lane)
        if confirm:
            self.confirmed.append(lane)

    # ------------------------------------------------------------------ choices
    def fix_table(self, lane: str):
        """The players will put the token back where the game has it."""
        if lane in self.mismatch:
            self.mismatch.discard(lane)
            self.pending.add(lane)
            self._show_lights()

    def accept(self, lane: str) -> dict:
        """The engine action that records the sensed reading as a correction (dispatch it with
        source "board"; engine_changed() then clears the mismatch)."""
        pos = self.table.get(lane)
        if lane not in self.mismatch or pos is None:
            raise ValueError(f"no sensed reading to accept on lane {lane}")
        c = self.binding.counter_of(lane)
        value = self.binding.value_at(lane, pos)
        if value is None:
            raise ValueError(f"{c.name}: the token is past the end of its track; put it back")
        action = self.sensing.correction(c.id, value)
        if action is None:
            raise ValueError(f"{c.name}: this game cannot take a value from the table; put the token back")
        return action

    # ------------------------------------------------------------------ lights
    def light_targets(self) -> dict:
        """{lane: the space its token must go to} for every pending move (not mismatches: the
        players have not said yet whether the token goes back)."""
        return {lane: self.engine[lane] for lane in sorted(self.pending - self.mismatch)
                if lane in self.engine}

    def _show_lights(self):
        fn = self.lights if self.lights is not None else _light_sink
        if fn is None:
            return
        targets = self.light_targets()
        if targets != self._lit or fn != self._lit_fn:
            self._lit, self._lit_fn = targets, fn
            fn(dict(targets))

    def close(self):
        """The game is closed or left: none of its moves is wanted any more."""
        self.pending.clear()
        self.mismatch.clear()
        self._show_lights()

    def take_confirmed(self) -> list[str]:
        out, self.confirmed = self.confirmed, []
        return out

    # ------------------------------------------------------------------ views
    def describe(self, lane: str, position: int) -> str:
        c = self.binding.counter_of(lane)
        value = self.binding.value_at(lane, position)
        if value is None:
            return f"space {position} (past the end)"
        return self.sensing.value_text(c.id, value)

    def _who(self, lane):
        """(what the token is called, the token): ("Ben - Food", "the blue token"), or
        ("Food", "Blue") without names, ("Round", "the token") for a counter nobody owns."""
        c = self.binding.counter_of(lane)
        if not c.seat:
            return c.name, "the token"
        if self.seat_name is None:
            return c.name, self.seat_label(c.seat)
        return f"{self.seat_name(c.seat)} - {c.name}", f"the {self.seat_label(c.seat).lower()} token"

    def item(self, lane: str) -> dict:
        track, who = self._who(lane)
        want, have = self.engine[lane], self.table.get(lane)
        kind = MISMATCH if lane in self.mismatch else MOVE
        if kind == MOVE:
            text = f"{track}: move {who} to {self.describe(lane, want)}"
            if have is not None:
                text += f" (board shows {self.describe(lane, have)})"
        else:
            shows = self.describe(lane, have) if have is not None else "no token"
            text = f"{track} ({who}): the board shows {shows}, the game has {self.describe(lane, want)}"
        return {"lane": lane, "kind": kind, "text": text, "table": have, "engine": want,
                "engine_text": self.describe(lane, want),
                "table_text": self.describe(lane, have) if have is not None else None}

    def items(self) -> list[dict]:
        """Mismatches first (they need a decision), then moves, in lane order."""
        order = sorted(self.mismatch) + sorted(self.pending - self.mismatch)
        return [self.item(lane) for lane in order]

    def confirmation_text(self, lane: str) -> str:
        track, who = self._who(lane)
        return f"{track}: {who} on {self.describe(lane, self.engine[lane])}"


class DiceFeeder:
    """Dice in the wells -> the awaited roll action (or a reason to wait)."""

    def __init__(self, rolls=(), n_wells: int = 2):
        self.rolls = {r.action: r for r in rolls}
        self.n_wells = n_wells
        self.wells = {}          # well -> (state, value, roll)
        self.fresh = set()       # wells holding a throw not used yet

    def seen(self, well: int, state: str, value: int, roll: int, initial=False):
        """A DICE report (initial=True for a snapshot: dice already there are not fresh)."""
        old = self.wells.get(well)
        self.wells[well] = (state, value, roll)
        if state in ("empty", "removed"):
            self.fresh.discard(well)
        elif initial:
            return
        elif state == "rolling" or old is None or old[2] != roll:
            self.fresh.add(well)

    def drop_unasked(self, well: int) -> bool:
        """A die settled in `well` while no roll is asked: never kept for a roll asked later.
        True if there was such a fresh throw (the players are told it was not used)."""
        if well in self.fresh and self.wells.get(well, ("",))[0] == "settled":
            self.fresh.discard(well)
            return True
        return False

    def forget(self):
        """Board gone: nothing in the wells can be trusted."""
        self.wells.clear()
        self.fresh.clear()

    def _wells_for(self, roll_action_type: str) -> list:
        """The wells a roll reads: a one-die roll the first fresh one (else well 1); a roll of n
        dice wells 1..n, in the order of the roll's fields (CivMint's combat: well 1 attacker,
        well 2 defender, REG-L3)."""
        roll = self.rolls.get(roll_action_type)
        need = roll.dice if roll is not None else 0
        if need > self.n_wells:
            return []
        if need != 1:
            return list(range(min(need, self.n_wells)))
        return self._thrown()[:1] or [0]

    def _thrown(self) -> list:
        """The wells holding a throw not used yet (settled, crooked or still rolling), in order."""
        return [w for w in sorted(self.fresh) if self.wells[w][0] in ("settled", "crooked", "rolling")]

    def propose(self, roll_action_type: str, usable: int = 1):
        """(action or None, message): the awaited roll from fresh settled dice, or why not yet.
        `usable`: how many one-die rolls the rules ask in a row from here (Sensing.dice_usable);
        more fresh dice than that are not guessed at: the players are told to take one out."""
        roll = self.rolls.get(roll_action_type)
        if roll is not None and roll.dice > self.n_wells:
            return None, f"This roll needs {roll.dice} dice; enter them by touch."
        if roll is not None and roll.dice == 1:
            thrown = self._thrown()
            if len(thrown) > max(1, usable):
                return None, (f"{len(thrown)} dice are in the wells, but {roll.name} takes one die: "
                              "take the extra one out (or enter the value by touch).")
        wells = self._wells_for(roll_action_type)
        if not wells:
            return None, ""
        for w in wells:
            st = self.wells.get(w, ("empty", 0, 0))[0]
            if st == "crooked":
                return None, f"The die in well {w + 1} is crooked: roll it again."
            if st == "rolling":
                return None, ""
        waiting = [str(w + 1) for w in wells if not (w in self.fresh and self.wells[w][0] == "settled")]
        if waiting:
            return None, f"Waiting for a die in well {' and '.join(waiting)} (or enter the values by touch)."
        vals = [self.wells[w][1] for w in wells]
        try:
            return roll.action_from(vals), ""
        except ValueError as exc:  # a well that reports a value no die shows
            return None, f"The wells read {vals}: {exc}. Roll again or enter the values by touch."

    def used(self, action: dict):
        """The proposed roll was dispatched: its dice are spent."""
        self.fresh.difference_update(self._wells_for(action.get("type", "")))
