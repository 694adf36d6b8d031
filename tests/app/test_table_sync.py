"""Headless: table vs app reconciliation and dice from the wells (companion/table/sync.py)."""
import pytest

from companion.engine.session import Session
from companion.games.civmint import lane_ids, lane_position
from companion.games.civmint.sensing import SENSING
from companion.link.board_port import _default_smap
from companion.table.sensing import Binding, lanes_of
from companion.table.sync import MISMATCH, MOVE, DiceFeeder, TableSync


@pytest.fixture
def sess(tmp_path):
    s = Session.new("civmint", None, tmp_path / "g.journal", seed=4)
    s.roll()
    yield s
    s.close()


def _table_of(state):
    return {lane: lane_position(state, lane) for lane in lane_ids()}


def _sync(sess):
    binding = Binding.bind(SENSING.counters(sess.setup), lanes_of(_default_smap()))
    ts = TableSync(SENSING, binding, seat_label=lambda seat: {"p1": "Blue", "p2": "Green"}[seat])
    ts.start(sess.state, _table_of(sess.state))
    return ts


def _first_changing_action(sess):
    """A legal action that moves at least one lane, dispatched; returns the lanes it moved."""
    for _ in range(200):
        before = _table_of(sess.state)
        if sess.actor() == "system":
            sess.roll()
        else:
            acts = sess.legal_actions()
            sess.dispatch(next((a for a in acts if a.type != "end_step"), acts[0]), "ui")
        moved = {k for k, v in _table_of(sess.state).items() if before[k] != v}
        if moved:
            return before, moved
    raise AssertionError("no action moved a lane")


def test_table_that_matches_has_nothing_to_say(sess):
    ts = _sync(sess)
    assert ts.items() == []


def test_action_asks_for_moves_then_board_confirms(sess):
    ts = _sync(sess)
    before, moved = _first_changing_action(sess)
    ts.engine_changed(sess.state)
    items = ts.items()
    assert {i["lane"] for i in items} == moved and all(i["kind"] == MOVE for i in items)
    lane = sorted(moved)[0]
    it = ts.item(lane)
    assert it["text"].startswith(lane.split(".")[0].replace("_", " ").title() + ": move ")
    assert ("Blue" if lane.endswith("p1") else "Green") in it["text"]
    # the token passes over an intermediate space: still pending, not a mismatch
    ts.table_changed(lane, None)
    assert ts.item(lane)["kind"] == MOVE
    ts.table_changed(lane, lane_position(sess.state, lane))
    assert lane not in {i["lane"] for i in ts.items()}
    assert ts.take_confirmed() == [lane]


def test_unprompted_change_is_a_mismatch_fixed_by_putting_it_back(sess):
    ts = _sync(sess)
    lane = "military_might.p2"
    want = lane_position(sess.state, lane)
    ts.table_changed(lane, want + 1)
    [it] = ts.items()
    assert it["kind"] == MISMATCH and "the board shows" in it["text"] and "(Green)" in it["text"]
    ts.fix_table(lane)
    [it] = ts.items()
    assert it["kind"] == MOVE and it["engine"] == want
    ts.table_changed(lane, want)
    assert ts.items() == [] and ts.take_confirmed() == [lane]


def test_unprompted_change_accepted_becomes_a_correction(sess):
    ts = _sync(sess)
    lane = "food.p1"
    want = lane_position(sess.state, lane)
    ts.table_changed(lane, want + 2)
    action = ts.accept(lane)
    assert action == {"type": "correct_track", "lane": lane, "value": want + 2}
    sess.dispatch(action, "ui")  # the players confirmed it on the tablet
    ts.engine_changed(sess.state)
    assert ts.items() == []
    assert sess.journal.actions()[-1].source == "ui"


def test_accept_needs_a_mismatch_with_a_reading(sess):
    ts = _sync(sess)
    with pytest.raises(ValueError):
        ts.accept("food.p1")


def test_lifted_token_is_not_a_mismatch_and_unknown_lanes_are_reported(sess):
    ts = _sync(sess)
    ts.table_changed("economy.p1", None)
    ts.table_changed("bogus.p9", 3)
    assert ts.items() == [] and ts.unknown_lanes == {"bogus.p9"}


def test_reconnect_snapshot_flags_only_lanes_changed_while_away(sess):
    ts = _sync(sess)
    table = _table_of(sess.state)
    ts.clear_table()
    table["culture.p1"] += 1
    ts.table_snapshot(table, changed={"culture.p1"})
    assert [(i["lane"], i["kind"]) for i in ts.items()] == [("culture.p1", MISMATCH)]


def test_undo_puts_the_move_back(sess):
    ts = _sync(sess)
    before, moved = _first_changing_action(sess)
    ts.engine_changed(sess.state)
    sess.undo()
    ts.engine_changed(sess.state)
    assert ts.items() == []


# ------------------------------------------------------------------------------ dice
def test_dice_fill_the_event_roll_once():
    f = DiceFeeder(SENSING.rolls)
    f.seen(0, "settled", 5, 7, initial=True)  # left over from before: not used
    f.seen(1, "empty", 0, 0, initial=True)
    assert f.propose("roll_event")[0] is None
    f.seen(0, "rolling", 0, 8)
    assert f.propose("roll_event") == (None, "")
    f.seen(0, "settled", 3, 8)
    f.seen(1, "rolling", 0, 1)
    f.seen(1, "settled", 6, 1)
    action, msg = f.propose("roll_event")
    assert action == {"type": "roll_event", "dice": [3, 6]}
    f.used(action)
    assert f.propose("roll_event")[0] is None  # the same throw is never used twice


def test_crooked_die_asks_for_a_reroll():
    f = DiceFeeder(SENSING.rolls)
    f.seen(0, "settled", 2, 1)
    f.seen(1, "crooked", 0, 1)
    action, msg = f.propose("roll_combat")
    assert action is None and "crooked" in msg and "well 2" in msg
    f.seen(1, "rolling", 0, 2)
    f.seen(1, "settled", 4, 2)
    assert f.propose("roll_combat")[0] == {"type": "roll_combat", "attacker": 2, "defender": 4}


def test_first_player_uses_any_one_fresh_die():
    f = DiceFeeder(SENSING.rolls)
    f.seen(1, "settled", 6, 3)
    action, _ = f.propose("roll_first_player")
    assert action == {"type": "roll_first_player", "die": 6}
    f.used(action)
    assert f.propose("roll_first_player")[0] is None


def test_two_dice_thrown_for_a_one_die_roll_are_said_and_not_used():
    """Issue 28, bad input: dice in both wells when one die is asked are not guessed at."""
    f = DiceFeeder(SENSING.rolls)
    f.seen(0, "settled", 2, 4)
    f.seen(1, "settled", 5, 4)
    action, msg = f.propose("roll_first_player")
    assert action is None and "2 dice are in the wells" in msg and "take the extra one out" in msg
    f.seen(1, "empty", 0, 4)  # one taken out: the other is the roll
    assert f.propose("roll_first_player")[0] == {"type": "roll_first_player", "die": 2}


def test_civ_builder_setup_reads_both_wells_in_order():
    """Civ Builder's set-up dice are thrown two at a time: well 1 is the awaited attribute,
    well 2 the next one, each its own journal entry; its roll-offs take one die at a time."""
    from companion.engine import Session
    from companion.games import get_module
    from companion.games.civ_builder.sensing import SENSING as CB

    m = get_module("civ_builder")
    sess = Session.new(m.game, m.sample_setup(3), seed=3)
    while sess.state.step != "setup_roll":
        sess.dispatch(sess.legal_actions()[0], "ui")
    f = DiceFeeder(CB.rolls)
    f.seen(0, "settled", 4, 1)
    f.seen(1, "settled", 6, 1)
    got = []
    for _ in range(2):
        atype = m.roll_awaited(sess.state)["action"]
        assert CB.dice_usable(sess.state, atype) > 1
        action, msg = f.propose(atype, CB.dice_usable(sess.state, atype))
        assert action is not None, msg
        f.used(action)
        sess.dispatch(action, "board")
        got.append(action)
    first, second = (a["type"] for a in got)
    assert first != second and [a["die"] for a in got] == [4, 6]
    assert f.propose(m.roll_awaited(sess.state)["action"])[0] is None  # both throws spent


def test_board_lost_forgets_the_wells():
    f = DiceFeeder(SENSING.rolls)
    f.seen(0, "settled", 2, 1)
    f.seen(1, "settled", 2, 1)
    f.forget()
    assert f.propose("roll_event")[0] is None


def test_mismatched_cube_lifted_keeps_the_line_without_a_reading(sess):
    ts = _sync(sess)
    lane = "military_might.p2"
    want = lane_position(sess.state, lane)
    ts.table_changed(lane, want + 3)
    ts.table_changed(lane, None)  # picked up
    [it] = ts.items()
    assert it["kind"] == MISMATCH and "no token" in it["text"] and it["table_text"] is None
    with pytest.raises(ValueError):
        ts.accept(lane)  # nothing to keep
    ts.table_changed(lane, want)  # put down where the game has it
    assert ts.items() == []


def test_tokens_are_named_as_the_table_knows_them(sess):
    """'Ben - Food: move the green token to ...' (issue 18 item 4), in moves, mismatches and
    confirmations."""
    binding = Binding.bind(SENSING.counters(sess.setup), lanes_of(_default_smap()))
    ts = TableSync(SENSING, binding, seat_label=lambda seat: {"p1": "Blue", "p2": "Green"}[seat],
                   seat_name={"p1": "Ana", "p2": "Ben"}.get)
    ts.start(sess.state, _table_of(sess.state))
    lane = "food.p2"
    want = lane_position(sess.state, lane)
    ts.table_changed(lane, want + 1)
    [it] = ts.items()
    assert it["text"].startswith("Ben - Food (the green token): the board shows "), it["text"]
    ts.fix_table(lane)
    [it] = ts.items()
    assert it["text"].startswith("Ben - Food: move the green token to "), it["text"]
    assert ts.confirmation_text(lane).startswith("Ben - Food: the green token on ")


def test_a_die_thrown_when_no_roll_is_asked_is_never_kept_for_a_later_roll():
    from companion.table.sensing import Roll
    from companion.table.sync import DiceFeeder

    f = DiceFeeder([Roll("roll_first", "First-player roll", 1, ("die",))])
    f.seen(0, "rolling", 0, 1)
    assert not f.drop_unasked(0)          # still rolling: nothing to drop yet
    f.seen(0, "settled", 4, 1)
    assert f.drop_unasked(0) and not f.drop_unasked(0)
    action, why = f.propose("roll_first")  # the roll asked later does not take that die
    assert action is None and "Waiting for a die in well 1" in why
    f.seen(0, "rolling", 0, 2)
    f.seen(0, "settled", 5, 2)
    assert f.propose("roll_first")[0] == {"type": "roll_first", "die": 5}
