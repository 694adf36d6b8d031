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
    s.dispatch({"type": "correct_track", "lane": "military_might.p2", "value": 4}, "ui")
    after = s.state.to_dict()
    assert after["players"]["p2"]["aspects"]["military_might"] == 4
    # nothing else moved: no aspect gains, same step, same actor
    after["players"]["p2"]["aspects"]["military_might"] = before["players"]["p2"]["aspects"]["military_might"]
    assert after == before
    last = s.journal.actions()[-1]
    assert last.source == "ui" and last.action["type"] == "correct_track"
    assert GAME.status(s.state) == []
    assert Session.resume(s.journal.path).state.to_dict() == s.state.to_dict()


def test_every_lane_can_be_corrected_to_every_printed_space(tmp_path):
    s = _session(tmp_path)
    for lane in lane_ids():
        pos = (lane_position(s.state, lane) + 1) % 3
        value = lane_value(lane, pos)["value"]
        s.dispatch({"type": "correct_track", "lane": lane, "value": value}, "ui")
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
        s.dispatch({"type": "correct_track", **bad}, "ui")
    assert ei.value.rule == rule
    assert len(s.journal) == n


def test_correction_is_not_a_legal_action_offer_and_can_be_undone(tmp_path):
    s = _session(tmp_path)
    assert all(a.type != "correct_track" for a in s.legal_actions())
    before = s.state.to_dict()
    s.dispatch({"type": "correct_track", "lane": "food.p1", "value": position_of("food.p1", 9)}, "ui")
    s.undo()
    assert s.state.to_dict() == before


@pytest.mark.parametrize("game, correction", [
    ("civmint", {"type": "correct_track", "lane": "food.p1", "value": 3}),
    ("civ_quest", {"type": "correct", "player": "p1", "what": "food", "value": 3}),
    ("civ_card_game", {"type": "correct", "player": "p1", "what": "gold", "value": 3}),
    ("civ_builder", {"type": "correct_hand", "seat": "p1", "count": 3}),
    ("mint_works", {"type": "set_mints", "player": "p1", "value": 3}),
])
@pytest.mark.parametrize("source", ["board", "system"])
def test_a_correction_is_only_accepted_as_the_players_confirmed_decision(tmp_path, game, correction, source):
    """No game takes a correction from the board or the app itself: only the tablet's confirmed
    "ui" path (Game.correction_types) — and nothing is journaled when it is refused."""
    from companion import games as registry
    module = registry.get_module(game)
    assert correction["type"] in module.game.correction_types
    s = Session.new(module.game, module.setup_from_form(
        [{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}], {}), tmp_path / "g.journal", seed=3)
    n = len(s.journal)
    with pytest.raises(Rejected) as ei:
        s.dispatch(correction, source)
    assert ei.value.rule == "correction.confirm" and len(s.journal) == n


def test_correction_refused_when_game_over(tmp_path):
    s = _session(tmp_path)
    s.state.over = True
    with pytest.raises(Rejected):
        s.game.check(s.state, s.game.action_from_dict({"type": "correct_track", "lane": "food.p1", "value": 1}))
