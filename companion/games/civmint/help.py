"""Short rule help for each CivMint step (data/help.json), shown by the dashboard's Rules toggle."""
from __future__ import annotations

from functools import lru_cache

from .data_load import load


@lru_cache(maxsize=1)
def _help() -> dict:
    return load("help")["steps"]


def step_help(step: str | None) -> str:
    """Help for a step id of data/flow.json ('' when there is none)."""
    return _help().get(step or "", "")
