"""Civ Builder on the board: no counters, only rolls (register CB-H1). Every count the game keeps
is either unbounded (attributes, VP reach 40+) or longer than the board's longest lane (11 spaces;
a hand reaches 13 cards), and all of them follow from declarations the companion already records.
The dice wells fill the setup rolls, one die at a time named by its attribute ("Ana: Science,
1 die"), and the initiative roll-offs."""
from __future__ import annotations

from companion.table.sensing import Roll, Sensing

from .data_load import ATTRIBUTES


class CivBuilderSensing(Sensing):
    rolls = tuple(Roll("roll_" + a, a.title(), 1, ("die",)) for a in ATTRIBUTES) + (
        Roll("roll_off", "Initiative roll-off", 1, ("die",)),)

    def counters(self, setup) -> list:
        return []

    def value(self, state, counter_id) -> int:
        raise KeyError(f"Civ Builder senses no counter {counter_id!r}")

    def correction(self, counter_id, value):
        return None


SENSING = CivBuilderSensing()
