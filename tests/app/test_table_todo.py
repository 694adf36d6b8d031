""""Do this at the table" in the real app (Xvfb): after an action the dashboard lists the physical
changes with owner, kind and place; Done ticks one off; the list survives a restart; the log
entry of a moved unit reads the same after later moves (issue 18, items 1, 2 and 7)."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(240)


def _rolled_game_on_screen(app, drv, seed, frames=2):
    """A new game (Ana blue, Ben green, no round limit), its first-player roll made, resumed
    on the game screen; its save's path."""
    from companion.controller import GameController
    from economy_games import resume_in_app

    c = GameController.new(app.games_dir, ("Ana", "Ben"), ("blue", "green"), seed=seed,
                           max_rounds=None)
    c.roll_virtual()  # first player
    path = c.path
    resume_in_app(app, c)
    drv.pump(frames)
    return path


def scenario_todo_lists_dice_and_cubes_and_survives_restart(app, drv):

    path = _rolled_game_on_screen(app, drv, seed=3)
    scr = app.root.get_screen("game")
    # play until an action moved a cube or a die
    for _ in range(40):
        if drv.find(scr, "TodoRow"):
            break
        if scr.awaiting_dice:
            drv.press(scr.ids.roll_virtual)
            continue
        buttons = [b for b in drv.legal_buttons(scr) if b.action["type"] != "end_step"] \
            or drv.legal_buttons(scr)
        drv.press(buttons[0])
        drv.press(scr.ids.confirm)
    rows = drv.find(scr, "TodoRow")
    assert rows, "an action that changed the table lists what to do"
    texts = [r.text for r in rows]
    assert all(("Ana's" in t or "Ben's" in t or "gains" in t) for t in texts), texts
    assert rows[0].ids.done.height >= 48 and rows[0].ids.done.width >= 48
    drv.shot("table-todo")
    first = rows[0].key
    drv.press(rows[0].ids.done)
    assert first not in [r.key for r in drv.find(scr, "TodoRow")]
    side = os.path.join(os.path.dirname(path), os.path.basename(path)[:-len(".journal")] + ".table.json")
    assert first in json.load(open(side))["done"]
    left = [r.key for r in drv.find(scr, "TodoRow")]
    # the app comes back (as after a kill): the same items are open, the ticked one stays done
    app.ctrl.close()
    assert app.resume_game(path)
    drv.pump(2)
    scr = app.root.get_screen("game")
    assert [r.key for r in drv.find(scr, "TodoRow")] == left
    # a damaged list file: the game opens, the list starts again, the player is told
    with open(side, "w") as f:
        f.write("{not json")
    app.ctrl.close()
    assert app.resume_game(path)
    drv.pump(2)
    scr = app.root.get_screen("game")
    assert "starts again" in scr.message and scr.error
    assert first in [r.key for r in drv.find(scr, "TodoRow")]


def test_todo_lists_dice_and_cubes_and_survives_restart(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_todo_lists_dice_and_cubes_and_survives_restart", tmp_path)


def scenario_log_of_a_moved_unit_reads_the_same_later(app, drv):

    _rolled_game_on_screen(app, drv, seed=5)
    scr = app.root.get_screen("game")
    moved = None
    for _ in range(400):
        if scr.over:
            break
        if scr.awaiting_dice:
            drv.press(scr.ids.roll_virtual)
            continue
        buttons = drv.legal_buttons(scr)
        moves = [b for b in buttons if b.action["type"] == "move"]
        pick = moves[0] if moves else next((b for b in buttons if b.action["type"] == "end_step"), buttons[0])
        drv.press(pick, frames=1)
        drv.press(scr.ids.confirm, frames=1)
        if moves and moved is None:
            moved = app.ctrl.history.entries[-1]
            text = moved.text
        if moved is not None and len(app.ctrl.history.entries) > moved.seq + 30:
            break
    assert moved is not None, "a unit moved"
    assert moved.text == text  # later moves did not rewrite it
    from companion.store.history_log import HistoryLog
    c = app.ctrl
    rebuilt = HistoryLog(c.game, c.view, c.setup)
    rebuilt.rebuild(c.journal.entries(), c.game.initial_state(c.setup))
    assert next(e for e in rebuilt.entries if e.seq == moved.seq).text == text  # and after a resume


def test_log_of_a_moved_unit_reads_the_same_later(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_log_of_a_moved_unit_reads_the_same_later", tmp_path)


def scenario_earthquake_that_kills_a_cavalry(app, drv):
    """Ana rolls an Earthquake with a Cavalry on the map: the roll's outcome stays where the
    roll was asked until OK, and the table is told to take Ana's Cavalry die off the map."""
    import random

    from companion.games import civmint
    from companion.controller import GameController
    from economy_games import resume_in_app

    c = GameController.new(app.games_dir, ("Ana", "Ben"), ("blue", "green"), seed=1, max_rounds=None)
    rng = random.Random(1)
    for _ in range(3000):  # seeded play (cavalry built whenever it can be) up to Ana's event roll
        req = c.dice_request() if c.awaiting_dice() else None
        if req and req["roll"] == "Event roll" and req["who"] == "p1" and any(
                u.owner == "p1" and u.kind == "cavalry" for u in c.state.units.values()):
            break
        if req:
            c.roll_virtual()
            continue
        acts = c.legal_actions()
        cav = [a for a in acts if "cavalry" in str(a.values())]
        ends = [a for a in acts if a["type"] == "end_step"]
        c.dispatch(cav[0] if cav else ends[0] if ends and rng.random() < 0.5 else rng.choice(acts))
    else:
        raise AssertionError("no event roll for Ana with a Cavalry")
    [cav] = [u.id for u in c.state.units.values() if u.owner == "p1" and u.kind == "cavalry"]
    events = c.game.data.events["events"]
    quake = next(int(n) for n, e in events.items() if e["name"] == "Earthquake")
    total = quake - civmint.bonuses(c.state.players["p1"])["event_bonus"]
    dice = [min(6, total - 1), total - min(6, total - 1)]
    ctrl = resume_in_app(app, c)
    drv.pump(2)
    scr = app.root.get_screen("game")
    assert scr.dice_prompt.startswith("Ana: Event roll") and scr.roll_result_text == ""
    for _ in range(200):  # the table has caught up with the game so far
        rows = drv.find(scr, "TodoRow")
        if not rows:
            break
        drv.press(rows[0].ids.done)
    # the event panel's own dice entry (the one entry of this roll on screen)
    [entry] = [w for w in drv.find(scr, "DiceEntry") if not w.disabled and w.height > 0]
    entry.value1, entry.value2 = dice
    drv.press(entry.ids.enter)
    drv.press(scr.ids.confirm)
    assert "Earthquake" in scr.roll_result_text and scr.roll_result_text.startswith("[b]Ana: Event roll")
    if cav in ctrl.state.units:  # Ana chooses the unit she loses: the Cavalry
        [pick] = [b for b in drv.legal_buttons(scr)
                  if b.action["type"] == "event_lose" and b.action.get("units") == [cav]]
        drv.press(pick)
        drv.press(scr.ids.confirm)
    assert cav not in ctrl.state.units
    todo = [r.text for r in drv.find(scr, "TodoRow")]
    assert any("Ana's Cavalry" in t and "off the map" in t for t in todo), todo
    assert not any("Settler" in t for t in todo), todo
    assert "Earthquake" in scr.roll_result_text  # still there after the next action
    assert scr.ids.roll_result.height > 0 and not scr.ids.roll_ok.disabled
    drv.shot("earthquake-kills-cavalry")
    drv.press(scr.ids.roll_ok)
    drv.pump(2)
    assert scr.roll_result_text == "" and scr.ids.roll_result.height == 0 and scr.ids.roll_ok.disabled


def test_earthquake_that_kills_a_cavalry(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_earthquake_that_kills_a_cavalry", tmp_path, timeout=180)


def _tap(drv, w):
    """A real touch at the centre of w (through the window, as a finger would)."""
    from kivy.tests.common import UnitTestTouch

    x, y = w.to_window(*w.center)
    t = UnitTestTouch(x, y)
    t.touch_down()
    t.touch_up()
    drv.pump(2)


def scenario_action_area_at_800x480(app, drv):
    from kivy.core.window import Window

    _rolled_game_on_screen(app, drv, seed=3, frames=3)
    scr = app.root.get_screen("game")
    assert Window.size == (800, 480)
    n = len(app.ctrl.journal)
    # nothing pending: the confirm bar's buttons take no tap and nothing is applied
    _tap(drv, scr.ids.confirm)
    assert scr.pending is None and len(app.ctrl.journal) == n
    # the last action button of the manual list, scrolled into view, takes a real tap
    sv = scr.ids.now_scroll
    drv.list_buttons(scr)  # the list opened
    sv.scroll_y = 0
    drv.pump(3)
    buttons = list(reversed(scr.ids.action_grid.children))
    last = buttons[-1]
    _tap(drv, last)
    assert scr.pending == last.action, (scr.pending, last.action)
    _tap(drv, scr.ids.cancel)
    for _ in range(10):  # to a step that can be ended
        if scr.end_step_text:
            break
        drv.press(drv.legal_buttons(scr)[0])
        drv.press(scr.ids.confirm)
    n = len(app.ctrl.journal)
    sv.scroll_y = 0
    drv.pump(3)
    buttons = drv.legal_buttons(scr)
    y_list = buttons[0].to_window(*buttons[0].pos)[1]
    # the confirm bar's "done with this step" is always there, large, and asks for Confirm
    assert scr.end_step_text and scr.ids.end_step.height >= 48 and scr.ids.end_step.width >= 48
    _tap(drv, scr.ids.end_step)
    assert scr.pending["type"] == "end_step" and scr.pending_text.startswith("Confirm: ")
    assert buttons[0].to_window(*buttons[0].pos)[1] == y_list, "the confirm bar does not move the list"
    drv.shot("action-area-800x480")
    _tap(drv, scr.ids.confirm)
    assert len(app.ctrl.journal) == n + 1
    # Undo asks and says what it takes back; Cancel keeps everything
    _tap(drv, scr.ids.undo)
    assert scr.pending_text.startswith("Undo ") and len(app.ctrl.journal) == n + 1
    _tap(drv, scr.ids.cancel)
    assert scr.pending is None and len(app.ctrl.journal.actions()) == n + 1


def test_action_area_at_800x480(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_action_area_at_800x480", tmp_path, size="800x480")
