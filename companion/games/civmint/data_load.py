"""Loads the CivMint rules data (data/*.json) once. A table with its printed cards edits the JSON."""
from __future__ import annotations

import json
import os

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def load(name: str) -> dict:
    with open(os.path.join(DATA_DIR, name + ".json"), encoding="utf-8") as f:
        return json.load(f)


class RulesData:
    """All data files, with a few derived lookup tables."""

    def __init__(self):
        self.units = load("units")["kinds"]
        self.tracks = load("tracks")
        self.events = load("events")
        self.maps = load("maps")
        self.flow = load("flow")
        self.resources = load("resources")
        self.rules = load("rules")
        self.dev = self.tracks["development"]
        self.asp = self.tracks["aspect"]
        self.dev_ids = tuple(self.dev)
        self.asp_ids = tuple(self.asp)
        self.res_ids = tuple(self.resources["resources"])
        self.cap = self.resources["cap"]
        self.validate()

    def validate(self):
        assert self.dev_ids == ("government", "economy", "technology", "culture"), self.dev_ids
        assert self.asp_ids == ("population_size", "military_might", "economic_strength", "civilian_happiness")
        for t, spaces in self.dev.items():
            if len(spaces) != 8:
                raise ValueError(f"development track {t} must have 8 printed spaces, has {len(spaces)}")
            lv = [s["level"] for s in spaces]
            for a, b in zip(lv, lv[1:]):
                if b not in (a, a + 1):
                    raise ValueError(f"track {t}: levels must rise by 0 (horizontal) or 1: {lv}")
            if lv[0] != 1:
                raise ValueError(f"track {t}: first space must be level 1")
        for t, spaces in self.asp.items():
            if [s["level"] for s in spaces] != [1, 2, 3, 4, 5, 6]:
                raise ValueError(f"aspect track {t} must have levels 1..6")
        for group in (self.dev, self.asp):
            for t, spaces in group.items():
                for sp in spaces:
                    if "money" in sp.get("gain", {}):
                        raise ValueError(f"track {t} space {sp['name']}: bonus resources are non-Money")
                    for a in sp.get("aspect", {}):
                        if a not in self.asp:
                            raise ValueError(f"track {t} space {sp['name']}: unknown aspect {a!r}")
        if self.res_ids != ("food", "wood", "stone", "metal", "money", "combat_power"):
            raise ValueError("resources must be food, wood, stone, metal, money, combat_power")


DATA = RulesData()
