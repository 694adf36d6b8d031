"""Per-round history of a game, rebuilt by replaying its effective actions (no Kivy, no rules).

`build(ctrl_or_session)` replays `Session.history` from `game.initial_state(setup)` with the
engine's own `apply` and cuts it into rounds. An action belongs to the round in which it was
applied; a round ends with the action after which the engine's round number moves on (its last
Round End choice, the engine then runs Resupply by itself) or the game is over. Values "at the end
of round r" are therefore those of the state right after that action: it also holds whatever the
engine does automatically before the next decision (Resupply, and the next first player's
Production when no Settler has a choice). The last record is the current round (finished only
when the game is over); its end values are those of the current state.

Also plain-text helpers for the summary screens (round deltas, end reasons, the tie-break).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.civmint.data_load import DATA

from .labels import _a, count, nice, plural


@dataclass
class Snapshot:
    """One seat at one moment (round start or end)."""
    score: dict          # the engine's score(state)[seat]: items, total, development_points, aspect_points
    resources: dict
    development: dict    # track -> position (space index)
    aspects: dict
    units: dict          # unit id -> kind


@dataclass
class RoundRecord:
    round: int
    first: str | None                 # first player of this round (None before the first-player roll)
    finished: bool
    start: dict                       # seat -> Snapshot at the start of the round (end of the previous one)
    end: dict                         # seat -> Snapshot at the end of the round (or now)
    gained: dict = field(default_factory=dict)   # seat -> {resource: total increase over the round's actions}
    spent: dict = field(default_factory=dict)    # seat -> {resource: total decrease}
    events: dict = field(default_factory=dict)   # seat -> {"number", "name"}; {} when not rolled this round
    units_changed: dict = field(default_factory=dict)  # seat -> {("lost"|"new"|"took", kind) or ("became", a, b): n}
    actions: list = field(default_factory=list)  # (index in the history, action dict, source)


@dataclass
class GameHistory:
    seats: tuple
    rounds: list          # RoundRecord, round 1 first
    over: bool

    def record(self, rnd: int) -> RoundRecord | None:
        for r in self.rounds:
            if r.round == rnd:
                return r
        return None

    def totals(self, seat) -> list:
        """The seat's score total at the end of each round (the last one: now)."""
        return [r.end[seat].score["total"] for r in self.rounds]


def _snap(state, scores, seat) -> Snapshot:
    p = state.players[seat]
    return Snapshot(scores[seat], dict(p.res), dict(p.dev), dict(p.asp),
                    {u.id: u.kind for u in state.units.values() if u.owner == seat})


def _snaps(game, state, seats):
    sc = game.score(state)
    return {seat: _snap(state, sc, seat) for seat in seats}


def _count_unit_changes(old: dict, new: dict, into: dict) -> None:
    """Each unit, action by action: lost (with the kind it had when it went), new, or turned into
    another kind - so a Settler that became a Cavalry and then died reads "lost 1 Cavalry"."""
    def bump(seat, key):
        into.setdefault(seat, {})
        into[seat][key] = into[seat].get(key, 0) + 1

    for uid, u in old.items():
        v = new.get(uid)
        if v is None or v.owner != u.owner:
            bump(u.owner, ("lost", u.kind))
        elif v.kind != u.kind:
            bump(u.owner, ("became", u.kind, v.kind))
    for uid, v in new.items():
        u = old.get(uid)
        if u is None:
            bump(v.owner, ("new", v.kind))
        elif u.owner != v.owner:
            bump(v.owner, ("took", v.kind))


def build(source) -> GameHistory:
    """History of a GameController or engine Session (anything with .session or .history/.game/.setup)."""
    sess = getattr(source, "session", source)
    return build_from(sess.game, sess.setup, sess.history)


def build_from(game, setup, history) -> GameHistory:
    """History from the rules, the setup and the effective history ((Action, source) pairs)."""
    state = game.initial_state(setup)
    seats = tuple(sorted(state.players))
    start = _snaps(game, state, seats)
    rounds = []
    cur = RoundRecord(state.round, state.first, False, start, start,
                      {s: {} for s in seats}, {s: {} for s in seats})
    prev_res = {s: dict(state.players[s].res) for s in seats}
    for i, (action, src) in enumerate(history):
        new = game.apply(state, action)
        if new.units is not state.units:
            _count_unit_changes(state.units, new.units, cur.units_changed)
        cur.actions.append((i, action.to_dict(), src))
        if cur.first is None:
            cur.first = new.first
        for s in seats:
            res = new.players[s].res
            old = prev_res[s]
            if res != old:
                for r, v in res.items():
                    d = v - old.get(r, 0)
                    if d > 0:
                        cur.gained[s][r] = cur.gained[s].get(r, 0) + d
                    elif d < 0:
                        cur.spent[s][r] = cur.spent[s].get(r, 0) - d
                prev_res[s] = dict(res)
        if new.events is not state.events and new.events:
            cur.events = dict(game.view(new)["events"])
        state = new
        if state.round != cur.round or state.over:
            cur.end = _snaps(game, state, seats)
            cur.finished = True
            rounds.append(cur)
            if state.over:
                break
            cur = RoundRecord(state.round, state.first, False, cur.end, cur.end,
                              {s: {} for s in seats}, {s: {} for s in seats})
    if not state.over:
        cur.end = _snaps(game, state, seats)
        rounds.append(cur)
    return GameHistory(seats, rounds, state.over)


# ---------------------------------------------------------------------------------------- deltas
def delta(rec: RoundRecord, seat) -> dict:
    """What changed for `seat` over the round: score (total and per item), resources gained/spent,
    development moves (track -> (from, to)), aspect moves, units by kind (net: + gained, - lost)
    and `unit_changes`: what happened to units, counted as it happened (lost, new, turned into)."""
    a, b = rec.start[seat], rec.end[seat]
    items = {k: v - a.score["items"].get(k, 0) for k, v in b.score["items"].items()}
    before, after = {}, {}
    for k in a.units.values():
        before[k] = before.get(k, 0) + 1
    for k in b.units.values():
        after[k] = after.get(k, 0) + 1
    units = {k: after.get(k, 0) - before.get(k, 0) for k in sorted(set(before) | set(after))}
    return {
        "total": b.score["total"] - a.score["total"],
        "items": {k: v for k, v in items.items() if v},
        "gained": dict(rec.gained.get(seat, {})),
        "spent": dict(rec.spent.get(seat, {})),
        "development": {t: (a.development[t], p) for t, p in b.development.items() if p != a.development[t]},
        "aspects": {t: (a.aspects[t], v) for t, v in b.aspects.items() if v != a.aspects[t]},
        "units": {k: n for k, n in units.items() if n},
        "unit_changes": dict(rec.units_changed.get(seat, {})),
        "event": rec.events.get(seat),
    }


def _signed(n) -> str:
    return f"+{n}" if n > 0 else str(n)


def delta_lines(rec: RoundRecord, seat) -> list:
    """Short lines (markup-free) describing `delta(rec, seat)`."""
    d = delta(rec, seat)
    out = []
    sc = f"Score {rec.end[seat].score['total']} ({_signed(d['total'])})"
    if d["items"]:
        sc += ": " + ", ".join(f"{nice(k)} {_signed(v)}" for k, v in d["items"].items())
    out.append(sc)
    res = []
    if d["gained"]:
        res.append("gained " + ", ".join(count(n, nice(r)) for r, n in d["gained"].items()))
    if d["spent"]:
        res.append("spent " + ", ".join(count(n, nice(r)) for r, n in d["spent"].items()))
    if res:
        out.append("Resources: " + "; ".join(res))
    moves = [f"{nice(t)} {DATA.dev[t][b]['name']}" for t, (_, b) in d["development"].items()]
    moves += [f"{nice(t)} {x}->{y}" for t, (x, y) in d["aspects"].items()]
    if moves:
        out.append("Tracks: " + ", ".join(moves))
    if d["event"]:
        out.append(f"Event {d['event']['number']}: {d['event']['name']}")
    units = unit_change_words(d["unit_changes"])
    if units:
        out.append("Units: " + units)
    return out


def unit_change_words(changes: dict) -> str:
    """{("lost", "cavalry"): 1, ("became", "settler", "cavalry"): 1, ...} -> "1 Settler became a
    Cavalry; lost 1 Cavalry" (upgrades, new, taken from another player, lost)."""
    became = [f"{count(n, nice(k[1]))} became {_a(nice(k[2])) if n == 1 else plural(nice(k[2]), n)}"
              for k, n in changes.items() if k[0] == "became"]
    new = [count(n, nice(k[1])) for k, n in changes.items() if k[0] == "new"]
    took = [count(n, nice(k[1])) for k, n in changes.items() if k[0] == "took"]
    lost = [count(n, nice(k[1])) for k, n in changes.items() if k[0] == "lost"]
    parts = became + [f"{word} {', '.join(items)}" for word, items in
                      (("new", new), ("took", took), ("lost", lost)) if items]
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------- game end
def end_reason_text(reason: str, name=lambda seat: seat, max_rounds=None) -> str:
    """One engine end reason ('p1:top_development', 'round_limit', ...) in words."""
    ge = DATA.rules["game_end"]
    if reason == "round_limit":
        return f"The round limit ({max_rounds}) was reached." if max_rounds else "The round limit was reached."
    seat, _, what = reason.partition(":")
    who = name(seat)
    if what == "top_development":
        return f"{who} reached the top of {ge['top_development_tracks']} Development tracks."
    if what == "top_aspects":
        return f"{who} reached level 6 on {ge['top_aspect_tracks']} Aspect tracks."
    if what == "six_cities":
        return f"{who} has {ge['cities']} Cities."
    if what.startswith("holds_capital_of_"):
        return f"{who} holds the Capital of {name(what[len('holds_capital_of_'):])}."
    return nice(reason)


# how a finished game was decided (the engine's decided_by), after the two totals
DECIDED_BY = {"total": "", "development": ", decided by development points",
              "aspects": ", decided by aspect points", "tie": ", tied on every count"}


def headline(result: dict, name=lambda seat: seat) -> str:
    w = result["winner"]
    return f"{name(w)} wins" if w else "Shared victory"


def tiebreak_text(result: dict, name=lambda seat: seat) -> str | None:
    """How a tied total was decided (the engine's decided_by and the values it compared), or
    None when the totals differ."""
    by = result["decided_by"]
    if by == "total":
        return None
    sc = result["score"]
    seats = sorted(sc)
    tot = sc[seats[0]]["total"]

    def pair(key):
        return " : ".join(f"{name(s)} {sc[s][key]}" for s in seats)

    text = f"Totals tied at {tot}. Tie-break 1, development points: {pair('development_points')}"
    if by == "development":
        return text + f" - {name(result['winner'])} wins on development points."
    text += f" (equal). Tie-break 2, aspect points: {pair('aspect_points')}"
    if by == "aspects":
        return text + f" - {name(result['winner'])} wins on aspect points."
    return text + " (equal) - a shared victory."
