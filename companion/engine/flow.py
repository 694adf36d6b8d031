"""Phases and steps as configuration.

A flow config (JSON data of the game) looks like::

    {"setup": ["first_player"], "anytime": ["correct_track"],
     "phases": [{"id": "player_turns", "per_player": true, "steps": ["production", ...]}, ...],
     "steps": {"production": {"actions": ["produce"], "auto": false}, ...}}

`Flow` only answers questions about that data: which actions a step allows, which step follows,
whether a step is run by the game itself (`auto`). `anytime` actions (table corrections) are
accepted at every step from nobody's turn in particular. The game reacts to step entry through hooks; the
core never hard-codes a game's order of play.
"""
from __future__ import annotations


class Flow:
    def __init__(self, config: dict):
        self.config = config
        self.setup = list(config.get("setup", []))
        self.phases = list(config["phases"])
        self.steps = dict(config["steps"])
        self.order = []  # (phase_id, step_id, per_player)
        self.phase_of = {}
        for ph in self.phases:
            for st in ph["steps"]:
                if st not in self.steps:
                    raise ValueError(f"flow: step {st!r} of phase {ph['id']!r} has no definition")
                self.order.append((ph["id"], st, bool(ph.get("per_player"))))
                self.phase_of[st] = ph["id"]
        for st in self.setup:
            self.phase_of[st] = "setup"
        self._index = {st: i for i, (_, st, _) in enumerate(self.order)}
        self.anytime = frozenset(config.get("anytime", ()))
        self.allowed = {st: frozenset(d.get("actions", ())) | self.anytime for st, d in self.steps.items()}
        self.auto = frozenset(st for st, d in self.steps.items() if d.get("auto"))
        self.first_step = self.order[0][1]
        self._pp_first = {}
        self._pp_last = {}
        for ph in self.phases:
            if ph.get("per_player"):
                self._pp_first[ph["id"]] = ph["steps"][0]
                self._pp_last[ph["id"]] = ph["steps"][-1]

    def actions_of(self, step: str) -> frozenset:
        return self.allowed.get(step, frozenset())

    def phase(self, step: str) -> str:
        return self.phase_of.get(step, "?")

    def next(self, step: str, turn: int, players: int = 2):
        """The position after (step, turn): returns (step, turn, new_round)."""
        if step in self.setup:
            i = self.setup.index(step)
            if i + 1 < len(self.setup):
                return self.setup[i + 1], 0, False
            return self.first_step, 0, True
        i = self._index[step]
        phase_id, _, per_player = self.order[i]
        if per_player and step == self._pp_last[phase_id] and turn + 1 < players:
            return self._pp_first[phase_id], turn + 1, False
        i += 1
        if i >= len(self.order):
            return self.first_step, 0, True
        return self.order[i][1], (0 if not self.order[i][2] or self.order[i][0] != phase_id else turn), False
