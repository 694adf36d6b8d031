"""Civ Quest through the real app under Xvfb: chosen on the New game screen with a round limit of
one round, every roll thrown into the virtual board's dice wells (a 2-dice roll: well 1 is the
first number), every decision taken on the generic decision area (labelled buttons + Confirm),
the Map tab showing the areas, to the game-end screen; then resumed from Home exactly."""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402


def scenario_civ_quest_played_with_dice_from_the_wells(app, drv):
    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "pairing")
    drv.press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    choice = [b for b in drv.find(ng, "GameChoice") if b.game_id == "civ_quest"]
    assert choice and "Civ Quest" in choice[0].text and "2-7 players" in choice[0].text
    drv.press(choice[0])
    ng.name_input("p1").text = "Ana"
    ng.name_input("p2").text = "Ben"
    ng._option_widgets["max_rounds"].text = "1"
    drv.press(ng.ids.start)
    assert app.root.current == "game"
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    assert ctrl.module.id == "civ_quest" and ctrl.state.max_rounds == 1
    # IP and RP sit on the seats' 16-space resource lanes (0-15): nothing is left on the tablet
    assert "Not on the board" not in scr.message
    assert scr._sync.binding.lane_of == {"ip.p1": "food.p1", "rp.p1": "wood.p1",
                                         "ip.p2": "food.p2", "rp.p2": "wood.p2"}
    assert "cq_map" in scr.tab_buttons
    rng = random.Random(5)
    seen_prompts = set()
    steps = 0
    while not ctrl.game.is_over(ctrl.state):
        steps += 1
        assert steps < 600, "the game must end"
        drv.pump(1)
        n = len(ctrl.journal)
        if scr.awaiting_dice:
            req = ctrl.dice_request()
            who = ctrl.name(req["who"])
            assert scr.dice_prompt == f"{who}: {req['roll']}, {req['count']} {'die' if req['count'] == 1 else 'dice'}"
            seen_prompts.add(req["roll"])
            # the Players panel lights the seat that throws (the engine's actor is the dice)
            lit = [seat for seat, p in scr.player_panels.items() if p.active]
            assert lit == [req["who"]], (lit, req)
            if req["action"] == "research_roll":
                assert "well 1 or Die 1 is the first number" in scr.prompt
            values = [rng.randint(1, 6) for _ in range(req["count"])]
            for well, v in enumerate(values):
                app.board.vboard.roll(well, value=v, settle_ms=120)  # tumbling: a new throw
            drv.wait_for(lambda: len(ctrl.journal) == n + 1, 10,
                         f"the wells' dice for the {req['roll']} ({values}; {scr.message!r}; {scr.prompt!r})")
            last = ctrl.journal.actions()[-1]
            assert last.source == "board"
            got = [last.action[k] for k in ("die", "first", "second") if k in last.action]
            assert got == values, (got, values)
            for well in range(req["count"]):
                app.board.vboard.remove_die(well)
            # the players take the dice out: the next throw comes after the board saw the wells
            # empty (a re-throw of the same face faster than the sensor's readings is one throw)
            wids = app.board.smap.well_ids[:req["count"]]
            drv.wait_for(lambda: all((app.board.wells().get(w) or ("empty",))[0] in ("empty", "removed")
                                     for w in wids), 10, "the wells seen empty")
            continue
        buttons = drv.list_buttons(scr)
        assert buttons, f"no action offered at {ctrl.state.step}"
        who = ctrl.name(ctrl.game.actor(ctrl.state))
        assert who in scr.prompt, scr.prompt
        for b in buttons:
            assert b.text.startswith(f"{who}: ") and "_" not in b.text, b.text   # plain words, no ids
        busy = [b for b in buttons if "end the" not in b.text and "neither" not in b.text]
        pick = rng.choice(busy) if busy and rng.random() < 0.7 else rng.choice(buttons)
        drv.press(pick, frames=1)
        assert scr.pending_text == f"Confirm: {pick.text}"
        drv.press(scr.ids.confirm)
        assert len(ctrl.journal) == n + 1, scr.message
        if steps == 20:
            drv.press(scr.tab_buttons["cq_map"])
            tab = scr.tabs["cq_map"]
            assert "Ana:" in tab.areas_text and "Empty land" in tab.areas_text
            assert "Rolls this turn" in tab.rolls_text
            drv.shot("civ-quest-map")
            drv.press(scr.tab_buttons["players"])
    assert {"First-player roll", "Leader roll", "Idea roll", "Growth roll", "Resource roll",
            "Disaster roll", "Migration roll"} <= seen_prompts
    drv.pump(3)
    assert app.root.current == "game_end"
    end = app.root.get_screen("game_end")
    sc = ctrl.view.score(ctrl.game, ctrl.state)
    assert end.total_labels["p1"].text == str(sc["p1"]["total"])
    assert "The agreed number of rounds is over." in " ".join(ctrl.view.end_reasons(ctrl.game, ctrl.state, ctrl.setup))
    drv.shot("civ-quest-game-end")
    final = ctrl.state.to_dict()
    drv.press(end.ids.home)
    home = app.root.get_screen("home")
    rows = [r for r in drv.find(home, "SavedGameRow") if r.title.startswith("Civ Quest")]
    assert len(rows) == 1
    drv.press(rows[0].children[0])
    assert app.ctrl.state.to_dict() == final


def test_civ_quest_played_with_dice_from_the_wells(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_civ_quest_played_with_dice_from_the_wells", tmp_path, board="virtual")
