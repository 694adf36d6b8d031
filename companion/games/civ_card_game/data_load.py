"""The card set and rules values of Civilization: The Card Game, checked on load: a table edits
them to match its printed cards, so a bad file gets a clear error naming the file and the entry."""
from __future__ import annotations

import json
import os

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
RES = ("food", "hammer", "coin")
KINDS = ("technology", "building", "wonder", "population")


class DataError(ValueError):
    """A data file the game cannot use."""


def _read(name, path=None):
    path = path or os.path.join(DATA, name)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise DataError(f"{name}: cannot be read as JSON ({exc})") from None


def _need(cond, where, why):
    if not cond:
        raise DataError(f"{where}: {why}")


def _int(v, low=0):
    return isinstance(v, int) and not isinstance(v, bool) and v >= low


def _res_map(v, where, field, allow_empty=False):
    _need(isinstance(v, dict) and (v or allow_empty), where, f"{field!r} must be an object of resource -> number")
    for k, n in v.items():
        _need(k in RES, where, f"{field!r}: unknown resource {k!r} (one of {', '.join(RES)})")
        _need(_int(n, 1), where, f"{field!r}: {k} must be a whole number of at least 1")


def _common(d, where):
    _need(isinstance(d, dict), where, "must be an object")
    for f in ("culture", "happiness"):
        _need(d.get(f) is None or _int(d[f]), where, f"{f!r} must be a whole number >= 0")
    disc = d.get("discount")
    if disc is not None:
        _need(isinstance(disc, dict) and all(k in KINDS and _int(n, 1) for k, n in disc.items()), where,
              f"'discount' must map {', '.join(KINDS)} to whole numbers >= 1")
    for f in ("income", "plot_yield", "once_per_plot"):
        if d.get(f) is not None:
            _res_map(d[f], where, f)


def load_cards(path=None) -> dict:
    c = _read("cards.json", path)
    w = "cards.json"
    _need(isinstance(c, dict), w, "must be an object")
    for group in ("plots", "technologies", "buildings", "wonders", "units", "resources"):
        _need(isinstance(c.get(group), dict) and c[group], w, f"{group!r} must be a non-empty object")
    names = {}
    for group in ("plots", "technologies", "buildings", "wonders", "units", "resources"):
        for name, d in c[group].items():
            where = f"{w}: {group[:-1] if group != 'technologies' else 'technology'} {name!r}"
            _need(isinstance(name, str) and name.strip(), w, f"{group}: a card needs a name")
            _need(name not in names, where, f"the name is also a card of {names.get(name)!r}; names must be unique")
            names[name] = group
            _common(d, where)
            if group != "technologies":
                _need(_int(d.get("copies"), 1), where, "'copies' must be a whole number >= 1")
            if group in ("technologies", "buildings", "wonders"):
                _need(_int(d.get("cost"), 0), where, "'cost' must be a whole number >= 0")
            if group in ("plots", "resources"):
                _res_map(d.get("yield"), where, "yield")
            if group == "technologies":
                _need(d.get("plot_limit") is None or _int(d["plot_limit"], 1), where, "'plot_limit' must be >= 1")
                for f in ("extra_draw", "steal_card", "steal_resources"):
                    _need(d.get(f) is None or _int(d[f], 1), where, f"{f!r} must be a whole number >= 1")
            if group == "units":
                for f in ("attack", "defend"):
                    _need(isinstance(d.get(f), bool), where, f"{f!r} must be true or false")
                _need(d.get("damage") in (None, "population", "building"), where,
                      "'damage' must be null, 'population' or 'building'")
                da = d.get("defends_against")
                _need(da is None or (isinstance(da, list) and all(x in c["units"] for x in da)), where,
                      "'defends_against' must be null (any unit) or a list of unit names")
                _need(d.get("attack") or d.get("defend"), where, "a unit must attack or defend")
    _need(any(d.get("walls") for d in c["buildings"].values()), w, "the buildings need City Walls ('walls': true)")
    return c


def load_rules(path=None) -> dict:
    r = _read("rules.json", path)
    w = "rules.json"
    _need(isinstance(r, dict), w, "must be an object")
    _need(r.get("resources") == list(RES), w, f"'resources' must be {list(RES)}")
    p = r.get("players")
    _need(isinstance(p, list) and len(p) == 2 and all(_int(x, 2) for x in p) and p[0] <= p[1], w,
          "'players' must be [fewest, most] with at least 2")
    for key in ("deal_plots", "market_plots", "market_technologies", "free_population", "draw", "bank_trade"):
        _need(_int(r.get(key), 1), w, f"{key!r} must be a whole number >= 1")
    for key in ("initial_discard", "discard", "min_card_cost"):
        _need(_int(r.get(key)), w, f"{key!r} must be a whole number >= 0")
    ih = r.get("initial_hands")
    _need(isinstance(ih, list) and len(ih) >= p[1] and all(_int(x) for x in ih), w,
          "'initial_hands' needs a hand size for every seat")
    for key, fields in (("population_cost", ("base", "step")), ("plot_cost", ("base", "step", "from"))):
        _need(isinstance(r.get(key), dict) and all(_int(r[key].get(f)) for f in fields), w,
              f"{key!r} needs {', '.join(fields)} (whole numbers)")
    bl = r.get("building_limit")
    _need(isinstance(bl, dict) and all(_int(bl.get(f), 1) for f in ("base", "extended", "population_for_extended")),
          w, "'building_limit' needs base, extended and population_for_extended")
    cs, hs = r.get("culture_status"), r.get("happiness_status")
    _need(isinstance(cs, dict) and all(_int(cs.get(f)) for f in ("more_than", "extra_draw", "extra_discard")), w,
          "'culture_status' needs more_than, extra_draw, extra_discard")
    _need(isinstance(hs, dict) and _int(hs.get("at_least")) and _int(hs.get("discount"))
          and isinstance(hs.get("applies_to"), list) and all(k in KINDS for k in hs["applies_to"]), w,
          "'happiness_status' needs at_least, discount and applies_to")
    _need(r.get("status_ties") in ("share", "none"), w, "'status_ties' must be 'share' or 'none'")
    rl = r.get("round_limit")
    _need(rl is None or _int(rl, 1), w, "'round_limit' must be a whole number >= 1, or null for no limit")
    pw = r.get("pay_with")
    _need(isinstance(pw, dict) and all(pw.get(k) in RES for k in KINDS), w,
          "'pay_with' must name the resource that pays for population, technology, building and wonder")
    return r
