"""Human-readable text for actions, units and track spaces (presentation only, no rules)."""
from __future__ import annotations

from companion.games.civmint.data_load import DATA


def nice(word: str) -> str:
    return str(word).replace("_", " ").capitalize()


def cap(text: str) -> str:
    """The first letter upper case, the rest as it is ("one of Ana's 2 Settlers" -> "One of ...")."""
    return text[:1].upper() + text[1:]


# each resource's icon (a glyph of the DejaVu Sans font Kivy ships; its default font has none)
# and colour, shown before its name
RESOURCE_ICONS = {"food": ("\u2618", "7cc35a"), "wood": ("\u2663", "b5823c"), "stone": ("\u25c6", "b0b0b8"),
                  "metal": ("\u2699", "8fb3d9"), "money": ("\u26c1", "f2c94c"), "combat_power": ("\u2694", "e06c5a")}


def resource_markup(res: str) -> str:
    """Kivy markup: the resource's icon in its colour, then its name ("<icon> Food")."""
    glyph, colour = RESOURCE_ICONS.get(res, ("\u25cf", "cccccc"))
    return f"[font=DejaVuSans][color={colour}]{glyph}[/color][/font]\u00a0{nice(res)}"  # kept on one line


def dev_space(track: str, pos: int) -> dict:
    sp = DATA.dev[track][pos]
    return {"position": pos, "level": sp["level"], "name": sp["name"], "top": len(DATA.dev[track]) - 1}


# words that take no plural "s" at the table ("2 Infantry", "3 Food")
UNCOUNTED = {"infantry", "cavalry", "artillery", "food", "wood", "stone", "metal", "money", "combat power",
             "research", "damage"}


def plural(word: str, n: int) -> str:
    """`word` as it reads after the number `n`: "Settler" 1 -> "Settler", 2 -> "Settlers";
    "City" -> "Cities"; uncounted words ("Infantry", "Food") stay as they are."""
    w = str(word)
    if n == 1 or w.lower() in UNCOUNTED or not w:
        return w
    if w[-1] in "yY" and len(w) > 1 and w[-2].lower() not in "aeiou":
        return w[:-1] + ("IES" if w.isupper() else "ies")
    if w.endswith(("s", "x", "ch", "sh")):
        return w + "es"
    return w + "s"


def count(n: int, word: str) -> str:
    """'1 card', '2 cards', '3 Infantry', '2 Cities'."""
    return f"{n} {plural(word, n)}"


def space_words(space: str) -> str:
    """A map space as the printed map numbers it, rows and columns from 1: 'r1c4' -> 'row 2,
    column 5' (the engine's ids count from 0; the printed map has no names for its spaces)."""
    s = str(space)
    if s.startswith("r") and "c" in s[1:]:
        r, _, c = s[1:].partition("c")
        if r.isdigit() and c.isdigit():
            return f"row {int(r) + 1}, column {int(c) + 1}"
    return s


def spaces_words(spaces, last="and") -> str:
    """Several spaces: 'row 1, column 2 and row 3, column 4' (';' between more than two;
    last="or" for a choice)."""
    ws = [space_words(x) for x in spaces]
    if len(ws) <= 2:
        return f" {last} ".join(ws)
    return "; ".join(ws[:-1]) + f" {last} " + ws[-1]


def _twins(u, state) -> int:
    """How many units the table cannot tell from `u`: same owner, kind, space, damage, and on
    the map or aboard alike (so 'one of Ana's 2 Settlers')."""
    if state is None:
        return 1
    return sum(1 for x in state.units.values()
               if x.owner == u.owner and x.kind == u.kind and x.space == u.space
               and x.damage == u.damage and bool(x.carrier) == bool(u.carrier)) or 1


def unit_words(u, state=None, name=None, where=True) -> str:
    """A unit as the table names it, never by its id: "Ana's Settler at row 2, column 5",
    "one of Ana's 2 Settlers at ...", "Ana's Infantry (1 damage) on a Ship at ...". Without
    `name` the owner is left out: "the Settler at ...", "one of the 2 Settlers at ..."."""
    kind = nice(u.kind)
    n = _twins(u, state)
    owner = f"{name(u.owner)}'s " if name is not None else ""
    if n > 1:
        head = f"one of {owner or 'the '}{n} {plural(kind, n)}"
    else:
        head = f"{owner or 'the '}{kind}"
    if u.damage:
        head += f" ({u.damage} damage)"
    if not where:
        return head
    return head + (" on a Ship at " if u.carrier else " at ") + space_words(u.space)


def unit_list(units) -> list:
    """A player's units for the Players tab, identical ones counted together:
    ['Capital at row 2, column 2', '2 Settlers at row 2, column 2', 'Infantry at row 3, column 2
    (1 damage)']."""
    groups = {}
    for u in units:
        groups.setdefault((u.kind, u.space, u.damage, bool(u.carrier)), []).append(u)
    out = []
    for (kind, space, damage, aboard), us in groups.items():
        n = len(us)
        extra = [f"{damage} damage" + (" each" if n > 1 else "")] if damage else []
        if aboard:
            extra.append("on a Ship")
        head = count(n, nice(kind)) if n > 1 else nice(kind)
        out.append(f"{head} at {space_words(space)}" + (f" ({', '.join(extra)})" if extra else ""))
    return out


def units_words(state, uids, name=None) -> str:
    """Several units chosen together, twins counted: "the 2 Settlers at row 1, column 2; one of
    the 3 Settlers at row 4, column 4" (a unit named twice counts once)."""
    if state is None:
        return count(len(set(uids)), "unit")
    groups = {}
    for uid in dict.fromkeys(uids):
        u = state.units.get(uid)
        if u is None:
            continue
        groups.setdefault((u.owner, u.kind, u.space, u.damage, bool(u.carrier)), []).append(u)
    out = []
    for us in groups.values():
        u, k, n = us[0], len(us), _twins(us[0], state)
        if k == 1:
            out.append(unit_words(u, state, name))
            continue
        kinds = plural(nice(u.kind), k)
        owner = f"{name(u.owner)}'s " if name is not None else "the "
        head = f"{owner}{k} {kinds}" if k == n else f"{k} of {owner}{n} {kinds}"
        if u.damage:
            head += f" ({u.damage} damage each)"
        out.append(head + (" on a Ship at " if u.carrier else " at ") + space_words(u.space))
    return "; ".join(out) or "no unit"


def unit_ref(state, uid) -> str:
    """The unit with engine id `uid` in words ('the Settler at row 2, column 5'), 'a unit' when
    it is not on the map; for messages that only have the id."""
    u = state.units.get(uid) if state is not None else None
    return unit_words(u, state) if u is not None else "a unit"


_unit = unit_ref


def amounts(m: dict) -> str:
    """Resources as the table counts them: {'food': 1, 'wood': 2} -> '1 Food, 2 Wood'."""
    return ", ".join(count(n, nice(r)) for r, n in m.items()) or "nothing"


_res = amounts


def with_article(kind: str) -> str:
    """'a Settler', 'an Infantry' (an article for a unit kind)."""
    return ("an " if kind[:1].lower() in "aeiou" else "a ") + kind


_a = with_article


def describe(a: dict, state=None, name=lambda seat: seat) -> str:
    """One line for an action dict, e.g. 'Anna: build a Settler at row 2, column 5'; units by
    kind and space (their ids never show), the acting player's own units without an owner."""
    t = a.get("type", "?")
    who = f"{name(a['player'])}: " if "player" in a else ""
    if t == "roll_first_player":
        return f"First-player die: {a['die']}"
    if t == "roll_event":
        return f"Event dice: {' + '.join(str(x) for x in a['dice'])}"
    if t == "roll_combat":
        return f"Combat dice: attacker {a['attacker']}, defender {a['defender']}"
    if t == "end_step":
        return f"{who}done with this step"
    if t == "produce":
        picks = a.get("picks") or {}
        body = "; ".join(f"{_unit(state, int(k))}: {nice(r)}" for k, r in sorted(picks.items(), key=lambda kv: int(kv[0])))
        return f"{who}produce" + (f" ({body})" if body else "")
    if t == "trade":
        return f"{who}trade {nice(a['give'])} for {nice(a['get'])}"
    if t == "trade_opponent":
        return f"{who}trade with opponent: give {_res(a['give'])}, get {_res(a['get'])}"
    if t == "accept_trade":
        return f"{who}accept the trade offer"
    if t == "decline_trade":
        return f"{who}decline the trade offer"
    if t == "retreat":
        return f"{who}retreat {_unit(state, a['unit'])} to {space_words(a['to'])}"
    if t == "correct_track":
        track, _, seat = str(a.get("lane", "")).partition(".")
        return f"Correction: {name(seat)}'s {nice(track)} set to {a['value']} (as on the table)"
    if t == "pay_upkeep":
        return f"{who}pay upkeep"
    if t in ("downgrade", "disband", "repair"):
        return f"{who}{t} {_unit(state, a['unit'])}"
    if t == "defend":
        return f"{who}defend with {_unit(state, a['unit'])}"
    if t == "build":
        return f"{who}build {_a(nice(a['kind']))} at {space_words(a['space'])}"
    if t == "upgrade":
        where = f", placed at {space_words(a['space'])}" if a.get("space") else ""
        return f"{who}upgrade {_unit(state, a['unit'])} to {_a(nice(a['to']))}{where}"
    if t == "move":
        return f"{who}move {_unit(state, a['unit'])} to {space_words(a['to'])}"
    if t == "attack":
        return f"{who}attack {space_words(a['target'])} with {_unit(state, a['unit'])}"
    if t == "spend_combat_power":
        return f"{who}spend {a['amount']} combat power"
    if t == "research":
        return f"{who}research {nice(a['track'])}"
    if t == "improve_aspect":
        return f"{who}improve {nice(a['track'])}"
    if t == "round_repair":
        us = list(a.get("units") or [])
        if not us:
            return f"{who}repair nothing"
        cubes = "; ".join(f"{_unit(state, u)}: {count(us.count(u), 'damage cube')}" for u in dict.fromkeys(us))
        return f"{who}remove {cubes}"
    if t in ("event_downgrade", "event_lose"):
        verb = {"event_downgrade": "downgrade", "event_lose": "lose"}[t]
        us = a.get("units") or []
        return f"{who}{verb} " + (units_words(state, us) if us else "nothing")
    if t == "event_gather":
        return f"{who}gather from {spaces_words(a['spaces'])}"
    if t == "event_settler":
        return f"{who}new Settler at {space_words(a['space'])}"
    if t == "event_upgrade":
        return f"{who}upgrade {_unit(state, a['unit'])} to {_a(nice(a['to']))}"
    if t == "event_track":
        return f"{who}advance {nice(a['track'])}"
    rest = ", ".join(f"{k}={v}" for k, v in a.items() if k not in ("type", "player"))
    return f"{who}{nice(t)} {rest}".strip()
