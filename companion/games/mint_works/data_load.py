"""Loads and validates the Mint Works rules data (data/*.json). The files are untrusted input: a
table may edit them to match its printed cards, so every value is checked with a clear error."""
from __future__ import annotations

import json
import os

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
STAR_RULES = ("museum", "gallery", "obelisk", "vault")
UPKEEP_RULES = ("gallery", "co_op", "corporate_hq")
ABILITIES = ("supplier_discount", "builder_discount", "assembler", "landfill")
EFFECTS = ("gain", "buy", "lead", "build", "lotto", "swap", "recycle", "crowdfund", "temp")
SPECIALS = ("closes_used", "keeper", "double_turn", "tycoon")


class DataError(ValueError):
    """A data file of Mint Works that the rules cannot use."""


def load(name: str) -> dict:
    path = os.path.join(DATA_DIR, name + ".json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise DataError(f"mint_works data file {name}.json cannot be read: {exc}") from exc


def _need(cond, where, why):
    if not cond:
        raise DataError(f"mint_works data {where}: {why}")


def _nat(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


class RulesData:
    """All data files with lookup tables; raises DataError on anything the rules cannot use."""

    def __init__(self, plans=None, locations=None, rules=None, flow=None):
        self.plans_doc = plans or load("plans")
        self.loc_doc = locations or load("locations")
        self.rules = rules or load("rules")
        self.flow = flow or load("flow")
        self._plans()
        self._locations()
        self._rules()

    def _plans(self):
        doc = self.plans_doc
        types = doc.get("types")
        _need(isinstance(types, list) and types, "plans.types", "a list of plan types is needed")
        self.types = tuple(types)
        self.plans = {}
        for p in doc.get("plans", ()):
            pid = p.get("id")
            where = f"plans.{pid}"
            _need(isinstance(pid, str) and pid, "plans", f"a plan without an id: {p!r}")
            _need(pid not in self.plans, where, "listed twice")
            _need(isinstance(p.get("name"), str) and p["name"], where, "needs a name")
            _need(p.get("type") in self.types, where, f"type must be one of {self.types}")
            for k in ("cost", "stars"):
                _need(_nat(p.get(k)), where, f"{k} must be a whole number >= 0")
            _need(_nat(p.get("upkeep", 0)), where, "upkeep must be a whole number >= 0")
            _need(p.get("star_rule") in (None,) + STAR_RULES, where, f"star_rule must be one of {STAR_RULES}")
            _need(p.get("upkeep_rule") in (None,) + UPKEEP_RULES, where, f"upkeep_rule must be one of {UPKEEP_RULES}")
            _need(p.get("ability") in (None,) + ABILITIES, where, f"ability must be one of {ABILITIES}")
            for k in ("culture_weight", "building_weight"):
                _need(_nat(p.get(k, 1)) and p.get(k, 1) >= 1, where, f"{k} must be a whole number >= 1")
            self.plans[pid] = dict(p)
        _need(len(self.plans) == 21, "plans", f"Mint Works has 21 plans, the file lists {len(self.plans)}")
        vals = doc.get("values", {})
        for k in ("vault_per_face_down", "vault_base", "landfill_culture_malus", "supplier_discount",
                  "supplier_minimum", "builder_discount", "builder_minimum"):
            _need(_nat(vals.get(k)), f"plans.values.{k}", "a whole number >= 0 is needed")
        self.values = dict(vals)

    def _locations(self):
        doc = self.loc_doc
        self.locations = {}
        for lid, loc in doc.get("locations", {}).items():
            where = f"locations.{lid}"
            _need(loc.get("kind") in ("core", "deed", "advanced"), where, "kind must be core, deed or advanced")
            _need(loc.get("effect") in EFFECTS, where, f"effect must be one of {EFFECTS}")
            _need(isinstance(loc.get("name"), str) and loc["name"], where, "needs a name")
            sp = loc.get("spaces", {})
            for n in ("1", "2", "3", "4"):
                row = sp.get(n)
                _need(isinstance(row, list) and row and all(c is None or (_nat(c) and c > 0) for c in row),
                      where, f"spaces for {n} players must be a list of Mint costs (null: the Plan's cost)")
            if loc["effect"] in ("gain", "lead", "crowdfund"):
                _need(_nat(loc.get("gain")), where, "gain must be a whole number")
            self.locations[lid] = dict(loc)
        for key in ("line_solitaire", "line_competitive"):
            line = doc.get(key, ())
            _need(sorted(line) == sorted(l for l, v in self.locations.items() if v["kind"] != "advanced"),
                  key, "must list the four Core and two Deed locations once each")
        self.advanced = tuple(doc.get("advanced", ()))
        _need(sorted(self.advanced) == sorted(l for l, v in self.locations.items() if v["kind"] == "advanced"),
              "locations.advanced", "must list the Advanced locations")
        self.line = {"solitaire": tuple(doc["line_solitaire"]), "competitive": tuple(doc["line_competitive"])}
        self.advanced_in_play = dict(doc.get("advanced_in_play", {}))
        for deed in ("wholesaler", "lotto"):
            _need(any(p.get("deed") == deed for p in self.plans.values()), f"locations.{deed}",
                  "a Deed location needs its Deed plan")

    def _rules(self):
        r = self.rules
        for k in ("starting_mints", "income", "end_stars"):
            _need(_nat(r.get(k)), f"rules.{k}", "a whole number >= 0 is needed")
        self.ais = {}
        for aid, ai in r.get("ais", {}).items():
            where = f"rules.ais.{aid}"
            _need(ai.get("cost_preference") in ("cheapest", "dearest"), where, "cost_preference: cheapest or dearest")
            _need(all(t in self.types for t in ai.get("priority", ())), where, "priority lists plan types")
            _need(ai.get("special") in SPECIALS, where, f"special must be one of {SPECIALS}")
            _need(ai.get("starting_mints") is None or _nat(ai["starting_mints"]), where,
                  "starting_mints: a whole number, or null for unlimited")
            self.ais[aid] = dict(ai)
        _need(set(self.ais) == {"justin", "rachael", "sonic", "mort"}, "rules.ais", "the four AIs are needed")

    # lookups -----------------------------------------------------------------------------
    def plan_name(self, pid) -> str:
        return self.plans[pid]["name"] if pid in self.plans else str(pid)

    def loc_name(self, lid) -> str:
        return self.locations[lid]["name"] if lid in self.locations else str(lid)
