"""Civ Builder on the board: no counters, only rolls (register CB-H1). Every count the game keeps
is either unbounded (attributes, VP reach 40+) or, like a hand (up to 13 cards, which a 16-space
lane would hold), never in doubt: all of them follow from declarations the companion already records.
The dice wells fill the setup rolls, both wells at once (well 1 the awaited attribute, well 2 the
same player's next, each named in the Log: "Ana: Science, 1 die"), and the initiative roll-offs one die at a
time."""
from __future__ import annotations

from companion.table.sensing import Roll, Sensing

from .data_load import ATTRIBUTES


class CivBuilderSensing(Sensing):
    rolls = tuple(Roll("roll_" + a, a.title(), 1, ("die",)) for a in ATTRIBUTES) + (
        Roll("roll_off", "Initiative roll-off", 1, ("die",)),)

    def dice_usable(self, state, action_type) -> int:
        """The set-up dice are thrown two at a time: the die in well 1 is the awaited attribute,
        the one in well 2 the same player's next; a player's last die is thrown alone (CB-H2)."""
        if state.step != "setup_roll" or action_type == "roll_off":
            return 1
        seat = state.seats[state.setup_seat]
        return max(1, len(ATTRIBUTES) + 1 - len(state.setup_rolls[seat]))

    def counters(self, setup) -> list:
        return []

    def value(self, state, counter_id) -> int:
        raise KeyError(f"Civ Builder senses no counter {counter_id!r}")

    def correction(self, counter_id, value):
        return None


SENSING = CivBuilderSensing()
