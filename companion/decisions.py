"""A decision built step by step from the legal actions (no Kivy): the shell's pickers.

The game screen never lists every combination as a button. It asks `Decision.question()` for the
next thing to pick - which kind of action, then each field the game declares
(`GameView.picks`: an area, a card, a count, a unit, a seat, yes/no) - offering only the values
that still lead to a legal action, so a pick narrows the next question to what is legal there.
Once a screenful or fewer of actions remain, they are offered whole, by the game's own words for
them. The decision is complete when one legal action remains: that is what Confirm applies.

A pick that is no longer legal (a tap on a control a newer decision replaced, a stale value)
raises `StalePick` and changes nothing.
"""
from __future__ import annotations

import dataclasses

from companion.games.contract import Pick
from companion.words import nice

SCREENFUL = 8   # at most this many whole actions are offered at once
TYPE_FIELD = "type"
WHOLE = "_action"  # the question "which of these actions?" (options are whole actions)


class StalePick(ValueError):
    """A value that does not lead to a legal action now."""


def _key(v):
    """A hashable stand-in for an action field value (lists and dicts included)."""
    if isinstance(v, list):
        return ("l",) + tuple(_key(x) for x in v)
    if isinstance(v, dict):
        return ("d",) + tuple(sorted((k, _key(x)) for k, x in v.items()))
    return v


@dataclasses.dataclass
class Question:
    field: str          # the action field asked for (TYPE_FIELD, WHOLE, or a field name)
    kind: str           # a Pick kind: area, card, count, unit, seat, yesno, choice
    text: str           # the question in plain words
    options: list       # [(value, label)] - value is an action dict when field is WHOLE


def _default_question(kind, field) -> str:
    if kind == "count":
        return f"How many ({nice(field).lower()})?"
    if kind == "seat":
        return "Which player?"
    if kind == "yesno":
        return f"{nice(field)}?"
    return f"Which {nice(field).lower()}?"


class Decision:
    """The legal actions of one moment, narrowed by the picks made so far.

    `label(action)` words a whole action; `picks(type)` the game's declared fields for a type;
    `value_label(type, field, value)` words one value; `type_label(type)` words an action type."""

    def __init__(self, actions, label, picks, value_label, type_label, unavailable=None,
                 prompt: str = "", step_end_types=()):
        self.actions = [a for a in actions]
        self._label, self._picks = label, picks
        self._value_label, self._type_label = value_label, type_label
        self._unavailable = unavailable  # (type, field, typed) -> why nothing matches, or None
        self.chosen: dict = {}      # field -> value, in the order picked
        self.whole = None           # the whole action picked from a short list
        self._named = self._find_named(prompt, step_end_types)

    # ------------------------------------------------------------------ named choices
    def _find_named(self, prompt, step_end_types) -> list:
        """[(action, button words)]: the choices that get a button of their own beside the
        questions - each action the prompt names ("tap No combat") and each that ends the
        player's step (`step_end_types`: "Done defending", "pass")."""
        said = " ".join(prompt.lower().split())
        out, seen = [], set()
        for a in self.actions:
            words = self.short_label(a)
            if not words or words in seen:
                continue
            if a.get("type") in step_end_types or f"tap {words.lower()}" in said:
                seen.add(words)
                out.append((a, words))
        return out

    def short_label(self, action) -> str:
        """The action's words without the acting player's name, first letter up ("No combat")."""
        text = self._label(action)
        if "player" in action and ": " in text:
            text = text.split(": ", 1)[1]
        return text[:1].upper() + text[1:]

    def named(self) -> list:
        """[(action, button words)] of the named choices (see `_find_named`)."""
        return list(self._named)

    def choose_named(self, action):
        """A named choice's button: that action, whatever was picked before."""
        if not any(_key(a) == _key(action) for a, _ in self._named):
            raise StalePick("That choice is no longer possible.")
        self.reset()
        self.whole = action

    # ------------------------------------------------------------------ state
    def candidates(self) -> list:
        if self.whole is not None:
            return [self.whole]
        out = self.actions
        for f, v in self.chosen.items():
            k = _key(v)
            out = [a for a in out if _key(a.get(f)) == k]
        return out

    def complete(self) -> dict | None:
        """The action once the player's picks leave exactly one (never before the first pick:
        a lone legal action is still the player's to choose)."""
        c = self.candidates()
        return c[0] if len(c) == 1 and (self.whole is not None or self.chosen) else None

    def _fields(self, atype) -> list:
        """The fields a player picks for `atype`: the game's declared picks first, then every
        other field that varies among the candidates, in the order the actions name them."""
        declared = list(self._picks(atype) or ())
        names = [p.field for p in declared]
        for a in self.actions:
            if a.get("type") == atype:
                for f in a:
                    if f != "type" and f not in names:
                        names.append(f)
                        declared.append(Pick(f, "choice", ""))
        return declared

    def question(self) -> Question | None:
        """The next thing to pick, or None when the decision is complete (or there is nothing
        left but the named choices, which have their own buttons)."""
        if self.complete() is not None:
            return None
        cands = self.candidates()
        if not self.chosen:
            named = {_key(a) for a, _ in self._named}
            cands = [a for a in cands if _key(a) not in named]
        if not cands:
            return None
        types = list(dict.fromkeys(a["type"] for a in cands))
        if len(cands) <= SCREENFUL:
            one = self._one_declared_field(cands, types)
            if one is not None:  # only one declared pick varies: ask it in the game's words
                return one
            return Question(WHOLE, "choice", "Choose one:", self._whole(cands))
        if len(types) > 1:
            return Question(TYPE_FIELD, "choice", "What do you do?",
                            [(t, self._type_label(t)) for t in types])
        atype = types[0]
        for pick in self._fields(atype):
            if pick.field in self.chosen:
                continue
            values = list({_key(a.get(pick.field)): a.get(pick.field) for a in cands}.values())
            if len(values) <= 1:
                continue
            kind = pick.kind
            if kind == "count" and not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                kind = "choice"
            if kind == "count":
                values.sort()
            text = pick.question or _default_question(kind, pick.field)
            return Question(pick.field, kind, text, self._options(cands, atype, pick.field, values))
        # nothing left that varies by field (should not happen): the whole actions
        return Question(WHOLE, "choice", "Choose one:", self._whole(cands))

    def _whole(self, cands) -> list:
        """[(action, label)] of whole actions, twins merged: actions the game words alike (two like
        units on one space moved to the same space) are one option, the first of them."""
        out, seen = [], set()
        for a in cands:
            label = self._label(a)
            if label not in seen:
                seen.add(label)
                out.append((a, label))
        return out

    def _one_declared_field(self, cands, types):
        """The question of the one field the game declares with words, when the candidates
        (all of one type) differ in that field alone; else None."""
        if len(types) != 1:
            return None
        atype = types[0]
        varying = [f for f in {k for a in cands for k in a} - {"type"}
                   if len({_key(a.get(f)) for a in cands}) > 1]
        if len(varying) != 1:
            return None
        pick = next((p for p in (self._picks(atype) or ()) if p.field == varying[0]), None)
        if pick is None or not pick.question:
            return None
        values = list({_key(a.get(pick.field)): a.get(pick.field) for a in cands}.values())
        return Question(pick.field, pick.kind, pick.question, self._options(cands, atype, pick.field, values))

    def _options(self, cands, atype, field, values) -> list:
        """[(value, label)] for `field`, twins merged: values the table cannot tell apart (the
        same words) that leave the same choices after them (two like units on one space) are
        one option. Values worded alike that lead to different choices stay apart."""
        out, seen = [], {}
        for v in values:
            label = self._value_label(atype, field, v)
            if label in seen:
                rest = self._after(cands, field, v)
                if any(self._after(cands, field, w) == rest for w in seen[label]):
                    continue
                seen[label].append(v)
            else:
                seen[label] = [v]
            out.append((v, label))
        return out

    @staticmethod
    def _after(cands, field, value) -> set:
        k = _key(value)
        return {_key({f: x for f, x in a.items() if f != field}) for a in cands if _key(a.get(field)) == k}

    def why_not(self, field, typed: str) -> str | None:
        """The game's reason why nothing it may pick for `field` now matches `typed` (a card
        that can no longer be in the deck), or None."""
        if self._unavailable is None or not typed.strip():
            return None
        atype = self.chosen.get(TYPE_FIELD) or next((a["type"] for a in self.candidates()), None)
        try:
            return self._unavailable(atype, field, typed.strip())
        except Exception:  # a game's words must never break the picker
            return None

    # ------------------------------------------------------------------ picking
    def choose(self, field, value):
        """Pick `value` for `field` (StalePick when it leads to no legal action now)."""
        if field == WHOLE:
            if not any(_key(a) == _key(value) for a in self.candidates()):
                raise StalePick("That choice is no longer possible.")
            self.whole = value
            return
        k = _key(value)
        if not any(_key(a.get(field)) == k for a in self.candidates()):
            raise StalePick("That choice is no longer possible.")
        self.chosen[field] = value

    def back(self, field=None):
        """Undo the pick of `field` and every later one (None: the latest pick)."""
        if self.whole is not None:
            self.whole = None
            if field is None or field == WHOLE:
                return
        if not self.chosen:
            return
        names = list(self.chosen)
        at = names.index(field) if field in names else len(names) - 1
        for f in names[at:]:
            del self.chosen[f]

    def reset(self):
        self.chosen.clear()
        self.whole = None

    def trail(self) -> list:
        """[(field, label)] of the picks made so far, for the chips above the question."""
        out = []
        atype = self.chosen.get(TYPE_FIELD)
        for f, v in self.chosen.items():
            if f == TYPE_FIELD:
                out.append((f, self._type_label(v)))
            else:
                t = atype or next((a["type"] for a in self.candidates()), "")
                out.append((f, self._value_label(t, f, v)))
        return out
