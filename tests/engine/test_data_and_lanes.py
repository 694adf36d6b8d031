"""Rules data shapes (fixed by the hardware) and the lane mapping for table-vs-app reconciliation."""
import pytest

from companion.engine.errors import Rejected
from companion.games.civmint import GAME, lane_ids, lane_position, lane_value, position_of, reconcile
from companion.games.civmint.lanes import lane_length
from engine_helpers import new_game


def test_fixed_track_shapes():
    d = GAME.data
    assert list(d.dev) == ["government", "economy", "technology", "culture"]
    assert all(len(v) == 8 for v in d.dev.values())
    assert list(d.asp) == ["population_size", "military_might", "economic_strength", "civilian_happiness"]
    assert all([s["level"] for s in v] == [1, 2, 3, 4, 5, 6] for v in d.asp.values())
    assert list(d.res_ids) == ["food", "wood", "stone", "metal", "money", "combat_power"]
    assert d.cap == 10
    for kind, k in d.units.items():
        assert k["strength"] >= 1
    assert d.units["capital"]["strength"] == 4 and not d.units["capital"]["die"]
    assert len(d.events["events"]) == 12


def test_every_unit_cost_and_upkeep_names_real_resources():
    for kind, k in GAME.data.units.items():
        for part in ("upkeep",):
            assert set(k[part]) <= set(GAME.data.res_ids) - {"combat_power"}
        if k["build"]:
            assert set(k["build"]["cost"]) <= set(GAME.data.res_ids) - {"combat_power"}


def test_lane_ids_and_lengths():
    ids = lane_ids()
    assert len(ids) == 2 * (4 + 4 + 6)
    assert lane_length("technology.p1") == 8
    assert lane_length("military_might.p2") == 6
    assert lane_length("money.p1") == 11


def test_lane_value_and_back_for_every_position():
    for lane in lane_ids():
        for pos in range(lane_length(lane)):
            v = lane_value(lane, pos)
            assert position_of(lane, v["value"]) == pos
    assert lane_value("military_might.p2", 0)["value"] == 1
    assert lane_value("military_might.p2", 5)["value"] == 6
    v = lane_value("technology.p1", 4)
    assert (v["name"], v["level"]) == ("Iron Working", 4)
    assert lane_value("food.p1", 10)["value"] == 10


@pytest.mark.parametrize("lane, pos", [("military_might.p3", 0), ("warp.p1", 0), ("food", 1),
                                       ("military_might.p2", 6), ("technology.p1", -1), ("money.p1", 11)])
def test_bad_lanes_rejected(lane, pos):
    with pytest.raises(Rejected) as ei:
        lane_value(lane, pos)
    assert ei.value.rule.startswith("lane.")


def test_reconcile_reports_mismatches():
    s = new_game()
    sensed = {lane: lane_position(s, lane) for lane in lane_ids()}
    assert reconcile(s, sensed) == []
    sensed["military_might.p2"] = 2
    sensed["food.p1"] = 7
    out = reconcile(s, sensed)
    assert [m["lane"] for m in out] == ["food.p1", "military_might.p2"]
    assert out[1] == {"lane": "military_might.p2", "table": 2, "engine": 0, "table_value": 3, "engine_value": 1}


def test_view_is_plain_data():
    import json

    s = new_game()
    v = GAME.view(s)
    json.dumps(v)
    assert v["players"]["p1"]["development"]["technology"]["next_cost"] == 2
    assert v["step"] == "production" and v["actor"] == "p1"
    assert v["score"]["p1"]["total"] == sum(v["score"]["p1"]["items"].values())


def test_scoring_items_and_tie_breakers():
    from engine_helpers import bare, put, res

    s = bare("research")
    res(s, "p1", food=4, wood=4, stone=0, metal=0, money=1, combat_power=9)
    res(s, "p2", food=0, wood=0, stone=0, metal=0, money=0, combat_power=0)
    put(s, "p1", "village", "r0c0")
    put(s, "p1", "city", "r0c1")
    put(s, "p1", "infantry", "r3c4")  # adjacent to p2's capital r4c4
    s.players["p1"].dev["technology"] = 4  # level 4
    sc = GAME.score(s)["p1"]["items"]
    assert sc["development"] == 2 * (1 + 1 + 4 + 1)
    assert sc["aspects"] == 4
    assert sc["spaces"] == 4  # capital, village, city, infantry spaces
    assert sc["adjacent_enemy_capital"] == 2
    assert sc["enemy_capital"] == 0
    assert sc["settlements"] == 1 + 2
    assert sc["resources"] == 2  # 9 // 4, Combat Power not counted
    s.units[2] = s.units[2]._replace(owner="p1")
    assert GAME.score(s)["p1"]["items"]["enemy_capital"] == 5
    # tie-breakers
    t = bare("research")
    r = GAME.result(t)
    assert r["winner"] is None and r["decided_by"] == "tie"
    t.players["p2"].dev["culture"] = 1   # +2 development points
    t.players["p1"].asp["population_size"] = 3  # +2 aspect points: equal totals
    r = GAME.result(t)
    assert r["score"]["p1"]["total"] == r["score"]["p2"]["total"]
    assert r["winner"] == "p2" and r["decided_by"] == "development"
    t.players["p2"].dev["culture"] = 0
    t.players["p1"].asp["population_size"] = 1
    t.players["p1"].asp["economic_strength"] = 2
    t.players["p2"].asp["economic_strength"] = 1
    t.players["p1"].res["food"] = 0
    t.players["p1"].res["wood"] = 0
    r = GAME.result(t)
    assert r["score"]["p1"]["total"] == r["score"]["p2"]["total"]
    assert r["winner"] == "p1" and r["decided_by"] == "aspects"


def test_every_rule_id_the_engine_raises_is_in_the_trace_table():
    import os
    import re

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ""
    for d in ("companion/engine", "companion/games/civmint"):
        for f in os.listdir(os.path.join(root, d)):
            if f.endswith(".py"):
                code += open(os.path.join(root, d, f), encoding="utf-8").read()
    ids = set(re.findall(r'Rejected\(f?"([a-z_.0-9{}]+)"', code)) | {"engine.malformed"}
    assert len(ids) > 40
    trace = open(os.path.join(root, "docs", "civmint-trace.md"), encoding="utf-8").read()
    missing = sorted(i for i in ids if ("`%s`" % i.replace("{n}", "1")) not in trace)
    assert missing == []


def test_game_definition_is_consistent():
    assert GAME.validate_definition() == []


def test_bad_track_data_is_refused(monkeypatch):
    import copy

    from companion.games.civmint.data_load import DATA

    bad = copy.deepcopy(DATA.dev)
    bad["technology"] = bad["technology"][:7]
    monkeypatch.setattr(DATA, "dev", bad)
    with pytest.raises(ValueError, match="8 printed spaces"):
        DATA.validate()
    bad2 = copy.deepcopy(DATA.tracks["development"])
    bad2["culture"][3]["level"] = 6
    monkeypatch.setattr(DATA, "dev", bad2)
    with pytest.raises(ValueError, match="rise by 0"):
        DATA.validate()
    bad3 = copy.deepcopy(DATA.tracks["development"])
    bad3["economy"][2]["gain"] = {"money": 1}
    monkeypatch.setattr(DATA, "dev", bad3)
    with pytest.raises(ValueError, match="non-Money"):
        DATA.validate()


def test_every_test_the_trace_table_names_exists_in_the_file_it_names():
    import os
    import re

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = {"steps": "test_civmint_steps.py", "examples": "test_civmint_examples.py",
             "core": "test_core.py", "props": "test_properties.py",
             "data": "test_data_and_lanes.py", "traced": "test_civmint_rules_traced.py"}
    src = {k: open(os.path.join(root, "tests", "engine", f), encoding="utf-8").read()
           for k, f in files.items()}
    trace = open(os.path.join(root, "docs", "civmint-trace.md"), encoding="utf-8").read()
    named = 0
    for row in trace.splitlines():
        if not row.startswith("|"):
            continue
        cell = row.rstrip("|").split("|")[-1]
        for part in cell.split(";"):
            words = part.split()
            if not words or words[0] not in files:
                continue
            for name in re.findall(r"`(test_[a-z0-9_]+)`", part):
                named += 1
                assert "def %s(" % name in src[words[0]], (words[0], name)
    assert named > 100
