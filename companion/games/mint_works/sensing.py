"""Mint Works on the board: each player's Mints in hand, 0..15, on a resource lane of the seat
(the 16-space Money lane first; seats beyond the board's two, p3 and p4, take free resource
lanes). Mint Works has no dice, so no rolls. Mort's unlimited Mints stay on the tablet (MW-R12)."""
from __future__ import annotations

from companion.table.sensing import Counter, Sensing

HIGH = 15  # the board's resource lanes have 16 spaces (0..15)


class MintWorksSensing(Sensing):
    rolls = ()

    def counters(self, setup) -> list:
        out = []
        players = setup.get("players", {})
        for seat in sorted(players, key=lambda x: (len(x), x)):
            if players[seat].get("ai") == "mort":
                continue  # unlimited: nothing to count
            out.append(Counter(f"mints.{seat}", "Mints", seat, 0, HIGH, lane=f"money.{seat}", kind="resource"))
        return out

    def value(self, state, counter_id) -> int:
        seat = counter_id.split(".")[1]
        return min(HIGH, state.mints.get(seat, 0))

    def value_text(self, counter_id, value) -> str:
        return f"{value}+" if value == HIGH else str(value)

    def correction(self, counter_id, value) -> dict:
        return {"type": "set_mints", "player": counter_id.split(".")[1], "value": value}


SENSING = MintWorksSensing()
