"""Scenario tests for every step of the CivMint round."""
import pytest

from companion.games.civmint import GAME, bonuses
from engine_helpers import P1_CAP, P2_CAP, act, at, bare, new_game, no_cp, put, rejects, res

# ---- setup --------------------------------------------------------------------------------------


def test_setup_matches_the_text():
    s = GAME.initial_state()
    assert s.step == "first_player" and GAME.actor(s) == "system"
    for seat, cap in (("p1", P1_CAP), ("p2", P2_CAP)):
        p = s.players[seat]
        assert p.res == {"food": 1, "wood": 1, "stone": 1, "metal": 1, "money": 1, "combat_power": 1}
        assert set(p.dev.values()) == {0} and set(p.asp.values()) == {1}
        b = bonuses(p)
        assert (b["research"], b["taxes"], b["event_bonus"]) == (2, 1, 0)
        settlers = [u for u in s.units.values() if u.owner == seat and u.kind == "settler"]
        assert len(settlers) == 2 and {u.space for u in settlers} == {cap}
        assert GAME.dice_count(s, seat) == 2
    assert len([sp for sp in s.board.spaces.values() if sp.capital]) == 2
    assert len(s.board.spaces) == 36  # four 3x3 cards in a 2x2 grid
    assert GAME.status(s) == []


@pytest.mark.parametrize("die, first", [(1, "p1"), (3, "p1"), (4, "p2"), (6, "p2")])
def test_first_player_is_a_chance_action(die, first):
    s = act(GAME.initial_state(), "roll_first_player", die=die)
    assert s.first == first and s.active == first


@pytest.mark.parametrize("setup, words", [
    ({"players": {"p1": {"colour": "red"}}}, "2-player"),
    ({"players": {"p1": {"colour": "red"}, "p2": {"colour": "red"}}}, "colours must differ"),
    ({"map": {"nw": "3A", "ne": "4A", "sw": "5A", "se": "6A"}}, "exactly two Capital"),
    ({"map": {"nw": "1A", "ne": "1B", "sw": "5A", "se": "2A"}}, "card twice"),
    ({"map": {"nw": "1A", "ne": "3A"}}, "positions"),
    ({"max_rounds": 0}, "max_rounds"),
    ({"house_rules": ["attackers_never_lose"]}, "unknown house rule"),
    ({"house_rules": "defenders_fight_every_battle"}, "list of house rule names"),
])
def test_bad_setups(setup, words):
    from companion.engine import SetupError
    with pytest.raises(SetupError) as ei:
        GAME.initial_state(GAME.default_setup(**setup))
    assert words in str(ei.value)


def test_default_game_follows_the_text():
    """No round limit and no house rule unless a table asks for one (REG-G2, REG-C2)."""
    s = GAME.initial_state()
    assert s.max_rounds is None and s.house == frozenset()
    s = GAME.initial_state(GAME.default_setup(house_rules=["defenders_fight_every_battle"], max_rounds=30))
    assert s.max_rounds == 30 and s.house == {"defenders_fight_every_battle"}


def test_every_capital_layout_is_playable():
    faces = GAME.data.maps["faces"]
    for a in ("1A", "1B"):
        for b in ("2A", "2B"):
            s = GAME.initial_state(GAME.default_setup(map={"nw": a, "ne": "3A", "sw": "5B", "se": b}))
            assert GAME.status(s) == []
    assert len(faces) == 12


# ---- production -------------------------------------------------------------------------------

def test_production_yields_per_unit_type():
    s = bare("trade")
    s.step = "production"
    put(s, "p1", "settler", "r0c0")          # F: 1 food
    put(s, "p1", "village", "r1c0")          # FW: 1 food 1 wood
    put(s, "p1", "city", "r2c0")             # M: 2 metal
    put(s, "p1", "infantry", "r0c1")         # military: nothing
    put(s, "p1", "ship", "r1c2")             # water, no resources; empty
    ship = put(s, "p1", "ship", "r2c2")      # ~F: 1 food if empty
    res(s, "p1", food=0, wood=0, stone=0, metal=0, money=0)
    s.t = {"repairs": 0}
    s2 = s.copy()
    GAME._produce(s2, "p1", {})
    r = s2.players["p1"].res
    # capital CFW doubles: 2 food 2 wood
    assert (r["food"], r["wood"], r["metal"]) == (1 + 1 + 1 + 2, 1 + 2, 2)
    # a ship carrying a unit collects nothing
    put(s, "p1", "infantry", "r2c2", carrier=ship)
    s3 = s.copy()
    GAME._produce(s3, "p1", {})
    assert s3.players["p1"].res["food"] == 4


def test_settler_picks_one_resource_and_bad_picks_rejected():
    s = new_game()  # two settlers on the FW capital: a choice each
    assert s.step == "production"
    ids = sorted(u.id for u in s.units.values() if u.owner == "p1" and u.kind == "settler")
    s2 = act(s, "produce", player="p1", picks={str(ids[0]): "wood", str(ids[1]): "wood"})
    r = s2.players["p1"].res
    assert (r["food"], r["wood"]) == (1 + 2, 1 + 2 + 2)
    rejects(s, "production.pick", "produce", player="p1", picks={str(ids[0]): "metal"})
    rejects(s, "production.pick", "produce", player="p1", picks={"99": "wood"})
    assert s2.step == "trade"


def test_resource_cap_is_10_and_excess_lost():
    s = bare("production")
    res(s, "p1", food=9, wood=10)
    s2 = s.copy()
    GAME._produce(s2, "p1", {})
    assert s2.players["p1"].res["food"] == 10 and s2.players["p1"].res["wood"] == 10


# ---- trade ------------------------------------------------------------------------------------

def test_trade_4_for_1_except_money_and_combat_power():
    s = bare("trade")
    res(s, "p1", food=5, money=8, combat_power=5)
    s2 = act(s, "trade", player="p1", give="food", get="metal")
    assert s2.players["p1"].res["food"] == 1 and s2.players["p1"].res["metal"] == 2
    rejects(s2, "trade.rate", "trade", player="p1", give="food", get="metal")
    rejects(s, "trade.resource", "trade", player="p1", give="money", get="metal")
    rejects(s, "trade.resource", "trade", player="p1", give="combat_power", get="metal")
    rejects(s, "trade.resource", "trade", player="p1", give="food", get="money")
    rejects(s, "trade.resource", "trade", player="p1", give="food", get="combat_power")
    rejects(s, "trade.opponent", "trade_opponent", player="p1", give={"food": 1}, get={"wood": 1})


def test_economic_developments_improve_trade():
    s = bare("trade")
    res(s, "p1", food=9)
    s.players["p1"].dev["economy"] = 1  # Markets: 3 for 1
    s2 = act(s, "trade", player="p1", give="food", get="wood")
    assert s2.players["p1"].res["food"] == 6
    rejects(s, "trade.resource", "trade", player="p1", give="food", get="money")
    s.players["p1"].dev["economy"] = 2  # Currency: trade for Money
    s3 = act(s, "trade", player="p1", give="food", get="money")
    assert s3.players["p1"].res["money"] == 2
    s.players["p1"].dev["economy"] = 4  # Trade Routes (3) + Banking (4): opponent trade, 2 for 1
    assert bonuses(s.players["p1"])["trade_rate"] == 2
    res(s, "p2", metal=3)
    s4 = act(s, "trade_opponent", player="p1", give={"food": 2}, get={"metal": 3})  # an offer
    assert GAME.actor(s4) == "p2" and s4.players["p1"].res["food"] == 9
    rejects(s4, "flow.actor", "trade", player="p1", give="food", get="wood")
    s5 = act(s4, "accept_trade", player="p2")
    assert s5.players["p2"].res["food"] == 3 and s5.players["p1"].res["metal"] == 4
    assert GAME.actor(s5) == "p1"
    s6 = act(s4, "decline_trade", player="p2")
    assert s6.players["p1"].res == s.players["p1"].res and GAME.actor(s6) == "p1"
    rejects(s, "trade.opponent", "trade_opponent", player="p1", give={"food": 2}, get={"metal": 4})


# ---- upkeep -----------------------------------------------------------------------------------

def test_upkeep_paid_with_money_standing_in():
    s = bare("upkeep", upkeep_paid=False)
    put(s, "p1", "city", "r0c0")      # 2 food + 1 wood
    put(s, "p1", "infantry", "r0c1")  # 1 food
    res(s, "p1", food=1, wood=0, money=3)
    assert GAME.upkeep(s, "p1") == {"food": 3, "wood": 1}
    rejects(s, "upkeep.must_pay", "end_step", player="p1")
    s2 = act(s, "pay_upkeep", player="p1")
    assert s2.players["p1"].res["food"] == 0 and s2.players["p1"].res["money"] == 0
    s3 = act(s2, "end_step", player="p1")
    assert s3.step == "build"


def test_unaffordable_upkeep_forces_downgrades_with_refund_and_track_change():
    s = bare("upkeep", upkeep_paid=False)
    c = put(s, "p1", "city", "r0c0")
    s.players["p1"].asp["population_size"] = 3
    res(s, "p1", food=0, wood=0, money=0)
    rejects(s, "upkeep.unaffordable", "pay_upkeep", player="p1")
    s = act(s, "downgrade", player="p1", unit=c)  # city -> village: 2 Money, -1 population
    assert s.units[c].kind == "village" and s.players["p1"].res["money"] == 2
    assert s.players["p1"].asp["population_size"] == 2
    s = act(s, "pay_upkeep", player="p1")  # village upkeep 1 food paid by 1 Money
    assert s.players["p1"].res["money"] == 1
    rejects(s, "upkeep.paid", "pay_upkeep", player="p1")
    rejects(s, "upkeep.downgrade", "downgrade", player="p1", unit=c)


def test_capital_never_downgraded_or_disbanded():
    s = bare("upkeep", upkeep_paid=False)
    rejects(s, "unit.capital", "downgrade", player="p1", unit=1)
    rejects(s, "unit.capital", "disband", player="p1", unit=1)


def test_repair_cost_grows_per_cube_and_resets_per_step():
    s = bare("upkeep", upkeep_paid=True)
    u = put(s, "p1", "city", "r0c0", damage=2)
    v = put(s, "p1", "village", "r0c1", damage=1)
    res(s, "p1", money=10)
    s = act(s, "repair", player="p1", unit=u)
    s = act(s, "repair", player="p1", unit=u)
    s = act(s, "repair", player="p1", unit=v)
    assert s.players["p1"].res["money"] == 10 - 2 - 3 - 4
    rejects(s, "repair.undamaged", "repair", player="p1", unit=v)
    s.units[v] = s.units[v]._replace(damage=1)
    rejects(s, "repair.cost", "repair", player="p1", unit=v)
    s2 = bare("upkeep", upkeep_paid=False)
    w = put(s2, "p1", "village", "r0c1", damage=1)
    rejects(s2, "upkeep.must_pay", "repair", player="p1", unit=w)


def test_disband_settler_for_money():
    s = bare("upkeep", upkeep_paid=False)
    st = put(s, "p1", "settler", "r0c0")
    inf = put(s, "p1", "infantry", "r0c0")
    s2 = act(s, "disband", player="p1", unit=st)
    assert st not in s2.units and s2.players["p1"].res["money"] == 2
    rejects(s, "upkeep.disband", "disband", player="p1", unit=inf)
    rejects(s, "unit.owner", "disband", player="p1", unit=2)
    rejects(s, "unit.unknown", "disband", player="p1", unit=999)


# ---- build ------------------------------------------------------------------------------------

def test_build_settler_and_infantry_where_allowed():
    s = bare("build")
    res(s, "p1", food=10, wood=10, stone=10, metal=10, money=10)
    s2 = act(s, "build", player="p1", kind="settler", space=P1_CAP)
    assert s2.players["p1"].res["food"] == 9 and s2.players["p1"].res["wood"] == 9
    rejects(s, "build.where", "build", player="p1", kind="settler", space="r0c0")
    s3 = act(s, "build", player="p1", kind="infantry", space=P1_CAP)  # direct: +1 Money
    assert s3.players["p1"].res["money"] == 9 and s3.players["p1"].asp["military_might"] == 2
    inf = [u for u in s3.units.values() if u.kind == "infantry"][0]
    s3.units[inf.id] = inf._replace(space="r0c0")
    s4 = act(s3, "build", player="p1", kind="infantry", space="r0c0")  # where Infantry is
    assert GAME.dice_count(s4, "p1") == 2
    rejects(s, "build.kind", "build", player="p1", kind="city", space=P1_CAP)
    rejects(s, "build.where", "build", player="p1", kind="settler", space="r1c2")  # water
    rejects(s, "build.where", "build", player="p1", kind="settler", space=P2_CAP)


def test_upgrade_chain_costs_tracks_and_rules():
    s = bare("build")
    res(s, "p1", food=10, wood=10, stone=10, metal=10, money=0)
    st = put(s, "p1", "settler", "r0c0")
    s = act(s, "upgrade", player="p1", unit=st, to="village")
    assert s.players["p1"].asp["population_size"] == 2 and s.players["p1"].res["stone"] == 9
    s = act(s, "upgrade", player="p1", unit=st, to="city")
    assert s.units[st].kind == "city" and s.players["p1"].asp["population_size"] == 3
    rejects(s, "build.upgrade", "upgrade", player="p1", unit=st, to="cavalry")
    st2 = put(s, "p1", "settler", "r0c0")
    rejects(s, "build.one_settlement", "upgrade", player="p1", unit=st2, to="village")
    s = act(s, "upgrade", player="p1", unit=st2, to="infantry")
    s = act(s, "upgrade", player="p1", unit=st2, to="artillery")
    assert s.players["p1"].asp["military_might"] == 3
    dmg = put(s, "p1", "infantry", "r0c1", damage=1)
    rejects(s, "build.damaged", "upgrade", player="p1", unit=dmg, to="cavalry")
    poor = bare("build")
    res(poor, "p1", food=0, wood=0, stone=0, metal=0, money=1)
    p = put(poor, "p1", "settler", "r0c0")
    rejects(poor, "build.cost", "upgrade", player="p1", unit=p, to="village")


def test_eight_dice_limit():
    s = bare("build")
    res(s, "p1", food=10, wood=10, money=10)
    for _ in range(7):
        put(s, "p1", "settler", P1_CAP)
    s = act(s, "build", player="p1", kind="settler", space=P1_CAP)
    assert GAME.dice_count(s, "p1") == 8
    rejects(s, "unit.dice_limit", "build", player="p1", kind="settler", space=P1_CAP)


def test_ship_built_from_settler_on_adjacent_water_and_cannot_move_that_turn():
    s = bare("build")
    res(s, "p1", food=5, wood=5)
    st = put(s, "p1", "settler", "r1c1")
    rejects(s, "build.ship_water", "upgrade", player="p1", unit=st, to="ship", space="r0c1")
    rejects(s, "build.ship_water", "upgrade", player="p1", unit=st, to="ship")
    s = act(s, "upgrade", player="p1", unit=st, to="ship", space="r1c2")
    assert s.units[st].space == "r1c2" and s.units[st].kind == "ship"
    s.step = "move"
    rejects(s, "move.ship_new", "move", player="p1", unit=st, to="r2c2")


# ---- movement ---------------------------------------------------------------------------------

def test_movement_ranges():
    s = bare("move")
    inf = put(s, "p1", "infantry", "r0c0")
    cav = put(s, "p1", "cavalry", "r0c0")
    vil = put(s, "p1", "village", "r0c1")
    assert set(GAME.reachable(s, s.units[inf])) == {"r0c1", "r1c0"}
    assert "r0c2" in GAME.reachable(s, s.units[cav]) and "r2c0" in GAME.reachable(s, s.units[cav])
    rejects(s, "move.range", "move", player="p1", unit=inf, to="r0c2")
    rejects(s, "move.immobile", "move", player="p1", unit=vil, to="r0c0")
    s = act(s, "move", player="p1", unit=inf, to="r0c1")
    rejects(s, "move.once", "move", player="p1", unit=inf, to="r0c0")


def test_movement_stops_on_entering_enemy_space():
    s = bare("move")
    cav = put(s, "p1", "cavalry", "r0c0")
    put(s, "p2", "settler", "r0c1")
    reach = GAME.reachable(s, s.units[cav])
    assert "r0c1" in reach and "r0c2" not in reach


def test_ships_on_water_carry_and_astronomy():
    s = bare("move")
    ship = put(s, "p1", "ship", "r1c2")
    a = put(s, "p1", "infantry", "r0c2")
    b = put(s, "p1", "infantry", "r0c2")
    assert set(GAME.reachable(s, s.units[ship])) == {"r2c2"}
    rejects(s, "move.ship_water", "move", player="p1", unit=ship, to="r1c1")
    s = act(s, "move", player="p1", unit=a, to="r1c2")  # embark
    assert s.units[a].carrier == ship
    assert "r1c2" not in GAME.reachable(s, s.units[b])  # full: capacity 1 without Shipbuilding
    rejects(s, "move.range", "move", player="p1", unit=b, to="r1c2")
    s.players["p1"].dev["technology"] = 2  # Shipbuilding: carry 3
    assert "r1c2" in GAME.reachable(s, s.units[b])
    s = act(s, "move", player="p1", unit=b, to="r1c2")
    assert s.units[b].carrier == ship
    s = act(s, "move", player="p1", unit=ship, to="r2c2")
    assert s.units[b].space == "r2c2"
    assert s.units[a].space == "r2c2"  # carried units move with the ship
    s.players["p1"].dev["technology"] = 3  # Astronomy: ships move 2
    assert bonuses(s.players["p1"])["ship_move"] == 2 and bonuses(s.players["p1"])["ship_carry"] == 3
    ship2 = put(s, "p1", "ship", "r4c0")
    assert set(GAME.reachable(s, s.units[ship2])) == {"r4c1"}  # r4c1 then r4c2 is land; r5c0 land
    s.units[a] = s.units[a]._replace(moved=False)
    s = act(s, "move", player="p1", unit=a, to="r2c1")  # disembark
    assert s.units[a].carrier == 0


# ---- combat -----------------------------------------------------------------------------------

def _battle(step_state, att, target):
    return act(step_state, "attack", player="p1", unit=att, target=target)


def test_combat_defender_choice_cp_alternation_and_elimination():
    s = bare("combat")
    a = put(s, "p1", "infantry", "r2c2")
    put(s, "p1", "infantry", "r2c2")
    put(s, "p2", "infantry", "r2c2")
    d2 = put(s, "p2", "settler", "r2c2")
    res(s, "p1", combat_power=3)
    res(s, "p2", combat_power=2)
    rejects(s, "combat.must_engage", "end_step", player="p1")
    s = _battle(s, a, "r2c2")
    assert GAME.actor(s) == "p2" and s.combat["stage"] == "defend"
    rejects(s, "unit.owner", "defend", player="p2", unit=a)
    s = act(s, "defend", player="p2", unit=d2)
    assert GAME.actor(s) == "system"
    s = act(s, "roll_combat", attacker=1, defender=4)  # 1+1=2 vs 4: attacker rolled lower, spends first
    assert GAME.actor(s) == "p1"
    rejects(s, "combat.cp_short", "spend_combat_power", player="p1", amount=4)
    s = act(s, "spend_combat_power", player="p1", amount=2)  # 4 vs 4
    assert GAME.actor(s) == "p2"
    s = act(s, "spend_combat_power", player="p2", amount=1)  # 4 vs 5
    s = act(s, "spend_combat_power", player="p1", amount=1)  # 5 vs 5: p2 has 1 left
    s = act(s, "spend_combat_power", player="p2", amount=0)  # pass: attacker wins the tie
    assert s.players["p1"].res["combat_power"] == 0 and s.players["p2"].res["combat_power"] == 1
    assert d2 not in s.units  # settler strength 1: eliminated
    assert s.players["p2"].asp["population_size"] == 1  # -1 clamped at level 1
    assert s.units[a].fought
    rejects(s, "combat.once", "attack", player="p1", unit=a, target="r2c2")


def test_settlement_destroyed_gives_money_and_costs_happiness():
    s = bare("combat")
    a = put(s, "p1", "artillery", "r0c0")
    v = put(s, "p2", "village", "r0c1", damage=1)
    s.players["p2"].asp["civilian_happiness"] = 3
    s.players["p2"].asp["population_size"] = 3
    no_cp(s)
    res(s, "p1", money=0)
    s = _battle(s, a, "r0c1")  # ranged: artillery R1 bonus 1
    s = act(s, "roll_combat", attacker=3, defender=4)  # 4 vs 4: tie to attacker
    assert v not in s.units
    assert s.players["p1"].res["money"] == 1
    assert s.players["p2"].asp["civilian_happiness"] == 2 and s.players["p2"].asp["population_size"] == 2


def test_city_defence_bonus_and_defender_win():
    s = bare("combat")
    a = put(s, "p1", "infantry", "r0c1")
    c = put(s, "p2", "city", "r0c1")
    no_cp(s)
    s = _battle(s, a, "r0c1")
    s = act(s, "roll_combat", attacker=4, defender=4)  # 5 vs 5 (city +1): tie, attacker wins
    assert s.units[c].damage == 1
    # attackers on a city space retreat after combat; damage stays on the city
    assert s.units[a].space != "r0c1" and s.units[c].damage == 1


def test_units_sharing_a_space_must_target_it_and_contested_first():
    s = bare("combat")
    art = put(s, "p1", "artillery", "r2c1")
    put(s, "p2", "infantry", "r2c1")
    put(s, "p2", "infantry", "r3c1")
    other_inf = put(s, "p1", "infantry", "r3c0")
    rejects(s, "combat.target_shared", "attack", player="p1", unit=art, target="r3c1")
    rejects(s, "combat.contested_first", "attack", player="p1", unit=other_inf, target="r3c1")
    s2 = _battle(s, art, "r2c1")
    assert s2.combat["target"] == "r2c1"


def test_retreat_order_alternates_starting_with_attacker():
    s = bare("combat")
    a1 = put(s, "p1", "settler", "r2c0")
    a2 = put(s, "p1", "settler", "r2c0", damage=0)
    d1 = put(s, "p2", "settler", "r2c0")
    put(s, "p1", "settler", "r1c0")  # friendly space next door
    s2 = s.copy()
    GAME._continue_combat(s2)  # nobody can attack: straight to retreats
    # attacker retreats first (a1, to its only friendly space), then the defender d1 chooses
    assert s2.units[a1].space == "r1c0" and s2.units[a2].space == "r2c0"
    assert GAME.actor(s2) == "p2" and s2.combat["stage"] == "retreat" and s2.combat["unit"] == d1
    assert sorted(s2.combat["options"]) == ["r2c1", "r3c0"]  # no friendly space: unoccupied ones
    rejects(s2, "combat.retreat", "retreat", player="p2", unit=d1, to="r1c0")
    rejects(s2, "flow.actor", "retreat", player="p1", unit=a2, to="r1c0")
    s3 = act(s2, "retreat", player="p2", unit=d1, to="r3c0")
    assert s3.units[d1].space == "r3c0" and s3.units[a2].space == "r2c0"
    assert GAME.contested_spaces(s3) == [] and s3.combat is None


def test_retreat_without_space_disbands_for_money():
    s = bare("combat")
    # r4c0 is water surrounded by r3c0 (land), r5c0 (land), r4c1 (water)
    a = put(s, "p1", "settler", "r0c0")
    for sp in ("r0c1", "r1c0"):
        put(s, "p2", "infantry", sp)
    put(s, "p2", "settler", "r0c0")
    res(s, "p1", money=0)
    s2 = s.copy()
    GAME._continue_combat(s2)
    assert a not in s2.units and s2.players["p1"].res["money"] == 1


def test_ship_eliminated_cargo_disembarks_or_sinks():
    s = bare("combat")
    art = put(s, "p1", "artillery", "r2c1")
    ship = put(s, "p2", "ship", "r2c2", damage=1)
    cargo = put(s, "p2", "infantry", "r2c2", carrier=ship)
    no_cp(s)
    assert [u.id for u in GAME.defenders(s, "r2c2", "p1")] == [ship]  # the cargo cannot defend
    s = _battle(s, art, "r2c2")  # only the ship can defend
    assert s.combat["def"] == ship
    s = act(s, "roll_combat", attacker=6, defender=1)
    assert ship not in s.units
    # the surviving cargo may disembark to an adjacent unoccupied or friendly space: p2 chooses
    assert GAME.actor(s) == "p2" and s.combat["kind"] == "disembark"
    assert sorted(s.combat["options"]) == ["r2c3", "r3c2"]  # r2c1 holds the enemy, r1c2 is water
    assert GAME.status(s) == []
    rejects(s, "combat.retreat", "retreat", player="p2", unit=cargo, to="r2c1")
    s = act(s, "retreat", player="p2", unit=cargo, to="r2c3")
    assert s.units[cargo].space == "r2c3" and s.units[cargo].carrier == 0
    assert s.combat is None and GAME.actor(s) == "p1"


def test_ship_iron_working_attack_bonus():
    s = bare("combat")
    ship = put(s, "p1", "ship", "r1c2")
    assert GAME.attack_bonus(s, s.units[ship], "r0c2") == 0
    s.players["p1"].dev["technology"] = 4
    assert GAME.attack_bonus(s, s.units[ship], "r0c2") == 1
    inf = put(s, "p1", "infantry", "r0c2")
    assert GAME.attack_bonus(s, s.units[inf], "r0c1") is None


def test_capital_conquest_ends_the_game_after_the_round():
    s = bare("research")
    s.units[2] = s.units[2]._replace(owner="p1")
    assert GAME.end_conditions(s) == ["p1:holds_capital_of_p2"]
    s = at(s, "taxation", active="p2")
    s = act(s, "end_step", player="p2")
    assert s.over and s.step == "game_over"
    assert GAME.legal_actions(s) == []
    rejects(s, "game.over", "end_step", player="p1")


# ---- development -----------------------------------------------------------------------------

def test_research_budget_and_track_benefits():
    s = at(new_game(), "research", research_left=5)
    s = act(s, "research", player="p1", track="technology")  # Bronze Working, 2
    assert s.t["research_left"] == 3 and s.players["p1"].res["combat_power"] == 2
    s = act(s, "research", player="p1", track="culture")     # Writing, 2
    rejects(s, "research.cost", "research", player="p1", track="culture")
    assert bonuses(s.players["p1"])["research"] == 4
    rejects(s, "research.track", "research", player="p1", track="magic")
    s.players["p1"].dev["culture"] = 7
    s.t["research_left"] = 99
    rejects(s, "research.top", "research", player="p1", track="culture")


def test_development_research_step_sets_budget_on_entry():
    s = at(new_game(), "combat")
    s = act(s, "end_step", player="p1")
    assert s.step == "research" and s.t["research_left"] == 2


def test_taxation_collects_and_one_aspect_step():
    s = at(new_game(), "research")
    res(s, "p1", money=2)
    s = act(s, "end_step", player="p1")
    assert s.step == "taxation" and s.players["p1"].res["money"] == 3  # taxes 1
    s = act(s, "improve_aspect", player="p1", track="civilian_happiness")  # to level 2: 2 Money
    assert s.players["p1"].res["money"] == 1 and s.players["p1"].asp["civilian_happiness"] == 2
    assert bonuses(s.players["p1"])["event_bonus"] == 1
    rejects(s, "taxation.one_aspect", "improve_aspect", player="p1", track="economic_strength")
    s2 = at(new_game(), "taxation")
    res(s2, "p1", money=1)
    rejects(s2, "taxation.money", "improve_aspect", player="p1", track="economic_strength")


def test_second_player_turn_follows_and_game_end_check_then_events():
    s = at(new_game(), "taxation")
    s = act(s, "end_step", player="p1")
    assert s.active == "p2" and s.step in ("production", "trade")
    s = at(s, "taxation", active="p2")
    s = act(s, "end_step", player="p2")
    assert s.step == "event_roll" and GAME.actor(s) == "system"


# ---- game end -------------------------------------------------------------------------------

def test_game_end_conditions():
    s = bare("research")
    assert GAME.end_conditions(s) == []
    for t in ("government", "economy"):
        s.players["p1"].dev[t] = 7
    assert GAME.end_conditions(s) == []
    s.players["p1"].dev["culture"] = 7
    assert GAME.end_conditions(s) == ["p1:top_development"]
    s = bare("research")
    for t in ("population_size", "military_might", "civilian_happiness"):
        s.players["p2"].asp[t] = 6
    assert GAME.end_conditions(s) == ["p2:top_aspects"]
    s = bare("research")
    for i in range(6):
        put(s, "p1", "city", f"r5c{i}")
    assert GAME.end_conditions(s) == ["p1:six_cities"]


# ---- global events ------------------------------------------------------------------------------

def _events_state(p1_event, p2_event=7):
    s = bare("event_choice")
    s.pending = (("p1", p1_event), ("p2", p2_event))
    return s


def test_event_roll_adds_each_players_bonus_and_clamps():
    s = at(new_game(), "event_roll")
    s.players["p1"].asp["civilian_happiness"] = 6  # +3
    s.players["p2"].asp["military_might"] = 4      # -1
    s2 = act(s, "roll_event", dice=[6, 6])
    assert s2.events == {"p1": 12, "p2": 11}
    s3 = act(s, "roll_event", dice=[1, 1])
    assert s3.events == {"p1": 5, "p2": 1}


def test_event_1_barbarians_keep_two_settlements():
    s = _events_state(1)
    ids = [put(s, "p1", k, f"r5c{i}") for i, k in enumerate(["village", "city", "village", "city"])]
    s.players["p1"].asp["population_size"] = 6
    opts = GAME.event_options(s, "p1", 1)
    assert all(len(o["units"]) == 2 for o in opts)
    rejects(s, "event.1", "event_downgrade", player="p1", units=[ids[0]])
    rejects(s, "event.1", "event_lose", player="p1", units=[ids[0]])
    s2 = act(s, "event_downgrade", player="p1", units=[ids[1], ids[3]])
    assert s2.units[ids[1]].kind == "settler" and s2.units[ids[3]].kind == "settler"
    assert s2.players["p1"].asp["population_size"] == 2 and s2.players["p1"].res["money"] == 1  # no refund


def test_event_2_civil_revolt_uses_supported_count():
    s = _events_state(2)
    ids = [put(s, "p1", "village", f"r5c{i}") for i in range(4)]
    assert bonuses(s.players["p1"])["supported"] == 2
    s2 = act(s, "event_downgrade", player="p1", units=ids[:2])
    assert sum(u.kind == "village" for u in s2.units.values()) == 2
    s.players["p1"].dev["government"] = 2  # supports 4
    s3 = s.copy()
    GAME._auto_events(s3)
    assert sum(u.kind == "village" for u in s3.units.values()) == 4


def test_event_5_earthquake_6_locusts_8_harvest():
    s = _events_state(5, 6)
    inf = put(s, "p1", "infantry", "r0c0")
    put(s, "p1", "settler", "r0c0")
    res(s, "p2", food=0)
    s.players["p1"].asp["military_might"] = 2
    s2 = s.copy()
    GAME._auto_events(s2)  # a single military unit: forced choice
    assert inf not in s2.units and s2.players["p1"].asp["military_might"] == 1
    assert s2.players["p2"].res["food"] == 0  # locusts never below 0
    s = _events_state(8)
    put(s, "p1", "settler", "r0c0")
    put(s, "p1", "settler", "r0c0")
    res(s, "p1", food=1)
    GAME._auto_events(s)
    assert s.players["p1"].res["food"] == 3


def test_event_9_gather_two_locations():
    s = _events_state(9)
    put(s, "p1", "settler", "r0c4")  # FS
    put(s, "p1", "settler", "r2c0")  # M
    res(s, "p1", food=0, stone=0, metal=0, wood=0)
    rejects(s, "event.9", "event_gather", player="p1", spaces=["r0c4"])
    rejects(s, "event.9", "event_gather", player="p1", spaces=["r0c4", "r5c5"])
    s2 = act(s, "event_gather", player="p1", spaces=["r0c4", "r2c0"])
    r = s2.players["p1"].res
    assert (r["food"], r["stone"], r["metal"]) == (1, 1, 1)


def test_event_10_population_explosion_settler_or_upgrade():
    s = _events_state(10)
    st = put(s, "p1", "settler", "r0c0")
    opts = GAME.event_options(s, "p1", 10)
    assert {o.type for o in opts} == {"event_settler", "event_upgrade"}
    s2 = act(s, "event_upgrade", player="p1", unit=st, to="infantry")
    assert s2.units[st].kind == "infantry" and s2.players["p1"].asp["military_might"] == 2
    s3 = act(s, "event_settler", player="p1", space=P1_CAP)
    assert GAME.dice_count(s3, "p1") == 2


def test_event_11_festival_and_12_innovation():
    s = _events_state(11)
    s2 = act(s, "event_track", player="p1", track="economic_strength")
    assert s2.players["p1"].asp["economic_strength"] == 2
    s = _events_state(12)
    for t in ("government", "economy", "culture"):
        s.players["p1"].dev[t] = 3
    s2 = s.copy()
    GAME._auto_events(s2)  # technology is the single lowest: forced
    assert s2.players["p1"].dev["technology"] == 1
    s.players["p1"].dev["technology"] = 3
    rejects(s, "event.12", "event_track", player="p1", track="population_size")
    s3 = act(s, "event_track", player="p1", track="culture")
    assert s3.players["p1"].dev["culture"] == 4


# ---- round end ----------------------------------------------------------------------------------

def test_round_end_damage_removal_resupply_and_first_player_passes():
    s = at(new_game(), "event_choice")
    s.units = {k: u for k, u in s.units.items() if u.kind == "capital"}
    c = put(s, "p1", "city", "r0c0", damage=2)
    put(s, "p1", "settler", "r0c0")
    res(s, "p1", combat_power=0)
    s.players["p1"].asp["military_might"] = 3
    s.round = 4
    s.pending = ()
    s2 = s.copy()
    GAME._advance(s2)  # event_choice -> remove_damage
    assert s2.step == "remove_damage" and GAME.actor(s2) == "p1"
    rejects(s2, "round.repair_allowance", "round_repair", player="p1", units=[c, c, c])
    rejects(s2, "repair.undamaged", "round_repair", player="p1", units=[1])
    s3 = act(s2, "round_repair", player="p1", units=[c, c])  # 1 + 1 settler
    assert s3.units[c].damage == 0
    assert s3.players["p1"].res["combat_power"] == 3  # resupplied to Military Might level
    assert s3.first == "p2" and s3.round == 5 and s3.active == "p2"


# ---- more combat ------------------------------------------------------------------------------

def test_one_contested_space_at_a_time_and_battle_in_progress():
    s = bare("combat")
    a = put(s, "p1", "infantry", "r2c0")
    b = put(s, "p1", "infantry", "r2c0")
    c = put(s, "p1", "infantry", "r0c0")
    put(s, "p2", "infantry", "r2c0")
    put(s, "p2", "infantry", "r2c0")
    put(s, "p2", "settler", "r0c0")
    no_cp(s)
    res(s, "p1", combat_power=1)
    s = act(s, "attack", player="p1", unit=a, target="r2c0")
    rejects(s, "flow.actor", "attack", player="p1", unit=b, target="r2c0")  # p2 chooses a defender
    s = act(s, "defend", player="p2", unit=[u.id for u in s.units.values() if u.owner == "p2" and u.kind == "infantry"][0])
    s = act(s, "roll_combat", attacker=1, defender=6)  # p1 rolled lower: p1 may spend first
    rejects(s, "combat.in_progress", "attack", player="p1", unit=b, target="r2c0")
    rejects(s, "combat.in_progress", "end_step", player="p1")
    s = act(s, "spend_combat_power", player="p1", amount=0)  # pass: defender wins, a damaged
    assert s.units[a].damage == 1
    rejects(s, "combat.one_space", "attack", player="p1", unit=c, target="r0c0")
    rejects(s, "flow.actor", "roll_combat", attacker=1, defender=1)
    rejects(s, "combat.stage", "defend", player="p1", unit=a)


def test_ranged_attacks_are_optional_and_need_a_defender():
    s = bare("combat")
    art = put(s, "p1", "artillery", "r0c0")
    rejects(s, "combat.no_defender", "attack", player="p1", unit=art, target="r0c1")
    put(s, "p2", "infantry", "r0c1")
    assert any(a.type == "attack" for a in GAME.legal_actions(s))
    s2 = act(s, "end_step", player="p1")  # the attacker may choose not to attack
    assert s2.step == "research"
    far = put(s, "p1", "artillery", "r3c3")
    rejects(s, "combat.range", "attack", player="p1", unit=far, target="r0c1")


def test_undamaged_unit_retreats_onto_a_friendly_ship_damaged_one_transfers_damage():
    s = bare("combat")
    ship = put(s, "p1", "ship", "r1c2")
    s.players["p1"].dev["technology"] = 2  # carry 3
    hurt = put(s, "p1", "infantry", "r0c2", damage=1)
    put(s, "p2", "settler", "r0c2")
    put(s, "p2", "settler", "r0c2")
    put(s, "p2", "infantry", "r0c1")  # r0c1 is enemy: no friendly land
    put(s, "p2", "infantry", "r0c3")
    # hurt has no attack target choice: it must attack (mandatory); make it have fought already
    s.units[hurt] = s.units[hurt]._replace(fought=True)
    s2 = s.copy()
    GAME._continue_combat(s2)
    assert s2.units[hurt].carrier == ship and s2.units[hurt].damage == 0
    assert s2.units[ship].damage == 1


def test_ship_sunk_with_no_landing_sinks_its_cargo_without_money():
    s = bare("combat")
    # r4c1 water; neighbours r3c1 (land), r5c1 (land), r4c0 (water), r4c2 (land)
    ship = put(s, "p2", "ship", "r4c1", damage=1)
    cargo = put(s, "p2", "infantry", "r4c1", carrier=ship)
    for sp in ("r3c1", "r5c1", "r4c2"):
        put(s, "p1", "infantry", sp)
    art = put(s, "p1", "artillery", "r3c1")
    s.players["p2"].asp["military_might"] = 3
    no_cp(s)
    money = s.players["p2"].res["money"]
    s = act(s, "attack", player="p1", unit=art, target="r4c1")
    s = act(s, "roll_combat", attacker=5, defender=2)
    assert ship not in s.units and cargo not in s.units
    assert s.players["p2"].res["money"] == money
    assert s.players["p2"].asp["military_might"] == 2 and s.players["p2"].asp["population_size"] == 1


def test_capital_can_be_retaken_by_its_owner():
    s = bare("combat", active="p2")
    s.units[2] = s.units[2]._replace(owner="p1", damage=3)  # p1 holds p2's capital
    a = put(s, "p2", "infantry", "r4c4")
    no_cp(s)
    s = act(s, "attack", player="p2", unit=a, target="r4c4")
    s = act(s, "roll_combat", attacker=6, defender=1)
    assert s.units[2].owner == "p2" and s.units[2].damage == 0
    assert GAME.end_conditions(s) == []


# ---- status(): impossible positions are explained --------------------------------------------

@pytest.mark.parametrize("spoil, words", [
    (lambda s: s.players["p1"].res.__setitem__("food", -1), "food = -1"),
    (lambda s: s.players["p2"].res.__setitem__("money", 11), "money = 11"),
    (lambda s: s.players["p1"].asp.__setitem__("military_might", 7), "outside 1..6"),
    (lambda s: s.players["p1"].dev.__setitem__("culture", 8), "outside the track"),
    (lambda s: [put(s, "p1", "settler", P1_CAP) for _ in range(9)], "unit dice in play"),
    (lambda s: s.units.__setitem__(1, s.units[1]._replace(space="r0c0")), "capitals missing or moved"),
    (lambda s: put(s, "p1", "ship", "r0c0"), "on land"),
    (lambda s: put(s, "p1", "infantry", "r1c2"), "in water without a Ship"),
    (lambda s: put(s, "p1", "village", "r0c0", damage=2), "damage"),
    (lambda s: [put(s, "p1", "village", "r0c0"), put(s, "p1", "city", "r0c0")], "holds 2 settlements"),
    (lambda s: [put(s, "p2", "settler", "r0c0"), put(s, "p1", "settler", "r0c0")], "contested spaces outside combat"),
])
def test_status_explains_impossible_positions(spoil, words):
    s = bare("research")
    assert GAME.status(s) == []
    spoil(s)
    assert any(words in p for p in GAME.status(s)), GAME.status(s)


def test_status_ship_over_capacity():
    s = bare("research")
    ship = put(s, "p1", "ship", "r1c2")
    put(s, "p1", "infantry", "r1c2", carrier=ship)
    assert GAME.status(s) == []
    put(s, "p1", "infantry", "r1c2", carrier=ship)
    assert any("carries 2 units" in p for p in GAME.status(s))


# ---- second player's early start (REG-D2) --------------------------------------------------------

def _to_p1_research():
    s = new_game()  # p1 first, in production
    s = act(s, "produce", player="p1")
    for _ in range(5):  # trade, upkeep, build, move, combat
        if s.step == "upkeep" and not s.t.get("upkeep_paid"):
            s = act(s, "pay_upkeep", player="p1")
        s = act(s, "end_step", player="p1")
    assert s.step == "research" and s.active == "p1"
    return s


def test_second_player_may_play_up_to_action_during_development():
    s = _to_p1_research()
    early = GAME.early_actions(s)
    assert early and all(a["player"] == "p2" for a in early) and {a.type for a in early} == {"produce"}
    assert GAME.legal_actions_for(s, "p2") == early
    assert GAME.legal_actions_for(s, "p1") == GAME.legal_actions(s)
    s = act(s, "produce", player="p2")                     # p2's production while p1 researches
    assert s.early == "trade" and s.step == "research" and GAME.actor(s) == "p1"
    s = act(s, "research", player="p1", track="culture")  # p1 carries on
    rejects(s, "flow.step", "move", player="p2", unit=7, to="r3c4")
    s = act(s, "end_step", player="p2")                   # p2 ends trade
    s = act(s, "end_step", player="p2")                   # upkeep (nothing to pay)
    s = act(s, "build", player="p2", kind="settler", space=P2_CAP)
    s = act(s, "end_step", player="p2")                   # p2 ends build: waits at Move
    assert s.early == "move"
    rejects(s, "flow.early", "end_step", player="p2")
    assert GAME.early_actions(s) == []
    s = act(s, "end_step", player="p1")                   # p1 research -> taxation
    s = act(s, "end_step", player="p1")                   # p1 ends taxation: p2's turn resumes at Move
    assert s.active == "p2" and s.step == "move" and s.early is None
    assert GAME.dice_count(s, "p2") == 3


def test_early_start_can_be_switched_off():
    s = GAME.initial_state(GAME.default_setup(second_player_early_start=False))
    s = act(s, "roll_first_player", die=1)
    s = at(s, "research")
    assert GAME.early_actions(s) == []
    rejects(s, "flow.step", "produce", player="p2")
    rejects(s, "flow.actor", "end_step", player="p2")


def test_ship_downgrade_lands_a_settler_and_needs_an_empty_ship():
    s = bare("upkeep", upkeep_paid=False)
    ship = put(s, "p1", "ship", "r1c2")
    s2 = act(s, "downgrade", player="p1", unit=ship)
    assert s2.units[ship].kind == "settler" and s2.units[ship].space in s2.board.land
    assert s2.players["p1"].res["money"] == 2
    put(s, "p1", "infantry", "r1c2", carrier=ship)
    rejects(s, "upkeep.downgrade", "downgrade", player="p1", unit=ship)


def test_a_player_action_while_dice_are_awaited_is_rejected():
    s = GAME.initial_state()
    e = rejects(s, "flow.step", "end_step", player="p1")
    s = at(new_game(), "event_roll")
    e = rejects(s, "flow.step", "end_step", player="p1")
    s = bare("combat")
    a = put(s, "p1", "infantry", "r2c2")
    put(s, "p2", "infantry", "r2c2")
    s = act(s, "attack", player="p1", unit=a, target="r2c2")
    assert GAME.actor(s) == "system"
    e = rejects(s, "flow.actor", "end_step", player="p1")
    assert "dice roll is awaited" in e.message
