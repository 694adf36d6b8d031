"""What the Global Event panel shows, asked of the engine. No Kivy here, and no rules.

The event numbers are the engine's (`view()["events"]`); the dice are the journal's last
`roll_event`; each player's event bonus is the engine's `bonuses()` in the state just before that
roll (the journal replayed to that point, once per roll). Names come from data/events.json; the
texts from its `text` field when present, else a description built from the event's data fields.
Every choice offered is one of `ctrl.legal_actions()` or passes `ctrl.check`.
"""
from __future__ import annotations

from companion.games.civmint.data_load import DATA

from .. import labels as L
from ..labels import dev_space, nice

SEATS = ("p1", "p2")

# descriptions by engine effect; {…} are fields of the event's data (events.json)
EFFECT_TEXT = {
    "keep_settlements": "Keep at most {keep_text} Villages and Cities; downgrade the others to Settlers "
                        "of your choice (no refund). The Capital does not count.",
    "lose_half_settlers": "Lose half of your Settlers (rounded down), chosen by you, no refund.",
    "lose_half_food": "Lose half of your Food (rounded down).",
    "lose_military": "Lose {count} military unit (Infantry, Cavalry or Artillery) of your choice, no refund.",
    "lose_food": "Lose {amount} Food (not below 0).",
    "nothing": "Nothing happens.",
    "food_per_unit": "Gain {amount} Food for each of your unit dice on the map.",
    "gather": "Choose {count} different spaces you control that show resources and collect all of each.",
    "settler_or_upgrade": "Either a free Settler in a space with your Village, City or Capital, or a free "
                          "one-step upgrade of a unit (Settler to Infantry, Infantry to Cavalry or Artillery).",
    "aspect_step": "Advance one Aspect track of your choice by one level.",
    "lowest_development_step": "Advance your lowest-level Development track by one space "
                               "(your choice among equal ones).",
}


def event_data(n) -> dict:
    return DATA.events["events"][str(n)]


def event_text(n, ctrl=None, seat=None) -> str:
    """The event's text: events.json `text` when present, else built from its data fields."""
    e = event_data(n)
    if e.get("text"):
        return e["text"]
    fields = dict(e)
    keep = e.get("keep")
    if keep == "supported":
        sup = ctrl.game.bonuses(ctrl.state, seat)["supported"] if ctrl is not None and seat else None
        fields["keep_text"] = "the number your Government track supports" + (f" ({sup})" if sup is not None else "")
    else:
        fields["keep_text"] = str(keep)
    try:
        return EFFECT_TEXT.get(e["effect"], nice(e["effect"])).format(**fields)
    except (KeyError, IndexError):
        return nice(e["effect"])


# ------------------------------------------------------------------------------ the roll
_ROLL_CACHE: dict = {}


def last_roll(ctrl) -> dict | None:
    """The latest Global Event roll of this game: {'index', 'dice', 'total', 'bonus': {seat: n}}.
    The bonuses are the engine's just before the roll (journal replayed up to it, cached)."""
    hist = ctrl.session.history
    idx = next((i for i in range(len(hist) - 1, -1, -1) if hist[i][0].type == "roll_event"), None)
    if idx is None:
        return None
    key = (id(ctrl.session), ctrl.path, idx, tuple(hist[idx][0]["dice"]))
    hit = _ROLL_CACHE.get(key)
    if hit is None:
        g = ctrl.game
        s = g.initial_state(ctrl.setup)
        for a, _src in hist[:idx]:
            s = g.apply(s, a)
        dice = list(hist[idx][0]["dice"])
        hit = {"index": idx, "dice": dice, "total": sum(dice),
               "bonus": {seat: g.bonuses(s, seat)["event_bonus"] for seat in SEATS}}
        _ROLL_CACHE.clear()  # one game on screen at a time
        _ROLL_CACHE[key] = hit
    return hit


def roll_action(legal, d1, d2) -> dict | None:
    for a in legal:
        if a["type"] == "roll_event" and list(a["dice"]) == [d1, d2]:
            return a
    return None


def bonus_lines(ctrl) -> list[str]:
    """Before the roll: each player's event bonus now."""
    out = []
    for seat in SEATS:
        b = ctrl.game.bonuses(ctrl.state, seat)["event_bonus"]
        out.append(f"{ctrl.name(seat)}: event = 2D6 {'+' if b >= 0 else '-'} {abs(b)} (event bonus)")
    return out


def player_events(ctrl) -> list[dict]:
    """After the roll, per player in the order the events apply: rolled total, bonus, event number,
    name, text and status ('choosing', 'waiting', 'done')."""
    s = ctrl.state
    view = ctrl.game.view(s)["events"]
    if not view:
        return []
    roll = last_roll(ctrl)
    pending = [p[0] for p in s.pending if p[1] != "repair"] if s.step == "event_choice" else []
    order = s.order()
    out = []
    for seat in order:
        ev = view.get(seat)
        if ev is None:
            continue
        n = ev["number"]
        status = "done"
        if pending and pending[0] == seat:
            status = "choosing"
        elif seat in pending:
            status = "waiting"
        item = {"seat": seat, "name": ctrl.name(seat), "number": n, "event": ev["name"],
                "text": event_text(n, ctrl, seat), "status": status,
                "dice": roll["dice"] if roll else None, "total": roll["total"] if roll else None,
                "bonus": roll["bonus"][seat] if roll else None}
        out.append(item)
    return out


def roll_line(item) -> str:
    """'rolled 4 + 3 = 7, event bonus +1 -> event 8' (notes the 1..12 limit when it applied)."""
    if item["total"] is None:
        return f"event {item['number']}"
    raw = item["total"] + item["bonus"]
    clip = f" (limited to {DATA.events['min']}..{DATA.events['max']})" if raw != item["number"] else ""
    d = " + ".join(str(x) for x in item["dice"])
    return f"rolled {d} = {item['total']}, event bonus {item['bonus']:+d} -> event {item['number']}{clip}"


# ------------------------------------------------------------------------------ the choice
LIST_FIELDS = ("units", "spaces")


def choice(ctrl, legal) -> dict | None:
    """The event choice awaited now, from the legal actions.
    {'seat', 'kind': 'pick' | 'multi', 'options': [{'action', 'text'}]} for 'pick' (one tap each),
    {'seat', 'kind': 'multi', 'type', 'field', 'need', 'candidates': [{'value', 'text'}]} when
    several units/spaces must be chosen together (checked with ctrl.check on Confirm)."""
    acts = [a for a in legal if a["type"].startswith("event_")]
    if not acts:
        return None
    seat = acts[0]["player"]
    field = next((f for f in LIST_FIELDS if f in acts[0]), None)
    if field and len(acts[0][field]) > 1 and all(a["type"] == acts[0]["type"] for a in acts):
        vals = sorted({v for a in acts for v in a[field]}, key=lambda v: (str(type(v)), v))
        return {"seat": seat, "kind": "multi", "type": acts[0]["type"], "field": field,
                "need": len(acts[0][field]),
                "candidates": [{"value": v, "text": _value_text(ctrl, field, v)} for v in vals]}
    return {"seat": seat, "kind": "pick",
            "options": [{"action": a, "text": option_text(ctrl, a)} for a in acts]}


def _value_text(ctrl, field, v) -> str:
    s = ctrl.state
    if field == "units":
        w = L.unit_words(s.units[v], s)
        return w[:1].upper() + w[1:]
    res = s.board.spaces[v].res
    return f"{L.cap(L.space_words(v))}: " + ", ".join(nice(r) for r in res)


def option_text(ctrl, a) -> str:
    t = a["type"]
    s = ctrl.state
    if t == "event_settler":
        return f"New Settler at {L.space_words(a['space'])}"
    if t == "event_upgrade":
        u = s.units[a["unit"]]
        return f"Upgrade {L.unit_words(u, s)} to {L._a(nice(a['to']))}"
    if t == "event_track":
        if a["track"] in s.players[a["player"]].asp:
            lvl = s.players[a["player"]].asp[a["track"]]
            return f"{nice(a['track'])}: level {lvl} -> {lvl + 1}"
        pos = s.players[a["player"]].dev[a["track"]]
        here, nxt = dev_space(a["track"], pos), dev_space(a["track"], pos + 1)
        return f"{nice(a['track'])}: {here['name']} -> {nxt['name']} (level {nxt['level']})"
    for f in LIST_FIELDS:
        if f in a:
            verb = {"event_downgrade": "Downgrade", "event_lose": "Lose", "event_gather": "Gather from"}.get(t, nice(t))
            if f == "units":
                return f"{verb} " + L.units_words(s, a[f])
            return f"{verb} " + L.spaces_words(a[f])
    return ctrl.action_label(a)


def multi_action(ch: dict, chosen) -> dict:
    """The action for a multi choice with these values (sorted as the engine lists them)."""
    return {"type": ch["type"], "player": ch["seat"], ch["field"]: sorted(chosen)}
