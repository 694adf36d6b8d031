"""A seat played by the app (issue 31 item 3): set on the New game form, the bot's moves are
journaled as that seat's actions (source "app"), listed in the Log, said as what to do at the
table, never made while a player's decision waits, and a resumed save has the same bots. Real
app under Xvfb; Mint Works with two competitive seats, the second one the app's."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gui_process import run_scenario  # noqa: E402


def scenario_bot_seat(app, drv):
    ng = drv.new_game_form(app, "mint_works")
    ng.set_count("2")
    drv.pump(2)
    assert ng.can_seat_app
    ng._played_by["p2"].text = "Played by the app (easy)"
    drv.press(ng.ids.start)
    drv.pump(3)
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    assert ctrl.setup.get("app_players") == {"p2": "easy"} and "p2" in ctrl.app_seats()
    seen_app = False
    for _ in range(40):
        if ctrl.game.is_over(ctrl.state):
            break
        # the bot never acts while a player's decision waits: the actor is always a player or the dice
        assert ctrl.game.actor(ctrl.state) != "p2", "the app's seat left waiting"
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
