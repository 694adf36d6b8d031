"""economy_model without Kivy: what the economy panels show must be what the engine does."""
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import economy_games as E  # noqa: E402

from companion.games.civmint.data_load import DATA_DIR  # noqa: E402
from companion.games.civmint.ui import economy_model as M  # noqa: E402


def _res(ctrl, seat):
    return dict(ctrl.state.players[seat].res)


def _dispatch_diff(ctrl, action):
    seat = action["player"]
    before = _res(ctrl, seat)
    ctrl.dispatch(action, "ui")
    return M.res_diff(before, _res(ctrl, seat))


def test_step_help_covers_every_flow_step():
    with open(os.path.join(DATA_DIR, "flow.json")) as f:
        steps = json.load(f)["steps"]
    for step in steps:
        assert len(M.step_help(step)) > 20, step
    assert M.step_help("no_such_step") == "" and M.step_help(None) == ""


def test_production_picks_yields_and_total(tmp_path):
    c = E.new_game(tmp_path, 3, E.at_step("production"))
    seat = M.seat_to_act(c)
    p = M.production(c)
    legal = [a for a in c.legal_actions() if a["type"] == "produce"]
    assert p["action"] == legal[0]  # the default picks are the engine's first combination
    choosers = [r for r in p["units"] if r["options"]]
    assert choosers
    for r in p["units"]:
        assert set(r["options"]) <= set(r["space_res"])
        for opt in r["options"]:
            assert c.check(M._produce(seat, {**p["picks"], r["unit"].id: opt})) is None
    # far from the cap, the units' shares add up to the exact total
    summed = {}
    for r in p["units"]:
        for k, n in r["yield"].items():
            summed[k] = summed.get(k, 0) + n
    assert summed == p["total"]
    # another pick moves one resource from the default to the chosen one
    u = choosers[0]
    alt = [o for o in u["options"] if o != u["pick"]][0]
    q = M.production(c, {u["unit"].id: alt})
    assert q["picks"][u["unit"].id] == alt
    assert q["total"].get(alt, 0) == p["total"].get(alt, 0) + 1
    assert q["total"].get(u["pick"], 0) == p["total"].get(u["pick"], 0) - 1
    # picks the engine refuses are not kept
    bad = M.production(c, {u["unit"].id: "combat_power", 999: "food"})
    assert bad["picks"] == p["picks"]
    assert _dispatch_diff(c, q["action"]) == q["total"]


def test_unit_yield_prefers_an_engine_query(tmp_path, monkeypatch):
    c = E.new_game(tmp_path, 3, E.at_step("production"))
    seen = []

    def query(state, seat, picks):
        seen.append(picks)
        return {7: {"food": 5}}
    monkeypatch.setattr(c.game, "production_yields", query, raising=False)
    assert M.unit_yield(c, "p2", 7, "wood") == {"food": 5} and seen == [{7: "wood"}]


def test_trade_pairs_rate_and_exchange(tmp_path):
    c = E.new_game(tmp_path, 3, E.at_step("trade"))
    t = M.trade(c)
    seat = t["seat"]
    legal = {(a["give"], a["get"]) for a in c.legal_actions() if a["type"] == "trade"}
    assert set(t["pairs"]) == legal and legal
    assert {g for g, _ in legal} <= set(t["gives"]) and {h for _, h in legal} <= set(t["gets"])
    assert "combat_power" not in t["gives"] + t["gets"] and "money" not in t["gives"]
    assert not t["opponent"]["enabled"] and "economic development" in t["opponent"]["reason"]
    give, get = sorted(legal)[0]
    assert _dispatch_diff(c, M.trade_action(seat, give, get)) == {give: -t["rate"], get: 1}


def test_offer_form_and_answer(tmp_path):
    c = E.new_game(tmp_path, 2, E.can_offer_trade, E.trader)
    t = M.trade(c)
    seat = t["seat"]
    form = t["opponent"]
    assert form["enabled"] and "money" in form["resources"] and "combat_power" not in form["resources"]
    give = [r for r in form["resources"] if c.state.players[seat].res[r] > 0][0]
    get = [r for r in form["resources"] if c.state.players["p1" if seat == "p2" else "p2"].res[r] > 0 and r != give][0]
    offer = M.offer_action(seat, {give: 1, "wood": 0}, {get: 1})
    assert offer["give"] == {give: 1} and c.check(offer) is None
    c.dispatch(offer, "ui")
    t2 = M.trade(c)
    assert t2["offer_open"] and {a["type"] for a in t2["answers"]} == {"accept_trade", "decline_trade"}
    before = {s: _res(c, s) for s in ("p1", "p2")}
    c.dispatch([a for a in t2["answers"] if a["type"] == "accept_trade"][0], "ui")
    assert {s: M.res_diff(before[s], _res(c, s)) for s in ("p1", "p2")} == t2["offer_outcome"]


def test_unpayable_upkeep_cut_until_payable(tmp_path):
    c = E.new_game(tmp_path, 5, E.unpayable_upkeep, E.hungry)
    u = M.upkeep(c)
    assert u["status"] == "unpayable" and u["reason"]
    legal = [a for a in c.legal_actions() if a["type"] in ("downgrade", "disband")]
    assert [x["action"] for x in u["cuts"]] == legal
    for _ in range(10):
        u = M.upkeep(c)
        if u["status"] == "payable":
            break
        cut = ([x for x in u["cuts"] if x["payable_after"]] or u["cuts"])[0]
        assert _dispatch_diff(c, cut["action"]) == cut["change"]
        assert c.game.upkeep(c.state, u["seat"]) == cut["need_after"]
        assert (M.upkeep(c)["status"] == "payable") == cut["payable_after"]
    assert u["status"] == "payable"
    assert _dispatch_diff(c, u["pay"]) == u["pay_outcome"]
    assert M.upkeep(c)["status"] == "paid"


@pytest.mark.parametrize("seed", [3, 5])
def test_build_options_legal_with_exact_cost(tmp_path, seed):
    c = E.new_game(tmp_path, seed, E.at_step("build"), E.hungry)
    b = M.build(c)
    legal = [a for a in c.legal_actions() if a["type"] in ("build", "upgrade")]
    opts = [o for group in b["groups"].values() for o in group]
    assert sorted(map(repr, (o["action"] for o in opts))) == sorted(map(repr, legal))
    for kind, group in b["groups"].items():
        for o in group:
            assert kind == o["action"].get("kind", o["action"].get("to"))
            assert o["change"] == M.outcome(c, o["action"])[b["seat"]]
    o = opts[0]
    assert _dispatch_diff(c, o["action"]) == o["change"]


def test_research_and_taxation_match_the_engine(tmp_path):
    c = E.new_game(tmp_path, 3, E.at_step("research"))
    r = M.research(c)
    seat = r["seat"]
    view = c.game.view(c.state)["players"][seat]["development"]
    for t in r["tracks"]:
        assert t["cost"] == view[t["track"]]["next_cost"]
        assert t["legal"] == (c.check(t["action"]) is None)
    ok = [t for t in r["tracks"] if t["legal"]][0]
    c.dispatch(ok["action"], "ui")
    assert c.state.players[seat].dev[ok["track"]] == ok["now"]["position"] + 1
    assert M.research(c)["left"] == r["left"] - ok["cost"]
    c.dispatch({"type": "end_step", "player": seat}, "ui")
    x = M.taxation(c)
    assert x["taxes"] == c.game.bonuses(c.state, seat)["taxes"]
    ok = [a for a in x["aspects"] if a["legal"]][0]
    assert ok["level_after"] == ok["level"] + 1
    assert _dispatch_diff(c, ok["action"]) == ok["change"]
    after = M.taxation(c)["aspects"]
    assert not any(a["legal"] for a in after) and len({a["reason"] for a in after}) == 1


def test_no_panel_data_outside_its_step(tmp_path):
    c = E.new_game(tmp_path, 3, E.at_step("production"))
    assert M.trade(c) is None and M.upkeep(c) is None and M.build(c) is None
    assert M.research(c) is None and M.taxation(c) is None
