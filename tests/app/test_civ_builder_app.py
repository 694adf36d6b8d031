"""Civ Builder through the real app under Xvfb: a whole scripted game of the full 12 rounds for two
players, set up on the New game screen and played through the dashboard's generic decision area
(civilisation choice, dice entry, privileges, specials) and the game's own panels (the trade timer,
the meld entry that enables its button only for legal melds); the first setup die comes from a
dice well of the virtual board."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

GAME_ID = "civ_builder"


def _buttons(drv, scr):
    return {b.text: b for b in drv.list_buttons(scr)}


def _press_legal(drv, scr, pick):
    """Select the legal action whose label `pick` chooses, confirm it, check it was journaled."""
    buttons = _buttons(drv, scr)
    text = pick(list(buttons))
    drv.press(buttons[text], frames=1)
    assert scr.pending_text == f"Confirm: {text}", (scr.pending_text, text)
    drv.press(scr.ids.confirm, frames=1)


def _dice(drv, scr, ctrl, value):
    entry = scr.ids.dice_entry
    assert entry.opacity == 1 and not entry.disabled and entry.count == 1
    while entry.value1 < value:
        drv.press(entry.ids.plus1, frames=0)
    while entry.value1 > value:
        drv.press(entry.ids.minus1, frames=0)
    n = len(ctrl.journal)
    drv.press(entry.ids.enter, frames=1)
    assert len(ctrl.journal) == n, "the dice wait for Confirm"
    drv.press(scr.ids.confirm, frames=1)
    assert len(ctrl.journal) == n + 1, scr.message


def scenario_civ_builder_full_game(app, drv):
    drv.wait_for(lambda: app.board.status()["state"] == "paired", 20, "pairing")
    drv.press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    choice = [b for b in drv.find(ng, "GameChoice") if b.game_id == GAME_ID]
    assert choice and "Civ Builder" in choice[0].text and "2-8 players" in choice[0].text
    drv.press(choice[0])
    assert ng.game_id == GAME_ID and ng.counts == [str(n) for n in range(2, 9)]
    ng.name_input("p1").text = "Ana"
    ng.name_input("p2").text = "Bo"
    drv.press(ng.ids.start)
    assert app.root.current == "game"
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    assert ctrl.module.id == GAME_ID and len(ctrl.journal) == 0
    g = ctrl.game

    # setup: civilisations on the generic decision area
    assert "Ana: choose a civilisation" in scr.prompt
    _press_legal(drv, scr, lambda ts: "Ana: Middle East (extra Trade)")
    assert "Ana: Middle East (extra Trade)" not in _buttons(drv, scr) and "Bo: Middle East (extra Trade)" not in _buttons(drv, scr)
    _press_legal(drv, scr, lambda ts: "Bo: China (extra Government)")
    # the 22 setup dice, one at a time, each prompt naming the player and the attribute
    assert scr.dice_prompt == "Ana: Conquest, 1 die", scr.dice_prompt
    app.board.vboard.roll(0, value=5, settle_ms=0)
    drv.wait_for(lambda: len(ctrl.journal) == 3, 10, "the well's die journaled")
    first = ctrl.journal.actions()[2]
    assert first.action == {"type": "roll_conquest", "die": 5} and first.source == "board"
    seen = []
    while ctrl.state.step == "setup_roll":
        seen.append(scr.dice_prompt)
        _dice(drv, scr, ctrl, 1 + len(seen) % 6)
    assert seen[0] == "Ana: Trade, 1 die" and seen[1] == "Ana: Culture, 1 die" and seen[9] == "Ana: Trade, 1 die"  # Middle East's extra die
    assert seen[10] == "Bo: Conquest, 1 die" and seen[-1] == "Bo: Government, 1 die"
    drv.shot("civ-builder-setup-done")

    meld_panel_checked = trade_panel_checked = False
    rounds_seen = set()
    presses = 0
    while not g.is_over(ctrl.state):
        s = ctrl.state
        presses += 1
        assert presses < 1500, s.step
        if scr.awaiting_dice:
            assert "Initiative roll-off, 1 die" in scr.dice_prompt
            _dice(drv, scr, ctrl, 1 + presses % 6)
            continue
        step, who = s.step, ctrl.name(g.actor(s))
        if s.round not in rounds_seen:
            rounds_seen.add(s.round)
            assert f"Round {s.round}/12" in scr.header and "order: " in scr.header
            cards = drv.find(scr.ids.notice_area, "RoundSummaryCard")
            if s.round == 1:
                assert not cards  # no card for the setup
            else:  # the score phase of the round that ended, attribute by attribute
                assert cards and f"Round {s.round - 1} scored" in cards[0].title, [c.title for c in cards]
                band = 1 if s.round - 1 <= 4 else (2 if s.round - 1 <= 8 else 3)
                assert f"{band} VP per attribute majority" in cards[0].title
                rows = [w.text for w in drv.find(cards[0], "SummaryRow")]
                assert any(r.startswith("Conquest: ") for r in rows) and len(rows) >= 12, rows
                if s.round == 6:
                    drv.shot("civ-builder-round-summary")
        if step == "trade":
            panel = scr.ids.step_area.children[0]
            assert type(panel).__name__ == "CBTradePanel"
            if not trade_panel_checked:
                assert panel.timer_text.startswith("4:00") or panel.timer_text.startswith("3:5")
                assert "(highest Trade) may look at any hand" in panel.info
                n = len(ctrl.journal)
                left = panel.remaining
                panel._tick(1.0)  # the clock only moves the display: nothing is journaled
                assert panel.remaining == left - 1 and len(ctrl.journal) == n and ctrl.state.step == "trade"
                trade_panel_checked = True
                drv.shot("civ-builder-trade-panel")
            n = len(ctrl.journal)
            drv.press(panel.ids.end_trade, frames=1)
            drv.press(scr.ids.confirm, frames=1)
            assert len(ctrl.journal) == n + 1 and ctrl.state.step != "trade"
        elif step == "turn":
            if s.melds == 0 and s.hand[g.actor(s)] > 0:
                attr = ("Trade", "Culture", "Engineering", "Seafaring", "Conquest",
                        "Religion", "Science", "Agriculture", "Government", "Equestrian")[s.round % 10]
                _press_legal(drv, scr, lambda ts: f"{who}: meld {attr}")
            elif s.melds == 1 and s.hand[g.actor(s)] >= 2:
                _press_legal(drv, scr, lambda ts: f"{who}: meld Culture")
            else:
                _press_legal(drv, scr, lambda ts: f"{who}: end turn")
        elif step == "meld":
            panel = scr.ids.step_area.children[0]
            assert type(panel).__name__ == "CBMeldPanel"
            if not meld_panel_checked and s.melds == 1:
                # a second meld of one card: the panel says why and keeps its button off
                assert panel.cards == 1 and panel.ids.ok.disabled and "2nd meld" in panel.why
                assert not any(t.endswith("(1 Culture)") for t in _buttons(drv, scr))
                meld_panel_checked = True
                drv.shot("civ-builder-meld-panel")
            while panel.why and panel.cards < s.hand[g.actor(s)]:
                panel.change("cards", 1)
            if panel.why:
                _press_legal(drv, scr, lambda ts: f"{who}: back (no meld)")
                continue
            n = len(ctrl.journal)
            drv.press(panel.ids.ok, frames=1)
            drv.press(scr.ids.confirm, frames=1)
            assert len(ctrl.journal) == n + 1 and ctrl.journal.actions()[-1].action["type"] == "meld"
        elif step == "special":
            _press_legal(drv, scr, lambda ts: sorted(t for t in ts if "skip" not in t)[0]
                         if any("skip" not in t for t in ts) else ts[0])
        else:  # sixth card, conquest points, science point, equestrian: the first option listed
            _press_legal(drv, scr, lambda ts: ts[0])
        for problem in g.status(ctrl.state):
            raise AssertionError(problem)
    assert meld_panel_checked and trade_panel_checked and rounds_seen == set(range(1, 13))
    s = ctrl.state
    assert s.round == 12 and s.over
    summ = ctrl.view.round_summary(g, ctrl.setup, ctrl.session.history, 5)
    assert "2 VP per attribute majority" in summ["title"]
    drv.pump(3)
    assert app.root.current == "game_end"
    end = app.root.get_screen("game_end")
    res = g.result(s)
    want = f"{ctrl.name(res['winner'])} wins" if res["winner"] else "Shared victory"
    assert want in end.headline, end.headline
    assert end.total_labels["p1"].text == str(s.vp["p1"]) and end.total_labels["p2"].text == str(s.vp["p2"])
    drv.shot("civ-builder-game-end")
    # the save replays to the same state
    from companion.controller import GameController

    again = GameController.open(ctrl.path)
    assert g.view(again.state) == g.view(s)
    again.close()


def test_civ_builder_full_game_through_the_app(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_civ_builder_full_game", tmp_path, board="virtual", timeout=600)
