"""What one seat's phone is sent, built from that seat's view of the game only (no Kivy, no network).

`SeatStates(ctrl)` reads the controller on the thread that owns it. For a seat it builds one plain
JSON-ready dict (`state(seat)`): the header and prompt, every seat's panel, the score, that seat's
decision (the same narrowing as the tablet's pickers, `companion.decisions`), the Log and what to
do at the table. Everything in it is read from `seat_view(state, seat)`, the game's own answer to
"what may this seat read" (today the bots' fair-play `observe`), never from the full state:

* the words (header, prompt, panels, score) are the game view's words for the seat's view;
* the seat's legal actions, their labels and the pickers are the engine's for the seat's view, so
  a choice that would name another seat's hidden card (a named steal) is not offered;
* a Log entry (and its table changes) is shown in full only when the action did not put anything
  into the hidden part of the state for this seat (`hidden_from`): a card dealt into another hand,
  another player's face-down Lotto plan. Otherwise the seat reads "a move you may not see".

A phone sends picks by index into the question it was shown and a whole action with the journal
position it saw (`position()`, the journal's last row: it moves on with every action and undo).
"""
from __future__ import annotations

import collections
import re

from companion.decisions import WHOLE, Decision, StalePick
from companion.engine.errors import Rejected

LOG_LIMIT = 30        # log entries a phone is sent, newest first
STALE = "The game has moved on since your phone showed it; here is the table as it is now."
HIDDEN_MOVE = "A move you may not see (it concerns another player's hidden cards)."
HIDDEN_CHECK = ("The app cannot check that move from what your phone may show (it depends on "
                "another player's hidden cards): make it on the tablet.")
_MARKUP = re.compile(r"\[/?(?:b|i|u|s|sub|sup|color|size|font|ref|anchor)(?:=[^\]]*)?\]")


def plain(text) -> str:
    """The view's words without Kivy markup ("[b]Ana[/b]" -> "Ana")."""
    return _MARKUP.sub("", str(text or ""))


# ---------------------------------------------------------------- what a view leaves out

def _leaves(obj, out, depth=0):
    """Every scalar in `obj` (a state: slots, dicts, sequences), as (type, value) pairs."""
    if obj is None or isinstance(obj, (str, int, float, bool)):
        out.append((obj.__class__, obj))
    elif depth > 40:
        return
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _leaves(k, out, depth + 1)
            _leaves(v, out, depth + 1)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for v in obj:
            _leaves(v, out, depth + 1)
    else:
        names = getattr(obj.__class__, "__slots__", None) or list(getattr(obj, "__dict__", {}))
        for name in names:
            if name == "cache" or name.startswith("_"):  # derived, rebuilt on demand
                continue
            _leaves(getattr(obj, name, None), out, depth + 1)


def _view_leaves(module, state, seat) -> collections.Counter:
    out = []
    _leaves(module.seat_view(state, seat), out)
    return collections.Counter(out)


def entry_hidden(module, before, action: dict, after, seat) -> bool:
    """True when the words of `action` (taken from `before` to `after`) may tell `seat` something
    its view does not: the action put something into the part of the state `seat` cannot see (a
    card dealt into another hand), or it names a value `seat`'s view hides (before or after) that
    did not come into sight by it (a plan drawn from the hidden deck into another's face-down
    Lotto). A value that came into sight (a plan drawn into the supply, a card played from a
    hand) leaves the words open. Counted as a multiset: a card with copies is judged by its
    copies in sight."""
    hid_before, hid_after = hidden_part(module, before, seat), hidden_part(module, after, seat)
    if hid_after - hid_before:
        return True
    hidden = set(hid_before) | set(hid_after)
    if not hidden:
        return False
    named = []
    _leaves(action, named)
    named = [v for v in named if v in hidden]
    if not named:
        return False
    came = _view_leaves(module, after, seat) - _view_leaves(module, before, seat)
    return any(came[v] <= 0 for v in named)


def hidden_part(module, state, seat) -> collections.Counter:
    """The values of `state` that `seat`'s view leaves out (a multiset; empty when it hides nothing)."""
    view = module.seat_view(state, seat)
    if view is state:
        return collections.Counter()
    full, seen = [], []
    # compared as copies: a copy leaves out what a state keeps only for the action that made it
    # (Mint Works' events), as the view (a copy) does
    _leaves(state.copy() if hasattr(state, "copy") else state, full)
    _leaves(view, seen)
    return collections.Counter(full) - collections.Counter(seen)


# ---------------------------------------------------------------- the states of every seat

class SeatStates:
    """The per-seat JSON of one game, and each seat's decision in progress."""

    def __init__(self, ctrl):
        self.ctrl = ctrl
        self.module = ctrl.module
        self._hidden_from: dict[int, frozenset] = {}  # log seq -> seats that entry is hidden from
        self._decisions: dict[str, tuple] = {}        # seat -> (position, legal actions, Decision)
        self._shared_players = None                   # ((position, state id), panels) for unhidden views
        self._noted = None                            # the position _note_history last saw

    # ---------------------------------------------------------------- reading the controller
    def position(self) -> int:
        """The journal position a phone's action must carry: the last row (actions and undos)."""
        return self.ctrl.journal.last_seq

    def seats(self) -> list:
        return list(self.ctrl.seats())

    def view_state(self, seat):
        return self.module.seat_view(self.ctrl.state, seat)

    def _note_history(self):
        """Which seats each effective Log entry is hidden from (kept by seq: an undone entry keeps
        its answer). Once per position."""
        if self._noted == self.position():
            return
        self._noted = self.position()
        seats = self.seats()
        for entry, before, after in self.ctrl.history.effective():
            if entry.seq in self._hidden_from:
                continue
            # a seat knows its own move; the others read its words only when they tell nothing hidden
            self._hidden_from[entry.seq] = frozenset(
                s for s in seats if s != entry.actor and entry_hidden(self.module, before, entry.action, after, s))

    def hidden_from(self, seq: int, seat) -> bool:
        """True when the Log entry `seq` must not be shown to `seat` (unknown: hidden, to be safe,
        unless the game hides nothing from anyone)."""
        got = self._hidden_from.get(seq)
        if got is None:
            return self._hides_anything()
        return seat in got

    def _hides_anything(self) -> bool:
        st = self.ctrl.state
        return any(self.module.seat_view(st, s) is not st for s in self.seats())

    def legal_for(self, seat, view=None) -> list[dict]:
        """The actions `seat` may take now, read from its view ([] while the app plays a seat)."""
        c = self.ctrl
        g = c.game
        st = self.view_state(seat) if view is None else view
        if g.is_over(c.state):
            return []
        actor = g.actor(c.state)
        if actor is not None and actor in c.app_seats():
            return []
        if self.drawing():  # a card named as it comes off a deck: the tablet records it (the
            return []       # phone's list would be the deck as only the tablet may know it)
        try:
            return [a.to_dict() for a in g.legal_actions_for(st, seat)]
        except Exception:  # noqa: BLE001 - a view the rules cannot read: the tablet decides
            return []

    def drawing(self) -> bool:
        """A seat draws at the table now (the table names the card, on the tablet)."""
        try:
            return bool(self.module.hooks(self.ctrl.game).is_draw(self.ctrl.state))
        except Exception:  # noqa: BLE001
            return False

    def decision(self, seat, view=None):
        """(legal actions, Decision) of `seat` at the current position, made once per position."""
        pos = self.position()
        got = self._decisions.get(seat)
        if got is not None and got[0] == pos:
            return got[1], got[2]
        acts, dec = self.new_decision(seat, view)
        self._decisions[seat] = (pos, acts, dec)
        return acts, dec

    def new_decision(self, seat, view=None):
        """(legal actions, a fresh Decision over them or None) of `seat` now, from its view."""
        c, st = self.ctrl, self.view_state(seat) if view is None else view
        acts = self.legal_for(seat, st)
        g, su, v = c.game, c.setup, c.view
        if not acts:
            return acts, None
        return acts, Decision(acts, lambda a: plain(v.action_label(a, st, su)),
                              lambda t: v.picks(g, t, st, su),
                              lambda t, f, val: plain(v.value_label(g, st, su, t, f, val)), v.type_label)

    # ---------------------------------------------------------------- a phone's picks
    def pick(self, seat, at, field, option) -> str | None:
        """Pick option number `option` of the question about `field`; the reason when refused."""
        if at != self.position():
            return STALE
        _, dec = self.decision(seat)
        q = dec.question() if dec is not None else None
        if dec is None or q is None or q.field != field or not 0 <= option < len(q.options):
            return "That choice is no longer offered; here are the choices as they are now."
        try:
            dec.choose(field, q.options[option][0])
        except StalePick as exc:
            return str(exc)
        return None

    def back(self, seat, at, field=None) -> str | None:
        if at != self.position():
            return STALE
        _, dec = self.decision(seat)
        if dec is not None:
            if field is None:
                dec.reset()
            else:
                dec.back(field)
        return None

    def refusal(self, seat, at, action) -> str | None:
        """Why a phone of `seat` may not send `action` at position `at` (checked against what
        the seat's view allows), or None."""
        if at != self.position():
            return STALE
        acts, _ = self.decision(seat)
        if action in acts:
            return None
        owner = action.get("player", action.get("seat"))
        if isinstance(owner, str) and owner != seat and owner in self.seats():
            return f"That is {self.ctrl.name(owner)}'s decision, not yours."
        actor = self.ctrl.game.actor(self.ctrl.state)
        if actor != seat and not acts:
            return "It is not your decision now."
        try:  # the rules' own reason, read on the seat's view (never on the full state)
            self.ctrl.game.check(self.view_state(seat), self.ctrl.game.action_from_dict(action))
        except Rejected as exc:
            return self.ctrl.refusal_text(exc)
        except Exception:  # noqa: BLE001
            return "The app could not read that move; nothing changed."
        return "That move is not one you can make now."

    # ---------------------------------------------------------------- the JSON of one seat
    def state(self, seat, todo=None) -> dict:
        """Everything `seat`'s phone shows, from its view. `todo`: the open table items
        [{seq, text}] (the caller reads them once for every seat)."""
        c = self.ctrl
        g, su, v = c.game, c.setup, c.view
        st = self.view_state(seat)
        self._note_history()
        over = g.is_over(c.state)
        actor = g.actor(c.state)
        app_turn = (not over and actor is not None and actor in c.app_seats())
        dice = c.dice_request()
        dice_out = None
        if dice is not None:
            dice_out = {"kind": dice.get("kind", "dice"), "roll": str(dice.get("roll") or ""),
                        "count": int(dice.get("count") or 0),
                        "who": c.name(dice["who"]) if dice.get("who") else "",
                        "mine": dice.get("who") in (None, seat)}
        elif not over and self.drawing():
            dice_out = {"kind": "draw", "roll": "A card is drawn at the table", "count": 0,
                        "who": c.name(actor) if actor in su.get("players", {}) else "", "mine": actor == seat}
        words = _safe(lambda: plain(v.prompt(g, st, su, dice)), "")
        if app_turn:
            words = (f"The app is choosing {c.name(actor)}'s move. Wait a moment: then it says what "
                     "to do at the table.")
        out = {
            "type": "state", "at": self.position(), "seat": seat, "game": self.module.id,
            "title": self.module.title,
            "you": {"name": c.name(seat), "colour": c.colour(seat)},
            "header": _safe(lambda: plain(v.header(g, st, su)), ""),
            "prompt": words, "over": over,
            "turn": {"seat": actor if actor in su.get("players", {}) else None,
                     "name": c.name(actor) if actor in su.get("players", {}) else "",
                     "mine": actor == seat, "app": app_turn},
            "dice": dice_out,
            "players": self._players(seat, st),
            "decision": None if over else self._decision_json(seat, st),
            "log": self._log(seat),
            "todo": [it["text"] for it in (todo or []) if not self.hidden_from(it.get("seq", -1), seat)
                     or it.get("seq") is None],
        }
        return out

    def _players(self, seat, st) -> list:
        """Every seat's panel as `seat` sees it. A view that is the whole state (nothing hidden
        from `seat`) gives the same panels to every such seat: made once per position."""
        if st is self.ctrl.state:
            key = (self.position(), id(st))
            if self._shared_players is None or self._shared_players[0] != key:
                self._shared_players = (key, self._players_of(None, st))
            base = self._shared_players[1]
            own = _safe(lambda: self.ctrl.view.private_lines(self.ctrl.game, st, self.ctrl.setup, seat), [])
            return [dict(p, you=p["seat"] == seat, lines=p["lines"] + ([_line(x) for x in own] if p["seat"] == seat else []))
                    for p in base]
        return self._players_of(seat, st)

    def _players_of(self, seat, st) -> list:
        c = self.ctrl
        g, su, v = c.game, c.setup, c.view
        snap = _safe(lambda: v.snapshot(g, st, su), {}) or {}
        given = snap.get("players", {}) if isinstance(snap, dict) else {}
        score = _safe(lambda: v.score(g, st), {}) or {}
        actor = g.actor(c.state)
        out = []
        for s in self.seats():
            p = dict(given.get(s, {}))
            p.setdefault("seat", s)
            p.setdefault("name", c.name(s))
            p.setdefault("colour", c.colour(s))
            p.setdefault("score", score.get(s))
            lines = _safe(lambda: v.player_lines(g, st, su, s, p), [])
            if s == seat:  # what only this seat's phone shows (its face-down cards)
                lines = list(lines) + list(_safe(lambda: v.private_lines(g, st, su, s), []))
            total = p["score"]
            if isinstance(total, dict):
                total = total.get("total")
            out.append({"seat": s, "name": c.name(s), "colour": c.colour(s), "you": s == seat,
                        "active": s == actor, "score": total if isinstance(total, (int, float)) else None,
                        "lines": [_line(x) for x in lines]})
        return out

    def _decision_json(self, seat, st):
        acts, dec = self.decision(seat, st)
        if dec is None:
            return None
        q = dec.question()
        done = dec.complete()
        c = self.ctrl
        return {
            "count": len(acts),
            "trail": [{"field": f, "label": plain(label)} for f, label in dec.trail()]
            + ([{"field": WHOLE, "label": plain(c.view.action_label(dec.whole, st, c.setup))}]
               if dec.whole is not None else []),
            "question": None if q is None else {
                "field": q.field, "kind": q.kind, "text": plain(q.text),
                "options": [plain(label) for _, label in q.options]},
            "complete": None if done is None else {
                "action": done, "label": plain(c.view.action_label(done, st, c.setup))},
        }

    def _log(self, seat) -> list:
        c = self.ctrl
        out = []
        for e in c.history.newest_first(LOG_LIMIT):
            target = e.undo_of if e.undo_of is not None else e.seq
            if self.hidden_from(target, seat):
                text = ("Undo: " if e.undo_of is not None else "") + HIDDEN_MOVE
                out.append({"seq": e.seq, "text": text, "effects": [], "undone": e.undone})
                continue
            out.append({"seq": e.seq, "text": plain(e.text) + (f" ({e.how})" if e.how else ""),
                        "effects": [plain(x) for x in e.effects], "undone": e.undone})
        return out


def _line(line) -> list:
    """A panel line as [label, value, "block" or ""] (the view gives a string or a tuple)."""
    if isinstance(line, (tuple, list)):
        parts = [plain(x) for x in line[:3]]
        return (parts + ["", "", ""])[:3] if len(parts) > 1 else ["", parts[0] if parts else "", ""]
    return ["", plain(line), ""]


def _safe(fn, default):
    """A game's words for a phone: a failure (a view the words cannot read) shows nothing there
    rather than stopping every phone."""
    try:
        return fn()
    except Exception:  # noqa: BLE001
        return default
