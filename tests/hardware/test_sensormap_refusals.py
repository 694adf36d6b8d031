"""Sensor maps the firmware could not run are refused by the validator, naming the entry
(issue 16: a lane longer than the encoding allows, a snapshot over the frame limit, a well bus
missing from the board profile, fields of the wrong type)."""
import copy
import json

import pytest

from hwcommon import FULL, read_json, sensormap
from protocol import wire

PROFILES = "firmware/profiles/"


def custom(n_lanes, spaces, n_wells=0):
    """A map of another game: n_lanes lanes of `spaces` spaces, back to back on the chain."""
    seats = ["s%d" % i for i in range(n_lanes)]
    regs = (n_lanes * spaces + 7) // 8
    doc = {"format": 1, "game": "bigtrack", "seats": seats,
           "tracks": {"t": {"kind": "resource", "spaces": spaces}},
           "chain": {"registers": regs,
                     "spare_bits": list(range(n_lanes * spaces, regs * 8))},
           "lanes": [{"id": "t.%s" % s, "track": "t", "seat": s,
                      "bits": list(range(k * spaces, (k + 1) * spaces))} for k, s in enumerate(seats)],
           "wells": [{"id": "w%d" % i, "bus": 0, "addr": 0x29 + i} for i in range(n_wells)]}
    return doc


def refused(doc):
    with pytest.raises(sensormap.SensorMapError) as e:
        sensormap.parse(json.dumps(doc))
    return str(e.value)


def test_the_frame_limit_is_the_protocols():
    assert sensormap.MAX_PAYLOAD == wire.MAX_PAYLOAD
    assert sensormap.MAX_LANE_SPACES == 8 * struct_size("<I")


def struct_size(fmt):
    import struct
    return struct.calcsize(fmt)


def test_a_lane_as_long_as_the_encoding_allows_is_accepted_one_more_is_refused():
    m = sensormap.parse(json.dumps(custom(2, 32)))
    assert m.n_spaces(0) == 32
    msg = refused(custom(2, 33))
    assert "track 't'" in msg and "33 spaces" in msg and "at most 32" in msg


def test_a_snapshot_over_the_frame_limit_is_refused():
    most = (wire.MAX_PAYLOAD - 5) // 4
    m = sensormap.parse(json.dumps(custom(most - 2, 1, n_wells=2)))
    # the largest accepted map really encodes into one frame
    payload = wire.encode_payload(wire.SNAPSHOT, {"reason": 0, "folded": 0,
                                                  "lanes": [0] * m.n_lanes, "wells": [(0, 0, 0, 0)] * 2})
    assert len(payload) <= wire.MAX_PAYLOAD
    msg = refused(custom(most - 1, 1, n_wells=2))
    assert "SNAPSHOT" in msg and "frame limit" in msg and str(most - 1) + " lanes" in msg


@pytest.mark.parametrize("profile", ["pico", "esp32"])
def test_a_well_on_a_bus_the_profile_lacks_is_refused_naming_the_well(profile):
    prof = json.load(open(PROFILES + profile + ".json"))
    m = sensormap.load(FULL)
    assert sensormap.check_profile(m, prof) is m
    doc = read_json(FULL)
    doc["wells"][1]["bus"] = len(prof["i2c"])
    m = sensormap.parse(json.dumps(doc))
    with pytest.raises(sensormap.SensorMapError) as e:
        sensormap.check_profile(m, prof)
    assert "well1" in str(e.value) and "bus %d" % len(prof["i2c"]) in str(e.value)
    with pytest.raises(sensormap.SensorMapError):
        sensormap.check_profile(m, {"board": "x", "i2c": "0,1"})


WRONG = [None, True, 1.5, "x", "", [], {}, [[1]], {"a": 1}, -1, 2 ** 40]


def _paths(doc):
    """Every place in the map a wrong value can go (one of each kind of entry)."""
    out = [("top", k) for k in doc]
    out += [("chain", k) for k in doc["chain"]] + [("chain", "tail_level"), ("chain", "spare_level")]
    out += [("lane", k) for k in doc["lanes"][0]] + [("lane", "kind")]
    out += [("bit", 0), ("spare", 0)]
    out += [("well", k) for k in doc["wells"][0]] + [("well", "addr"), ("well", "ids")]
    out += [("omittable", g) for g in doc.get("omittable", {})] + [("omittable", "extra")]
    out += [("tracks", None), ("seats", None)]
    out += [("strip", "id"), ("strip", "first_register")]  # what the loader keeps of a strip
    return out


def _put(doc, where, key, value):
    if where == "top":
        doc[key] = value
    elif where == "chain":
        doc["chain"][key] = value
    elif where == "lane":
        doc["lanes"][0][key] = value
    elif where == "bit":
        doc["lanes"][0]["bits"][key] = value
    elif where == "spare":
        doc["chain"]["spare_bits"] = [value]
    elif where == "well":
        doc["wells"][0][key] = value
    elif where == "omittable":
        doc.setdefault("omittable", {})[key] = value
    elif where == "tracks":
        doc["tracks"] = {"government": value}
    elif where == "seats":
        doc["seats"] = [value]
    elif where == "strip":
        doc["strips"][1][key] = value


def test_every_field_of_the_wrong_type_is_refused_with_a_message_never_a_crash():
    base = read_json(FULL)
    tried = refusals = 0
    for where, key in _paths(base):
        for value in WRONG:
            doc = copy.deepcopy(base)
            _put(doc, where, key, value)
            tried += 1
            try:
                sensormap.parse(json.dumps(doc))
            except sensormap.SensorMapError as exc:
                refusals += 1
                assert str(exc), (where, key, value)
            # any other exception fails the test: the firmware would crash at start-up
    assert tried > 300 and refusals > tried * 0.8


@pytest.mark.parametrize("where, key, value, words", [
    ("chain", "tail_level", True, "tail_level"),
    ("lane", "track", ["government"], "track and seat must be strings"),
    ("lane", "kind", 3, "kind is not a string"),
    ("well", "ids", "DM", "ids must be a list"),
    ("well", "ids", [0x44, 300], "not a byte"),
    ("omittable", "resources", 7, "omittable 'resources'"),
    ("omittable", "resources", [7], "unknown lane 7"),
    ("top", "variant", 12, "'variant' is not a string"),
    ("top", "strips", {"a": 1}, "'strips' is not a list"),
    ("strip", "id", 7, "strips[1] id is not a string"),
    ("strip", "id", "dev_government_economy", "strip 'dev_government_economy' (strips[1]): duplicate strip id "
     "(also strips[0])"),
    ("strip", "first_register", "4", "strip 'dev_technology_culture' (strips[1]): first_register '4' is not a "
     "register"),
    ("strip", "first_register", 40, "first_register 40 is not a register of the chain (0..39)"),
    ("strip", "first_register", 0, "strip 'dev_technology_culture' (strips[1]): first_register 0 is also where "
     "strip 'dev_government_economy' starts"),
])
def test_wrong_types_name_the_entry(where, key, value, words):
    doc = read_json(FULL)
    _put(doc, where, key, value)
    assert words in refused(doc)
