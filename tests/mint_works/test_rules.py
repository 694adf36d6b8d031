"""Mint Works rules: worked examples from the rule text and card data, and bad input rejected
with the rule it breaks (nothing applied)."""
import pytest

from companion.engine import Rejected
from mw_helpers import G, apply, deal, position, start


def act(s, **a):
    return G.apply(s, G.codec.make(**a))


def rejected(s, rule, **a):
    before = s.to_dict()
    with pytest.raises(Rejected) as ei:
        G.apply(s, G.codec.make(**a))
    assert ei.value.rule == rule, ei.value
    assert s.to_dict() == before  # nothing applied
    return ei.value.message


# ---------------------------------------------------------------- stars (worked examples)
def test_museum_counts_culture_buildings_with_the_bridge_as_two():
    _, s = start()
    s = position(s, "p1", [("museum", True), ("bridge", True), ("statue", True)])
    assert G.plan_items(s, "p1") == {"Museum": 4, "Bridge": 0, "Statue": 2}
    assert G.score(s)["p1"] == {"total": 6, "items": {"Culture": 6, "Production": 0, "Utility": 0, "Deed": 0}}


def test_landfill_takes_one_star_from_each_culture_building_never_below_zero():
    _, s = start()
    s = position(s, "p1", [("landfill", True), ("statue", True), ("museum", True), ("windmill", True),
                           ("bridge", True)])
    # culture buildings: Statue, Museum, Windmill, Bridge (two) = 5; each loses one star
    assert G.plan_items(s, "p1") == {"Landfill": 3, "Statue": 1, "Museum": 4, "Windmill": 0, "Bridge": 0}
    assert G.score(s)["p1"]["total"] == 8


def test_vault_two_stars_per_face_down_plan_and_obelisk_per_building():
    _, s = start()
    s = position(s, "p1", [("vault", True), ("mine", False), ("lotto", False)])
    assert G.plan_items(s, "p1") == {"Vault": 4}
    s = position(s, "p1", [("obelisk", True), ("bridge", True)])
    assert G.plan_items(s, "p1") == {"Vault": 4, "Obelisk": 4, "Bridge": 0}  # Vault, Obelisk, Bridge x2


def test_gallery_gains_a_mint_each_upkeep_and_scores_them():
    _, s = start()
    s = position(s, "p1", [("gallery", True)])
    assert G.plan_items(s, "p1") == {"Gallery": 0}
    s = act(s, type="pass", player="p1")
    s = act(s, type="pass", player="p2")
    s = deal(s)
    assert s.round == 2 and s.gallery["p1"] == 1 and G.plan_items(s, "p1") == {"Gallery": 1}
    assert G.status(s) == []


def test_tie_breakers_smallest_neighbourhood_then_most_mints_then_shared():
    _, s = start()
    a = position(s, "p1", [("gardens", True), ("factory", True), ("windmill", True)], mints=1)
    a = position(a, "p2", [("statue", True), ("workshop", True), ("plant", True), ("mine", True)], mints=5)
    assert G.score(a)["p1"]["total"] == G.score(a)["p2"]["total"] == 7
    r = G.result(a)  # 7 : 7 stars; p1 has 3 plans, p2 has 4
    assert r["winner"] == "p1" and r["decided_by"] == "smallest_neighbourhood"
    b = position(a, "p1", [("co_op", False)], mints=2)  # now 4 plans each
    r = G.result(b)
    assert r["winner"] == "p2" and r["decided_by"] == "most_mints"
    c = position(b, "p1", [], mints=5)
    r = G.result(c)
    assert r["winner"] is None and r["decided_by"] == "shared" and r["tied"] == ["p1", "p2"]


def test_a_bridge_makes_a_neighbourhood_bigger_for_the_tie_breaker():
    from companion.games.mint_works import scoring
    _, s = start()
    a = position(s, "p1", [("gardens", True), ("statue", True), ("bridge", True), ("co_op", True), ("mine", True)])
    a = position(a, "p2", [("factory", True), ("workshop", True), ("windmill", True), ("truck", True),
                           ("lotto", False)])
    assert G.score(a)["p1"]["total"] == G.score(a)["p2"]["total"] == 7
    assert scoring.neighbourhood_size(G.data, a.plans["p1"]) == 6
    assert G.result(a)["winner"] == "p2"


# ---------------------------------------------------------------- locations
def test_set_up_competitive_two_players():
    setup, s = start(2)
    assert s.mints == {"p1": 3, "p2": 3} and len(s.supply) == 3 and G.deck_size(s) == 18
    assert [len(s.spaces[x]) for x in ("producer", "supplier", "builder", "leadership_council")] == [2, 2, 2, 1]
    assert s.owner == {"wholesaler": None, "lotto": None} and s.turn == "p1" and s.start == "p1"
    _, s4 = start(4)
    assert [len(s4.spaces[x]) for x in ("producer", "supplier", "builder")] == [3, 3, 3]


def test_producer_gives_two_mints_and_the_turn_moves_on():
    _, s = start()
    s2 = act(s, type="place", player="p1", location="producer")
    assert s2.mints["p1"] == 4 and s2.spaces["producer"][0] == ("p1", 1) and s2.turn == "p2"
    rejected(s2, "flow.actor", type="pass", player="p1")


def _with_supply(s, plans):
    s = s.copy()
    for pid in plans:
        for pile in (s.deck, s.bottom):
            if pid in pile:
                pile.remove(pid)
    s.deck += [p for p in s.supply if p not in plans]
    s.supply = list(plans)
    return s


def test_supplier_buy_then_builder_builds_and_opens_the_wholesaler():
    _, s = start()
    s = _with_supply(s, ["wholesaler", "mine", "statue"])
    s = act(s, type="place", player="p1", location="supplier", plan="wholesaler")
    assert s.mints["p1"] == 2 and s.plans["p1"] == [("wholesaler", False, False)] and s.supply == ["mine", "statue"]
    rejected(s, "place.closed", type="place", player="p2", location="wholesaler")
    s = act(s, type="pass", player="p2")
    s = act(s, type="place", player="p1", location="builder", plan="wholesaler")
    assert s.owner["wholesaler"] == "p1" and s.mints["p1"] == 0
    s = act(s, type="place", player="p2", location="wholesaler")
    assert s.mints["p2"] == 4  # 3 - 1 + 2
    s = act(s, type="pass", player="p1")
    s = act(s, type="pass", player="p2")
    s = deal(s)
    # Upkeep: the owner gains the Mint on the Wholesaler, then every player gains 1
    assert s.round == 2 and s.mints == {"p1": 2, "p2": 5} and G.status(s) == []


def test_truck_crane_and_assembler():
    _, s = start()
    s = _with_supply(s, ["factory", "mine", "statue"])
    s = position(s, "p1", [("truck", True), ("crane", True), ("assembler", True), ("co_op", False)], mints=5)
    s = act(s, type="place", player="p1", location="supplier", plan="factory")
    assert s.mints["p1"] == 2 and ("factory", True, False) in s.plans["p1"]  # 4 - 1, built at once
    s = act(s, type="pass", player="p2")
    s = act(s, type="place", player="p1", location="builder", plan="co_op")
    assert s.mints["p1"] == 1 and s.spaces["builder"][0] == ("p1", 1)


def test_leadership_council_takes_the_start_player_token():
    _, s = start()
    s = act(s, type="pass", player="p1")
    s = act(s, type="place", player="p2", location="leadership_council")
    assert s.start == "p2" and s.mints["p2"] == 3
    s = act(s, type="pass", player="p1")
    s = act(s, type="pass", player="p2")
    s = deal(s)
    assert s.round == 2 and s.turn == "p2"


def test_lotto_gives_the_top_plan_face_down_and_its_owner_two_mints():
    _, s = start()
    s = position(s, "p2", [("lotto", True)], mints=3)
    assert s.owner["lotto"] == "p2"
    s = position(s, "p1", [], mints=3)
    s = act(s, type="place", player="p1", location="lotto")
    assert s.step == "draw" and G.actor(s) == "system"
    s = deal(s, seed=5)
    (pid, built, secret), = s.plans["p1"]
    assert not built and secret and s.turn == "p2"
    s = act(s, type="pass", player="p2")
    s = act(s, type="pass", player="p1")
    s = deal(s)
    assert s.mints["p2"] == 3 + 2 + 1 and s.mints["p1"] == 1 and G.status(s) == []


def test_development_ends_only_when_all_players_pass_in_a_row():
    _, s = start(3)
    s = act(s, type="pass", player="p1")
    s = act(s, type="pass", player="p2")
    s = act(s, type="place", player="p3", location="producer")
    assert s.phase == "development" and s.turn == "p1"
    s = act(s, type="pass", player="p1")
    s = act(s, type="pass", player="p2")
    assert s.round == 1
    s = act(s, type="pass", player="p3")
    assert s.round == 2 and s.turn == "p1"
    assert all(o is None for sp in s.spaces.values() for o in sp)  # mints returned


def test_upkeep_order_the_seven_star_check_comes_before_income():
    _, s = start()
    s = position(s, "p1", [("gardens", True), ("factory", True), ("windmill", True)])
    s = act(s, type="pass", player="p1")
    s = act(s, type="pass", player="p2")
    assert s.over and s.end_reason == "seven_stars" and s.mints == {"p1": 3, "p2": 3}


def test_the_game_ends_when_the_supply_cannot_be_refilled():
    _, s = start()
    s = _with_supply(s, ["mine", "statue", "windmill"])
    rest = list(s.deck)
    s = position(s, "p2", [(p, False) for p in rest])
    assert G.deck_size(s) == 0
    s = act(s, type="place", player="p1", location="supplier", plan="windmill")
    s = act(s, type="pass", player="p2")
    s = act(s, type="pass", player="p1")
    assert s.over and s.end_reason == "supply_not_refilled"


def test_co_op_asks_its_owner_with_three_players():
    _, s = start(3)
    s = position(s, "p1", [("co_op", True)])
    for seat in ("p1", "p2", "p3"):
        s = act(s, type="pass", player=seat)
    s = deal(s)
    assert s.step == "coop" and G.actor(s) == "p1"
    rejected(s, "plan.co_op", type="coop_give", player="p1", beneficiary="p1")
    s = act(s, type="coop_give", player="p1", beneficiary="p3")
    assert s.mints == {"p1": 5, "p2": 4, "p3": 5} and s.round == 2


def test_corporate_hq_stripmine_and_plant_income():
    _, s = start()
    s = position(s, "p1", [("corporate_hq", True), ("bridge", True), ("stripmine", True), ("plant", True)])
    s = act(s, type="pass", player="p1")
    s = act(s, type="pass", player="p2")
    s = deal(s)
    assert s.mints["p1"] == 3 + 5 + 3 + 2 + 1  # HQ counts 5 buildings (Bridge as two)


# ---------------------------------------------------------------- advanced locations
def test_crowdfunder_recycler_swap_meet_temp_agency():
    _, s = start(advanced="recycler+crowdfunder")
    s = act(s, type="place", player="p1", location="crowdfunder", beneficiary="p2")
    assert s.mints == {"p1": 2, "p2": 4}
    s = position(s, "p2", [("gardens", True)])
    s = act(s, type="place", player="p2", location="recycler", plan="gardens")
    assert s.mints["p2"] == 4 - 1 + 6 and s.bottom == ["gardens"] and s.plans["p2"] == []
    _, t = start(advanced="swap_meet+temp_agency")
    t = _with_supply(t, ["mine", "statue", "windmill"])
    t = position(t, "p1", [("plant", False)])
    rejected(t, "temp.target", type="place", player="p1", location="temp_agency", target="producer")
    t = act(t, type="place", player="p1", location="swap_meet", plan="statue", give="plant")
    assert t.supply == ["mine", "plant", "windmill"] and ("statue", False, False) in t.plans["p1"]
    rejected(t, "place.occupied", type="place", player="p2", location="swap_meet", plan="mine", give="statue")
    t = position(t, "p2", [("gardens", True)], mints=6)
    t = act(t, type="place", player="p2", location="temp_agency", target="swap_meet", plan="mine", give="gardens")
    assert t.supply == ["gardens", "plant", "windmill"] and t.mints["p2"] == 3  # 1 + the Swap Meet's 2


def test_temp_agency_copies_an_occupied_space_for_one_more_mint():
    _, t = start(advanced="swap_meet+temp_agency")
    t = _with_supply(t, ["mine", "gardens", "windmill"])
    t = act(t, type="place", player="p1", location="supplier", plan="mine")
    msg = rejected(t, "mints.negative", type="place", player="p2", location="temp_agency", target="supplier",
                   plan="gardens")
    assert "needs 4 Mints" in msg
    t = act(t, type="place", player="p2", location="temp_agency", target="supplier", plan="windmill")
    assert t.mints["p2"] == 1 and ("windmill", False, False) in t.plans["p2"]
    assert t.spaces["temp_agency"] == [("p2", 2)] and t.spaces["supplier"] == [("p1", 2), None]



def test_a_recycled_deed_closes_its_location_and_a_recycled_gallery_returns_its_mints():
    _, s = start(advanced="recycler+crowdfunder")
    s = position(s, "p1", [("wholesaler", True), ("gallery", True)], gallery=2)
    assert s.owner["wholesaler"] == "p1"
    s = act(s, type="place", player="p1", location="recycler", plan="wholesaler")
    assert s.owner["wholesaler"] is None and s.mints["p1"] == 3 - 1 + 1 + 1
    rejected(s, "place.closed", type="place", player="p2", location="wholesaler")
    s = act(s, type="pass", player="p2")
    s = act(s, type="place", player="p1", location="crowdfunder", beneficiary="p1")
    assert s.mints["p1"] == 4 - 3 + 3
    assert G.status(s) == []
    _, t = start(advanced="recycler+crowdfunder")
    t = position(t, "p1", [("gallery", True)], gallery=2)
    t = act(t, type="place", player="p1", location="recycler", plan="gallery")
    assert t.gallery["p1"] == 0 and t.mints["p1"] == 3 - 1 + 4 and G.status(t) == []


def test_the_lotto_needs_a_plan_in_the_deck():
    _, s = start()
    s = position(s, "p2", [("lotto", True)] + [(p, False) for p in s.deck if p != "lotto"])
    assert G.deck_size(s) == 0
    assert "Plan Deck is empty" in rejected(s, "lotto.deck", type="place", player="p1", location="lotto")


def test_mort_wins_the_most_mints_tie_breaker():
    _, s = start(1, opponent="mort")
    s = position(s, "p1", [("factory", True), ("workshop", True), ("windmill", True), ("mine", True)], mints=20)
    s = position(s, "p2", [("gardens", True), ("statue", True), ("truck", True), ("crane", True)])
    assert G.score(s)["p1"]["total"] == G.score(s)["p2"]["total"] == 7
    r = G.result(s)
    assert r["winner"] == "p2" and r["decided_by"] == "most_mints"


def test_crowdfunder_costs_three_mints_as_the_rule_text_prints_it():
    # MW-R34: the rule text's heading prints three Mints; the card list says 1
    _, s = start(advanced="recycler+crowdfunder")
    t = position(s, "p1", mints=2)
    msg = rejected(t, "mints.negative", type="place", player="p1", location="crowdfunder", beneficiary="p1")
    assert "3" in msg
    s = position(s, "p1", mints=3)
    s = act(s, type="place", player="p1", location="crowdfunder", beneficiary="p1")
    assert s.mints["p1"] == 3 - 3 + 2 + 1


def test_the_solitaire_plan_supply_is_refilled_to_two_at_upkeep():
    # MW-R33: solitaire set-up lays two plans and its Supplier rule moves "the two Plans"
    _, s = start(1, opponent="justin")
    s = apply(s, G.codec.make("place", player="p1", location="supplier", plan=s.supply[0])) \
        if G.place_problem(s, "p1", "supplier", {"plan": s.supply[0]}) is None else s
    r = s.round
    while not s.over and s.round == r:
        s = deal(s) if s.step == "draw" else apply(s, G.codec.make("pass", player="p1"))
    assert s.round == r + 1 and len(s.supply) == 2
    _, c = start(2)
    assert len(c.supply) == 3
