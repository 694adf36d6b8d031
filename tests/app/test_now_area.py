"""The game screen's "now" area (issue 27 items 1-3): a long list is a picker (search, pages),
the one Confirm is enabled exactly when a complete decision waits, a new decision scrolls back to
its prompt, and the window rotated mid-decision re-lays out without losing the choice. Real app
under Xvfb, Civ Quest's 28 starting areas as the long list."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gui_process import run_scenario  # noqa: E402


def _confirms(drv, root):
    """Enabled, visible Confirm buttons anywhere on the screen."""
    return [w for w in root.walk(restrict=True) if getattr(w, "text", None) == "Confirm"
            and hasattr(w, "on_release") and not w.disabled and w.opacity > 0 and w.width > 0]


def scenario_now_area(app, drv):
    from kivy.core.window import Window

    from companion.games.civ_quest import MODULE
    MODULE.pickers = {}  # the generic grid is under test here, not Civ Quest's map (its own test)
    app.start_new_game("civ_quest", ["Ana", "Ben"], ["blue", "green"])
    drv.pump(3)
    scr = app.root.get_screen("game")
    ctrl = app.ctrl
    while scr.awaiting_dice:  # the first-player rolls
        drv.press(scr.ids.roll_virtual)
    assert ctrl.state.step == "start", ctrl.state.step
    picker = scr.ids.picker
    acts = ctrl.legal_actions()
    assert len(acts) > 8 and picker.question_text  # a long list is a picker, not 28 buttons
    from companion.gui.pickers import PAGE

    assert len(picker.ids.options.children) <= PAGE and picker.page_text.startswith("1 of ")
    assert scr.ids.confirm.disabled and not scr.pending_text
    assert len(_confirms(drv, scr)) == 0
    assert "Confirm" in scr.bar_hint or "then Confirm" in scr.bar_hint

    # type a few letters: only matching names are offered
    area = ctrl.view.value_label(ctrl.game, ctrl.state, ctrl.setup, acts[0]["type"], "area",
                                 acts[-1]["area"]) if "area" in acts[-1] else None
    labels = {b.text: b for b in picker.ids.options.children}
    if area is None:  # the game words its options whole: search by the first option's words
        area = next(iter(labels))
    picker.ids.search.text = area[:4]
    drv.pump(2)
    shown = [b.text for b in picker.ids.options.children]
    assert shown and all(area[:4].lower() in t.lower() for t in shown), shown
    drv.shot("now-area-search-800x480")
    target = [b for b in picker.ids.options.children if b.text == area][0]
    drv.press(target)
    # complete: exactly one Confirm, enabled, and the bar says what waits
    assert scr.pending is not None and scr.pending_text.startswith("Confirm: ")
    assert len(_confirms(drv, scr)) == 1
    n = len(ctrl.journal)

    # the window rotated mid-decision: a phone layout, the choice kept
    Window.size = (412, 915)
    drv.pump(4)
    assert scr.portrait and scr.pending is not None and scr.left_view == "now"
    assert len(_confirms(drv, scr)) == 1
    drv.shot("now-area-rotated-412x915")
    Window.size = (800, 480)
    drv.pump(4)
    assert not scr.portrait and scr.pending is not None

    # Cancel takes the choice back; the picker asks again
    drv.press(scr.ids.cancel)
    assert scr.pending is None and scr.ids.confirm.disabled and picker.question_text
    picker.ids.search.text = area[:4]
    drv.pump(2)
    drv.press([b for b in picker.ids.options.children if b.text == area][0])
    scr.ids.now_scroll.scroll_y = 0
    drv.press(scr.ids.confirm)
    assert len(ctrl.journal) == n + 1 and ctrl.journal.actions()[-1].source == "ui"
    drv.pump(2)
    # a new decision: scrolled back to its prompt, nothing waits, the search box empty
    assert scr.ids.now_scroll.scroll_y == 1 and scr.pending is None and picker.ids.search.text == ""

    # a value no longer legal (the area just taken), tapped on a control the new decision replaced
    stale = ctrl.journal.actions()[-1].action
    fields = [f for f in stale if f not in ("type", "player")]
    if picker.decision is not None and fields:
        picker.pick(fields[0], stale[fields[0]])
        assert scr.error and "no longer possible" in scr.message and scr.pending is None
        assert len(ctrl.journal) == n + 1


def test_now_area(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_now_area", tmp_path, size="800x480")
