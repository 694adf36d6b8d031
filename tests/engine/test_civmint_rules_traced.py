"""CivMint rules the trace table names, each played through the engine's public actions
(`GAME.apply` with codec-made actions, `reachable`, `legal_actions`): no private function is
called and no state is edited after the first action."""
import pytest

from companion.games.civmint import GAME
from engine_helpers import act, at, bare, no_cp, put, rejects

# a map with a water path of three spaces: r1c2 - r2c2 - r3c2 (r0c3 also two from r1c2)
LONG_WATER = {"nw": "1A", "ne": "2A", "sw": "3A", "se": "4A"}


def on_long_water(step):
    s = GAME.initial_state(GAME.default_setup(map=LONG_WATER))
    s = act(s, "roll_first_player", die=1)
    s = at(s, step)
    s.units = {k: u for k, u in s.units.items() if u.kind == "capital"}
    return s


def water_two_away(s, start):
    b = s.board
    one = {x for x in b.adj[start] if x in b.water}
    return sorted({y for x in one for y in b.adj[x] if y in b.water} - one - {start})


@pytest.mark.parametrize("tech, name", [(3, "Astronomy"), (4, "Iron Working")])
def test_ships_move_two_spaces_with_astronomy_or_iron_working(tech, name):
    """'Ships ... may move 2 spaces with Astronomy or Iron Working advancements.'"""
    s = on_long_water("move")
    start = "r1c2"
    far = water_two_away(s, start)
    assert far, "the map has water two spaces from the ship"
    ship = put(s, "p1", "ship", start)
    rider = put(s, "p1", "infantry", "r0c2")
    s.players["p1"].dev["technology"] = 2  # Shipbuilding: one space only
    assert not set(far) & set(GAME.reachable(s, s.units[ship]))
    rejects(s, "move.range", "move", player="p1", unit=ship, to=far[0])

    s.players["p1"].dev["technology"] = tech
    assert GAME.data.dev["technology"][tech]["name"] == name
    s = act(s, "move", player="p1", unit=rider, to=start)  # embark
    assert set(far) <= set(GAME.reachable(s, s.units[ship]))
    s = act(s, "move", player="p1", unit=ship, to=far[0])
    assert s.units[ship].space == far[0] and s.units[rider].space == far[0]  # cargo moves along
    rejects(s, "move.once", "move", player="p1", unit=ship, to=start)


def test_artillery_attacks_from_a_ship_other_cargo_cannot():
    """'Artillery may attack from Ships'; units on a Ship otherwise neither attack nor defend."""
    s = bare("combat")
    ship = put(s, "p1", "ship", "r1c2")
    s.players["p1"].dev["technology"] = 2  # carry 3
    art = put(s, "p1", "artillery", "r1c2", carrier=ship)
    inf = put(s, "p1", "infantry", "r1c2", carrier=ship)
    enemy = put(s, "p2", "infantry", "r0c2")
    no_cp(s)
    rejects(s, "combat.range", "attack", player="p1", unit=inf, target="r0c2")
    assert any(a.type == "attack" and a.get("unit") == art for a in GAME.legal_actions(s))
    s = act(s, "attack", player="p1", unit=art, target="r0c2")
    assert s.combat["def"] == enemy  # the only defender, chosen by the engine
    s = act(s, "roll_combat", attacker=6, defender=1)
    assert s.units[enemy].damage == 1 and s.units[art].carrier == ship
    rejects(s, "combat.once", "attack", player="p1", unit=art, target="r0c2")


def test_an_enemy_artillery_on_a_ship_cannot_defend_only_the_ship_does():
    s = bare("combat")
    ship = put(s, "p2", "ship", "r1c2")
    cargo = put(s, "p2", "artillery", "r1c2", carrier=ship)
    att = put(s, "p1", "artillery", "r0c2")
    no_cp(s)
    s = act(s, "attack", player="p1", unit=att, target="r1c2")
    assert s.combat["def"] == ship
    rejects(s, "flow.actor", "defend", player="p2", unit=cargo)


def test_one_contested_space_at_a_time():
    """'Resolve combat one contested space at a time': once a battle starts in one contested
    space, the attacker fights there until no battle is left, then the next space."""
    s = bare("combat")
    a1 = put(s, "p1", "infantry", "r2c0")
    a2 = put(s, "p1", "infantry", "r2c0")
    b1 = put(s, "p1", "infantry", "r0c0")
    put(s, "p2", "settler", "r2c0")
    put(s, "p2", "settler", "r2c0")
    put(s, "p2", "settler", "r0c0")
    no_cp(s)
    s = act(s, "attack", player="p1", unit=a1, target="r2c0")
    s = act(s, "defend", player="p2", unit=[u.id for u in GAME.defenders(s, "r2c0", "p1")][0])
    s = act(s, "roll_combat", attacker=6, defender=1)  # one settler gone
    # r2c0 still holds a battle (a2 has not fought, a settler is left): r0c0 waits
    rejects(s, "combat.one_space", "attack", player="p1", unit=b1, target="r0c0")
    assert {a.get("unit") for a in GAME.legal_actions(s) if a.type == "attack"} == {a2}
    s = act(s, "attack", player="p1", unit=a2, target="r2c0")
    s = act(s, "roll_combat", attacker=6, defender=1)  # the last settler gone: r2c0 is over
    assert not any(u.owner == "p2" and u.space == "r2c0" for u in s.units.values())
    s = act(s, "attack", player="p1", unit=b1, target="r0c0")  # now the next space
    assert s.combat["target"] == "r0c0"


def test_a_damaged_unit_retreats_onto_a_ship_and_its_damage_moves_to_the_ship():
    """'when a damaged unit retreats to a Ship that unit's damage is transferred to the Ship.
    Thus only one damaged Unit may retreat to a Ship': the second one cannot board."""
    s = bare("combat")
    ship = put(s, "p1", "ship", "r1c2")
    s.players["p1"].dev["technology"] = 2  # room for 3
    first = put(s, "p1", "infantry", "r0c2")
    second = put(s, "p1", "infantry", "r0c2")
    put(s, "p2", "infantry", "r0c2")
    put(s, "p2", "infantry", "r0c2")
    put(s, "p2", "infantry", "r0c1")  # the land around r0c2 is the enemy's
    put(s, "p2", "infantry", "r0c3")
    no_cp(s)
    money = s.players["p1"].res["money"]
    for u in (first, second):
        s = act(s, "attack", player="p1", unit=u, target="r0c2")
        if s.combat["stage"] == "defend":
            s = act(s, "defend", player="p2",
                    unit=[d.id for d in GAME.defenders(s, "r0c2", "p1")][0])
        s = act(s, "roll_combat", attacker=1, defender=6)  # the defender wins: u damaged
    # both fought, both damaged: the sides retreat in turn, the attacker first; p1's first
    # unit has one place to go, the Ship, and boards it
    assert s.units[first].carrier == ship and s.units[first].damage == 0
    assert s.units[ship].damage == 1  # the damage went with it
    assert GAME.actor(s) == "p2" and s.combat["kind"] == "retreat"  # p2's turn to retreat
    s = act(s, "retreat", player="p2", unit=s.combat["unit"], to="r0c1")
    assert s.combat is None
    # the Ship (strength 2) cannot take a second damaged unit: with no other space, it disbands
    assert second not in s.units
    assert s.players["p1"].res["money"] == money + 1
    assert GAME.status(s) == []
