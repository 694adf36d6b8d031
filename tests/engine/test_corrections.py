"""correct_track: the table's reading accepted as a logged correction (REG-L2)."""
import pytest

from companion.engine.errors import Rejected
from companion.engine.session import Session
from companion.games.civmint import GAME, lane_ids, lane_position, lane_value, position_of


def _session(tmp_path, seed=1):
    s = Session.new("civmint", None, tmp_path / "g.journal", seed=seed)
    s.roll()
    return s


def test_correction_sets_only_that_track_at_any_step_and_is_journaled(tmp_path):
    s = _session(tmp_path)
    before = s.state.to_dict()
    s.dispatch({"type": "correct_track", "lane": "military_might.p2", "value": 4}, "board")
    after = s.state.to_dict()
    assert after["players"]["p2"]["aspects"]["military_might"] == 4
    # nothing else moved: no aspect gains, same step, same actor
    after["players"]["p2"]["aspects"]["military_might"] = before["players"]["p2"]["aspects"]["military_might"]
    assert after == before
    last = s.journal.actions()[-1]
    assert last.source == "board" and last.action["type"] == "correct_track"
    assert GAME.status(s.state) == []
    assert Session.resume(s.journal.path).state.to_dict() == s.state.to_dict()


def test_every_lane_can_be_corrected_to_every_printed_space(tmp_path):
    s = _session(tmp_path)
    for lane in lane_ids():
        pos = (lane_position(s.state, lane) + 1) % 3
        value = lane_value(lane, pos)["value"]
        s.dispatch({"type": "correct_track", "lane": lane, "value": value}, "board")
        assert lane_position(s.state, lane) == pos


@pytest.mark.parametrize("bad, rule", [
    ({"lane": "military_might.p3", "value": 2}, "lane.id"),
    ({"lane": "nonsense.p1", "value": 2}, "lane.id"),
    ({"lane": "military_might.p1", "value": 7}, "lane.position"),
    ({"lane": "food.p1", "value": 11}, "lane.position"),
    ({"lane": "economy.p1", "value": -1}, "lane.position"),
])
def test_bad_corrections_are_refused_and_not_journaled(tmp_path, bad, rule):
    s = _session(tmp_path)
    n = len(s.journal)
    with pytest.raises(Rejected) as ei:
        s.dispatch({"type": "correct_track", **bad}, "board")
    assert ei.value.rule == rule
    assert len(s.journal) == n


def test_correction_is_not_a_legal_action_offer_and_can_be_undone(tmp_path):
    s = _session(tmp_path)
    assert all(a.type != "correct_track" for a in s.legal_actions())
    before = s.state.to_dict()
    s.dispatch({"type": "correct_track", "lane": "food.p1", "value": position_of("food.p1", 9)}, "board")
    s.undo()
    assert s.state.to_dict() == before


def test_correction_refused_when_game_over(tmp_path):
    s = _session(tmp_path)
    s.state.over = True
    with pytest.raises(Rejected):
        s.game.check(s.state, s.game.action_from_dict({"type": "correct_track", "lane": "food.p1", "value": 1}))
