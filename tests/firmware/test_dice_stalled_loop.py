"""The virtual die moves on simulated time, not on board-loop steps (issue 30): a throw is a
sequence of faces passing the sensor that depends only on the time since the throw, and a
reading integrates whatever passed during its integration. So a board loop that stalls (a busy
tablet CPU running the virtual board) reads the same tumble a running one would: never a still
die before it stopped, never another face."""
import random

from protocol import wire
from tests.firmware.harness import Rig


def _throws(r, rng, n, stall_odds):
    """n throws into random wells with random stalls of the loop; returns, per throw, (top,
    settle time, [(time, value) of settled reports])."""
    out = []
    for _ in range(n):
        well = rng.randrange(r.smap.n_wells)
        top = rng.randint(1, 6)
        settle_ms = rng.randint(150, 500)
        t0 = r.clock.t
        r.world.optics[well].roll(t0, top, settle_ms, False)
        got = []
        end = t0 + settle_ms + 700
        while r.clock.t < end:
            if rng.random() < stall_odds:
                # the loop stalls: simulated time runs on, the board does not step
                r.clock.t += rng.randint(10, 120)
                r.world.run_due()
            n_before = len(r.msgs)
            r.tick(1)
            for m in r.msgs[n_before:]:
                if m["type"] == "DICE" and m["well"] == well and m["state"] == wire.DICE_SETTLED:
                    got.append((r.clock.t, m["value"]))
        out.append((top, t0 + settle_ms, got))
        r.world.optics[well].remove()
        r.tick(400)
        r.clear()
    return out


def test_a_stalling_loop_never_sees_a_tumbling_die_as_settled(tmp_path):
    r = Rig(tmp_path, seed=11)
    r.clear()
    results = _throws(r, random.Random(30), 120, stall_odds=0.03)
    early = [(top, at, got) for top, at, got in results if any(t < at for t, _ in got)]
    wrong = [(top, got) for top, _, got in results if any(v != top for _, v in got)]
    read = sum(1 for _, _, got in results if got)
    assert not early and not wrong, (early[:3], wrong[:3])
    assert read >= 110  # and the dice are still read once they stop


def test_the_tumble_depends_on_time_only():
    """Two wells thrown alike at the same moment show the same faces in the same windows,
    however often (or rarely) their sensors are read."""
    from firmware.sim.world import WellOptics
    a, b = WellOptics(random.Random(1), noise=0.0), WellOptics(random.Random(2), noise=0.0)
    a.roll(1000, 3, 400, False, seed=77)
    b.roll(1000, 3, 400, False, seed=77)
    for end in range(1030, 1500, 7):  # a read every 7 ms of a
        a.source(end, 10, 4)
    ends = [1100, 1250, 1399, 1424, 1500]
    assert [b.source(e, 10, 4) for e in ends] == [a.source(e, 10, 4) for e in ends]
    # a window inside the tumble is a blur of several faces: never the counts of a still face
    from firmware.sim import optics
    still = [tuple(optics.face_counts(7 - f, 1.0, a.tint, 10, 4)) for f in range(1, 7)]
    for end in range(1030, 1400, 11):
        assert a.source(end, 10, 4) not in still
    assert a.source(1500, 10, 4) == still[2]  # after it stopped: face 3 on top


def test_a_reading_computed_late_integrates_the_led_of_its_own_window():
    """The sensor computes a window's counts when the board reads them, perhaps after the board
    switched the LED again (a stalled loop): the LED counts as it was during the window."""
    from firmware.sim.world import WellOptics
    o = WellOptics(random.Random(1), noise=0.0)
    o.roll(0, 4, 10, False, seed=1)
    lit = o.source(1000, 10, 4)  # 24 ms window, LED on throughout
    o.set_led(0, 1100)  # switched off after that window ended
    assert o.source(1000, 10, 4) == lit  # still the lit window
    assert o.source(1200, 10, 4) == (0.0, 0.0, 0.0, 0.0)  # a window wholly dark (no room light)
    o.set_led(1, 1212)  # on again half-way through the window ending at 1224
    half = o.source(1224, 10, 4)
    assert all(abs(h - x / 2) < 1e-6 for h, x in zip(half, lit))
