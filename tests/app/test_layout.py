"""The layout check (tests/app/layout_check.py) on the real app under Xvfb.

For every registered game, at each supported window size (one app process per size, reused
across the games), a new game is set up on the New game form and started on the manual board,
then played for a few seeded random steps (a random legal action, or the awaited roll by the
virtual dice, through the controller's public API as a tap would); the visible widget tree is
checked on Home, on the form and after each step. A screenshot of each game at each size is
kept in $TABLETOP_LAYOUT_ARTIFACTS (else <pytest basetemp>/layout), with findings.txt.

A separate test proves the checker can fail: a clipped label and a tiny button put on a screen
of the real app are caught, and a clean screen gives no finding.
"""
import json
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

SIZES = ("800x480", "1280x800", "412x915")  # 7" tablet, 10" tablet, a phone in portrait (dp)
STEPS = int(os.environ.get("TABLETOP_LAYOUT_STEPS", "8"))  # per game: within the CI budget
SEED = int(os.environ.get("TABLETOP_LAYOUT_SEED", "27"))  # another seed: another random play


# ------------------------------------------------------------------------- in the app process
MAX_TARGETS = 30  # touch targets in view on a game screen (a map or a row of die faces: one)


def _check(drv, where, out):
    from kivy.app import App
    from layout_check import check_and_count

    drv.pump(2)  # textures and layouts settle a frame after a change
    on_game = App.get_running_app().root.current == "game"
    findings, counts = check_and_count(max_targets=MAX_TARGETS if on_game else None)
    for f in findings:
        out.append({"where": where, "kind": f.kind, "finding": str(f), "key": list(f.key())})
    if on_game:
        out.append({"controls": max(counts.values(), default=0)})


FIXED = ("confirm", "cancel", "end_step", "roll_ok")  # the game screen's buttons with a place of their own


def _fixed_places(app, where, out, places):
    """Confirm, Cancel and Done with step stay where they were first seen at this window size, and
    the OK of the card atop Now where it was within Now (a tap aimed at them must not land
    elsewhere a step later)."""
    from layout_check import visible_widgets

    if app.root.current != "game":
        return
    scr = app.root.get_screen("game")
    shown = visible_widgets()
    seen = {id(w): box for w, box in shown}
    for name, w in [(n, scr.ids[n].__self__) for n in FIXED]:
        box = seen.get(id(w))
        if box is None or w.opacity < 0.5:
            continue
        if name == "roll_ok":  # atop Now: placed within it (Now's top follows
            top = scr.ids.now_scroll.to_window(0, scr.ids.now_scroll.top)[1]  # the header's lines)
            box = (box[0], box[1] - top, box[2], box[3] - top)
        box = tuple(round(v) for v in box)
        first = places.setdefault(name, (box, where))
        if max(abs(a - b) for a, b in zip(box, first[0])) > 1:
            out.append({"where": where, "kind": "moved",
                        "finding": f"moved: {name} at {box}, at {first[0]} {first[1]}",
                        "key": ["moved", name]})


def _start_from_form(app, drv, game_id, out):
    """Home -> New game -> the game chosen -> Start, as a player taps it; the roll that decides
    who starts (if any) by the virtual dice."""
    home = app.root.get_screen("home")
    _check(drv, "home", out)
    drv.press(home.ids.new_game)
    ng = app.root.get_screen("new_game")
    choice = [b for b in drv.find(ng, "GameChoice") if b.game_id == game_id]
    assert choice, f"{game_id} is not on the New game form"
    drv.press(choice[0])
    assert ng.game_id == game_id
    if ng.can_seat_app and "p2" in getattr(ng, "_played_by", {}):
        ng._played_by["p2"].text = "Played by the app (easy)"  # an app seat: its turns are checked too
        drv.pump(2)
    _check(drv, "new game form", out)
    drv.press(ng.ids.start)
    assert app.root.current == "game", f"{game_id} did not start: {ng.message}"
    return app.ctrl


def _tap_choice(drv, action):
    """Tap the control on screen that stands for `action` (a visible, enabled widget carrying it
    as its .action), as a player picks a decision before confirming it; None when none shows."""
    from layout_check import visible_widgets

    for w, _ in visible_widgets():
        if getattr(w, "action", None) == action and not w.disabled and (
                w.is_event_type("on_release") or w.is_event_type("on_press")):
            for ev in ("on_press", "on_release"):
                if w.is_event_type(ev):
                    w.dispatch(ev)
            drv.pump(2)
            return w
    return None


def _step(ctrl, drv, rng, where, out, app=None, places=None):
    """One player's move: the awaited roll, or a random legal action ('done' less often). The
    action's control is tapped first when the screen shows one (checked while it is picked),
    then the action is applied through the controller unless the tap applied it."""
    if ctrl.bot_turn() is not None:  # the app's seat: its search runs aside, its moves come back
        drv.wait_for(lambda: ctrl.bot_turn() is None or ctrl.game.is_over(ctrl.state), 90, "the app's turn")
        return "the app's turn"
    if ctrl.awaiting_dice():
        _press_dice(drv, where, out)
        ctrl.roll_virtual()
        return "roll"
    acts = ctrl.legal_actions()
    assert acts, "no legal action and no roll awaited in a game that is not over"
    other = [a for a in acts if a.get("type") != "end_step"]
    ends = [a for a in acts if a.get("type") == "end_step"]
    a = rng.choice(other) if other and (not ends or rng.random() < 0.66) else (ends or acts)[0]
    label = ctrl.action_label(a)
    n = len(ctrl.journal)
    if _tap_choice(drv, a) is not None:
        _check(drv, f"{where}: {label} picked", out)
        if places is not None:
            _fixed_places(app, f"{where}: {label} picked", out, places)
        out.append({"picked": label})
    if len(ctrl.journal) == n:
        ctrl.dispatch(a, "ui")
    return label


def _press_dice(drv, where, out):
    """The dice entry on screen (if any): + and - of each die tapped by a real finger; a button
    that does not change its die is a finding."""
    from layout_check import visible_widgets

    for entry in [w for w, _ in visible_widgets() if type(w).__name__ == "DiceEntry" and not w.disabled]:
        for die in range(1, int(entry.count) + 1):
            for sign, delta in (("plus", 1), ("minus", -1)):
                button = entry.ids[f"{sign}{die}"]
                if not [b for b, _ in visible_widgets() if b is button.__self__]:
                    continue  # scrolled out of view: the next check says so if it is a fault
                before = getattr(entry, f"value{die}")
                if before == (6 if delta > 0 else 1):
                    continue
                drv.tap(button)
                if getattr(entry, f"value{die}") != before + delta:
                    out.append({"where": where, "kind": "dead-button",
                                "finding": f"dead-button: the {'+' if delta > 0 else '-'} of die {die} "
                                           f"left it at {before}", "key": ["dead-button", sign, str(die)]})


def _visit_tabs(app, drv, where, out):
    """Each tab of the screen (a toggle of a group: Players, Map, Log...) shown and checked once,
    then the first again."""
    from kivy.uix.behaviors import ToggleButtonBehavior
    from layout_check import visible_widgets

    tabs = [w for w, _ in visible_widgets() if isinstance(w, ToggleButtonBehavior) and w.group
            and not w.disabled and type(w).__name__ != "GameChoice"]
    first = next((t for t in tabs if t.state == "down"), None)
    for t in tabs:
        if t.state != "down":
            drv.press(t)
            _check(drv, f"{where}: tab {t.text!r}", out)
    if first is not None and first.state != "down":
        drv.press(first)
    return len(tabs)


def scenario_sweep(app, drv):
    from companion import games

    folder = os.environ["LAYOUT_OUT"]
    size = os.environ["LAYOUT_SIZE"]
    steps = int(os.environ.get("LAYOUT_STEPS", STEPS))
    report = {}
    places = {}  # one window size: the bar's buttons' places across every game, the OKs' per game
    for m in games.modules():
        out = []
        rng = random.Random(f"{SEED}-{m.id}")
        ctrl = _start_from_form(app, drv, m.id, out)
        _check(drv, "game start", out)
        _fixed_places(app, f"{m.id} start", out, places)
        done = 0
        for i in range(steps):
            if ctrl.game.is_over(ctrl.state):
                break
            what = _step(ctrl, drv, rng, f"step {i + 1}", out, app, places)
            done += 1
            _check(drv, f"step {i + 1} ({what})", out)
            _fixed_places(app, f"{m.id} step {i + 1}", out, places)
        shot = drv.shot(f"{m.id}-{size}", folder=folder)
        tabs = _visit_tabs(app, drv, f"after step {done}", out)
        picked = [f for f in out if "picked" in f]
        controls = [f["controls"] for f in out if "controls" in f]
        report[m.id] = {"title": m.title, "steps": done, "screen": app.root.current,
                        "findings": [f for f in out if "picked" not in f and "controls" not in f],
                        "screenshot": shot, "picked_on_screen": len(picked), "tabs": tabs,
                        "most_controls": max(controls, default=0)}
        app.leave_game()
        drv.pump(2)
    with open(os.path.join(folder, f"findings-{size}.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)


def scenario_checker_catches(app, drv):
    """A clipped label and a tiny button added to Home are found, named and placed; without
    them Home has none of those findings; two enabled Confirm buttons, developer text, a
    shortened label and two overlapping buttons are found too."""
    from kivy.uix.button import Button
    from kivy.uix.label import Label
    from kivy.uix.floatlayout import FloatLayout
    from layout_check import check_window, dev_text

    home = app.root.get_screen("home")
    drv.pump(3)
    before = {f.key() for f in check_window()}
    layer = FloatLayout()  # on top of Home, where nothing else is
    clipped = Label(text="A long sentence that cannot fit in this box", size_hint=(None, None),
                    size=(60, 30), pos=(10, 100))
    tiny = Button(text="x", size_hint=(None, None), size=(20, 20), pos=(200, 100))
    layer.add_widget(clipped)
    layer.add_widget(tiny)
    home.add_widget(layer)
    drv.pump(3)
    new = [f for f in check_window() if f.key() not in before]
    kinds = {(f.kind, f.text) for f in new}
    assert ("clipped", clipped.text) in kinds, new
    assert ("small", "x") in kinds, new
    f = next(f for f in new if f.kind == "small")
    assert "Button" in f.widget and f.box[:2] == (200, 100) and "20x20" in str(f), str(f)
    assert [g for g in new if g.kind == "clipped"][0].box[:2] == (10, 100)

    # the same widgets fixed: no finding
    clipped.size = (500, 40)
    tiny.size = (120, 60)
    drv.pump(3)
    assert not [f for f in check_window() if f.key() not in before and f.text in (clipped.text, "x")]

    # two enabled Confirm buttons, one overlapping the other; developer text; an ellipsis
    c1 = Button(text="Confirm: build", size_hint=(None, None), size=(200, 60), pos=(10, 200))
    c2 = Button(text="Confirm", size_hint=(None, None), size=(200, 60), pos=(100, 220))
    dev = Label(text="Rule CQ-R11 says {'type': 'roll'} for r3c4 in game.json", size_hint=(None, None),
                size=(700, 40), pos=(10, 300))
    short = Label(text="Agriculture, Ana and the rest of the header", shorten=True, size_hint=(None, None),
                  size=(120, 40), pos=(10, 360))
    short.text_size = short.size
    for w in (c1, c2, dev, short):
        layer.add_widget(w)
    drv.pump(3)
    new = [f for f in check_window() if f.key() not in before]
    kinds = {f.kind for f in new}
    assert {"confirm", "overlap", "dev-text", "ellipsis"} <= kinds, [str(f) for f in new]
    said = " ".join(f.detail for f in new if f.kind == "dev-text")
    for what in ("rule id 'CQ-R11'", "cell id 'r3c4'", "file name 'game.json'", "raw dict or list"):
        assert what in said, said
    c2.disabled = True  # a disabled Confirm is no second Confirm
    drv.pump(2)
    assert "confirm" not in {f.kind for f in check_window() if f.key() not in before}

    # hidden (opacity 0): not seen, so no finding
    layer.opacity = 0
    drv.pump(2)
    assert not [f for f in check_window() if f.key() not in before]
    home.remove_widget(layer)

    # an unseen, disabled button over a visible one swallows its taps (issue 39: the second die's
    # hidden row over the first die's + and -); under it, it takes nothing
    layer = FloatLayout()
    seen_b = Button(text="Plus", size_hint=(None, None), size=(80, 60), pos=(300, 100))
    ghost = Button(text="Hidden plus", size_hint=(None, None), size=(80, 60), pos=(310, 110),
                   opacity=0, disabled=True)
    layer.add_widget(seen_b)
    layer.add_widget(ghost)
    home.add_widget(layer)
    drv.pump(3)
    new = [f for f in check_window() if f.key() not in before]
    assert [(f.kind, f.text) for f in new] == [("hidden", "Plus")], [str(f) for f in new]
    layer.remove_widget(ghost)
    layer.add_widget(ghost, index=len(layer.children))  # drawn first: under the visible one
    drv.pump(3)
    assert not [f for f in check_window() if f.key() not in before]
    home.remove_widget(layer)

    # in a scroll area: a tiny button scrolled out of view is not seen, scrolled in it is; a
    # label wider than a viewport that scrolls only up and down is text nobody can read
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.scrollview import ScrollView

    layer = FloatLayout()
    sv = ScrollView(size_hint=(None, None), size=(300, 100), pos=(10, 100), do_scroll_x=False)
    col = BoxLayout(orientation="vertical", size_hint=(1, None), height=400)
    wide = Label(text="a sentence far wider than the three hundred pixels of this area", size_hint_y=None,
                 height=50, size_hint_x=None, width=600)
    col.add_widget(wide)
    for i in range(6):
        col.add_widget(Label(text=f"row {i}", size_hint_y=None, height=50))
    lost = Button(text="o", size_hint=(None, None), size=(20, 20))
    col.add_widget(lost)
    sv.add_widget(col)
    layer.add_widget(sv)
    home.add_widget(layer)
    sv.scroll_y = 1  # the top: the wide label in view, the tiny button far below
    drv.pump(3)
    new = [f for f in check_window() if f.key() not in before]
    assert [f.kind for f in new if f.text == wide.text] == ["outside"], [str(f) for f in new]
    assert not [f for f in new if f.text == "o"], [str(f) for f in new]
    sv.scroll_y = 0  # the bottom: the button in view
    drv.pump(3)
    new = [f for f in check_window() if f.key() not in before]
    assert [f.kind for f in new if f.text == "o"] == ["small"], [str(f) for f in new]
    assert not [f for f in new if f.text == wide.text]  # scrolled out now
    home.remove_widget(layer)

    # crowded: more than MAX_TARGETS controls in view on one screen; the cells of a map are one
    from kivy.uix.gridlayout import GridLayout
    from layout_check import control_count

    layer = FloatLayout()
    grid = GridLayout(cols=8, size_hint=(None, None), size=(8 * 60, 4 * 60), pos=(10, 10))
    for i in range(MAX_TARGETS + 2):
        grid.add_widget(Button(text=str(i)))
    layer.add_widget(grid)
    home.add_widget(layer)
    drv.pump(3)
    base = max(control_count().values())
    assert base >= MAX_TARGETS + 2
    crowded = [f for f in check_window(max_targets=MAX_TARGETS) if f.kind == "crowded"]
    assert crowded and f"{base} touch targets in view" in crowded[0].detail, [str(f) for f in crowded]
    import layout_check

    layout_check.ONE_CONTROL = layout_check.ONE_CONTROL + ("GridLayout",)  # as a map: one control
    try:
        assert max(control_count().values()) <= base - MAX_TARGETS - 1
        assert not [f for f in check_window(max_targets=MAX_TARGETS) if f.kind == "crowded"]
    finally:
        layout_check.ONE_CONTROL = layout_check.ONE_CONTROL[:-1]
    home.remove_widget(layer)

    # a card with its own scroll area, partly below the fold of a scrolling column: what the
    # column's edge hides comes into view by scrolling the column (no finding); a label wider
    # than the card's own area, which scrolls only up and down, is still text nobody can read
    layer = FloatLayout()
    column = ScrollView(size_hint=(None, None), size=(300, 200), pos=(10, 100), do_scroll_x=False)
    content = BoxLayout(orientation="vertical", size_hint=(1, None), height=500)
    content.add_widget(Label(text="above the card", size_hint_y=None, height=150))
    card = ScrollView(size_hint_y=None, height=120, do_scroll_x=False)
    inside = BoxLayout(orientation="vertical", size_hint=(1, None), height=120)
    below = Label(text="a line of the card", size_hint_y=None, height=40)  # across the column's fold
    inside.add_widget(Label(text="", size_hint_y=None, height=30))
    inside.add_widget(below)
    inside.add_widget(Label(text="", size_hint_y=None, height=50))
    card.add_widget(inside)
    content.add_widget(card)
    content.add_widget(Label(text="under the card", size_hint_y=None, height=230))
    column.add_widget(content)
    layer.add_widget(column)
    home.add_widget(layer)
    column.scroll_y = 1  # the card's top 50 px in view, the rest below the column's fold
    drv.pump(3)
    new = [f for f in check_window() if f.key() not in before]
    assert not [f for f in new if f.text == below.text], [str(f) for f in new]
    below.size_hint_x, below.width = None, 900
    drv.pump(3)
    new = [f for f in check_window() if f.key() not in before]
    assert [f.kind for f in new if f.text == below.text] == ["outside"], [str(f) for f in new]
    home.remove_widget(layer)

    # plain player words are no developer text
    for ok in ("Ana: Build a Market (2 coins)", "Round 3 - Production", "Roll 2 dice: 7",
               "Mint Works: Ana (blue) vs Bo (green)", "e.g. 3 - 4 players", "Done: Take 2 coins",
               "1 die", "11 cards", "1 Food, 1 Coin", "page 1 of 3", "build an Infantry", "a Settler",
               "an Artillery", "a unit", "a one-die roll", "Plot 1 (Grassland)", "Infantry (1 damage)", "(a, b)",
               "Player 1 (blue)", "Player 2 (dealer)"):
        assert dev_text(ok) == [], (ok, dev_text(ok))
    for bad in ("@r1c1", "end_step", "MW-R1", "REG-L3", "[1, 2]", "{}", "save.journal", "view.py",
                "[b]Round 2[/b]", "Hand: 1 cards", "1 stars", "Roll 1 dice", "build a Infantry",
                "Ana: build a Artillery", "an Settler", "Plot 1 (grassland)"):
        assert dev_text(bad), bad


# ------------------------------------------------------------------------------ the tests
def _artifacts(tmp_path_factory):
    folder = os.environ.get("TABLETOP_LAYOUT_ARTIFACTS") or str(tmp_path_factory.getbasetemp() / "layout")
    os.makedirs(folder, exist_ok=True)
    return folder


def test_checker_catches_a_clipped_label_and_a_tiny_button(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_checker_catches", tmp_path, size="800x480")


def _summary(report, size):
    lines = []
    for gid, r in report.items():
        seen, uniq = set(), []
        for f in r["findings"]:
            k = tuple(f["key"])
            if k not in seen:
                seen.add(k)
                uniq.append(f)
        lines.append(f"{r['title']} at {size}: {r['steps']} steps ({r['picked_on_screen']} picked on "
                     f"screen first), {r['tabs']} tabs, at most {r.get('most_controls', 0)} controls in view, "
                     f"{len(uniq)} distinct findings "
                     f"(screenshot {r['screenshot']})")
        lines += [f"  [{f['where']}] {f['finding']}" for f in uniq]
    return lines


@pytest.mark.parametrize("size", SIZES)
def test_every_game_at_every_size_has_a_clean_layout(xdisplay, tmp_path, tmp_path_factory, size, request):
    folder = _artifacts(tmp_path_factory)
    run_scenario(__file__, "scenario_sweep", tmp_path, size=size, timeout=280,
                 env={"LAYOUT_OUT": folder, "LAYOUT_SIZE": size, "LAYOUT_STEPS": str(STEPS)})
    with open(os.path.join(folder, f"findings-{size}.json"), encoding="utf-8") as f:
        report = json.load(f)
    from companion import games

    assert set(report) == set(games.available()), "every registered game is swept"
    lines = _summary(report, size)
    with open(os.path.join(folder, f"findings-{size}.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    tr = request.config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None:
        tr.write_line(f"layout check at {size}: screenshots and findings in {folder}")
    print(f"layout artifacts: {folder}")
    n = sum(len(r["findings"]) for r in report.values())
    assert n == 0, f"layout findings at {size}:\n" + "\n".join(lines)
