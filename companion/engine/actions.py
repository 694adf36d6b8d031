"""Actions as serialisable value objects, and the schema that rebuilds them from dicts.

An action is `Action(type, **params)`; `to_dict()` gives `{"type": ..., **params}` with plain JSON
values, `ActionCodec.from_dict(d)` validates a dict against the game's schemas and rebuilds the
action (raising `MalformedAction` with a clear message). Actions are immutable and hashable.
"""
from __future__ import annotations

from .errors import MalformedAction

SEATS = ("p1", "p2")  # the default seats of a codec (two-player games)


def seats_of(n: int) -> tuple:
    """The seat ids of an n-player game: p1..pn."""
    return tuple(f"p{i + 1}" for i in range(n))


_PLAIN = (str, int, type(None))


def _freeze(v):
    if type(v) in _PLAIN:  # the usual field: nothing to freeze
        return v
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    return v


def _thaw(v, kind):
    if kind in ("ints", "dice", "strs"):
        return list(v)
    if kind == "res_map" or kind == "pick_map":
        return {str(k): x for k, x in v}
    return v


_set = object.__setattr__
_new = object.__new__
_NO_KINDS: dict = {}


class Action:
    """An immutable action value. Params are read with `a["name"]` or `a.get("name")`."""

    __slots__ = ("type", "_p", "_kinds", "_h")

    def __init__(self, type: str, kinds: dict | None = None, **params):
        _set(self, "type", type)
        _set(self, "_p", {k: (v if v.__class__ in _PLAIN else _freeze(v)) for k, v in params.items()})
        _set(self, "_kinds", kinds or _NO_KINDS)
        _set(self, "_h", None)

    def __setattr__(self, k, v):
        raise AttributeError("Action is immutable")

    def __getitem__(self, k):
        return self._p[k]

    def get(self, k, default=None):
        return self._p.get(k, default)

    @property
    def params(self) -> dict:
        return dict(self._p)

    def to_dict(self) -> dict:
        d = {"type": self.type}
        for k, v in self._p.items():
            d[k] = _thaw(v, self._kinds.get(k))
        return d

    def __eq__(self, other):
        return isinstance(other, Action) and self.type == other.type and self._p == other._p

    def __hash__(self):
        h = self._h
        if h is None:
            h = hash((self.type, tuple(sorted(self._p.items()))))
            object.__setattr__(self, "_h", h)
        return h

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self._p.items())
        return f"Action({self.type!r}{', ' if inner else ''}{inner})"


# field kinds and their validators ---------------------------------------------------------------

def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


_QUICK = {"int": lambda v, seats: v.__class__ is int, "die": lambda v, seats: v.__class__ is int,
          "str": lambda v, seats: v.__class__ is str and v != "", "seat": lambda v, seats: v in seats}


def _check(kind, v, name, t, seats=SEATS):
    q = _QUICK.get(kind)
    if q is not None and q(v, seats):  # the usual, valid case: one test
        return

    def bad(why):
        raise MalformedAction(f"action {t!r}: field {name!r} {why} (got {v!r})")

    if kind == "seat":
        if v not in seats:
            bad("must be one of " + ", ".join(repr(x) for x in seats))
    elif kind == "int":
        if not _is_int(v):
            bad("must be an integer")
    elif kind == "die":
        if not _is_int(v):
            bad("must be an integer die value")
    elif kind == "str":
        if not isinstance(v, str) or not v:
            bad("must be a non-empty string")
    elif kind in ("ints", "dice"):
        if not isinstance(v, (list, tuple)) or not all(_is_int(x) for x in v):
            bad("must be a list of integers")
    elif kind == "strs":
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) and x for x in v):
            bad("must be a list of strings")
    elif kind == "res_map":
        if not isinstance(v, dict) or not all(isinstance(k, str) and _is_int(x) for k, x in v.items()):
            bad("must be an object of resource -> integer")
    elif kind == "pick_map":
        if not isinstance(v, dict) or not all(isinstance(k, str) and isinstance(x, str) for k, x in v.items()):
            bad("must be an object of unit id (as string) -> resource")
    else:  # pragma: no cover - schema error
        raise ValueError(f"unknown field kind {kind!r}")


class ActionSchema:
    """Shape of one action type: required and optional fields with kinds; `chance` marks dice rolls."""

    __slots__ = ("type", "required", "optional", "chance", "kinds")

    def __init__(self, type, required=None, optional=None, chance=False):
        self.type = type
        self.required = dict(required or {})
        self.optional = dict(optional or {})
        self.chance = chance
        self.kinds = {**self.required, **self.optional}


def _plain(params: dict) -> dict:
    """The params as an action keeps them: the same dict when every value is plain (the usual
    case, no copy), else a copy with lists and dicts frozen."""
    for v in params.values():
        if v.__class__ not in _PLAIN:
            return {k: _freeze(x) for k, x in params.items()}
    return params


def _raw(type, params, kinds) -> Action:
    """An Action from fields already checked and frozen (no __init__: the hot path)."""
    a = _new(Action)
    _set(a, "type", type)
    _set(a, "_p", params)
    _set(a, "_kinds", kinds)
    _set(a, "_h", None)
    return a


class ActionCodec:
    """Builds and validates actions of one game."""

    def __init__(self, schemas, seats=SEATS):
        self.schemas = {s.type: s for s in schemas}
        self.seats = tuple(seats)  # what a "seat" field may hold

    def make(self, type, **params) -> Action:
        """Build an action from Python values (validated like from_dict)."""
        return self.from_dict({"type": type, **params})

    def fast(self, type, **params) -> Action:
        """Build an action without validation (the engine's own generators): the legal-action
        lists are made of these, so this is the short path (no copy of plain fields)."""
        return _raw(type, _plain(params), self.schemas[type].kinds)

    def maker(self, type):
        """A constructor of `type` actions from a dict of plain fields (str, int): for a generator
        that lists hundreds of them (no checks, no copies; the dict becomes the action's own)."""
        kinds = self.schemas[type].kinds

        def make(params):
            return _raw(type, params, kinds)
        return make

    def from_dict(self, d) -> Action:
        if isinstance(d, Action):
            d = d.to_dict()
        if not isinstance(d, dict):
            raise MalformedAction(f"an action must be a dict, not {type(d).__name__}")
        t = d.get("type")
        if not isinstance(t, str):
            raise MalformedAction(f"an action needs a string 'type' field, got {t!r}")
        s = self.schemas.get(t)
        if s is None:
            raise MalformedAction(f"unknown action type {t!r}; known: {', '.join(sorted(self.schemas))}")
        params = {}
        for name, kind in s.required.items():
            if name not in d:
                raise MalformedAction(f"action {t!r}: missing field {name!r}")
            _check(kind, d[name], name, t, self.seats)
            params[name] = d[name]
        for name, kind in s.optional.items():
            if name in d and d[name] is not None:
                _check(kind, d[name], name, t, self.seats)
                params[name] = d[name]
        kinds = s.kinds
        for k in d:
            if k not in kinds and k != "type":
                extra = set(d) - set(kinds) - {"type"}
                raise MalformedAction(f"action {t!r}: unknown field(s) {', '.join(sorted(extra))}")
        return _raw(t, _plain(params), kinds)

    def is_chance(self, d) -> bool:
        t = d.type if isinstance(d, Action) else (d.get("type") if isinstance(d, dict) else None)
        s = self.schemas.get(t)
        return bool(s and s.chance)
