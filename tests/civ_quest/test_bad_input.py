"""Bad input: a roll the prompt did not ask for, a die outside 1-6, malformed actions, seats that
are not playing, illegal placements and purchases: each refused with the rule, nothing applied."""
import pytest
from cq_helpers import GAME, act, rejected, started, to_step, with_units

from companion.engine.errors import MalformedAction, Rejected, SetupError


def test_rolls_not_asked_for_and_dice_out_of_range():
    s = started()
    rejected(s, "flow.step", "growth_roll", die=3)
    rejected(s, "CQ-DICE", "leader_roll", die=0)
    rejected(s, "CQ-DICE", "leader_roll", die=7)
    s = to_step(s, "advance")
    s = act(s, "idea_roll", die=6)
    s = act(s, "buy_advance", player="p1")
    rejected(s, "CQ-DICE", "research_roll", first=7, second=1)
    rejected(s, "CQ-DICE", "research_roll", first=1, second=0)
    with pytest.raises(MalformedAction):
        act(s, "research_roll", first=1)
    with pytest.raises(MalformedAction):
        act(s, "research_roll", first="1", second=2)


def test_seats_not_playing_and_out_of_turn():
    s = started(3)
    s = to_step(s, "advance")
    s = act(s, "idea_roll", die=6)
    with pytest.raises(MalformedAction):
        act(s, "buy_advance", player="p8")
    with pytest.raises(Rejected) as e:
        act(s, "buy_advance", player="p2")
    assert e.value.rule == "flow.actor"
    rejected(s, "CQ-FIX", "correct", player="p5", what="ip", value=3)   # a seat not in this 3-player game
    rejected(s, "CQ-FIX", "correct", player="p1", what="ip", value=16)
    rejected(s, "CQ-FIX", "correct", player="p1", what="gold", value=1)


def test_illegal_placements_purchases_and_moves():
    s = with_units(started(), macedonia=("p1", 7, False))
    s = to_step(s, "growth")
    s = act(s, "growth_roll", die=2)
    if s.ctx.get("place"):
        rejected(s, "CQ-G2", "place", player="p1", area="nowhere", count=1)
        rejected(s, "CQ-G2", "place", player="p1", area="macedonia", count=0)
    s = to_step(with_units(started(), macedonia=("p1", 7, False), thrace=("p1", 6, False)), "build")
    s = act(s, "correct", player="p1", what="rp", value=3)
    s = act(s, "resource_roll", die=2)   # 5 RP: a city, no wonder
    rejected(s, "CQ-B2", "build_city", player="p1", area="syria")
    rejected(s, "CQ-B4", "build_wonder", player="p1", wonder="Eiffel Tower")
    rejected(s, "CQ-B2", "build_city", player="p1", area="thrace", take={"thrace": 3, "macedonia": 1})
    rejected(s, "CQ-B2", "build_city", player="p1", area="thrace", take={"syria": 5})
    mac = s.units["macedonia"][1]
    s = act(s, "build_city", player="p1", area="thrace", take={"thrace": 3, "macedonia": 2})
    assert s.units["thrace"] == ("p1", 3, True) and s.units["macedonia"][1] == mac - 2
    s = to_step(s, "migration")
    s = act(s, "migration_roll", die=2)
    rejected(s, "CQ-M2", "move", player="p1", from_area="macedonia", to_area="syria", count=1)   # another civ's
    rejected(s, "CQ-M1", "move", player="p1", from_area="syria", to_area="damascus", count=1)
    rejected(s, "CQ-M1", "move", player="p1", from_area="macedonia", to_area="thessaly", count=3)  # 2 MP


def test_a_bad_data_file_is_refused_with_a_clear_message(tmp_path):
    import json

    from companion.games.civ_quest.data_load import DATA, DataError, load_map, load_rules
    raw = json.load(open(f"{DATA}/rules.json"))
    raw["research_table"]["1-1"] = "Alchemy"
    p = tmp_path / "rules.json"
    p.write_text(json.dumps(raw))
    with pytest.raises(DataError, match="1-1: unknown advance 'Alchemy'"):
        load_rules(str(p))
    m = json.load(open(f"{DATA}/map.json"))
    m["edges"]["attica"] += " atlantis"
    p2 = tmp_path / "map.json"
    p2.write_text(json.dumps(m))
    with pytest.raises(DataError, match="unknown area 'atlantis'"):
        load_map(str(p2))
    p2.write_text("{not json")
    with pytest.raises(DataError, match="cannot be read"):
        load_map(str(p2))


def test_a_default_set_up_outside_2_to_7_players_is_refused_naming_the_range():
    for n in (1, 8, 9):
        with pytest.raises(SetupError) as e:
            GAME.default_setup(players=n)
        assert "2-7 players" in str(e.value)
