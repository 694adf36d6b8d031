"""The setup checklist (issue 18): a new game asks the players to place every token where the
game starts it; on the board, tokens seen in place tick themselves and an empty track is
flagged; without a board each takes a tap; the list survives a restart. Real app under Xvfb."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gui_process import run_scenario  # noqa: E402


def _new_game_on_screen(app, drv):
    from companion.controller import GameController
    from economy_games import resume_in_app

    c = GameController.new(app.games_dir, ("Ana", "Ben"), ("blue", "green"), seed=4, max_rounds=None)
    c.roll_virtual()  # the first-player roll: still no player decision
    path = c.path
    resume_in_app(app, c)
    drv.pump(2)
    return path, app.root.get_screen("game")


def scenario_checklist_by_touch(app, drv):
    path, scr = _new_game_on_screen(app, drv)
    counters = app.ctrl.module.sensing.counters(app.ctrl.setup)
    rows = drv.find(scr, "SetupRow")
    assert len(rows) == min(len(counters), scr.SETUP_SHOWN) and len(counters) > 1
    assert rows[0].text.startswith("Ana - ") and ": put the blue token on " in rows[0].text, rows[0].text
    assert all(r.ids.done.height >= 48 for r in rows)
    [all_placed] = drv.find(scr, "Button", text=f"All placed: {len(counters)} tokens ("
                                                  f"{len(counters) - scr.SETUP_SHOWN} more not shown)")
    drv.shot("setup-checklist")
    first = rows[0].key
    drv.press(rows[0].ids.done)
    assert first not in [r.key for r in drv.find(scr, "SetupRow")]
    side = os.path.join(os.path.dirname(path), os.path.basename(path)[:-len(".journal")] + ".table.json")
    doc = json.load(open(side))
    assert first in doc["done"] and len(doc["setup"]) == len(counters)
    # after a restart the same items are open; no second checklist is made
    app.ctrl.close()
    assert app.resume_game(path)
    drv.pump(2)
    scr = app.root.get_screen("game")
    assert first not in [r.key for r in drv.find(scr, "SetupRow")] and drv.find(scr, "SetupRow")
    [all_placed] = [b for b in drv.find(scr, "Button") if b.text.startswith(f"All placed: {len(counters) - 1} tokens")]
    drv.press(all_placed)
    assert not drv.find(scr, "SetupRow")
    # a game with a player decision already made gets no checklist (an older save)
    from companion.controller import GameController
    from economy_games import resume_in_app

    c = GameController.new(app.games_dir, ("Cy", "Di"), ("red", "green"), seed=4, max_rounds=None)
    c.roll_virtual()
    c.dispatch(next(a for a in c.legal_actions() if not c.game.is_chance(a)))
    resume_in_app(app, c)
    drv.pump(2)
    assert not drv.find(app.root.get_screen("game"), "SetupRow")


def test_checklist_by_touch(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_checklist_by_touch", tmp_path)


def scenario_checklist_on_the_board(app, drv):
    from companion.games.civmint import lane_ids, lane_position

    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "the virtual board to pair")
    _, scr = _new_game_on_screen(app, drv)
    vb = app.board.vboard
    lanes = lane_ids()
    empty = lanes[3]
    for lane in lanes:
        if lane != empty:
            vb.place(lane, lane_position(app.ctrl.state, lane))
    drv.wait_for(lambda: all(scr._sync.table.get(ln) == lane_position(app.ctrl.state, ln)
                             for ln in lanes if ln != empty), 10, "the placed tokens sensed")
    drv.pump(2)
    scr._render_sync()
    rows = drv.find(scr, "SetupRow")
    counter = next(cid for cid, ln in scr._sync.binding.lane_of.items() if ln == empty)
    flagged = [r for r in rows if r.key == "setup:" + counter]
    assert flagged and flagged[0].empty and "; not seen on the board yet." in flagged[0].text, \
        [r.text for r in rows]
    # every token the board sees in place ticked itself; only counters off the board take a tap
    on_board = {cid for cid, ln in scr._sync.binding.lane_of.items()}
    assert all(r.key[len("setup:"):] not in on_board or r is flagged[0] for r in rows), [r.text for r in rows]
    drv.shot("setup-checklist-empty-track")
    vb.place(empty, lane_position(app.ctrl.state, empty))
    drv.wait_for(lambda: not any(r.key == "setup:" + counter for r in drv.find(scr, "SetupRow")), 10,
                 "the empty track filled and ticked")


def test_checklist_on_the_board(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_checklist_on_the_board", tmp_path, board="virtual")


def test_counters_kept_on_a_pad_are_not_asked_for_at_set_up():
    """Civ Quest keeps Idea and Resource Points on each player's pad: the set-up checklist asks
    for no token there, and the status line says the tablet keeps them (the two agree)."""
    from companion import games
    from companion.table.sensing import Binding
    from companion.table.todo import setup_checklist

    m = games.get_module("civ_quest")
    setup = m.sample_setup(2)
    state = m.game.initial_state(setup)
    counters = m.sensing.counters(setup)
    assert counters and all(c.on_pad for c in counters)
    assert setup_checklist(m.sensing, setup, state, lambda s: s, lambda s: "blue") == []
    note = Binding.bind(counters, []).unbound_text(lambda s: s)
    assert note.startswith("Not on the board") and "Idea Points" in note
