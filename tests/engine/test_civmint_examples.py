"""Every worked example of the CivMint text."""
from companion.games.civmint import GAME, research_cost
from engine_helpers import P2_CAP, act, at, bare, new_game, no_cp, put, rejects, res


def test_research_shipbuilding_to_astronomy_costs_4():
    # technology: Shipbuilding is printed space 2 (level 3), Astronomy space 3 (level 4)
    tech = GAME.data.dev["technology"]
    assert [tech[i]["name"] for i in (2, 3, 4)] == ["Shipbuilding", "Astronomy", "Iron Working"]
    assert [tech[i]["level"] for i in (2, 3, 4)] == [3, 4, 4]
    assert research_cost("technology", 2) == 4
    s = at(new_game(), "research", research_left=4)
    s.players["p1"].dev["technology"] = 2
    s2 = act(s, "research", player="p1", track="technology")
    assert s2.players["p1"].dev["technology"] == 3 and s2.t["research_left"] == 0


def test_research_astronomy_to_iron_working_costs_7():
    assert research_cost("technology", 3) == 7  # horizontal: 4 + 3
    s = at(new_game(), "research", research_left=6)
    s.players["p1"].dev["technology"] = 3
    rejects(s, "research.cost", "research", player="p1", track="technology")
    s.t["research_left"] = 7
    s2 = act(s, "research", player="p1", track="technology")
    assert s2.players["p1"].dev["technology"] == 4 and s2.t["research_left"] == 0


def test_two_damage_cubes_cost_5():
    s = bare("taxation")
    u = put(s, "p1", "city", "r0c0", damage=2)
    res(s, "p1", money=5)
    s = act(s, "repair", player="p1", unit=u)
    assert s.players["p1"].res["money"] == 3
    s = act(s, "repair", player="p1", unit=u)
    assert s.players["p1"].res["money"] == 0 and s.units[u].damage == 0


def _four_infantry_on_p2_capital(house_rules=()):
    s = bare("combat", cspace=None)
    s.house = frozenset(house_rules)
    cav = [put(s, "p1", "infantry", "r4c3") for _ in range(4)]
    no_cp(s)
    s.step = "move"
    for u in cav:
        s = act(s, "move", player="p1", unit=u, to=P2_CAP)
    s = act(s, "end_step", player="p1")
    assert s.step == "combat"
    return s, cav


def test_capital_has_strength_4():
    """With the house rule defenders_fight_every_battle, four hits in one turn conquer it."""
    assert GAME.data.units["capital"]["strength"] == 4
    s, cav = _four_infantry_on_p2_capital({"defenders_fight_every_battle"})
    for i, u in enumerate(cav):
        s = act(s, "attack", player="p1", unit=u, target=P2_CAP)
        # the capital is the only defender: chosen by the engine; p1 rolls 6, p2 rolls 1
        s = act(s, "roll_combat", attacker=6, defender=1)
        cap = s.units[2]
        if i < 3:
            assert cap.owner == "p2" and cap.damage == i + 1
    cap = s.units[2]
    assert cap.owner == "p1", "four hits conquer a capital of strength 4"


def test_each_unit_one_battle_defenders_too():
    """"Each Unit may participate once in only one battle": the Capital defends one battle a turn,
    then no defender is left, the space's battles end and the attackers retreat (step 7)."""
    s, cav = _four_infantry_on_p2_capital()
    s = act(s, "attack", player="p1", unit=cav[0], target=P2_CAP)
    s = act(s, "roll_combat", attacker=6, defender=1)
    assert s.units[2].damage == 1 and s.units[2].fought
    assert GAME.defenders(s, P2_CAP, "p1") == []
    # the space's battles are over: the attackers on a settlement space retreat (REG-C8)
    assert s.combat["stage"] == "retreat" and s.combat["from"] == P2_CAP
    rejects(s, "combat.in_progress", "attack", player="p1", unit=cav[1], target=P2_CAP)
    while s.combat and s.combat.get("stage") == "retreat":
        s = act(s, "retreat", player="p1", unit=s.combat["unit"], to=s.combat["options"][0])
    assert s.units[2].owner == "p2" and s.units[2].damage == 1
    assert not [u for u in s.units.values() if u.space == P2_CAP and u.owner == "p1"]


def test_attacker_wins_ties():
    s = bare("combat")
    a = put(s, "p1", "infantry", "r2c2")
    d = put(s, "p2", "infantry", "r2c2")
    no_cp(s)
    s = act(s, "attack", player="p1", unit=a, target="r2c2")
    # totals: attacker 2 + 1 (infantry attack bonus) = 3, defender 3 + 0 = 3: a tie
    s = act(s, "roll_combat", attacker=2, defender=3)
    assert s.t["last_battle"]["totals"] == [3, 3]
    assert s.t["last_battle"]["winner"] == "p1"
    assert s.units[d].damage == 1  # the defender took the hit (strength 2: still on the map)
    assert s.units[a].damage == 0


def test_halving_rounds_down_famine_and_plague():
    s = at(new_game(), "event_choice")
    res(s, "p1", food=5)
    s.pending = (("p1", 4),)
    s2 = s.copy()
    GAME._auto_events(s2)
    assert s2.players["p1"].res["food"] == 3  # lost 5 // 2 = 2
    # plague: 3 settlers -> lose 1 (half of 3 rounded down)
    s = bare("event_choice")
    ids = [put(s, "p1", "settler", "r0c0") for _ in range(3)]
    s.pending = (("p1", 3),)
    opts = GAME.event_options(s, "p1", 3)
    assert all(len(o["units"]) == 1 for o in opts) and len(opts) == 3
    s2 = act(s, "event_lose", player="p1", units=[ids[0]])
    assert sum(1 for u in s2.units.values() if u.kind == "settler" and u.owner == "p1") == 2
