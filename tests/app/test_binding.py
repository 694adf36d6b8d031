"""The sensing binding (companion/table/sensing.py), headless: CivMint's counters land on today's lanes
exactly, other games' counters are placed by the stated rules, a counter that fits no lane stays
on the tablet, rolls build their actions, and the overlay is a 1:1 drawing of the binding."""
import json
import os
import random
import xml.etree.ElementTree as ET

import pytest

from companion.engine.session import Session
from companion.games.civmint import lane_ids, lane_position
from companion.games.civmint.sensing import SENSING
from companion.table.sensing import Binding, Counter, Lane, Roll, lanes_of, overlay_svg
from companion.table.sync import DiceFeeder
from firmware import sensormap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FULL = os.path.join(ROOT, "hardware", "sensor_map.json")
REDUCED = os.path.join(ROOT, "hardware", "sensor_map_no_resources.json")
SETUP = {"players": {"p1": {"colour": "blue"}, "p2": {"colour": "green"}}}


def test_civmint_binding_is_the_sensor_maps_own_naming():
    b = Binding.bind(SENSING.counters(SETUP), lanes_of(sensormap.load(FULL)))
    assert b.unbound == [] and b.unbound_text() == ""
    assert b.lane_of == {lane: lane for lane in lane_ids()}
    assert b.counter_of("military_might.p2").name == "Military Might"
    assert b.counter_of("combat_power.p1").name == "Combat Power"


def test_civmint_positions_match_the_lanes_module_through_a_game(tmp_path):
    b = Binding.bind(SENSING.counters(SETUP), lanes_of(sensormap.load(FULL)))
    sess = Session.new("civmint", None, tmp_path / "g.journal", seed=11)
    rng = random.Random(5)
    seen = set()
    for _ in range(250):
        if sess.game.is_over(sess.state):
            break
        for lane in lane_ids():
            pos = b.position(lane, SENSING.value(sess.state, lane))
            assert pos == lane_position(sess.state, lane)
            assert b.value_at(lane, pos) == SENSING.value(sess.state, lane)
            seen.add((lane, pos))
        if sess.actor() == "system":
            sess.roll()
        else:
            acts = sess.legal_actions()
            sess.dispatch(rng.choice(acts), "ui")
    sess.close()
    assert len(seen) > len(lane_ids())  # counters really moved


def test_without_the_resource_boards_the_resources_stay_on_the_tablet():
    b = Binding.bind(SENSING.counters(SETUP), lanes_of(sensormap.load(REDUCED)))
    assert sorted(c.id for c in b.unbound) == sorted(l for l in lane_ids() if l.split(".")[0] in (
        "food", "wood", "stone", "metal", "money", "combat_power"))
    text = b.unbound_text({"p1": "Ana", "p2": "Ben"}.get)
    assert text.startswith("Not on the board (keep these on the tablet): Food (Ana), Wood (Ana)")
    assert "Combat Power (Ben)" in text


LANES = [Lane("a.p1", "p1", "aspect", "a", 6), Lane("b.p1", "p1", "resource", "b", 11),
         Lane("c.p1", "p1", "development", "c", 8), Lane("a.p2", "p2", "aspect", "a", 6),
         Lane("b.p2", "p2", "resource", "b", 11)]


def test_other_games_are_placed_by_seat_then_kind_then_tightest_fit():
    counters = [Counter("ideas.p1", "Idea Points", "p1", 0, 15),          # 16 values: no lane
                Counter("cities.p1", "Cities", "p1", 0, 5),                 # tightest p1 lane: a.p1
                Counter("rp.p1", "Resource Points", "p1", 0, 6),            # 7: c.p1 (8) before b.p1 (11)
                Counter("wonders", "Wonders left", None, 0, 7),             # shared, 8 values: the only free lane long enough
                Counter("vp.p3", "Victory Points", "p3", 0, 5, kind="resource"),  # no p3 lane: kind first
                Counter("gold.p2", "Gold", "p2", 0, 3, lane="b.p2")]        # its preferred lane
    b = Binding.bind(counters, LANES)
    assert b.lane_of["cities.p1"] == "a.p1"
    assert b.lane_of["rp.p1"] == "c.p1"
    assert b.lane_of["gold.p2"] == "b.p2"
    assert b.lane_of["wonders"] == "b.p1"
    assert b.lane_of["vp.p3"] == "a.p2"  # the only free lane left fits: a kind mismatch is allowed
    assert [c.id for c in b.unbound] == ["ideas.p1"]
    assert b.unbound_text() == "Not on the board (keep these on the tablet): Idea Points (p1)."
    assert b.lanes == ["a.p1", "b.p1", "c.p1", "a.p2", "b.p2"]
    assert b.value_at("b.p2", 3) == 3 and b.value_at("b.p2", 4) is None
    shifted = Binding.bind([Counter("lvl.p1", "Level", "p1", 1, 6)], LANES)
    assert shifted.position("lvl.p1", 4) == 3 and shifted.value_at("a.p1", 0) == 1


def test_a_preferred_lane_that_is_too_short_is_not_forced():
    b = Binding.bind([Counter("x.p1", "X", "p1", 0, 9, lane="a.p1")], LANES)
    assert b.lane_of == {"x.p1": "b.p1"}


@pytest.mark.parametrize("roll,values,want", [
    (Roll("roll_combat", "Combat roll", 2, ("attacker", "defender")), [2, 4],
     {"type": "roll_combat", "attacker": 2, "defender": 4}),
    (Roll("roll_event", "Event roll", 2, ("dice",)), [3, 5], {"type": "roll_event", "dice": [3, 5]}),
    (Roll("roll", "Disaster roll", 1, ("die",)), [6], {"type": "roll", "die": 6}),
])
def test_rolls_build_their_actions(roll, values, want):
    assert roll.action_from(values) == want


@pytest.mark.parametrize("values,why", [([1], "needs 2 dice, got 1"), ([1, 7], "1 to 6, not 7"),
                                        ([1, True], "1 to 6, not True"), ([0, 2], "1 to 6, not 0")])
def test_bad_die_values_are_refused(values, why):
    with pytest.raises(ValueError, match=why):
        Roll("roll_event", "Event roll", 2, ("dice",)).action_from(values)


def test_the_wells_fill_a_one_die_roll_of_another_game_and_refuse_three_dice():
    f = DiceFeeder((Roll("roll", "Disaster roll", 1, ("die",)), Roll("big", "Big roll", 3, ("dice",))))
    assert f.propose("roll") == (None, "Waiting for a die in well 1 (or enter the values by touch).")
    f.seen(1, "rolling", 0, 1)
    f.seen(1, "settled", 4, 1)
    assert f.propose("roll") == ({"type": "roll", "die": 4}, "")
    f.used({"type": "roll", "die": 4})
    assert f.propose("roll")[0] is None
    assert f.propose("big") == (None, "This roll needs 3 dice; enter them by touch.")
    assert f.propose("unknown") == (None, "")


def test_overlay_draws_the_binding_at_one_to_one():
    with open(FULL) as fh:
        raw = json.load(fh)
    b = Binding.bind(SENSING.counters(SETUP), lanes_of(sensormap.load(FULL)))
    svg = overlay_svg("CivMint", b, raw)
    root = ET.fromstring(svg)
    assert root.get("width").endswith("mm") and root.get("height").endswith("mm")
    width = float(root.get("width")[:-2])
    assert width >= max(s["size_mm"][0] for s in raw["strips"])
    assert root.get("viewBox") == f"0 0 {root.get('width')[:-2]} {root.get('height')[:-2]}"
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for lane in lane_ids():
        c = b.counter_of(lane)
        assert f"{c.name} (seat {c.seat[1:]})" in texts
    rects = list(root.iter("{http://www.w3.org/2000/svg}rect"))
    assert sorted((float(r.get("width")), float(r.get("height"))) for r in rects) == sorted(
        tuple(s["size_mm"]) for s in raw["strips"])
    reduced = overlay_svg("CivMint", Binding.bind(SENSING.counters(SETUP), lanes_of(sensormap.load(REDUCED))), raw)
    assert reduced.count(">unused<") == 12
    assert overlay_svg("CivMint", b, raw) == svg  # deterministic
    with open(os.path.join(ROOT, "hardware", "overlays", "civmint.svg")) as fh:
        assert fh.read() == svg


def test_civ_quest_points_sit_on_the_16_space_resource_lanes():
    """CQ-R10: Idea and Resource Points (0-15) need 16 spaces: the strip board's 12 resource lanes
    carry them, a seat's own lanes first (IP 15 on the last space), then the free ones, so six
    players' points are on the board and a seventh's stay on the tablet; without the resource
    strips all stay there, and the dashboard names them."""
    from companion.games.civ_quest import MODULE as CQ

    full = lanes_of(sensormap.load(FULL))
    b = Binding.bind(CQ.sensing.counters(CQ.sample_setup(7)), full)
    assert {c: b.lane_of[c] for c in ("ip.p1", "rp.p1", "ip.p2", "rp.p2")} == {
        "ip.p1": "food.p1", "rp.p1": "wood.p1", "ip.p2": "food.p2", "rp.p2": "wood.p2"}
    assert len(b.lane_of) == 12 and all(lane.split(".")[0] in ("food", "wood", "stone", "metal", "money",
                                                                  "combat_power") for lane in b.lane_of.values())
    assert b.position("ip.p1", 15) == 15 and b.value_at("food.p1", 15) == 15
    assert sorted(c.id for c in b.unbound) == ["ip.p7", "rp.p7"]
    reduced = Binding.bind(CQ.sensing.counters(CQ.sample_setup(2)), lanes_of(sensormap.load(REDUCED)))
    assert not reduced.lane_of and "Idea Points" in reduced.unbound_text()


def test_mint_works_mints_sit_on_money_lanes_then_free_resource_lanes():
    """MW-R12: seats 1 and 2 on their Money lanes (0-15, '15+' at the top); seats 3 and 4 on free
    resource lanes of the strip board."""
    from companion.games.mint_works import MODULE as MW

    b = Binding.bind(MW.sensing.counters(MW.sample_setup(4)), lanes_of(sensormap.load(FULL)))
    assert b.lane_of["mints.p1"] == "money.p1" and b.lane_of["mints.p2"] == "money.p2"
    assert {b.lane_of["mints.p3"], b.lane_of["mints.p4"]} <= {"food.p1", "wood.p1", "stone.p1", "metal.p1"}
    assert not b.unbound and b.value_at("money.p1", 15) == 15
    assert MW.sensing.value_text("mints.p1", 15) == "15+"
