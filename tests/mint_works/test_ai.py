"""The four solitaire AIs: set-up, special rules, and every decision checked against its card by
an independent oracle built from the legal placements (not from ai.py), over a few hundred
seeded games against a random player (the benchmark plays 1,000 per AI)."""
import os

import pytest

from companion.games.mint_works import VIEW
from companion.games.mint_works import ai as AI
from mw_helpers import G, apply, deal, play, position, setup_for, start

AIS = ("justin", "rachael", "sonic", "mort")


def card_allows(s, seat, loc, params, start_unbuilt):
    """What the AI's card allows beyond the rules, per location effect (MW-AI3, MW-R10)."""
    card = G.data.ais[s.ai["id"]]
    eff = G.data.locations[loc]["effect"]
    unbuilt = [p for p, b, _ in s.plans[seat] if not b]
    if eff == "buy":
        if card["special"] == "double_turn" and start_unbuilt:
            return False
        return G.data.plans[params["plan"]]["type"] in card["priority"]
    if eff in ("swap", "recycle"):
        return bool(unbuilt) and (eff == "recycle" or G.data.plans[params["plan"]]["type"] in card["priority"])
    if eff == "temp":
        return card_allows(s, seat, params["target"], params, start_unbuilt)
    return True


def oracle(s):
    """The first location of the line with a legal placement the card allows, and the plan the
    card says to buy or build there."""
    seat = s.ai["seat"]
    card = G.data.ais[s.ai["id"]]
    for loc in s.line:
        ok = [p for p in G.place_options(s, seat, loc)
              if G.place_problem(s, seat, loc, p) is None and card_allows(s, seat, loc, p, s.sonic_had_plans)]
        if not ok:
            continue
        eff = G.data.locations[loc]["effect"]
        if eff == "buy":
            sign = -1 if card["cost_preference"] == "dearest" else 1
            best = min(ok, key=lambda p: (sign * G.data.plans[p["plan"]]["cost"],
                                          card["priority"].index(G.data.plans[p["plan"]]["type"]),
                                          s.supply.index(p["plan"])))
            return loc, best["plan"]
        if eff == "build":
            return loc, next(p for p, b, _ in s.plans[seat] if not b)
        return loc, None
    return None


@pytest.fixture
def checked(monkeypatch):
    """Every AI decision of the games played is compared with the oracle."""
    count = {"n": 0}
    real = AI.decide

    def decide(game, s):
        choice = real(game, s)
        want = oracle(s)
        if want is None:
            assert choice is None, (choice, s.to_dict())
        else:
            assert choice is not None and choice[0] == want[0], (choice, want)
            if want[1] is not None:
                assert choice[1]["plan"] == want[1], (choice, want)
        count["n"] += 1
        return choice
    monkeypatch.setattr(AI, "decide", decide)
    return count


def _solitaire_games(ai, games, checked):
    ends = set()
    for seed in range(games):
        setup = setup_for(1, opponent=ai, seed=seed, advanced=("none", "random")[seed % 2],
                          deck=("app", "table")[seed % 3 == 0])
        s, _ = play(setup, seed, max_actions=1500)
        assert s.over and G.status(s) == []
        ends.add(s.end_reason)
        text = VIEW.prompt(G, s, setup)
        assert "Game over" in text
    assert checked["n"] > games * 5
    assert ends <= {"seven_stars", "supply_not_refilled", "supply_empty"}


@pytest.mark.parametrize("ai", AIS)
def test_each_ai_plays_solitaire_to_the_end_against_a_random_player(ai, checked):
    _solitaire_games(ai, 200, checked)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("MINT_WORKS_SLOW"), reason="1,000 games per AI (~30 s): set MINT_WORKS_SLOW=1")
@pytest.mark.parametrize("ai", AIS)
def test_each_ai_plays_a_thousand_solitaire_games(ai, checked):
    _solitaire_games(ai, 1000, checked)


def test_solitaire_set_up_line_and_starting_mints():
    for ai, mints in (("justin", 3), ("rachael", 5), ("sonic", 5)):
        setup = setup_for(1, opponent=ai, deck="table")
        s = G.initial_state(setup)
        assert s.mints == {"p1": 3, "p2": mints} and s.seats == ("p1", "p2")
        assert s.line == ("producer", "wholesaler", "builder", "supplier", "leadership_council", "lotto")
        assert [len(s.spaces[x]) for x in ("producer", "supplier", "builder")] == [3, 2, 2]
        assert len(s.pending) == 2  # two plans in the solitaire supply
    s = G.initial_state(setup_for(1, opponent="justin"))
    assert s.start == "p2"
    s = G.initial_state(setup_for(1, opponent="mort", advanced="recycler"))
    assert s.mints["p2"] == 0 and G.tycoon(s, "p2") and s.line[-1] == "recycler"
    assert setup_for(1, opponent="mort")["players"]["p2"]["name"] == "Mort"


def test_rachael_places_on_the_first_location_she_can_use_and_the_table_is_told():
    setup, s = start(1, opponent="rachael")
    s = apply(s, G.codec.make("pass", player="p1"))
    # Rachael took the Producer (the first location she can use), and the prompt says so
    assert s.ai_turn[0] == "Rachael places 1 mint on the Producer: the first location in the line she can use."
    assert s.ai_turn[0] in VIEW.prompt(G, s, setup)
    assert G.actor(s) == "p1"


def test_a_plan_taken_from_the_supply_is_replaced_in_solitaire():
    setup, s = start(1, opponent="sonic")
    s = position(s, "p1", [], mints=9)
    pid = s.supply[0]
    s = G.apply(s, G.codec.make("place", player="p1", location="supplier", plan=pid))
    assert s.step == "draw" and G.actor(s) == "system"
    s = deal(s, seed=3)
    assert len(s.supply) == 2 and pid not in s.supply


def test_an_unused_supplier_sends_the_supply_to_the_bottom_at_upkeep():
    setup, s = start(1, opponent="justin", deck="table")
    s = position(s, "p2", [], mints=0)  # Justin cannot use anything: he passes
    old = list(s.supply)
    s = apply(s, G.codec.make("pass", player="p1"))
    assert s.step == "draw" and s.bottom == old  # both plans went to the bottom
    while s.step == "draw":
        s = apply(s, G.pseudo_legal_actions(s)[0])
    assert len(s.supply) == 2 and not set(s.supply) & set(old) and s.round == 2


def test_justin_closes_the_location_he_used_for_the_round():
    setup, s = start(1, opponent="justin")
    # Justin starts: he placed on the Producer, which is now closed to both players
    assert s.spaces["producer"][0] == ("p2", 1) and "producer" in s.closed
    assert any(o is None for o in s.spaces["producer"])
    with pytest.raises(Exception) as ei:
        G.apply(s, G.codec.make("place", player="p1", location="producer"))
    assert ei.value.rule == "place.closed"


def test_sonic_takes_two_turns_in_a_row():
    setup, s = start(1, opponent="sonic")
    s = apply(s, G.codec.make("pass", player="p1"))
    assert len(s.ai_turn) == 2 and s.ai_turn[0].startswith("Sonic places 1 mint on the Producer")


def test_mort_places_from_the_supply_and_never_buys_production():
    setup, s = start(1, opponent="mort")
    s = s.copy()
    s.deck += s.supply
    s.supply = []
    for pid in ("plant", "factory"):
        s.deck.remove(pid)
        s.supply.append(pid)
    for loc in ("producer", "leadership_council", "builder"):
        s.spaces[loc] = [("p1", 0)] * len(s.spaces[loc])
    assert AI.decide(G, s) is None  # only Production plans in the supply: Mort cannot use the Supplier
    s.supply[0] = "truck"
    s.deck.append("plant")
    s.deck.remove("truck")
    assert AI.decide(G, s) == ("supplier", {"plan": "truck"})


def test_rachaels_supplier_mints_leave_the_game_and_an_empty_supply_makes_her_win():
    setup, s = start(1, opponent="rachael")
    s = s.copy()
    s.spaces["supplier"][0] = ("p2", 4)
    s.mints["p2"] -= 4
    s = apply(s, G.codec.make("pass", player="p1"))
    while not s.over and s.round == 1:
        s = deal(s) if s.step == "draw" else apply(s, G.codec.make("pass", player="p1"))
    assert s.removed >= 4 and G.status(s) == []
    _, t = start(1, opponent="rachael")
    t = G.apply(t, G.codec.make("set_mints", player="p1", value=30 - t.issued + t.mints["p1"]))
    assert t.over and G.result(t)["winner"] == "p2" and G.result(t)["decided_by"] == "supply_empty"


def _only(s, *locs):
    """A copy of `s` where every location but `locs` is taken by p1's empty markers."""
    s = s.copy()
    for loc in s.line:
        if loc not in locs:
            s.spaces[loc] = [("p1", 0)] * len(s.spaces[loc])
    return s


def test_sonic_checks_for_plans_at_the_start_of_each_of_his_two_turns():
    # MW-R11: "uses the Supplier only if he has no Plans at the start of his turn"; each of his two
    # turns in a row is a turn of his: after building his only plan he buys in the second
    setup, s = start(1, opponent="sonic")
    s = _only(position(s, "p2", plans=(("windmill", False),), mints=10), "supplier", "builder")
    s = apply(s, G.codec.make("pass", player="p1"))
    assert s.ai_turn[0].startswith("Sonic places 2 mints on the Builder and builds the Windmill")
    assert "on the Supplier and buys" in s.ai_turn[1]
    assert len(s.plans["p2"]) == 2 and [b for _, b, _ in s.plans["p2"]] == [True, False]
    # and the other way round: with a plan still unbuilt at the start of a turn he does not buy
    _, t = start(1, opponent="sonic")
    t = _only(position(t, "p2", plans=(("windmill", False), ("statue", False)), mints=10), "supplier", "builder")
    t = apply(t, G.codec.make("pass", player="p1"))
    assert all("Supplier" not in x for x in t.ai_turn)


def _to_next_round(s):
    r = s.round
    while not s.over and s.round == r:
        s = deal(s) if s.step == "draw" else apply(s, G.codec.make("pass", player="p1"))
    return s


def test_morts_gallery_gets_its_upkeep_mint_and_his_co_op_gives_the_other_player_one():
    # MW-AI-M2 ignores Mort's own Upkeep income, not what a plan puts on a card or gives another player
    setup, s = start(1, opponent="mort")
    s = position(s, "p2", plans=(("gallery", True), ("co_op", True)))
    before = s.mints["p1"]
    s = _to_next_round(s)
    assert s.gallery["p2"] == 1 and G.plan_items(s, "p2")["Gallery"] == 1
    income = G.data.rules["income"]
    assert s.mints["p1"] == before + income + 1     # the Co-Op's Mint for the other player
    assert G.status(s) == []
