"""Seats the app plays (issue 27 item 6), headless through the real controller and journal: the
solitaire AI's moves are journaled as its seat's actions (source "app") and logged in words;
the app never plays while a player's decision is awaited; Undo takes back the player's action
with the app's moves after it, or refuses in plain words; old Mint Works saves (AI played inside
the rules, data version 1) still resume; a new save is refused by an app that predates it."""
import random

import pytest

from companion import controller as C
from companion.engine import Session
from companion.games.mint_works import GAME as MW, MODULE as MW_MODULE
from companion.store import journal as J


def solitaire(tmp_path, ai="justin", seed=7, **opts):
    return C.GameController.new(str(tmp_path), ("Ana",), ("blue",), seed=seed, game="mint_works",
                                opponent=ai, **opts)


def settle_draws(ctrl):
    while not ctrl.snapshot()["over"] and ctrl.awaiting_dice():
        ctrl.roll_virtual()


def human(ctrl):
    return not ctrl.snapshot()["over"] and ctrl.snapshot()["actor"] == "p1"


def test_the_ai_moves_are_journaled_as_its_seat_and_logged_in_words(tmp_path):
    ctrl = solitaire(tmp_path)  # Justin starts: his first move is played as the game opens
    settle_draws(ctrl)
    entries = ctrl.journal.actions()
    app = [e for e in entries if e.source == "app"]
    assert app and all(e.action["player"] == "p2" for e in app)
    assert human(ctrl)
    snap = ctrl.snapshot()
    assert snap["app_seats"] == ["p2"] and snap["app_problem"] == ""
    log = [e for e in ctrl.log() if e["source"] == "app"]
    assert log[0]["text"].startswith("Justin places 1 mint on the Producer")
    assert log[0]["how"] == "played by the app" and log[0]["actor"] == "p2"
    n = len(ctrl.journal)
    ctrl.dispatch({"type": "pass", "player": "p1"})
    settle_draws(ctrl)
    after = ctrl.journal.actions()[n:]
    assert after[0].source == "ui" and after[0].action == {"type": "pass", "player": "p1"}
    assert any(e.source == "app" for e in after)
    assert ctrl.snapshot()["app_moves"] or ctrl.awaiting_dice() is False
    ctrl.close()


def test_the_app_never_acts_while_a_player_decides(tmp_path):
    ctrl = solitaire(tmp_path, ai="sonic", seed=3)
    rng = random.Random(3)
    seen = []
    ctrl.subscribe(lambda c: seen.append((c.snapshot()["actor"], len(c.journal))))
    for _ in range(120):
        if ctrl.snapshot()["over"]:
            break
        if ctrl.awaiting_dice():
            ctrl.roll_virtual()
        else:
            assert ctrl.snapshot()["actor"] == "p1"  # after any change: a player or the dice
            ctrl.dispatch(rng.choice(ctrl.legal_actions()))
    assert all(actor != "p2" for actor, _ in seen)
    # every app entry follows a non-app entry in which the app was to act next
    state = MW.initial_state(ctrl.setup)
    for e in ctrl.journal.actions():
        if e.source == "app":
            assert MW.actor(state) == "p2"
        else:
            assert MW.actor(state) != "p2"
        state = MW.apply(state, e.action)
    ctrl.close()


def test_undo_takes_back_the_players_action_and_the_app_moves_after_it(tmp_path):
    ctrl = solitaire(tmp_path, ai="rachael", seed=1)
    settle_draws(ctrl)
    before, n = ctrl.state.to_dict(), len(ctrl.journal.actions())
    ctrl.dispatch({"type": "pass", "player": "p1"})  # Rachael answers on the Producer
    assert len(ctrl.journal.actions()) == n + 2 and ctrl.journal.actions()[-1].source == "app"
    preview = ctrl.undo_preview()
    assert preview[0] == "Ana: pass" and preview[1].startswith("Rachael places 1 mint on the Producer")
    assert ctrl.can_undo()
    got = ctrl.undo()
    assert got == {"type": "pass", "player": "p1"}
    assert ctrl.state.to_dict() == before and len(ctrl.journal.actions()) == n
    texts = [e["text"] for e in ctrl.log(3)]
    assert texts[0].startswith("Undo: Ana: pass") and texts[1].startswith("Undo: Rachael places")
    assert human(ctrl)  # the app did not play again: the player decides afresh
    path = ctrl.path
    ctrl.close()
    again = C.GameController.open(path)
    assert again.state.to_dict() == before
    again.close()


def test_undo_refuses_in_plain_words(tmp_path):
    ctrl = solitaire(tmp_path, ai="justin", seed=2)
    settle_draws(ctrl)  # the app deck's draws, then Justin's opening move: nothing of the player's
    assert [e.source for e in ctrl.journal.actions()][-2:] == ["system", "app"]
    assert not ctrl.can_undo()
    with pytest.raises(J.UndoRefused) as ei:
        ctrl.undo()
    assert str(ei.value) == ctrl.undo_refusal()
    assert "revealed" in str(ei.value) and ".journal" not in str(ei.value) and "#" not in str(ei.value)
    assert ctrl.undo_preview() == []
    ctrl.close()


def test_with_the_tables_own_deck_undo_steps_back_reveal_by_reveal(tmp_path):
    ctrl = solitaire(tmp_path, ai="justin", seed=2, deck="table")
    assert ctrl.snapshot()["actor"] == "p1" and len(ctrl.journal) == 0  # Ana reveals the supply
    ctrl.dispatch(ctrl.legal_actions()[0])
    ctrl.dispatch(ctrl.legal_actions()[0])  # the second plan: then Justin's opening move
    assert [e.source for e in ctrl.journal.actions()] == ["ui", "ui", "app"]
    assert ctrl.undo_preview()[0].startswith("Ana drew the") and ctrl.undo_preview()[1].startswith("Justin")
    ctrl.undo()
    assert [e.source for e in ctrl.journal.actions()] == ["ui"] and ctrl.snapshot()["actor"] == "p1"
    ctrl.undo()
    assert ctrl.undo_refusal() == "there is nothing to undo" and not ctrl.can_undo()
    ctrl.close()


class _OldGame:
    """How app 0.1 saved a Mint Works solitaire game: setup without "ai_moves", data version 1,
    only the player's actions and the draws (the AI played inside the rules)."""

    @staticmethod
    def write(path, ai="rachael", seed=5, moves=40):
        setup = MW_MODULE.setup_from_form([{"name": "Ana", "colour": "blue"}], {"opponent": ai})
        del setup["ai_moves"]
        setup["seed"] = seed
        sess = Session.new(MW, setup, journal_path=path, seed=seed, app_version="0.1.0", data_version=1)
        rng = random.Random(seed)
        for _ in range(moves):
            if MW.is_over(sess.state):
                break
            if sess.actor() == "system":
                sess.roll()
            else:
                assert sess.actor() == "p1"
                sess.dispatch(rng.choice(sess.legal_actions()), "ui")
        state = sess.state.to_dict()
        sess.close()
        return state


def test_an_old_solitaire_save_resumes_with_the_ai_inside_the_rules(tmp_path):
    path = tmp_path / "old.journal"
    state = _OldGame.write(path)
    assert state["ai_moves"] > 3
    ctrl = C.GameController.open(path)
    assert ctrl.state.to_dict() == state
    assert ctrl.app_seats() == () and all(e.source != "app" for e in ctrl.journal.actions())
    # its log still tells what the AI did, under the action that let it play
    effects = [x for e in ctrl.log() for x in e["effects"]]
    assert any(x.startswith("Rachael places") for x in effects)
    # and it plays on as before: a pass is answered inside the rules
    if human(ctrl):
        moves = ctrl.state.ai_moves
        ctrl.dispatch({"type": "pass", "player": "p1"})
        assert ctrl.state.ai_moves >= moves and all(e.source != "app" for e in ctrl.journal.actions())
    ctrl.close()
    listed = C.list_games(str(tmp_path))
    assert [type(x) for x in listed] == [C.SavedGame] and not listed[0].unavailable


def test_a_new_save_is_refused_in_plain_words_by_an_app_that_predates_it(tmp_path, monkeypatch):
    ctrl = solitaire(tmp_path)
    path = ctrl.path
    ctrl.close()
    assert J.Journal.open(path, readonly=True).meta["data_version"] == MW_MODULE.data_version == 2
    monkeypatch.setattr(MW_MODULE, "data_version", 1)
    with pytest.raises(C.GameUnavailable) as ei:
        C.GameController.open(path)
    assert "newer version of Mint Works" in str(ei.value)


def test_a_save_closed_before_the_apps_move_gets_it_on_open(tmp_path):
    ctrl = solitaire(tmp_path, ai="rachael", seed=1)
    settle_draws(ctrl)
    path = ctrl.path
    # the player's pass reached the journal, then the tablet died before Rachael's answer
    ctrl.session.dispatch(MW.codec.make("pass", player="p1"), "ui")
    assert MW.actor(ctrl.state) == "p2"
    ctrl.session.close()
    again = C.GameController.open(path)
    assert again.journal.actions()[-1].source == "app" and human(again)
    again.close()


def test_a_refused_app_move_stops_the_app_and_says_so(tmp_path, monkeypatch):
    ctrl = solitaire(tmp_path, ai="rachael", seed=1)
    settle_draws(ctrl)
    monkeypatch.setattr(type(MW), "app_action",
                        lambda self, s, seat: self.codec.fast("place", player=seat, location="lotto"))
    n = len(ctrl.journal)
    ctrl.dispatch({"type": "pass", "player": "p1"})
    assert len(ctrl.journal) == n + 1  # only the player's pass: nothing wrong was journaled
    assert "could not play Rachael's move" in ctrl.snapshot()["app_problem"]
    ctrl.close()


# ---- in the real app (Xvfb): the AI's moves in the Log, at the three sizes

def scenario_the_ai_moves_are_in_the_log(app, drv):
    import time

    from kivy.core.window import Window

    ctrl = C.GameController.new(app.games_dir, ("Ana",), ("blue",), seed=7, game="mint_works",
                                opponent="sonic")
    path = ctrl.path
    ctrl.close()
    assert app.resume_game(path)
    scr = app.root.get_screen("game")
    ctrl = app.ctrl
    for _ in range(6):
        if ctrl.awaiting_dice():
            ctrl.roll_virtual()
        else:
            ctrl.dispatch({"type": "pass", "player": "p1"})
    drv.pump(4)
    drv.press(scr.tab_buttons["log"])
    app_lines = [e.text for e in ctrl.history.entries if e.source == "app"]
    assert app_lines and all(t.startswith("Sonic ") for t in app_lines)
    assert any(t in scr.log_text for t in app_lines), scr.log_text
    assert "(played by the app)" in scr.log_text and " - drawn by the app" in scr.log_text
    for w, h in ((800, 480), (1280, 800), (412, 915)):
        Window.size = (w, h)
        drv.wait_for(lambda: tuple(Window.size) == (w, h), 5, "the window's new size")
        until = time.monotonic() + 0.6  # an X server resizes asynchronously: draw a few real frames
        drv.wait_for(lambda: time.monotonic() > until, 5, "frames at the new size")
        drv.shot(f"mint_works-log-ai-{w}x{h}")
    Window.size = (1280, 800)
    drv.pump(4)


def test_the_ai_moves_are_in_the_log(xdisplay, tmp_path):
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gui_process import run_scenario
    run_scenario(__file__, "scenario_the_ai_moves_are_in_the_log", tmp_path, timeout=200)


def test_the_journal_checks_an_undo_of_several_actions_as_a_whole(tmp_path):
    """Journal.undo_refusal(back=n): a roll anywhere in the latest n actions refuses them all."""
    j = J.Journal.create(tmp_path / "j.journal", "toy", {}, "t")
    j.append({"type": "move"}, "ui")
    j.append({"type": "roll"}, "system")
    j.append({"type": "move"}, "app")
    chance = lambda a: a["type"] == "roll"  # noqa: E731
    assert j.undo_refusal(chance) is None and j.undo_refusal(chance, back=1) is None
    assert "revealed a chance result" in j.undo_refusal(chance, back=2)
    assert j.undo_refusal(chance, back=4) == "there is no action to undo"
    j.close()
    again = J.Journal.open(tmp_path / "j.journal")
    assert [e.source for e in again.actions()] == ["ui", "system", "app"]
    again.close()
