"""Map view and map setup, in the real app under Xvfb (one process per scenario, gui_process.py):
map cards chosen on the New game screen reach the engine; on the dashboard's map a tap on a unit
lights up the spaces the engine says it can reach, a tap on one of them dispatches the engine's own
move action, and a tap elsewhere shows the engine's refusal and journals nothing."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import economy_games as E  # noqa: E402

from companion.games.civmint import labels as L  # noqa: E402
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(180)

LAYOUT = {"nw": "2B", "ne": "5A", "sw": "6B", "se": "1B"}


# ------------------------------------------------------------------ helpers (run in the child)
def tap_at(drv, x, y):
    """A real touch (down, up) at window coordinates, through the window's event dispatch."""
    from kivy.tests.common import UnitTestTouch

    t = UnitTestTouch(x, y)
    t.touch_down()
    drv.pump(1)
    t.touch_up()
    drv.pump(2)


def tap_widget(drv, w):
    drv.pump(2)  # widgets made by the last change are laid out on the next frame
    from kivy.uix.scrollview import ScrollView

    p = w.parent
    while p is not None and not isinstance(p, ScrollView):
        p = p.parent
    if p is not None:  # on a small window the map scrolls: bring the target into view, as a player would
        p.scroll_to(w, padding=0, animate=False)
        drv.pump(2)
    tap_at(drv, *w.to_window(*w.center))


def choose(drv, spinner, value):
    """Open a Spinner's drop-down and press the option, as a player would."""
    drv.press(spinner)
    opts = [o for o in spinner._dropdown.container.children if o.text == value]
    assert opts, f"{value} not offered by the spinner ({spinner.values})"
    drv.press(opts[0])
    assert spinner.text == value


def marker_of(view, uid):
    w = view._spaces[view.ctrl.state.units[uid].space]
    return [m for m in w.ids.markers.children if uid in m.unit_ids][0]


def open_map(scr, drv):
    if scr.left_view != "map":
        drv.press(scr.tab_buttons["map"])
    return scr.tabs["map"]


def new_dashboard_game(app, drv, seed=3):
    from companion.controller import GameController

    E.resume_in_app(app, GameController.new(app.games_dir, ("Ada", "Bo"), ("red", "yellow"), seed=seed))
    drv.pump(2)
    return app.root.get_screen("game")


def _done_first(ctrl, _rng):
    acts = ctrl.legal_actions()
    return next((a for a in acts if a["type"] == "end_step"), acts[0])


def advance_to(app, pred, limit=300):
    """Dispatch legal actions through app.ctrl (dice when awaited, else 'done') until pred()."""
    E.play_until(app.ctrl, pred, _done_first, max_actions=limit)


def in_move_step(ctrl):
    return ctrl.state.step == "move" and ctrl.game.actor(ctrl.state) in ("p1", "p2")


# ------------------------------------------------------------------ scenarios
def scenario_new_game_map_layout(app, drv):
    from companion.games.civmint.board import Board
    from companion.games.civmint.ui.map_view import layout_cells, layout_error

    drv.press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    preview = ng.setup_panel.ids.map_preview
    default = dict(ng.setup_panel.layout)
    assert default == Board(default).layout and not ng.setup_panel.map_message
    assert len(preview._spaces) == 36
    # random layouts: always ones the engine accepts; the preview draws the engine's spaces
    for _ in range(4):
        drv.press(ng.setup_panel.ids.layout_random)
        lay = dict(ng.setup_panel.layout)
        assert layout_error(lay) is None and not ng.setup_panel.map_message
        want = Board(lay).to_dict()["spaces"]
        got = sorted(layout_cells(lay), key=lambda c: (c["row"], c["col"]))
        assert got == want
        assert [ng.setup_panel.ids["choice_" + p].ids.spin.text for p in ("nw", "ne", "sw", "se")] == \
            [lay[p] for p in ("nw", "ne", "sw", "se")]
    drv.press(ng.setup_panel.ids.layout_default)
    assert ng.setup_panel.layout == default
    # choose faces through the drop-downs; a card shown elsewhere swaps places
    choose(drv, ng.setup_panel.ids.choice_ne.ids.spin, "5A")
    choose(drv, ng.setup_panel.ids.choice_sw.ids.spin, "6B")
    choose(drv, ng.setup_panel.ids.choice_nw.ids.spin, "2B")
    assert ng.setup_panel.layout["se"] == "1A"  # card 2 left se for nw; se took nw's card 1
    choose(drv, ng.setup_panel.ids.choice_se.ids.spin, "1B")
    assert dict(ng.setup_panel.layout) == LAYOUT and not ng.setup_panel.map_message
    # a layout the engine refuses (card 2 replaced: one Capital): its message, no game, no crash
    choose(drv, ng.setup_panel.ids.choice_nw.ids.spin, "3A")
    bad = dict(ng.setup_panel.layout)
    why = layout_error(bad)
    assert why and ng.setup_panel.map_message == why
    drv.shot("map-new-game-refused")
    games_before = sorted(os.listdir(app.games_dir))
    drv.press(ng.ids.start)
    assert app.root.current == "new_game" and why in ng.message
    assert sorted(os.listdir(app.games_dir)) == games_before
    choose(drv, ng.setup_panel.ids.choice_nw.ids.spin, "2B")
    assert dict(ng.setup_panel.layout) == LAYOUT and not ng.setup_panel.map_message
    drv.shot("map-new-game")
    # the names / colours part still works next to it
    ng.name_input("p1").text = "Cleo"
    purple = [w for w in drv.find(ng, "ColourChoice") if w.seat == "p2" and w.colour_name == "purple"][0]
    drv.press(purple)
    drv.press(ng.ids.start)
    assert app.root.current == "game"
    ctrl = app.ctrl
    assert ctrl.state.board.layout == LAYOUT
    assert ctrl.setup["map"] == LAYOUT and ctrl.colour("p2") == "purple" and ctrl.name("p1") == "Cleo"


def scenario_touch_move(app, drv):
    from kivy.core.window import Window
    from kivy.metrics import dp

    from companion.games.civmint.ui.map_view import MapView

    size = "x".join(str(v) for v in Window.size)
    scr = new_dashboard_game(app, drv)
    ctrl = app.ctrl
    view = open_map(scr, drv)
    assert isinstance(view, MapView) and view in scr.ids.left_holder.children
    drv.pump(3)
    grid = view.ids.grid
    # the whole board in view (the map is one touch control: a tap goes to the space under it)
    sc = view.ids.scroller
    assert grid.cell >= dp(24)
    assert view.ids.framed.width <= sc.width + 1 and view.ids.framed.height <= sc.height + 1, \
        (view.ids.framed.size, sc.size)
    # rows and columns numbered from 1 along the map's edges, as on the printed map
    n = ctrl.state.board.size
    assert [w.text for w in reversed(view.ids.col_labels.children)] == [str(i + 1) for i in range(n)]
    assert [w.text for w in reversed(view.ids.row_labels.children)] == [str(i + 1) for i in range(n)]
    first_row = view._spaces[ctrl.state.board.ids[0]]
    top = list(reversed(view.ids.row_labels.children))[0]
    assert abs(top.center_y - first_row.center_y) < 2 and abs(top.height - first_row.height) < 2

    # ---- outside the Move step the map only tells what is on a space
    advance_to(app, lambda c: c.state.step == "trade")
    n = len(ctrl.journal)
    home = ctrl.state.board.home["p1"]
    tap_widget(drv, view._spaces[home])
    assert not view.interactive and view.selected_space == home and view.selected_unit == 0
    # the space as the printed map numbers it (from 1), never its id
    assert view.message.startswith(f"{L.cap(L.space_words(home))}: land") and "held by Ada" in view.message
    assert home not in view.message
    chips = [c.unit_id for c in view.ids.chips.children]
    assert sorted(chips) == sorted(u.id for u in ctrl.game.units_at(ctrl.state, home))
    drv.pump(2)
    assert all(c.height >= dp(48) and c.width >= dp(48) for c in view.ids.chips.children)
    assert len(ctrl.journal) == n
    drv.shot(f"map-readonly-{size}")

    # ---- the Move step
    tapped_for = ctrl.game.actor(ctrl.state)
    advance_to(app, in_move_step)
    seat = ctrl.game.actor(ctrl.state)
    # the map drops the previous player's selection
    assert tapped_for == seat or view.selected_space == "", (tapped_for, seat, view.selected_space)
    legal = ctrl.legal_actions()
    movers = [u for u in ctrl.game.units_of(ctrl.state, seat) if ctrl.game.reachable(ctrl.state, u)]
    assert movers
    u = movers[0]
    assert view.interactive and view.acting == seat

    # an immobile unit (the Capital): the engine's reason is shown
    cap = [x for x in ctrl.game.units_of(ctrl.state, seat) if x.kind == "capital"][0]
    tap_widget(drv, marker_of(view, cap.id))
    nb = ctrl.state.board.adj[cap.space][0]
    why_cap = ctrl.check({"type": "move", "player": seat, "unit": cap.id, "to": nb})
    assert why_cap and view.message.endswith(why_cap) and view.reach == [], (view.message, why_cap, list(view.reach))

    # tap the unit: the spaces the engine lists light up
    tap_widget(drv, marker_of(view, u.id))
    reach = ctrl.game.reachable(ctrl.state, u)
    assert ctrl.state.units[view.selected_unit].kind == u.kind
    u = ctrl.state.units[view.selected_unit]  # an identical unit of the same marker may be picked
    assert sorted(view.reach) == sorted(reach)
    assert sorted(s for s, w in view._spaces.items() if w.reachable) == sorted(reach)
    assert marker_of(view, u.id).selected
    drv.pump(3)
    # the hint is whole (its first line not cut: issue 39 item 9) and the selected unit's chip in view
    msg = view.ids.message
    assert msg.texture_size[1] <= msg.height + 1, (msg.texture_size, msg.size, msg.text)
    chip = [c for c in view.ids.chips.children if c.selected][0]
    cs = view.ids.chip_scroll
    (cx0, _), (cx1, _) = chip.to_window(chip.x, chip.y), chip.to_window(chip.right, chip.y)
    (sx0, _), (sx1, _) = cs.to_window(cs.x, cs.y), cs.to_window(cs.right, cs.y)
    assert sx0 - 1 <= cx0 and cx1 <= sx1 + 1, ((cx0, cx1), (sx0, sx1))
    drv.shot(f"map-move-selected-{size}")

    # an unreachable space: the engine's refusal, nothing journaled or changed
    far = max((s for s in ctrl.state.board.ids
               if s not in reach and s != u.space and not ctrl.game.units_at(ctrl.state, s)),
              key=lambda s: abs(ctrl.state.board.spaces[s].row - ctrl.state.board.spaces[u.space].row)
              + abs(ctrl.state.board.spaces[s].col - ctrl.state.board.spaces[u.space].col))
    n, before = len(ctrl.journal), ctrl.state.to_dict()
    bad = {"type": "move", "player": seat, "unit": u.id, "to": far}
    why = ctrl.check(bad)
    assert why
    tap_widget(drv, view._spaces[far])
    assert view.message == f"Not allowed: {why}" and view.error
    assert len(ctrl.journal) == n and ctrl.state.to_dict() == before
    assert view.selected_unit == u.id  # still selected: pick another space
    drv.shot(f"map-move-refused-{size}")

    # a highlighted space: the engine's own move action is dispatched and journaled
    dest = reach[0]
    want = {"type": "move", "player": seat, "unit": u.id, "to": dest}
    assert want in legal
    tap_widget(drv, view._spaces[dest])
    assert len(ctrl.journal) == n and scr.pending == want  # the move waits for the one Confirm
    assert not view.error and view.message.endswith("tap Confirm to move it.")
    drv.press(scr.ids.confirm)
    assert ctrl.state.units[u.id].space == dest
    assert len(ctrl.journal) == n + 1 and ctrl.journal.actions()[-1].action == want
    from companion.games.civmint.ui.map_view import live_space_picker

    live = live_space_picker()  # lit now: only what the pickers ask next ("To which space?"), if anything
    assert view.selected_unit == 0 and {sid for sid, w in view._spaces.items() if w.reachable} == (
        live.offered_ids() if live is not None else set())
    assert f"#{ctrl.journal.last_seq}" in scr.log_text
    # the moved unit is shown on its new space, dimmed (it cannot move again)
    m = marker_of(view, u.id)
    assert m.dimmed and m.fill == list(app.colour_rgba(ctrl.colour(seat)))

    # the methods behind the touch handler: pick by chip / tap_unit, move with tap_space
    others = [x for x in ctrl.game.units_of(ctrl.state, seat) if ctrl.game.reachable(ctrl.state, x)]
    if others:
        o = others[0]
        chip_src = o.space
        view.tap_space(chip_src)  # a space: one of your units there that can move is picked
        first = view.selected_unit
        assert first and ctrl.state.units[first].space == chip_src
        assert ctrl.game.reachable(ctrl.state, ctrl.state.units[first])
        drv.pump(2)
        chip = [c for c in view.ids.chips.children if c.unit_id == first][0]
        drv.press(chip)  # the selected unit's chip again: selection dropped
        assert view.selected_unit == 0 and not view.reach
        chip = [c for c in view.ids.chips.children if c.unit_id == o.id][0]
        drv.press(chip)
        assert view.selected_unit == o.id
        assert [c.unit_id for c in view.ids.chips.children if c.selected] == [o.id]
        to = ctrl.game.reachable(ctrl.state, o)[-1]
        n = len(ctrl.journal)
        assert view.tap_space(to) is True
        drv.press(scr.ids.confirm)
        assert ctrl.state.units[o.id].space == to and len(ctrl.journal) == n + 1
    # an enemy unit is described, never selected
    enemy = ctrl.game.units_of(ctrl.state, "p1" if seat == "p2" else "p2")[0]
    assert view.tap_unit(enemy.id) is False
    assert view.selected_unit == 0 and f"{ctrl.name(enemy.owner)}'s {L.nice(enemy.kind)}" in view.message
    assert L.space_words(enemy.space) in view.message and "#" not in view.message
    drv.shot(f"map-move-done-{size}")

    # past the Move step the map is read-only again
    advance_to(app, lambda c: not in_move_step(c))
    assert not view.interactive


def scenario_ship_and_damage_drawn(app, drv):
    """Ships with carried units, damage and contested spaces are drawn (state built by the engine)."""
    from companion.games.civmint.state import Unit

    scr = new_dashboard_game(app, drv, seed=5)
    ctrl = app.ctrl
    open_map(scr, drv)
    s = ctrl.state
    b = s.board
    water = [w for w in b.ids if w in b.water][0]
    land = [x for x in b.adj[water] if x in b.land][0]
    # a picture only: the map draws whatever state it is given (this state is never dispatched)
    fake = s.copy()
    fake.units = dict(s.units)
    fake.units[90] = Unit(90, "p1", "ship", water)
    fake.units[91] = Unit(91, "p1", "infantry", water, damage=1, carrier=90)
    fake.units[92] = Unit(92, "p2", "cavalry", land, damage=1)
    fake.units[93] = Unit(93, "p1", "infantry", land)
    real = ctrl.session.state
    ctrl.session.state = fake
    try:
        view = scr.tabs["map"]
        view.update(scr, ctrl, ctrl.snapshot())
        drv.pump(2)
        ship = marker_of(view, 90)
        # units drawn as the dice on the table: the kind's face as pips, the cargo as text
        assert ship.face == 1 and ship.text == "+1"
        assert len([i for i in ship.canvas.after.get_group("pips") if i.__class__.__name__ == "Ellipse"]) == 1
        inf = marker_of(view, 93)
        assert inf.face == 4 and inf.text == ""
        assert len([i for i in inf.canvas.after.get_group("pips") if i.__class__.__name__ == "Ellipse"]) == 4
        carried = marker_of(view, 91)
        assert carried.carried and carried.damage == 1
        assert view._spaces[land].contested
        assert marker_of(view, 92).damage == 1
        view.tap_space(water)
        assert "Ship" in [c.text for c in view.ids.chips.children]
        assert "Infantry, 1 damage, aboard" in [c.text for c in view.ids.chips.children]
        view.tap_unit(91)
        assert view.message.startswith("Ada's Infantry (1 damage) on a Ship at " + L.space_words(water)), view.message
        view.tap_unit(90)
        assert "carrying Ada's Infantry (1 damage)." in view.message, view.message
        drv.shot("map-ship-damage")
    finally:
        ctrl.session.state = real
        scr.tabs["map"].update(scr, ctrl, ctrl.snapshot())


def scenario_space_picker(app, drv):
    """The pickers' "area" questions are answered on a map: the offered spaces lit where the table
    has them (48 dp targets, row and column numbers from 1), the others dim; a tap picks."""
    from companion import games
    from companion.decisions import Question
    from kivy.metrics import dp

    from companion.games.civmint.ui.map_view import SpaceBlank, SpaceCell, SpacePicker

    assert games.get_module("civmint").pickers["area"].endswith(":SpacePicker")
    new_dashboard_game(app, drv, seed=2)
    board = app.ctrl.state.board
    offered = ["r0c1", "r2c2", "r5c5"]
    q = Question("to", "area", "To which space?", [(s, L.cap(L.space_words(s))) for s in offered])
    got = []
    w = SpacePicker()
    w.offer(q, got.append)
    cells = [c for c in w.walk() if isinstance(c, SpaceCell)]
    blanks = [c for c in w.walk() if isinstance(c, SpaceBlank)]
    assert sorted(c.value for c in cells) == offered and len(blanks) == board.size ** 2 - 3
    assert all(c.width >= dp(48) and c.height >= dp(48) for c in cells)
    assert [c.water for c in cells] == [c.value in board.water for c in cells]
    numbers = [x.text for x in w.walk() if type(x).__name__ == "MapLabel"]
    assert numbers == [str(i + 1) for i in range(board.size)] * 2
    drv.press([c for c in cells if c.value == "r2c2"][0])
    assert got == ["r2c2"]


# ------------------------------------------------------------------ tests
def test_space_picker(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_space_picker", tmp_path)


def test_new_game_map_layout(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_new_game_map_layout", tmp_path)


def test_touch_move_1280x800(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_touch_move", tmp_path)


def test_touch_move_800x480(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_touch_move", tmp_path, size="800x480")


def test_touch_move_phone_412x915(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_touch_move", tmp_path, size="412x915")


def test_ship_and_damage_drawn(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_ship_and_damage_drawn", tmp_path)


def scenario_views_switch_and_move_step_opens_the_map(app, drv):
    """Players / Map / Log tabs survive switching back and forth (the swapped-out views are kept
    alive), and the Move step brings the map up by itself, then gives the Players tab back."""
    import gc

    scr = new_dashboard_game(app, drv, seed=3)
    for which in ("map", "log", "players", "log", "players"):
        drv.press(scr.tab_buttons[which])
        gc.collect()
        scr.refresh()
        assert scr.left_view == which
    assert scr.player_panels["p1"].title  # the player panels are still alive and updated
    for _ in range(300):
        if app.ctrl.state.step == "move":
            break
        acts = app.ctrl.legal_actions()
        if app.ctrl.awaiting_dice():
            app.ctrl.roll_virtual()
        else:
            app.ctrl.dispatch(next((a for a in acts if a["type"] == "end_step"), acts[0]))
        drv.pump(1)
    assert app.ctrl.state.step == "move" and scr.left_view == "map"
    drv.shot("map-auto-move-step")
    actor = app.ctrl.game.actor(app.ctrl.state)
    app.ctrl.dispatch({"type": "end_step", "player": actor})
    drv.pump(2)
    if app.ctrl.state.step != "move":
        assert scr.left_view == "players"


def test_views_switch_and_move_step_opens_the_map(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_views_switch_and_move_step_opens_the_map", tmp_path)


def scenario_one_map_in_the_move_step(app, drv):
    """The Move step at 800x480 with the Map tab open: the pickers' "To which space?" draws no
    second board (a line points at the map); the big map lights exactly the offered spaces, the
    whole board in view; a tap on one picks it (it waits for Confirm)."""
    from companion.games.civmint.ui.map_view import SpacePicker

    scr = app.root.get_screen("game")
    new_dashboard_game(app, drv)
    ctrl = app.ctrl
    advance_to(app, lambda c: c.state.step == "move" and c.game.actor(c.state) in c.state.players
               and any(a["type"] == "move" for a in c.legal_actions()))
    drv.pump(3)
    view = open_map(scr, drv)
    drv.pump(3)
    picker = scr.ids.picker
    # one unit's moves on the pickers, as they are once the unit is picked: "To which space?"
    from companion.decisions import Decision

    moves = [a for a in ctrl.legal_actions() if a["type"] == "move"]
    unit = moves[0]["unit"]
    g, st, su, v = ctrl.game, ctrl.state, ctrl.setup, ctrl.view
    scr._decision = Decision([a for a in moves if a["unit"] == unit], ctrl.action_label,
                             lambda t: v.picks(g, t, st, su), lambda t, f, val: v.value_label(g, st, su, t, f, val),
                             v.type_label)
    picker.show(scr._decision, scr._picked, scr._pick_refused, picker.game_pickers)
    drv.pump(3)
    q = picker._question
    assert q is not None and q.kind == "area", q
    drv.pump(3)
    (sp,) = drv.find(picker, "SpacePicker")
    assert not drv.find(sp, "SpaceCell"), "no second board beside the big map"
    offered = {str(v) for v, _ in q.options}
    lit = {sid for sid, w in view._spaces.items() if w.reachable}
    assert offered <= lit, (offered, lit)
    sc = view.ids.scroller
    assert view.ids.framed.width <= sc.width + 1 and view.ids.framed.height <= sc.height + 1
    drv.shot("civmint-one-map-move-800x480")
    dest = sorted(offered)[0]
    tap_widget(drv, view._spaces[dest])
    assert scr.pending is not None and scr.pending.get("to") == dest, (scr.pending, dest)


def test_one_map_in_the_move_step(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_one_map_in_the_move_step", tmp_path, size="800x480")
