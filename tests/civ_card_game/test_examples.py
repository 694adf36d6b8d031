"""Worked examples from the rule text (../shared/rules/civilization-the-card-game.txt), played
through the engine's own apply."""
from __future__ import annotations

from cc_helpers import act, arranged, rejected, started

from companion.games.civ_card_game.rules import GAME

FOUR = (("Grassland", 0, ()), ("Hills", 0, ()), ("River", 0, ()), ("Plains", 0, ()))


def purchasing(n=2, **changes):
    s = started(n)
    s = act(s, "collect", player="p1", bonus={"food": 1})
    return arranged(s, **changes)


# ---------------------------------------------------------------- set-up
def test_setup_deals_two_drafts_forward_then_back_and_ends_with_four_plots_each():
    s = GAME.initial_state(GAME.default_setup(players=3))
    order = [(k, w, a) for k, w, a in s.queue]
    assert order[:6] == [("deal", "p3", p) for p in ("p1", "p1", "p2", "p2", "p3", "p3")]  # the dealer is p3
    drafts = [w for k, w, _ in order if k == "draft"]
    assert drafts == ["p1", "p2", "p3", "p3", "p2", "p1"]  # back again: the dealer's left takes last
    s = started(3)
    assert all(len(s.plots[p]) == 4 for p in s.seats)
    assert len(s.plot_row) == 3 and len(s.tech_row) == 3
    assert [sum(pop for _, pop, _ in s.plots[p]) for p in s.seats] == [1, 1, 1]  # one free population
    assert s.step == "collect" and s.current == "p1" and s.round == 1


def test_initial_hands_are_6_7_8_9_then_two_are_discarded():
    s = started(4)
    assert [s.hand[p] for p in s.seats] == [4, 5, 6, 7]
    assert s.discard_unknown == 8
    assert s.deck == GAME.deck_size - 6 - 7 - 8 - 9


# ---------------------------------------------------------------- costs
def test_the_fifth_plot_costs_15_and_the_sixth_20():
    s = purchasing(res={"p1": (10, 10, 10)}, plots={"p1": FOUR})
    assert GAME.price(s, "p1", "plot") == 15
    card = s.plot_row[0]
    s = act(s, "buy_plot", player="p1", card=card, pay={"food": 5, "hammer": 5, "coin": 5})
    assert len(s.plots["p1"]) == 5 and s.res["p1"] == (5, 5, 5)
    assert GAME.price(s, "p1", "plot") == 20
    s = arranged(s, res={"p1": (20, 20, 20)}, queue=())
    s = act(s, "buy_plot", player="p1", card=s.plot_row[0], pay={"coin": 20})
    assert GAME.price(s, "p1", "plot") == 25  # seventh: 25, "and so on"


def test_a_plot_with_two_population_costs_10_for_the_third():
    plots = (("Grassland", 2, ()), ("Hills", 0, ()), ("River", 1, ()), ("Plains", 0, ()))
    s = purchasing(res={"p1": (30, 0, 0)}, plots={"p1": plots})
    assert [GAME.price(s, "p1", "population", plot=i) for i in range(4)] == [10, 6, 8, 6]
    s = act(s, "buy_population", player="p1", plot=0)
    assert s.plots["p1"][0][1] == 3 and s.res["p1"] == (20, 0, 0)
    assert GAME.price(s, "p1", "population", plot=0) == 12


def test_technology_building_and_wonder_prices_subtract_every_modifier():
    s = purchasing(techs={"p1": ("Mathematics", "Bronze Working")},
                   plots={"p1": (("Grassland", 0, ("Library",)),) + FOUR[1:]})
    base, offs = GAME.price_parts(s, "p1", "technology", "Writing")
    assert base == 8 and sorted(offs) == [("Library", 1), ("Mathematics", 1)]
    assert GAME.price(s, "p1", "technology", "Writing") == 6
    assert GAME.price(s, "p1", "building", "Granary") == 3
    assert GAME.price(s, "p1", "wonder", "Pyramids") == 10  # no wonder discount here


def test_highest_happiness_discounts_technologies_buildings_and_wonders_but_not_population():
    s = purchasing(plots={"p1": (("Grassland", 0, ("Colosseum",)),) + FOUR[1:]})
    assert GAME.happiness(s, "p1") == 2 and GAME.highest_happiness(s) == ("p1",)
    assert GAME.price(s, "p1", "technology", "Writing") == 7
    assert GAME.price(s, "p1", "building", "Granary") == 3
    assert GAME.price(s, "p1", "wonder", "Pyramids") == 9
    assert GAME.price(s, "p1", "population", plot=1) == 6


# ---------------------------------------------------------------- statuses
def test_highest_happiness_needs_at_least_2_and_the_highest():
    s = purchasing(plots={"p1": (("Grassland", 0, ("Temple",)),) + FOUR[1:]})
    assert GAME.happiness(s, "p1") == 1 and GAME.highest_happiness(s) == ()
    s = arranged(s, techs={"p1": ("Monarchy",)})
    assert GAME.highest_happiness(s) == ("p1",)
    s = arranged(s, plots={"p2": (("River", 0, ("Colosseum", "Temple")),) + FOUR[1:]})
    assert GAME.highest_happiness(s) == ("p2",)  # 3 beats 2


def test_highest_culture_needs_more_than_2_and_draws_and_discards_one_more():
    s = purchasing(plots={"p1": (("Grassland", 0, ("Monastery",)),) + FOUR[1:]})
    assert GAME.culture(s, "p1") == 2 and GAME.highest_culture(s) == ()
    assert GAME.draw_count(s, "p1") == (4, 2)
    s = arranged(s, techs={"p1": ("Mysticism",)})
    assert GAME.highest_culture(s) == ("p1",) and GAME.draw_count(s, "p1") == (5, 3)
    s = arranged(s, step="draw")
    hand = s.hand["p1"]
    s = act(s, "end_turn", player="p1")
    assert s.hand["p1"] == hand + 5 - 3


def test_astronomy_draws_one_more_card():
    s = arranged(purchasing(), techs={"p1": ("Astronomy",)}, step="draw")
    hand = s.hand["p1"]
    s = act(s, "end_turn", player="p1")
    assert s.hand["p1"] == hand + 5 - 2


# ---------------------------------------------------------------- yields
def test_three_population_on_a_food_and_hammer_plot_add_three_of_food_and_hammers():
    s = started()
    s = arranged(s, plots={"p1": (("Plains", 3, ()),)})
    opts = GAME.bonus_options(s, "p1")
    assert sorted(opts) == [(0, 3, 0), (1, 2, 0), (2, 1, 0), (3, 0, 0)]
    rejected(s, "CC-Y2", "collect", player="p1", bonus={"coin": 3})
    rejected(s, "CC-Y2", "collect", player="p1", bonus={"food": 2})
    s = act(s, "collect", player="p1", bonus={"food": 2, "hammer": 1})
    assert s.res["p1"] == (1 + 2, 1 + 1, 0)


def test_a_granary_doubles_its_plots_printed_food():
    s = arranged(started(), plots={"p1": (("Grassland", 0, ("Granary",)), ("Plains", 0, ("Forge",)))})
    assert GAME.fixed_yield(s, "p1") == (4 + 1, 1 + 1, 0)


def test_mining_gives_one_hammer_per_plot_once():
    s = purchasing(res={"p1": (0, 0, 10)}, tech_row=("Mining", "Engineering", "Writing"))
    s = act(s, "buy_tech", player="p1", card="Mining")
    assert s.res["p1"] == (0, 4, 4)  # 4 plots; 6 Coins paid
    assert GAME.fixed_yield(s, "p1") == GAME.fixed_yield(arranged(s, techs={"p1": ()}), "p1")


# ---------------------------------------------------------------- buildings
def test_one_building_per_plot_two_with_engineering():
    s = purchasing(res={"p1": (0, 30, 0)}, plots={"p1": FOUR}, known={"p1": ("Granary", "Forge", "Temple")},
                   hand={"p1": 3})
    s = act(s, "build", player="p1", card="Granary", plot=0)
    rejected(s, "CC-B1", "build", player="p1", card="Forge", plot=0)
    s2 = arranged(s, techs={"p1": ("Engineering",)})
    s2 = act(s2, "build", player="p1", card="Forge", plot=0)
    assert s2.plots["p1"][0][2] == ("Granary", "Forge")
    rejected(s2, "CC-B1", "build", player="p1", card="Temple", plot=0)


def test_three_population_allow_two_buildings_on_that_plot():
    s = purchasing(res={"p1": (0, 30, 0)}, plots={"p1": (("Grassland", 3, ("Granary",)),) + FOUR[1:]},
                   known={"p1": ("Forge",)}, hand={"p1": 1})
    s = act(s, "build", player="p1", card="Forge", plot=0)
    assert s.plots["p1"][0][2] == ("Granary", "Forge") and s.res["p1"][1] == 25 and s.hand["p1"] == 0


# ---------------------------------------------------------------- combat
def combat_state(attacker_units, defender_built=(), defender_known=(), n=2):
    s = started(n)
    s = act(s, "collect", player="p1", bonus={"food": 1})
    s = act(s, "done", player="p1")
    assert s.step == "combat"
    plots = (("Grassland", 2, tuple(defender_built)), ("Hills", 1, ()), ("River", 0, ()), ("Plains", 0, ()))
    return arranged(s, known={"p1": tuple(attacker_units), "p2": tuple(defender_known)},
                    hand={"p1": len(attacker_units), "p2": len(defender_known)}, plots={"p2": plots})


def declare(s, *units, target="p2"):
    for u in units:
        s = act(s, "attack", player="p1", card=u, target=target)
    return act(s, "fight", player="p1")


def test_spearmen_defend_only_against_chariots():
    s = declare(combat_state(("Swordsmen", "Chariot"), defender_built=("Library",),
                             defender_known=("Spearmen", "Spearmen")), "Swordsmen", "Chariot")
    assert s.queue[0][:2] == ("defend", "p2")
    e = rejected(s, "CC-C5", "block", player="p2", card="Spearmen", attacker=0)
    assert "only against Chariot" in e.message
    s = act(s, "block", player="p2", card="Spearmen", attacker=1)
    s = act(s, "defend_done", player="p2")
    assert s.queue[0] == ("lose_building", "p2", 0)  # the unblocked Swordsmen destroy a building
    assert "Spearmen" in s.discard_known and "Chariot" not in s.known["p1"]


def test_swordsmen_cannot_defend_and_no_unit_blocks_twice():
    s = declare(combat_state(("Chariot", "Chariot"), defender_known=("Swordsmen", "Archers", "Archers")),
                "Chariot", "Chariot")
    rejected(s, "CC-C5", "block", player="p2", card="Swordsmen", attacker=0)
    s = act(s, "block", player="p2", card="Archers", attacker=0)
    rejected(s, "CC-C5", "block", player="p2", card="Archers", attacker=0)
    s = act(s, "block", player="p2", card="Archers", attacker=1)
    # nothing left to block: the defence ends by itself, every unit that fought is discarded
    assert s.step == "draw" and s.discard_known.count("Archers") == 2 and s.discard_known.count("Chariot") == 2


def test_a_catapult_destroys_city_walls_which_return_to_hand_and_the_catapult_is_discarded():
    s = combat_state(("Catapult", "Chariot"), defender_built=("City Walls",))
    s = declare(s, "Catapult", "Chariot")
    assert "City Walls" not in s.plots["p2"][0][2] and s.known["p2"] == ("City Walls",)
    assert s.combat[0][2] == "walls" and "Catapult" in s.discard_known
    assert s.queue[0][0] != "bounce"  # no walls left: nothing bounces
    s = act(s, "defend_done", player="p2")
    s = act(s, "lose_population", player="p2", plot=0)  # the defender chooses the plot
    s = act(s, "take_population", player="p1", plot=2)  # the attacker places it
    assert s.plots["p2"][0][1] == 1 and s.plots["p1"][2][1] == 1
    assert s.step == "draw" and s.combat == () and "Chariot" in s.discard_known


def test_city_walls_bounce_one_attacker_back_to_the_attackers_hand():
    s = combat_state(("Chariot", "Swordsmen"), defender_built=("City Walls",))
    s = declare(s, "Chariot", "Swordsmen")
    assert s.queue[0] == ("bounce", "p2", None)
    s = act(s, "bounce", player="p2", attacker=0)
    assert s.known["p1"] == ("Chariot",) and s.hand["p1"] == 1
    assert "City Walls" in s.plots["p2"][0][2]  # walls stay after bouncing
    assert s.queue[0][0] == "defend"


def test_the_great_wall_bounces_and_no_catapult_destroys_it():
    s = combat_state(("Catapult", "Chariot"), defender_built=("Great Wall",))
    s = declare(s, "Catapult", "Chariot")
    assert "Great Wall" in s.plots["p2"][0][2] and s.queue[0] == ("bounce", "p2", None)
    s = act(s, "bounce", player="p2", attacker=1)
    assert s.known["p1"] == ("Chariot",)


def test_a_blocked_catapult_is_more_defence_than_necessary():
    s = declare(combat_state(("Catapult",), defender_known=("Archers",)), "Catapult")
    # no walls: the catapult has nothing to do; defending against it is refused, the step ends
    assert s.step == "draw" and "Catapult" in s.discard_known


def test_destroyed_buildings_return_to_hand_and_wonders_cannot_be_destroyed():
    s = combat_state(("Swordsmen", "Axemen"), defender_built=("Pyramids", "Library"))
    s = arranged(s, plots={"p2": (("Grassland", 3, ("Pyramids", "Library")),) + FOUR[1:]})
    s = declare(s, "Swordsmen", "Axemen")
    s = act(s, "defend_done", player="p2")
    rejected(s, "CC-C8", "lose_building", player="p2", plot=0, card="Pyramids")
    s = act(s, "lose_building", player="p2", plot=0, card="Library")
    assert s.known["p2"] == ("Library",) and s.plots["p2"][0][2] == ("Pyramids",)
    # the second unit finds no building left: it does what it can and the combat ends
    assert s.step == "draw" and not s.queue


def test_attack_only_adjacent_players():
    s = combat_state(("Chariot",), n=4)
    rejected(s, "CC-C1", "attack", player="p1", card="Chariot", target="p3")
    s = act(s, "attack", player="p1", card="Chariot", target="p4")  # p4 sits on p1's right
    assert s.combat == (("Chariot", "p4", "in"),)


# ---------------------------------------------------------------- technologies with a one-time effect
def test_writing_steals_a_card_and_code_of_laws_three_resources():
    s = purchasing(res={"p1": (0, 0, 20), "p2": (1, 5, 0)}, tech_row=("Writing", "Code of Laws", "Mining"))
    hands = dict(s.hand)
    s = act(s, "buy_tech", player="p1", card="Writing")
    assert s.queue[0][0] == "turn_up"
    s = act(s, "turn_up", player="p1", card="Astronomy")
    s = act(s, "steal_card", player="p1", target="p2")
    assert s.hand["p1"] == hands["p1"] + 1 and s.hand["p2"] == hands["p2"] - 1
    s = act(s, "buy_tech", player="p1", card="Code of Laws")
    s = act(s, "turn_up", player="p1", card="Pottery")
    rejected(s, "CC-T4", "steal_resources", player="p1", target="p2", take={"hammer": 2})
    s = act(s, "steal_resources", player="p1", target="p2", take={"food": 1, "hammer": 2})
    assert s.res["p2"] == (0, 3, 0) and s.res["p1"] == (1, 2, 20 - 8 - 8)


# ---------------------------------------------------------------- end and victory
def test_the_game_ends_when_the_last_technology_is_bought_and_vp_counts_population_tech_wonders():
    s = purchasing(res={"p1": (0, 0, 20)}, tech_row=("Mining",), tech_deck=(),
                   plots={"p1": (("Grassland", 3, ("Pyramids",)),) + FOUR[1:]}, techs={"p2": ("Writing", "Pottery")})
    s = act(s, "buy_tech", player="p1", card="Mining")
    assert s.over and GAME.actor(s) is None
    sc = GAME.score(s)
    assert sc["p1"] == {"total": 5, "items": {"Population": 3, "Technologies": 1, "Wonders": 1}}
    assert sc["p2"]["total"] == 1 + 2
    assert GAME.result(s)["winner"] == "p1"


def test_ties_are_broken_by_technologies_then_population_then_wonders():
    s = purchasing(tech_row=("Mining",), tech_deck=(), res={"p1": (0, 0, 20)})
    # p1 will have 1 population + 1 technology; p2 2 population + 0
    s = arranged(s, plots={"p2": (("River", 2, ()),) + FOUR[1:]})
    s = act(s, "buy_tech", player="p1", card="Mining")
    r = GAME.result(s)
    assert GAME.score(s)["p1"]["total"] == GAME.score(s)["p2"]["total"] == 2
    assert r["winner"] == "p1" and r["decided_by"] == "technologies"


# ---------------------------------------------------------------- "no more defenders than necessary" (CC-C6)
def test_no_defender_against_a_unit_that_can_do_nothing_to_this_defender():
    # no buildings: Swordsmen and Axemen have nothing to destroy, so blocking them is refused
    s = declare(combat_state(("Swordsmen", "Axemen", "Chariot"), defender_known=("Archers", "Archers")),
                "Swordsmen", "Axemen", "Chariot")
    e = rejected(s, "CC-C6", "block", player="p2", card="Archers", attacker=0)
    assert "no building" in e.message
    rejected(s, "CC-C6", "block", player="p2", card="Archers", attacker=1)
    assert {a["attacker"] for a in GAME.legal_actions(s) if a.type == "block"} == {2}
    s = act(s, "block", player="p2", card="Archers", attacker=2)   # the Chariot would take population
    # nothing left worth blocking: the defence ends by itself; the other Archers were not spent
    assert s.known["p2"] == ("Archers",) and s.step == "draw"       # the other card was not spent


def test_no_defender_against_a_chariot_when_there_is_no_population():
    s = combat_state(("Chariot",), defender_built=("Library",), defender_known=("Archers",))
    s = arranged(s, plots={"p2": (("Grassland", 0, ("Library",)),) + FOUR[1:]})
    s = declare(s, "Chariot")
    # nothing the Chariot can take: no defence is asked for and the Archers stay in hand
    assert s.step == "draw" and s.known["p2"] == ("Archers",)
    s2 = combat_state(("Chariot", "Swordsmen"), defender_built=("Library",), defender_known=("Archers",))
    s2 = declare(arranged(s2, plots={"p2": (("Grassland", 0, ("Library",)),) + FOUR[1:]}), "Chariot", "Swordsmen")
    rejected(s2, "CC-C6", "block", player="p2", card="Archers", attacker=0)
    s2 = act(s2, "block", player="p2", card="Archers", attacker=1)
    assert s2.step == "draw" and s2.plots["p2"][0][2] == ("Library",) and "Archers" in s2.discard_known


# ---------------------------------------------------------------- two copies of one building (CC-B3)
def test_a_plot_may_hold_two_copies_of_one_building():
    s = purchasing(res={"p1": (0, 30, 0)}, plots={"p1": (("Grassland", 3, ("Granary",)),) + FOUR[1:]},
                   known={"p1": ("Granary",)}, hand={"p1": 1})
    once = GAME.plot_base(s, "p1", 0)
    s = act(s, "build", player="p1", card="Granary", plot=0)       # the text sets no such limit
    assert s.plots["p1"][0][2] == ("Granary", "Granary")
    assert GAME.plot_base(s, "p1", 0) == once                       # still "twice its base" Food


# ---------------------------------------------------------------- a game nobody ends (CC-E3)
def test_the_round_limit_ends_a_game_whose_last_technology_is_never_bought():
    limit = GAME.rules["round_limit"]
    assert limit == 50  # the decided value (rules.json), about three times a long random game
    s = arranged(started(2), round=limit - 1, turn=1, step="draw",
                 plots={"p1": (("Grassland", 2, ()),) + FOUR[1:], "p2": FOUR}, techs={"p2": ("Pottery",)})
    s = act(s, "end_turn", player="p2")                 # the end of round 49: play goes on
    assert not s.over and s.round == limit and s.current == "p1"
    from companion.games.civ_card_game import MODULE
    assert "This is round 50, the last" in MODULE.view.prompt(GAME, s, {}, None)
    s = arranged(s, step="draw")
    s = act(s, "end_turn", player="p1")                 # p1's last turn; p2 still plays round 50
    assert not s.over and s.current == "p2"
    s = arranged(s, step="draw")
    s = act(s, "end_turn", player="p2")                 # every player has had 50 turns
    assert s.over and GAME.actor(s) is None and GAME.legal_actions(s) == []
    assert s.tech_row and s.round == limit
    r = GAME.result(s)
    assert r["end_reasons"] == ["round_limit"]
    assert r["winner"] == "p1"                          # 2 population against 1 technology: VP decide
    words = MODULE.view.end_reasons(GAME, s, {})[0]
    assert "Round 50 was the last" in words and "round_limit" not in words


def test_no_round_limit_when_the_table_sets_none():
    from companion.games.civ_card_game.rules import CivCardGame
    game = CivCardGame(rules={**GAME.rules, "round_limit": None})
    s = arranged(started(2), round=500, turn=1, step="draw")
    s = game.apply(s, game.codec.make("end_turn", player="p2"))
    assert not s.over and s.round == 501
