"""Seeded dice for the virtual board and tests.

The engine never rolls: it only receives die values as chance actions. `SeededDice` produces those
values reproducibly: roll number k of a game with seed s is derived from (s, k) only, so a resumed
session continues with the same dice it would have rolled without the interruption.
"""
from __future__ import annotations

import random


class SeededDice:
    def __init__(self, seed: int, drawn: int = 0):
        self.seed = seed
        self.drawn = drawn

    def roll(self, n: int = 1) -> list[int]:
        r = random.Random(f"{self.seed}:{self.drawn}")
        self.drawn += 1
        return [r.randint(1, 6) for _ in range(n)]
