"""Dice wells under room light on the virtual board's simulated chips (issue 17 item 3): the
Board switches each TCS34725 module's LED from the profile's i2c[n].well_led pin (open drain),
so a dice reading is LED-on minus LED-off. The simulated well adds the room's light to both
halves (firmware/sim/world.py WellOptics.ambient) and the LED's only while the pin is high.

Room light here: a warm lamp giving 1500 clear counts (r 700, g 500, b 300) per 24 ms
integration at 4x. Read raw (the LED always on, as the board did before it passed the pin), that
is a die in an empty well (clear ~1540 against the empty threshold of 300-370) and shifts every
coloured face so far from its centroid that only the white one is recognised. Switched, every
face of both dice reads right and an empty well stays empty."""
from protocol import wire
from firmware import dice
from tests.firmware import harness
from tests.firmware.harness import Rig

AMBIENT = (1500, 700, 500, 300)  # c, r, g, b at ATIME 0xF6 / gain 4x


def _rig(tmp_path, monkeypatch, switched=True, ambient=AMBIENT):
    real = harness.load_profile

    def profile(name="pico"):
        p = real(name)
        if not switched:  # the board as it was: no LED pin handed to the driver
            for c in p["i2c"]:
                c.pop("well_led", None)
        return p
    monkeypatch.setattr(harness, "load_profile", profile)

    def setup(world):
        for o in world.optics:
            o.ambient = ambient
    return Rig(tmp_path, setup=setup)


def _throw(r, w, top):
    """Roll a die into well w; the DICE message that ends the roll (SETTLED or CROOKED)."""
    r.clear()
    r.world.optics[w].roll(r.clock.t, top, 300, False)
    done = lambda: [m for m in r.of("DICE") if m["well"] == w
                    and m["state"] in (wire.DICE_SETTLED, wire.DICE_CROOKED)]
    assert r.run_until(done, 3000), r.of("DICE")
    return done()[-1]


def _remove(r, w):
    r.clear()
    r.world.optics[w].remove()
    assert r.run_until(lambda: [m for m in r.of("DICE") if m["well"] == w], 1500)
    assert r.of("DICE")[-1]["state"] == wire.DICE_REMOVED


def test_the_board_switches_each_well_led_from_its_profile_pin(tmp_path, monkeypatch):
    r = _rig(tmp_path, monkeypatch)
    pins = [c["well_led"] for c in r.profile["i2c"]]
    assert [r.board.sensors[w].led is not None for w in range(2)] == [True, True]
    seen = [set(), set()]
    for _ in range(200):
        r.tick()
        for w in range(2):
            seen[w].add((r.world.pins[pins[w]], r.world.optics[w].led))
    assert seen == [{(0, 0), (1, 1)}] * 2  # each pin drives its own well's LED, on and off
    s = r.board.sensors[0]
    assert s.readings >= 2 and s.ambient == AMBIENT[0]  # the LED-off half: the room alone


def test_an_empty_well_under_room_light_stays_empty(tmp_path, monkeypatch):
    raw = _rig(tmp_path / "raw", monkeypatch, switched=False)
    raw.tick(1000)
    # raw: the room's light is a die that never settles on a face (a phantom CROOKED die)
    assert [w.state for w in raw.board.wells] == [dice.CROOKED] * 2
    assert all(s.c > 1500 for s in raw.board.sensors)
    monkeypatch.undo()
    r = _rig(tmp_path / "switched", monkeypatch)
    r.clear()
    r.tick(3000)
    assert r.of("DICE") == [] and [w.state for w in r.board.wells] == [dice.EMPTY] * 2
    assert all(s.c < 100 for s in r.board.sensors)  # the LED's own stray light (40 counts)
    # and again after a die was thrown and taken out
    _throw(r, 0, 4)
    _remove(r, 0)
    r.clear()
    r.tick(2000)
    assert r.of("DICE") == [] and r.board.wells[0].state == dice.REMOVED  # no new roll


def test_every_face_of_both_dice_reads_under_room_light(tmp_path, monkeypatch):
    raw = _rig(tmp_path / "raw", monkeypatch, switched=False)
    raw.tick(500)
    raw_got = []
    for top in range(1, 7):
        m = _throw(raw, 0, top)
        raw_got.append((m["state"], m["value"]))
        raw.world.optics[0].remove()
        raw.tick(800)
    # raw: only the white face (top 1) survives the lamp; the coloured ones read crooked
    assert raw_got[0] == (wire.DICE_SETTLED, 1)
    assert raw_got[1:] == [(wire.DICE_CROOKED, 0)] * 5
    monkeypatch.undo()
    r = _rig(tmp_path / "switched", monkeypatch)
    for w in range(2):
        for top in range(1, 7):
            m = _throw(r, w, top)
            assert (m["state"], m["value"]) == (wire.DICE_SETTLED, top), (w, top)
            _remove(r, w)


def test_the_die_stopped_to_settled_time_with_switched_readings(tmp_path, monkeypatch):
    """A reading is two integrations (~64 ms), so a die is reported settled 3 clean readings
    after it stops: at most ~260 ms (it was ~100 ms with raw readings)."""
    r = _rig(tmp_path, monkeypatch)
    for top in (2, 5):
        r.clear()
        stop = r.clock.t + 300
        m = _throw(r, 1, top)
        assert m["value"] == top and r.clock.t - stop <= 260
        _remove(r, 1)


def test_room_light_that_changes_under_a_still_die_never_reads_as_another_face(tmp_path, monkeypatch):
    """A lit reading is LED-on minus the latest LED-off half, which may be a lit half older
    (firmware/tcs34725.py ON_PER_OFF). A shadow or a lamp switched while the die lies still must
    not be read as another face: the three readings that settle a die span two LED-off halves,
    so a change between them makes them disagree. Here the room light jumps between dark and
    the lamp at random moments (every ~200 ms), before and after the die stops."""
    import random
    r = _rig(tmp_path, monkeypatch, ambient=(0, 0, 0, 0))
    rng = random.Random(7)
    levels = [(0, 0, 0, 0), AMBIENT, (3000, 1400, 1000, 600)]
    wrong = []
    settled = 0
    for n in range(60):
        w = n % 2
        top = rng.randint(1, 6)
        r.clear()
        r.world.optics[w].roll(r.clock.t, top, rng.choice([0, 50, 200]), False)
        for _ in range(rng.randint(300, 500)):
            if rng.random() < 0.005:  # a change every ~200 ms on average
                r.world.optics[w].ambient = rng.choice(levels)
            r.tick()
            wrong += [m for m in r.of("DICE") if m["well"] == w and m["state"] == wire.DICE_SETTLED
                      and m["value"] != top]
            r.clear()
        settled += r.board.wells[w].state == dice.SETTLED
        r.world.optics[w].ambient = (0, 0, 0, 0)
        _remove(r, w)
    assert wrong == []
    assert settled >= 30  # most dice still settle between the changes (38 of 60, as with pairs)
