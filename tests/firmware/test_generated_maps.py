"""Every sensor map the validator accepts runs on the virtual board (issue 30): a seeded set of
generated maps (lanes of any length anywhere on the chain, spare bits, both chain levels,
wells on any bus and address), each validated as `tabletop-board package` does (sensormap.parse,
then check_profile against the board profile); the accepted ones boot the real firmware on the
simulated world, pair with a tablet, take tokens on every lane and a die in every well. Maps
refused only for a bus the profile lacks run too: the world never crashes and the board names
the fault."""
import json
import random

import pytest

from firmware import sensormap
from firmware.sim.world import World
from protocol import wire
from tests.firmware.harness import Rig, load_profile

PROFILES = ("pico", "esp32")


def generate(rng):
    """One random sensor map document (often valid, sometimes not)."""
    n_tracks = rng.randint(1, 3)
    seats = ["p%d" % i for i in range(rng.randint(1, 4))]
    tracks = {"t%d" % i: {"kind": rng.choice(["resource", "score"]), "spaces": rng.randint(1, 32)}
              for i in range(n_tracks)}
    lanes = []
    need = 0
    for t, spec in tracks.items():
        for s in seats:
            if rng.random() < 0.8:
                lanes.append((t, s, spec["spaces"]))
                need += spec["spaces"]
    if not lanes:
        t0 = next(iter(tracks))
        lanes.append((t0, seats[0], tracks[t0]["spaces"]))
        need += tracks[t0]["spaces"]
    regs = (need + 7) // 8 + rng.randint(0, 2)
    bits = list(range(regs * 8))
    rng.shuffle(bits)
    doc_lanes = []
    for t, s, n in lanes:
        doc_lanes.append({"id": "%s.%s" % (t, s), "track": t, "seat": s,
                          "bits": [bits.pop() for _ in range(n)]})
    spare = sorted(bits[:rng.randint(0, len(bits))])
    wells = []
    for i in range(rng.randint(0, 4)):
        wells.append({"id": "w%d" % i, "bus": rng.choice([0, 0, 1, 1, 2]),
                      "addr": rng.choice([0x29, 0x29, 0x30 + i])})
    return {"format": 1, "game": "gen", "seats": seats, "tracks": tracks,
            "chain": {"registers": regs, "spare_bits": spare,
                      "tail_level": rng.randint(0, 1), "spare_level": rng.randint(0, 1)},
            "lanes": doc_lanes, "wells": wells}


def validate(text, profile):
    """'ok', 'bus' (refused only by check_profile) or 'refused'."""
    try:
        m = sensormap.parse(text)
    except sensormap.SensorMapError:
        return "refused"
    try:
        sensormap.check_profile(m, load_profile(profile))
    except sensormap.SensorMapError as e:
        if "missing from the board profile" in str(e):
            return "bus"
        assert "a bus of its own" in str(e)
        return "refused"
    return "ok"


def _maps(count=36, seed=30):
    rng = random.Random(seed)
    out = {"ok": [], "bus": []}
    tries = 0
    while len(out["ok"]) < count or len(out["bus"]) < count // 4:
        tries += 1
        assert tries < 5000
        profile = rng.choice(PROFILES)
        text = json.dumps(generate(rng))
        verdict = validate(text, profile)
        if verdict in out:
            out[verdict].append((text, profile))
    return out["ok"][:count], out["bus"][:count // 4]


OK, BUS = _maps()


def _exercise(tmp_path, text, profile):
    path = tmp_path / "map.json"
    path.write_text(text)
    r = Rig(tmp_path, map_path=str(path), profile=profile)
    assert r.of("SNAPSHOT"), "the board never paired"
    smap = r.smap
    for k in range(smap.n_lanes):
        r.world.tokens[k] = {smap.n_spaces(k) - 1}
    for w in range(smap.n_wells):
        r.world.optics[w].roll(r.clock.t, 1 + w % 6, 50, False)
    r.tick(800)
    return r


@pytest.mark.parametrize("i", range(len(OK)))
def test_every_accepted_map_runs_on_the_virtual_board(tmp_path, i):
    text, profile = OK[i]
    r = _exercise(tmp_path, text, profile)
    smap = r.smap
    tc = {m["lane"]: m["mask"] for m in r.of("TRACK_CHANGE")}
    assert tc == {k: 1 << (smap.n_spaces(k) - 1) for k in range(smap.n_lanes)}
    faults = r.of("SELF_TEST")[0]["faults"]
    assert wire.FAULT_PROFILE_PIN not in [f[0] for f in faults]
    assert wire.FAULT_CHAIN_LENGTH not in [f[0] for f in faults]
    # two modules on one bus at one address cannot exist (refused); a die in each well is read
    settled = {m["well"] for m in r.of("DICE") if m["state"] == wire.DICE_SETTLED}
    assert settled == set(range(smap.n_wells))


@pytest.mark.parametrize("i", range(len(BUS)))
def test_a_map_with_a_missing_bus_does_not_crash_the_world_and_the_board_names_it(tmp_path, i):
    text, profile = BUS[i]
    smap = sensormap.parse(text)
    World(smap, load_profile(profile), lambda: 0)  # built without an IndexError
    r = _exercise(tmp_path, text, profile)
    faults = r.of("SELF_TEST")[0]["faults"]
    assert wire.FAULT_PROFILE_PIN in [f[0] for f in faults]
    n_buses = len(load_profile(profile)["i2c"])
    on_missing = {w for w in range(smap.n_wells) if smap.well_buses[w] >= n_buses}
    assert on_missing
    assert not [m for m in r.of("DICE") if m["well"] in on_missing]


def test_two_wells_on_one_bus_with_a_switched_led_are_refused_naming_both():
    doc = generate(random.Random(1))
    doc["wells"] = [{"id": "left", "bus": 1, "addr": 0x29}, {"id": "right", "bus": 1, "addr": 0x30}]
    m = sensormap.parse(json.dumps(doc))
    with pytest.raises(sensormap.SensorMapError) as e:
        sensormap.check_profile(m, load_profile("pico"))
    assert "'right'" in str(e.value) and "'left'" in str(e.value) and "bus 1" in str(e.value)
    prof = load_profile("pico")
    del prof["i2c"][1]["well_led"]  # modules whose LEDs stay on: readings are raw, both can share
    assert sensormap.check_profile(m, prof) is m


def test_a_tail_of_ones_needs_a_spare_zero_in_the_last_register():
    doc = generate(random.Random(3))
    regs = doc["chain"]["registers"]
    doc["chain"].update(tail_level=1, spare_level=1)
    with pytest.raises(sensormap.SensorMapError) as e:
        sensormap.parse(json.dumps(doc))
    assert "tail_level 1" in str(e.value) and "%d..%d" % (regs * 8 - 8, regs * 8 - 1) in str(e.value)


@pytest.mark.parametrize("i", [i for i in range(len(OK)) if json.loads(OK[i][0])["chain"]["tail_level"]][:4])
def test_accepted_maps_with_a_tail_of_ones_report_the_right_chain_length(tmp_path, i):
    r = _exercise(tmp_path, *OK[i])
    assert wire.FAULT_CHAIN_LENGTH not in [f[0] for f in r.of("SELF_TEST")[0]["faults"]]
