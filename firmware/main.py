"""Board entry point (MicroPython). The deployed /main.py is ``import firmware.main``.

Files on the board (``tabletop-board deploy``): /firmware/*.py, /protocol/*.py,
/profile.json (the pin profile), /sensor_map.json, /main.py; the board writes
/calibration.json. Optional flags: /devmode (no watchdog), /uart (link on the profile's
UART instead of USB).

Back to the REPL: CMD_REPL from the tablet writes /repl_once and resets, or hold the
profile's repl_pin low (to GND) while the board boots. Either way the firmware does not
start (and the watchdog is not armed), and mpremote / a terminal gets the REPL.
"""
import json
import os
import sys
import time

import machine

from firmware.calib import path_exists

REPL_FLAG = "/repl_once"
FAULT_FILE = "/fault.txt"
JSON_HEAP_PER_BYTE = 5  # sensormap.load allocates 4.7 bytes per file byte (MicroPython VM, CivMint map)


def _repl_wanted(profile, faults):
    pin_no = profile.get("repl_pin")
    try:
        if profile.get("repl_pin_pull", "up") == "up":
            pin = machine.Pin(pin_no, machine.Pin.IN, machine.Pin.PULL_UP)
        else:
            pin = machine.Pin(pin_no, machine.Pin.IN)
    except (ValueError, TypeError):  # a pin this port lacks: reported by the boot self-test
        from protocol import wire
        faults.append((wire.FAULT_PROFILE_PIN, pin_no if type(pin_no) is int and 0 <= pin_no < 0xFFFF
                       else 0xFFFF, wire.PIN_REPL))
        pin = None
    time.sleep_ms(5)
    if pin is not None and pin.value() == 0:
        print("tabletop: repl_pin %d held low: REPL" % pin_no)
        return True
    if path_exists(REPL_FLAG):
        os.remove(REPL_FLAG)
        print("tabletop: REPL requested by the tablet (CMD_REPL)")
        return True
    return False


def _lights_dark(profile):
    """Hold the guidance lights' /OE high (every LED off) from the first moment: the boards pull
    it up as well, this also wins over a port's reset pull-down. The Board drives it low after
    its first latched frame."""
    pin_no = profile.get("lights_oe_pin")
    if type(pin_no) is int:
        try:
            machine.Pin(pin_no, machine.Pin.OUT, value=1)
        except (ValueError, TypeError, OSError):  # a pin this port lacks: the Board reports it
            pass


def _release_lights(pin_no):
    """After a crash: /OE back to an input, so the boards' pull-ups darken every LED."""
    if type(pin_no) is int:
        try:
            machine.Pin(pin_no, machine.Pin.IN)
        except (ValueError, TypeError, OSError):
            pass


def _refuse(why):
    """Start-up cannot build a board that could pair (no profile, no map): say why on the
    console and in /fault.txt, and stay at the REPL (no watchdog, no reset loop)."""
    print("tabletop: not started: " + why)
    try:
        with open(FAULT_FILE, "w") as f:
            f.write(why + "\n")
    except OSError:
        pass


def _load_map(path, collect=True):
    """(SensorMap, None) or (None, why): a file too large to parse in the free heap is
    refused before json.loads could run out of memory."""
    import gc
    from firmware import sensormap
    try:
        size = os.stat(path)[6]
    except OSError:
        return None, "no sensor map at %s (tabletop-board deploy puts it there)" % path
    if collect:
        gc.collect()
    free = gc.mem_free()
    if size * JSON_HEAP_PER_BYTE > free:
        return None, ("sensor map %s is too large for this board's memory: %d bytes need about "
                      "%d KB to read, %d KB free" % (path, size, size * JSON_HEAP_PER_BYTE // 1024,
                                                    free // 1024))
    try:
        return sensormap.load(path), None
    except MemoryError:
        return None, "sensor map %s is too large for this board's memory (%d KB free)" % (
            path, free // 1024)
    except ValueError as exc:  # SensorMapError: the validator names the entry
        return None, "sensor map %s refused: %s" % (path, exc)


def _drop(name):
    """Forget a module imported only for start-up, so its code can be collected."""
    sys.modules.pop(name, None)
    pkg, _, attr = name.rpartition(".")
    p = sys.modules.get(pkg)
    if p is not None and attr in dir(p):
        delattr(p, attr)


def start(profile, map_path, make_stream, now_ms, fs_dir="/", production=True, faults=(),
          collect=True):
    """Load the map, build the Board, drop what only start-up needs. Returns (board, None) or
    (None, why). collect=False leaves gc.collect() to the caller (the wasm VM of the tests
    traps when the filesystem is searched after a collection inside nested calls)."""
    import gc
    from firmware.board import Board
    smap, why = _load_map(map_path, collect)
    if smap is None:
        return None, why
    if collect:
        gc.collect()  # the parsed JSON document is garbage now; Board checks the free heap
    board = Board(machine, profile, smap, make_stream(), now_ms, fs_dir=fs_dir,
                  production=production, start_faults=faults)
    smap = None
    _drop("firmware.sensormap")  # the loader and validator: the board keeps MapTables
    if collect:
        gc.collect()
    return board, None


def run():
    try:
        with open("/profile.json") as f:
            profile = json.load(f)
        if not isinstance(profile, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        _refuse("board profile /profile.json unreadable: %s" % (exc,))
        return
    faults = []
    oe_pin = profile.get("lights_oe_pin")
    _lights_dark(profile)
    if _repl_wanted(profile, faults):
        return
    from firmware import transport
    uart = profile.get("uart") if path_exists("/uart") else None
    production = not path_exists("/devmode")
    streams = []

    def make_stream():
        streams.append(transport.Uart(machine, uart) if uart else transport.UsbCdc())
        return streams[0]
    try:
        board, why = start(profile, "/sensor_map.json", make_stream, time.ticks_ms,
                           production=production, faults=faults)
        profile = None  # the board copied what it needs
        if board is None:
            _refuse(why)
            return
        board.run_forever(time.sleep_ms)
    except Exception as exc:  # log, then restart clean (the watchdog would anyway)
        _release_lights(oe_pin)
        if streams:
            streams[0].close()
        try:
            with open("/crash.txt", "w") as f:
                sys.print_exception(exc, f)
        except OSError:
            pass
        if production:
            machine.reset()
        raise
    streams[0].close()
    if board.repl_requested:
        with open(REPL_FLAG, "w") as f:
            f.write("1")
        machine.reset()  # the watchdog cannot be stopped: come back without it


if __name__ == "__main__":
    run()
