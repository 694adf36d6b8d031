"""Short rule help for each CivMint step (data/help.json), shown by the dashboard's Rules toggle."""
from __future__ import annotations

import re
from functools import lru_cache

from .data_load import load


@lru_cache(maxsize=1)
def _help() -> dict:
    return load("help")["steps"]


# "(REG-P1, REG-R1)": the register's row ids, for the docs and the trace table, not for players
_RULE_IDS = re.compile(r"\s*\((?:REG-[A-Z]+\d+(?:\.\.[A-Z]*\d+)?(?:,\s*)?)+\)")


def step_help(step: str | None) -> str:
    """Help for a step id of data/flow.json ('' when there is none), in plain words."""
    return _RULE_IDS.sub("", _help().get(step or "", ""))
