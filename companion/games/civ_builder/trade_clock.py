"""The trade phase's 4-minute clock (register CB-T1: display only, the engine never reads it).

Kept here, outside the panel, so that a rebuilt panel (the screen re-laid out, the game left and
opened again) shows the same clock: one clock per game file and round, started the first time
that round's trade phase is shown. The view's header reads it through the setup object of the
open game (`path_of`), since the view is given no path. No Kivy: tests read it headless."""
from __future__ import annotations

import time

_started: dict = {}      # (path, round) -> monotonic start
_paths: list = []        # [(setup object, path)]: the games whose panel showed a clock
_now = time.monotonic    # replaced by tests


def start(path, rnd: int, setup=None) -> float:
    """The clock of `path`'s round `rnd`, started now if it was not yet; returns its start."""
    key = (path, rnd)
    if key not in _started:
        _started[key] = _now()
    if setup is not None and not any(s is setup and p == path for s, p in _paths):
        _paths.append((setup, path))
        del _paths[:-8]  # only the open game matters; a few are plenty
    return _started[key]


def left(path, rnd: int, seconds: int) -> int | None:
    """Whole seconds left of `seconds` (0 once time is up); None when no clock was started."""
    t0 = _started.get((path, rnd))
    if t0 is None:
        return None
    return max(0, int(round(seconds - (_now() - t0))))


def path_of(setup):
    """The path whose panel registered this very setup object (None: none did)."""
    return next((p for s, p in reversed(_paths) if s is setup), None)


def text(secs: int | None) -> str:
    """'3:05 left', 'time is up', or '' for no clock."""
    if secs is None:
        return ""
    if secs <= 0:
        return "time is up"
    m, s = divmod(secs, 60)
    return f"{m}:{s:02d} left"
