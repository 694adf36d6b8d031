"""The app's light layer (companion/link/board_port.py LinkBoard.show_lights) against the virtual
board through the real link: at most MAX_LIT at once in lane order, the next waiting target lit
when a token puts one out, an occupied space never lit, a short unplug keeps the lights."""
import time

import pytest

from companion.link import board_port as bp
from protocol import wire

pytestmark = pytest.mark.timeout(120)


def _until(pred, board=None, seconds=10.0, what="condition"):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if board is not None:
            board.poll()
        if pred():
            return
        time.sleep(0.01)
    raise AssertionError("timed out waiting for %s" % what)


@pytest.fixture
def board():
    b = bp.VirtualLinkBoard(seed=5)
    b.start()
    try:
        _until(lambda: b.status()["state"] == "paired" and b.sensed_positions(), b, what="pairing")
        yield b
    finally:
        b.stop()


def _lit(board):
    ids = board.smap.lane_ids
    vb = board.virtual
    return {(ids[k], p) for k, p in vb.call(lambda _: vb.world.lit_positions())}


def test_eight_at_once_and_the_ninth_when_one_arrives(board):
    ids = board.smap.lane_ids
    want = {lane: 2 for lane in ids[:10]}
    assert board.show_lights(dict(want, **{"no_such.lane": 1, ids[11]: 99})) is None  # unknown ones dropped
    first = {(lane, 2) for lane in sorted(want)[:wire.MAX_LIT]}
    _until(lambda: _lit(board) == first, board, what="the first eight")
    assert board.lit() == dict(sorted(first))
    arrived = sorted(want)[0]
    board.virtual.place(arrived, 2)
    nine = {(lane, 2) for lane in sorted(want)[1:wire.MAX_LIT + 1]}
    _until(lambda: _lit(board) == nine, board, what="the ninth lit in place of the arrived one")
    assert arrived not in board.lit()
    board.show_lights({})
    _until(lambda: _lit(board) == set() and board.lit() == {}, board, what="all out")


def test_an_occupied_target_is_not_lit_and_an_unplug_keeps_the_lights(board):
    vb = board.virtual
    vb.place("food.p1", 4)
    _until(lambda: board.lanes().get("food.p1") == 4, board, what="the token sensed")
    board.show_lights({"food.p1": 4, "wood.p2": 7})
    _until(lambda: _lit(board) == {("wood.p2", 7)}, board, what="only the empty target lit")
    assert board.lit() == {"wood.p2": 7}
    vb.unplug()
    _until(lambda: board.status()["state"] != "paired", board, what="the link down")
    assert _lit(board) == {("wood.p2", 7)}  # the board keeps running, lights on
    vb.replug()
    _until(lambda: board.status()["state"] == "paired", board, what="the resume")
    time.sleep(0.3)
    board.poll()
    assert _lit(board) == {("wood.p2", 7)} and board.lit() == {"wood.p2": 7}


def test_a_manual_board_has_no_lights():
    m = bp.ManualBoard()
    assert m.show_lights({"food.p1": 1}) and m.lit() == {}
    # fault 9 is reserved: only a board with the old HT16K33 firmware sends it
    text = bp.describe_fault({"code": 9, "fault": wire.FAULT_NAMES[9],
                              "where": wire.fault_where(9, 1, 0x71), "value": 0x71})
    assert "older firmware" in text and "0x71" in text and "deploy" in text
