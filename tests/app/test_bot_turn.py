"""A bot's turn said whole (issue 39 item 2), on the real app under Xvfb: CivMint with Ben played
by the app. After Ben's moves (each searched aside, one at a time), the card atop Now names every
one of them (up to six, then how many more) with what the table must do, not only the last; a tap
while the app thinks is answered "a moment", and that answer goes as soon as the move is made; OK
takes the card away; the next player's own action starts afresh."""
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402


def _app_turn(ctrl):
    """The app's moves since the latest other action (history entries)."""
    turn = []
    for e in reversed(ctrl.history.entries):
        if e.source != "app" or e.undone or e.undo_of is not None:
            break
        turn.append(e)
    return list(reversed(turn))


def scenario_bot_turn(app, drv):
    size = os.environ["BOT_SIZE"]
    ctrl, scr = drv.start_with_app_seat(app, os.environ.get("BOT_GAME", "civmint"))
    rng = random.Random(5)
    longest, tapped_while_thinking = None, False
    for _ in range(300):
        if ctrl.game.is_over(ctrl.state):
            break
        if ctrl.bot_turn() is not None:
            if not tapped_while_thinking and scr.ids.end_step.opacity == 0:
                # a tap while the app thinks: "a moment", gone with the move
                scr.propose({"type": "end_step"})
                assert "The app is choosing" in scr.message, scr.message
                tapped_while_thinking = True
            drv.wait_for(lambda: ctrl.bot_turn() is None or ctrl.game.is_over(ctrl.state), 90, "the app's turn")
            drv.pump(2)
            if ctrl.bot_turn() is None:
                turn = _app_turn(ctrl)
                assert "The app is choosing" not in scr.message, scr.message
                assert "The app is choosing" not in scr.bar_hint, scr.bar_hint
                if turn:
                    text = scr.app_turn_text
                    n = len(turn)
                    assert f"({n} move" in text, (n, text)
                    changed = [e for e in turn if e.action.get("type") != "end_step" or e.effects or e.table]
                    for e in changed[:6]:
                        assert "- " + e.text.split("[")[0][:30] in text, (e.text, text)
                    if len(changed) > 6:
                        assert f"and {len(changed) - 6} more" in text, text
                    assert "At the table:" in text and scr.card_text.endswith(text)
                    if longest is None or n > longest[0]:
                        longest = (n, text)
                        drv.shot(f"bot-turn-{size}", folder=os.environ["BOT_OUT"])
                    if n >= 3:
                        break
            continue
        drv.table_step(ctrl, rng, keep_going=0.4)
        drv.pump(1)
    assert tapped_while_thinking, "never tapped while the app thought"
    assert longest is not None and longest[0] >= 3, f"no turn of the app with several moves: {longest}"
    # OK: the card goes
    if scr.app_turn_text:
        drv.tap(scr.ids.roll_ok)
        assert scr.app_turn_text == "" and scr.card_text == scr.roll_result_text


@pytest.mark.parametrize("size", ["800x480", "412x915"])
def test_a_bot_turn_is_said_whole(xdisplay, tmp_path, size):
    out = str(tmp_path / "shots")
    os.makedirs(out)
    run_scenario(__file__, "scenario_bot_turn", tmp_path, size=size, timeout=280,
                 env={"BOT_SIZE": size, "BOT_OUT": out})
