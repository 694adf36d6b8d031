"""A seat played by the app (issue 31 item 3): set on the New game form, the bot's moves are
journaled as that seat's actions (source "app"), listed in the Log, said as what to do at the
table, never made while a player's decision waits, and a resumed save has the same bots. Real
app under Xvfb; Mint Works with two competitive seats, the second one the app's."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gui_process import run_scenario  # noqa: E402


def scenario_bot_seat(app, drv):
    ctrl, scr = drv.start_with_app_seat(app, "mint_works", count="2")
    assert ctrl.setup.get("app_players") == {"p2": "easy"} and "p2" in ctrl.app_seats()
    import threading
    import time

    searched_on, real_turn = [], ctrl.bot_turn

    def slow_turn():  # the same search, held 0.4 s so the test sees the screen while it runs
        turn = real_turn()
        if turn is None:
            return None
        seat, position, think = turn

        def slow():
            searched_on.append(threading.current_thread().name)
            time.sleep(0.4)
            return think()
        return seat, position, slow
    ctrl.bot_turn = slow_turn
    seen_app = seen_thinking = False
    for _ in range(40):
        if ctrl.game.actor(ctrl.state) == "p2" and not ctrl.game.is_over(ctrl.state):
            # the bot thinks off the screen's thread: the screen says so, offers nothing to
            # choose for the bot's seat and refuses a tap until the move is made
            seen_thinking = True
            assert scr.bar_hint == f"The app is choosing {ctrl.name('p2')}'s move.", scr.bar_hint
            assert "Wait a moment: the app then says what to do at the table." in scr.prompt, scr.prompt
            assert not drv.legal_buttons(scr) and scr._decision is None
            drv.wait_for(lambda: ctrl.game.actor(ctrl.state) != "p2" or ctrl.game.is_over(ctrl.state),
                         30, "the app's move")
            drv.pump(1)
        if ctrl.game.is_over(ctrl.state):
            break
        if scr.awaiting_dice:
            drv.press(scr.ids.roll_virtual)
            continue
        buttons = [b for b in drv.list_buttons(scr) if b.action.get("type") != "end_step"] or drv.legal_buttons(scr)
        drv.press(buttons[0])
        drv.press(scr.ids.confirm)
        if any(e.source == "app" for e in ctrl.journal.actions()):
            seen_app = True
            if "The app played" in scr.prompt:
                drv.shot("bot-seat-prompt")
    assert seen_app, "the app never played its seat"
    assert seen_thinking, "the app's seat was never seen thinking aside"
    assert searched_on and set(searched_on) == {"bot-search"}, searched_on  # never the screen's thread
    app_entries = [e for e in ctrl.journal.actions() if e.source == "app"]
    assert all(e.action.get("player") in (None, "p2") for e in app_entries)
    assert "played by the app" in scr.log_text
    # a resumed save plays with the same bot
    path = ctrl.path
    app.leave_game()
    drv.pump(2)
    assert app.resume_game(path)
    assert app.ctrl.setup.get("app_players") == {"p2": "easy"} and "p2" in app.ctrl.app_seats()


def test_bot_seat(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_bot_seat", tmp_path, size="800x480", timeout=280)


def test_a_bot_for_every_seat_or_an_unknown_level_is_refused(tmp_path):
    import pytest

    from companion.controller import GameController

    with pytest.raises(ValueError, match="At least one seat"):
        GameController.new(str(tmp_path), ["A", "B"], ["blue", "green"], game="civ_quest",
                           app_players={"p1": "easy", "p2": "easy"})
    with pytest.raises(ValueError, match="level"):
        GameController.new(str(tmp_path), ["A", "B"], ["blue", "green"], game="civ_quest",
                           app_players={"p2": "genius"})
    assert not list(tmp_path.iterdir()), "nothing saved for a refused set-up"
