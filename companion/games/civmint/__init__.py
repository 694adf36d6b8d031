"""CivMint, the flagship game: `GAME` is its engine.Game, `MODULE` what the shell gets.

The folder holds everything CivMint owns: rules.py (+ board, state, lanes), data/*.json (rules
values, step help), view.py (presentation without Kivy), sensing.py (which counters sit on which
lanes, which rolls the dice wells fill), ui/ (its Kivy panels, map view, setup form and .kv
layouts). Its interpretation register and trace table are docs/interpretation-register.md and
docs/civmint-trace.md."""
import os

from companion.games.contract import GameModule, Option

from .hooks import CivMintHooks
from .lanes import lane_ids, lane_position, lane_value, position_of, reconcile  # noqa: F401
from .rules import MAX_ROUNDS, CivMint, bonuses, research_cost  # noqa: F401
from .sensing import SENSING
from .view import VIEW

GAME = CivMint()
SEATS = ("p1", "p2")
_UI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ui")


def make_setup(players: list, options: dict) -> dict:
    """The engine's setup from the new-game form (SetupError when the engine refuses it)."""
    setup = GAME.default_setup()
    setup["players"] = {seat: {"colour": p["colour"], "name": p["name"]} for seat, p in zip(SEATS, players)}
    if options.get("map") is not None:
        setup["map"] = dict(options["map"])
    if "max_rounds" in options:
        setup["max_rounds"] = options["max_rounds"]
    if options.get("second_player_early_start") is not None:
        setup["second_player_early_start"] = bool(options["second_player_early_start"])
    if options.get("defenders_fight_every_battle"):
        setup["house_rules"] = ["defenders_fight_every_battle"]
    GAME.initial_state(setup)
    return setup


MODULE = GameModule(
    id="civmint", title="CivMint", players=(2, 2), play_time="60-120 min",
    blurb="Two civilisations grow on a map of four cards: produce, trade, build, research, fight.",
    data_version=1, game=GAME, view=VIEW, make_setup=make_setup, sensing=SENSING,
    hooks=CivMintHooks,
    options=(
        Option("max_rounds", "Round limit", "int", default=MAX_ROUNDS, low=1, high=99,
               none_label="No round limit", help="The game also ends after this round."),
        Option("second_player_early_start", "Second player may start early", "bool", default=True,
               help="While the first player develops, the second may already play Production to Build."),
        Option("defenders_fight_every_battle", "House rule: defenders fight every battle", "bool",
               default=False,
               help="The rules let each unit fight one battle per turn, defenders too, so a Capital "
                    "takes at most one hit a turn. With this house rule a defender defends every "
                    "battle aimed at its space."),
    ),
    setup_panel="companion.games.civmint.ui.setup_panel:MapSetup",
    panels={
        "production": "companion.games.civmint.ui.economy_panels:ProductionPanel",
        "trade": "companion.games.civmint.ui.economy_panels:TradePanel",
        "upkeep": "companion.games.civmint.ui.economy_panels:UpkeepPanel",
        "build": "companion.games.civmint.ui.economy_panels:BuildPanel",
        "research": "companion.games.civmint.ui.economy_panels:ResearchPanel",
        "taxation": "companion.games.civmint.ui.economy_panels:TaxationPanel",
        "combat": "companion.games.civmint.ui.combat_panel:CombatPanel",
        "event_roll": "companion.games.civmint.ui.event_panel:EventPanel",
        "event_choice": "companion.games.civmint.ui.event_panel:EventPanel",
    },
    tabs=(("map", "Map", "companion.games.civmint.ui.map_view:MapView"),),
    pickers={"area": "companion.games.civmint.ui.map_view:SpacePicker"},  # a space is tapped on a map
    tab_for_step={"move": "map"},
    kv_files=tuple(os.path.join(_UI, f) for f in sorted(os.listdir(_UI)) if f.endswith(".kv")),
    register="docs/interpretation-register.md", trace="docs/civmint-trace.md", order=0,
)
