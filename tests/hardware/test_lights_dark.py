"""The guidance lights stay dark until the firmware has latched its first frame (issue 32, item 1).

Every 74HC595's /OE is the chain's LIGHTS_OFF line (cable pins 1 and 9), pulled up on every board
(hardware/docs/pcb.md, "Guidance lights"); the firmware drives it low only after the boot scans
have latched its (dark) image, and high again before the REPL.  Checked on the virtual board: the
firmware's own Board on the simulated chips (firmware/sim/chips.py HC595Chain), whose outputs come
up random at power-up.
"""
import copy

from firmware.sim.chips import HC595Chain
from protocol import wire
from tests.firmware.harness import Rig, load_profile


def _lit_outputs(world):
    ch = world.lights
    return {(r, q) for r in range(ch.registers) for q in HC595Chain.LETTERS if ch.output(r, q)}


def _record_oe(world, oe_pin):
    """Log (level, latches so far) at every write to the /OE pin."""
    log = []
    write = world.pin_write

    def pin_write(pin, level):
        write(pin, level)
        if pin == oe_pin:
            log.append((level, world.lights.latches))
    world.pin_write = pin_write
    return log


def test_random_latches_at_power_up_stay_dark_until_the_first_frame_is_latched(tmp_path):
    oe_pin = load_profile("pico")["lights_oe_pin"]
    seen = {}

    def setup(world):
        # power-up: the 595s hold random outputs (the model's own generator), yet nothing is lit
        seen["random"] = sum(bin(b).count("1") for b in world.lights.latched)
        seen["lit_at_power_up"] = _lit_outputs(world) | world.lit_positions()
        seen["log"] = _record_oe(world, oe_pin)
    rig = Rig(tmp_path, setup=setup, connect=False)
    assert seen["random"] > 0 and seen["lit_at_power_up"] == set()
    log = seen["log"]
    # the Board held /OE high first (dark), and drove it low only once a frame had been latched
    assert log and log[0][0] == 1
    lows = [latches for level, latches in log if level == 0]
    assert lows and lows[0] >= 1, log
    # that first frame is the firmware's image: dark
    assert _lit_outputs(rig.world) == set()
    # and the lights work: one position lit, exactly its LED shows
    rig.run_until(lambda: rig.of("SNAPSHOT"), 3000)
    assert rig.host.command(wire.CMD_LIGHTS, {"lights": [[0, 2]]}) is not None
    rig.run_until(lambda: rig.world.lit_positions() == {(0, 2)}, 200)
    assert rig.world.lit_positions() == {(0, 2)}


def test_the_repl_darkens_the_lights_with_oe(tmp_path):
    rig = Rig(tmp_path)
    oe_pin = rig.profile["lights_oe_pin"]
    rig.host.command(wire.CMD_LIGHTS, {"lights": [[0, 1]]})
    rig.run_until(lambda: rig.world.lit_positions() == {(0, 1)}, 200)
    assert rig.world.pins[oe_pin] == 0
    rig.host.command(wire.CMD_REPL, {})
    rig.run_until(lambda: not rig.board.running, 2000)
    assert not rig.board.running
    assert rig.world.pins[oe_pin] == 1 and rig.world.lit_positions() == set()


def test_a_profile_without_the_oe_pin_is_a_boot_fault_and_stays_dark(tmp_path, monkeypatch):
    import tests.firmware.harness as harness
    prof = copy.deepcopy(load_profile("pico"))
    del prof["lights_oe_pin"]
    monkeypatch.setattr(harness, "load_profile", lambda name="pico": copy.deepcopy(prof))
    rig = Rig(tmp_path)
    assert (wire.FAULT_PROFILE_PIN, 0xFFFF, wire.PIN_LIGHTS_OE) in [tuple(f) for f in rig.board.config_faults]
    rig.host.command(wire.CMD_LIGHTS, {"lights": [[0, 1]]})
    rig.run_until(lambda: False, 100)
    assert rig.world.lit_positions() == set()      # the image is sent, /OE was never driven low
