"""Civ Quest's data files (rules tables and the map), checked on load: they are editable by a
table, so a bad file gets a clear error naming the file and the entry, never a crash later."""
from __future__ import annotations

import json
import os

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
AREA_KINDS = ("land", "sea", "deep")
ROLL_KINDS = ("leader_roll", "city_roll", "idea_roll", "research_roll", "growth_roll", "resource_roll",
              "disaster_roll", "disaster_type_roll", "casualty_roll", "trade_roll", "war_roll", "migration_roll")


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


def _pos_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def load_rules(path=None) -> dict:
    r = _read("rules.json", path)
    w = "rules.json"
    _need(isinstance(r, dict), w, "must be an object")
    for key in ("start_pt", "ip_cap", "rp_cap", "area_pt_cap", "city_break_pt", "wonder_cost", "disaster_on",
                "mitigation", "end_cities", "vp_per_area", "vp_per_wonder"):
        _need(_pos_int(r.get(key)), w, f"{key!r} must be a positive whole number")
    _need(isinstance(r.get("advance_costs"), dict) and _pos_int(r["advance_costs"].get("first"))
          and isinstance(r["advance_costs"].get("step"), int) and r["advance_costs"]["step"] >= 0,
          w, "advance_costs needs 'first' (> 0) and 'step' (>= 0)")
    _need(isinstance(r.get("city_cost"), dict) and _pos_int(r["city_cost"].get("rp")) and _pos_int(r["city_cost"].get("pt")),
          w, "city_cost needs 'rp' and 'pt' (> 0)")
    leaders = r.get("leaders")
    _need(isinstance(leaders, dict) and leaders, w, "'leaders' must be an object")
    _need(sorted(r.get("leader_table", {})) == [str(i) for i in range(1, 8)], w,
          "leader_table needs results 1 to 7 (7 stands for 7 and more)")
    for k, v in r["leader_table"].items():
        _need(v in leaders, w, f"leader_table {k}: unknown leader {v!r}")
    for k, v in leaders.items():
        _need(isinstance(v, dict) and isinstance(v.get("name"), str), w, f"leader {k!r} needs a name")
        _need(v.get("bonus") in (None, "ip", "rp", "pt", "mp", "wars", "vp"), w, f"leader {k!r}: unknown bonus")
    _need(sorted(r.get("city_table", {})) == [str(i) for i in range(1, 7)], w, "city_table needs results 1 to 6")
    for k, v in r["city_table"].items():
        _need(v in ("pt", "ip", "rp", "mp", "vp", "pick"), w, f"city_table {k}: unknown result {v!r}")
    _need(set(r.get("city_pick", ())) <= {"pt", "ip", "rp", "mp"} and r.get("city_pick"), w, "city_pick is wrong")
    adv = r.get("advances")
    _need(isinstance(adv, dict) and adv, w, "'advances' must be an object")
    rt = r.get("research_table")
    _need(isinstance(rt, dict) and sorted(rt) == sorted(f"{a}-{b}" for a in range(1, 7) for b in range(1, 7)),
          w, "research_table needs every result 1-1 to 6-6")
    for k, v in rt.items():
        _need(v in adv, w, f"research_table {k}: unknown advance {v!r}")
    wonders = r.get("wonders")
    _need(isinstance(wonders, dict) and wonders, w, "'wonders' must be an object")
    for group, items in (("advance", adv), ("wonder", wonders)):
        for name, d in items.items():
            where = f"{w}: {group} {name!r}"
            _need(isinstance(d, dict), where, "must be an object")
            _need(d.get("requires") is None or d["requires"] in adv, where, f"requires an unknown advance {d.get('requires')!r}")
            for rk, bonus in (d.get("rolls") or {}).items():
                _need(rk in ROLL_KINDS and isinstance(bonus, int), where, f"bonus to unknown roll {rk!r}")
            for f in ("vp", "war", "cost", "gain_city", "gain_advance", "extra_trade", "city_rolls"):
                _need(d.get(f) is None or (isinstance(d[f], int) and not isinstance(d[f], bool) and d[f] >= 0),
                      where, f"{f!r} must be a whole number")
    # requirement chains end (no loop)
    for name in adv:
        seen, cur = set(), name
        while cur is not None:
            _need(cur not in seen, f"{w}: advance {name!r}", "its requirements loop")
            seen.add(cur)
            cur = adv[cur].get("requires")
    dt = r.get("disaster_table")
    _need(isinstance(dt, dict) and sorted(dt) == [str(i) for i in range(1, 7)], w, "disaster_table needs 1 to 6")
    tt = r.get("trade_table")
    _need(isinstance(tt, dict) and sorted(tt) == [str(i) for i in range(1, 7)], w, "trade_table needs 1 to 6")
    for k, v in tt.items():
        _need(v in ("rp", "ip", "advance", "pt"), w, f"trade_table {k}: unknown result {v!r}")
    return r


def load_map(path=None) -> dict:
    m = _read("map.json", path)
    w = "map.json"
    _need(isinstance(m, dict) and isinstance(m.get("areas"), dict) and m["areas"], w, "needs an 'areas' object")
    for aid, a in m["areas"].items():
        _need(isinstance(aid, str) and aid and isinstance(a, list) and len(a) == 3, w,
              f"area {aid!r} must be [name, kind, fewest players]")
        _need(isinstance(a[0], str) and a[0].strip(), w, f"area {aid!r} needs a name")
        _need(a[1] in AREA_KINDS, w, f"area {aid!r}: kind must be one of {', '.join(AREA_KINDS)}")
        _need(isinstance(a[2], int) and not isinstance(a[2], bool) and 1 <= a[2] <= 8, w,
              f"area {aid!r}: fewest players must be 1 to 8")
    edges = m.get("edges")
    _need(isinstance(edges, dict), w, "needs an 'edges' object")
    for aid, others in edges.items():
        _need(aid in m["areas"] and isinstance(others, str), w, f"edges of unknown area {aid!r}")
        for b in others.split():
            _need(b in m["areas"], w, f"edge {aid} - {b}: unknown area {b!r}")
            _need(b != aid, w, f"area {aid!r} borders itself")
    return m


class Board:
    """The map in play for a number of players: areas, kinds, neighbours (two-way)."""

    def __init__(self, raw: dict, players: int):
        self.players = players
        self.names = {}
        self.kind = {}
        for aid, (name, kind, fewest) in raw["areas"].items():
            if fewest <= players:
                self.names[aid] = name
                self.kind[aid] = kind
        self.order = list(self.names)
        self.index = {a: i for i, a in enumerate(self.order)}
        self._sea_memo = {}  # (area, reach, deep) -> land areas across the sea (rules.py _sea_lands)
        self.adj = {a: set() for a in self.order}
        for a, others in raw["edges"].items():
            for b in others.split():
                if a in self.adj and b in self.adj:
                    self.adj[a].add(b)
                    self.adj[b].add(a)
        self.adj = {a: tuple(sorted(bs, key=self.order.index)) for a, bs in self.adj.items()}
        self.land = tuple(a for a in self.order if self.kind[a] == "land")
        self.coastal = frozenset(a for a in self.land if any(self.kind[b] != "land" for b in self.adj[a]))
        self.land_adj = {a: tuple(b for b in self.adj[a] if self.kind[b] == "land") for a in self.land}
        if len(self.land) < players:
            raise DataError(f"map.json: {len(self.land)} land areas for {players} players")

    def name(self, area) -> str:
        return self.names.get(area, area)
