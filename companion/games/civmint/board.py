"""The map: four map card faces in a 2x2 grid (data/maps.json), spaces r<row>c<col>, orthogonal adjacency."""
from __future__ import annotations

from companion.engine.errors import SetupError

from .data_load import DATA

LETTERS = {"F": "food", "W": "wood", "S": "stone", "M": "metal", "$": "money"}
OFFSETS = {"nw": (0, 0), "ne": (0, 1), "sw": (1, 0), "se": (1, 1)}


class Space:
    __slots__ = ("id", "row", "col", "water", "res", "capital", "face")

    def __init__(self, id, row, col, water, res, capital, face):
        self.id, self.row, self.col, self.water, self.res, self.capital, self.face = (
            id, row, col, water, res, capital, face)

    def to_dict(self):
        return {"id": self.id, "row": self.row, "col": self.col, "water": self.water,
                "resources": list(self.res), "capital": self.capital, "card": self.face}


def parse_token(tok: str):
    water = tok.startswith("~")
    capital = tok.startswith("C")
    body = tok.lstrip("~C")
    res = []
    for ch in body:
        if ch not in LETTERS:
            raise SetupError(f"map token {tok!r}: unknown letter {ch!r}")
        res.append(LETTERS[ch])
    return water, capital, tuple(res)


class Board:
    """Immutable map shared by every state of a game."""

    def __init__(self, layout: dict, capitals: dict | None = None):
        faces = DATA.maps["faces"]
        n = DATA.maps["card_size"]
        if set(layout) != set(OFFSETS):
            raise SetupError(f"map layout needs exactly the positions {sorted(OFFSETS)}, got {sorted(layout)}")
        cards = [f[:-1] for f in layout.values()]
        if len(set(cards)) != 4:
            raise SetupError(f"map layout uses a card twice (faces {sorted(layout.values())}); a card has two faces")
        self.layout = dict(layout)
        self.size = 2 * n
        self.spaces = {}
        for pos, face in layout.items():
            if face not in faces:
                raise SetupError(f"unknown map face {face!r}")
            r0, c0 = OFFSETS[pos]
            for r, row in enumerate(faces[face]):
                for c, tok in enumerate(row):
                    R, C = r0 * n + r, c0 * n + c
                    sid = f"r{R}c{C}"
                    water, cap, res = parse_token(tok)
                    self.spaces[sid] = Space(sid, R, C, water, res, cap, face)
        self.ids = tuple(sorted(self.spaces, key=lambda s: (self.spaces[s].row, self.spaces[s].col)))
        self.adj = {}
        for sid, sp in self.spaces.items():
            nb = []
            for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
                o = f"r{sp.row + dr}c{sp.col + dc}"
                if o in self.spaces:
                    nb.append(o)
            self.adj[sid] = tuple(nb)
        caps = [s for s in self.ids if self.spaces[s].capital]
        if len(caps) != 2:
            raise SetupError(f"the map must show exactly two Capital Cities, this layout shows {len(caps)}")
        if capitals:
            if set(capitals) != {"p1", "p2"} or set(capitals.values()) != set(caps):
                raise SetupError(f"capitals must assign p1 and p2 to the two capital spaces {caps}")
            self.home = dict(capitals)
        else:
            self.home = {"p1": caps[0], "p2": caps[1]}
        self.capital_of = {v: k for k, v in self.home.items()}
        self.land = frozenset(s for s in self.ids if not self.spaces[s].water)
        self.water = frozenset(s for s in self.ids if self.spaces[s].water)

    def to_dict(self):
        return {"layout": self.layout, "home": self.home,
                "spaces": [self.spaces[s].to_dict() for s in self.ids]}
