"""Board pin profiles: complete, each pin once, no clash with the board's own functions."""
import json
import os

import pytest


from hwcommon import FULL, ROOT, sensormap

PROFILE_DIR = os.path.join(ROOT, "firmware", "profiles")

# RP2040 function-select table (datasheet section 1.4.3): GPIO -> allowed peripheral role
RP_SPI = {0: {"miso": {0, 4, 16, 20}, "sck": {2, 6, 18, 22}, "mosi": {3, 7, 19, 23}},
          1: {"miso": {8, 12, 24, 28}, "sck": {10, 14, 26}, "mosi": {11, 15, 27}}}
RP_I2C = {0: {"sda": {0, 4, 8, 12, 16, 20, 24, 28}, "scl": {1, 5, 9, 13, 17, 21, 25, 29}},
          1: {"sda": {2, 6, 10, 14, 18, 22, 26}, "scl": {3, 7, 11, 15, 19, 23, 27}}}
RP_UART = {0: {"tx": {0, 12, 16, 28}, "rx": {1, 13, 17, 29}},
           1: {"tx": {4, 8, 20, 24}, "rx": {5, 9, 21, 25}}}
RP_BOARD_INTERNAL = {23, 24, 29}          # Pico: SMPS PS, VBUS sense, VSYS/3
RP_GPIO = set(range(0, 30))

ESP_STRAPPING = {0, 2, 5, 12, 15}
ESP_FLASH = {6, 7, 8, 9, 10, 11}
ESP_USB_UART = {1, 3}
ESP_INPUT_ONLY = {34, 35, 36, 37, 38, 39}
# Pins with a level of their own before the firmware runs: the strapping pins, UART0, and GPIO14
# (at reset the JTAG TMS input with the chip's weak pull-up, the ESP32 datasheet's IO MUX table as
# quoted on esp32.com t=27794 and electronics.stackexchange 636980; widely listed with 5 and 15 as
# "outputs a signal at boot").  The lights' /OE must stay still at power-up: none of these.
ESP_BOOT_ACTIVE = {0, 1, 2, 3, 5, 12, 14, 15}
ESP_GPIO = set(range(0, 34)) - {20, 24, 28, 29, 30, 31} | ESP_INPUT_ONLY

KEYS = ["board", "mcu", "spi", "load_pin", "i2c", "led", "repl_pin", "uart", "watchdog_ms", "usb", "reserved_pins"]


def load(name):
    with open(os.path.join(PROFILE_DIR, name + ".json")) as f:
        return json.load(f)


def used_pins(p):
    """(role, pin) for every pin the firmware drives or reads."""
    out = [("spi.sck", p["spi"]["sck"]), ("spi.mosi", p["spi"]["mosi"]), ("spi.miso", p["spi"]["miso"]),
           ("load_pin", p["load_pin"]), ("led", p["led"]["pin"]), ("repl_pin", p["repl_pin"]),
           ("uart.tx", p["uart"]["tx"]), ("uart.rx", p["uart"]["rx"])]
    if "lights_oe_pin" in p:
        out.append(("lights_oe_pin", p["lights_oe_pin"]))
    for k, b in enumerate(p["i2c"]):
        out += [("i2c[%d].sda" % k, b["sda"]), ("i2c[%d].scl" % k, b["scl"])]
        if "well_led" in b:
            out.append(("i2c[%d].well_led" % k, b["well_led"]))
    return out


def outputs(p):
    """pins that must be able to drive (not input-only)."""
    return [p["spi"]["sck"], p["spi"]["mosi"], p["load_pin"], p["led"]["pin"], p["uart"]["tx"]] + \
        [b["sda"] for b in p["i2c"]] + [b["scl"] for b in p["i2c"]] + \
        [b["well_led"] for b in p["i2c"] if "well_led" in b] + [p["lights_oe_pin"]]


@pytest.mark.parametrize("name", ["pico", "esp32"])
def test_every_dice_bus_has_its_led_pin(name):
    """The dice readings are LED-on minus LED-off: each well's bus names the pin of its LED."""
    p = load(name)
    assert all(isinstance(b.get("well_led"), int) for b in p["i2c"])


@pytest.mark.parametrize("name", ["pico", "esp32"])
def test_schema(name):
    p = load(name)
    for k in KEYS:
        assert k in p, k
    for k in ("id", "sck", "mosi", "miso", "baudrate", "polarity", "phase"):
        assert k in p["spi"]
    assert p["spi"]["polarity"] in (0, 1) and p["spi"]["phase"] in (0, 1)
    assert 100000 <= p["spi"]["baudrate"] <= 4000000
    for b in p["i2c"]:
        assert b["freq"] in (100000, 400000)
    assert isinstance(p["usb"]["vid"], int) and isinstance(p["usb"]["pid"], int)
    assert int(p["usb"]["vid_hex"], 16) == p["usb"]["vid"] and int(p["usb"]["pid_hex"], 16) == p["usb"]["pid"]
    assert 1000 <= p["watchdog_ms"] <= 8000          # RP2040 watchdog max ~8.3 s


@pytest.mark.parametrize("name", ["pico", "esp32"])
def test_each_pin_used_once_and_not_reserved(name):
    p = load(name)
    pins = used_pins(p)
    seen = {}
    for role, pin in pins:
        assert isinstance(pin, int)
        assert pin not in seen, "%s: pin %d used by %s and %s" % (name, pin, seen.get(pin), role)
        seen[pin] = role
    # the status LED may be a reserved pin when it *is* the board's LED (Pico GP25)
    for role, pin in pins:
        if role == "led":
            continue
        assert pin not in p["reserved_pins"], "%s: %s on reserved pin %d" % (name, role, pin)
    assert len({b["id"] for b in p["i2c"]}) == len(p["i2c"])


def test_pico_pins_match_rp2040_functions():
    p = load("pico")
    s = p["spi"]
    for role in ("miso", "sck", "mosi"):
        assert s[role] in RP_SPI[s["id"]][role], role
    for b in p["i2c"]:
        assert b["sda"] in RP_I2C[b["id"]]["sda"] and b["scl"] in RP_I2C[b["id"]]["scl"]
    u = p["uart"]
    assert u["tx"] in RP_UART[u["id"]]["tx"] and u["rx"] in RP_UART[u["id"]]["rx"]
    for role, pin in used_pins(p):
        assert pin in RP_GPIO
        assert pin not in RP_BOARD_INTERNAL, role
    assert p["led"]["pin"] == 25
    assert (p["usb"]["vid"], p["usb"]["pid"]) == (0x2E8A, 0x0005)
    assert set(p["reserved_pins"]) >= RP_BOARD_INTERNAL


def test_esp32_avoids_strapping_flash_and_usb_pins():
    p = load("esp32")
    for role, pin in used_pins(p):
        assert pin in ESP_GPIO, role
        assert pin not in ESP_STRAPPING, "%s on strapping pin %d" % (role, pin)
        assert pin not in ESP_FLASH, "%s on flash pin %d" % (role, pin)
        assert pin not in ESP_USB_UART, "%s on USB-UART pin %d" % (role, pin)
    for pin in outputs(p):
        assert pin not in ESP_INPUT_ONLY
    assert set(p["reserved_pins"]) >= ESP_STRAPPING | ESP_FLASH | ESP_USB_UART
    assert p["spi"]["id"] in (1, 2) and p["uart"]["id"] in (1, 2)   # UART0 is the USB link
    assert (p["usb"]["vid"], p["usb"]["pid"]) == (0x10C4, 0xEA60)


def test_esp32_lights_off_pin_is_quiet_at_boot():
    """/OE (LIGHTS_OFF) low for a moment would light the 74HC595s' random power-up bits: the pin
    that drives it does nothing before the firmware runs, and the profile lists the pins that do."""
    p = load("esp32")
    assert set(p["boot_active_pins"]) >= ESP_BOOT_ACTIVE
    assert p["lights_oe_pin"] not in p["boot_active_pins"]
    assert p["lights_oe_pin"] not in ESP_INPUT_ONLY


@pytest.mark.parametrize("name", ["pico", "esp32"])
def test_profile_serves_the_sensor_map(name):
    p = load(name)
    m = sensormap.load(FULL)
    assert len(p["i2c"]) >= m.n_wells
    for bus in m.well_buses:
        assert 0 <= bus < len(p["i2c"])
    # one scan of the chain must fit well inside a debounce tick (10 ms)
    scan_us = m.chain_registers * 8 * 1e6 / p["spi"]["baudrate"]
    assert scan_us < 1000


def test_clash_detector_can_fail():
    p = load("esp32")
    p["load_pin"] = 2
    assert any(pin in ESP_STRAPPING for _, pin in used_pins(p))
    p = load("pico")
    p["repl_pin"] = p["spi"]["miso"]
    pins = [pin for _, pin in used_pins(p)]
    assert len(pins) != len(set(pins))
