"""The economy step panels in the real app (Xvfb): games are built headlessly up to the step
(economy_games.py), resumed in the app, and the panel's own buttons are pressed. Each panel
dispatch must change the engine's state as the panel said and be journaled with source "ui".
Screenshots: test-artifacts/app/panel-<step>.png (1280x800) and panel-build-800x480.png."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(240)


# ---------------------------------------------------------------- helpers (run in the child)
def _open(app, drv, until, policy="quiet", seed=3):
    import economy_games as E

    E.resume_in_app(app, E.new_game(app.games_dir, seed, until, getattr(E, policy)))
    drv.pump(3)
    assert app.root.current == "game"
    return drv.game_screen(app)


def _panel(scr, cls):
    p = scr._panel
    assert type(p).__name__ == cls, f"expected {cls}, the dashboard shows {type(p).__name__}"
    assert p in scr.ids.step_area.children
    return p


def _buttons(panel, prefix=""):
    return [w for w in panel.walk(restrict=True)
            if type(w).__name__ == "EcoButton" and w.key.startswith(prefix)]


def _button(panel, key):
    found = [b for b in _buttons(panel) if b.key == key]
    assert len(found) == 1, f"no single button {key!r}: {[b.key for b in _buttons(panel)]}"
    return found[0]


def _res(app, seat):
    return dict(app.ctrl.state.players[seat].res)


def _diff(before, after):
    return {r: after[r] - before[r] for r in after if after[r] != before[r]}


def _press_logged(app, drv, button, expect_type):
    """Press a panel button, then the dashboard's one Confirm; the journal gains exactly one
    entry, of source 'ui' (none before Confirm)."""
    n = len(app.ctrl.journal)
    drv.press(button)
    assert len(app.ctrl.journal) == n, f"{button.key}: applied before Confirm"
    drv.press(drv.game_screen(app).ids.confirm)
    acts = app.ctrl.journal.actions()
    assert len(acts) == n + 1, f"{button.key}: the press did not dispatch ({drv.game_screen(app).message})"
    assert acts[-1].source == "ui" and acts[-1].action["type"] == expect_type, (acts[-1].source, acts[-1].action)
    return acts[-1].action


def _end_step(app, drv):
    """Through the generic action list (the manual fallback): 'done' + Confirm."""
    scr = drv.game_screen(app)
    done = [b for b in drv.legal_buttons(scr) if b.action["type"] == "end_step"]
    drv.press(done[0])
    drv.press(scr.ids.confirm)


def _help_shown(panel, drv, step):
    from companion.games.civmint.ui.economy_panels import step_help

    drv.press(panel.ids.help_toggle)
    drv.pump(3)
    assert panel.show_help and panel.ids.help.text == step_help(step) and panel.ids.help.height > 40


# ---------------------------------------------------------------- scenarios
def scenario_turn(app, drv):
    """One player's turn through the panels: production picks, a trade, upkeep, a build, a
    research and an aspect improvement."""
    from companion.games.civmint.ui import economy_model as M
    from companion.games.civmint.ui.economy_panels import fmt

    import economy_games as E

    scr = _open(app, drv, E.at_step("production"))
    seat = app.ctrl.game.actor(app.ctrl.state)
    # -- production: the pick changes what the engine gives, and the total shown is what arrives
    pan = _panel(scr, "ProductionPanel")
    picks = _buttons(pan, "pick:")
    assert picks, "a Settler with a choice of resource is expected at the start"
    default_total = M.production(app.ctrl, pan.picks)["total"]
    other = [b for b in picks if not b.selected][0]
    _, uid, res = other.key.split(":")
    drv.press(other)
    pan = _panel(scr, "ProductionPanel")
    assert pan.picks[int(uid)] == res and _button(pan, other.key).selected
    produce = _button(pan, "produce")
    shown = M.production(app.ctrl, pan.picks)["total"]
    assert fmt(shown) in produce.text
    assert shown != default_total and shown.get(res, 0) == default_total.get(res, 0) + 1
    _help_shown(pan, drv, "production")
    drv.shot("panel-production")
    before = _res(app, seat)
    act = _press_logged(app, drv, produce, "produce")
    assert act["picks"][uid] == res
    assert _diff(before, _res(app, seat)) == shown
    # -- trade at the shown rate
    pan = _panel(scr, "TradePanel")
    rate = app.ctrl.game.bonuses(app.ctrl.state, seat)["trade_rate"]
    assert f"rate: [b]{rate} : 1[/b]" in " ".join(w.text for w in pan.walk() if type(w).__name__ == "EcoText")
    gives = [b for b in _buttons(pan, "give:") if not b.disabled]
    assert gives, "production should leave enough of something to trade"
    give = gives[0].key.split(":")[1]
    for b in _buttons(pan, "give:"):  # enabled exactly when the engine has a legal trade with it
        r = b.key.split(":")[1]
        assert b.disabled == (not any(a["type"] == "trade" and a["give"] == r for a in app.ctrl.legal_actions()))
    drv.press(gives[0])
    pan = _panel(scr, "TradePanel")
    get = [b for b in _buttons(pan, "get:") if not b.disabled][0]
    drv.press(get)
    get = get.key.split(":")[1]
    pan = _panel(scr, "TradePanel")
    trade = _button(pan, "trade")
    assert f"give {rate} " in trade.text and "get 1 " in trade.text
    drv.shot("panel-trade")
    before = _res(app, seat)
    _press_logged(app, drv, trade, "trade")
    assert _diff(before, _res(app, seat)) == {give: -rate, get: 1}
    _end_step(app, drv)
    # -- upkeep (nothing due at the start)
    pan = _panel(scr, "UpkeepPanel")
    assert "No upkeep due" in " ".join(w.text for w in pan.walk() if type(w).__name__ == "EcoText")
    _end_step(app, drv)
    # -- build a Settler from the panel
    pan = _panel(scr, "BuildPanel")
    settlers = _buttons(pan, "build:settler:")
    assert settlers and all(not b.disabled for b in _buttons(pan, "build:") + _buttons(pan, "upgrade:"))
    legal = [a for a in app.ctrl.legal_actions() if a["type"] in ("build", "upgrade")]
    assert len(_buttons(pan, "build:") + _buttons(pan, "upgrade:")) == len(legal)
    drv.shot("panel-build")
    n_units = len(app.ctrl.game.units_of(app.ctrl.state, seat, "settler"))
    before = _res(app, seat)
    cost = M.outcome(app.ctrl, {"type": "build", "player": seat, "kind": "settler",
                                "space": settlers[0].key.split(":")[2]})[seat]
    _press_logged(app, drv, settlers[0], "build")
    assert len(app.ctrl.game.units_of(app.ctrl.state, seat, "settler")) == n_units + 1
    assert _diff(before, _res(app, seat)) == cost
    while app.ctrl.state.step != "research":
        _end_step(app, drv)
    # -- research
    pan = _panel(scr, "ResearchPanel")
    ok = [b for b in _buttons(pan, "research:") if not b.disabled]
    assert ok, "2 research points buy a level-2 space"
    track = ok[0].key.split(":")[1]
    dev = app.ctrl.game.view(app.ctrl.state)["players"][seat]["development"][track]
    assert f"cost {dev['next_cost']}" in ok[0].text
    drv.shot("panel-research")
    _press_logged(app, drv, ok[0], "research")
    assert app.ctrl.state.players[seat].dev[track] == dev["position"] + 1
    _end_step(app, drv)
    # -- taxation: one aspect improvement, then every improvement is refused
    pan = _panel(scr, "TaxationPanel")
    ok = [b for b in _buttons(pan, "improve:") if not b.disabled]
    assert ok, "taxes leave enough Money for a level-2 aspect"
    track = ok[0].key.split(":")[1]
    lv = app.ctrl.state.players[seat].asp[track]
    drv.shot("panel-taxation")
    _press_logged(app, drv, ok[0], "improve_aspect")
    assert app.ctrl.state.players[seat].asp[track] == lv + 1
    pan = _panel(scr, "TaxationPanel")
    assert all(b.disabled for b in _buttons(pan, "improve:"))


def scenario_upkeep(app, drv):
    """Unpayable upkeep: the player chooses downgrades/disbands until Pay is possible, then pays."""
    from companion.games.civmint.ui import economy_model as M

    import economy_games as E

    scr = _open(app, drv, E.unpayable_upkeep, "hungry", seed=5)
    seat = app.ctrl.game.actor(app.ctrl.state)
    pan = _panel(scr, "UpkeepPanel")
    assert not _buttons(pan, "pay")
    texts = " ".join(w.text for w in pan.walk() if type(w).__name__ == "EcoText")
    assert "Cannot pay" in texts
    drv.shot("panel-upkeep")
    chosen = 0
    while not _buttons(_panel(scr, "UpkeepPanel"), "pay"):
        pan = _panel(scr, "UpkeepPanel")
        cuts = _buttons(pan, "downgrade:") + _buttons(pan, "disband:")
        assert cuts, "unpayable upkeep but nothing to downgrade"
        info = {f"{c['action']['type']}:{c['action']['unit']}": c for c in M.upkeep(app.ctrl)["cuts"]}
        best = [b for b in cuts if info[b.key]["payable_after"]] or cuts
        before = _res(app, seat)
        _press_logged(app, drv, best[0], best[0].key.split(":")[0])
        assert _diff(before, _res(app, seat)) == info[best[0].key]["change"]
        chosen += 1
        assert chosen < 10
    pan = _panel(scr, "UpkeepPanel")
    pay = _button(pan, "pay")
    need = app.ctrl.game.upkeep(app.ctrl.state, seat)
    before = _res(app, seat)
    shown = M.upkeep(app.ctrl)["pay_outcome"]
    _press_logged(app, drv, pay, "pay_upkeep")
    assert _diff(before, _res(app, seat)) == shown and sum(-v for v in shown.values()) == sum(need.values())
    pan = _panel(scr, "UpkeepPanel")
    assert "Upkeep paid" in " ".join(w.text for w in pan.walk() if type(w).__name__ == "EcoText")
    assert app.ctrl.check({"type": "end_step", "player": seat}) is None


def scenario_offer(app, drv):
    """Trade with the opponent: the offer form, then the opponent's Accept on the panel."""
    import economy_games as E

    scr = _open(app, drv, E.can_offer_trade, "trader", seed=2)
    seat = app.ctrl.game.actor(app.ctrl.state)
    opp = "p2" if seat == "p1" else "p1"
    pan = _panel(scr, "TradePanel")
    mine, theirs = _res(app, seat), _res(app, opp)
    cap = 10  # below the cap on both sides, so the exchange is exact
    give = [r for r in ("food", "wood", "stone", "metal") if mine[r] > 0 and theirs[r] < cap][0]
    get = [r for r in ("food", "wood", "stone", "metal") if theirs[r] > 0 and mine[r] < cap and r != give][0]
    assert _button(pan, "offer").disabled  # an empty offer is refused by the engine
    drv.press(_button(pan, f"offer_give:{give}"))
    drv.press(_button(_panel(scr, "TradePanel"), f"offer_get:{get}"))
    pan = _panel(scr, "TradePanel")
    offer = _button(pan, "offer")
    assert _button(pan, f"offer_give:{give}").text.endswith(" 1") and _button(pan, f"offer_get:{get}").text.endswith(" 1")
    pan.ids.scroll.scroll_y = 0  # the offer form is at the bottom of the panel
    drv.shot("panel-trade-opponent")
    _press_logged(app, drv, offer, "trade_opponent")
    pan = _panel(scr, "TradePanel")
    assert app.ctrl.game.actor(app.ctrl.state) == opp and "answers" in pan.title
    drv.shot("panel-trade-offer")
    text = " ".join(w.text for w in pan.walk() if type(w).__name__ == "EcoText")
    # the answering player reads the offer from their side
    assert f"give [b]1 {get.capitalize()}[/b], get [b]1 {give.capitalize()}[/b]" in text, text
    before = {s: _res(app, s) for s in (seat, opp)}
    _press_logged(app, drv, _button(pan, "accept_trade"), "accept_trade")
    assert _diff(before[seat], _res(app, seat)) == {give: -1, get: 1}
    assert _diff(before[opp], _res(app, opp)) == {give: 1, get: -1}


def scenario_small(app, drv):
    """800x480: the panel sits in the one scrolling now column, which starts at its top."""
    from kivy.metrics import dp

    import economy_games as E

    scr = _open(app, drv, E.at_step("build"))
    pan = _panel(scr, "BuildPanel")
    drv.pump(3)
    # the right column scrolls as one: at the top, the panel starts inside the visible column
    right = scr.ids.now_scroll
    right.scroll_y = 1
    drv.pump(2)
    pan_top = pan.to_window(pan.x, pan.top)[1]
    col_top = right.to_window(right.x, right.top)[1]
    assert pan_top <= col_top + 1
    print("800x480: panel", pan.height, "body", pan.ids.scroll.height, "right column", right.height)
    assert right.height >= dp(150), f"right column squeezed to {right.height}px"
    assert all(b.height >= dp(48) for b in drv.legal_buttons(scr))
    drv.shot("panel-build-800x480")
    drv.press(pan.ids.collapse)
    assert pan.ids.scroll.height == 0 and not pan.expanded
    drv.shot("panel-build-800x480-collapsed")


# ---------------------------------------------------------------- tests
def test_turn_through_panels(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_turn", tmp_path)


def test_unpayable_upkeep_resolved_by_downgrades(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_upkeep", tmp_path)


def test_trade_offer_and_accept(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_offer", tmp_path)


def test_small_screen(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_small", tmp_path, size="800x480")
