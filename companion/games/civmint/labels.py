"""Human-readable text for actions, units and track spaces (presentation only, no rules)."""
from __future__ import annotations

from companion.games.civmint.data_load import DATA


def nice(word: str) -> str:
    return str(word).replace("_", " ").capitalize()


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


def space_words(space: str) -> str:
    """A map space as the table reads it: 'r2c4' -> 'row 2, column 4'."""
    s = str(space)
    if s.startswith("r") and "c" in s[1:]:
        r, _, c = s[1:].partition("c")
        if r.isdigit() and c.isdigit():
            return f"row {r}, column {c}"
    return s


def unit_text(u) -> str:
    extra = []
    if u.damage:
        extra.append(f"dmg {u.damage}")
    if u.carrier:
        extra.append(f"on ship #{u.carrier}")
    tail = f" ({', '.join(extra)})" if extra else ""
    return f"#{u.id} {u.kind} @{u.space}{tail}"


def _unit(state, uid) -> str:
    u = state.units.get(uid) if state is not None else None
    return f"#{uid} {u.kind} @{u.space}" if u is not None else f"#{uid}"


def _res(m: dict) -> str:
    return ", ".join(f"{n} {nice(r)}" for r, n in m.items())


def describe(a: dict, state=None, name=lambda seat: seat) -> str:
    """One line for an action dict, e.g. 'Anna: build Infantry at C3'."""
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
        body = ", ".join(f"{_unit(state, int(k))}: {nice(r)}" for k, r in sorted(picks.items(), key=lambda kv: int(kv[0])))
        return f"{who}produce" + (f" ({body})" if body else "")
    if t == "trade":
        return f"{who}trade {nice(a['give'])} -> {nice(a['get'])}"
    if t == "trade_opponent":
        return f"{who}trade with opponent: give {_res(a['give'])}, get {_res(a['get'])}"
    if t == "accept_trade":
        return f"{who}accept the trade offer"
    if t == "decline_trade":
        return f"{who}decline the trade offer"
    if t == "retreat":
        return f"{who}retreat {_unit(state, a['unit'])} -> {a['to']}"
    if t == "correct_track":
        track, _, seat = str(a.get("lane", "")).partition(".")
        return f"Correction: {name(seat)}'s {nice(track)} set to {a['value']} (as on the table)"
    if t == "pay_upkeep":
        return f"{who}pay upkeep"
    if t in ("downgrade", "disband", "repair", "defend"):
        return f"{who}{t} {_unit(state, a['unit'])}"
    if t == "build":
        return f"{who}build {nice(a['kind'])} at {a['space']}"
    if t == "upgrade":
        where = f" at {a['space']}" if a.get("space") else ""
        return f"{who}upgrade {_unit(state, a['unit'])} -> {nice(a['to'])}{where}"
    if t == "move":
        return f"{who}move {_unit(state, a['unit'])} -> {a['to']}"
    if t == "attack":
        return f"{who}attack {a['target']} with {_unit(state, a['unit'])}"
    if t == "spend_combat_power":
        return f"{who}spend {a['amount']} combat power"
    if t == "research":
        return f"{who}research {nice(a['track'])}"
    if t == "improve_aspect":
        return f"{who}improve {nice(a['track'])}"
    if t in ("event_downgrade", "event_lose", "round_repair"):
        verb = {"event_downgrade": "downgrade", "event_lose": "lose", "round_repair": "repair"}[t]
        us = a.get("units") or []
        return f"{who}{verb} " + (", ".join(_unit(state, u) for u in us) if us else "nothing")
    if t == "event_gather":
        return f"{who}gather from {', '.join(a['spaces'])}"
    if t == "event_settler":
        return f"{who}new Settler at {a['space']}"
    if t == "event_upgrade":
        return f"{who}upgrade {_unit(state, a['unit'])} -> {nice(a['to'])}"
    if t == "event_track":
        return f"{who}advance {nice(a['track'])}"
    rest = ", ".join(f"{k}={v}" for k, v in a.items() if k not in ("type", "player"))
    return f"{who}{nice(t)} {rest}".strip()
