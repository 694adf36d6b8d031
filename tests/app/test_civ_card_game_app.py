"""Civilization: The Card Game through the real app under Xvfb: chosen on the New game screen, the
set-up (cards turned up and named, the draft, the free population, the discards) and every turn
played on the generic decision area (labelled buttons + Confirm), a plot bought through the
purchase panel with a payment of the player's own mix, the combat helper read during an attack,
to the game-end screen; then resumed from Home exactly."""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

# a player who buys technologies first, so the game ends in a few hundred actions
PREFERENCE = ("buy_tech", "build", "attack", "fight", "block", "trade_coin", "buy_population")


def choose(ctrl, buttons, rng):
    by = {}
    for b in buttons:
        a = b.action if isinstance(b.action, dict) else b.action.to_dict()
        t = a["type"]
        if t == "trade":
            t = "trade_coin" if a["get"] == "coin" and a["give"] != "coin" else "trade"
        by.setdefault(t, []).append(b)
    for t in PREFERENCE:
        if t in by and (t != "attack" or not ctrl.state.combat):
            return rng.choice(by[t])
    rest = [b for b in buttons if (b.action if isinstance(b.action, dict) else b.action.to_dict())["type"]
            not in ("trade", "buy_plot", "play_resource")]
    return rng.choice(rest or buttons)


def scenario_civ_card_game_played_on_the_tablet(app, drv):
    drv.press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    choice = [b for b in drv.find(ng, "GameChoice") if b.game_id == "civ_card_game"]
    assert choice and "Civilization: The Card Game" in choice[0].text and "2-4 players" in choice[0].text
    drv.press(choice[0])
    ng.name_input("p1").text = "Ana"
    ng.name_input("p2").text = "Ben"
    drv.press(ng.ids.start)
    assert app.root.current == "game"
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    assert ctrl.module.id == "civ_card_game"
    assert "Ben (dealer): deal a plot card face up to Ana" in scr.prompt
    rng = random.Random(3)
    steps = 0
    plot_bought = combat_seen = prices_seen = False
    while not ctrl.game.is_over(ctrl.state):
        steps += 1
        assert steps < 900, "the game must end"
        drv.pump(1)
        n = len(ctrl.journal)
        s = ctrl.state
        panel = scr.ids.step_area.children[0] if scr.ids.step_area.children else None
        if s.step == "purchase" and not s.queue and not plot_bought and sum(s.res[s.current]) >= 15:
            assert type(panel).__name__ == "CCPurchasePanel"
            assert "Technology" in panel.prices and "Population on plot 1" in panel.prices
            f, h, c = s.res[s.current]
            panel.food, panel.hammer, panel.coin = min(f, 5), 0, 0
            drv.pump(1)
            assert panel.ids.buy.disabled and "15 resources in all" in panel.why
            take_c = min(c, 15 - panel.food)
            panel.coin = take_c
            panel.hammer = 15 - panel.food - take_c
            panel._recheck()
            drv.pump(1)
            if not panel.why:
                card = panel.plot
                drv.press(panel.ids.buy)
                drv.press(scr.ids.confirm)  # the purchase waits for the one Confirm
                assert len(ctrl.journal) == n + 1, scr.message
                assert ctrl.state.plots[s.current][-1][0] == card
                drv.shot("civ-card-game-purchase-panel")
                plot_bought = True
                continue
        if s.step == "purchase" and not s.queue and " - 1 (" in "\n".join(ctrl.view.snapshot(ctrl.game, s, ctrl.setup)["cc_prices"]):
            assert " - 1 (" in panel.prices and " = " in panel.prices
            prices_seen = True
        if s.step == "combat" and s.combat and s.queue and not combat_seen:
            assert type(panel).__name__ == "CCCombatPanel"
            assert "attack[/b]" in panel.text and "Now: " in panel.text
            drv.shot("civ-card-game-combat-helper")
            combat_seen = True
        buttons = drv.list_buttons(scr)
        assert buttons, f"no action offered at {s.step}"
        who = ctrl.name(ctrl.game.actor(s))
        assert who in scr.prompt, scr.prompt
        for b in buttons:
            assert b.text.startswith(f"{who}: ") and "_" not in b.text, b.text  # plain words, no ids
        pick = choose(ctrl, buttons, rng)
        drv.press(pick, frames=1)
        assert scr.pending_text == f"Confirm: {pick.text}"
        drv.press(scr.ids.confirm)
        assert len(ctrl.journal) == n + 1, scr.message
    assert plot_bought and combat_seen and prices_seen
    drv.pump(3)
    assert app.root.current == "game_end"
    end = app.root.get_screen("game_end")
    sc = ctrl.view.score(ctrl.game, ctrl.state)
    assert end.total_labels["p1"].text == str(sc["p1"]["total"])
    assert "The last technology was bought." in ctrl.view.end_reasons(ctrl.game, ctrl.state, ctrl.setup)
    drv.shot("civ-card-game-game-end")
    final = ctrl.state.to_dict()
    drv.press(end.ids.home)
    home = app.root.get_screen("home")
    rows = [r for r in drv.find(home, "SavedGameRow") if r.title.startswith("Civilization: The Card Game")]
    assert len(rows) == 1
    drv.press(rows[0].children[0])
    assert app.ctrl.state.to_dict() == final


def test_civ_card_game_played_on_the_tablet(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_civ_card_game_played_on_the_tablet", tmp_path, timeout=400)
