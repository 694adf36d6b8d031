"""Scoring a reading against a scene's truth (tests and benchmarks/bench_dice_photo.py).

Each true die is matched to the read die whose centre is nearest, within 0.6 of the die's
apparent side. A true die is then:
  * right   - matched, and the reading gives its value;
  * wrong   - matched with another value, or the photo's roll was given with a die missing;
  * abstain - matched to a die the reader declined, or the whole photo was declined
              (the player is told why and enters the values another way); a die read right
              beside a declined one stays right (the table only fixes the other one);
  * missed  - not found at all while the reading claims the roll is complete: counted wrong.
A read die matched to no true die with a value is an extra: wrong (it would add a die).
A whole roll is right when every die is right and nothing extra was read.
"""
from __future__ import annotations

import dataclasses
import math


@dataclasses.dataclass
class Tally:
    dice: int = 0
    right: int = 0
    wrong: int = 0
    abstain: int = 0
    rolls: int = 0
    rolls_right: int = 0
    rolls_wrong: int = 0    # a complete roll given with a wrong value (recorded if confirmed blindly)
    rolls_declined: int = 0
    seconds: list = dataclasses.field(default_factory=list)

    def add(self, other: "Tally"):
        for f in ("dice", "right", "wrong", "abstain", "rolls", "rolls_right", "rolls_wrong", "rolls_declined"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        self.seconds += other.seconds

    def pct(self, n, d=None):
        d = self.dice if d is None else d
        return 100.0 * n / d if d else 0.0


def score(scene, reading) -> Tally:
    t = Tally(dice=len(scene.dice), rolls=1, seconds=[reading.seconds])
    read = list(reading.dice)
    used = set()
    outcome = []
    for die in scene.dice:
        best, bd = None, math.inf
        for j, r in enumerate(read):
            if j in used:
                continue
            d = math.hypot(r.centre[0] - die.centre[0], r.centre[1] - die.centre[1])
            if d < bd:
                best, bd = j, d
        if best is not None and bd <= 0.6 * die.side_px:
            used.add(best)
            outcome.append("match" if read[best].value is not None else "abstain")
            if read[best].value is None:
                t.abstain += 1
            elif read[best].value == die.value:
                t.right += 1
            else:
                t.wrong += 1
        else:
            outcome.append("missed")
    extras = [r for j, r in enumerate(read) if j not in used and r.value is not None]
    missed = outcome.count("missed")
    if reading.ok:
        # the roll would be offered as complete: a missed die or an extra one is wrong
        t.wrong += missed + len(extras)
        all_right = t.right == t.dice and not extras
        t.rolls_right += all_right
        t.rolls_wrong += not all_right
    else:
        # declined (the photo, or one die): nothing is offered; dice never found are abstained on
        t.abstain += missed
        t.rolls_declined += 1
        # a die read right beside one declined stays right (the table fixes only the other);
        # one read wrong stays wrong: it was given without abstaining
    return t


def read_scene(reader, scene, **kw):
    return reader(scene.jpeg, **kw)
