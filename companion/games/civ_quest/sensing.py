"""What Civ Quest asks of the board: every roll from the dice wells, and the pad's Idea and
Resource Points as counters (0..15) on the board's 16-space resource lanes, a seat's own first
(CQ-R10 in the register); those no lane holds stay on the tablet and the dashboard says so."""
from __future__ import annotations

from companion.table.sensing import Counter, Roll, Sensing

from .rules import ONE_DIE, ROLL_NAMES, TWO_DICE


class CivQuestSensing(Sensing):
    rolls = tuple(Roll(t, ROLL_NAMES[t], 1, ("die",)) for t in ONE_DIE) + tuple(
        Roll(t, ROLL_NAMES[t], 2, ("first", "second")) for t in TWO_DICE)

    def counters(self, setup):
        out = []
        for seat in sorted(setup["players"], key=lambda s: (len(s), s)):
            # the rules keep IP and RP on a pad: a token only where a lane holds them (CQ-R10)
            out.append(Counter(f"ip.{seat}", "Idea Points", seat, 0, 15, kind="resource", on_pad=True))
            out.append(Counter(f"rp.{seat}", "Resource Points", seat, 0, 15, kind="resource", on_pad=True))
        return out

    def value(self, state, counter_id):
        what, seat = counter_id.split(".")
        return getattr(state.players[seat], what)

    def value_text(self, counter_id, value):
        return f"{value} {counter_id.split('.')[0].upper()}"

    def correction(self, counter_id, value):
        what, seat = counter_id.split(".")
        return {"type": "correct", "player": seat, "what": what, "value": value}


SENSING = CivQuestSensing()
