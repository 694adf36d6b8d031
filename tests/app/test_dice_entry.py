"""Touch entry of the dice (issue 39 item 1), with real fingers on the real buttons under Xvfb.

In every registered game that asks for a roll of one die or two (CivMint's first-player roll and
its event roll, Civ Quest's rolls, Civ Builder's attribute dice), at 800x480, 1280x800 and
412x915: the game is started on the New game form with the first roll left to the table, then
played (random legal actions, other rolls by the virtual dice) until such a roll is awaited; then
the dice entry on screen is used as a player would: + pressed several times, - once, on each die,
each value read back from the entry; Set; the confirm bar says those values; Confirm; the journal
holds exactly the roll set by touch. A game with no such roll is said so (and must stay that way:
the list is checked against the games' own rolls)."""
import json
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

SIZES = ("800x480", "1280x800", "412x915")
WANTED = {"civmint": {1, 2}, "civ_quest": {1, 2}, "civ_builder": {1}}  # the dice counts each game asks
MAX_STEPS = 400


def _visible_entry(scr, drv):
    """The dice entry a player can use now (the Now area's, or a step panel's own), scrolled into
    view, or None."""
    from kivy.uix.scrollview import ScrollView
    from layout_check import visible_widgets

    shown = [w for w in scr.walk(restrict=True) if type(w).__name__ == "DiceEntry" and not w.disabled
             and w.opacity > 0 and w.height > 0]
    for entry in shown:
        node = entry.parent
        while node is not None and not isinstance(node, ScrollView) and node is not node.parent:
            node = node.parent
        if isinstance(node, ScrollView):
            node.scroll_to(entry, padding=10, animate=False)
    drv.pump(3)
    seen = {id(w) for w, _ in visible_widgets()}
    entries = [w for w in shown if id(w) in seen]
    return entries[0] if entries else None


def _show_now(scr, drv):
    if scr.portrait and scr.left_view != "now":
        drv.tap(scr.tab_buttons["now"])


def _enter_by_touch(app, drv, scr, req, gid, size, out):
    """Press + and - on each die of the entry, Set, Confirm; check the journal took the values."""
    ctrl = app.ctrl
    _show_now(scr, drv)
    entry = _visible_entry(scr, drv)
    assert entry is not None, f"{gid}: {req['roll']} awaited, but no dice entry is on screen"
    count = int(req["count"])
    assert int(entry.count) == count, (gid, req["roll"], entry.count, count)
    want = []
    for die in range(1, count + 1):
        plus, minus = entry.ids[f"plus{die}"], entry.ids[f"minus{die}"]
        start = getattr(entry, f"value{die}")
        for _ in range(3 + die):
            drv.tap(plus)
        drv.tap(minus)
        got = getattr(entry, f"value{die}")
        expected = min(6, start + 3 + die) - 1
        assert got == expected, f"{gid} {req['roll']} die {die}: + and - left the value at {got}, not {expected}"
        assert entry.ids[f"value{die}"].text == str(expected)
        want.append(expected)
    drv.shot(f"dice-entry-{gid}-{count}-{size}", folder=out)
    drv.tap(entry.ids.enter)
    assert scr.pending_text, f"{gid}: Set proposed nothing ({scr.message})"
    for v in want:
        assert str(v) in scr.pending_text, (scr.pending_text, want)
    expected_action = req["spec"].action_from(want)
    n = len(ctrl.session.history)
    drv.tap(scr.ids.confirm)
    assert len(ctrl.session.history) > n, f"{gid}: Confirm journaled nothing ({scr.message})"
    taken = _action_at(ctrl, n)
    assert taken == expected_action, f"{gid}: journaled {taken}, set {expected_action}"
    return want


def _action_at(ctrl, n):
    """The n-th (0-based) effective action of the game, as a dict."""
    a, _ = ctrl.session.history[n]
    return a.to_dict() if hasattr(a, "to_dict") else a


def scenario_dice_by_touch(app, drv):
    from companion import games

    out = os.environ["DICE_OUT"]
    size = os.environ["DICE_SIZE"]
    scr = drv.game_screen(app)
    report = {}
    for m in games.modules():
        rng = random.Random(f"dice-{m.id}")
        ng = drv.new_game_form(app, m.id)
        ng.virtual_first = False  # the first roll left to the table
        for i, name in enumerate(("Ana", "Ben")):
            ng.name_input(f"p{i + 1}").text = name
        drv.press(ng.ids.start)
        assert app.root.current == "game", ng.message
        ctrl = app.ctrl
        wanted, done = set(WANTED.get(m.id, ())), {}
        asked = set()
        for _ in range(MAX_STEPS):
            if ctrl.game.is_over(ctrl.state) or not wanted:
                break
            req = ctrl.dice_request()
            if req and req.get("kind") != "draw" and req["spec"] is not None and req["count"] <= 2:
                asked.add(int(req["count"]))
                if int(req["count"]) in wanted and int(req["count"]) not in done:
                    drv.pump(2)
                    try:
                        done[int(req["count"])] = (req["roll"], _enter_by_touch(app, drv, scr, req, m.id, size, out))
                    except AssertionError:
                        drv.shot(f"failed-{m.id}-{size}", folder=out)
                        raise
                    if not wanted - set(done):
                        break
                    continue
            drv.table_step(ctrl, rng, keep_going=0.5)
        report[m.id] = {"entered": {str(k): v for k, v in done.items()}, "asked": sorted(asked)}
        assert set(done) == wanted, f"{m.id}: dice entered by touch for {sorted(done)}, wanted {sorted(wanted)}"
        app.leave_game()
        drv.pump(2)
    with open(os.path.join(out, f"dice-{size}.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)


@pytest.mark.parametrize("size", SIZES)
def test_dice_plus_and_minus_by_touch_in_every_game(xdisplay, tmp_path, size):
    out = str(tmp_path / "shots")
    os.makedirs(out)
    run_scenario(__file__, "scenario_dice_by_touch", tmp_path, size=size, timeout=280,
                 env={"DICE_OUT": out, "DICE_SIZE": size})
    with open(os.path.join(out, f"dice-{size}.json"), encoding="utf-8") as f:
        report = json.load(f)
    for gid, counts in WANTED.items():
        assert sorted(int(k) for k in report[gid]["entered"]) == sorted(counts), (gid, report[gid])


def scenario_a_hidden_entry_takes_no_taps(app, drv):
    """A panel hides its dice entry by giving it no height (CivMint's event panel once the roll is
    in): its fixed-size - and + must not stay over the choice buttons beside it and swallow their
    taps (seen at 1280x800 on 'Civilian happiness: level 1 -> 2' after an event roll)."""
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.button import Button
    from kivy.uix.floatlayout import FloatLayout
    from layout_check import check_window

    from companion.kit import DiceEntry

    home = app.root.get_screen("home")
    drv.pump(3)
    before = {f.key() for f in check_window()}
    layer = FloatLayout()
    col = BoxLayout(orientation="vertical", size_hint=(None, None), size=(600, 300), pos=(100, 100))
    entry = DiceEntry(count=2, label1="Die 1", label2="Die 2", enter_text="Enter")
    entry.height, entry.opacity, entry.disabled = 0, 0, True  # hidden the way the event panel does it
    pressed = []
    choice = Button(text="Civilian happiness: level 1 -> 2", size_hint_y=None, height=52,
                    on_release=lambda *_: pressed.append(1))
    col.add_widget(BoxLayout())
    col.add_widget(choice)
    col.add_widget(entry)  # right under the choice: its buttons, drawn upwards, over the choice
    col.add_widget(BoxLayout())
    layer.add_widget(col)
    home.add_widget(layer)
    drv.pump(3)
    assert not [f for f in check_window() if f.key() not in before and f.kind == "hidden"], \
        [str(f) for f in check_window() if f.key() not in before]
    drv.tap(choice)
    assert pressed == [1], "the choice under the hidden entry took no tap"
    # shown again: its buttons are whole (52 px) and work
    entry.height, entry.opacity, entry.disabled = 108, 1, False
    drv.pump(3)
    assert entry.ids.plus1.height >= 52 and entry.ids.plus2.height >= 52
    drv.tap(entry.ids.plus1)
    assert entry.value1 == 2
    home.remove_widget(layer)


def test_a_hidden_entry_takes_no_taps(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_a_hidden_entry_takes_no_taps", tmp_path, size="1280x800")
