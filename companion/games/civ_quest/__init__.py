"""Civ Quest (../shared/rules/civ-quest.txt): a civilisation game of dice tables, a map and a pad
of Idea, Resource and Victory Points, for 2-7 players. Every roll can come from the dice wells."""
from __future__ import annotations

import os

from companion.games.contract import GameModule, Option

from .hooks import CivQuestHooks
from .rules import GAME, MAX_PLAYERS
from .sensing import SENSING
from .view import CivQuestView

HERE = os.path.dirname(os.path.abspath(__file__))


def make_setup(players, options):
    setup = {"players": {f"p{i + 1}": {"name": p["name"], "colour": p["colour"]} for i, p in enumerate(players)},
             "max_rounds": options.get("max_rounds")}
    return setup


MODULE = GameModule(
    id="civ_quest", title="Civ Quest", players=(2, MAX_PLAYERS), play_time="60-180 min",
    blurb="Dice tables, a map of the Mediterranean and a pad of Idea, Resource and Victory Points.",
    data_version=3, game=GAME, view=CivQuestView(), make_setup=make_setup, sensing=SENSING,
    hooks=CivQuestHooks,
    options=(Option("max_rounds", "Round limit", "int", None, low=1, high=99, none_label="no round limit",
                    help="Without a limit the game ends by one of its own four end conditions; a table may agree a limit."),),
    tabs=(("cq_map", "Map", "companion.games.civ_quest.ui.map_tab:CivQuestMap"),),
    tab_for_step={},
    pickers={"area": "companion.games.civ_quest.ui.map_picker:AreaPicker"},
    kv_files=(os.path.join(HERE, "ui", "civ_quest.kv"),),
    register="docs/civ_quest-register.md", trace="docs/civ_quest-trace.md", order=20)
