"""Every choice the prompt names is a button (issue 39 item 3): along a seeded game of every
registered game, at every moment, each "tap <Choice>" of the prompt and each step-ending choice
(the view's `step_end_types`: "Done defending", "Pass", "End the turn") has a visible, enabled
button of its own on the game screen, outside the manual list "All choices as a list" (kept
closed). The game is played through the controller; the screen follows it."""
import os
import random
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

STEPS = int(os.environ.get("TABLETOP_NAMED_STEPS", "90"))
# "tap No combat", "tap Done defending.", "then tap End the turn", "tap Let the app draw, or ..."
_TAP = re.compile(r"\btap ([A-Z][\w' -]*?)(?=[.,;:!?)]|\s+(?:or|then|and|to|below|above|when|if)\b|$)")


def named_in(prompt: str) -> list:
    """The choices a prompt names with "tap <Choice>" (a capitalised name), in order."""
    from layout_check import plain

    return [m.group(1).strip() for m in _TAP.finditer(" ".join(plain(prompt, True).split()))]


def test_named_in_reads_the_prompts_words():
    assert named_in("Ana: attacking with Archers. Add units or tap Resolve the attack.") == ["Resolve the attack"]
    assert named_in("Ben: play units against Ana, or tap No combat.") == ["No combat"]
    assert named_in("Draw a plan: tap Let the app draw, or draw at the table and tap the plan you drew.") \
        == ["Let the app draw"]
    assert named_in("[b]Ana[/b]: block, then tap Done defending. You need not defend.") == ["Done defending"]
    assert named_in("Ana: tap that area on the map.") == []


def _buttons(scr):
    """The plain words of every visible, enabled button of the game screen."""
    from kivy.uix.behaviors import ButtonBehavior
    from layout_check import plain, visible_widgets

    out = set()
    for w, _ in visible_widgets():
        if isinstance(w, ButtonBehavior) and not w.disabled and w.height > 1 and w.width > 1:
            text = " ".join(plain(getattr(w, "text", "") or "", getattr(w, "markup", False)).split())
            if text:
                out.add(text.lower())
    return out


def scenario_named_choices(app, drv):
    from companion import games
    from companion.decisions import Decision

    missing, seen = [], {}
    for m in games.modules():
        rng = random.Random(f"named-{m.id}")
        drv.start_from_form(app, m.id)
        ctrl, scr = app.ctrl, drv.game_screen(app)
        named_seen = 0
        for i in range(STEPS):
            if ctrl.game.is_over(ctrl.state):
                break
            if scr.portrait and scr.left_view != "now":  # a phone: the decision is on the Now tab
                scr.show_left("now")
            drv.pump(2)
            scr.ids.now_scroll.scroll_y = 1  # as a new decision opens: its top in view
            drv.pump(1)
            if scr.show_all:
                scr.toggle_all()
            have = _buttons(scr)
            want = [(w, "prompt") for w in named_in(scr.prompt)]
            if not ctrl.awaiting_dice():
                d = Decision(ctrl.legal_actions(), ctrl.action_label, lambda t: (), lambda *a: "", str)
                want += [(d.short_label(a), "step end") for a in ctrl.legal_actions()
                         if a.get("type") in ctrl.view.step_end_types]
            for words, why in want:
                named_seen += 1
                if words.lower() not in have and not any(h.startswith(words.lower()) for h in have):
                    missing.append(f"{m.id} step {i} ({why}): no button {words!r} for prompt "
                                   f"{scr.prompt[:160]!r}")
            if ctrl.awaiting_dice():
                ctrl.roll_virtual()
                continue
            acts = ctrl.legal_actions()
            ends = [a for a in acts if a.get("type") in ctrl.view.step_end_types or a.get("type") == "end_step"]
            other = [a for a in acts if a not in ends]
            a = rng.choice(other) if other and (not ends or rng.random() < 0.75) else (ends or acts)[0]
            ctrl.dispatch(a, "ui")
        seen[m.id] = named_seen
        app.leave_game()
        drv.pump(2)
    print("named choices checked:", seen)
    assert seen["civ_card_game"] > 0, seen
    assert not missing, "\n".join(missing[:30]) + f"\n({len(missing)} in all)"


@pytest.mark.parametrize("size", ["800x480", "412x915"])
def test_every_named_choice_is_a_button(xdisplay, tmp_path, size):
    run_scenario(__file__, "scenario_named_choices", tmp_path, size=size, timeout=280)
