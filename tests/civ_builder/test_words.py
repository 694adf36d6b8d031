"""Civ Builder's words (headless): counts said right ('1 card', never '1 cards') everywhere a
seeded game shows them; the set-up rolls say which attribute each well fills, and two dice thrown
together are read as the next two attributes, one journal action per die; the trade timer in
the header, one clock per game file and round."""
import re

from cb_helpers import GAME, act, random_game, setup_state, to_step

from companion.games.civ_builder import MODULE, VIEW, trade_clock
from companion.games.civ_builder.view import one_not_many, plural
from companion.table.sync import DiceFeeder

BAD = re.compile(r"\b1 (cards|points|dice|melds|stars|minutes|VPs)\b|\b1 die\w")
SETUP = GAME.default_setup(players=3)
NAMES = {"p1": "Ana", "p2": "Bo", "p3": "Cy"}
for _seat, _name in NAMES.items():
    SETUP["players"][_seat]["name"] = _name


def _words(s, setup, dice=None):
    out = [VIEW.header(GAME, s, setup), VIEW.prompt(GAME, s, setup, dice)]
    out += [VIEW.action_label(a.to_dict() if hasattr(a, "to_dict") else dict(a), s, setup)
            for a in GAME.legal_actions(s)] if not s.over else []
    for seat in s.seats:
        out += [str(x[1]) for x in VIEW.player_lines(GAME, s, setup, seat)]
    return out


def test_plural_helpers():
    assert plural(1, "card") == "1 card" and plural(0, "card") == "0 cards" and plural(2, "die", "dice") == "2 dice"
    assert one_not_many("Ana draws 1 cards. Bo draws 11 cards.") == "Ana draws 1 card. Bo draws 11 cards."
    assert one_not_many("Bo discards 1 random cards") == "Bo discards 1 random cards"  # said as the rules say


def test_labels_of_one_card():
    s = setup_state(players=2)
    assert VIEW.action_label({"type": "give_cards", "giver": "p1", "taker": "p2", "count": 1}, s, SETUP) == \
        "Ana gives 1 card to Bo"
    assert VIEW.action_label({"type": "correct_hand", "seat": "p2", "count": 1}, s, SETUP) == \
        "Correction: Bo holds 1 card"
    assert "meld Science of 1 card (1 Science)" in VIEW.action_label(
        {"type": "meld", "player": "p1", "attribute": "science", "cards": 1}, s, SETUP)
    s1 = s.copy()
    s1.step, s1.turn, s1.hand = "turn", 0, {**s.hand, s.order[0]: 1}
    assert "(1 card)" in VIEW.prompt(GAME, s1, SETUP, None)
    lines = dict((k, v) for k, v, *_ in VIEW.player_lines(GAME, s1, SETUP, s.order[0]))
    assert lines["Hand"].startswith("[b]1[/b] card (limit"), lines["Hand"]


def test_no_one_cards_in_a_seeded_game():
    """Every header, prompt, legal action's label, player line and table note of two seeded games."""
    for seed in (3, 11):
        seen = 0

        def check(s):
            nonlocal seen
            for w in _words(s, SETUP, MODULE.roll_awaited(s)):
                assert not BAD.search(w), (s.step, w)
                seen += 1
            for note in VIEW.table_notes(s, SETUP):
                assert not BAD.search(note), note
        check(GAME.initial_state(SETUP))
        random_game(seed, check=check, setup=SETUP)
        assert seen > 500


def _to_rolls():
    s = GAME.initial_state(SETUP)
    for seat, civ in zip(("p1", "p2", "p3"), ("middle_east", "china", "india")):
        s = act(s, "choose_civ", player=seat, civ=civ)
    return s


def test_setup_prompt_names_each_well():
    s = _to_rolls()
    p = VIEW.prompt(GAME, s, SETUP, MODULE.roll_awaited(s))
    assert "Ana's attribute rolls (11 dice to go)" in p and "well 1 Conquest, well 2 Trade" in p, p
    assert "enter them all in the form" in p
    for _ in range(9):
        _, attr, _ = GAME.awaited_roll(s)
        s = act(s, "roll_" + attr, die=2)
    p = VIEW.prompt(GAME, s, SETUP, None)
    assert "(2 dice to go)" in p and "well 1 Engineering, well 2 Trade (extra die)" in p, p
    s = act(s, "roll_engineering", die=2)
    p = VIEW.prompt(GAME, s, SETUP, None)
    # the last die of Ana: one die only (a second would be the next player's)
    assert "(1 die to go)" in p and "throw one die for Trade (the extra die of Middle East)" in p, p
    assert "well 2" not in p


def test_two_dice_thrown_together_fill_the_next_two_attributes():
    """The wells as the dashboard reads them (table.sync.DiceFeeder with Civ Builder's rolls):
    two fresh dice fill the awaited attribute (well 1) and the next (well 2), one action each."""
    s = _to_rolls()
    feeder = DiceFeeder(MODULE.sensing.rolls)
    feeder.seen(0, "settled", 4, 1)
    feeder.seen(1, "settled", 6, 1)
    journal = []
    for _ in range(3):
        req = MODULE.roll_awaited(s)
        action, why = feeder.propose(req["action"], MODULE.sensing.dice_usable(s, req["action"]))
        if action is None:
            break
        feeder.used(action)
        s = GAME.apply(s, action)
        journal.append(action)
    assert journal == [{"type": "roll_conquest", "die": 4}, {"type": "roll_trade", "die": 6}]
    assert s.setup_rolls["p1"] == [4, 6] and s.attrs["p1"]["trade"] == 6
    assert "Waiting for a die in well 1" in feeder.propose(MODULE.roll_awaited(s)["action"])[1]


def test_trade_timer_in_the_header(monkeypatch):
    s = to_step(setup_state(players=2), "trade")
    setup = GAME.default_setup(players=2)
    assert "trade timer: [b]4:00[/b]" in VIEW.header(GAME, s, setup)  # no clock yet: the full time
    t = [1000.0]
    monkeypatch.setattr(trade_clock, "_now", lambda: t[0])
    trade_clock.start("/saves/a.tabletop", s.round, setup)
    t[0] += 65
    assert "trade timer: [b]2:55 left[/b]" in VIEW.header(GAME, s, setup)
    # started again (a rebuilt panel): the same clock; another game file: its own
    trade_clock.start("/saves/a.tabletop", s.round, setup)
    assert trade_clock.left("/saves/a.tabletop", s.round, 240) == 175
    other = GAME.default_setup(players=2)
    trade_clock.start("/saves/b.tabletop", s.round, other)
    assert "4:00 left" in VIEW.header(GAME, s, other)
    t[0] += 300
    assert "time is up" in VIEW.header(GAME, s, setup)
    s2 = s.copy()
    s2.step = "turn"
    assert "trade timer" not in VIEW.header(GAME, s2, setup)
