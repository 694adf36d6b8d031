"""Round End card and Game End screen in the real app (one Kivy window per scenario process)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(240)


def _signed(n):
    return f"+{n}" if n > 0 else str(n)


def scenario_round_card_and_game_end(app, drv):
    from kivy.core.window import Window

    from companion.games.civmint import history as H
    from companion.controller import GameController

    c = GameController.new(app.games_dir, ("Ann", "Bob"), ("blue", "red"), seed=11, max_rounds=2)
    path = c.path
    start_score = c.game.score(c.game.initial_state(c.setup))
    c.close()
    assert app.resume_game(path)
    scr = app.root.get_screen("game")
    area = scr.ids.notice_area

    # play round 1 by touch, noting the engine's score right after the round-ending action
    ctrl = app.ctrl
    k = 0
    while ctrl.state.round == 1:
        assert not drv.find(area, "RoundSummaryCard"), "card shown before the round ended"
        drv.play(app, 1, seed=k)
        k += 1
    end1 = ctrl.game.score(ctrl.state)
    cards = drv.find(area, "RoundSummaryCard")
    assert len(cards) == 1
    card = cards[0]
    assert card.ended_round == 1
    rec = H.build(ctrl).record(1)
    assert {s: rec.end[s].score for s in ("p1", "p2")} == end1
    assert f"next round: {ctrl.name(ctrl.state.first)} goes first" in card.title
    rows = drv.find(card, "SummaryRow")
    assert len(rows) == 2
    for seat, row in zip(("p1", "p2"), rows):
        d = end1[seat]["total"] - start_score[seat]["total"]
        assert row.text.startswith(f"[b]{ctrl.name(seat)}[/b]  Score {end1[seat]['total']} ({_signed(d)})"), row.text
        for ln in H.delta_lines(rec, seat):
            assert ln in row.text
        if rec.events.get(seat):
            assert rec.events[seat]["name"] in row.text
    assert card.ids.ok.height >= 48 and card.ids.ok.width >= 48
    assert card.height < Window.height * 0.5
    drv.shot("round-summary")
    drv.press(card.ids.ok)
    assert not drv.find(area, "RoundSummaryCard") and card.parent is None

    # play on to the end: the app goes to the Game End screen by itself
    while not ctrl.game.is_over(ctrl.state):
        drv.play(app, 1, seed=k)
        k += 1
    drv.wait_for(lambda: app.root.current == "game_end", 5, "the game end screen")
    end = app.root.get_screen("game_end")
    _check_game_end(app, drv, end, rounds=2)
    drv.shot("game-end")

    # back to the game, Home, then resume the finished game: the screen is rebuilt from the journal
    drv.press(end.ids.back_to_game)
    assert app.root.current == "game"
    app.go("game_end")
    drv.pump(2)
    drv.press(end.ids.home)
    assert app.root.current == "home" and app.ctrl is None
    assert app.resume_game(path)
    app.go("game_end")
    drv.pump(3)
    _check_game_end(app, drv, end, rounds=2)

    Window.size = (800, 480)
    drv.pump(6)
    end.fill(app.ctrl)
    drv.pump(4)
    assert end.wide  # table and chart side by side still
    for b in (end.ids.back_to_game, end.ids.home):
        assert b.height >= 48 and b.width >= 200 and b.y >= 0
    chart, table = end.ids.chart, end.ids.table
    assert chart.width > 250 and chart.height >= 200 and table.width > 250
    drv.shot("game-end-800x480")
    Window.size = (1280, 800)
    drv.pump(4)


def _check_game_end(app, drv, end, rounds):
    ctrl = app.ctrl
    assert app.root.current == "game_end"
    res = ctrl.game.result(ctrl.state)
    score = ctrl.game.score(ctrl.state)
    assert end.headline == "Game over - " + (f"{ctrl.name(res['winner'])} wins" if res["winner"]
                                             else "Shared victory")
    assert "The round limit (2) was reached." in end.reasons_text
    for seat in ("p1", "p2"):
        assert end.total_labels[seat].text == str(score[seat]["total"])
    # every score item of each player is in the table, in the player's column
    cells = [w.text for w in reversed(end.ids.table.children)]
    cols = end.ids.table.cols
    assert cols == 3 and cells[1:3] == [ctrl.name("p1"), ctrl.name("p2")]
    body = [cells[i:i + cols] for i in range(cols, len(cells), cols)]
    items = {row[0]: row[1:] for row in body}
    for item, v in score["p1"]["items"].items():
        label = item.replace("_", " ").capitalize()
        assert items[label] == [str(v), str(score["p2"]["items"][item])]
    if res["decided_by"] != "total":
        assert "Tie-break" in end.tiebreak_text
    chart = end.ids.chart
    assert set(chart.lines) == {"p1", "p2"}
    for seat, line in chart.lines.items():
        assert len(line.points) == 2 * rounds
    # the last point of each line is the final total: highest total -> highest point
    ys = {s: chart.lines[s].points[-1] for s in ("p1", "p2")}
    t = {s: score[s]["total"] for s in ("p1", "p2")}
    if t["p1"] != t["p2"]:
        assert (ys["p1"] > ys["p2"]) == (t["p1"] > t["p2"])
    else:
        assert ys["p1"] == ys["p2"]


def test_round_card_and_game_end(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_round_card_and_game_end", tmp_path)


# ---- where exports go (companion/store/paths.py), headless

def test_exports_go_to_the_documents_folder_the_desktop_names(tmp_path, monkeypatch):
    from companion.store import paths
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    (home / "Downloads").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for var in (paths.ENV_VAR, paths.EXPORTS_ENV, "ANDROID_ARGUMENT", "ANDROID_PRIVATE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(paths.sys, "platform", "linux")
    # no user-dirs file and no Documents folder: Downloads, then the app's data folder
    assert paths.export_dirs()[0] == home / "Downloads" / "Tabletop Companion"
    assert paths.export_dirs()[-1] == paths.data_dir() / "exports"
    (home / ".config" / "user-dirs.dirs").write_text(
        '# written by xdg-user-dirs-update\nXDG_DOCUMENTS_DIR="$HOME/Dokumente"\nXDG_DOWNLOAD_DIR="$HOME"\n')
    assert paths.export_dirs()[0] == home / "Dokumente" / "Tabletop Companion"
    assert paths.xdg_user_dir("DOWNLOAD", home) is None  # "$HOME" itself means unset
    assert paths.shown_folder(home / "Dokumente" / "Tabletop Companion") == "Dokumente/Tabletop Companion"
    monkeypatch.setenv(paths.EXPORTS_ENV, str(tmp_path / "x"))
    assert paths.export_dirs() == [tmp_path / "x"]
    monkeypatch.delenv(paths.EXPORTS_ENV)
    monkeypatch.setenv(paths.ENV_VAR, str(tmp_path / "portable"))  # one folder for everything
    assert paths.export_dirs() == [tmp_path / "portable" / "exports"]


def test_an_export_falls_back_to_the_next_folder_that_can_be_written(tmp_path, monkeypatch):
    from companion.controller import GameController
    from companion.store import paths
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder should be")
    monkeypatch.setattr(paths, "export_dirs", lambda: [blocked / "Tabletop Companion", tmp_path / "ok"])
    c = GameController.new(tmp_path / "games", ("Ana", "Ben"), ("blue", "green"), seed=1)
    path = c.export_to()
    assert path.startswith(str(tmp_path / "ok")) and os.path.exists(path[:-5] + ".bgstats.json")
    monkeypatch.setattr(paths, "export_dirs", lambda: [blocked / "Tabletop Companion"])
    with pytest.raises(OSError):
        c.export_to()
    c.close()


def test_the_bg_stats_link_carries_the_play(tmp_path):
    import json
    from urllib.parse import unquote

    from companion.controller import GameController
    c = GameController.new(tmp_path, ("Ana", "Ben"), ("blue", "green"), seed=1)
    link = c.bg_stats_link()
    assert link.startswith("bgstats://app.import?data=")
    assert json.loads(unquote(link.split("=", 1)[1])) == c.bg_stats()
    c.close()
