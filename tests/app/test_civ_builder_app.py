"""Civ Builder through the real app under Xvfb: a whole scripted game of the full 12 rounds for two
players, set up on the New game screen and played through the dashboard's generic decision area
(civilisation choice, privileges, specials) and the game's own panels: the set-up dice (one die
from a well, two thrown together, the rest in the form of all a player's dice), the trade timer
(in the header, kept when the panel is rebuilt), a gift, a hand-count correction, and melds built
by counts whose verdict is live (a legal meld waits for the one Confirm). A shorter scenario
builds a meld by counts at each supported size, for the screenshots."""
import os
import sys

import pytest

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
    # the 22 setup dice: one from a well, two thrown together (well 1 then well 2), the rest in the form
    assert scr.dice_prompt == "Ana: Conquest, 1 die", scr.dice_prompt
    assert "well 1 Conquest, well 2 Trade" in scr.prompt, scr.prompt
    app.board.vboard.roll(0, value=5, settle_ms=0)
    drv.wait_for(lambda: len(ctrl.journal) == 3, 10, "the well's die journaled")
    first = ctrl.journal.actions()[2]
    assert first.action == {"type": "roll_conquest", "die": 5} and first.source == "board"
    app.board.vboard.roll(0, value=2, settle_ms=0)
    app.board.vboard.roll(1, value=3, settle_ms=0)
    drv.wait_for(lambda: len(ctrl.journal) == 5, 10, "both wells journaled")
    two = [e.action for e in ctrl.journal.actions()[3:5]]
    assert two == [{"type": "roll_trade", "die": 2}, {"type": "roll_culture", "die": 3}], two
    panel = scr.ids.step_area.children[0]
    assert type(panel).__name__ == "CBRollsPanel" and "Ana's dice" in panel.title
    rows = [r for r in panel.ids.rows.children[::-1]]
    assert len(rows) == 11  # ten attributes and Middle East's extra die, each named
    names = [r.children[-1].text for r in rows]
    assert "Conquest" in names[0] and "Trade (extra)" in names[10], names
    assert rows[0].children[0].text == "[b]5[/b]  rolled", rows[0].children[0].text
    # enter Ana's 8 other dice in one form, out of order: the extra die first
    faces = {}
    for i, row in reversed(list(enumerate(rows))):
        picks = [b for b in row.children if type(b).__name__ == "CBPick"]
        if not picks:
            continue
        face = 1 + i % 6
        drv.press([b for b in picks if b.text == str(face)][0], frames=0)
        faces[i] = face
        panel = scr.ids.step_area.children[0]
        rows = [r for r in panel.ids.rows.children[::-1]]
    drv.pump(1)
    assert sorted(faces) == list(range(3, 11))
    drv.shot("civ-builder-setup-form")
    # one Confirm applies the whole form in the rules' order, one journal entry per die
    n = len(ctrl.journal)
    assert scr.pending_text.startswith("Confirm: Ana's dice: "), scr.pending_text
    drv.press(scr.ids.confirm, frames=1)
    assert len(ctrl.journal) == n + 8, scr.message
    assert ctrl.state.setup_seat == 1
    assert ctrl.state.setup_rolls["p1"] == [5, 2, 3] + [faces[i] for i in range(3, 11)]
    # Bo: the form in order, and the generic dice entry still works for one die
    assert scr.dice_prompt == "Bo: Conquest, 1 die"
    _dice(drv, scr, ctrl, 4)
    seen = []
    while ctrl.state.step == "setup_roll":
        panel = scr.ids.step_area.children[0]
        row = [r for r in panel.ids.rows.children[::-1]][len(ctrl.state.setup_rolls["p2"])]
        seen.append(row.children[-1].text)
        face = 1 + len(seen) % 6
        drv.press([b for b in row.children if getattr(b, "text", "") == str(face)][0], frames=1)
        n = len(ctrl.journal)
        drv.press(scr.ids.confirm, frames=1)
        assert len(ctrl.journal) == n + 1, scr.message
    assert "Trade" in seen[0] and "Government" in seen[-1] and len(seen) == 10, seen
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
                from companion.games.civ_builder import trade_clock

                assert panel.timer_text in ("4:00 left", "3:59 left"), panel.timer_text
                assert "(highest Trade) may look at any hand" in panel.info
                assert "trade timer: [b]" in scr.header, scr.header
                n = len(ctrl.journal)
                real = trade_clock._now
                trade_clock._now = lambda: real() + 65  # a minute later
                panel._tick(1.0)  # the clock only moves the display: nothing is journaled
                assert panel.timer_text in ("2:55 left", "2:54 left"), panel.timer_text
                assert "trade timer: [b]2:5" in scr.header and len(ctrl.journal) == n
                # the panel rebuilt (the game left and opened again): the same clock
                scr._panel_key = None
                scr.refresh()
                again = scr.ids.step_area.children[0]
                assert again is not panel and again.timer_text.startswith("2:5"), again.timer_text
                panel = again
                # a gift: Ana gives Bo 2 cards (waits for Confirm)
                gift = panel.ids.gift
                picks = [b for b in gift.walk(restrict=True) if type(b).__name__ == "CBPick"]
                drv.press([b for b in picks if b.role == "giver" and b.text == "Ana"][0], frames=1)
                picks = [b for b in gift.walk(restrict=True) if type(b).__name__ == "CBPick"]
                drv.press([b for b in picks if b.role == "taker" and b.text == "Bo"][0], frames=1)
                drv.press(panel.ids.gift_count.ids.plus, frames=1)
                assert scr.pending_text == "Confirm: Ana gives 2 cards to Bo", scr.pending_text
                hands = dict(ctrl.state.hand)
                drv.press(scr.ids.confirm, frames=1)
                assert ctrl.state.hand == {"p1": hands["p1"] - 2, "p2": hands["p2"] + 2}
                panel = scr.ids.step_area.children[0]
                assert scr.pending is None and panel.giver is None  # the form starts empty again
                # the hand count corrected where the counts show: Bo really holds one card less
                assert f"Bo {hands['p2'] + 2} cards" in panel.fix.head.text, panel.fix.head.text
                drv.press(panel.fix.toggle, frames=1)
                bo = [r for r in panel.fix.rows.children if getattr(r, "field", "") == "p2"][0]
                drv.press(bo.ids.minus, frames=1)
                assert scr.pending_text == f"Confirm: Correction: Bo holds {hands['p2'] + 1} cards", scr.pending_text
                drv.shot("civ-builder-trade-panel")
                drv.press(scr.ids.confirm, frames=1)
                last = ctrl.journal.actions()[-1]
                assert last.action == {"type": "correct_hand", "seat": "p2", "count": hands["p2"] + 1}
                assert last.source == "ui" and ctrl.state.hand["p2"] == hands["p2"] + 1
                trade_clock._now = real
                trade_panel_checked = True
                panel = scr.ids.step_area.children[0]
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
                # a second meld of one card: the verdict says why and nothing waits for Confirm
                drv.press(panel.ids.cards.ids.minus, frames=1)
                assert panel.cards == 1 and "2nd meld" in panel.verdict and scr.pending is None, panel.verdict
                assert not any(t.endswith("(1 Culture)") for t in _buttons(drv, scr))
                assert "wild" in panel.ids.leader.label
                meld_panel_checked = True
                drv.shot("civ-builder-meld-panel")
            while panel.why and panel.total() < s.hand[g.actor(s)]:
                drv.press(panel.ids.cards.ids.plus, frames=1)
            if panel.why:
                drv.press(panel.ids.back, frames=1)
                drv.press(scr.ids.confirm, frames=1)
                continue
            n = len(ctrl.journal)
            assert scr.pending == panel.action() and scr.pending_text.startswith(f"Confirm: {who}: meld "), scr.pending_text
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


def scenario_civ_builder_meld_by_counts(app, drv):
    """A meld built by counts on the meld panel at the window's size: Ana (highest in every
    attribute, so Disasters and Seafaring cards are wild for her) builds a Trade meld of 2 Trade
    cards, a Leader and a Seafaring card; the verdict follows every tap (an illegal count says why
    and nothing waits for Confirm); Confirm journals one meld. Screenshots of the set-up form, the
    trade panel and the meld builder; the layout check finds nothing in the game's panels."""
    from kivy.core.window import Window
    from layout_check import check_window

    size = f"{Window.width}x{Window.height}"
    drv.press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    drv.press([b for b in drv.find(ng, "GameChoice") if b.game_id == GAME_ID][0])
    ng.name_input("p1").text = "Ana"
    ng.name_input("p2").text = "Bo"
    drv.press(ng.ids.start)
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    if scr.portrait:
        scr.show_left("now")

    def no_findings(where):
        drv.pump(2)
        bad = [str(f) for f in check_window() if "CB" in f.widget or "Plan" in f.widget]
        assert not bad, (where, bad)

    ctrl.dispatch({"type": "choose_civ", "player": "p1", "civ": "middle_east"}, "ui")
    ctrl.dispatch({"type": "choose_civ", "player": "p2", "civ": "china"}, "ui")
    drv.pump(2)
    assert type(scr.ids.step_area.children[0]).__name__ == "CBRollsPanel"
    no_findings("set-up form")
    drv.shot(f"civ-builder-setup-form-{size}")
    while ctrl.state.step == "setup_roll":
        seat = ctrl.game.awaited_roll(ctrl.state)[0]
        _, attr, _ = ctrl.game.awaited_roll(ctrl.state)
        ctrl.dispatch({"type": "roll_" + attr, "die": 6 if seat == "p1" else 1}, "ui")
    if ctrl.state.step == "sixth_card":  # Ana holds the highest Agriculture
        ctrl.dispatch({"type": "decline_sixth", "player": "p1"}, "ui")
    drv.pump(2)
    assert ctrl.state.step == "trade" and ctrl.state.order[0] == "p1"
    no_findings("trade panel")
    drv.shot(f"civ-builder-trade-{size}")
    ctrl.dispatch({"type": "end_trade", "player": "p1"}, "ui")
    ctrl.dispatch({"type": "correct_hand", "seat": "p1", "count": 7}, "ui")  # room for a big meld
    ctrl.dispatch({"type": "pick_meld", "player": "p1", "attribute": "trade"}, "ui")
    drv.pump(2)
    panel = scr.ids.step_area.children[0]
    assert type(panel).__name__ == "CBMeldPanel"
    ids = panel.ids
    assert ids.disasters.opacity == 1 and ids.seas.opacity == 1  # wild for Ana now
    assert "wild" in ids.leader.label and "wild" in ids.seas.label
    assert scr.pending == {"type": "meld", "player": "p1", "attribute": "trade", "cards": 1}  # the least legal meld
    drv.press(ids.cards.ids.minus, frames=1)
    assert "Not a legal meld" in panel.verdict and scr.pending is None, panel.verdict
    drv.press(ids.cards.ids.plus, frames=1)
    drv.press(ids.cards.ids.plus, frames=1)
    drv.press(ids.leader.ids.plus, frames=1)
    assert ids.leader.ids.plus.disabled  # at most one Leader
    drv.press(ids.seas.ids.plus, frames=1)
    want = {"type": "meld", "player": "p1", "attribute": "trade", "cards": 2, "leader": 1, "seas": 1}
    assert scr.pending == want and "Legal: 4 cards" in panel.verdict, (scr.pending, panel.verdict)
    assert scr.pending_text == ("Confirm: Ana: meld Trade of 4 cards (2 Trade + 1 Leader (wild) + "
                                "1 Seafaring (wild))"), scr.pending_text
    no_findings("meld builder")
    drv.shot(f"civ-builder-meld-{size}")
    n = len(ctrl.journal)
    drv.press(scr.ids.confirm, frames=1)
    assert [e.action for e in ctrl.journal.actions()[n:]] == [want]
    assert ctrl.state.attrs["p1"]["trade"] == 6 + 6 + 4 and ctrl.state.hand["p1"] == 3


@pytest.mark.parametrize("size", ["800x480", "1280x800", "412x915"])
def test_civ_builder_meld_by_counts(xdisplay, tmp_path, size):
    run_scenario(__file__, "scenario_civ_builder_meld_by_counts", tmp_path, size=size)
