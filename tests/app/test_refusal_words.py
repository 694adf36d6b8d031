"""Refusals in the table's words (issue 18 item 4): the engine's generic refusals name step and
seat ids; what the players read names the step and the player instead."""
import re

import pytest

from companion.engine.errors import Rejected
from companion.controller import GameController

DEV = re.compile(r"\bp\d\b|allowed:|'[a-z_]+'|\[[a-z]+\.[a-z]+\]")


def _refusal(ctrl, action):
    with pytest.raises(Rejected) as info:
        ctrl.dispatch(action)
    return ctrl.refusal_text(info.value), info.value


def test_generic_refusals_name_the_step_and_the_player(tmp_path):
    c = GameController.new(tmp_path, ("Ana", "Ben"), ("blue", "green"), seed=3, max_rounds=None)
    try:
        text, exc = _refusal(c, {"type": "produce", "player": "p1", "picks": {}})  # the first-player roll
        assert exc.rule == "flow.step" and text == f"that is not part of the {c.view.step_label(c.state.step)} step."
        text, exc = _refusal(c, {"type": "produce", "player": "p1", "picks": {"1": 2}})
        assert text == "the app could not read that action; nothing changed." or exc.rule == "flow.step"
        c.roll_virtual()
        actor = c.game.actor(c.state)
        other = "p2" if actor == "p1" else "p1"
        text, exc = _refusal(c, {"type": "research", "player": actor, "track": "economy"})
        assert exc.rule == "flow.step" and "'" in exc.message  # the engine's own words name the ids
        assert text == f"that is not part of the {c.view.step_label(c.state.step)} step." and not DEV.search(text)
        legal = next(a for a in c.legal_actions() if a.get("player") == actor)
        text, exc = _refusal(c, dict(legal, player=other))
        assert exc.rule == "flow.actor" and text == f"it is {c.name(actor)}'s decision now." and not DEV.search(text)
        text, exc = _refusal(c, {"type": "roll_event", "dice": [1, 2]})
        assert text == f"that is not part of the {c.view.step_label(c.state.step)} step."
        # the screens' preview path says the same
        assert c.check(dict(legal, player=other)) == f"it is {c.name(actor)}'s decision now."
    finally:
        c.close()
