"""Civ Quest in the players' words: every roll's history says its consequence for the table (the
roll card of the game screen is built from it), the map picks areas, a tap on an area that is not
a choice says why, plurals are right."""
from __future__ import annotations

import random

import pytest
from cq_helpers import act, started, with_units

from companion.engine.dice import SeededDice
from companion.games.civ_quest import MODULE
from companion.games.civ_quest.map_layout import cells_for, load_layout
from companion.games.civ_quest.rules import GAME, ROLL_NAMES

VIEW = MODULE.view
# what each roll's first line must name: the consequence, not just the dice
NAMES_THE_CONSEQUENCE = {
    "first_roll": ("plays first", "rolls next", "roll again"),
    "leader_roll": ("leads", "No leader"),
    "leader_bonus_roll": ("Leader bonus", "extra war"),
    "city_roll": ("City table",),
    "idea_roll": ("IP",),
    "research_roll": ("learned; take the", "already knows"),
    "growth_roll": ("gains", "PT"),
    "resource_roll": ("RP",),
    "disaster_roll": ("disaster", "No disaster"),
    "disaster_type_roll": ("Casualty roll",),
    "casualty_roll": ("loses",),
    "trade_roll": ("takes 1", "learns an advance"),
    "war_roll": ("wins", "rolls to defend"),
    "migration_roll": ("Move Point",),
}


def _setup(n):
    return MODULE.sample_setup(n)


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3)])
def test_every_roll_says_what_changes_at_the_table(players, seed):
    setup = _setup(players)
    rng, dice = random.Random(seed), SeededDice(seed)
    s = GAME.initial_state(setup)
    seen = set()
    for _ in range(1500):
        if GAME.is_over(s):
            break
        a = GAME.chance_action(s, dice) if GAME.actor(s) == "system" else rng.choice(GAME.legal_actions(s))
        ad = a.to_dict()
        after = GAME.apply(s, a)
        lines = VIEW.history_lines(GAME, s, ad, after, setup)
        kept = ad["type"] == "keep_roll"
        if ad["type"] in ROLL_NAMES and not after.ctx.get("offer") or kept:
            kind = s.ctx["offer"][0] if kept else ad["type"]
            assert lines and all(x.strip() for x in lines), (ad, lines)
            assert not any("could not describe" in x for x in lines)
            assert any(w in lines[0] for w in NAMES_THE_CONSEQUENCE[kind]), (kind, lines)
            assert "_" not in " ".join(lines) and "1 Move Points" not in " ".join(lines), lines
            seen.add(kind)
        s = after
    assert {"leader_roll", "growth_roll", "research_roll", "disaster_roll", "migration_roll"} <= seen, seen


def test_research_roll_names_the_advance_and_the_card():
    setup = _setup(2)
    s = started(2).copy()
    s.players["p1"].ip = 10  # enough for an advance
    s = act(s, "leader_roll", die=1)  # no leader; no city: on to the Idea roll
    while s.step != "advance" or GAME.actor(s) == "system":
        s = act(s, s.roll, die=2) if GAME.actor(s) == "system" else act(s, "done", player="p1")
    s = act(s, "buy_advance", player="p1")
    assert s.roll == "research_roll"
    after = act(s, "research_roll", first=1, second=1)
    lines = VIEW.history_lines(GAME, s, {"type": "research_roll", "first": 1, "second": 1}, after, setup)
    assert lines[0] == "Pottery learned; take the Pottery card.", lines


def test_religious_leader_bonus_capped_in_the_only_area():
    setup = _setup(2)
    s = started(2)
    s = act(s, "leader_roll", die=4)  # Religious: +1D6 PT
    assert s.roll == "leader_bonus_roll"
    s = with_units(s, macedonia=("p1", 7, False))
    after = act(s, "leader_bonus_roll", die=6)
    lines = VIEW.history_lines(GAME, s, {"type": "leader_bonus_roll", "die": 6}, after, setup)
    text = " ".join(lines)
    assert lines[0] == "Leader bonus 6 PT."
    assert "Macedonia: put 3 PT there" in text and "capped at 10" in text, lines
    assert "3 PT had no room" in text, lines


def test_plurals_and_numbers():
    setup = _setup(2)
    s = started(2)
    s = act(s, "leader_roll", die=6)  # Conqueror: extra wars
    after = act(s, "leader_bonus_roll", die=1)
    lines = VIEW.history_lines(GAME, s, {"type": "leader_bonus_roll", "die": 1}, after, setup)
    assert lines[0] == "Player 1 may make 1 extra war this turn.", lines
    s = act(started(2), "leader_roll", die=5)  # Imperialistic: Move Points
    after = act(s, "leader_bonus_roll", die=1)
    assert VIEW.history_lines(GAME, s, {"type": "leader_bonus_roll", "die": 1}, after, setup)[0] == \
        "Leader bonus 1 Move Point for the Migration phase."


def test_area_picks_and_words():
    assert [p.kind for p in VIEW.picks(GAME, "place_start")] == ["area"]
    assert [(p.field, p.kind) for p in VIEW.picks(GAME, "move")] == [
        ("from_area", "area"), ("to_area", "area"), ("count", "count")]
    assert ("to_area", "area") in [(p.field, p.kind) for p in VIEW.picks(GAME, "war")]
    s = GAME.initial_state(_setup(2))
    assert VIEW.value_label(GAME, s, _setup(2), "place_start", "area", "lower_egypt") == "Lower Egypt"


def test_a_tap_on_an_area_that_is_not_a_choice_says_why():
    setup = _setup(2)
    s = GAME.initial_state(setup)
    s = act(s, "place_start", player="p1", area="thrace")
    acts = [a.to_dict() for a in GAME.legal_actions(s)]
    assert "sea" in VIEW.why_not_area(GAME, s, setup, acts, "area", "propontis")
    why = VIEW.why_not_area(GAME, s, setup, acts, "area", "thrace")
    assert why.startswith("Thrace is not empty"), why


def test_the_layout_places_every_area_once_and_cuts_the_grid_to_the_areas_in_play():
    layout = load_layout()
    s2, s7 = GAME.initial_state(_setup(2)), GAME.initial_state(_setup(7))
    for s in (s2, s7):
        cells, cols, rows = cells_for(s.board, layout)
        assert set(cells) == set(s.board.order)
        assert len(set(cells.values())) == len(cells)
        assert all(0 <= c < cols and 0 <= r < rows for c, r in cells.values())
    assert cells_for(s2.board, layout)[1] < cells_for(s7.board, layout)[1]
    # an area the layout does not know (a table's own map) is still drawn, below the others
    cells, cols, rows = cells_for(s2.board, {k: v for k, v in layout.items() if k != "crete"})
    assert cells["crete"][1] == rows - 1 and len(set(cells.values())) == len(cells)


def test_no_round_while_setting_up_and_a_round_card_with_every_civilisation():
    setup = _setup(2)
    s = GAME.initial_state(setup)
    assert VIEW.round(s) is None  # no round ends when round 1 begins: no card
    assert VIEW.round(started(2)) == 1
    history = []
    s = GAME.initial_state(setup)
    rng, dice = random.Random(4), SeededDice(4)
    while (s.round or 0) < 2:
        a = GAME.chance_action(s, dice) if GAME.actor(s) == "system" else rng.choice(GAME.legal_actions(s))
        history.append((a, "ui"))
        s = GAME.apply(s, a)
    card = VIEW.round_summary(GAME, setup, history, 1)
    assert card["title"].startswith("[b]Round 1 ended[/b]")
    assert [seat for seat, _ in card["rows"]] == ["p1", "p2"]
    assert all(" VP, " in text and " PT, " in text for _, text in card["rows"]), card


def test_pad_values_are_noted_on_the_pad_not_moved_as_tokens():
    """IP and RP live on the player's pad (CQ-R10): a change says so; only where the board holds
    them does the sensed lane's own row ask for the token to move."""
    setup = _setup(2)
    rng, dice = random.Random(4), SeededDice(4)
    s = GAME.initial_state(setup)
    seen = []
    for _ in range(600):
        if GAME.is_over(s) or seen:
            break
        a = GAME.chance_action(s, dice) if GAME.actor(s) == "system" else rng.choice(GAME.legal_actions(s))
        after = GAME.apply(s, a)
        seen = [c for c in VIEW.table_changes(GAME, s, a.to_dict(), after, setup) if c.get("counter")]
        s = after
    assert seen, "an IP or RP change within 600 moves"
    for c in seen:
        assert c["counter"].split(".")[0] in ("ip", "rp")
        assert c["text"].endswith(": note it on the pad.") and "move the token" not in c["text"], c


@pytest.mark.parametrize("dice,tied", [((4, 4), ("p1", "p2")), ((5, 2, 5), ("p1", "p3"))])
def test_a_tied_first_player_roll_says_tie_and_who_rolls_again(dice, tied):
    """Every tied player rolls again (CQ-S2): the card of the last roll and the next prompt say it
    is a tie, at what value, and who rolls again, also when everyone tied."""
    n = len(dice)
    setup = _setup(n)
    s = GAME.initial_state(setup)
    for i in range(n):
        s = act(s, "place_start", player=f"p{i + 1}", area=("macedonia", "syria", "sicily")[i])
    for d in dice:
        before, s = s, act(s, "first_roll", die=d)
    names = [setup["players"][p]["name"] for p in tied]
    card = VIEW.history_lines(GAME, before, {"type": "first_roll", "die": dice[-1]}, s, setup)[0]
    assert card.startswith(f"A tie for the highest roll ({max(dice)}): {' and '.join(names)} roll again"), card
    prompt = VIEW.prompt(GAME, s, setup, {"roll": "First-player roll", "count": 1, "who": tied[0]})
    assert f"A tie for the highest roll ({max(dice)})" in prompt and " and ".join(names) in prompt, prompt
    s = act(s, "first_roll", die=3)  # the first of the tied has rolled: no more "tie" in the prompt
    assert "tie" not in VIEW.prompt(GAME, s, setup, None).lower()


def test_no_leader_is_said_as_the_header_says_it():
    s = started(2)
    s = act(s, "leader_roll", die=1)
    text = VIEW.last_outcome(GAME, s, _setup(2))
    assert "None leader" not in text and "Nothing" not in text
