"""Mint Works through the real app under Xvfb: a solitaire game against Rachael is set up on the
New game screen (one player, the AI, the app's plan deck) and played to the end through the
dashboard's generic decision area alone, with a scripted player: draws with the draw button, the
AI's turns told in the prompt, the Table tab showing the location line and the supply, and the
Game End screen with the score."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

PREFER = ("builder", "supplier", "producer", "leadership_council", "wholesaler", "lotto")


def _pick(buttons):
    """The scripted player: build, else buy the cheapest plan, else take Mints; pass otherwise."""
    def rank(b):
        a = b.action
        if a["type"] != "place":
            return (len(PREFER) + 1, 0)
        loc = a["location"]
        return (PREFER.index(loc) if loc in PREFER else len(PREFER), len(b.text))
    return min(buttons, key=rank)


def scenario_mint_works_solitaire_against_rachael(app, drv):
    drv.press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    choice = [b for b in drv.find(ng, "GameChoice") if b.game_id == "mint_works"]
    assert choice and "Mint Works" in choice[0].text and "1-4 players" in choice[0].text
    drv.press(choice[0])
    assert ng.game_id == "mint_works" and "1" in ng.counts
    ng.set_count("1")
    drv.pump(2)
    ng.name_input("p1").text = "Ana"
    opts = ng._option_widgets
    opts["opponent"].text = "Rachael"
    opts["deck"].text = "The app draws"
    drv.press(ng.ids.first_virtual)
    drv.shot("mint_works-new-game")
    drv.press(ng.ids.start)
    assert app.root.current == "game", ng.message
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    assert ctrl.module.id == "mint_works" and ctrl.setup["opponent"] == "rachael"
    assert set(scr.player_panels) == {"p1", "p2"} and ctrl.name("p2") == "Rachael"
    assert set(scr.tab_buttons) == {"players", "table", "log"}
    seen_ai, draws, turns = set(), 0, 0
    while not ctrl.game.is_over(ctrl.state):
        s = ctrl.state
        if scr.awaiting_dice:  # a plan comes off the app's deck
            assert "press the draw button" in scr.prompt
            n = len(ctrl.journal)
            drv.press(scr.ids.roll_virtual, frames=1)
            assert len(ctrl.journal) == n + 1 and ctrl.journal.actions()[-1].action["type"] == "draw"
            drawn = ctrl.journal.actions()[-1].action["plan"]
            name = ctrl.game.data.plan_name(drawn)
            assert f"Put the {name} face up in the Plan Supply." in scr.prompt or "Lotto" in scr.prompt \
                or name in scr.prompt
            draws += 1
        else:
            assert ctrl.game.actor(s) == "p1"  # the AI's seat never has to act
            assert f"Ana: place mints on a free space, or pass ({s.mints['p1']} mint" in scr.prompt \
                or s.step == "coop"
            for line in s.ai_turn:
                assert line in scr.prompt
                seen_ai.add(line.split(":")[0])
            buttons = [b for b in drv.find(scr, "LegalActionButton")]
            assert buttons and any(b.text == "Ana: pass" for b in buttons)
            pick = _pick(buttons)
            drv.press(pick, frames=1)
            assert scr.pending_text == f"Confirm: {pick.text}"
            n = len(ctrl.journal)
            drv.press(scr.ids.confirm, frames=1)
            assert len(ctrl.journal) == n + 1, scr.message
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
