"""Lights on only for a sound chain (issue 40.3): the firmware drives the lights' /OE low only
while the chain length it measures matches the sensor map and the scans' chain check holds.
A short, a long or a reversed chain keeps every LED dark (/OE high) and the self-test names the
fault (FAULT_CHAIN_LENGTH); a chain made sound again lights the set again. On the simulated
chips: the 74HC165 chain, and 74HC595s that past a reversed cable latch noise at every LOAD edge
(lit wherever /OE is low), with /OE wired to the profile's lights_oe_pin."""
import pytest

from protocol import wire
from tests.firmware.harness import Rig

N = 40  # the full map's chain registers


def _chain_faults(msg):
    return [tuple(f) for f in msg["faults"] if f[0] == wire.FAULT_CHAIN_LENGTH]


def _light_set(rig):
    k = rig.smap.lane_index("military_might.p2")
    rig.host.command(wire.CMD_LIGHTS, {"lights": [(k, 3), (0, 1)]})
    rig.run_until(lambda: False, 60)
    return {(k, 3), (0, 1)}


def test_a_sound_chain_lights_up_after_the_boot_self_test(tmp_path):
    rig = Rig(tmp_path)
    assert rig.board.registers_found == N and rig.board.lights_on
    assert rig.world.lights_oe_low()
    lit = _light_set(rig)
    assert rig.world.lit_positions() == lit


@pytest.mark.parametrize("fault, found", [
    ("short", 36),  # the last resource strip's cable broken
    ("long", 0xFFFF),  # two more registers than the map (a strip of another map): past the read
    ("reversed", None),  # the cable after register 16 plugged the other way round
])
def test_a_wrong_chain_at_boot_keeps_the_lights_dark_and_is_reported(tmp_path, fault, found):
    def setup(world):
        if fault == "short":
            world.set_chain_registers(36)
        elif fault == "long":
            world.set_chain_registers(N + 6)
        else:
            world.reverse_cable(16)
    rig = Rig(tmp_path, setup=setup)
    rig.run_until(lambda: rig.of("SELF_TEST"), 500)
    boot = rig.of("SELF_TEST")[0]
    assert boot["trigger"] == wire.TEST_AT_BOOT
    faults = _chain_faults(boot)
    assert len(faults) == 1 and faults[0][1] == N
    if found is not None:
        assert faults[0][2] == found
    else:  # noise after register 16: never the map's length
        assert faults[0][2] != N
    assert not rig.board.lights_on and not rig.world.lights_oe_low()
    rig.clear()
    _light_set(rig)  # the tablet's set is taken (acknowledged, no error) but nothing shows
    assert not rig.of("ERROR")
    rig.run_until(lambda: False, 300)
    assert rig.world.lit_positions() == set()
    assert not any(rig.world.lights.output(r, q) for r in range(rig.world.lights.registers)
                   for q in "ABCDEFGH")
    if fault == "reversed":
        # the 595s past the reversed cable did latch noise: only /OE holds them dark
        assert any(rig.world.lights.latched[16:N])


@pytest.mark.parametrize("fault", ["short", "long", "reversed"])
def test_a_chain_that_goes_wrong_while_running_goes_dark_and_lights_again_when_sound(tmp_path, fault):
    rig = Rig(tmp_path)
    lit = _light_set(rig)
    assert rig.world.lit_positions() == lit and rig.world.lights_oe_low()
    rig.clear()
    if fault == "short":
        rig.world.set_chain_registers(24)
    elif fault == "long":
        rig.world.set_chain_registers(N + 2)
    else:
        rig.world.reverse_cable(24)
    assert rig.run_until(lambda: not rig.world.lights_oe_low(), 200)  # a few scans
    assert rig.world.lit_positions() == set()
    rig.run_until(lambda: rig.of("SELF_TEST"), 500)
    st = rig.of("SELF_TEST")[-1]
    assert st["trigger"] == wire.TEST_UNPROMPTED and _chain_faults(st)
    # the cable put right: the next clean scans clear the check, a report measures the chain,
    # the lights come back with the set the tablet asked for
    rig.clear()
    rig.world.set_chain_registers(N)
    assert rig.run_until(lambda: rig.world.lights_oe_low(), 500)
    assert rig.run_until(lambda: rig.world.lit_positions() == lit, 100)
    rig.run_until(lambda: rig.of("SELF_TEST"), 500)
    assert not _chain_faults(rig.of("SELF_TEST")[-1])


def test_the_repl_stays_dark_whatever_the_chain(tmp_path):
    rig = Rig(tmp_path)
    _light_set(rig)
    rig.host.command(wire.CMD_REPL)
    rig.run_until(lambda: not rig.board.running, 1000)
    assert not rig.board.running and not rig.world.lights_oe_low()
    rig.board.self_test(wire.TEST_ON_COMMAND)  # a self-test typed at the REPL
    assert not rig.world.lights_oe_low()


def test_the_tablet_says_why_the_lights_are_dark(tmp_path):
    from companion.link.board_link import TableMirror
    from companion.link.board_port import describe_fault
    rig = Rig(tmp_path, setup=lambda w: w.set_chain_registers(36))
    rig.run_until(lambda: rig.of("SELF_TEST"), 500)
    ev = TableMirror(rig.smap).apply(dict(rig.of("SELF_TEST")[0]))
    text = [describe_fault(f) for f in ev["faults"] if f["code"] == wire.FAULT_CHAIN_LENGTH][0]
    assert "36 registers found" in text and "guidance lights stay dark" in text
