"""Plain words on screen: no rule ids, file names or internal keys in what the players read
(issue 18, item 4)."""
import re

import pytest

from companion import games as registry
from companion.games.civmint import GAME, VIEW
from companion.games.civmint.help import _help, step_help

DEVELOPER_TEXT = re.compile(r"REG-[A-Z]|\.json|\.py\b|[a-z]+_[a-z]+\.p\d|\b[a-z]+\.p\d\b")


@pytest.mark.parametrize("step", sorted(_help()))
def test_civmint_step_help_has_no_rule_ids_or_file_names(step):
    text = step_help(step)
    assert text and not DEVELOPER_TEXT.search(text), text


def test_the_first_player_die_says_what_its_values_mean():
    setup = GAME.default_setup(players={"p1": {"colour": "blue", "name": "Ana"},
                                        "p2": {"colour": "green", "name": "Ben"}})
    s = GAME.initial_state(setup)
    text = VIEW.prompt(GAME, s, setup, None)
    assert "1, 2, 3 - Ana plays first" in text and "4, 5, 6 - Ben plays first" in text


@pytest.mark.parametrize("game", ["civmint", "civ_quest", "civ_builder", "mint_works", "civ_card_game"])
def test_every_games_step_help_is_free_of_rule_ids_and_file_names(game):
    m = registry.get_module(game)
    assert m.game.flow.steps
    for step in m.game.flow.steps:
        text = m.view.step_help(step)
        assert not DEVELOPER_TEXT.search(text), (game, step, text)


def test_civmint_resources_show_an_icon_with_their_name():
    from companion.games.civmint.data_load import DATA
    from companion.games.civmint.labels import RESOURCE_ICONS

    assert set(RESOURCE_ICONS) == set(DATA.res_ids)  # every resource has one, no stale entries
    assert len({glyph for glyph, _ in RESOURCE_ICONS.values()}) == len(RESOURCE_ICONS)
    setup = GAME.default_setup(players={"p1": {"colour": "blue", "name": "Ana"},
                                        "p2": {"colour": "green", "name": "Ben"}})
    s = GAME.initial_state(setup)
    [res] = [text for title, text, *_ in VIEW.player_lines(GAME, s, setup, "p1") if title == "Resources"]
    for r in DATA.res_ids:
        glyph, colour = RESOURCE_ICONS[r]
        name = r.replace("_", " ").capitalize()
        # the icon in its colour, glued to the name and the count (never wrapped apart)
        assert f"[font=DejaVuSans][color={colour}]{glyph}[/color][/font]\u00a0{name}\u00a0[b]" in res, (r, res)
