"""Table vs app through the real app, the real link and the virtual board (firmware on simulated
chips behind a pty): match, mismatch fixed, mismatch accepted, dice from the wells (crooked ->
roll again), unplug mid-game and reconnect. Each scenario runs in its own process and window."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(240)


# ------------------------------------------------------------------------------ helpers (child)
def _open_game(app, drv, seed=5, max_rounds=None):
    from companion.controller import GameController

    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "the virtual board to pair")
    kw = {} if max_rounds is None else {"max_rounds": max_rounds}
    c = GameController.new(app.games_dir, ("Ada", "Bo"), ("red", "blue"), seed=seed, **kw)
    c.roll_virtual()
    path = c.path
    c.close()
    assert app.resume_game(path)
    drv.pump(2)
    return app.root.get_screen("game")


def _set_table_to_game(app, drv, scr):
    """The players lay out every cube where the game has it."""
    from companion.games.civmint import lane_ids, lane_position

    vb = app.board.vboard
    for lane in lane_ids():
        vb.place(lane, lane_position(app.ctrl.state, lane))
    drv.wait_for(lambda: all(scr._sync.table.get(l) == lane_position(app.ctrl.state, l) for l in lane_ids()),
                 10, "the table to be sensed")
    drv.wait_for(lambda: not scr._sync.items(), 5, "no differences")


def _follow_moves(app, drv, scr):
    """Do what the app says: move each token from where the board has it to where the game wants it."""
    vb = app.board.vboard
    for it in scr._sync.items():
        assert it["kind"] == "move", it
        have = vb.tokens().get(it["lane"], [])
        if len(have) == 1:
            vb.move(it["lane"], have[0], it["engine"])
        else:
            for p in have:
                vb.remove(it["lane"], p)
            vb.place(it["lane"], it["engine"])
    drv.wait_for(lambda: not scr._sync.items(), 10, "the board to confirm the moves")


def _act_until(app, drv, scr, predicate, limit=400, seed=2):
    """Touch-play legal actions (virtual dice only when told) until predicate() holds."""
    import random

    rng = random.Random(seed)
    for _ in range(limit):
        if predicate():
            return
        if scr.awaiting_dice:
            drv.press(scr.ids.roll_virtual)
            continue
        buttons = drv.legal_buttons(scr)
        other = [b for b in buttons if b.action["type"] != "end_step"]
        pick = rng.choice(other) if other and rng.random() < 0.6 else buttons[-1] if not other else (
            [b for b in buttons if b.action["type"] == "end_step"] or buttons)[0]
        drv.press(pick, frames=1)
        drv.press(scr.ids.confirm, frames=1)
    raise AssertionError("predicate never held")


def _row(drv, scr, lane):
    rows = [r for r in drv.find(scr, "SyncRow") if r.lane == lane]
    assert len(rows) == 1, [r.text for r in drv.find(scr, "SyncRow")]
    return rows[0]


# ------------------------------------------------------------------------------ scenarios
def scenario_match_and_mismatches(app, drv):
    from companion.games.civmint import lane_position, lane_value

    scr = _open_game(app, drv)
    assert "Virtual board connected" in scr.board_line
    _set_table_to_game(app, drv, scr)
    drv.shot("table-match")

    # an action moves cubes: the app lists the moves, the board confirms them
    _act_until(app, drv, scr, lambda: bool(scr._sync.items()))
    moves = scr._sync.items()
    assert moves and all(i["kind"] == "move" and ": move " in i["text"] for i in moves)
    # named as the table knows them: the seat, the track, the colour of the token
    names = [app.ctrl.name(s) for s in app.ctrl.seats()]
    rows = [r.text for r in drv.find(scr, "SyncRow")]
    assert any((" red token" in t or " blue token" in t) for t in rows), rows
    assert any(t.startswith(n + " - ") for t in rows for n in names), (names, rows)
    drv.shot("table-moves-pending")
    _follow_moves(app, drv, scr)
    assert scr.message.startswith("Board confirms")

    # a cube moved without an action: mismatch; "Put back" -> a move; moving it back clears it
    lane = "culture.p1"
    vb = app.board.vboard
    n = len(app.ctrl.journal)
    want = lane_position(app.ctrl.state, lane)
    wrong = want + 1 if want < 5 else want - 1
    vb.move(lane, want, wrong)
    drv.wait_for(lambda: any(r.lane == lane and r.kind == "mismatch" for r in drv.find(scr, "SyncRow")), 5, "mismatch row")
    row = _row(drv, scr, lane)
    assert "the board shows" in row.text and row.ids.fix.width >= 48 and row.ids.accept.height >= 48
    drv.shot("table-mismatch")
    drv.press(row.ids.fix)
    assert _row(drv, scr, lane).kind == "move"
    vb.move(lane, wrong, want)
    drv.wait_for(lambda: not scr._sync.items(), 5, "the cube back in place")
    assert len(app.ctrl.journal) == n  # fixing the table records nothing

    # the same slip, this time kept: "Keep" asks first; only Confirm records a manual correction
    vb.move(lane, want, wrong)
    drv.wait_for(lambda: any(r.lane == lane and r.kind == "mismatch" for r in drv.find(scr, "SyncRow")), 5, "mismatch row")
    drv.press(_row(drv, scr, lane).ids.accept)
    assert len(app.ctrl.journal) == n, "Keep alone changes nothing"
    assert scr.pending_text.startswith("Confirm correction:") and "Undo reverts it" in scr.pending_text
    drv.press(scr.ids.confirm)
    last = app.ctrl.journal.actions()[-1]
    assert last.source == "ui"
    assert last.action == {"type": "correct_track", "lane": lane, "value": lane_value(lane, wrong)["value"]}
    assert lane_position(app.ctrl.state, lane) == wrong
    assert not scr._sync.items()
    assert "(manual correction)" in scr.log_text and "Culture set to" in scr.log_text
    assert app.ctrl.export()["actions"][-1]["correction"] is True
    assert app.ctrl.export()["actions"][-1]["manual"] is True
    # the correction is undoable: the game's value comes back and the table must follow again
    drv.press(scr.ids.undo)
    assert scr.pending_text.startswith("Undo ") and "Correction" in scr.pending_text
    drv.press(scr.ids.confirm)
    assert len(app.ctrl.journal) == n and lane_position(app.ctrl.state, lane) == want


def scenario_board_dice_and_unplug(app, drv):
    from companion.games.civmint import lane_position

    scr = _open_game(app, drv, seed=8)
    _set_table_to_game(app, drv, scr)
    vb = app.board.vboard
    # play to the next roll, keeping the table in step as players would
    for _ in range(60):
        if scr.awaiting_dice:
            break
        _act_until(app, drv, scr, lambda: bool(scr._sync.items()) or scr.awaiting_dice)
        if scr._sync.items():
            _follow_moves(app, drv, scr)
    assert scr.awaiting_dice
    n = len(app.ctrl.journal)
    drv.wait_for(lambda: "Waiting for a die" in scr.dice_hint, 5, "the dice prompt")
    vb.roll(0, value=3, settle_ms=60, crooked=True)
    vb.roll(1, value=5, settle_ms=60)
    drv.wait_for(lambda: "crooked" in scr.dice_hint, 5, "crooked -> roll again")
    assert len(app.ctrl.journal) == n  # nothing guessed
    drv.shot("dice-crooked")
    vb.roll(0, value=3, settle_ms=60)
    drv.wait_for(lambda: len(app.ctrl.journal) == n + 1, 5, "the roll from the wells")
    last = app.ctrl.journal.actions()[-1]
    assert last.source == "board" and app.ctrl.game.is_chance(last.action)
    vals = last.action.get("dice") or [last.action.get("attacker"), last.action.get("defender")]
    assert vals == [3, 5], last.action
    assert "dice from the board" in scr.message

    # unplug mid-game: the UI says so, play goes on by touch, the table is checked on reconnect
    if scr._sync.items():
        _follow_moves(app, drv, scr)
    vb.unplug()
    drv.wait_for(lambda: "disconnected" in scr.board_line or "Looking" in scr.board_line, 8, "link down shown")
    drv.shot("board-unplugged")
    before = len(app.ctrl.journal)
    _act_until(app, drv, scr, lambda: len(app.ctrl.journal) >= before + 6 and not scr.awaiting_dice)
    assert len(app.ctrl.journal) >= before + 6
    # players follow the app's list by hand while the cable is out
    for it in scr._sync.items():
        have = vb.tokens().get(it["lane"], [])
        for p in have:
            vb.remove(it["lane"], p)
        vb.place(it["lane"], it["engine"])
    vb.replug()
    drv.wait_for(lambda: "connected" in scr.board_line and "dis" not in scr.board_line, 15, "reconnected")
    drv.wait_for(lambda: not scr._sync.items(), 10, "the table confirmed after reconnect")
    for lane, pos in vb.tokens().items():
        assert pos == [lane_position(app.ctrl.state, lane)]


def test_reconciliation_match_fixed_accepted(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_match_and_mismatches", tmp_path, board="virtual")


def test_board_dice_crooked_and_unplug_mid_game(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_board_dice_and_unplug", tmp_path, board="virtual")


def scenario_full_game_on_the_virtual_board(app, drv):
    """A whole CivMint game through the real widgets with the table kept in step: every roll
    comes from dice thrown in the virtual board's wells, every cube is moved on the board as the
    app asks, and the game ends on the Game End screen with the table matching the final state."""
    import random

    from companion.games.civmint import lane_ids, lane_position
    from companion.controller import GameController

    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "the virtual board to pair")
    c = GameController.new(app.games_dir, ("Ada", "Bo"), ("red", "blue"), seed=21, max_rounds=3)
    path = c.path
    c.close()
    assert app.resume_game(path)
    scr = app.root.get_screen("game")
    drv.pump(2)
    _set_table_to_game(app, drv, scr)
    vb = app.board.vboard
    rng = random.Random(4)
    rolls = actions = 0
    while not app.ctrl.game.is_over(app.ctrl.state):
        n = len(app.ctrl.journal)
        if scr.awaiting_dice:  # as many dice as the roll asks (a second die is said and not used)
            for well in range(app.ctrl.module.roll_awaited(app.ctrl.state)["count"]):
                vb.roll(well, value=rng.randint(1, 6), settle_ms=30)
            drv.wait_for(lambda: len(app.ctrl.journal) > n, 5, "the roll read from the wells")
            rolls += 1
        else:
            buttons = drv.legal_buttons(scr)
            ends = [b for b in buttons if b.action["type"] == "end_step"]
            other = [b for b in buttons if b.action["type"] != "end_step"]
            pick = rng.choice(other) if other and (not ends or rng.random() < 0.6) else (ends or buttons)[0]
            drv.press(pick, frames=1)
            drv.press(scr.ids.confirm, frames=1)
            assert len(app.ctrl.journal) == n + 1, scr.message
            actions += 1
        if scr._sync.items():
            _follow_moves(app, drv, scr)
        assert actions + rolls < 3000
    drv.pump(3)
    assert app.root.current == "game_end"
    entries = app.ctrl.journal.actions()
    chance = [e for e in entries if app.ctrl.game.is_chance(e.action)]
    assert len(chance) == rolls and all(e.source == "board" for e in chance), [e.source for e in chance]
    for lane in lane_ids():
        assert vb.tokens()[lane] == [lane_position(app.ctrl.state, lane)], lane
    sc = app.ctrl.game.score(app.ctrl.state)
    end = app.root.get_screen("game_end")
    shown = " ".join(w.text for w in drv.find(end) if isinstance(getattr(w, "text", None), str))
    for seat in ("p1", "p2"):
        assert str(sc[seat]["total"]) in shown
    drv.shot("full-game-virtual-board-end")
    print(f"full game: {actions} touch actions, {rolls} rolls from the wells", flush=True)


def test_full_game_on_the_virtual_board(xdisplay, tmp_path):
    out = run_scenario(__file__, "scenario_full_game_on_the_virtual_board", tmp_path, board="virtual")
    assert "full game:" in out
