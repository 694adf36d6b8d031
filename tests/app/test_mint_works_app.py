"""Mint Works through the real app under Xvfb: a solitaire game against Rachael is set up on the
New game screen (one player, the AI, the app's plan deck) and played to the end through the
dashboard's generic decision area alone, with a scripted player: draws with the draw button, the
AI's turns told in the prompt, the Table tab showing the location line and the supply, and the
Game End screen with the score."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

PREFER = ("builder", "supplier", "producer", "leadership_council", "wholesaler", "lotto")


def _rank(action, text):
    """The scripted player: build, else buy the cheapest plan, else take Mints; pass otherwise
    (a reveal: the plan first in the alphabet). A total order, so the script is deterministic."""
    import json
    if action["type"] != "place":
        return (len(PREFER) + 1, 0, text, json.dumps(action, sort_keys=True))
    loc = action["location"]
    return (PREFER.index(loc) if loc in PREFER else len(PREFER), len(text), text, json.dumps(action, sort_keys=True))


def _pick(buttons):
    return min(buttons, key=lambda b: _rank(b.action, b.text))


def _play_on_the_panel(drv, scr, ctrl):
    """A turn on the Turn panel: a location (PREFER order), then its cheapest choice, Confirm."""
    (panel,) = scr.ids.step_area.children
    assert type(panel).__name__ == "TurnPanel" and "Ana" in scr.prompt and "Plan Supply:" in panel.info.text
    places = [b for b in panel.places.children if b.location is not None]
    legal = {a["location"] for a in ctrl.legal_actions() if a["type"] == "place"}
    assert {b.location for b in places} == legal  # only the locations Ana can use now
    if not places:
        (passing,) = [b for b in panel.places.children if b.text == "Pass"]
        drv.press(passing, frames=1)
    else:
        best = min(places, key=lambda b: PREFER.index(b.location) if b.location in PREFER else 99)
        drv.press(best, frames=1)
        if not _play_on_the_panel.shot:
            _play_on_the_panel.shot = drv.shot("mint_works-turn-panel")
        opts = list(panel.options.children)
        if opts:
            drv.press(min(opts, key=lambda b: _rank(b.action, b.text)), frames=1)
    assert scr.pending_text.startswith("Confirm: Ana: ")  # the dashboard's one Confirm
    drv.press(scr.ids.confirm, frames=1)


_play_on_the_panel.shot = None


def _pin_seed(pinned):
    """New games get `pinned` for the seed GameController.new draws at random when the New game
    screen gives none, so the scenario plays the same game every run (its own process only)."""
    from companion import controller as C

    new = C.GameController.new.__func__

    def pinned_new(cls, *args, seed=None, **kw):
        return new(cls, *args, seed=pinned if seed is None else seed, **kw)
    C.GameController.new = classmethod(pinned_new)


def _new_game(app, drv, ai, deck):
    drv.press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    choice = [b for b in drv.find(ng, "GameChoice") if b.game_id == "mint_works"]
    assert choice and "Mint Works" in choice[0].text and "1-4 players" in choice[0].text
    drv.press(choice[0])
    assert ng.game_id == "mint_works" and "1" in ng.counts
    ng.set_count("1")
    drv.pump(2)
    ng.name_input("p1").text = "Ana"
    ng._option_widgets["opponent"].text = ai
    ng._option_widgets["deck"].text = deck
    drv.press(ng.ids.first_virtual)
    return ng


#: the seed of the game against Rachael: it plays a draw, Rachael's move, then another draw
#: before Ana decides (the scenario checks it still does)
RACHAEL_SEED = 5


def scenario_mint_works_solitaire_against_rachael(app, drv):
    _pin_seed(RACHAEL_SEED)
    ng = _new_game(app, drv, "Rachael", "The app draws")
    drv.shot("mint_works-new-game")
    drv.press(ng.ids.start)
    assert app.root.current == "game", ng.message
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    assert ctrl.module.id == "mint_works" and ctrl.setup["opponent"] == "rachael"
    assert set(scr.player_panels) == {"p1", "p2"} and ctrl.name("p2") == "Rachael"
    assert set(scr.tab_buttons) == {"players", "table", "log"}
    seen_ai, draws, turns = set(), 0, 0
    # (kind, seat, plan) of every draw since Ana last decided (the game opened with one), and
    # how often a draw came after one Rachael had moved since: the prompt must tell them all
    told = [("supply", None, e.action["plan"]) for e in ctrl.journal.entries() if e.action["type"] == "draw"]
    moved_since_a_draw, draw_ai_draw = False, 0
    while not ctrl.game.is_over(ctrl.state):
        s = ctrl.state
        if scr.awaiting_dice:  # a plan comes off the app's deck
            assert "tap Let the app draw" in scr.prompt and scr.ids.roll_virtual.text == "Let the app draw"
            assert "dice" not in scr.prompt and scr.dice_prompt == ""  # a card drawn, not a roll
            awaited = s.pending[0]  # ("supply", None) or ("lotto", seat)
            n = len(ctrl.journal)
            drv.press(scr.ids.roll_virtual, frames=1)
            new = ctrl.journal.entries()[n:]  # the draw, then the AI's moves it let her make
            assert new[0].action["type"] == "draw" and all(e.source == "app" for e in new[1:])
            draw_ai_draw += moved_since_a_draw
            told.append((*awaited, new[0].action["plan"]))
            moved_since_a_draw = len(new) > 1
            for kind, seat, plan in ([] if ctrl.game.is_over(ctrl.state) else told):
                name = ctrl.game.data.plan_name(plan)
                words = (f"{ctrl.name(seat)}: take the {name} face down (Lotto)." if kind == "lotto"
                         else f"Put the {name} face up in the Plan Supply.")
                assert words in scr.prompt, (words, scr.prompt, ctrl.session.seed)
            draws += 1
        else:
            assert ctrl.game.actor(s) == "p1"  # the AI's seat never has to act
            assert f"Ana: place mints on a free space, or pass ({s.mints['p1']} mint" in scr.prompt \
                or s.step == "coop"
            for line in s.ai_turn:
                assert line in scr.prompt
                seen_ai.add(line.split(":")[0])
            n = len(ctrl.journal)
            if turns % 2 == 0 and s.step == "turn":
                _play_on_the_panel(drv, scr, ctrl)
            else:
                buttons = [b for b in drv.list_buttons(scr)]
                assert buttons and any(b.text == "Ana: pass" for b in buttons)
                pick = _pick(buttons)
                drv.press(pick, frames=1)
                assert scr.pending_text == f"Confirm: {pick.text}"
                drv.press(scr.ids.confirm, frames=1)
            new = ctrl.journal.entries()[n:]  # Ana's action, then the AI's answer as her own entries
            assert new and new[0].source == "ui" and all(e.source == "app" for e in new[1:]), scr.message
            told, moved_since_a_draw = [], False  # Ana decided: the table was told them
            turns += 1
            if turns == 3:
                drv.press(scr.tab_buttons["table"])
                tab = scr.tabs["table"]
                texts = [t for t, _ in tab.lines]
                assert texts[0] == "The AI's turn" or any(t.startswith("Plan Supply") for t in texts)
                assert any(t.startswith("Producer: ") for t in texts)
                drv.shot("mint_works-table")
                drv.press(scr.tab_buttons["players"])
        assert turns + draws < 400
    assert seen_ai and any(x.startswith("Rachael places") for x in seen_ai), seen_ai
    assert draw_ai_draw, "the pinned seed no longer plays a draw, Rachael's move, then a draw"
    drv.pump(3)
    assert app.root.current == "game_end"
    end = app.root.get_screen("game_end")
    sc = ctrl.view.score(ctrl.game, ctrl.state)
    assert end.total_labels["p1"].text == str(sc["p1"]["total"])
    assert end.total_labels["p2"].text == str(sc["p2"]["total"])
    assert end.headline.startswith("Game over - ")
    drv.shot("mint_works-game-end")


def test_mint_works_solitaire_against_rachael(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_mint_works_solitaire_against_rachael", tmp_path)


def scenario_mint_works_scripted_game_with_the_tables_deck(app, drv):
    """Justin, the table's own plan deck (every draw tapped): the whole game is scripted, so the
    engine alone predicts it, and the app must end exactly there."""
    from companion.games.mint_works import GAME, VIEW

    ng = _new_game(app, drv, "Justin", "Our own deck")
    drv.press(ng.ids.start)
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    assert ctrl.setup["deck"] == "table" and not scr.awaiting_dice
    # the same script played by the engine alone, from the same setup
    s, expected, taps = GAME.initial_state(ctrl.setup), [], []
    while not GAME.is_over(s):
        if GAME.actor(s) in GAME.app_seats(s):  # Justin's move: played by the app, not tapped
            a = GAME.app_action(s, GAME.actor(s)).to_dict()
        else:
            acts = [a.to_dict() for a in GAME.legal_actions(s)]
            a = min(acts, key=lambda x: _rank(x, VIEW.action_label(x, s, ctrl.setup)))
            taps.append(a)
        expected.append(a)
        s = GAME.apply(s, a)
    assert ctrl.state.to_dict() == GAME.initial_state(ctrl.setup).to_dict()
    assert "Ana: draw a plan for the Plan Supply from your Plan Deck and tap it here." in scr.prompt
    on_grid = 0
    for want in taps:
        grids = drv.find(scr.ids.picker, "PlanGrid")
        if want["type"] == "reveal" and grids:  # a drawn plan tapped in the plan grid
            assert scr.ids.picker.question_text == "Which plan did you draw?"
            (b,) = [x for x in grids[0].grid.children if x.plan == want["plan"]]
            drv.press(b, frames=1)
            assert scr.pending == want and scr.pending_text.startswith("Confirm: Ana drew the "), scr.pending_text
            on_grid += 1
        else:
            buttons = drv.list_buttons(scr)
            pick = _pick(buttons)
            assert pick.action == want, (pick.action, want)
            drv.press(pick, frames=1)
        if ctrl.state.ai_turn:
            assert ctrl.state.ai_turn[-1] in scr.prompt
        drv.press(scr.ids.confirm, frames=1)
    assert on_grid >= 5, on_grid
    assert [e.action for e in ctrl.journal.actions()] == expected
    assert ctrl.state.to_dict() == s.to_dict() and ctrl.game.is_over(ctrl.state)
    drv.pump(3)
    assert app.root.current == "game_end"
    end = app.root.get_screen("game_end")
    assert end.headline == "Game over - " + VIEW.headline(GAME, s, ctrl.setup)
    drv.shot("mint_works-scripted-end")


def test_mint_works_scripted_game_with_the_tables_deck(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_mint_works_scripted_game_with_the_tables_deck", tmp_path)


def scenario_mint_works_plan_grid(app, drv):
    """The first draw of a game on the table's own deck: every plan in a grid, each button its
    whole name with cost and stars, no word broken and nothing clipped (the layout check), a tap
    waits for Confirm; a screenshot at the window's size."""
    from kivy.core.window import Window
    from layout_check import check_window

    ng = _new_game(app, drv, "Justin", "Our own deck")
    drv.press(ng.ids.start)
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    if scr.portrait:
        scr.show_left("now")
    drv.pump(3)
    (grid,) = drv.find(scr.ids.picker, "PlanGrid")
    assert scr.ids.picker.question_text == "Which plan did you draw?"
    buttons = {b.plan: b for b in grid.grid.children}
    assert set(buttons) == set(ctrl.game.draw_candidates(ctrl.state))
    assert buttons["assembler"].text.startswith("[b]Assembler[/b]") and "cost 5, 1 star" in buttons["assembler"].text
    assert "1 star per Culture building" in buttons["museum"].text
    assert grid.grid.cols >= 2 and all(b.width >= 120 for b in buttons.values()), grid.grid.cols
    findings = [str(f) for f in check_window() if "Plan" in f.widget or "plan" in str(f).lower()]
    assert not findings, findings
    drv.shot(f"mint_works-plan-grid-{Window.width}x{Window.height}")
    drv.press(buttons["assembler"], frames=1)
    assert scr.pending_text == "Confirm: Ana drew the Assembler (cost 5, 1 star)", scr.pending_text
    n = len(ctrl.journal)
    drv.press(scr.ids.confirm, frames=1)
    assert ctrl.journal.actions()[n].action == {"type": "reveal", "player": "p1", "plan": "assembler"}


@pytest.mark.parametrize("size", ["800x480", "1280x800", "412x915"])
def test_mint_works_plan_grid(xdisplay, tmp_path, size):
    run_scenario(__file__, "scenario_mint_works_plan_grid", tmp_path, size=size)


def scenario_mint_works_locations_above_the_fold(app, drv):
    """A 2-player game at the start of round 2 (the round card still shown): the prompt says the
    decision only (no Plan Supply, no occupancy: those are in the turn panel), and every location
    button and Pass is wholly in view without scrolling, with the Players tab and with the Table
    tab open."""
    from kivy.core.window import Window

    ng = drv.new_game_form(app, "mint_works")
    ng.set_count("2")
    drv.press(ng.ids.start)
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    for _ in range(300):
        if ctrl.state.step == "turn" and ctrl.state.round >= 2 and not ctrl.awaiting_dice():
            break
        if ctrl.awaiting_dice():
            ctrl.roll_virtual()
        else:
            acts = ctrl.legal_actions()
            ctrl.dispatch(next((a for a in acts if a["type"] == "pass"), acts[0]), "ui")
        drv.pump(1)
    assert ctrl.state.step == "turn" and ctrl.state.round >= 2
    drv.pump(3)
    assert "Plan Supply:" not in scr.prompt and "free, free" not in scr.prompt, scr.prompt
    (panel,) = scr.ids.step_area.children
    assert panel.info.text.startswith("Plan Supply:")
    view = scr.ids.now_scroll

    def box(w):
        x0, y0 = w.to_window(w.x, w.y)
        x1, y1 = w.to_window(w.right, w.top)
        return x0, y0, x1, y1

    for tab in ("players", "table"):
        if tab in scr.tab_buttons:
            drv.press(scr.tab_buttons[tab])
        elif tab == "players" and scr.left_view != "players":
            scr.show_left("players")
        drv.pump(3)
        view.scroll_y = 1
        drv.pump(3)
        vx0, vy0, vx1, vy1 = box(view)
        buttons = list(panel.places.children)
        assert buttons and any(b.text == "Pass" for b in buttons)
        for b in buttons:
            x0, y0, x1, y1 = box(b)
            assert vx0 - 1 <= x0 and x1 <= vx1 + 1 and vy0 - 1 <= y0 and y1 <= vy1 + 1, \
                (tab, b.text, (x0, y0, x1, y1), (vx0, vy0, vx1, vy1))
        drv.shot(f"mint_works-locations-{tab}-{Window.width}x{Window.height}")


@pytest.mark.parametrize("size", ["800x480", "1280x800"])
def test_mint_works_locations_above_the_fold(xdisplay, tmp_path, size):
    run_scenario(__file__, "scenario_mint_works_locations_above_the_fold", tmp_path, size=size)
