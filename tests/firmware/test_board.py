"""The firmware Board against simulated chips and a real HostLink, in simulated time."""
import os

from protocol import wire
from firmware import calib
from tests.firmware.harness import Rig, NO_RES_MAP_PATH


def faults_of(msg):
    return [tuple(f) for f in msg["faults"]]


def test_boot_snapshot_hash_and_boot_report(tmp_path):
    def setup(world):
        world.tokens[0] = {2}
        world.tokens[20] = {0, 9}
    r = Rig(tmp_path, setup=setup)
    link_up = r.of("LINK_UP")[0]
    assert bytes(link_up["peer"]["map_hash"]) == r.smap.hash8
    snap = r.of("SNAPSHOT")[-1]
    assert snap["lanes"][0] == 1 << 2
    assert snap["lanes"][20] == (1 << 0) | (1 << 9)  # two tokens: both bits, never guessed
    assert all(m == 0 for i, m in enumerate(snap["lanes"]) if i not in (0, 20))
    r.run_until(lambda: r.of("SELF_TEST"), 500)
    st = r.of("SELF_TEST")[0]
    assert st["trigger"] == wire.TEST_AT_BOOT
    assert st["registers"] == r.smap.chain_registers == 40
    assert faults_of(st) == [(wire.FAULT_CAL_DEFAULTS, 0, 0)]


def test_track_change_after_debounce_and_slide_has_no_phantoms(tmp_path):
    r = Rig(tmp_path)
    k = r.smap.lane_index("technology.p2")
    r.clear()
    r.world.tokens[k] = {1}
    assert r.run_until(lambda: r.of("TRACK_CHANGE"), 200)
    assert [(m["lane"], m["mask"]) for m in r.of("TRACK_CHANGE")] == [(k, 0b10)]
    r.clear()
    # slide 1 -> 6: each boundary shows both spaces for 6 ms, then the next space for 6 ms
    t = r.clock.t
    for p in range(1, 6):
        r.world.at(t, lambda p=p: r.world.tokens.__setitem__(k, {p, p + 1}))
        r.world.at(t + 6, lambda p=p: r.world.tokens.__setitem__(k, {p + 1}))
        t += 12
    r.tick(200)
    assert [(m["lane"], m["mask"]) for m in r.of("TRACK_CHANGE")] == [(k, 1 << 6)]


def test_dice_roll_settles_reports_value_then_removed(tmp_path):
    r = Rig(tmp_path)
    r.clear()
    r.world.optics[1].roll(r.clock.t, 5, 300, False)
    assert r.run_until(lambda: any(m["state"] == wire.DICE_SETTLED for m in r.of("DICE")), 2000)
    states = [(m["well"], m["state"], m["value"]) for m in r.of("DICE")]
    assert states[0] == (1, wire.DICE_ROLLING, 0)
    assert states[-1] == (1, wire.DICE_SETTLED, 5)
    assert wire.DICE_CROOKED not in [s for _, s, _ in states]
    roll = r.of("DICE")[-1]["roll"]
    r.clear()
    r.world.optics[1].remove()
    assert r.run_until(lambda: r.of("DICE"), 1000)
    assert (r.of("DICE")[-1]["state"], r.of("DICE")[-1]["roll"]) == (wire.DICE_REMOVED, roll)


def test_crooked_die_is_reported_crooked_never_a_value(tmp_path):
    r = Rig(tmp_path)
    r.clear()
    r.world.optics[0].roll(r.clock.t, 3, 200, True)
    assert r.run_until(lambda: any(m["state"] not in (wire.DICE_ROLLING,) for m in r.of("DICE")),
                       2000)
    last = r.of("DICE")[-1]
    assert (last["state"], last["value"]) == (wire.DICE_CROOKED, 0)


def test_self_test_finds_injected_faults(tmp_path):
    def setup(world):
        world.sensors[0].present = False
        world.sensors[1].chip_id = 0x77
        world.stuck[70] = 0  # a spare input (tied high) reads low
        world.set_chain_registers(30)
    r = Rig(tmp_path, setup=setup)
    r.tick(50)
    r.clear()
    r.host.command(wire.CMD_SELF_TEST)
    assert r.run_until(lambda: r.of("SELF_TEST"), 500)
    st = r.of("SELF_TEST")[0]
    f = faults_of(st)
    assert st["trigger"] == wire.TEST_ON_COMMAND
    assert (wire.FAULT_SENSOR_MISSING, 0, 0) in f
    assert (wire.FAULT_SENSOR_ID, 1, 0x77) in f
    assert (wire.FAULT_CHAIN_LENGTH, r.smap.chain_registers, 30) in f
    assert st["registers"] == 30
    assert any(c == wire.FAULT_BIT_STUCK and i == 70 for c, i, v in f)
    assert r.smap.bit_name(70).startswith("spare bit 70")


def test_stuck_lane_bit_found_after_the_token_moved_on(tmp_path):
    r = Rig(tmp_path, stuck_ms=2000)
    k = r.smap.lane_index("culture.p1")
    bit = r.smap.lane_bits(k)[3]
    r.world.tokens[k] = {3}
    r.tick(50)
    r.world.stuck[bit] = 0
    r.world.tokens[k] = {5}  # token moved, space 3 still reads a magnet
    r.tick(2500)
    r.clear()
    r.host.command(wire.CMD_SELF_TEST)
    assert r.run_until(lambda: r.of("SELF_TEST"), 500)
    f = faults_of(r.of("SELF_TEST")[0])
    stuck = [(i, v) for c, i, v in f if c == wire.FAULT_BIT_STUCK]
    assert [i for i, v in stuck] == [bit] and stuck[0][1] >= 2
    assert r.smap.bit_name(bit) == "culture.p1 space 3"


def test_longer_chain_and_unplugged_chain(tmp_path):
    n = 40  # the full map's chain
    r = Rig(tmp_path, setup=lambda w: w.set_chain_registers(n + 6))
    assert r.smap.chain_registers == n
    st = r.board.self_test(wire.TEST_ON_COMMAND)
    assert (wire.FAULT_CHAIN_LENGTH, n, 0xFFFF) in faults_of(st)
    r.world.set_chain_registers(n + 2)
    assert (wire.FAULT_CHAIN_LENGTH, n, n + 2) in faults_of(r.board.self_test(1))
    r.world.set_chain_registers(n)
    assert not [f for f in faults_of(r.board.self_test(1)) if f[0] == wire.FAULT_CHAIN_LENGTH]


def test_missing_resource_board_freezes_lanes_and_reports(tmp_path):
    r = Rig(tmp_path)
    r.clear()
    r.world.set_chain_registers(16)  # the resource strips are unplugged (they have no spare input)
    r.tick(300)
    assert not r.of("TRACK_CHANGE")  # no phantom "every space occupied"
    st = r.of("SELF_TEST")
    assert st and st[-1]["trigger"] == 2
    assert (wire.FAULT_CHAIN_LENGTH, 40, 16) in faults_of(st[-1])


def test_a_missing_last_strip_is_seen_though_it_has_no_spare_input(tmp_path):
    r = Rig(tmp_path)
    r.clear()
    r.world.set_chain_registers(36)  # the last resource strip unplugged: every other spare reads right
    r.tick(300)
    assert not r.of("TRACK_CHANGE")
    st = r.of("SELF_TEST")
    assert st and (wire.FAULT_CHAIN_LENGTH, 40, 36) in faults_of(st[-1])


def test_sensor_lost_at_run_time_is_reported_and_recovers(tmp_path):
    """docs/protocol.md 3.3: a lost sensor's well reads empty (the throw's roll kept); when it
    comes back with the die still in the well, the board reports a new throw (roll + 1, through
    rolling): blind meanwhile, it cannot tell the same die from one thrown again."""
    r = Rig(tmp_path)
    r.world.optics[0].roll(r.clock.t, 2, 100, False)
    r.run_until(lambda: any(m["state"] == wire.DICE_SETTLED for m in r.of("DICE")), 2000)
    roll = [m for m in r.of("DICE") if m["state"] == wire.DICE_SETTLED][-1]["roll"]
    r.clear()
    r.world.sensors[0].present = False
    assert r.run_until(lambda: r.of("SELF_TEST"), 500)
    assert (wire.FAULT_SENSOR_MISSING, 0, 0) in faults_of(r.of("SELF_TEST")[-1])
    assert r.of("DICE")[-1]["state"] == wire.DICE_EMPTY and r.of("DICE")[-1]["roll"] == roll
    r.clear()
    r.world.sensors[0].present = True  # the die never left the well
    assert r.run_until(lambda: r.of("SELF_TEST"), 2000)
    assert not [f for f in faults_of(r.of("SELF_TEST")[-1]) if f[0] == wire.FAULT_SENSOR_MISSING]
    assert r.run_until(lambda: any(m["state"] == wire.DICE_SETTLED for m in r.of("DICE")), 2000)
    dice = [(m["state"], m["value"], m["roll"]) for m in r.of("DICE") if m["well"] == 0]
    assert dice[0] == (wire.DICE_ROLLING, 0, (roll + 1) & 0xFF)
    assert dice[-1] == (wire.DICE_SETTLED, 2, (roll + 1) & 0xFF)


def _cal(r, step, well=0, face=0):
    r.clear()
    r.host.command(wire.CMD_CALIBRATE, {"step": step, "well": well, "face": face})
    r.run_until(lambda: r.of("CAL_STATUS"), 500)
    return r.of("CAL_STATUS")[-1]


def test_guided_calibration_round_trip(tmp_path):
    r = Rig(tmp_path)
    assert _cal(r, wire.CAL_CAPTURE, 1, 3)["status"] == wire.CAL_NOT_ACTIVE
    assert _cal(r, wire.CAL_BEGIN, 1)["status"] == wire.CAL_OK
    assert _cal(r, wire.CAL_CAPTURE, 1, 3)["status"] == wire.CAL_NO_DIE
    for face in range(1, 7):
        r.world.optics[1].roll(r.clock.t, face, 50, False)
        r.tick(500)  # 3 stable LED-on minus LED-off readings (~64 ms each) after the tumble
        st = _cal(r, wire.CAL_CAPTURE, 1, face)
        assert st["status"] == wire.CAL_OK, st
        assert st["c"] > 500
    assert _cal(r, wire.CAL_SAVE, 1)["status"] == wire.CAL_OK
    path = os.path.join(str(tmp_path), "calibration.json")
    store = calib.Store(path, 2)
    assert store.load() and store.captured[1] == [1] * 6 and store.captured[0] == [0] * 6
    r.clear()
    r.host.command(wire.CMD_SELF_TEST)
    r.run_until(lambda: r.of("SELF_TEST"), 500)
    assert faults_of(r.of("SELF_TEST")[-1]) == []
    # the new calibration survives a reset and is used
    r.boot()
    r.clear()
    assert r.run_until(lambda: r.of("SNAPSHOT"), 3000)
    assert not r.board.store.defaults_in_use
    assert r.board.classifiers[1].fc[0] == store.wells[1][0][0]
    assert _cal(r, wire.CAL_DEFAULTS, 255)["status"] == wire.CAL_OK
    assert calib.Store(path, 2).load() and calib.Store(path, 2).captured == [[0] * 6] * 2


def test_capture_while_rolling_is_unstable(tmp_path):
    r = Rig(tmp_path)
    _cal(r, wire.CAL_BEGIN, 0)
    r.world.optics[0].roll(r.clock.t, 4, 5000, False)
    r.tick(200)
    assert _cal(r, wire.CAL_CAPTURE, 0, 4)["status"] == wire.CAL_UNSTABLE
    assert _cal(r, wire.CAL_CANCEL, 0)["status"] == wire.CAL_OK
    assert _cal(r, wire.CAL_SAVE, 0)["status"] == wire.CAL_NOT_ACTIVE


def test_bad_arguments_get_error_bad_argument(tmp_path):
    r = Rig(tmp_path)
    for fields in ({"step": 9, "well": 0, "face": 0}, {"step": wire.CAL_BEGIN, "well": 7, "face": 0},
                   {"step": wire.CAL_CAPTURE, "well": 0, "face": 0}):
        r.clear()
        r.tick(150)  # the board rate-limits ERROR replies to one per 100 ms
        r.host.command(wire.CMD_CALIBRATE, fields)
        r.run_until(lambda: r.of("ERROR") and r.of("CAL_STATUS"), 500)
        assert r.of("ERROR")[0]["code"] == wire.E_BAD_ARGUMENT
        assert r.of("ERROR")[0]["ref_type"] == wire.CMD_CALIBRATE
        assert r.of("CAL_STATUS")[0]["status"] == wire.CAL_BAD_ARG
    r.clear()
    r.tick(150)
    r.host.command(wire.CMD_INDICATOR, {"mode": 42})
    r.run_until(lambda: r.of("ERROR"), 500)
    assert r.of("ERROR")[0]["code"] == wire.E_BAD_ARGUMENT
    r.host.command(wire.CMD_INDICATOR, {"mode": wire.IND_IDENTIFY})
    r.tick(100)
    assert r.board.identify_until is not None


def test_garbled_input_gets_error_and_link_survives(tmp_path):
    r = Rig(tmp_path)
    r.clear()
    r.stream.inbox += b"\x00\x05garbage-bytes\x01\x02\x00"
    r.run_until(lambda: r.of("ERROR"), 500)
    assert r.of("ERROR")[0]["code"] in (wire.E_BAD_CRC, wire.E_BAD_FRAMING, wire.E_TOO_SHORT)
    r.world.tokens[3] = {4}
    assert r.run_until(lambda: r.of("TRACK_CHANGE"), 500)


def test_corrupt_calibration_file_gives_defaults_and_warning(tmp_path):
    with open(os.path.join(str(tmp_path), "calibration.json"), "w") as f:
        f.write('{"format": "tabletop-cal", "version": 1, "wells": [')
    r = Rig(tmp_path)
    assert r.board.store.defaults_in_use
    r.run_until(lambda: r.of("SELF_TEST"), 500)
    assert (wire.FAULT_CAL_DEFAULTS, 0, 0) in faults_of(r.of("SELF_TEST")[0])


def test_cmd_repl_stops_the_loop(tmp_path):
    r = Rig(tmp_path)
    r.host.command(wire.CMD_REPL)
    r.tick(300)
    assert r.board.repl_requested and not r.board.running


def test_no_resources_map(tmp_path):
    r = Rig(tmp_path, map_path=NO_RES_MAP_PATH)
    assert r.board.self_test(1)["registers"] == 16
    assert len(r.of("SNAPSHOT")[-1]["lanes"]) == 16


def test_before_pairing_the_board_sends_only_hello_then_snapshot_and_boot_report_at_once(tmp_path):
    from protocol.link import HostLink
    from tests.firmware.harness import Rig as _Rig
    r = _Rig(tmp_path, connect=False)
    r.world.tokens[2] = {1}
    sent = []
    for _ in range(2500):  # no tablet for 2.5 s
        r.clock.t += 1
        r.world.run_due()
        r.board.step()
        if r.stream.out:
            sent += [wire.decode_frame(p)["type"] for p in bytes(r.stream.out).split(b"\x00") if p]
            r.stream.out.clear()
    assert sent == ["HELLO"] * 3  # at boot, 1 s, 2 s: no snapshot or self-test resent to nobody
    assert r.board.link.counters["tx_resent"] == 0
    r.host = HostLink(r._host_write, r.clock, r.msgs.append, r.host.info, 78)
    r.host.send_hello(True)
    r.tick(2)
    types = [m["type"] for m in r.msgs]
    assert types[:3] == ["LINK_UP", "SNAPSHOT", "SELF_TEST"]  # within 2 ms of the tablet's HELLO
    snap, st = r.of("SNAPSHOT")[0], r.of("SELF_TEST")[0]
    assert snap["reason"] == wire.SNAP_BOOT and snap["lanes"][2] == 0b10
    assert st["trigger"] == wire.TEST_AT_BOOT
    assert r.host.counters["rx_not_synced"] == 0 and r.host.counters["rx_out_of_order"] == 0
    r.tick(500)
    assert len(r.of("SELF_TEST")) == 1 and len(r.of("SNAPSHOT")) == 1


def test_a_reply_is_held_when_the_ring_is_full_and_arrives_later(tmp_path):
    r = Rig(tmp_path)
    r.clear()
    # the board's frames stop reaching the tablet (a dead cable one way): its ring fills
    lost = []
    r.board.link.write = lambda b, s, e: lost.append(1)
    k = r.smap.lane_index("technology.p2")
    for i in range(40):
        r.world.tokens[k] = {i % 5}
        r.tick(30)
    assert r.board.link.count == r.board.link.window or r.board.link.snapshot_pending
    r.host.command(wire.CMD_SELF_TEST)
    r.host.command(wire.CMD_CALIBRATE, {"step": wire.CAL_BEGIN, "well": 0, "face": 0})
    r.tick(50)
    assert r.board.link.counters["replies_held"] == 2
    r.board.link.write = r.stream.write  # the cable is fine again
    assert r.run_until(lambda: r.of("SELF_TEST") and r.of("CAL_STATUS"), 3000)
    assert r.of("SELF_TEST")[0]["trigger"] == wire.TEST_ON_COMMAND
    assert r.of("CAL_STATUS")[0]["status"] == wire.CAL_OK
    r.run_until(lambda: r.of("SNAPSHOT"), 3000)  # the folded moves come as a snapshot
    assert r.of("SNAPSHOT")[-1]["lanes"][k] == 1 << (39 % 5)
