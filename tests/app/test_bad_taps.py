"""Bad input at the table (issue 18): a die thrown when no roll is asked, a tap while another
decision waits for Confirm, dice landing in the wells meanwhile, a double tap on the dice entry
and on Confirm.
Each gets a plain answer on screen and nothing is applied by accident. Real app, virtual board."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gui_process import run_scenario  # noqa: E402


def _play_to(ctrl, pred, limit=2000):
    """Headless play on the app's own controller (the screen follows it) until pred(ctrl)."""
    for _ in range(limit):
        if pred(ctrl):
            return
        if ctrl.awaiting_dice():
            ctrl.roll_virtual()
            continue
        acts = ctrl.legal_actions()
        ctrl.dispatch(next((a for a in acts if a["type"] == "end_step"), acts[0]))
    raise AssertionError("never reached")


def _event_roll_of(who):
    def pred(ctrl):
        req = ctrl.dice_request() if ctrl.awaiting_dice() else None
        return bool(req) and req["roll"] == "Event roll" and req["who"] == who
    return pred


def scenario_bad_taps(app, drv):
    from companion.controller import GameController
    from economy_games import resume_in_app

    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "the virtual board to pair")
    c = GameController.new(app.games_dir, ("Ana", "Ben"), ("blue", "green"), seed=3, max_rounds=None)
    c.roll_virtual()  # the first player: no roll is asked after it
    ctrl = resume_in_app(app, c)
    drv.pump(2)
    scr = app.root.get_screen("game")
    vb = app.board.vboard
    assert not ctrl.awaiting_dice() and scr.dice_prompt == ""

    # a die thrown when no roll is asked: said so, not used, not kept for a later roll
    n = len(ctrl.journal)
    vb.roll(0, value=4, settle_ms=100)
    drv.wait_for(lambda: "No roll is asked now: the die in well 1 is not used" in scr.message, 10,
                 "the answer to an unasked die")
    assert len(ctrl.journal) == n
    drv.shot("bad-taps-die-not-asked")
    _play_to(ctrl, _event_roll_of(ctrl.state.first))
    drv.pump(3)
    assert scr.dice_prompt.endswith("Event roll, 2 dice") or "Event roll" in scr.dice_prompt
    n = len(ctrl.journal)
    drv.pump(5)
    assert len(ctrl.journal) == n, "the die thrown earlier was taken for this roll"
    assert "Waiting for a die in well" in scr.dice_hint

    # a tap on the dice entry while Undo waits for Confirm: refused, nothing applied
    drv.press(scr.ids.undo)
    assert scr.pending_text.startswith("Undo ")
    [entry] = [w for w in drv.find(scr, "DiceEntry") if not w.disabled and w.height > 0]  # the roll's one entry
    entry.value1, entry.value2 = 2, 3
    drv.press(entry.ids.enter)
    assert len(ctrl.journal) == n and scr.error
    assert scr.message == "First tap Confirm or Cancel below; nothing else was done."
    assert scr.pending_text.startswith("Undo ")  # the bar below names the decision that waits
    drv.shot("bad-taps-tap-while-confirming")

    # dice landing in the wells meanwhile wait too; Cancel lets them in
    vb.roll(0, value=5, settle_ms=100)
    vb.roll(1, value=1, settle_ms=100)
    drv.wait_for(lambda: scr.dice_hint.startswith("The dice wait in the wells"), 10, "the dice to wait")
    assert len(ctrl.journal) == n and scr.pending_text.startswith("Undo ")
    drv.press(scr.ids.cancel)
    drv.wait_for(lambda: len(ctrl.journal) == n + 1, 10, "the waiting dice taken after Cancel")
    assert ctrl.journal.entries()[-1].source == "board"
    assert scr.pending_text == ""

    # a double tap: the dice entry's Set only chooses (the roll waits for Confirm), and a second
    # touch of Confirm finds nothing waiting: one roll
    _play_to(ctrl, lambda k: k.awaiting_dice() and (k.dice_request() or {}).get("count") == 2
             and (k.dice_request() or {}).get("spec") is not None)
    drv.pump(3)
    n = len(ctrl.journal)
    [entry] = [w for w in drv.find(scr, "DiceEntry") if not w.disabled and w.height > 0]
    entry.value1, entry.value2 = 6, 6
    drv.press(entry.ids.enter, frames=0)
    drv.press(entry.ids.enter, frames=0)
    assert len(ctrl.journal) == n and scr.pending_text.endswith("6 + 6"), (scr.pending_text, scr.message)
    drv.press(scr.ids.confirm, frames=0)
    assert len(ctrl.journal) == n + 1
    scr.confirm()  # the second touch reaching Confirm before a frame was drawn
    assert len(ctrl.journal) == n + 1, "one roll from a double tap"
    drv.pump(2)
    assert scr.ids.confirm.disabled and scr.pending_text == ""
    drv.shot("bad-taps-double-tap")


def test_bad_taps(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_bad_taps", tmp_path, board="virtual", timeout=180)
