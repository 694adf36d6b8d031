"""Guidance lights on the firmware's own Board (simulated HT16K33s, real link): CMD_LIGHTS
lights a position, the board puts it out by itself when its switch sees the token arrive, bad
commands are answered as docs/protocol.md 3.7 says, and a fresh pairing or a reset starts dark."""
import pytest

from protocol import wire
from tests.firmware.harness import NO_RES_MAP_PATH, Rig


def _lights(rig, pairs):
    return rig.host.command(wire.CMD_LIGHTS, {"lights": pairs})


def _settle(rig, ms=60):
    rig.run_until(lambda: False, ms)


def test_a_light_goes_on_and_out_when_the_token_arrives(tmp_path):
    rig = Rig(tmp_path)
    k = rig.smap.lane_index("military_might.p2")
    rig.world.tokens[k] = {0}
    _settle(rig, 200)
    _lights(rig, [(k, 3)])
    _settle(rig)
    assert rig.world.lit_positions() == {(k, 3)}
    assert rig.board.lit_positions() == [(k, 3)]
    chip = rig.world.lights[rig.smap.lane_byte[k][3] // 16]
    assert chip.osc and chip.display  # the driver switched the chip on
    # the token slides from 0 to 3: no command from the tablet, the light goes out
    rig.clear()
    seq_before = rig.host.tx_next
    for p in (1, 2, 3):
        rig.world.tokens[k] = {p}
        _settle(rig, 40)
    rig.run_until(lambda: not rig.world.lit_positions(), 500)
    assert rig.world.lit_positions() == set() and rig.board.lit_positions() == []
    changes = [m for m in rig.of("TRACK_CHANGE") if m["lane"] == k]
    assert changes and changes[-1]["mask"] == 1 << 3
    assert not [m for m in rig.of("ERROR")]
    # the tablet sent no command meanwhile (only ACKs and heartbeats): no round trip
    assert rig.host.tx_next == seq_before


def test_the_set_is_replaced_and_an_occupied_space_is_not_lit(tmp_path):
    rig = Rig(tmp_path)
    a, b = rig.smap.lane_index("food.p1"), rig.smap.lane_index("culture.p2")
    rig.world.tokens[b] = {5}
    _settle(rig, 200)
    _lights(rig, [(a, 10), (b, 5), (b, 2)])
    _settle(rig)
    assert rig.world.lit_positions() == {(a, 10), (b, 2)}  # culture.p2 space 5 holds a token
    _lights(rig, [(a, 0)])
    _settle(rig)
    assert rig.world.lit_positions() == {(a, 0)}
    _lights(rig, [])
    _settle(rig)
    assert rig.world.lit_positions() == set()


def test_bad_lights_commands_are_answered_and_change_nothing(tmp_path):
    rig = Rig(tmp_path)
    k = rig.smap.lane_index("wood.p2")
    _lights(rig, [(k, 4)])
    _settle(rig)
    rig.clear()
    # lane past the map, position past the lane: ERROR bad_argument naming it, set unchanged
    _lights(rig, [(k, 5), (rig.smap.n_lanes, 0)])
    _settle(rig)
    _lights(rig, [(k, 11)])
    _settle(rig)
    errs = rig.of("ERROR")
    assert [e["code"] for e in errs] == [wire.E_BAD_ARGUMENT, wire.E_BAD_ARGUMENT]
    assert all(e["ref_type"] == wire.CMD_LIGHTS for e in errs)
    assert "lane %d" % rig.smap.n_lanes in errs[0]["detail"] and "positions 0-10" in errs[1]["detail"]
    assert rig.world.lit_positions() == {(k, 4)}
    # nine lights (over MAX_LIT): the tablet's encoder refuses them, so send the frame raw
    rig.clear()
    body = wire.build_body(wire.CMD_LIGHTS, rig.host.tx_next, rig.host.rx_expected,
                           bytes([9]) + bytes(18), rig.host.session, rig.host.peer_session)
    from protocol import cobs
    rig.stream.inbox += b"\x00" + cobs.encode(body) + b"\x00"
    rig.host.tx_next += 1  # the board consumed that number
    _settle(rig)
    errs = rig.of("ERROR")
    assert [e["code"] for e in errs] == [wire.E_BAD_PAYLOAD] and errs[0]["ref_type"] == wire.CMD_LIGHTS
    assert rig.world.lit_positions() == {(k, 4)}
    # the link goes on: a good command after it is taken
    _lights(rig, [(k, 6)])
    _settle(rig)
    assert rig.world.lit_positions() == {(k, 6)}


def test_a_new_tablet_session_and_a_reset_start_dark(tmp_path):
    rig = Rig(tmp_path)
    k = rig.smap.lane_index("money.p1")
    _lights(rig, [(k, 7)])
    _settle(rig)
    assert rig.world.lit_positions() == {(k, 7)}
    # an unplug that resumes keeps them
    rig.host.last_rx_ms = -10 ** 6
    rig.run_until(lambda: rig.host.synced and rig.of("LINK_UP")[-1:] and rig.host.counters["link_down"], 3000)
    _settle(rig, 100)
    assert rig.of("LINK_UP")[-1]["resumed"] is True
    assert rig.world.lit_positions() == {(k, 7)}
    # the app restarts (new tablet session): the board's fresh start clears them
    from protocol.link import HostLink
    rig.msgs.clear()
    rig.host = HostLink(rig._host_write, rig.clock, rig.msgs.append, rig.host.info, 99)
    rig.run_until(lambda: rig.of("SNAPSHOT"), 3000)
    _settle(rig)
    assert rig.world.lit_positions() == set()
    _lights(rig, [(k, 2)])
    _settle(rig)
    assert rig.world.lit_positions() == {(k, 2)}
    # the board resets: it boots dark
    rig.boot()
    assert rig.world.lit_positions() == set()


def test_a_board_without_lights_takes_the_command_and_a_missing_chip_is_a_fault(tmp_path):
    def no_lights(world):
        for chip in world.lights:
            chip.present = False
    rig = Rig(tmp_path, setup=no_lights)
    assert rig.board.lights is None
    report = rig.of("SELF_TEST")[0]
    assert not [f for f in report["faults"] if f[0] == wire.FAULT_LIGHTS]  # not a fault
    _lights(rig, [(0, 1)])
    _settle(rig)
    assert not rig.of("ERROR")

    def chip1_missing(world):
        world.lights[1].present = False
    rig2 = Rig(tmp_path / "b", setup=chip1_missing)
    faults = rig2.of("SELF_TEST")[0]["faults"]
    assert (wire.FAULT_LIGHTS, 1, 0x71) in [tuple(f) for f in faults]
    assert "0x71" in wire.fault_where(wire.FAULT_LIGHTS, 1, 0x71)
    # lights on chips 0 and 2 still work
    k = rig2.smap.lane_index("government.p1")
    _lights(rig2, [(k, 0)])
    _settle(rig2)
    assert rig2.world.lit_positions() == {(k, 0)}


def test_the_map_without_resource_boards_needs_one_chip(tmp_path):
    rig = Rig(tmp_path, map_path=NO_RES_MAP_PATH)
    assert len(rig.board.lights.chips) == 1 and len(rig.world.lights) == 1
    k = rig.smap.lane_index("civilian_happiness.p2")
    _lights(rig, [(k, 5)])
    _settle(rig)
    assert rig.world.lit_positions() == {(k, 5)}


def test_every_sensed_position_has_its_own_led():
    from firmware import ht16k33
    from tests.firmware.harness import load_map
    for smap in (load_map(), load_map(NO_RES_MAP_PATH)):
        leds = set()
        n = 0
        for k in range(smap.n_lanes):
            for b in smap.lane_bits(k):
                leds.add(ht16k33.led_of(b))
                n += 1
        assert len(leds) == n == smap.n_sensors()
        assert ht16k33.check_map(smap) == ht16k33.chips_for(smap.chain_registers)
        assert max(c for c, _, _ in leds) < ht16k33.chips_for(smap.chain_registers)


def test_a_map_the_drivers_cannot_light_is_refused_naming_the_entry():
    import types
    from firmware import ht16k33
    smap = types.SimpleNamespace(n_lanes=2, lane_ids=["a.p1", "far.p2"], chain_registers=130,
                                 lane_byte=[bytes([0, 0]), bytes([127, 129])],
                                 lane_mask=[bytes([0x80, 0x40]), bytes([0x01, 0x20])])
    with pytest.raises(ht16k33.LightsMapError) as exc:
        ht16k33.check_map(smap)
    msg = str(exc.value)
    assert "'far.p2' (lanes[1]) space 1" in msg and "register 129" in msg and "HT16K33 number 8" in msg


def _strips(path):
    import json
    with open(path) as f:
        doc = json.load(f)
    return [s["first_register"] for s in doc["strips"]], [s["id"] for s in doc["strips"]]


def test_with_the_maps_strips_no_board_is_split_between_chips():
    from firmware import ht16k33
    from tests.firmware.harness import MAP_PATH, load_map
    starts, ids = _strips(MAP_PATH)
    smap = load_map()
    cs = ht16k33.chip_starts(smap.chain_registers, starts, ids)
    assert cs == [0, 16, 25]  # the 8 track boards; resource board p1; resource board p2
    assert ht16k33.check_map(smap, starts, ids) == 3
    leds = {ht16k33.led_of(b, cs) for k in range(smap.n_lanes) for b in smap.lane_bits(k)}
    assert len(leds) == smap.n_sensors() and max(r for _, r, _ in leds) < 16
    # every strip's registers on one chip
    for n, first in enumerate(sorted(starts)):
        last = (sorted(starts) + [smap.chain_registers])[n + 1] - 1
        assert ht16k33.chip_of(first, cs) == ht16k33.chip_of(last, cs)
    assert ht16k33.chip_starts(16, _strips(NO_RES_MAP_PATH)[0]) == [0]
    # a board of 18 registers cannot be lit by one chip: refused, naming it
    with pytest.raises(ht16k33.LightsMapError) as exc:
        ht16k33.chip_starts(40, [0, 2, 20], ["dev", "big", "tail"])
    assert "strip 'big' (strips[1]) has 18 registers (2-19)" in str(exc.value)


def test_the_board_lights_by_board_from_the_strips_the_loader_keeps(tmp_path):
    """The loader keeps the strips' first registers (SensorMap.strip_starts), so the board and
    the simulated chips use the board-aligned layout: the full map's chips start at registers
    0 (the 8 track boards), 16 (resource board p1) and 25 (resource board p2, chip 2 ROW 0);
    the map without resource boards needs the first only."""
    rig = Rig(tmp_path)
    assert rig.board.lights.starts == [0, 16, 25] and rig.world.light_starts == [0, 16, 25]
    k = rig.smap.lane_index("food.p2")
    _lights(rig, [(k, 0)])
    _settle(rig)
    assert rig.world.lit_positions() == {(k, 0)}
    chip = rig.world.lights[2]
    assert chip.lit(rig.smap.lane_byte[k][0] - 25, rig.smap.lane_bits(k)[0] & 7)
    assert rig.board.smap.strip_starts is None  # start-up only: the chips hold their starts
    small = Rig(tmp_path / "no_res", map_path=NO_RES_MAP_PATH)
    assert small.board.lights.starts == [0] and len(small.world.lights) == 1


def test_the_board_goes_dark_before_it_stops_for_the_repl(tmp_path):
    rig = Rig(tmp_path)
    _lights(rig, [(3, 1)])
    _settle(rig)
    assert rig.world.lit_positions() == {(3, 1)}
    rig.host.command(wire.CMD_REPL)
    rig.run_until(lambda: not rig.board.running, 1000)
    assert not rig.board.running and rig.world.lit_positions() == set()


def test_the_profile_sets_brightness_or_says_there_are_no_lights(tmp_path):
    rig = Rig(tmp_path)
    assert rig.world.lights[0].dim == 15
    rig.profile["lights"] = {"dim": 7}
    rig.boot()
    assert [c.dim for c in rig.world.lights] == [7, 7, 7]
    rig.profile["lights"] = False
    before = len(rig.world.lights[0].writes)
    rig.boot()
    assert rig.board.lights is None and len(rig.world.lights[0].writes) == before  # not even probed
