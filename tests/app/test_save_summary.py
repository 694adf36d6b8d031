"""The saved-games list reads a summary stored with each save (issue 18 item 6) instead of
replaying every game at start-up: written when a game closes and after a replay, keyed on the
journal's own state, so a save that moved on (a kill -9 before close), a damaged, foreign or
huge summary file, or a save that cannot be resumed is replayed, never shown stale."""
import json
import os

import pytest

from companion.store import journal as J
from companion.store import save_summary
from companion import controller as C


def _step(ctrl):
    """One more action: the roll when one is awaited, else 'done with this step', else the
    first legal action."""
    if ctrl.module.roll_awaited(ctrl.state):
        ctrl.roll_virtual()
        return
    legal = ctrl.game.legal_actions(ctrl.state)
    ends = [a for a in legal if a.type == "end_step"]
    ctrl.dispatch((ends or legal)[0])


def _played(tmp_path, steps=4):
    ctrl = C.GameController.new(str(tmp_path), ("Ana", "Ben"), ("blue", "green"), seed=4)
    for _ in range(steps):
        _step(ctrl)
    return ctrl


def _summary(path):
    [s] = [x for x in J.list_journals(os.path.dirname(path)) if x.path == path]
    return s


@pytest.fixture
def replays(monkeypatch):
    calls = []
    real = C.replay_summary

    def counting(summary):
        calls.append(summary.path)
        return real(summary)
    monkeypatch.setattr(C, "replay_summary", counting)
    return calls


def test_a_closed_game_is_listed_without_a_replay(tmp_path, replays):
    ctrl = _played(tmp_path)
    path, rnd = ctrl.path, ctrl.module.view.round(ctrl.state)
    ctrl.close()
    assert save_summary.sidecar_path(path).exists()
    assert C.saved_round(_summary(path)) == (rnd, "")
    assert replays == []


def test_a_game_that_moved_on_after_its_summary_is_replayed_once(tmp_path, replays):
    ctrl = _played(tmp_path)
    path = ctrl.path
    ctrl.close()
    ctrl = C.GameController.open(path)
    _step(ctrl)  # then the tablet dies: no close, the summary is stale
    want = ctrl.module.view.round(ctrl.state)
    ctrl.session.close()
    assert C.saved_round(_summary(path)) == (want, "")
    assert replays == [path]
    assert C.saved_round(_summary(path)) == (want, "")  # stored again by that replay
    assert replays == [path]


@pytest.mark.parametrize("content", [
    b"", b"{not json", b"[]", json.dumps({"format": "other"}).encode(),
    b"x" * 100_000, None])
def test_a_damaged_or_foreign_summary_means_a_replay(tmp_path, replays, content):
    ctrl = _played(tmp_path)
    path, rnd = ctrl.path, ctrl.module.view.round(ctrl.state)
    ctrl.close()
    side = save_summary.sidecar_path(path)
    doc = json.loads(side.read_text())
    if content is None:  # right key, impossible round
        doc["round"] = "seven"
        content = json.dumps(doc).encode()
    side.write_bytes(content)
    assert C.saved_round(_summary(path)) == (rnd, "")
    assert replays == [path]


def test_a_save_that_cannot_be_resumed_is_never_cached(tmp_path, replays):
    p = os.path.join(str(tmp_path), "odd.journal")
    J.Journal.create(p, "civmint", {"players": {"p1": {"colour": "blue"}}, "map": "x"}, "t").close()
    for _ in range(2):
        rnd, problem = C.saved_round(_summary(p))
        assert rnd is None and problem
    assert replays == [p, p]
    assert not save_summary.sidecar_path(p).exists()


@pytest.fixture
def verified(monkeypatch):
    """Paths the list opened and verified itself (journal._summarise)."""
    calls = []
    real = J._summarise

    def counting(path):
        calls.append(str(path))
        return real(path)
    monkeypatch.setattr(J, "_summarise", counting)
    return calls


def test_a_closed_game_is_listed_without_opening_its_journal(tmp_path, verified, replays):
    ctrl = _played(tmp_path)
    want = ctrl.journal.summary()
    ctrl.close()
    [item] = C.list_games(str(tmp_path))
    assert item.summary == want and item.title == ctrl.module.title
    assert verified == [] and replays == []


def test_a_save_damaged_after_its_summary_is_verified_and_listed_broken(tmp_path, verified):
    ctrl = _played(tmp_path, steps=6)
    path = ctrl.path
    ctrl.close()
    data = bytearray(open(path, "rb").read())
    i = data.rfind(b"end_step")
    assert i > 0
    data[i:i + 3] = b"XYZ"  # same size: only the stamp's times tell
    with open(path, "r+b") as f:
        f.write(data)
    [item] = C.list_games(str(tmp_path))
    assert isinstance(item, J.BrokenJournal) and verified == [path]


def test_a_save_copied_with_its_summary_is_verified_once_where_it_lands(tmp_path, verified):
    import shutil

    ctrl = _played(tmp_path / "a")
    path = ctrl.path
    ctrl.close()
    os.makedirs(tmp_path / "b")
    dst = str(tmp_path / "b" / os.path.basename(path))
    shutil.copy2(path, dst)  # same times, another file
    shutil.copy2(save_summary.sidecar_path(path), save_summary.sidecar_path(dst))
    [item] = C.list_games(str(tmp_path / "b"))
    assert isinstance(item, C.SavedGame) and verified == [dst]


@pytest.mark.parametrize("change", ["summary-type", "summary-extra", "stamp", "app", "title"])
def test_a_forged_or_stale_stored_summary_is_not_trusted(tmp_path, verified, change):
    ctrl = _played(tmp_path)
    path = ctrl.path
    want = ctrl.journal.summary()
    ctrl.close()
    side = save_summary.sidecar_path(path)
    doc = json.loads(side.read_text())
    if change == "summary-type":
        doc["summary"]["action_count"] = "999"
    elif change == "summary-extra":
        doc["summary"]["evil"] = 1
    elif change == "stamp":
        doc["stamp"][0] += 1
    elif change == "title":
        doc["title"] = ["Chess"]
    else:
        doc["app"] = "0.0.0-other"
    side.write_text(json.dumps(doc))
    [item] = C.list_games(str(tmp_path))
    assert item.summary == want and verified == [path]
