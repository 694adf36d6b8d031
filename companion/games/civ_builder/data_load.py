"""Civ Builder rules data (data/*.json), loaded once and validated: data files are untrusted
input, so a bad value stops the game at import with a message naming the file and the key."""
from __future__ import annotations

import json
import os

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
ATTRIBUTES = ("conquest", "trade", "culture", "science", "agriculture", "religion", "seafaring",
              "government", "equestrian", "engineering")


class DataError(ValueError):
    """A data file that does not hold what the rules need."""


def load(name: str) -> dict:
    path = os.path.join(DATA_DIR, name + ".json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"civ_builder data {name}.json cannot be read: {exc}") from exc


def _need(cond, where, why):
    if not cond:
        raise DataError(f"civ_builder data {where}: {why}")


def _count(v, where, low=0):
    _need(isinstance(v, int) and not isinstance(v, bool) and v >= low, where, f"must be a whole number >= {low}, got {v!r}")
    return v


class RulesData:
    def __init__(self, rules=None, civs=None, flow=None, help_=None):
        self.rules = load("rules") if rules is None else rules
        civs = load("civs") if civs is None else civs
        self.flow = load("flow") if flow is None else flow
        self.help = (load("help") if help_ is None else help_).get("steps", {})
        r = self.rules
        _need(tuple(r.get("attributes", ())) == ATTRIBUTES, "rules.json attributes",
              f"must be the ten attributes of the text in order {ATTRIBUTES}")
        self.attributes = ATTRIBUTES
        p = r.get("players", {})
        self.min_players = _count(p.get("min"), "rules.json players.min", 1)
        self.max_players = _count(p.get("max"), "rules.json players.max", self.min_players)
        _need(self.max_players <= 8, "rules.json players.max", "the app has at most 8 seats")
        self.rounds = _count(r.get("rounds"), "rules.json rounds", 1)
        deck = r.get("deck", {})
        _need(set(deck) == set(ATTRIBUTES) | {"leader", "disaster"}, "rules.json deck",
              "must list the ten attribute cards, leader and disaster")
        self.deck = {k: _count(v, f"rules.json deck.{k}", 1) for k, v in deck.items()}
        self.deck_total = sum(self.deck.values())
        self.starting_hand = _count(r.get("starting_hand"), "rules.json starting_hand")
        self.draw_cards = _count(r["draw"]["cards"], "rules.json draw.cards")
        self.agri_extra = _count(r["draw"]["agriculture_extra"], "rules.json draw.agriculture_extra")
        self.trade_minutes = _count(r.get("trade_minutes"), "rules.json trade_minutes", 1)
        self.initiative = tuple(r.get("initiative", ()))
        _need(self.initiative and all(a in ATTRIBUTES for a in self.initiative), "rules.json initiative",
              "must list attributes")
        m = r["meld"]
        self.max_leaders = _count(m["max_leaders"], "rules.json meld.max_leaders")
        self.min_natural = _count(m["min_natural"], "rules.json meld.min_natural")
        self.sea_wild_card = m["sea_wild_card"]
        _need(self.sea_wild_card in ATTRIBUTES, "rules.json meld.sea_wild_card", "must be an attribute")
        self.sea_wild_melds = tuple(m["sea_wild_melds"])
        _need(all(a in ATTRIBUTES for a in self.sea_wild_melds), "rules.json meld.sea_wild_melds", "must be attributes")
        sp = r["special"]
        _need(set(sp) == set(ATTRIBUTES), "rules.json special", "needs one entry per attribute")
        for a, d in sp.items():
            for k, v in d.items():
                _count(v, f"rules.json special.{a}.{k}")
        self.special = sp
        s = r["score"]
        self.bands = []
        for i, b in enumerate(s["bands"]):
            self.bands.append((_count(b["from"], f"rules.json score.bands[{i}].from", 1),
                               _count(b["to"], f"rules.json score.bands[{i}].to", 1),
                               _count(b["vp"], f"rules.json score.bands[{i}].vp")))
        covered = sorted(r_ for lo, hi, _ in self.bands for r_ in range(lo, hi + 1))
        _need(covered == list(range(1, self.rounds + 1)), "rules.json score.bands",
              f"must cover rounds 1..{self.rounds} once each")
        self.science_points = _count(s["science_leader_points"], "rules.json score.science_leader_points")
        self.culture_vp = _count(s["culture_leader_vp"], "rules.json score.culture_leader_vp")
        e = r["end"]
        self.hand_limit = _count(e["hand_limit"], "rules.json end.hand_limit")
        self.conquest_hand_limit = _count(e["conquest_hand_limit"], "rules.json end.conquest_hand_limit")
        self.equestrian_vp = _count(e["equestrian_vp"], "rules.json end.equestrian_vp")
        cl = civs.get("civilisations", [])
        _need(isinstance(cl, list) and len(cl) >= 1, "civs.json civilisations", "must be a non-empty list")
        self.civs = {}
        for i, c in enumerate(cl):
            _need(isinstance(c.get("id"), str) and c["id"].isidentifier(), f"civs.json civilisations[{i}].id",
                  "must be an identifier")
            _need(c.get("extra") in ATTRIBUTES, f"civs.json civilisations[{i}].extra", "must be an attribute")
            _need(isinstance(c.get("name"), str) and c["name"], f"civs.json civilisations[{i}].name", "must be a name")
            _need(c["id"] not in self.civs, f"civs.json civilisations[{i}].id", "is listed twice")
            self.civs[c["id"]] = {"name": c["name"], "extra": c["extra"]}
        _need(len(self.civs) >= self.max_players, "civs.json civilisations",
              "each player needs a civilisation of their own")

    def band_vp(self, rnd: int) -> int:
        return next(vp for lo, hi, vp in self.bands if lo <= rnd <= hi)


DATA = RulesData()
