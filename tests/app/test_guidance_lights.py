"""Guidance lights, app level and headless: a CivMint game's TableSync on the virtual board (real
firmware, simulated 74HC595s on the chain, real pty and link). A pending move lights its target space; the
light goes out on the board when the virtual token arrives there (before the app has read the
board's report), the app then drops it from its set; an undo withdraws a move and its light."""
import time

import pytest

from companion.engine.session import Session
from companion.games.civmint import lane_ids, lane_position
from companion.games.civmint.sensing import SENSING
from companion.link import board_port as bp
from companion.table.sensing import Binding, lanes_of
from companion.table.sync import MOVE, TableSync

pytestmark = pytest.mark.timeout(120)


def _until(pred, board=None, seconds=10.0, what="condition", on_events=None):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if board is not None:
            evs = board.poll()
            if on_events is not None and evs:
                on_events(evs)
        if pred():
            return
        time.sleep(0.01)
    raise AssertionError("timed out waiting for " + what)


@pytest.fixture
def rig(tmp_path):
    board = bp.VirtualLinkBoard(seed=11)
    board.start()
    sess = Session.new("civmint", None, tmp_path / "g.journal", seed=4)
    sess.roll()
    try:
        _until(lambda: board.status()["state"] == "paired", board, what="pairing")
        vb = board.virtual
        for lane in lane_ids():  # the table as the game has it
            vb.place(lane, lane_position(sess.state, lane))
        want = {lane: lane_position(sess.state, lane) for lane in lane_ids()}
        _until(lambda: board.lanes() == want, board, what="the table sensed")
        binding = Binding.bind(SENSING.counters(sess.setup), lanes_of(board.smap))
        sync = TableSync(SENSING, binding, seat_label=lambda s: {"p1": "Blue", "p2": "Green"}[s],
                         seat_name=lambda s: {"p1": "Ben", "p2": "Ana"}[s], lights=board.show_lights)
        sync.start(sess.state, dict(board.lanes()))
        yield board, vb, sess, sync
    finally:
        sess.close()
        board.stop()


def _feed(sync, board):
    """What the game screen does with the board's events (companion/gui/screens.py)."""
    def on_events(events):
        for ev in events:
            if ev.get("type") == "TRACK_CHANGE":
                sync.table_changed(ev["lane_id"], board.lanes().get(ev["lane_id"]))
    return on_events


def _move_something(sess):
    """Play legal actions until one moves a lane; returns {lane: (from, to)}."""
    for _ in range(300):
        before = {lane: lane_position(sess.state, lane) for lane in lane_ids()}
        if sess.actor() == "system":
            sess.roll()
        else:
            acts = sess.legal_actions()
            sess.dispatch(next((a for a in acts if a.type != "end_step"), acts[0]), "ui")
        after = {lane: lane_position(sess.state, lane) for lane in lane_ids()}
        moved = {k: (before[k], after[k]) for k in after if before[k] != after[k]}
        if moved:
            return moved
    raise AssertionError("no action moved a lane")


def _lit(board, vb):
    """The virtual board's lit LEDs, by lane id (the simulated 74HC595s' latched outputs)."""
    ids = board.smap.lane_ids
    return {(ids[k], p) for k, p in vb.call(lambda b: vb.world.lit_positions())}


def test_a_pending_move_lights_its_target_and_the_token_puts_it_out(rig):
    board, vb, sess, sync = rig
    assert _lit(board, vb) == set()  # the table matches: nothing to light
    moved = _move_something(sess)
    sync.engine_changed(sess.state)
    items = [it for it in sync.items() if it["kind"] == MOVE]
    assert {it["lane"] for it in items} == set(moved)
    lane = sorted(moved)[0]
    frm, to = moved[lane]
    item = sync.item(lane)
    assert ": move the " in item["text"] and item["engine"] == to  # "Ben - Food: move the blue token to ..."
    targets = {(ln, moved[ln][1]) for ln in sorted(moved)[:8]}
    _until(lambda: _lit(board, vb) == targets, board, what="the targets lit")
    assert (lane, to) in _lit(board, vb) and board.lit()[lane] == to
    # the player slides the token: the board puts the light out by itself, without the app
    vb.move(lane, frm, to, ms_per_space=20)
    _until(lambda: (lane, to) not in _lit(board, vb), None, what="the light out on the board")
    assert lane in sync.pending  # the app has not even read the report yet
    # the app reads it: the move is confirmed and dropped from the lights it asks for
    _until(lambda: lane not in sync.pending, board, what="the move confirmed", on_events=_feed(sync, board))
    assert sync.take_confirmed() == [lane]
    assert lane not in board.lit() and (lane, to) not in _lit(board, vb)
    # the remaining moves made by hand: every light goes out
    for other in sorted(moved):
        if other != lane:
            vb.move(other, *moved[other], ms_per_space=20)
    _until(lambda: not sync.pending, board, what="all moves done", on_events=_feed(sync, board))
    _until(lambda: _lit(board, vb) == set() and board.lit() == {}, board, what="all lights out")


def test_a_withdrawn_move_puts_its_light_out(rig):
    board, vb, sess, sync = rig
    moved = _move_something(sess)
    sync.engine_changed(sess.state)
    _until(lambda: _lit(board, vb), board, what="a light")
    for _ in range(300):  # undo until the game is back where the table is
        if not sync.pending:
            break
        sess.undo()
        sync.engine_changed(sess.state)
    assert not sync.pending
    _until(lambda: _lit(board, vb) == set() and board.lit() == {}, board, what="the light withdrawn")
    assert sync.light_targets() == {}


def test_lights_come_back_after_the_board_resets(rig):
    board, vb, sess, sync = rig
    moved = _move_something(sess)
    sync.engine_changed(sess.state)
    targets = {(ln, moved[ln][1]) for ln in sorted(moved)[:8]}
    _until(lambda: _lit(board, vb) == targets, board, what="the targets lit")
    vb.reset()  # the board restarts dark ...
    _until(lambda: _lit(board, vb) == set(), None, what="the reset board dark")
    # ... and the app sends its set again after the pairing snapshot
    _until(lambda: _lit(board, vb) == targets, board, seconds=15, what="the lights restored",
           on_events=_feed(sync, board))


def test_no_board_and_no_sink_light_nothing(tmp_path):
    from companion.table import sync as table_sync
    sess = Session.new("civmint", None, tmp_path / "g.journal", seed=4)
    try:
        sess.roll()
        binding = Binding.bind(SENSING.counters(sess.setup), lanes_of(bp._default_smap()))
        got = []
        sync = TableSync(SENSING, binding, lights=got.append)
        sync.start(sess.state, {lane: lane_position(sess.state, lane) for lane in lane_ids()})
        assert got == [{}]
        moved = _move_something(sess)
        sync.engine_changed(sess.state)
        assert got[-1] == {ln: moved[ln][1] for ln in moved}
        n = len(got)
        sync.engine_changed(sess.state)  # nothing changed: nothing sent
        assert len(got) == n
        other = []
        table_sync.set_light_sink(other.append)  # another board took over: it gets the set
        try:
            sync.lights = None  # this one follows the sink from now on
            sync.engine_changed(sess.state)  # nothing changed, but the sink is new: sent again
            assert other[-1] == {ln: moved[ln][1] for ln in moved}
        finally:
            table_sync.set_light_sink(None)
        sync.lights = got.append
        sync.close()
        assert got[-1] == {}
        assert bp.ManualBoard().show_lights({"food.p1": 3}) is not None
        assert table_sync.light_sink() is None or callable(table_sync.light_sink())
    finally:
        sess.close()


# ------------------------------------------------------------ the real app, under Xvfb
def scenario_virtual_board_shows_lights(app, drv):
    from companion.table import sync as table_sync

    drv.press(app.root.get_screen("home").ids.board_status)
    scr = app.root.get_screen("board")
    drv.wait_for(lambda: app.board.status()["state"] == "paired" and app.board.wells(), 15,
                 "the virtual board to pair")
    # the app's board is where every TableSync of the game screen sends its lights
    assert table_sync.light_sink() == app.board.show_lights
    drv.press(scr.ids.tab_virtual)
    scr.ids.v_lane.text = scr.lane_words("military_might.p2")
    drv.pump(2)
    assert "( " not in scr.v_strip_text and "No light is on" in scr.v_lights_text
    assert app.board.show_lights({"military_might.p2": 3, "food.p1": 10}) is None
    drv.wait_for(lambda: "( 3 )" in scr.v_strip_text, 5, "space 3 glowing on the strip")
    assert "Military might (seat 2) space 3" in scr.v_lights_text and "Food (seat 1) space 10" in scr.v_lights_text
    drv.shot("board-virtual-lights")
    # the token arrives on the lit space: the board puts the light out, the screen follows
    scr.ids.v_space.text = "3"
    drv.press(scr.ids.v_place)
    drv.wait_for(lambda: "( " not in scr.v_strip_text and "3*" in scr.v_strip_text, 5,
                 "the light out under the token")
    assert "Military might" not in scr.v_lights_text and "Food (seat 1) space 10" in scr.v_lights_text
    assert "military_might.p2" not in app.board.lit()


def scenario_game_lights_the_moves_it_asks_for(app, drv):
    """The real game screen (its own TableSync, companion/gui/screens.py) on the virtual board:
    an action that moves tokens lights their targets on the board; following the moves puts
    every light out."""
    from test_table_reconcile import _act_until, _follow_moves, _open_game, _set_table_to_game

    scr = _open_game(app, drv)
    _set_table_to_game(app, drv, scr)
    vb = app.board.vboard
    ids = app.board.smap.lane_ids

    def lit():
        return {(ids[k], p) for k, p in vb.call(lambda _b: vb.world.lit_positions())}
    assert lit() == set()
    _act_until(app, drv, scr, lambda: bool(scr._sync.items()))
    want = {(it["lane"], it["engine"]) for it in scr._sync.items() if it["kind"] == "move"}
    drv.wait_for(lambda: lit() == set(sorted(want)[:8]), 5, "the moves' targets lit on the board")
    drv.shot("game-lights-lit")
    _follow_moves(app, drv, scr)
    drv.wait_for(lambda: lit() == set() and app.board.lit() == {}, 5, "every light out")


def test_the_game_screen_lights_its_moves(xdisplay, tmp_path):
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gui_process import run_scenario
    run_scenario(__file__, "scenario_game_lights_the_moves_it_asks_for", tmp_path, board="virtual")


def test_virtual_board_screen_shows_the_lights(xdisplay, tmp_path):
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gui_process import run_scenario
    run_scenario(__file__, "scenario_virtual_board_shows_lights", tmp_path, board="virtual")


def scenario_leaving_the_game_puts_its_lights_out(app, drv):
    """Home from a game whose moves are lit: the game's lights go out (nothing is wanted now)."""
    from test_table_reconcile import _act_until, _open_game, _set_table_to_game

    scr = _open_game(app, drv)
    _set_table_to_game(app, drv, scr)
    vb = app.board.vboard
    _act_until(app, drv, scr, lambda: bool(scr._sync.items()))
    drv.wait_for(lambda: vb.call(lambda _b: vb.world.lit_positions()), 5, "a move's target lit")
    app.leave_game()
    drv.wait_for(lambda: not vb.call(lambda _b: vb.world.lit_positions()), 5, "the lights out")
    assert scr._sync is None and app.board.lit() == {}


def test_leaving_the_game_puts_its_lights_out(xdisplay, tmp_path):
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gui_process import run_scenario
    run_scenario(__file__, "scenario_leaving_the_game_puts_its_lights_out", tmp_path, board="virtual")
