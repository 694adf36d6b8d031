"""Civ Builder as a game module: the contract, the dice prompts, the view's plain words, the data
validation."""
import copy

import pytest

from cb_helpers import GAME, act, random_game, setup_state, to_step
from companion import games
from companion.games.civ_builder import MODULE, VIEW
from companion.games.civ_builder.data_load import DataError, RulesData, load
from companion.games.contract import check_module, dice_words


def test_module_passes_the_contract_and_is_registered():
    assert check_module(MODULE) == []
    assert "civ_builder" in games.available()
    assert MODULE.players == (2, 8)


def test_setup_rolls_are_prompted_one_die_at_a_time_naming_player_and_attribute():
    setup = MODULE.setup_from_form([{"name": "Ana", "colour": "blue"}, {"name": "Bo", "colour": "red"}], {})
    s = GAME.initial_state(setup)
    s = act(s, "choose_civ", player="p1", civ="meso_america")
    s = act(s, "choose_civ", player="p2", civ="china")
    name = lambda seat: VIEW.name(setup, seat)  # noqa: E731
    words = []
    for _ in range(11):
        req = MODULE.roll_awaited(s)
        req["who"] = VIEW.roll_owner(s)
        assert req["count"] == 1 and req["spec"] is not None
        words.append(dice_words(req, name))
        s = GAME.apply(s, req["spec"].action_from([2]))
    assert words[0] == "Ana: Conquest, 1 die" and words[3] == "Ana: Science, 1 die"
    assert words[10] == "Ana: Science, 1 die"  # Meso America's extra die
    assert "extra die of Meso America" not in VIEW.prompt(GAME, s, setup, None)
    req = MODULE.roll_awaited(s)
    assert dice_words({**req, "who": VIEW.roll_owner(s)}, name) == "Bo: Conquest, 1 die"
    with pytest.raises(ValueError):
        req["spec"].action_from([7])


def test_roll_off_prompt_names_the_player():
    s = setup_state(2)  # all dice 3: tied on Government, Religion, Culture
    assert s.step == "initiative_roll"
    setup = GAME.default_setup(players=2)
    req = MODULE.roll_awaited(s)
    assert dice_words({**req, "who": VIEW.roll_owner(s)}, lambda x: VIEW.name(setup, x)) == \
        "Player 1: Initiative roll-off, 1 die"


def test_view_words_player_lines_and_round_summary():
    s = setup_state(2, dice={"p1": [3] * 7 + [4] + [3] * 3})
    setup = GAME.default_setup(players=2)
    s = to_step(s, "turn")
    lines = dict((x[0], x[1]) for x in VIEW.player_lines(GAME, s, setup, "p1"))
    assert "Government [b]4[/b]" in lines["Attributes"] and "*" in lines["Attributes"]
    assert lines["Initiative"] == "1st of 2" and "10" in lines["Hand"]
    assert VIEW.header(GAME, s, setup).endswith("order: Player 1 > Player 2")
    assert "Melds" in VIEW.prompt(GAME, s, setup, None) or "meld" in VIEW.prompt(GAME, s, setup, None)
    label = VIEW.action_label({"type": "meld", "player": "p1", "attribute": "trade", "cards": 2, "leader": 1},
                              s, setup)
    assert label == "Player 1: meld Trade of 3 cards (2 Trade + 1 Leader (wild))"
    final, actions, setup2 = random_game(4, players=2)
    summ = VIEW.round_summary(GAME, setup2, [(a, "ui") for a in actions], 5)
    assert "2 VP per attribute majority" in summ["title"] and summ["rows"][1][0] == "p2"
    texts = [r[1] for r in summ["rows"]]
    assert any(x.startswith("Conquest: ") for x in texts) and len(texts) >= 2 + 10
    assert all(r[0] in (None, "p1", "p2") for r in summ["rows"])


def test_bad_data_is_refused_with_a_message():
    rules = copy.deepcopy(load("rules"))
    rules["deck"]["leader"] = -1
    with pytest.raises(DataError, match="deck.leader"):
        RulesData(rules=rules)
    rules = copy.deepcopy(load("rules"))
    rules["score"]["bands"] = rules["score"]["bands"][:2]
    with pytest.raises(DataError, match="bands"):
        RulesData(rules=rules)
    civs = {"civilisations": [{"id": "x", "name": "X", "extra": "magic"}]}
    with pytest.raises(DataError, match="extra"):
        RulesData(civs=civs)


def test_every_rule_id_is_traced():
    import os
    import re

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = open(os.path.join(root, "companion/games/civ_builder/rules.py"), encoding="utf-8").read()
    trace = open(os.path.join(root, MODULE.trace), encoding="utf-8").read()
    ids = set(re.findall(r'"(CB-[A-Z-]+)"', code))
    assert len(ids) > 20
    assert not [i for i in ids if f"`{i}`" not in trace]
    assert os.path.isfile(os.path.join(root, MODULE.register))
