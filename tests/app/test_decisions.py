"""The shell's pickers, headless: a decision built step by step from the legal actions
(companion/decisions.py) reaches exactly the legal actions of every game, narrows to what is
legal after each pick, refuses a stale pick, and chance that throws no dice is a draw."""
import random

import pytest

from companion import games
from companion.controller import GameController
from companion.decisions import SCREENFUL, TYPE_FIELD, WHOLE, Decision, StalePick
from companion.games.contract import Pick


def _decision(actions, picks=None):
    return Decision(actions, label=lambda a: repr(a), picks=lambda t: (picks or {}).get(t, ()),
                    value_label=lambda t, f, v: f"{f}={v}", type_label=lambda t: t.upper())


def _reachable(d, limit=20000):
    """Every complete action the pickers can reach from d's current state (depth first)."""
    out, stack = [], [dict(d.chosen)]
    while stack and len(out) < limit:
        chosen = stack.pop()
        d.reset()
        for f, v in chosen.items():
            d.choose(f, v)
        q = d.question()
        if q is None:
            a = d.complete()
            if a is not None:
                out.append(a)
            continue
        for value, _label in q.options:
            if q.field == WHOLE:
                out.append(value)
            else:
                stack.append({**chosen, q.field: value})
    d.reset()
    return out


def _key(a):
    return repr(sorted(a.items()))


def test_a_short_list_is_offered_whole():
    """A screenful or fewer of actions, differing in more than one way (or in no field the game
    words): offered whole, in the game's words for the actions."""
    acts = [{"type": "bank", "player": "p1"}, {"type": "pass", "player": "p1"}]
    d = _decision(acts)
    q = d.question()
    assert q.field == WHOLE and [v for v, _ in q.options] == acts
    d.choose(WHOLE, acts[1])
    assert d.question() is None and d.complete() == acts[1]


def test_a_long_list_narrows_field_by_field_to_what_is_legal():
    # place: 3 locations x counts legal only up to the location's room; plus one pass
    room = {"a": 2, "b": 4, "c": 6}
    acts = [{"type": "place", "loc": loc, "n": n} for loc, k in room.items() for n in range(1, k + 1)]
    acts.append({"type": "pass"})
    d = _decision(acts, {"place": (Pick("loc", "area", "Where?"), Pick("n", "count", "How many?"))})
    q = d.question()
    assert q.field == TYPE_FIELD and [v for v, _ in q.options] == ["place", "pass"]
    d.choose(TYPE_FIELD, "place")
    q = d.question()
    assert q.field == "loc" and q.kind == "area" and q.text == "Where?"
    d.choose("loc", "a")
    q = d.question()
    # only the count varies now: asked in the game's words, never a count the location cannot take
    assert q.field == "n" and q.text == "How many?" and [v for v, _ in q.options] == [1, 2]
    d.back("loc")
    d.choose("loc", "c")
    q = d.question()
    assert q.field == "n" and len(q.options) == 6
    d.choose("n", 6)
    assert d.question() is None and d.complete() == {"type": "place", "loc": "c", "n": 6}
    assert sorted(map(_key, _reachable(_decision(acts, {"place": (Pick("loc", "area"),
                                                                   Pick("n", "count"))})))) == sorted(map(_key, acts))


def test_a_count_among_many_values_is_a_stepper_question():
    acts = [{"type": "spend", "amount": n} for n in range(0, 12)]
    d = _decision(acts, {"spend": (Pick("amount", "count", "How much?"),)})
    q = d.question()
    assert q.kind == "count" and [v for v, _ in q.options] == list(range(12))


def test_a_stale_pick_is_refused_and_changes_nothing():
    acts = [{"type": "move", "unit": u, "to": t} for u in (1, 2) for t in ("x", "y", "z", "w", "v")]
    d = _decision(acts)
    d.choose("unit", 1)
    with pytest.raises(StalePick):
        d.choose("to", "nowhere")
    with pytest.raises(StalePick):
        d.choose(WHOLE, {"type": "move", "unit": 3, "to": "x"})
    assert d.chosen == {"unit": 1} and len(d.candidates()) == 5


def _walk(ctrl, rng, steps):
    for _ in range(steps):
        if ctrl.game.is_over(ctrl.state):
            return
        if ctrl.awaiting_dice():
            ctrl.roll_virtual()
        else:
            ctrl.dispatch(rng.choice(ctrl.legal_actions()))


@pytest.mark.parametrize("game_id", [m.id for m in games.modules()])
def test_every_game_the_pickers_reach_exactly_the_legal_actions(game_id, tmp_path):
    """Along a seeded game of each registered game, at every decision with more than a screenful
    of actions, the pickers reach every legal action and nothing else; each question offers only
    values that lead somewhere, in the game's words (no raw dicts)."""
    m = games.get_module(game_id)
    names = ["Ana", "Ben", "Cy"][:max(2, m.players[0])] if m.players[1] > 1 else ["Ana"]
    ctrl = GameController.new(str(tmp_path), names, ["blue", "green", "red"][:len(names)], game=game_id, seed=7)
    rng = random.Random(3)
    checked = 0
    try:
        for _ in range(60):
            if ctrl.game.is_over(ctrl.state):
                break
            acts = [a for a in ctrl.legal_actions() if a.get("type") != "end_step"]
            if len(acts) > SCREENFUL:
                g, s, su, v = ctrl.game, ctrl.state, ctrl.setup, ctrl.view
                d = Decision(acts, ctrl.action_label, lambda t: v.picks(g, t),
                             lambda t, f, val: v.value_label(g, s, su, t, f, val), v.type_label)
                q = d.question()
                assert q is not None and q.options
                for _value, label in q.options:
                    assert isinstance(label, str) and label and "{" not in label, label
                assert sorted(map(_key, _reachable(d))) == sorted(map(_key, acts))
                checked += 1
            _walk(ctrl, rng, 1)
    finally:
        ctrl.close()
    print(game_id, "decisions checked:", checked)


def test_chance_without_dice_is_a_draw_and_with_dice_a_roll(tmp_path):
    mw = GameController.new(str(tmp_path / "mw"), ["Ana", "Ben"], ["blue", "green"], game="mint_works", seed=1)
    cm = GameController.new(str(tmp_path / "cm"), ["Ana", "Ben"], ["blue", "green"], game="civmint", seed=1)
    try:
        req = mw.dice_request()
        assert req is not None and req["kind"] == "draw" and req["count"] == 0
        words = mw.view.prompt(mw.game, mw.state, mw.setup, req)
        assert "dice" not in words and "roll" not in words.lower()
        req = cm.dice_request()
        assert req is not None and req["kind"] == "dice" and req["count"] >= 1
    finally:
        mw.close()
        cm.close()


def test_twin_units_are_one_option_but_units_that_differ_stay_apart():
    """Two like units on one space (the same words, the same moves after them) are one "Which
    unit?" option; a like-worded unit whose moves differ is still offered on its own."""
    moves = [{"type": "move", "unit": u, "to": t} for u in (1, 2) for t in ("a", "b", "c", "d", "e")]
    moves += [{"type": "move", "unit": 3, "to": t} for t in ("a", "b", "c", "d", "f")]
    label = {1: "Ana's settler in row 2, column 3", 2: "Ana's settler in row 2, column 3",
             3: "Ana's settler in row 2, column 3"}
    d = Decision(moves, label=repr, picks=lambda t: (Pick("unit", "unit", "Which unit?"),),
                 value_label=lambda t, f, v: label[v] if f == "unit" else v, type_label=str)
    q = d.question()
    assert q.field == "unit" and [v for v, _ in q.options] == [1, 3]
    d.choose("unit", 1)
    assert [a["to"] for a, _ in d.question().options] == ["a", "b", "c", "d", "e"]


def test_a_typed_name_that_matches_nothing_gets_the_games_reason():
    asked = []

    def unavailable(t, f, typed):
        asked.append((t, f, typed))
        return "Both Gold Coast cards are already out." if "gold" in typed.lower() else None

    acts = [{"type": "turn_up", "card": c} for c in ("Plains", "Forest")]
    d = Decision(acts, repr, lambda t: (), lambda t, f, v: v, str, unavailable)
    assert d.why_not("card", "Gold Co") == "Both Gold Coast cards are already out."
    assert d.why_not("card", "Zebra") is None and d.why_not("card", "  ") is None
    assert asked == [("turn_up", "card", "Gold Co"), ("turn_up", "card", "Zebra")]
    broken = Decision(acts, repr, lambda t: (), lambda t, f, v: v, str, lambda *a: 1 / 0)
    assert broken.why_not("card", "x") is None


def test_twin_units_offered_as_whole_actions_are_one_option():
    """A short list of whole actions: two like units on one space moved to the same space read
    the same and are one option (the first of them); other actions stay."""
    acts = [{"type": "move", "unit": u, "to": "a"} for u in (1, 2)] + [{"type": "move", "unit": 3, "to": "b"}]
    words = {1: "move one of the 2 Settlers at row 1, column 1 to a",
             2: "move one of the 2 Settlers at row 1, column 1 to a", 3: "move the Infantry to b"}
    d = Decision(acts, label=lambda a: words[a["unit"]], picks=lambda t: (), value_label=lambda t, f, v: str(v),
                 type_label=str)
    q = d.question()
    assert q.field == WHOLE and [a["unit"] for a, _ in q.options] == [1, 3]
