"""Mint Works (1-4 players, worker placement; solitaire against four AIs): `GAME` is its
engine.Game, `MODULE` what the shell gets. rules.py (+ ai.py, scoring.py) hold the rules,
data/*.json the cards, view.py the plain words, sensing.py the Mint counters on the board.
Register and trace: docs/mint_works-register.md, docs/mint_works-trace.md."""
from __future__ import annotations

from companion.engine.errors import SetupError
from companion.games.contract import GameModule, Option

from companion.words import COLOURS

from .hooks import MintWorksHooks
from .rules import MAX_PLAYERS, MintWorks
from .sensing import SENSING
from .view import VIEW

GAME = MintWorks()

_ADV = GAME.data.advanced
ADVANCED_CHOICES = ([["none", "None (basic)"], ["random", "At random"]]
                    + [[a, GAME.data.loc_name(a)] for a in _ADV]
                    + [[f"{a}+{b}", f"{GAME.data.loc_name(a)} + {GAME.data.loc_name(b)}"]
                       for i, a in enumerate(_ADV) for b in _ADV[i + 1:]])


def make_setup(players: list, options: dict) -> dict:
    """The engine's setup from the new-game form (ValueError / SetupError in plain words)."""
    setup = {"players": {f"p{i + 1}": {"name": p["name"], "colour": p["colour"]} for i, p in enumerate(players)}}
    opponent = options.get("opponent") or "justin"
    if len(players) > 1:
        opponent = "none"  # MW-R25: the solitaire opponent applies to a game of one player only
    setup["opponent"] = None if opponent == "none" else opponent
    if len(players) == 1 and setup["opponent"] is None:
        raise ValueError("One player plays solitaire: choose an AI opponent.")
    setup["deck"] = options.get("deck") or "app"
    adv = options.get("advanced") or "none"
    solitaire = setup["opponent"] is not None
    if adv == "none":
        setup["advanced"] = []
    elif adv == "random":
        setup["advanced"] = "random"  # picked from the game's seed when it starts
    else:
        setup["advanced"] = adv.split("+")
    if solitaire:
        ai = GAME.data.ais[setup["opponent"]]
        free = [c for c in COLOURS if c != players[0]["colour"]]
        setup["players"]["p2"] = {"name": ai["name"], "colour": free[-1], "ai": setup["opponent"]}
        setup["ai_moves"] = "journaled"  # its moves are its seat's actions (data_version 2)
    try:
        GAME.initial_state(setup)
    except SetupError as exc:
        raise ValueError(str(exc)) from None
    return setup


MODULE = GameModule(
    id="mint_works", title="Mint Works", players=(1, MAX_PLAYERS), play_time="10-20 min",
    blurb="Place mints on locations to buy and build plans; the first neighbourhood of 7 stars ends it.",
    data_version=2, game=GAME, view=VIEW, make_setup=make_setup, sensing=SENSING,
    hooks=MintWorksHooks,
    options=(
        Option("opponent", "Solitaire AI", "choice", default="justin",
               choices=(("none", "No AI"), ("justin", "Justin"), ("rachael", "Rachael"),
                        ("sonic", "Sonic"), ("mort", "Mort")),
               help="One player only"),
        Option("deck", "Plan deck", "choice", default="app",
               choices=(("app", "The app draws"), ("table", "Our own deck")),
               help="Who draws the plans"),
        Option("advanced", "Advanced", "choice", default="none",
               choices=tuple(tuple(c) for c in ADVANCED_CHOICES),
               help="2 locations (1 solo)"),
    ),
    panels={"turn": "companion.games.mint_works.ui.turn_panel:TurnPanel"},
    pickers={"card": "companion.games.mint_works.ui.plan_grid:PlanGrid"},
    tabs=(("table", "Table", "companion.games.mint_works.ui.table_view:TableView"),),
    register="docs/mint_works-register.md", trace="docs/mint_works-trace.md", order=40,
)
