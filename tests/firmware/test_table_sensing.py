"""Table sensing against micropower hall switches (issue 16 item 2): the AH1806 samples the
field once per its own period and holds its output in between, so a sliding token leaves
stale outputs. A token sliding slowly or resting between two spaces is never reported as two
tokens; a placement still reaches the tablet quickly; a stuck bit and a wrong sensor ID are
reported by the board unprompted. The firmware Board runs on the simulated chips with a real
HostLink (tests/firmware/harness.py); the switches' sampling is modelled here."""
import random
import statistics

import pytest

from firmware.tracks import HALL_PERIOD_MS
from protocol import wire
from tests.firmware.harness import Rig


class HallSwitches:
    """Each switch of the chain samples the true field every `period` ms, at its own phase,
    and holds its output in between (spare inputs and stuck bits included). Runs with the
    rig's clock (Rig.each_ms)."""

    def __init__(self, rig, period, rng):
        world = rig.world
        self.truth = world._inputs
        self.clock = rig.clock
        self.period = period
        n = world.chain.registers
        self.latched = bytearray(self.truth())
        self.wake = [self.clock.t + rng.randrange(period) for _ in range(n * 8)]
        world.chain.inputs = self.read
        rig.each_ms.append(self.update)

    def update(self):
        now = self.clock.t
        truth = None
        for b in range(len(self.wake)):
            if self.wake[b] <= now:
                if truth is None:
                    truth = self.truth()
                m = 0x80 >> (b & 7)
                self.latched[b >> 3] = (self.latched[b >> 3] & ~m) | (truth[b >> 3] & m)
                self.wake[b] += self.period

    def read(self):
        return bytearray(self.latched)


def placements(r, n, wait_ms, rest_ms, seed=8):
    """n tokens placed one at a time on random lanes and spaces, each lifted again after:
    [(ms until its first TRACK_CHANGE or wait_ms, the masks reported, the space)]."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        k = rng.randrange(r.smap.n_lanes)
        pos = rng.randrange(r.smap.n_spaces(k))
        r.clear()
        t0 = r.clock.t
        r.world.tokens[k] = {pos}
        for _ in range(wait_ms):
            r.tick()
            if changes(r, k):
                break
        out.append((r.clock.t - t0, changes(r, k), pos))
        r.world.tokens[k] = set()
        r.tick(rest_ms)
    return out


def bits(mask):
    return bin(mask).count("1")


def changes(r, k):
    return [m["mask"] for m in r.of("TRACK_CHANGE") if m["lane"] == k]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_slow_slide_and_resting_between_spaces_never_two_tokens(tmp_path, seed):
    r = Rig(tmp_path, seed=seed)
    HallSwitches(r, HALL_PERIOD_MS, random.Random(seed))
    k = r.smap.lane_index("technology.p2")
    r.world.tokens[k] = {0}
    r.tick(400)
    assert changes(r, k) == [1]
    r.clear()
    rng = random.Random(seed * 7)
    for p in range(7):
        # the magnet crosses the gap: both switches see it, then only the next one
        r.world.tokens[k] = {p, p + 1}
        r.tick(rng.randint(30, 400) if p != 3 else 3000)  # rests between 3 and 4 for 3 s
        r.world.tokens[k] = {p + 1}
        r.tick(rng.randint(30, 300))
    r.tick(500)
    got = changes(r, k)
    assert got and got[-1] == 1 << 7
    assert all(bits(m) == 1 for m in got), [bin(m) for m in got]
    assert r.board.scanner.stable[k] == 1 << 7


@pytest.mark.parametrize("seed", range(1, 9))
def test_a_token_placed_straddling_two_spaces_is_never_two_tokens(tmp_path, seed):
    """Set down across spaces 2 and 3, the token is never two tokens: either nothing is reported
    (both switches saw it within a debounce) or, when one switch samples a period before the
    other, that one space; once it rests on space 3, space 3 is reported."""
    r = Rig(tmp_path)
    HallSwitches(r, HALL_PERIOD_MS, random.Random(seed))
    k = r.smap.lane_index("culture.p1")
    r.clear()
    r.world.tokens[k] = {2, 3}
    r.tick(2000)
    assert changes(r, k) in ([], [1 << 2], [1 << 3])
    r.world.tokens[k] = {3}
    r.tick(300)
    got = changes(r, k)
    assert got[-1] == 1 << 3 and all(bits(m) == 1 for m in got)


def test_two_tokens_apart_are_reported_as_they_are(tmp_path):
    r = Rig(tmp_path)
    HallSwitches(r, HALL_PERIOD_MS, random.Random(5))
    k = r.smap.lane_index("food.p1")
    r.world.tokens[k] = {1}
    r.tick(300)
    r.clear()
    r.world.tokens[k] = {1, 6}
    r.tick(600)
    assert changes(r, k) == [(1 << 1) | (1 << 6)]


def test_debounce_outlasts_the_switch_period_and_placement_stays_fast(tmp_path):
    r = Rig(tmp_path)
    sc = r.board.scanner
    assert sc.hold_scans * r.board.scan_ms > HALL_PERIOD_MS  # stale outputs are outlasted
    HallSwitches(r, HALL_PERIOD_MS, random.Random(4))
    done = placements(r, 40, HALL_PERIOD_MS + 100,
                      HALL_PERIOD_MS + sc.hold_scans * r.board.scan_ms + 20)
    assert all(masks == [1 << pos] for _, masks, pos in done), done
    lat = [t for t, _, _ in done]
    # the switch's own sampling (0..period) + 4 scans + the link; never the long window
    assert max(lat) <= HALL_PERIOD_MS + sc.stable_scans * r.board.scan_ms + 10, lat
    assert statistics.median(lat) < HALL_PERIOD_MS / 2 + sc.stable_scans * r.board.scan_ms + 10


def faults(msg):
    return [tuple(f) for f in msg["faults"]]


def unprompted(r):
    return [m for m in r.of("SELF_TEST") if m["trigger"] == wire.TEST_UNPROMPTED]


def test_stuck_bits_are_reported_unprompted_when_they_appear_and_clear(tmp_path):
    r = Rig(tmp_path, stuck_ms=2000)
    k = r.smap.lane_index("culture.p1")
    bit = r.smap.lane_bits(k)[3]
    r.world.tokens[k] = {3}
    r.tick(100)
    r.clear()
    r.world.stuck[bit] = 0  # the switch under space 3 stays on
    r.world.tokens[k] = {6}  # while the token moves on
    r.tick(1500)
    assert not unprompted(r)  # not yet stuck_ms
    r.tick(2000)
    reps = unprompted(r)
    assert len(reps) == 1 and [f for f in faults(reps[0]) if f[0] == wire.FAULT_BIT_STUCK][0][1] == bit
    assert not r.of("CMD_SELF_TEST")
    r.clear()
    r.world.stuck.pop(bit)
    r.tick(1500)
    reps = unprompted(r)
    assert len(reps) == 1 and not [f for f in faults(reps[0]) if f[0] == wire.FAULT_BIT_STUCK]
    # a spare input away from its level: reported within a second of appearing
    r.clear()
    r.world.stuck[70] = 0
    r.tick(1100)
    reps = unprompted(r)
    assert reps and (wire.FAULT_BIT_STUCK, 70) in [f[:2] for f in faults(reps[-1])]


def test_a_stuck_bit_already_in_a_report_is_not_reported_again(tmp_path):
    """A spare input goes stuck and a sensor is unplugged together: the sensor's report lists
    both, and the once-a-second check sends no copy of it, so an answer on command stays the
    latest report (CI saw the copy arrive after it)."""
    r = Rig(tmp_path)
    r.tick(100)
    r.clear()
    r.world.stuck[70] = 0
    r.tick(20)  # the scan sees the spare at once; the stuck check runs once a second
    r.world.sensors[0].present = False
    r.tick(60)
    reps = unprompted(r)
    assert len(reps) == 1
    assert (wire.FAULT_BIT_STUCK, 70) in [f[:2] for f in faults(reps[0])]
    assert (wire.FAULT_SENSOR_MISSING, 0) in [f[:2] for f in faults(reps[0])]
    r.clear()
    r.tick(2100)
    assert not unprompted(r)


def test_wrong_sensor_id_is_reported_unprompted_and_its_return(tmp_path):
    r = Rig(tmp_path)
    r.tick(100)
    r.clear()
    r.world.sensors[1].chip_id = 0x77  # another chip answers at 0x29 (a swapped board)
    r.tick(1100)
    reps = unprompted(r)
    assert len(reps) == 1 and (wire.FAULT_SENSOR_ID, 1, 0x77) in faults(reps[0])
    r.clear()
    r.world.sensors[1].chip_id = 0x44
    r.tick(1100)
    reps = unprompted(r)
    assert len(reps) == 1 and not [f for f in faults(reps[0]) if f[0] == wire.FAULT_SENSOR_ID]
    # missing, then back with the wrong ID: the change of fault is reported too
    r.clear()
    r.world.sensors[0].present = False
    r.tick(1100)
    r.world.sensors[0].chip_id = 0x10
    r.world.sensors[0].present = True
    r.tick(1100)
    kinds = [[f[0] for f in faults(m) if f[1] == 0 and f[0] in (1, 2)] for m in unprompted(r)]
    assert [wire.FAULT_SENSOR_MISSING] in kinds and kinds[-1] == [wire.FAULT_SENSOR_ID]


@pytest.mark.parametrize("seed", [1, 2])
def test_fast_lane_read_equals_the_bit_by_bit_read(seed):
    """The scanner cuts a lane on consecutive chain bits out of a 24-bit window; whatever the
    chain shows, that must be the mask the per-space read gives."""
    from firmware.tracks import TrackScanner
    from tests.firmware.harness import load_map
    smap = load_map()
    sc = TrackScanner(smap)
    assert any(sc.lane_fast), "the default map has lanes on consecutive bits"
    rng = random.Random(seed)
    for _ in range(300):
        buf = bytearray(rng.randrange(256) for _ in range(smap.chain_registers + 1))
        for k in range(smap.n_lanes):
            fast = sc.lane_raw(buf, k)
            slow = 0
            for i in range(len(smap.lane_byte[k])):
                if not buf[smap.lane_byte[k][i]] & smap.lane_mask[k][i]:
                    slow |= 1 << i
            assert fast == slow, (k, bytes(buf))


def test_a_hand_sweeping_every_lane_reaches_the_tablet_whole(tmp_path):
    """Every lane changes in the same scan: the scanner commits a few lanes per scan and the
    board sends a few frames per step (bounding its worst step); every lane still reaches the
    tablet once, with its final mask, soon after."""
    from firmware.tracks import COMMITS_PER_SCAN
    r = Rig(tmp_path)
    n = r.smap.n_lanes
    assert n > COMMITS_PER_SCAN  # the budget is really exercised
    r.tick(300)
    for sweep in range(3):
        r.clear()
        t0 = r.clock.t
        want = {}
        for k in range(n):
            pos = (sweep * 3 + k) % r.smap.n_spaces(k)
            r.world.tokens[k] = {pos}
            want[k] = 1 << pos
        assert r.run_until(lambda: len({m["lane"] for m in r.of("TRACK_CHANGE")}) == n, 400)
        got = {}
        for m in r.of("TRACK_CHANGE"):
            assert m["lane"] not in got  # one frame per lane
            got[m["lane"]] = m["mask"]
        assert got == want
        # 4 scans to confirm, then n / COMMITS_PER_SCAN scans more, frames 2 a step
        assert r.clock.t - t0 <= 20 + 5 * (n // COMMITS_PER_SCAN + 1) + 20
        r.tick(100)
