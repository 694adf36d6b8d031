"""The toy game of tests/engine (Race to Ten) as a game module, registered only by the tests that
use it (`register_toy()`): no panels, no tabs, no setup widget, the default GameView, so it can
only be played through the shell's generic decision area."""
from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from companion import games  # noqa: E402
from companion.games.contract import GameModule, GameView  # noqa: E402
from companion.table.sensing import Counter, Roll, Sensing  # noqa: E402
from tests.engine.test_toy_game import RaceToTen  # noqa: E402

TOY_ID = "toy"


class ScoredRace(RaceToTen):
    """Race to Ten with a score for the summary screens."""

    def score(self, s):
        return {seat: {"total": s.scores[seat], "items": {"banked": s.scores[seat]}} for seat in ("p1", "p2")}


class ToySensing(Sensing):
    """A banked total per player (0..20: no lane of the board is long enough (16 spaces), so it
    stays on the tablet) and the turn roll, read from one dice well."""
    rolls = (Roll("roll", "Turn roll", 1, ("die",)),)

    def counters(self, setup):
        return [Counter(f"banked.{seat}", "Banked", seat, 0, 20) for seat in sorted(setup["players"])]

    def value(self, state, counter_id):
        return min(20, state.scores[counter_id.split(".")[1]])

    def correction(self, counter_id, value):
        return None


def make_setup(players, options):
    return {"players": {f"p{i + 1}": dict(p) for i, p in enumerate(players)}}


def toy_module(data_version=1) -> GameModule:
    return GameModule(
        id=TOY_ID, title="Race to Ten", players=(2, 2), play_time="5 min",
        blurb="Roll a die, bank it or pass; the first to 10 wins.", data_version=data_version,
        game=ScoredRace(), view=GameView(), make_setup=make_setup, sensing=ToySensing(), order=50)


def register_toy(data_version=1) -> GameModule:
    return games.register(toy_module(data_version))
