"""CivMint state: cheap to copy (apply copies, then mutates the copy; inputs are never changed)."""
from __future__ import annotations

from typing import NamedTuple

SEATS = ("p1", "p2")


def other(seat: str) -> str:
    return "p2" if seat == "p1" else "p1"


class Unit(NamedTuple):
    id: int
    owner: str        # current controller (a conquered capital belongs to the conqueror)
    kind: str         # settler village city infantry cavalry artillery ship capital
    space: str
    damage: int = 0
    carrier: int = 0  # id of the Ship carrying the unit, 0 when not carried
    moved: bool = False
    fought: bool = False
    fresh: bool = False  # built this turn (Ships may not move the turn they are built)

    def to_dict(self):
        return self._asdict()


class Player:
    __slots__ = ("res", "dev", "asp", "colour")

    def __init__(self, res, dev, asp, colour):
        self.res = res      # resource -> 0..10
        self.dev = dev      # development track -> printed space index 0..7
        self.asp = asp      # aspect track -> level 1..6
        self.colour = colour

    def copy(self):
        return Player(dict(self.res), dict(self.dev), dict(self.asp), self.colour)

    def to_dict(self):
        return {"colour": self.colour, "resources": dict(self.res),
                "development": dict(self.dev), "aspects": dict(self.asp)}


class State:
    __slots__ = ("board", "round", "first", "turn", "step", "players", "units", "next_uid", "t",
                 "combat", "pending", "events", "over", "end_reasons", "max_rounds", "chance_count",
                 "early_ok", "early", "t2", "house")

    def copy(self):
        s = State.__new__(State)
        s.board = self.board
        s.round = self.round
        s.first = self.first
        s.turn = self.turn
        s.step = self.step
        s.players = {k: p.copy() for k, p in self.players.items()}
        s.units = dict(self.units)
        s.next_uid = self.next_uid
        s.t = dict(self.t)
        s.combat = self.combat
        s.pending = self.pending
        s.events = self.events
        s.over = self.over
        s.end_reasons = self.end_reasons
        s.max_rounds = self.max_rounds
        s.chance_count = self.chance_count
        s.early_ok = self.early_ok
        s.early = self.early
        s.t2 = self.t2
        s.house = self.house
        return s

    @property
    def active(self) -> str:
        if self.first is None:
            return "p1"
        return self.first if self.turn == 0 else other(self.first)

    def order(self):
        return (self.first, other(self.first))

    def to_dict(self) -> dict:
        """Plain-data snapshot (for the UI, for comparisons and for debugging)."""
        return {
            "round": self.round, "first": self.first, "active": self.active, "step": self.step,
            "players": {k: p.to_dict() for k, p in self.players.items()},
            "units": [u.to_dict() for u in sorted(self.units.values())],
            "turn": dict(self.t), "combat": dict(self.combat) if self.combat else None,
            "pending": [list(p) for p in self.pending], "events": dict(self.events),
            "over": self.over, "end_reasons": list(self.end_reasons), "max_rounds": self.max_rounds,
            "early": self.early, "early_turn": dict(self.t2) if self.t2 else None,
            "house_rules": sorted(self.house),
        }

    def __eq__(self, other):
        return isinstance(other, State) and self.to_dict() == other.to_dict()
