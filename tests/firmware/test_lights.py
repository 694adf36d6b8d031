"""Guidance lights on the firmware's own Board (simulated 74HC595s on the 74HC165 chain, real
link): CMD_LIGHTS lights a position, the board puts it out by itself when its switch sees the
token arrive, bad commands are answered as docs/protocol.md 3.7 says, and a fresh pairing or a
reset starts dark. The simulated 595s see only the MOSI bits clocked during the chain reads and
latch on the LOAD rising edge: what they show is the bytes the firmware really sent."""
import json

import pytest

from firmware import hc595
from firmware.hc165 import ShiftChain
from firmware.sim.chips import HC595Chain
from firmware.sim.world import input_letter
from protocol import wire
from tests.firmware.harness import MAP_PATH, NO_RES_MAP_PATH, Rig, load_map, long_chain_map


def _lights(rig, pairs):
    return rig.host.command(wire.CMD_LIGHTS, {"lights": pairs})


def _settle(rig, ms=60):
    rig.run_until(lambda: False, ms)


def _bit(smap, k, i):
    return smap.lane_bits(k)[i]


def _leds(world):
    """Every 595 output that is high, as (register, letter)."""
    ch = world.lights
    return {(r, q) for r in range(ch.registers) for q in HC595Chain.LETTERS if ch.output(r, q)}


# ------------------------------------------------------------------ the image and its buffers
def test_the_image_has_the_read_layout_and_the_out_buffers_are_reversed_with_leading_zeros():
    """image[r] bit 0x80 >> (c & 7) for chain bit c of register r = c >> 3 (input H = MSB);
    out[L - 1 - r] = image[r] for L = registers + 1 (scan) and registers + extra (self-test),
    the leading bytes 0."""
    li = hc595.Lights(34, 4)
    assert len(li.scan_out) == 35 and len(li.full_out) == 38
    for c in (0, 7, 8 + 3, 33 * 8 + 7, 20 * 8 + 5):
        assert li.set(c, True) is True
    assert li.n_lit == 5 and li.is_lit(11) and not li.is_lit(12)
    want = bytearray(34)
    want[0] = 0x80 | 0x01
    want[1] = 0x80 >> 3
    want[33] = 0x01
    want[20] = 0x80 >> 5
    assert li.image == want
    assert li.scan_out == bytes([0]) + bytes(reversed(want))
    assert li.full_out == bytes(4) + bytes(reversed(want))
    li.set(11, True)  # already lit: nothing changes
    li.set(0, False)
    assert li.n_lit == 4 and li.scan_out[34] == 0x01 and li.full_out[37] == 0x01
    assert li.set(34 * 8, True) is False and li.n_lit == 4  # past the chain
    li.clear()
    assert li.n_lit == 0 and not any(li.image) and not any(li.scan_out) and not any(li.full_out)
    with pytest.raises(ValueError):
        hc595.Lights(34, 0)


class _RecordingSPI:
    def __init__(self):
        self.calls = []

    def readinto(self, buf):
        self.calls.append(("readinto", len(buf)))

    def write_readinto(self, out, buf):
        assert len(out) == len(buf)
        self.calls.append(("write_readinto", bytes(out)))


class _Pin:
    def value(self, v=None):
        pass


def test_the_chain_sends_the_image_with_every_read_and_refuses_a_wrong_one():
    spi = _RecordingSPI()
    li = hc595.Lights(3, 4)
    li.set(9, True)  # register 1, input G
    chain = ShiftChain(spi, _Pin(), 3, 4, lights=li)
    chain.read()
    chain.read_twin(bytearray(4))
    chain.read_full()
    assert spi.calls == [("write_readinto", bytes([0, 0, 0x40, 0])),
                         ("write_readinto", bytes([0, 0, 0x40, 0])),
                         ("write_readinto", bytes([0, 0, 0, 0, 0, 0x40, 0]))]
    chain.use_lights(None)
    chain.read()
    assert spi.calls[-1] == ("readinto", 4)
    with pytest.raises(ValueError):
        chain.use_lights(hc595.Lights(4, 4))
    with pytest.raises(ValueError):
        ShiftChain(spi, _Pin(), 3, 2, lights=li)


def test_the_simulated_595s_take_mosi_in_mode_2_and_latch_on_the_load_rising_edge():
    ch = HC595Chain(2)
    ch.transfer(bytes([0xAA, 0x81, 0x42]), 1, 0)  # 3 bytes through 2 registers: 0xAA falls off
    assert ch.shifted(0) == 0x42 and ch.shifted(1) == 0x81 and ch.latched == bytearray(2)
    ch.latch()
    assert ch.latched == bytearray([0x42, 0x81])
    assert not any(ch.output(r, q) for r in range(2) for q in "ABCDEFGH")  # /OE pulled up: dark
    ch.oe_level = lambda: 0  # /OE driven low
    assert ch.output(0, "G") and ch.output(0, "B") and ch.output(1, "H") and ch.output(1, "A")
    assert not ch.output(0, "H") and not ch.output(1, "B")
    # mode 0: MOSI changes on the edge the 595s sample, so each bit lands one place early
    ch.transfer(bytes([0x00, 0x01]), 0, 0)
    assert ch.shifted(0) == 0x03 and ch.shifted(1) == 0x00


# ------------------------------------------------------------------ the board
def test_the_latched_outputs_after_a_scan_equal_the_image(tmp_path):
    rig = Rig(tmp_path)
    smap = rig.smap
    pairs = [(smap.lane_index("food.p1"), 10), (smap.lane_index("culture.p2"), 2),
             (smap.lane_index("wood.p2"), 0), (smap.lane_index("military_might.p2"), 3)]
    _lights(rig, pairs)
    _settle(rig, 20)
    img = rig.board.lights.image
    assert bin(int.from_bytes(img, "big")).count("1") == 4
    assert rig.world.lights.latched == img  # byte for byte
    assert rig.world.lit_positions() == set(pairs)
    # the out buffers the board sends are the image reversed, after the leading zeros
    li = rig.board.lights
    n = smap.chain_registers
    assert li.scan_out == bytes(1) + bytes(reversed(img)) and len(li.scan_out) == n + 1
    assert li.full_out == bytes(rig.board.chain.extra) + bytes(reversed(img))


def test_a_lit_positions_led_is_the_output_of_the_same_letter_on_the_register_that_reads_it(tmp_path):
    """Every sensed position of the map, eight at a time: the 595 outputs that are high are
    exactly, for each lit position, the output of the input's letter (H..A) on the 595 of the
    register that reads it."""
    rig = Rig(tmp_path)
    smap = rig.smap
    every = [(k, i) for k in range(smap.n_lanes) for i in range(smap.n_spaces(k))]
    assert len(every) == smap.n_sensors() == 304
    for n in range(0, len(every), wire.MAX_LIT):
        group = every[n:n + wire.MAX_LIT]
        _lights(rig, group)
        _settle(rig, 15)
        want = set()
        for k, i in group:
            c = _bit(smap, k, i)
            r, letter = c >> 3, input_letter(c)
            assert smap.lane_byte[k][i] == r and smap.lane_mask[k][i] == 0x80 >> "HGFEDCBA".index(letter)
            want.add((r, letter))
        assert _leds(rig.world) == want, group
        assert rig.world.lit_positions() == set(group)


def test_every_sensed_position_has_its_own_led_on_any_map():
    for smap in (load_map(), load_map(NO_RES_MAP_PATH)):
        leds = {(b >> 3, input_letter(b)) for k in range(smap.n_lanes) for b in smap.lane_bits(k)}
        assert len(leds) == smap.n_sensors()
        assert max(r for r, _ in leds) < smap.chain_registers


def test_lights_survive_the_double_read_and_the_self_test_read(tmp_path):
    """Every LOAD pulse of a scan (two per scan: the read and its twin) and of the self-test's
    long read latches the same image: no dark glitch between reads."""
    rig = Rig(tmp_path)
    k = rig.smap.lane_index("money.p1")
    _lights(rig, [(k, 7), (k, 2)])
    _settle(rig, 20)
    img = bytes(rig.board.lights.image)
    seen = []
    ch = rig.world.lights
    real = ch.latch

    def latch():
        real()
        seen.append(bytes(ch.latched))
    ch.latch = latch
    scans = rig.board.scanner.scans
    _settle(rig, 50)
    assert rig.board.scanner.scans - scans >= 9
    assert len(seen) >= 2 * 9 and all(s == img for s in seen)
    del seen[:]
    rig.host.command(wire.CMD_SELF_TEST)
    _settle(rig, 20)
    assert rig.of("SELF_TEST")[-1]["trigger"] == wire.TEST_ON_COMMAND
    assert seen and all(s == img for s in seen)
    assert rig.world.lit_positions() == {(k, 7), (k, 2)}


def test_a_light_goes_on_and_out_when_the_token_arrives(tmp_path):
    rig = Rig(tmp_path)
    k = rig.smap.lane_index("military_might.p2")
    rig.world.tokens[k] = {0}
    _settle(rig, 200)
    _lights(rig, [(k, 3)])
    _settle(rig)
    assert rig.world.lit_positions() == {(k, 3)}
    assert rig.board.lit_positions() == [(k, 3)]
    # the token slides from 0 to 3: no command from the tablet, the light goes out
    rig.clear()
    seq_before = rig.host.tx_next
    for p in (1, 2, 3):
        rig.world.tokens[k] = {p}
        _settle(rig, 40)
    rig.run_until(lambda: not rig.world.lit_positions(), 500)
    assert rig.world.lit_positions() == set() and rig.board.lit_positions() == []
    assert not any(rig.world.lights.latched)
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
    assert rig.world.lit_positions() == set() and not any(rig.world.lights.latched)


def test_bad_lights_commands_are_answered_and_change_nothing(tmp_path):
    rig = Rig(tmp_path)
    k = rig.smap.lane_index("wood.p2")
    _lights(rig, [(k, 4)])
    _settle(rig)
    rig.clear()
    # lane past the map, position past the lane: ERROR bad_argument naming it, set unchanged
    _lights(rig, [(k, 5), (rig.smap.n_lanes, 0)])
    _settle(rig)
    _lights(rig, [(k, rig.smap.n_spaces(k))])
    _settle(rig)
    errs = rig.of("ERROR")
    assert [e["code"] for e in errs] == [wire.E_BAD_ARGUMENT, wire.E_BAD_ARGUMENT]
    assert all(e["ref_type"] == wire.CMD_LIGHTS for e in errs)
    assert "lane %d" % rig.smap.n_lanes in errs[0]["detail"] and "positions 0-15" in errs[1]["detail"]
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
    # the board resets (the 595s keep their outputs, powered): its boot scans latch a dark image
    rig.boot()
    assert rig.world.lit_positions() == set() and not any(rig.world.lights.latched)


def test_the_595s_power_up_with_random_outputs_and_the_boot_latches_them_dark(tmp_path):
    seen = {}

    def look(world):
        seen["power_up"] = bytes(world.lights.latched)
    rig = Rig(tmp_path, setup=look, connect=False)
    assert any(seen["power_up"])  # random bits before the firmware's first reads
    assert not any(rig.world.lights.latched)  # dark by the end of the Board's start-up


def test_a_board_without_lights_acknowledges_the_command_and_lights_nothing(tmp_path):
    """Profile "lights": false: no image kept, the reads send zeros (so even a chain with 595s
    on it stays dark), CMD_LIGHTS acknowledged without an error; never a fault."""
    def built_without(world):  # the world keeps its 595s; the board's profile says none
        world.profile["lights"] = False
    rig = Rig(tmp_path, setup=built_without)
    assert rig.board.lights is None and rig.world.lights is not None
    assert not [f for f in rig.of("SELF_TEST")[0]["faults"] if f[0] == wire.FAULT_LIGHTS]
    rig.clear()
    k = rig.smap.lane_index("food.p1")
    _lights(rig, [(k, 1), (k, 2)])
    rig.run_until(lambda: rig.host.count == 0, 500)
    _settle(rig)
    assert rig.host.count == 0 and not rig.of("ERROR")  # acknowledged, no error
    assert rig.board.lit_positions() == [] and rig.world.lit_positions() == set()
    assert not any(rig.world.lights.latched)
    rig.host.command(wire.CMD_SELF_TEST)
    _settle(rig)
    assert not [f for f in rig.of("SELF_TEST")[-1]["faults"] if f[0] == wire.FAULT_LIGHTS]
    # the virtual board built from that profile has no 595s at all
    from firmware.sim.world import World
    assert World(rig.smap, rig.profile, rig.clock).lights is None


def test_a_board_with_lights_reports_no_light_fault(tmp_path):
    rig = Rig(tmp_path)
    assert rig.board.lights is not None
    assert not [f for f in rig.of("SELF_TEST")[0]["faults"] if f[0] == wire.FAULT_LIGHTS]
    assert "older firmware" in wire.fault_where(wire.FAULT_LIGHTS, 1, 0x71)


def test_the_map_without_resource_boards_lights_its_16_registers(tmp_path):
    rig = Rig(tmp_path, map_path=NO_RES_MAP_PATH)
    assert rig.board.lights.registers == 16 and rig.world.lights.registers == 16
    k = rig.smap.lane_index("civilian_happiness.p2")
    _lights(rig, [(k, 5)])
    _settle(rig)
    assert rig.world.lit_positions() == {(k, 5)}


def test_any_chain_length_can_be_lit(tmp_path):
    """A map of another game 132 registers long (33 lanes of 32 spaces; the HT16K33 design
    could not light past register 127): its last lane's last space is lit like the first."""
    p = tmp_path / "big.json"
    p.write_text(json.dumps(long_chain_map()))
    rig = Rig(tmp_path, map_path=str(p))
    _lights(rig, [(32, 31), (0, 0), (31, 5)])
    _settle(rig)
    assert rig.world.lit_positions() == {(32, 31), (0, 0), (31, 5)}
    assert _leds(rig.world) == {(131, "A"), (0, "H"), (124, "C")}
    assert rig.world.lights.latched == rig.board.lights.image


def test_the_board_goes_dark_before_it_stops_for_the_repl(tmp_path):
    rig = Rig(tmp_path)
    _lights(rig, [(3, 1)])
    _settle(rig)
    assert rig.world.lit_positions() == {(3, 1)}
    rig.host.command(wire.CMD_REPL)
    rig.run_until(lambda: not rig.board.running, 1000)
    assert not rig.board.running and rig.world.lit_positions() == set()
    assert not any(rig.world.lights.latched)


def test_a_board_without_a_chain_keeps_no_light_image(tmp_path):
    """A profile whose SPI pins this port lacks: no chain (a config fault), so nothing can drive
    the lights; CMD_LIGHTS is still taken."""
    rig = Rig(tmp_path)
    rig.profile["spi"] = dict(rig.profile["spi"], sck=99)
    rig.boot()
    assert rig.board.chain is None and rig.board.lights is None
    assert rig.board.set_lights([(0, 1)]) is None and rig.board.lit_positions() == []


def test_the_map_tables_keep_no_strips(tmp_path):
    """The lights need no per-board layout: the board keeps no strip table."""
    rig = Rig(tmp_path)
    assert not hasattr(rig.board.smap, "strip_starts")
    assert load_map(MAP_PATH).strip_starts is not None  # the loader still reads them
