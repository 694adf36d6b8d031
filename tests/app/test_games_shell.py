"""The real app shell under Xvfb with a second game: the toy game of tests/engine (registered only
here) is set up on the New game screen and played start to finish through the generic decision
area alone, its first roll read from a dice well of the virtual board; saves of two games are
listed and resumed side by side, and saves this build cannot open are listed with a reason."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402


def _toy():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from toy_module import TOY_ID, register_toy

    if TOY_ID not in __import__("companion.games", fromlist=["available"]).available():
        register_toy()
    return TOY_ID


def scenario_toy_game_played_through_the_generic_panel(app, drv):
    toy = _toy()
    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "pairing")
    drv.press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    choice = [b for b in drv.find(ng, "GameChoice") if b.game_id == toy]
    assert choice and "Race to Ten" in choice[0].text and "5 min" in choice[0].text
    drv.press(choice[0])
    assert ng.game_id == toy and ng.setup_panel is None and "first to 10" in ng.game_line
    assert ng.first_roll == "Turn roll"
    ng.name_input("p1").text = "Cy"
    ng.name_input("p2").text = "Di"
    drv.press(ng.ids.first_real)  # the first roll comes from the table
    drv.shot("toy-new-game")
    drv.press(ng.ids.start)
    assert app.root.current == "game"
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    assert ctrl.module.id == toy and len(ctrl.journal) == 0
    # its counters fit no lane of this board: said once, in plain words
    assert "Not on the board (keep these on the tablet): Banked (Cy), Banked (Di)" in scr.message
    assert scr.dice_prompt == "Turn roll, 1 die" and scr.dice_count == 1
    assert set(scr.tab_buttons) == {"players", "log"}
    # a die thrown into well 1 fills the awaited roll
    app.board.vboard.roll(0, value=3, settle_ms=0)
    drv.wait_for(lambda: len(ctrl.journal) == 1, 10, "the well's die journaled")
    first = ctrl.journal.actions()[0]
    assert first.action == {"type": "roll", "die": 3} and first.source == "board"
    drv.shot("toy-dashboard")
    presses = 0
    while not ctrl.game.is_over(ctrl.state):
        assert not scr.ids.step_area.children, "the toy game has no panels"
        if scr.awaiting_dice:
            entry = scr.ids.dice_entry
            assert entry.opacity == 1 and not entry.disabled and entry.count == 1
            while entry.value1 < 6:
                drv.press(entry.ids.plus1, frames=1)
            n = len(ctrl.journal)
            drv.press(entry.ids.enter)
            drv.press(scr.ids.confirm)
            assert len(ctrl.journal) == n + 1 and ctrl.journal.actions()[-1].action == {"type": "roll", "die": 6}
        else:
            buttons = {b.text: b for b in drv.list_buttons(scr)}
            who = ctrl.name(ctrl.game.actor(ctrl.state))
            assert set(buttons) == {f"{who}: Bank", f"{who}: Pass"}
            drv.press(buttons[f"{who}: Bank"], frames=1)
            assert scr.pending_text == f"Confirm: {who}: Bank"
            drv.press(scr.ids.confirm)
        presses += 1
        assert presses < 40
    drv.pump(3)
    assert app.root.current == "game_end"
    end = app.root.get_screen("game_end")
    sc = ctrl.state.scores
    winner = "Cy" if sc["p1"] >= 10 else "Di"
    assert end.headline == f"Game over - {winner} wins"
    assert end.total_labels["p1"].text == str(sc["p1"]) and end.total_labels["p2"].text == str(sc["p2"])
    assert end.ids.chart.series[0]["values"][-1] == sc["p1"]
    drv.shot("toy-game-end")
    drv.press(end.ids.export)
    import json

    # "Saved in [b]<folder>[/b]:" then each file's name: the screen says where they are
    folder = end.export_text.split("Saved in [b]", 1)[1].split("[/b]", 1)[0]
    names = [ln.split(": ", 1)[0] for ln in end.export_text.split("\n")[1:3]]
    assert os.path.exists(os.path.join(folder, names[0])) and names[0].endswith(".bgstats.json")
    path = os.path.join(folder, names[1])
    data = json.load(open(path, encoding="utf-8"))
    assert data["game"] == toy and data["title"] == "Race to Ten" and data["over"]
    assert [a["action"] for a in data["actions"]] == [e.action for e in ctrl.journal.actions()]
    assert data["actions"][0]["source"] == "board" and data["score"]["p1"]["total"] == sc["p1"]
    drv.press(end.ids.home)
    home = app.root.get_screen("home")
    rows = drv.find(home, "SavedGameRow")
    assert len(rows) == 1 and rows[0].title == "Race to Ten: Cy (blue) vs Di (green)"


def test_toy_game_played_through_the_generic_panel(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_toy_game_played_through_the_generic_panel", tmp_path, board="virtual")


def scenario_saves_of_two_games_side_by_side(app, drv):
    from companion.store import journal as J
    from companion.controller import GameController

    toy = _toy()
    civ = GameController.new(app.games_dir, ("Ada", "Bo"), ("red", "yellow"), seed=7)
    civ.roll_virtual()
    civ_path, civ_state = civ.path, civ.state.to_dict()
    civ.close()
    race = GameController.new(app.games_dir, ("Cy", "Di"), ("blue", "green"), seed=1, game=toy)
    race.roll_virtual()
    race_path, race_state = race.path, race.state.scores
    race.close()
    J.Journal.create(os.path.join(app.games_dir, "future.journal"), toy, {"players": {}}, "9", data_version=9).close()
    J.Journal.create(os.path.join(app.games_dir, "chess.journal"), "chess", {"players": {}}, "9").close()
    home = app.root.get_screen("home")
    home.refresh()
    drv.pump(2)
    titles = sorted(r.title for r in drv.find(home, "SavedGameRow"))
    assert titles == ["CivMint: Ada (red) vs Bo (yellow)", "Race to Ten: Cy (blue) vs Di (green)"]
    broken = [r.message for r in drv.find(home, "BrokenGameRow")]
    assert any("future.journal" in m and "newer version of Race to Ten" in m for m in broken), broken
    assert any("chess.journal" in m and "does not have" in m for m in broken), broken
    assert home.games_count == 4
    drv.shot("home-two-games")
    for path, check in ((race_path, lambda c: c.state.scores == race_state),
                        (civ_path, lambda c: c.state.to_dict() == civ_state)):
        row = [r for r in drv.find(home, "SavedGameRow") if r.path == path][0]
        drv.press(row.children[0])
        assert app.root.current == "game" and check(app.ctrl), path
        scr = app.root.get_screen("game")
        assert set(scr.player_panels) == {"p1", "p2"}
        assert ("map" in scr.tab_buttons) == (app.ctrl.module.id == "civmint")
        drv.press(scr.ids.home)
        assert app.root.current == "home"
    # a save this build cannot open never opens: the reason, and the app stays on Home
    assert app.resume_game(os.path.join(app.games_dir, "future.journal")) is False
    assert "newer version of Race to Ten" in home.message and app.root.current == "home"


def test_saves_of_two_games_side_by_side(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_saves_of_two_games_side_by_side", tmp_path)
