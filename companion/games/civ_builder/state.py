"""Civ Builder's game state: plain values, copied cheaply (one level of dicts; nested values that
are shared between copies are tuples and never mutated)."""
from __future__ import annotations

_SCALARS = ("step", "round", "seats", "deck", "discard", "reshuffles", "setup_seat", "order", "turn", "melds",
            "meld_attr", "special_attr", "target", "taken", "over", "chance_count", "rounds", "science_picks",
            "end_reasons")
_FLAT_DICTS = ("civ", "vp", "hand", "init_keys", "scoring")
_LISTS = ("vp_log", "rolloff", "queue", "table")


class State:
    __slots__ = _SCALARS + _FLAT_DICTS + _LISTS + ("attrs", "setup_rolls")

    def copy(self) -> "State":
        s = State.__new__(State)
        for k in _SCALARS:
            setattr(s, k, getattr(self, k))
        for k in _FLAT_DICTS:
            setattr(s, k, dict(getattr(self, k)))
        for k in _LISTS:
            setattr(s, k, list(getattr(self, k)))
        s.attrs = {seat: dict(v) for seat, v in self.attrs.items()}
        s.setup_rolls = {seat: list(v) for seat, v in self.setup_rolls.items()}
        return s

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in _SCALARS + _FLAT_DICTS + _LISTS}
        d["attrs"] = {seat: dict(v) for seat, v in self.attrs.items()}
        d["setup_rolls"] = {seat: list(v) for seat, v in self.setup_rolls.items()}
        d["civ"], d["vp"], d["hand"] = dict(self.civ), dict(self.vp), dict(self.hand)
        d["vp_log"] = [list(e) for e in self.vp_log]
        return d

    @property
    def cards_in_hands(self) -> int:
        return sum(self.hand.values())
