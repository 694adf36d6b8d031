"""What one seat's phone is sent (issue 37, parts 3 and 5): built from that seat's view only.
Seeded games of every registered game: every seat's state is plain JSON, only the seat to act
gets a decision, and (Mint Works' face-down Lotto plans) nothing a seat may not see reaches it."""
import json
import random

import pytest

from companion import games
from companion.controller import GameController
from companion.phones.seat_state import HIDDEN_MOVE, SeatStates, hidden_part

COLOURS = ("blue", "green", "red", "yellow")


def play(ctrl, rng, steps, each):
    for _ in range(steps):
        if ctrl.game.is_over(ctrl.state):
            return
        if ctrl.awaiting_dice():
            ctrl.roll_virtual()
        else:
            acts = ctrl.legal_actions()
            if not acts:
                return
            ctrl.dispatch(rng.choice(acts), "ui")
        each()


@pytest.mark.parametrize("game", ["civmint", "civ_quest", "civ_builder", "mint_works", "civ_card_game"])
def test_every_seat_gets_plain_json_and_only_its_own_decision(tmp_path, game):
    module = games.get_module(game)
    n = max(module.players[0], min(3, module.players[1]))
    ctrl = GameController.new(tmp_path, names=[f"N{i}" for i in range(n)], colours=COLOURS[:n], seed=11, game=game)
    states = SeatStates(ctrl)
    seen_decision = set()

    def each():
        actor = ctrl.game.actor(ctrl.state)
        for seat in ctrl.seats():
            st = states.state(seat)
            json.dumps(st)  # plain JSON
            assert st["seat"] == seat and st["at"] == ctrl.journal.last_seq
            if st["decision"] is not None:
                seen_decision.add(seat)
                assert actor == seat or ctrl.game.legal_actions_for(ctrl.state, seat)
                q, done = st["decision"]["question"], st["decision"]["complete"]
                assert (q is None) != (done is None)
                assert q is None or q["options"]
            for p in st["players"]:
                assert all(isinstance(x, list) and len(x) == 3 for x in p["lines"])
    try:
        play(ctrl, random.Random(5), 60, each)
        assert seen_decision  # some seat decided on its phone
    finally:
        ctrl.close()


def test_mint_works_lotto_plans_reach_only_their_owner(tmp_path):
    ctrl = GameController.new(tmp_path, names=["A", "B", "C", "D"], colours=COLOURS, seed=3, game="mint_works")
    states = SeatStates(ctrl)
    data = ctrl.game.data
    secrets_seen = []

    def each():
        for seat in ctrl.seats():
            masked = {v for (t, v), _ in hidden_part(ctrl.module, ctrl.state, seat).items() if t is str}
            hidden = {pid for p in ctrl.state.seats if p != seat
                      for pid, built, secret in ctrl.state.plans[p] if secret and not built}
            assert hidden <= masked  # the seat view hides them
            if not hidden:
                continue
            secrets_seen.append(hidden)
            text = json.dumps(states.state(seat))
            for pid in hidden:
                assert f'"{pid}"' not in text and data.plan_name(pid) not in text, (seat, pid)
    try:
        play(ctrl, random.Random(1), 113, each)
        assert secrets_seen  # the seeded game has face-down Lotto plans
        log = {s: states.state(s)["log"] for s in ctrl.seats()}
        hidden_rows = {s: [e for e in rows if e["text"] == HIDDEN_MOVE] for s, rows in log.items()}
        assert any(hidden_rows.values())
    finally:
        ctrl.close()
