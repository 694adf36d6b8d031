"""Worked examples from the Civ Quest text (../shared/rules/civ-quest.txt), one rule each."""
from cq_helpers import GAME, act, learn, rejected, started, to_step, with_units


def test_setup_seven_tokens_on_an_empty_area_and_roll_high_for_first():
    s = GAME.initial_state(GAME.default_setup(players=3))
    s = act(s, "place_start", player="p1", area="attica")
    assert s.units["attica"] == ("p1", 7, False)
    rejected(s, "CQ-S1", "place_start", player="p2", area="attica")        # not empty
    rejected(s, "CQ-S1", "place_start", player="p2", area="north_aegean")  # sea
    s = act(s, "place_start", player="p2", area="syria")
    s = act(s, "place_start", player="p3", area="cyprus")
    s = act(s, "first_roll", die=5)
    s = act(s, "first_roll", die=5)
    s = act(s, "first_roll", die=2)
    assert s.step == "first_player" and s.rolloff == ("p1", "p2")  # the tied roll again
    s = act(s, "first_roll", die=3)
    s = act(s, "first_roll", die=4)
    assert s.order == ("p2", "p3", "p1") and s.current == "p2" and s.roll == "leader_roll"


def test_advance_costs_5_then_7_in_one_turn_and_ip_cap_15():
    s = started()
    s = act(s, "correct", player="p1", what="ip", value=12)
    s = to_step(s, "advance")
    s = act(s, "idea_roll", die=6)           # 12 + 6 = 18: 15 kept
    assert s.players["p1"].ip == 15
    s = act(s, "buy_advance", player="p1")
    assert s.players["p1"].ip == 10 and s.roll == "research_roll"
    s = act(s, "research_roll", first=3, second=5)   # 3-5 Music
    assert s.players["p1"].advances == ("Music",)
    s = act(s, "buy_advance", player="p1")
    assert s.players["p1"].ip == 3 and GAME.advance_cost(s) == 9
    s = act(s, "research_roll", first=5, second=1)   # Writing
    # 3 IP cannot pay the third (9 IP): the phase ends by itself and the IP are kept
    assert s.step == "growth" and s.players["p1"].ip == 3
    assert "buy an advance for 9 IP" not in str(GAME.legal_actions(s))


def test_known_result_lets_the_player_pick_and_missing_requirement_gives_the_requirement():
    s = learn(started(), "p1", "Music")
    s = act(s, "correct", player="p1", what="ip", value=14)
    s = to_step(s, "advance")
    s = act(s, "idea_roll", die=1)
    s = act(s, "buy_advance", player="p1")
    s = act(s, "research_roll", first=3, second=5)   # Music again: pick one not known
    assert s.ctx["pick"][0] == "advance" and "Music" not in s.ctx["pick"] and "Triremes" not in s.ctx["pick"]
    rejected(s, "CQ-A4", "pick_advance", player="p1", advance="Triremes")  # its requirement is unknown
    s = act(s, "pick_advance", player="p1", advance="Law")
    s = act(s, "buy_advance", player="p1")
    s = act(s, "research_roll", first=2, second=6)   # Triremes needs Biremes needs Shipbuilding
    assert s.ctx["offer"][0] == "research_roll"      # Law: the roll may be rerolled, so it is offered first
    s = act(s, "keep_roll", player="p1")
    assert s.players["p1"].advances == ("Music", "Law", "Shipbuilding")


def test_leader_seven_reached_through_politics_is_iconic():
    s = learn(started(), "p1", "Politics")
    s = act(s, "leader_roll", die=6)
    assert s.ctx["leader"] == "iconic" and s.roll == "leader_bonus_roll"
    s = act(s, "leader_bonus_roll", die=4)
    assert s.players["p1"].vp_iconic == 4
    assert GAME.score(s)["p1"]["items"]["iconic_leaders"] == 4


def test_growth_places_in_controlled_areas_at_most_ten_per_area_and_excess_is_lost():
    s = with_units(started(), macedonia=("p1", 9, True), thrace=("p1", 10, False))
    s = to_step(s, "growth")
    s = act(s, "growth_roll", die=4)
    # only Macedonia has room (1): it gets 1, the other 3 are lost; no decision needed
    assert s.units["macedonia"] == ("p1", 10, True) and s.step != "growth"
    s2 = with_units(started(), macedonia=("p1", 4, False), thrace=("p1", 2, False))
    s2 = to_step(s2, "growth")
    s2 = act(s2, "growth_roll", die=3)
    rejected(s2, "CQ-G2", "place", player="p1", area="syria", count=1)      # not p1's
    rejected(s2, "CQ-G2", "place", player="p1", area="thrace", count=4)     # more than gained
    s2 = act(s2, "place", player="p1", area="thrace", count=2)
    s2 = act(s2, "place", player="p1", area="macedonia", count=1)
    assert s2.units["thrace"][1] == 4 and s2.units["macedonia"][1] == 5


def test_build_city_5_rp_5_pt_one_per_area_and_resource_cap():
    s = act(with_units(started(), thrace=("p1", 5, False)), "correct", player="p1", what="rp", value=14)
    s = to_step(s, "build")
    s = act(s, "resource_roll", die=6)
    assert s.players["p1"].rp == 15
    s = act(s, "build_city", player="p1", area="macedonia")
    assert s.units["macedonia"] == ("p1", 3, True) and s.players["p1"].rp == 10  # 7 + 1 grown - 5
    rejected(s, "CQ-B2", "build_city", player="p1", area="macedonia")   # one city per area


def test_wonders_need_architecture_are_unique_and_never_more_than_cities():
    s = learn(started(), "p1", "Masonry", "Architecture")
    s = with_units(s, macedonia=("p1", 7, True), thrace=("p1", 1, False))
    s = act(s, "correct", player="p1", what="rp", value=14)
    s = learn(s, "p2", wonders=("Colossus",))
    s = to_step(s, "build")
    s = act(s, "resource_roll", die=3)   # 15 RP
    rejected(s, "CQ-B5", "build_wonder", player="p1", wonder="Colossus")
    s = act(s, "build_wonder", player="p1", wonder="Sphinx")   # 7 RP
    assert s.players["p1"].rp == 8 and s.wonders_built["Sphinx"] == "p1"
    s = act(s, "correct", player="p1", what="rp", value=15)
    rejected(s, "CQ-B6", "build_wonder", player="p1", wonder="Oracle")   # 1 city, 1 wonder
    assert GAME.score(s)["p1"]["items"]["wonders"] == 5
    s3 = to_step(act(with_units(started(), macedonia=("p1", 7, True), thrace=("p1", 1, False)), "correct",
                     player="p1", what="rp", value=15),
                 "build")
    s3 = act(s3, "resource_roll", die=1)
    rejected(s3, "CQ-B4", "build_wonder", player="p1", wonder="Oracle")   # no Architecture


def test_disaster_on_5_plus_and_mitigation_minus_2():
    s = learn(with_units(started(), macedonia=("p1", 7, False), thrace=("p1", 3, False)), "p1", "Pottery")
    s = to_step(s, "disaster")
    s = act(s, "disaster_roll", die=5)
    s = act(s, "disaster_type_roll", die=1)      # Famine: Pottery mitigates
    s = act(s, "casualty_roll", die=3)           # 3 - 2 = 1
    assert s.ctx["losses"] == 1
    s = act(s, "lose", player="p1", area="thrace", count=1)
    assert s.units["thrace"][1] == 2 and s.step == "clash" or s.step == "migration"
    s4 = to_step(with_units(started(), macedonia=("p1", 7, False)), "disaster")
    s4 = act(s4, "disaster_roll", die=4)          # below 5: nothing
    assert s4.step != "disaster" and s4.units["macedonia"][1] == 8   # 7 + 1 grown, nothing lost


def test_a_city_may_be_broken_into_5_pt_to_take_losses():
    s = with_units(started(), macedonia=("p1", 2, True))
    s = to_step(s, "disaster")
    for t, d in (("disaster_roll", 6), ("disaster_type_roll", 4), ("casualty_roll", 5)):
        s = act(s, t, die=d)
    assert s.ctx["losses"] == 5
    pt = s.units["macedonia"][1]
    rejected(s, "CQ-D4", "lose", player="p1", area="macedonia", count=pt + 1)
    s = act(s, "break_city", player="p1", area="macedonia")
    # the city became 5 PT; with one area left the 5 losses need no choice
    assert s.units["macedonia"] == ("p1", pt, False) and s.ctx["losses"] == 0


def test_war_defender_wins_ties_loser_loses_all_units_winner_places_one_pt():
    s = with_units(started(), macedonia=("p1", 6, False), thrace=("p1", 4, True), syria=None,
                   bithynia=("p2", 5, False), lydia=("p2", 3, False))
    s = to_step(s, "clash")
    assert s.ctx["queue"] == ("p2",)   # bordering by land: Thrace - Bithynia
    rejected(s, "CQ-W2", "war", player="p1", opponent="p2", from_area="macedonia", to_area="lydia")
    s = act(s, "war", player="p1", opponent="p2", from_area="thrace", to_area="bithynia")
    s = act(s, "war_roll", first=4, second=3)    # attacker 7
    assert s.roll == "war_roll" and s.roller == "p2"
    s = act(s, "war_roll", first=5, second=2)    # defender 7: the defender wins ties
    assert s.units["thrace"] == ("p2", 1, False) and s.units["bithynia"] == ("p2", 5, False)
    s2 = learn(with_units(started(), macedonia=None, thrace=("p1", 6, False), syria=None,
                          bithynia=("p2", 5, False)), "p1", "Archery")
    s2 = to_step(s2, "clash")
    s2 = act(s2, "war", player="p1", opponent="p2", from_area="thrace", to_area="bithynia")
    s2 = act(s2, "war_roll", first=3, second=3)  # 6 + 1 Archery = 7
    s2 = act(s2, "war_roll", first=3, second=3)  # 6
    assert s2.units["bithynia"] == ("p1", 1, False)
    assert s2.players["p2"].out and s2.over and s2.end_reasons == ("last_civ",)
    assert GAME.result(s2)["winner"] == "p1"


def test_trade_table_steals_and_monotheism_bonus():
    s = with_units(started(), thrace=("p1", 6, False), syria=None, bithynia=("p2", 5, False))
    s = act(s, "correct", player="p2", what="rp", value=3)
    s = to_step(s, "clash")
    s = act(s, "trade", player="p1", opponent="p2")
    s = act(s, "trade_roll", die=2)               # 1-3: steal 1 RP
    assert s.players["p2"].rp == 2 and s.players["p1"].rp == 2   # 1 from the dull Resource roll + 1
    s2 = learn(with_units(started(), macedonia=("p1", 6, False), syria=None, bithynia=("p2", 5, False),
                          thrace=("p1", 1, False)), "p1", "Mythology", "Monotheism")
    s2 = to_step(s2, "clash")
    s2 = act(s2, "trade", player="p1", opponent="p2")
    s2 = act(s2, "trade_roll", die=5)             # 5 + 1 = 6: steal 1 PT
    assert s2.ctx["steal"] == "p2"
    thrace = s2.units["thrace"][1]
    s2 = act(s2, "steal_pt", player="p1", from_area="bithynia", to_area="thrace")
    assert s2.units["bithynia"][1] == 4 and s2.units["thrace"][1] == thrace + 1


def test_law_reroll_is_offered_never_silent_and_once_per_turn():
    s = learn(started(), "p1", "Law")
    s = act(s, "leader_roll", die=1)
    assert s.ctx["offer"][0] == "leader_roll" and GAME.actor(s) == "p1" and s.ctx.get("leader") is None
    s = act(s, "reroll", player="p1", source="Law")
    assert s.roll == "leader_roll"
    s = act(s, "leader_roll", die=2)
    assert not s.ctx.get("offer") and s.ctx["leader"] == "scientist"   # Law is used up this turn
    rejected(s, "CQ-DICE", "leader_roll", die=3)   # the leader bonus roll is awaited, not this one
    rejected(s, "flow.step", "idea_roll", die=3)   # not a roll of this phase at all
    rejected(s, "CQ-DICE", "leader_bonus_roll", die=7)


def test_migration_by_land_sea_sailing_and_navigation():
    s = with_units(started(), attica=("p1", 5, False), syria=None, macedonia=None)
    s = to_step(s, "migration")
    s = act(s, "migration_roll", die=6)
    dest = GAME.destinations(s, "p1", "attica")
    assert "thessaly" in dest and "peloponnese" in dest          # bordering land
    assert "cyclades" in dest                                    # across one sea area
    assert "ionia" in dest and "rhodes" in dest                  # across the Aegean: one sea area
    assert "crete" not in dest and "cyprus" not in dest          # two sea areas or more
    s = act(s, "move", player="p1", from_area="attica", to_area="thessaly", count=2)
    assert s.ctx["mp"] == 4 and s.units["thessaly"] == ("p1", 2, False)
    rejected(s, "CQ-M1", "move", player="p1", from_area="attica", to_area="thessaly", count=5)
    rejected(s, "CQ-M2", "move", player="p1", from_area="attica", to_area="cyprus", count=1)
    sail = learn(s, "p1", "Sailing")
    assert "crete" in GAME.destinations(sail, "p1", "attica")        # South Aegean + Sea of Crete
    at_crete = with_units(sail, crete=("p1", 2, False))
    assert "cyrenaica" not in GAME.destinations(at_crete, "p1", "crete")   # only across the deep Libyan Sea
    nav = learn(at_crete, "p1", "Navigation")
    assert "cyrenaica" in GAME.destinations(nav, "p1", "crete")


def test_roads_move_within_the_empire():
    s = learn(with_units(started(), macedonia=("p1", 3, False), thrace=("p1", 3, False), bithynia=("p1", 3, False),
                         syria=None), "p1", "Roads")
    s = to_step(s, "migration")
    s = act(s, "migration_roll", die=3)
    assert "galatia" in GAME.destinations(s, "p1", "macedonia")   # along Thrace and Bithynia, one step out


def test_seven_cities_ends_the_game_and_score_is_its_breakdown():
    cities = dict((a, ("p1", 1, True)) for a in ("thrace", "thessaly", "epirus", "attica", "peloponnese", "ionia"))
    s = with_units(started(), macedonia=("p1", 7, False), **cities)
    s = act(s, "correct", player="p1", what="rp", value=10)
    s = to_step(s, "build")
    s = act(s, "resource_roll", die=1)
    s = act(s, "build_city", player="p1", area="macedonia")
    assert s.over and "seven_cities" in s.end_reasons
    sc = GAME.score(s)["p1"]
    assert sc["total"] == sum(sc["items"].values()) and sc["items"]["areas"] == 7


def test_city_table_once_per_city_plus_parthenon_and_the_pick_on_5():
    s = learn(with_units(started(), macedonia=("p1", 7, True), thrace=("p1", 2, True)), "p1", wonders=("Parthenon",))
    s = act(s, "leader_roll", die=1)
    assert s.step == "city" and s.ctx["city_rolls"] == 3 and s.roll == "city_roll"   # 2 cities + Parthenon
    s = act(s, "city_roll", die=2)        # 1 IP
    s = act(s, "city_roll", die=6)        # 1 VP
    s = act(s, "city_roll", die=5)        # pick one of 1-4
    assert s.players["p1"].ip == 1 and s.players["p1"].vp_city == 1 and s.ctx["pick"][0] == "city"
    rejected(s, "CQ-C3", "pick_city", player="p1", result="vp")
    s = act(s, "pick_city", player="p1", result="rp")
    assert s.players["p1"].rp == 1 and s.step == "advance"
