"""Migration told in two steps (CQ-R22): first the area the tokens leave, then where they go and
how many. A one-step move (the shape saved before the two steps) is still accepted, so old saves
resume unchanged."""
from __future__ import annotations

import os
import random

from cq_helpers import GAME, act, eager_pick, learn, random_game, rejected, started, to_step, with_units

from companion.engine import Session
from companion.engine.dice import SeededDice
from companion.engine.errors import Rejected
from companion.store.journal import Journal


def _migrating(s, die=6):
    s = to_step(s, "migration")
    return act(s, "migration_roll", die=die)


def test_the_list_offers_each_area_once_then_the_moves_from_the_area_chosen():
    s = _migrating(with_units(started(), macedonia=("p1", 4, False), thrace=("p1", 3, False), syria=None))
    la = GAME.legal_actions(s)
    assert {a.type for a in la} == {"done", "move_from"}
    assert sorted(a["from_area"] for a in la if a.type == "move_from") == ["macedonia", "thrace"]
    s = act(s, "move_from", player="p1", from_area="thrace")
    assert GAME.pending(s) == "moving"
    moves = GAME.legal_actions(s)
    assert moves and {a.type for a in moves} == {"move"} and {a["from_area"] for a in moves} == {"thrace"}
    # every destination the rules allow from there, with 1 PT and with as many as may go
    dests = GAME.destinations(s, "p1", "thrace")
    assert {a["to_area"] for a in moves} == set(dests)
    assert {a["count"] for a in moves if a["to_area"] == "bithynia"} == {1, 3}
    rejected(s, "CQ-R22", "move", player="p1", from_area="macedonia", to_area="thessaly", count=1)
    rejected(s, "CQ-R22", "done", player="p1")
    rejected(s, "CQ-FLOW", "move_from", player="p1", from_area="macedonia")
    s = act(s, "move", player="p1", from_area="thrace", to_area="bithynia", count=2)
    assert s.units["bithynia"] == ("p1", 2, False) and s.units["thrace"] == ("p1", 1, False)
    assert s.ctx["mp"] == 4 and GAME.pending(s) is None
    assert {a.type for a in GAME.legal_actions(s)} == {"done", "move_from"}


def test_an_area_is_offered_exactly_when_a_token_there_has_somewhere_to_go():
    seen = 0
    for players, seed in ((2, 1), (4, 2), (7, 3)):
        for s, _ in random_game(seed, players, max_rounds=12):
            if s.over or s.step != "migration" or GAME.pending(s) is not None or not s.ctx.get("open") or s.roll:
                continue
            seat = s.current
            offered = {a["from_area"] for a in GAME.legal_actions(s) if a.type == "move_from"}
            for area in GAME.areas_of(s, seat):
                if s.units[area][1] < 1:
                    assert area not in offered
                    continue
                try:
                    moves = GAME.legal_actions(act(s, "move_from", player=seat, from_area=area))
                except Rejected as e:
                    assert area not in offered and e.rule == "CQ-M2", e
                    continue
                assert area in offered and moves, area
                assert {a["from_area"] for a in moves} == {area}
                seen += 1
                if seen % 7 == 0:  # the check agrees with the destinations, area by area
                    taken = act(s, "move_from", player=seat, from_area=area)
                    dests = set(GAME.destinations(taken, seat, area))
                    cap = GAME.rules["area_pt_cap"]
                    for d in taken.board.land:
                        ok = GAME.is_legal(taken, GAME.codec.make("move", player=seat, from_area=area,
                                                                  to_area=d, count=1))
                        room = d not in taken.units or taken.units[d][1] < cap
                        assert ok == (d in dests and room), (area, d, ok)
    assert seen > 20
    s = _migrating(with_units(started(), macedonia=("p1", 3, False)))
    rejected(s, "CQ-M1", "move_from", player="p1", from_area="syria")      # another civilisation's
    rejected(s, "CQ-M1", "move_from", player="p1", from_area="crete")      # nobody's


def test_a_token_hemmed_in_by_full_areas_is_not_offered():
    # Thrace borders Macedonia and Bithynia by land and is coastal: fill every area it reaches
    s = with_units(started(), thrace=("p1", 2, False), macedonia=("p1", 10, False), bithynia=("p1", 10, False))
    s = _migrating(s)
    for d in GAME.destinations(s, "p1", "thrace"):
        s = with_units(s, **{d: ("p1", 10, False)})
    assert GAME.destinations(s, "p1", "thrace")
    assert "thrace" not in {a["from_area"] for a in GAME.legal_actions(s) if a.type == "move_from"}
    rejected(s, "CQ-M2", "move_from", player="p1", from_area="thrace")


def test_roads_list_one_choice_per_area_not_every_destination():
    s = learn(with_units(started(), macedonia=("p1", 3, False), thrace=("p1", 3, False), bithynia=("p1", 3, False),
                         syria=None), "p1", "Roads")
    s = _migrating(s, die=3)
    la = GAME.legal_actions(s)
    assert len(la) == 4  # done and the three areas
    s = act(s, "move_from", player="p1", from_area="macedonia")
    assert "galatia" in {a["to_area"] for a in GAME.legal_actions(s)}   # along Thrace and Bithynia


def _old_style_game(seed, players=3, limit=900):
    """A seeded random game whose moves are one-step `move` actions (as saves before the two
    steps hold them): the move chosen in two steps is applied in one."""
    rng, dice = random.Random(seed), SeededDice(seed)
    setup = GAME.default_setup(players=players)
    setup["seed"] = seed
    s = GAME.initial_state(setup)
    acts, moves = [], 0
    while not s.over and len(acts) < limit:
        if GAME.actor(s) == "system":
            a = GAME.chance_action(s, dice)
        else:
            a = eager_pick(rng, GAME.legal_actions(s))
            if a.type == "move_from":
                a = rng.choice(GAME.legal_actions(GAME.apply(s, a)))
                moves += 1
        s = GAME.apply(s, a)
        acts.append(a)
    return setup, acts, s, moves


def test_a_save_with_one_step_moves_resumes_unchanged(tmp_path):
    setup, acts, final, moves = _old_style_game(5)
    assert moves >= 5 and not any(a.type == "move_from" for a in acts)
    path = os.path.join(tmp_path, "old.journal")
    j = Journal.create(path, "civ_quest", setup, "old", data_version=2)
    for a in acts:
        j.append(a.to_dict(), "system" if GAME.codec.is_chance(a) else "ui")
    j.close()
    sess = Session.resume(path)
    try:
        assert sess.state.to_dict() == final.to_dict()
        # and the game goes on in the two steps
        assert len(sess.history) == len(acts)
    finally:
        sess.close()
