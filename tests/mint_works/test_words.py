"""Mint Works' words (headless): a drawn plan is a card picked by name, never a roll ("Which plan
did you draw?", each plan with its cost and stars), from the app's deck or the table's own; and
counts said right ('1 star', '1 mint', '1 plan') in every word of seeded games."""
import re

from mw_helpers import G, play, setup_for

from companion.decisions import Decision
from companion.games.mint_works import MODULE, VIEW
from companion.games.mint_works.view import DRAW_QUESTION

BAD = re.compile(r"\b1 (stars|mints|plans|cards|Mints)\b")


def _decision(s, setup):
    acts = [a.to_dict() for a in G.legal_actions(s)]
    return Decision(acts, lambda a: VIEW.action_label(a, s, setup), lambda t: VIEW.picks(G, t),
                    lambda t, f, v: VIEW.value_label(G, s, setup, t, f, v), VIEW.type_label)


def _first_draw(deck):
    setup = setup_for(2, deck=deck)
    s = G.initial_state(setup)
    assert s.step == "draw"
    return setup, s


def test_plan_words():
    assert VIEW.plan_words("assembler") == "Assembler (cost 5, 1 star)"
    assert VIEW.plan_words("statue") == "Statue (cost 2, 2 stars)"
    assert VIEW.plan_words("bridge") == "Bridge (cost 1, 0 stars)"
    assert VIEW.plan_words("museum") == "Museum (cost 2, 1 star per Culture building)"


def test_the_draw_is_a_card_pick_from_either_deck():
    for deck in ("app", "table"):
        setup, s = _first_draw(deck)
        req = MODULE.roll_awaited(s)
        if deck == "app":
            assert req["kind"] == "draw" and req["count"] == 0  # no dice: the shell treats it as a draw
        else:
            assert req is None  # the table's deck: a player reveals what they drew
        prompt = VIEW.prompt(G, s, setup, req)
        assert "roll" not in prompt.lower() and "dice" not in prompt.lower() and "tap" in prompt, prompt
        d = _decision(s, setup)
        q = d.question()
        assert q.kind == "card" and q.field == "plan" and q.text == DRAW_QUESTION, q
        labels = dict(q.options)
        assert labels["assembler"] == "Assembler (cost 5, 1 star)" and len(labels) == len(G.draw_candidates(s))
        d.choose("plan", "assembler")
        a = d.complete()
        assert a is not None and a["plan"] == "assembler"
        G.check(s, G.action_from_dict(a))  # legal: the engine raises Rejected otherwise
        words = VIEW.action_label(a, s, setup)
        assert words in ("Plan drawn: Assembler (cost 5, 1 star)", "Ana drew the Assembler (cost 5, 1 star)"), words


def test_a_few_plans_left_are_still_asked_as_the_plan_drawn():
    setup, s = _first_draw("table")
    s = s.copy()
    s.deck = s.deck[:3]
    q = _decision(s, setup).question()
    assert q.text == "Which plan did you draw?" and len(q.options) == 3
    assert all("(cost " in lbl for _, lbl in q.options)


def test_counts_said_right_in_seeded_games():
    checked = 0
    for seed, players, opponent in ((1, 2, None), (4, 3, None), (7, 1, "rachael"), (9, 1, "mort")):
        setup = setup_for(players, opponent=opponent, seed=seed)

        def look(s, a):
            nonlocal checked
            words = [VIEW.header(G, s, setup), VIEW.prompt(G, s, setup, MODULE.roll_awaited(s)),
                     VIEW.action_label(a.to_dict(), s, setup)]
            for seat in s.seats:
                words += [str(x[1]) for x in VIEW.player_lines(G, s, setup, seat)]
            for w in words:
                assert not BAD.search(w), w
            checked += 1
        final, actions = play(setup, seed, on_state=look)
        history = [(a, "ui") for a in actions]
        for r in range(1, final.round + 1):
            summ = VIEW.round_summary(G, setup, history, r)
            for _, row in (summ or {}).get("rows", []):
                assert not BAD.search(row), row
    assert checked > 100


def test_round_summary_says_one_star_and_one_mint():
    setup = setup_for(2, seed=2)
    final, actions = play(setup, 2)
    history = [(a, "ui") for a in actions]
    rows = " ".join(row for r in range(1, final.round) for _, row in VIEW.round_summary(G, setup, history, r)["rows"])
    assert re.search(r"\d+ stars?  -  \d+ mints?", rows), rows
