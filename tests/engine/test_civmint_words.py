"""CivMint names spaces and units as the table does (issue 28, items 1 and 6): rows and columns
counted from 1 as on the printed map, units by owner, kind and space, never an engine id; plural
words right. Over seeded random games, every text a player reads is checked: action labels, the
pickers' values, the Log's lines and table changes, prompts, the Players tab, the combat and
event panels' texts, refusals and the game-end words."""
from __future__ import annotations

import random
import re

import pytest

from companion.engine.dice import SeededDice
from companion.engine.errors import Rejected
from companion.games.civmint import GAME, VIEW
from companion.games.civmint import labels as L
from companion.games.civmint.state import Unit
from companion.games.civmint.ui import combat_model as CM
from companion.games.civmint.ui import event_model as EM
from engine_helpers import choose

# a space id (r3c4, @r1c1), a unit number (#5, "unit 12"), an internal key (round_limit)
ID = re.compile(r"\br\d+c\d+\b|@\s?r\d|#\d|\bunit \d|\b[a-z]+_[a-z_]+\b|\bp[12]\b|'[a-z_]+'")
BAD_PLURAL = re.compile(r"\b1 (cards|stars|units|spaces|damage cubes|[A-Z][a-z]+s)\b|\b([02-9]|\d\d+) "
                        r"(card|star|unit|space|damage cube|Settler|Village|City|Capital|Ship)\b(?!'| dice)")
SETUP = GAME.default_setup(players={"p1": {"colour": "blue", "name": "Ana"},
                                    "p2": {"colour": "green", "name": "Ben"}})
SEEDS = range(30)
ACTIONS = 150


def clean(text, where):
    assert isinstance(text, str), (where, text)
    hit = ID.search(text) or BAD_PLURAL.search(text)
    assert hit is None, f"{where}: {hit.group(0)!r} in {text!r}"


class Ctrl:
    """What the panels' models read of the app's controller, over a bare engine state."""

    def __init__(self, state, history):
        self.state, self.game, self.setup, self.path = state, GAME, SETUP, None
        self.session = type("S", (), {"history": history})()

    def name(self, seat):
        return VIEW.name(SETUP, seat)

    def legal_actions(self):
        return [a.to_dict() for a in GAME.legal_actions(self.state)]

    def check(self, action):
        try:
            GAME.check(self.state, GAME.action_from_dict(action))
        except Rejected as exc:
            return exc.message
        return None

    def action_label(self, a):
        return VIEW.action_label(a, self.state, SETUP)


def _panel_texts(ctrl, legal):
    s = ctrl.state
    for a in CM.attack_choices(ctrl, legal):
        yield from (o["text"] for o in a["options"])
    for o in CM.choice_actions(ctrl, legal):
        yield o["text"]
    b = CM.battle(ctrl)
    if b:
        yield b["attacker_text"]
        yield b["defender_text"]
    for sp in GAME.contested_spaces(s):
        for lines in CM.space_sides(ctrl, sp).values():
            yield from lines
    yield CM.last_battle_text(ctrl)
    ch = EM.choice(ctrl, legal)
    if ch:
        yield from (o["text"] for o in ch.get("options", ()))
        yield from (c["text"] for c in ch.get("candidates", ()))


def _check_moment(s, history, rng):
    ctrl = Ctrl(s, history)
    legal = ctrl.legal_actions()
    clean(VIEW.prompt(GAME, s, SETUP, None), "prompt")
    for a in legal:
        clean(VIEW.action_label(a, s, SETUP), "action label")
    for t in {a["type"] for a in legal}:
        for p in VIEW.picks(GAME, t):
            for a in legal:
                if a["type"] == t and p.field in a:
                    clean(VIEW.value_label(GAME, s, SETUP, t, p.field, a[p.field]), f"{t}.{p.field} value")
    for text in _panel_texts(ctrl, legal):
        clean(text, "panel")
    # refusals: a few actions the engine lists as candidates but does not accept now
    cands = GAME.pseudo_legal_actions(s)
    for a in rng.sample(cands, min(6, len(cands))):
        try:
            GAME.check(s, a)
        except Rejected as exc:
            clean(exc.message, f"refusal of {a.type}")


@pytest.mark.parametrize("seed", SEEDS)
def test_no_space_or_unit_id_reaches_the_players(seed):
    play_and_check(seed, ACTIONS)


@pytest.mark.parametrize("seed", (1, 3, 5, 7))
def test_no_id_in_long_aggressive_games(seed):
    """Longer games on the march: battles, retreats, conquests and disembarking come up."""
    play_and_check(seed, 700)


def play_and_check(seed, actions):
    rng = random.Random(seed)
    dice = SeededDice(seed)
    s = GAME.initial_state(SETUP)
    history = []
    for _ in range(actions):
        if s.over:
            break
        _check_moment(s, history, rng)
        if GAME.actor(s) == "system":
            a = GAME.chance_action(s, dice)
        else:  # odd seeds march on the enemy Capital, so battles, retreats and conquests come up
            a = choose(s, rng, "aggressive" if seed % 2 else "mixed")
        after = GAME.apply(s, a)
        for line in VIEW.history_lines(GAME, s, a.to_dict(), after, SETUP):
            clean(line, "log line")
        for ch in VIEW.table_changes(GAME, s, a.to_dict(), after, SETUP):
            clean(ch["text"], "table change")
        history.append((a, "ui"))
        s = after
    for seat in ("p1", "p2"):
        for _title, text, *_ in VIEW.player_lines(GAME, s, SETUP, seat):
            clean(re.sub(r"\[/?[a-z]+(=[^\]]*)?\]", "", text), "players tab")
    rs = VIEW.round_summary(GAME, SETUP, history, max(1, s.round - 1))
    for _seat, text in rs["rows"]:
        clean(text, "round summary")


def test_a_game_end_says_its_reasons_in_words():
    s = GAME.initial_state(SETUP).copy()
    s.max_rounds, s.over, s.end_reasons = 1, True, ("round_limit", "p1:six_cities")
    text = VIEW.result_text(GAME, s, SETUP)
    clean(text, "result")
    assert "The round limit (1) was reached." in text and "Ana has 6 Cities." in text, text


def test_spaces_are_counted_from_one_as_on_the_printed_map():
    assert L.space_words("r0c0") == "row 1, column 1"
    assert L.space_words("r1c4") == "row 2, column 5"
    assert L.spaces_words(["r0c0", "r5c5"]) == "row 1, column 1 and row 6, column 6"
    assert L.spaces_words(["r0c0", "r0c1", "r5c5"], "or") == "row 1, column 1; row 1, column 2 or row 6, column 6"


def test_units_are_named_by_owner_kind_and_space_and_twins_are_counted():
    s = GAME.initial_state(SETUP)
    name = lambda seat: VIEW.name(SETUP, seat)  # noqa: E731
    home = s.board.home["p1"]
    settlers = [u for u in s.units.values() if u.owner == "p1" and u.kind == "settler"]
    cap = next(u for u in s.units.values() if u.owner == "p1" and u.kind == "capital")
    where = L.space_words(home)
    assert L.unit_words(cap, s, name) == f"Ana's Capital at {where}"
    n = len(settlers)
    assert n >= 2
    assert L.unit_words(settlers[0], s, name) == f"one of Ana's {n} Settlers at {where}"
    assert L.unit_words(settlers[0], s) == f"one of the {n} Settlers at {where}"
    assert L.units_words(s, [u.id for u in settlers]) == f"the {n} Settlers at {where}"
    hurt = Unit(99, "p2", "infantry", "r0c0", damage=1)
    assert L.unit_words(hurt, None, name) == "Ben's Infantry (1 damage) at row 1, column 1"
    label = VIEW.action_label({"type": "move", "player": "p1", "unit": settlers[0].id, "to": "r0c0"}, s, SETUP)
    assert label == f"Ana: move one of the {n} Settlers at {where} to row 1, column 1", label


@pytest.mark.parametrize("n,word,want", [(1, "card", "1 card"), (2, "card", "2 cards"), (0, "star", "0 stars"),
                                         (1, "Settler", "1 Settler"), (2, "City", "2 Cities"),
                                         (3, "Infantry", "3 Infantry"), (2, "Food", "2 Food"),
                                         (2, "damage cube", "2 damage cubes")])
def test_one_helper_for_plural_words(n, word, want):
    assert L.count(n, word) == want
