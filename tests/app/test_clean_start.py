"""Every game starts clean (issue 27 item 5): opening another game in the same run shows nothing
of the previous one - no roll card, panel, pending choice, notice or scroll position on the
game screen, and the Board screen names the new game's lanes (not the old game's). Real app,
virtual board."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gui_process import run_scenario  # noqa: E402


def scenario_clean_start(app, drv):
    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "the virtual board to pair")
    smap = app.board.smap
    board = app.root.get_screen("board")

    # Mint Works: a plan drawn by the app leaves its card on screen; a choice waits for Confirm
    app.start_new_game("mint_works", ["Ana", "Ben"], ["blue", "green"])
    drv.pump(3)
    scr = app.root.get_screen("game")
    if scr.awaiting_dice:
        drv.press(scr.ids.roll_virtual)
    assert scr.roll_result_text, "the draw's card"
    app.go("board")
    drv.pump(2)
    mint_words = {lane: board.lane_words(lane) for lane in smap.lane_ids}
    assert any("Mints" in w for w in mint_words.values()), mint_words
    board.show("virtual")  # the virtual board drawn as the table, its tracks named by the game
    drv.pump(2)
    assert any("Mints" in r.label for r in drv.find(board.ids.v_table, "LaneRow"))
    app.go("game")
    drv.pump(2)
    buttons = drv.list_buttons(scr)
    drv.press(buttons[0])
    assert scr.pending is not None
    scr.ids.now_scroll.scroll_y = 0
    drv.shot("clean-start-mint-works")

    # another game in the same run: nothing of Mint Works is shown
    app.leave_game()
    drv.pump(2)
    app.start_new_game("civ_quest", ["Ana", "Ben"], ["blue", "green"], virtual_first=False)
    drv.pump(3)
    assert app.ctrl.module.id == "civ_quest"
    assert scr.roll_result_text == "" and scr.pending is None and scr.pending_text == ""
    assert not scr.ids.notice_area.children
    assert not [w for w in scr.ids.step_area.walk(restrict=True) if type(w).__name__ == "TurnPanel"]
    assert scr.ids.now_scroll.scroll_y == 1 and not scr.show_all
    assert set(scr.tab_buttons) >= {"players", "log"} and "table" not in scr.tab_buttons
    app.go("board")
    drv.pump(2)
    quest_words = {lane: board.lane_words(lane) for lane in smap.lane_ids}
    assert not any("Mints" in w for w in quest_words.values()), quest_words
    rows = drv.find(board.ids.v_table, "LaneRow")
    assert rows and not any("Mints" in r.label for r in rows), [r.label for r in rows]
    assert quest_words != mint_words
    drv.shot("clean-start-board-after-switch")

    # leaving the game: the board screen names no player of the game left
    app.leave_game()
    drv.pump(2)
    app.go("board")
    drv.pump(2)
    words = {lane: board.lane_words(lane) for lane in smap.lane_ids}
    assert not any("Ana" in w or "Ben" in w for w in words.values()), words


def test_clean_start(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_clean_start", tmp_path, board="virtual", size="800x480")
