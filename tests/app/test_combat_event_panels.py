"""Combat wizard and Global Event panels: headless checks of their data (combat_model, event_model)
against the engine, and GUI scenarios in the real app (one Kivy window per scenario process).

Games are reached by a seeded, aggressive legal-action policy (below) from a seeded game, so the
same combat / event comes up every run: seed 115 fights at r4c2 in round 4 and its attacker must
choose a retreat; seed 3 rolls its round-2 Global Event with Abundant Resources possible.
"""
import json
import os
import sys
from collections import deque

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
import economy_games as E  # noqa: E402

from companion.games.civmint import labels as L  # noqa: E402
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(240)

COMBAT_SEED = 115
EVENT_SEED = 3
EVENTS_JSON = os.path.join(ROOT, "companion", "games", "civmint", "data", "events.json")


# ------------------------------------------------------------------------------ game driving
def _dist(board, src):
    d = {src: 0}
    q = deque([src])
    while q:
        x = q.popleft()
        for y in board.adj[x]:
            if y not in d:
                d[y] = d[x] + 1
                q.append(y)
    return d


def policy(c, rng):
    """A legal action: attack when possible, march military toward / into the enemy, build military."""
    s = c.state
    acts = c.legal_actions()
    seat = c.game.actor(s)
    other = [a for a in acts if a["type"] != "end_step"]
    ends = [a for a in acts if a["type"] == "end_step"]
    att = [a for a in acts if a["type"] == "attack"]
    if att:
        return rng.choice(att)
    if s.step == "move" and other:
        opp = "p2" if seat == "p1" else "p1"
        dm = _dist(s.board, s.board.home[opp])
        best = []
        for a in other:
            if a["type"] != "move":
                continue
            u = s.units[a["unit"]]
            mil = u.kind in ("infantry", "cavalry", "artillery")
            if mil and any(x.owner == opp and not x.carrier for x in c.game.units_at(s, a["to"])):
                return a
            if (mil or u.kind == "settler") and dm.get(a["to"], 99) < dm.get(u.space, 99):
                best.append(a)
        if best:
            return rng.choice(best)
        return ends[0] if ends else rng.choice(acts)
    mil = [a for a in other if a["type"] in ("build", "upgrade")
           and a.get("kind", a.get("to")) in ("infantry", "cavalry", "artillery", "settler")]
    if mil and rng.random() < 0.9:
        return rng.choice(mil)
    return rng.choice(other) if other and (not ends or rng.random() < 0.66) else (ends or acts)[0]


def drive(c, seed, stop, limit=1500):
    """Play the policy (virtual dice when awaited) until stop(c) is true."""
    E.play_until(c, stop, policy, seed, limit)


def at_attack(c):
    return c.state.step == "combat" and not c.state.combat and any(
        a["type"] == "attack" for a in c.legal_actions())


def at_event_roll(round_):
    return lambda c: c.state.step == "event_roll" and c.state.round == round_


def combat_game(directory):
    from companion.controller import GameController

    c = GameController.new(directory, ("Ann", "Bob"), ("blue", "red"), seed=COMBAT_SEED, max_rounds=None)
    drive(c, COMBAT_SEED, at_attack)
    return c


def event_game(directory):
    from companion.controller import GameController

    c = GameController.new(directory, ("Ann", "Bob"), ("blue", "red"), seed=EVENT_SEED, max_rounds=None)
    drive(c, EVENT_SEED, at_event_roll(2))
    return c


def gather_dice(c):
    """Event dice giving someone a several-space Abundant Resources choice (asked of the engine)."""
    g = c.game
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            s2 = g.apply(c.state, g.action_from_dict({"type": "roll_event", "dice": [d1, d2]}))
            acts = [a.to_dict() for a in g.legal_actions(s2)] if s2.step == "event_choice" else []
            if acts and acts[0]["type"] == "event_gather" and len(acts) > 1 and len(acts[0]["spaces"]) > 1:
                return d1, d2
    raise AssertionError("no event dice give a several-space gather choice")


def journal_types(c, n):
    return [e.action["type"] for e in c.journal.actions()[-n:]]


# ------------------------------------------------------------------------------ headless: models
def test_combat_model_follows_engine(tmp_path):
    from companion.games.civmint.ui import combat_model as M

    c = combat_game(tmp_path)
    try:
        legal = c.legal_actions()
        assert M.stage_of(c, legal) == "attack"
        groups = M.attack_choices(c, legal)
        offered = [o["action"] for g in groups for o in g["options"]]
        assert offered and all(a in legal for a in offered)
        assert sorted(map(repr, offered)) == sorted(repr(a) for a in legal if a["type"] == "attack")
        assert groups[0]["contested"] and groups[0]["target"] in c.game.contested_spaces(c.state)
        a = offered[0]
        u = c.state.units[a["unit"]]
        assert f"attack +{c.game.attack_bonus(c.state, u, a['target'])}" in groups[0]["options"][0]["text"]
        c.dispatch(a)
        legal = c.legal_actions()
        assert M.stage_of(c, legal) == "roll"
        b = M.battle(c)
        assert b["attacker"].id == a["unit"] and b["target"] == a["target"] and b["dice"] is None
        assert "well 1 = attacker" in M.dice_prompt("roll")
        assert M.roll_action(legal, 7, 1) is None
        roll = M.roll_action(legal, 1, 6)
        assert roll in legal
        c.dispatch(roll, "ui")
        legal = c.legal_actions()
        b = M.battle(c)
        assert M.stage_of(c, legal) == "cp" and b["dice"] == [1, 6]
        assert b["totals"] == list(c.state.combat["tot"])
        lo, hi = M.cp_range(legal)
        assert lo == 1 and hi == c.state.players[b["cp_turn"]].res["combat_power"]
        assert M.spend_action(legal, hi + 1) is None
        c.dispatch(M.spend_action(legal, 0))  # pass: the battle resolves
        lb = c.state.t["last_battle"]
        text = M.last_battle_text(c)
        assert f"rolled {lb['dice'][0]} (total {lb['totals'][0]})" in text
        assert c.name(lb["winner"]) + " won" in text
        legal = c.legal_actions()
        assert M.stage_of(c, legal) == "retreat"
        ch = M.choice_actions(c, legal)
        assert [o["action"]["to"] for o in ch] == c.state.combat["options"] and len(ch) > 1
        assert all(o["action"] in legal and o["text"].startswith("Retreat ") for o in ch)
        # the unit by kind and where to, as the table names them: never an id
        assert [o["text"].endswith(" to " + L.space_words(o["action"]["to"])) for o in ch] == [True] * len(ch)
        assert not any("#" in o["text"] for o in ch)
    finally:
        c.close()


def test_combat_model_defender_choice(tmp_path):
    """Seed 15 reaches a battle where the defender picks among several units."""
    from companion.games.civmint.ui import combat_model as M
    from companion.controller import GameController

    c = GameController.new(tmp_path, seed=15, max_rounds=None)
    try:
        drive(c, 15, lambda c: bool(c.state.combat) and c.state.combat["stage"] == "defend")
        legal = c.legal_actions()
        assert M.stage_of(c, legal) == "defend"
        b = M.battle(c)
        assert b["defender"] is None and b["defender_text"] == "(being chosen)"
        ch = M.choice_actions(c, legal)
        assert len(ch) > 1 and [o["action"] for o in ch] == [a for a in legal if a["type"] == "defend"]
        assert all(o["text"].startswith("Defend with the ") or o["text"].startswith("Defend with one of the ")
                   for o in ch), [o["text"] for o in ch]
        c.dispatch(ch[-1]["action"])
        assert M.stage_of(c, c.legal_actions()) == "roll"
        assert M.battle(c)["defender"].id == ch[-1]["action"]["unit"]
    finally:
        c.close()


def test_event_model_follows_engine(tmp_path):
    from companion.games.civmint.ui import event_model as M

    with open(EVENTS_JSON, encoding="utf-8") as f:
        data = json.load(f)
    for n in range(data["min"], data["max"] + 1):
        t = M.event_text(n)
        assert t and "{" not in t, (n, t)

    from companion.controller import GameController

    # seed 115, round 1: p1 has event bonus +1, so 6 + 6 is limited to 12

    c = GameController.new(tmp_path / "ev", seed=COMBAT_SEED, max_rounds=None)
    try:
        drive(c, COMBAT_SEED, at_event_roll(1))
        before = {p: c.game.bonuses(c.state, p)["event_bonus"] for p in ("p1", "p2")}
        assert M.player_events(c) == []
        legal = c.legal_actions()
        assert M.roll_action(legal, 6, 6) in legal
        c.dispatch(M.roll_action(legal, 6, 6), "ui")
        items = M.player_events(c)
        view = c.game.view(c.state)["events"]
        assert [it["seat"] for it in items] == list(c.state.order())
        for it in items:
            assert it["number"] == view[it["seat"]]["number"]
            assert it["event"] == view[it["seat"]]["name"] == data["events"][str(it["number"])]["name"]
            assert it["dice"] == [6, 6] and it["bonus"] == before[it["seat"]]
            line = M.roll_line(it)
            assert f"event bonus {before[it['seat']]:+d} -> event {it['number']}" in line
            assert ("limited to 1..12" in line) == (12 + before[it["seat"]] != it["number"])
        assert [it["status"] for it in items][0] == "choosing"
        ch = M.choice(c, c.legal_actions())
        assert ch["kind"] == "pick" and ch["seat"] == c.state.pending[0][0]
        assert all(o["action"] in c.legal_actions() for o in ch["options"])
    finally:
        c.close()

    c = event_game(tmp_path / "g")
    try:
        d1, d2 = gather_dice(c)
        c.dispatch(M.roll_action(c.legal_actions(), d1, d2), "ui")
        ch = M.choice(c, c.legal_actions())
        assert ch["kind"] == "multi" and ch["type"] == "event_gather" and ch["need"] == 2
        vals = [x["value"] for x in ch["candidates"]]
        assert set(vals) == {v for a in c.legal_actions() for v in a["spaces"]}
        good = M.multi_action(ch, vals[:2])
        assert c.check(good) is None
        assert c.check(M.multi_action(ch, vals[:1])) is not None
    finally:
        c.close()


# ------------------------------------------------------------------------------ GUI scenarios
def _panel(app, cls):
    scr = app.root.get_screen("game")
    found = [w for w in scr.ids.step_area.children if type(w).__name__ == cls]
    assert found, f"no {cls} on the dashboard (step {app.ctrl.state.step})"
    return found[0]


def _on_screen(w):
    """The whole widget is inside the window (not scrolled or pushed out of sight)."""
    from kivy.core.window import Window

    x, y = w.to_window(w.x, w.y)
    assert x >= -0.5 and y >= -0.5 and x + w.width <= Window.width + 0.5 \
        and y + w.height <= Window.height + 0.5, (w, x, y, w.size, Window.size)


def _in_view(w, sv):
    """w is inside the visible part of ScrollView sv (not scrolled away)."""
    _x, y = w.to_window(w.x, w.y)
    _sx, sy = sv.to_window(sv.x, sv.y)
    assert y >= sy - 0.5 and y + w.height <= sy + sv.height + 0.5, (w, y, w.height, sy, sv.height)


def _tap_toggle(w, drv):
    w._do_press()  # what a touch does to a ToggleButton before on_press
    w.dispatch("on_press")
    w.dispatch("on_release")
    drv.pump(2)


def scenario_combat(app, drv):
    from companion.games.civmint.ui import combat_model as M

    c = combat_game(app.games_dir)
    E.resume_in_app(app, c)
    ctrl = app.ctrl
    scr = app.root.get_screen("game")
    p = _panel(app, "CombatPanel")
    assert "[color=ffd24d]Choose attack" in p.stage_text
    cont = ctrl.game.contested_spaces(ctrl.state)
    assert "Contested: " in p.spaces_text and all(L.space_words(sp) in p.spaces_text for sp in cont)
    n0 = len(ctrl.journal)

    # 1. choose the attack: one button per legal attack, tap + Confirm
    btns = [w for w in p.ids.choices.children if type(w).__name__ == "ChoiceButton"]
    assert sorted(repr(b.action) for b in btns) == sorted(
        repr(a) for a in ctrl.legal_actions() if a["type"] == "attack")
    att = btns[-1]  # the first one listed
    drv.press(att)
    assert scr.pending_text.startswith("Confirm: ") and len(ctrl.journal) == n0  # one Confirm: the bar's
    drv.press(scr.ids.confirm)
    assert ctrl.state.combat and ctrl.state.combat["att"] == att.action["unit"]
    assert len(ctrl.journal) == n0 + 1 and ctrl.journal.actions()[-1].action == att.action
    if ctrl.state.combat["stage"] == "defend":  # the defender chooses
        d = [w for w in p.ids.choices.children if type(w).__name__ == "ChoiceButton"][-1]
        drv.press(d)
        drv.press(scr.ids.confirm)
        assert journal_types(ctrl, 1) == ["defend"]
    assert ctrl.state.combat["stage"] == "roll"
    assert "[color=ffd24d]Roll" in p.stage_text and p.show_dice
    assert "Roll 2 dice in the wells" in p.dice_text and scr.awaiting_dice
    b = M.battle(ctrl)
    assert f"attack +{b['attack_bonus']}" in p.battle_text
    for u in (b["attacker"], b["defender"]):  # each side by owner and kind, no unit number
        assert f"{ctrl.name(u.owner)}'s" in p.battle_text and L.nice(u.kind) in p.battle_text
    assert "#" not in p.battle_text
    drv.shot("panel-combat-roll")

    # 2. dice entered by touch: attacker 1, defender 6
    de = p.ids.dice_entry
    for _ in range(6):
        drv.press(de.ids.minus1, frames=0)
        drv.press(de.ids.plus2, frames=0)
    drv.pump(2)
    assert (de.value1, de.value2) == (1, 6)
    n1 = len(ctrl.journal)
    drv.press(de.ids.enter)
    drv.press(scr.ids.confirm)
    last = ctrl.journal.actions()[-1]
    assert len(ctrl.journal) == n1 + 1 and last.source == "ui"
    assert last.action == {"type": "roll_combat", "attacker": 1, "defender": 6}
    cb = ctrl.state.combat
    assert cb["stage"] == "cp" and cb["dice"] == (1, 6)
    assert f"Totals: attacker [b]{cb['tot'][0]}[/b], defender [b]{cb['tot'][1]}[/b]" in p.dice_text
    assert p.show_cp and not p.show_dice
    _on_screen(p.ids.cp_commit)

    # 3. Combat Power bidding: the first bidder spends the most it can (+ up to the limit), Commit
    seat = cb["cp_turn"]
    have = ctrl.state.players[seat].res["combat_power"]
    assert (p.cp_min, p.cp_max) == (1, have) and ctrl.name(seat) in p.cp_text
    for _ in range(have + 2):
        if not p.ids.cp_plus.disabled:
            drv.press(p.ids.cp_plus, frames=1)
    assert p.cp_amount == have and p.ids.cp_plus.disabled
    drv.shot("panel-combat")
    tot0 = cb["tot"]
    drv.press(p.ids.cp_commit)
    drv.press(scr.ids.confirm)
    last = ctrl.journal.actions()[-1].action
    assert last == {"type": "spend_combat_power", "player": seat, "amount": have}
    assert ctrl.state.players[seat].res["combat_power"] == 0
    cb = ctrl.state.combat
    if cb and cb["stage"] == "cp":  # the other side may answer; it passes
        att_side = ctrl.state.units[cb["att"]].owner == seat
        assert cb["tot"][0 if att_side else 1] == tot0[0 if att_side else 1] + have
        drv.press(p.ids.cp_pass)
        drv.press(scr.ids.confirm)
        assert ctrl.journal.actions()[-1].action["amount"] == 0
    lb = ctrl.state.t["last_battle"]
    assert lb["dice"] == [1, 6]
    assert p.last_text.startswith("Last battle:") and f"{ctrl.name(lb['winner'])} won" in p.last_text
    hurt = ctrl.state.units.get(lb["damaged"])
    assert (hurt is None and "eliminated" in p.last_text) or f"(now {hurt.damage} of " in p.last_text

    # 4. retreat: the legal destinations, chosen by touch
    cb = ctrl.state.combat
    assert cb and cb["stage"] == "retreat", cb
    assert "[color=ffd24d]Retreats" in p.stage_text
    btns = [w for w in p.ids.choices.children if type(w).__name__ == "ChoiceButton"]
    assert sorted(b.action["to"] for b in btns) == sorted(cb["options"])
    assert all(b.action in ctrl.legal_actions() for b in btns)
    pick = btns[0]
    uid = cb["unit"]
    drv.press(pick)
    drv.press(scr.ids.confirm)
    assert ctrl.journal.actions()[-1].action == {"type": "retreat", "player": ctrl.state.units[uid].owner,
                                                 "unit": uid, "to": pick.action["to"]}
    assert ctrl.state.units[uid].space == pick.action["to"]
    assert p.last_text.startswith("Last battle:")
    # the dashboard's own list still agrees with the engine: nothing illegal is shown
    for b in scr.ids.action_grid.children:
        assert ctrl.check(b.action) is None
    drv.shot("panel-combat-after")


def scenario_event(app, drv):
    from companion.games.civmint.ui import event_model as M

    with open(EVENTS_JSON, encoding="utf-8") as f:
        data = json.load(f)
    c = event_game(app.games_dir)
    d1, d2 = gather_dice(c)
    E.resume_in_app(app, c)
    ctrl = app.ctrl
    scr = app.root.get_screen("game")
    p = _panel(app, "EventPanel")
    assert "roll 2D6 in the wells" in p.prompt_text and p.show_dice
    for seat in ("p1", "p2"):
        assert ctrl.name(seat) in p.prompt_text
    drv.shot("panel-event-roll")

    # the roll, entered by touch
    de = p.ids.dice_entry
    for _ in range(d1 - 1):
        drv.press(de.ids.plus1, frames=0)
    for _ in range(d2 - 1):
        drv.press(de.ids.plus2, frames=0)
    n0 = len(ctrl.journal)
    drv.press(de.ids.enter)
    assert len(ctrl.journal) == n0  # the roll waits for Confirm
    drv.press(app.root.get_screen("game").ids.confirm)
    assert len(ctrl.journal) == n0 + 1
    last = ctrl.journal.actions()[-1]
    assert last.action == {"type": "roll_event", "dice": [d1, d2]} and last.source == "ui"
    assert ctrl.state.step == "event_choice"
    p = _panel(app, "EventPanel")
    assert not p.show_dice

    # each player's event: number and name as the engine says, text from events.json's data
    view = ctrl.game.view(ctrl.state)["events"]
    rows = list(reversed(p.ids.rows.children)) + list(reversed(p.ids.rows_after.children))
    assert [r.seat for r in rows] == list(ctrl.state.order())
    for r in rows:
        ev = view[r.seat]
        assert ev["name"] == data["events"][str(ev["number"])]["name"]
        assert f"{ev['number']}. {ev['name']}" in r.head and ctrl.name(r.seat) in r.head
        assert f"rolled {d1} + {d2} = {d1 + d2}, event bonus" in r.roll
        assert r.body == M.event_text(ev["number"], ctrl, r.seat) and r.body
    assert "choosing now" in rows[0].status

    # the choice: exactly `need` spaces by toggles, Confirm only when the engine accepts the set
    for _ in range(2):  # each player whose event asks something
        if ctrl.state.step != "event_choice":
            break
        seat = ctrl.state.pending[0][0]
        p = _panel(app, "EventPanel")
        toggles = [w for w in reversed(p.ids.choices.children) if type(w).__name__ == "PickToggle"]
        if not toggles:  # a one-tap choice
            btn = [w for w in reversed(p.ids.choices.children) if hasattr(w, "action")][0]
            assert btn.action in ctrl.legal_actions()
            drv.press(btn)
            want = btn.action
        else:
            need = p.multi["need"]
            assert ctrl.name(seat) in p.choose_title and f"exactly {need}" in p.choose_title
            assert scr.ids.confirm.disabled
            _tap_toggle(toggles[0], drv)
            assert scr.ids.confirm.disabled and p.confirm_text.startswith(f"1 of {need}")
            for t in toggles[1:need]:
                _tap_toggle(t, drv)
            assert not scr.ids.confirm.disabled
            _on_screen(scr.ids.confirm)
            want = {"type": "event_gather", "player": seat, "spaces": sorted(t.value for t in toggles[:need])}
            assert ctrl.check(want) is None
            if seat == ctrl.state.order()[0]:
                drv.shot("panel-event")
        res0 = dict(ctrl.state.players[seat].res)
        n1 = len(ctrl.journal)
        drv.press(scr.ids.confirm)
        assert len(ctrl.journal) == n1 + 1 and ctrl.journal.actions()[-1].action == want
        if want["type"] == "event_gather":
            gained = sum(ctrl.state.players[seat].res.values()) - sum(res0.values())
            assert gained > 0
    assert ctrl.state.step != "event_choice" or ctrl.state.pending[0][0] != seat


def scenario_small(app, drv):
    """800x480: the combat panel at the Combat Power stage and the event panel stay usable."""
    from kivy.core.window import Window
    from kivy.metrics import dp

    assert tuple(Window.size) == (800, 480)
    c = combat_game(app.games_dir)
    a = [x for x in c.legal_actions() if x["type"] == "attack"][0]
    c.dispatch(a)
    if c.state.combat["stage"] == "defend":
        c.dispatch([x for x in c.legal_actions() if x["type"] == "defend"][0])
    c.dispatch({"type": "roll_combat", "attacker": 1, "defender": 6})
    E.resume_in_app(app, c)
    ctrl = app.ctrl
    p = _panel(app, "CombatPanel")
    drv.pump(4)
    assert p.height <= Window.height * 0.55 + 1
    assert p.show_cp
    for w in (p.ids.cp_minus, p.ids.cp_plus, p.ids.cp_commit, p.ids.cp_pass):
        assert w.height >= dp(48) - 0.5 and w.width >= dp(48) - 0.5
        _on_screen(w)
    drv.shot("panel-combat-800x480")
    drv.press(p.ids.cp_pass)
    drv.press(app.root.get_screen("game").ids.confirm)
    assert ctrl.journal.actions()[-1].action["amount"] == 0

    # the event choice: candidates scroll, the Confirm stays in sight
    c = event_game(os.path.join(app.games_dir, "ev"))
    c.dispatch({"type": "roll_event", "dice": list(gather_dice(c))})
    E.resume_in_app(app, c)
    p = _panel(app, "EventPanel")
    drv.pump(4)
    assert p.height <= Window.height * 0.55 + 1
    toggles = [w for w in reversed(p.ids.choices.children) if type(w).__name__ == "PickToggle"]
    _in_view(toggles[0], p.ids.info)  # the first candidate is in sight without scrolling
    for t in toggles[:p.multi["need"]]:
        _tap_toggle(t, drv)
    conf = app.root.get_screen("game").ids.confirm
    assert not conf.disabled  # the complete choice waits for the dashboard's one Confirm
    _on_screen(conf)
    drv.shot("panel-event-800x480")


def test_combat_panel(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_combat", tmp_path, board="none")


def test_event_panel(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_event", tmp_path, board="none")


def test_panels_800x480(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_small", tmp_path, board="none", size="800x480")
