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


def _repl_wanted(profile):
    pull = machine.Pin.PULL_UP if profile.get("repl_pin_pull", "up") == "up" else None
    pin = machine.Pin(profile["repl_pin"], machine.Pin.IN, pull)
    time.sleep_ms(5)
    if pin.value() == 0:
        print("tabletop: repl_pin %d held low: REPL" % profile["repl_pin"])
        return True
    if path_exists(REPL_FLAG):
        os.remove(REPL_FLAG)
        print("tabletop: REPL requested by the tablet (CMD_REPL)")
        return True
    return False


def run():
    with open("/profile.json") as f:
        profile = json.load(f)
    if _repl_wanted(profile):
        return
    from firmware import sensormap
    from firmware.board import Board
    from firmware import transport
    smap = sensormap.load("/sensor_map.json")
    if path_exists("/uart"):
        stream = transport.Uart(machine, profile["uart"])
    else:
        stream = transport.UsbCdc()
    production = not path_exists("/devmode")
    try:
        board = Board(machine, profile, smap, stream, time.ticks_ms, fs_dir="/",
                      production=production)
        import gc
        gc.collect()
        board.run_forever(time.sleep_ms)
    except Exception as exc:  # log, then restart clean (the watchdog would anyway)
        stream.close()
        try:
            with open("/crash.txt", "w") as f:
                sys.print_exception(exc, f)
        except OSError:
            pass
        if production:
            machine.reset()
        raise
    stream.close()
    if board.repl_requested:
        with open(REPL_FLAG, "w") as f:
            f.write("1")
        machine.reset()  # the watchdog cannot be stopped: come back without it


if __name__ == "__main__":
    run()
