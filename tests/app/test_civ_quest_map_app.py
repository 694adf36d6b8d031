"""Civ Quest's start chosen by tapping the drawn map, in the real app under Xvfb at the three
sizes of the table screen (800x480, 1280x800, a phone's 412x915): the map is the picker of the
starting area (lit areas legal, the rest dimmed), a tap on a sea or a taken area says why and
picks nothing, a tap on a lit area waits for the one Confirm; the Map tab shows the same drawing;
the first rolls' cards say what changed. Screenshots: test-artifacts/app/civ-quest-map-*.png."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402


def _picker(drv, scr):
    found = drv.find(scr.ids.picker, "AreaPicker")
    assert len(found) == 1, "the map is the picker of the starting area"
    return found[0]


def ctrl_todo_open(scr):
    return scr._todo.setup_items()


def scenario_civ_quest_start_on_the_map(app, drv):
    from kivy.core.window import Window
    tag = "%dx%d" % tuple(int(v) for v in Window.size)
    drv.start_from_form(app, "civ_quest")
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    assert ctrl.module.id == "civ_quest" and ctrl.state.step == "start"
    if scr.portrait and "now" in getattr(scr, "tab_buttons", {}):
        drv.press(scr.tab_buttons["now"])
    pk = _picker(drv, scr)
    land = [a for a in ctrl.state.board.land]
    assert set(pk.legal) == set(land), "every empty land area is lit"
    assert "lit areas" in pk.hint and "start in" in scr.ids.picker.question_text
    # the map is as wide as the column: West / East pan it where the areas need more columns
    if not pk.east.disabled or not pk.west.disabled:
        shown = set(pk.map.cells)
        drv.press(pk.east if not pk.east.disabled else pk.west)
        assert set(pk.map.cells) != shown, "panning shows other areas"
    for a, cell in pk.map.cells.items():
        assert cell.width >= 48 and cell.height >= 48, (a, cell.size)
        assert ctrl.state.board.name(a).split()[0][:4] in cell.text, (a, cell.text)
    sea = next(a for a in ctrl.state.board.order if ctrl.state.board.kind[a] == "sea")
    pk.show_area(sea)
    drv.press(pk.map.cells[sea])
    assert "sea" in pk.why and scr.pending is None, pk.why
    drv.shot(f"civ-quest-map-start-{tag}")
    pk.show_area("thrace")
    drv.press(pk.map.cells["thrace"])
    assert scr.pending == {"type": "place_start", "player": "p1", "area": "thrace"}, scr.pending
    assert scr.pending_text == "Confirm: Ana: start with 7 PT in Thrace"
    n = len(ctrl.journal)
    drv.press(scr.ids.confirm)
    assert len(ctrl.journal) == n + 1 and ctrl.state.units["thrace"] == ("p1", 7, False)
    # Ben's turn: Thrace is taken now, dimmed; a tap on it says so
    pk = _picker(drv, scr)
    assert "thrace" not in pk.legal and "syria" in pk.legal
    pk.show_area("thrace")
    drv.press(pk.map.cells["thrace"])
    assert "Thrace is not empty" in pk.why and scr.pending is None, pk.why
    assert "Ana" in pk.map.cells["thrace"].text or "7 PT" in pk.map.cells["thrace"].text
    drv.shot(f"civ-quest-map-taken-{tag}")
    # the Map tab is the same map: lit as the picker is, and a tap there picks (or says why not)
    drv.press(scr.tab_buttons["cq_map"])
    drv.pump(3)
    tab = scr.tabs["cq_map"]
    lit = {a for a, c in tab.map.cells.items() if c.lit}
    assert lit == set(pk.legal), (lit, set(pk.legal))
    drv.press(tab.map.cells["thrace"])
    assert "Thrace is not empty" in tab.why_text and scr.pending is None, tab.why_text
    drv.shot(f"civ-quest-map-tab-asked-{tag}")
    drv.press(tab.map.cells["syria"])
    assert scr.pending == {"type": "place_start", "player": "p2", "area": "syria"}, scr.pending
    if scr.portrait and "now" in scr.tab_buttons:
        drv.press(scr.tab_buttons["now"])
    drv.press(scr.ids.confirm)
    assert ctrl.state.units["syria"] == ("p2", 7, False) and ctrl.state.step == "first_player"
    # the setup checklist's "All placed": a real tap (down, a moment, up) marks them all
    from kivy.tests.common import UnitTestTouch
    import time
    all_btn = [w for w in scr.ids.todo_area.children if getattr(w, "text", "").startswith("All ")]
    if all_btn:
        if scr.portrait and "now" in scr.tab_buttons:
            drv.press(scr.tab_buttons["now"])
        scr.ids.now_scroll.scroll_to(all_btn[0], animate=False)
        drv.pump(3)
        touch = UnitTestTouch(*all_btn[0].to_window(*all_btn[0].center))
        touch.touch_down()
        t0 = time.monotonic()
        while time.monotonic() - t0 < 0.2:
            drv.pump(1)
        touch.touch_up()
        drv.pump(3)
        assert not ctrl_todo_open(scr), "All placed marks every setup item done"
    # the first rolls: each card says what follows at the table, never blank
    for _ in range(6):
        if not scr.awaiting_dice:
            break
        drv.press(scr.ids.roll_virtual)
        assert scr.roll_result_text.strip(), "a roll's card is never blank"
        assert not scr.ids.notice_area.children, "no blank round card when round 1 begins"
        entry = ctrl.history.entries[-1]
        assert entry.effects and all(e.strip() for e in entry.effects), entry
        if ctrl.state.step == "leader" and ctrl.state.rolls:
            break
    assert "plays first" in " ".join(e for x in ctrl.history.entries for e in x.effects)
    drv.shot(f"civ-quest-map-roll-{tag}")
    # the Map tab: the same drawing, read-only
    if "cq_map" in scr.tab_buttons:
        drv.press(scr.tab_buttons["cq_map"])
        tab = scr.tabs["cq_map"]
        # the PT the engine holds there now (growth may already have added to the start's 7)
        pt = ctrl.state.units["thrace"][1]
        assert pt >= 7 and "thrace" in tab.map.cells and f"{pt} PT" in tab.map.cells["thrace"].text, (
            {k: c.text for k, c in tab.map.cells.items() if "PT" in c.text}, ctrl.state.step)
        assert "Ana:" in tab.areas_text and f"1 area, {pt} PT" in tab.areas_text, tab.areas_text
        drv.shot(f"civ-quest-map-tab-{tag}")


def scenario_civ_quest_migration_on_the_map(app, drv):
    """Ana's first Migration in two steps (CQ-R22): the area the tokens leave (Thrace, her only
    area: offered whole, in words) and Confirm; then the area they go to, tapped on the map, and
    how many; Confirm."""
    drv.start_from_form(app, "civ_quest")
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    for area in ("thrace", "syria"):
        pk = _picker(drv, scr)
        pk.show_area(area)
        drv.press(pk.map.cells[area])
        drv.press(scr.ids.confirm)
    # the dice by touch: Ana first, no leader, small rolls, then 6 Move Points
    faces = {"first_roll": (6, 1), "migration_roll": (6,)}
    firsts = iter(faces["first_roll"])
    for _ in range(60):
        st = ctrl.state
        if st.step == "migration" and not scr.awaiting_dice and ctrl.game.actor(st) == "p1":
            break
        n = len(ctrl.journal)
        if scr.awaiting_dice:
            req = ctrl.dice_request()
            v = next(firsts) if req["action"] == "first_roll" else faces.get(req["action"], (1,))[0]
            scr.enter_dice(v, 1 if req["count"] == 2 else None)
        else:
            b = [x for x in drv.list_buttons(scr) if "keep the roll" in x.text or "end the" in x.text]
            assert b, [x.text for x in drv.list_buttons(scr)]
            drv.press(b[0])
        drv.press(scr.ids.confirm)
        assert len(ctrl.journal) == n + 1, scr.message
    assert ctrl.state.step == "migration" and ctrl.state.ctx.get("mp") == 6
    picker = scr.ids.picker
    take = [b for b in drv.find(picker, "PickButton") if b.text == "Ana: move tokens from Thrace"]
    assert take, [b.text for b in drv.find(picker, "PickButton")]
    drv.press(take[0])
    assert scr.pending == {"type": "move_from", "player": "p1", "from_area": "thrace"}, scr.pending
    n = len(ctrl.journal)
    drv.press(scr.ids.confirm)
    assert len(ctrl.journal) == n + 1 and ctrl.state.ctx.get("moving") == "thrace", scr.message
    # the tokens come from Thrace: the map asks where to
    pk = _picker(drv, scr)
    assert "to which area" in picker.question_text and "macedonia" in pk.legal, picker.question_text
    assert "thrace" not in pk.legal
    pk.show_area("syria")
    drv.press(pk.map.cells["syria"])  # Ben's: not a choice, said why
    assert pk.why and "Syria" in pk.why and scr.pending is None, pk.why
    pk.show_area("macedonia")
    drv.shot("civ-quest-map-migration")
    drv.press(pk.map.cells["macedonia"])
    # a screenful of moves left: offered whole, in words
    two = [b for b in drv.find(picker, "PickButton") if b.text in ("1 PT", "Ana: move 1 PT from Thrace to Macedonia")]
    assert two, [b.text for b in drv.find(picker, "PickButton")]
    drv.press(two[0])
    assert scr.pending == {"type": "move", "player": "p1", "from_area": "thrace", "to_area": "macedonia",
                           "count": 1}, scr.pending
    had = ctrl.state.units["thrace"][1]
    drv.press(scr.ids.confirm)
    assert ctrl.state.units["macedonia"] == ("p1", 1, False) and ctrl.state.units["thrace"][1] == had - 1


def test_civ_quest_migration_on_the_map(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_civ_quest_migration_on_the_map", tmp_path, size="800x480")


@pytest.mark.parametrize("size", ["800x480", "1280x800", "412x915"])
def test_civ_quest_start_chosen_on_the_map(xdisplay, tmp_path, size):
    run_scenario(__file__, "scenario_civ_quest_start_on_the_map", tmp_path, size=size)
