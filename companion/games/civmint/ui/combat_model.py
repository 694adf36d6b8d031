"""What the combat wizard shows, asked of the engine. No Kivy here, and no rules.

Everything comes from the engine: the state's `combat` dict and per-turn record (`last_battle`),
the legal actions, and the public queries (`contested_spaces`, `attack_bonus`, `units_at`). Every
action the wizard offers is one of `ctrl.legal_actions()` (or passes `ctrl.check`). The panel
(combat_panel.py) only lays these values out.
"""
from __future__ import annotations

from companion.games.civmint.data_load import DATA

from .. import labels as L
from ..labels import nice

# stage indicator: (key, label); the engine's combat stages plus "attack" (no battle yet) and "next"
STAGES = (("attack", "Choose attack"), ("defend", "Defender"), ("roll", "Roll"),
          ("cp", "Combat Power"), ("retreat", "Retreats"), ("next", "Next battle"))


def _strength(kind) -> int:
    return DATA.units[kind]["strength"]


def unit_line(ctrl, u, with_owner=True) -> str:
    """"Anna's Ship, damage 1 of 2, carrying the Settler (no damage)" (no ids: kind, owner and
    the space the panel names; twins counted: "one of Anna's 2 Infantry")."""
    s = ctrl.state
    n = L._twins(u, s)
    kind = nice(u.kind)
    owner = f"{ctrl.name(u.owner)}'s " if with_owner else ("the " if n == 1 else "")
    head = f"one of {owner or 'the '}{n} {L.plural(kind, n)}" if n > 1 else f"{owner}{kind}"
    parts = [f"damage {u.damage} of {_strength(u.kind)}"]
    if u.carrier:
        parts.append("on a Ship")
    cargo = sorted((x for x in s.units.values() if x.carrier == u.id), key=lambda x: x.id)
    if cargo:
        parts.append("carrying " + "; ".join(f"{_a(nice(x.kind))} (damage {x.damage})" for x in cargo))
    return head + ", " + ", ".join(parts)


def _a(kind) -> str:
    return L._a(kind)


def stage_of(ctrl, legal) -> str:
    """The wizard stage: the engine's combat stage, else 'attack' when an attack is legal, else 'next'."""
    c = ctrl.state.combat
    if c:
        return c["stage"]
    return "attack" if any(a["type"] == "attack" for a in legal) else "next"


def attack_choices(ctrl, legal) -> list[dict]:
    """Legal attacks grouped by target space: [{'target', 'contested', 'options': [{'action', 'text'}]}]."""
    s, g = ctrl.state, ctrl.game
    contested = set(g.contested_spaces(s))
    groups: dict[str, list] = {}
    for a in legal:
        if a["type"] != "attack":
            continue
        u = s.units[a["unit"]]
        bonus = g.attack_bonus(s, u, a["target"])
        where = "same space" if u.space == a["target"] else f"from {L.space_words(u.space)}"
        groups.setdefault(a["target"], []).append(
            {"action": a, "text": f"attack with {L.unit_words(u, s, where=False)} "
                                  f"({where}, attack +{bonus}, damage {u.damage} of {_strength(u.kind)})"})
    return [{"target": t, "contested": t in contested, "options": opts}
            for t, opts in sorted(groups.items(), key=lambda kv: (kv[0] not in contested, kv[0]))]


def battle(ctrl) -> dict | None:
    """The battle being fought: attacker, defender, bonuses, dice and totals (None when none)."""
    s, g = ctrl.state, ctrl.game
    c = s.combat
    if not c or "att" not in c:
        return None
    au = s.units[c["att"]]
    du = s.units.get(c["def"]) if c.get("def") else None
    return {
        "target": c["target"], "attacker": au, "attacker_text": unit_line(ctrl, au),
        "attack_bonus": g.attack_bonus(s, au, c["target"]),
        "defender": du, "defender_text": unit_line(ctrl, du) if du else "(being chosen)",
        "defence_bonus": DATA.units[du.kind]["defence"] if du else None,
        "dice": list(c["dice"]) if c.get("dice") else None,
        "totals": list(c["tot"]) if c.get("tot") else None,
        "cp_turn": c.get("cp_turn"),
    }


def space_sides(ctrl, space) -> dict:
    """Units in `space` by owner (ships list their cargo): {seat: [line, ...]}."""
    out = {}
    for u in sorted(ctrl.game.units_at(ctrl.state, space), key=lambda x: x.id):
        if u.carrier:
            continue  # listed with its Ship
        out.setdefault(u.owner, []).append(unit_line(ctrl, u, with_owner=False))
    return out


def cp_range(legal) -> tuple[int, int] | None:
    """(lowest amount above 0, highest) of the legal spend_combat_power actions; None when not bidding."""
    amounts = sorted(a["amount"] for a in legal if a["type"] == "spend_combat_power")
    if not amounts:
        return None
    above = [n for n in amounts if n > 0]
    return (above[0], above[-1]) if above else (0, 0)


def spend_action(legal, amount) -> dict | None:
    for a in legal:
        if a["type"] == "spend_combat_power" and a["amount"] == amount:
            return a
    return None


def roll_action(legal, attacker, defender) -> dict | None:
    """The legal combat roll with these dice (None when no such roll is awaited)."""
    for a in legal:
        if a["type"] == "roll_combat" and a["attacker"] == attacker and a["defender"] == defender:
            return a
    return None


def choice_actions(ctrl, legal) -> list[dict]:
    """Defender and retreat/disembark choices: [{'action', 'text'}]."""
    s = ctrl.state
    out = []
    for a in legal:
        if a["type"] == "defend":
            u = s.units[a["unit"]]
            out.append({"action": a, "text": f"Defend with {L.unit_words(u, s, where=False)} "
                                              f"(defence +{DATA.units[u.kind]['defence']}, damage {u.damage} of {_strength(u.kind)})"})
        elif a["type"] == "retreat":
            verb = "Disembark" if (s.combat or {}).get("kind") == "disembark" else "Retreat"
            u = s.units[a["unit"]]
            out.append({"action": a, "text": f"{verb} {L.unit_words(u, s, where=False)} to {L.space_words(a['to'])}"})
    return out


def last_battle_text(ctrl, known: dict | None = None) -> str:
    """One line about the turn's last battle: dice, totals, winner, damage, elimination / conquest.
    `known`: {unit id: (kind, owner)} seen earlier, to name a unit that is gone."""
    s = ctrl.state
    lb = s.t.get("last_battle")
    if not lb:
        return ""
    known = known or {}

    def name(uid):
        u = s.units.get(uid)
        if u is not None:
            return f"{ctrl.name(u.owner)}'s {nice(u.kind)}"
        k = known.get(uid)
        return f"{ctrl.name(k[1])}'s {nice(k[0])}" if k else "the unit"

    a, d = lb["dice"]
    ta, td = lb["totals"]
    dmg = lb["damaged"]
    u = s.units.get(dmg)
    if u is None:
        fate = f"{name(dmg)} was eliminated"
    elif known.get(dmg) and known[dmg][1] != u.owner:
        fate = f"{name(dmg)} was conquered by {ctrl.name(u.owner)}"
    else:
        fate = f"{name(dmg)} took 1 damage (now {u.damage} of {_strength(u.kind)})"
    return (f"Last battle: attacker {name(lb['attacker'])} rolled {a} (total {ta}) vs defender "
            f"{name(lb['defender'])} rolled {d} (total {td}); {ctrl.name(lb['winner'])} won; {fate}.")


def dice_prompt(stage) -> str:
    if stage != "roll":
        return ""
    return ("Roll 2 dice in the wells: well 1 = attacker, well 2 = defender "
            "(or tap Roll virtual dice / enter the values below).")
