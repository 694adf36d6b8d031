"""The sensor map files and the loader firmware/sensormap.py."""
import copy
import hashlib
import json

import pytest
from hypothesis import given, settings, strategies as st


from hwcommon import FULL, REDUCED, read_json, sensormap

DEV = ["government", "economy", "technology", "culture"]
ASPECT = ["population_size", "military_might", "economic_strength", "civilian_happiness"]
RES = ["food", "wood", "stone", "metal", "money", "combat_power"]
SEATS = ["p1", "p2"]


def dumps(doc):
    return json.dumps(doc)


def refused(doc):
    with pytest.raises(sensormap.SensorMapError) as e:
        sensormap.parse(dumps(doc) if not isinstance(doc, (str, bytes)) else doc)
    return str(e.value)


# ---------------------------------------------------------------- the real maps
def test_full_map_counts_and_ids():
    m = sensormap.load(FULL)
    assert m.chain_registers == 40                  # 10 strip boards of 4 registers
    assert m.n_sensors() == 4 * 2 * 8 + 4 * 2 * 6 + 6 * 2 * 16 == 304
    expected = set("%s.%s" % (t, s) for t in DEV + ASPECT + RES for s in SEATS)
    assert set(m.lane_ids) == expected and m.n_lanes == 28
    assert m.well_ids == ["well0", "well1"] and m.n_wells == 2
    assert m.well_buses == [0, 1]
    for k, lid in enumerate(m.lane_ids):
        track = lid.split(".")[0]
        n = 8 if track in DEV else 6 if track in ASPECT else 16
        assert m.n_spaces(k) == n, lid
        assert isinstance(m.lane_byte[k], bytes) and isinstance(m.lane_mask[k], bytes)


def test_the_loader_keeps_where_each_strip_starts():
    m = sensormap.load(FULL)
    assert m.strip_starts == [0, 4, 8, 12, 16, 20, 24, 28, 32, 36]
    assert m.strip_ids[4:] == ["resources_%s_%s" % (s, pair) for s in SEATS
                               for pair in ("food_wood", "stone_metal", "money_combat_power")]
    assert len(m.strip_ids) == 10
    assert sensormap.load(REDUCED).strip_starts == [0, 4, 8, 12]
    doc = read_json(FULL)
    del doc["strips"]
    m = sensormap.parse(dumps(doc))  # a map without strips: still a map
    assert m.strip_starts is None and m.strip_ids is None


def test_reduced_map_counts():
    m = sensormap.load(REDUCED)
    assert m.chain_registers == 16
    assert m.n_sensors() == 112
    assert not any(t.split(".")[0] in RES for t in m.lane_ids)


def test_resource_lanes_last_and_reduced_map_is_a_prefix():
    full = sensormap.load(FULL)
    red = sensormap.load(REDUCED)
    om = full.omittable["resources"]
    assert sorted(om) == list(range(full.n_lanes - 12, full.n_lanes))
    kept = [k for k in range(full.n_lanes) if k not in om]
    assert max(max(full.lane_bits(k)) for k in kept) < min(min(full.lane_bits(k)) for k in om)
    assert red.lane_ids == [full.lane_ids[k] for k in kept]
    for k in range(red.n_lanes):
        assert red.lane_bits(k) == full.lane_bits(k)
    assert red.chain_registers * 8 > max(max(red.lane_bits(k)) for k in range(red.n_lanes))


def test_bit_encoding_matches_the_documented_rule():
    m = sensormap.load(FULL)
    doc = read_json(FULL)
    for k, lane in enumerate(doc["lanes"]):
        assert m.lane_ids[k] == lane["id"]
        for i, b in enumerate(lane["bits"]):
            assert m.lane_byte[k][i] == b >> 3
            assert m.lane_mask[k][i] == 0x80 >> (b & 7)
        assert m.lane_bits(k) == lane["bits"]


def test_every_bit_is_a_sensor_or_a_declared_spare():
    m = sensormap.load(FULL)
    used = [b for k in range(m.n_lanes) for b in m.lane_bits(k)]
    assert len(used) == len(set(used))
    assert set(used) | set(m.spare_bits) == set(range(m.chain_registers * 8))
    assert not set(used) & set(m.spare_bits)


def test_hash8_is_sha256_of_exact_file_bytes():
    for path in (FULL, REDUCED):
        data = open(path, "rb").read()
        m = sensormap.load(path)
        assert m.hash8 == hashlib.sha256(data).digest()[:8]
        assert m.hash_hex == hashlib.sha256(data).hexdigest()[:16]
        assert sensormap.parse(data.decode()).hash8 == m.hash8
    assert sensormap.load(FULL).hash8 != sensormap.load(REDUCED).hash8
    # one changed byte of whitespace changes the hash
    data = open(FULL, "rb").read()
    assert sensormap.parse(data + b" ").hash8 != sensormap.load(FULL).hash8


def test_chain_levels(full_doc):
    m = sensormap.load(FULL)
    assert (m.tail_level, m.spare_level) == (0, 1)
    full_doc["chain"]["tail_level"] = 2
    assert "tail_level" in refused(full_doc)


def test_bit_names():
    m = sensormap.load(FULL)
    k = m.lane_index("military_might.p2")
    b = m.lane_bits(k)[3]
    assert m.bit_name(b) == "military_might.p2 space 3"
    assert m.bit_name(0) == "government.p1 space 0"
    assert m.bit_location(0) == "register 0 input H"
    assert m.bit_location(15) == "register 1 input A"
    spare = m.spare_bits[0]
    assert m.bit_name(spare).startswith("spare bit %d" % spare)
    assert "beyond the chain" in m.bit_name(40 * 8)
    for k in range(m.n_lanes):
        for i, b in enumerate(m.lane_bits(k)):
            assert m.bit_name(b) == "%s space %d" % (m.lane_ids[k], i)


def test_well_and_lane_index():
    m = sensormap.load(FULL)
    assert m.well_index("well1") == 1
    assert m.lane_ids[m.lane_index("food.p2")] == "food.p2"
    with pytest.raises(sensormap.SensorMapError):
        m.lane_index("nope.p1")


# ---------------------------------------------------------------- bad input
def lane_of(doc, lid):
    for lane in doc["lanes"]:
        if lane["id"] == lid:
            return lane
    raise KeyError(lid)


def test_duplicate_bit_is_refused_naming_both_lanes(full_doc):
    lane_of(full_doc, "economy.p2")["bits"][4] = lane_of(full_doc, "government.p1")["bits"][2]
    msg = refused(full_doc)
    assert "economy.p2" in msg and "space 4" in msg and "duplicate bit 2" in msg
    assert "government.p1" in msg


def test_duplicate_bit_within_a_lane(full_doc):
    lane_of(full_doc, "culture.p1")["bits"][5] = lane_of(full_doc, "culture.p1")["bits"][1]
    msg = refused(full_doc)
    assert "culture.p1" in msg and "duplicate bit" in msg


def test_bit_on_a_spare_is_refused(full_doc):
    lane_of(full_doc, "food.p1")["bits"][0] = full_doc["chain"]["spare_bits"][0]
    msg = refused(full_doc)
    assert "food.p1" in msg and "spare" in msg


def test_unknown_track_is_refused(full_doc):
    lane = lane_of(full_doc, "wood.p1")
    lane["track"] = "lumber"
    lane["id"] = "lumber.p1"
    msg = refused(full_doc)
    assert "lumber.p1" in msg and "unknown track 'lumber'" in msg


def test_unknown_track_in_the_tracks_table_is_refused(full_doc):
    full_doc["tracks"]["lumber"] = {"kind": "resource", "spaces": 11}
    assert "unknown track 'lumber'" in refused(full_doc)


def test_gap_in_a_lane_is_refused(full_doc):
    lane_of(full_doc, "technology.p2")["bits"][3] = None
    msg = refused(full_doc)
    assert "technology.p2" in msg and "gap" in msg and "space 3" in msg


def test_short_lane_is_refused(full_doc):
    del lane_of(full_doc, "population_size.p1")["bits"][-1]
    msg = refused(full_doc)
    assert "population_size.p1" in msg and "wrong length" in msg and "5 bits" in msg


def test_long_lane_is_refused(reduced_doc):
    lane_of(reduced_doc, "culture.p2")["bits"].append(127)
    reduced_doc["chain"]["spare_bits"].remove(127) if 127 in reduced_doc["chain"]["spare_bits"] else None
    msg = refused(reduced_doc)
    assert "culture.p2" in msg and ("wrong length" in msg or "duplicate" in msg)


def test_more_bits_than_the_chain_is_refused(full_doc):
    lane_of(full_doc, "combat_power.p2")["bits"][10] = 40 * 8
    msg = refused(full_doc)
    assert "combat_power.p2" in msg and "space 10" in msg and "beyond the chain" in msg


def test_chain_shorter_than_the_lanes_is_refused(full_doc):
    full_doc["chain"]["registers"] = 16           # resource lanes no longer fit
    full_doc["chain"]["spare_bits"] = [b for b in full_doc["chain"]["spare_bits"] if b < 128]
    msg = refused(full_doc)
    assert "food.p1" in msg and "beyond the chain" in msg


def test_unknown_seat_is_refused(full_doc):
    lane = lane_of(full_doc, "money.p2")
    lane["seat"] = "p3"
    lane["id"] = "money.p3"
    msg = refused(full_doc)
    assert "money.p3" in msg and "unknown seat 'p3'" in msg


def test_duplicate_lane_id_is_refused(full_doc):
    full_doc["lanes"][1] = copy.deepcopy(full_doc["lanes"][0])
    msg = refused(full_doc)
    assert "government.p1" in msg and "duplicate lane id" in msg


def test_wrong_kind_and_wrong_id_are_refused(full_doc):
    lane_of(full_doc, "economy.p1")["kind"] = "aspect"
    assert "economy.p1" in refused(full_doc)
    doc = read_json(FULL)
    lane_of(doc, "economy.p1")["id"] = "economy.p9"
    assert "economy.p9" in refused(doc)


def test_omittable_group_must_be_the_chain_tail(full_doc):
    full_doc["omittable"]["resources"].append("government.p1")
    msg = refused(full_doc)
    assert "omittable 'resources'" in msg and "government.p1" in msg
    doc = read_json(FULL)
    doc["omittable"]["resources"].append("ghost.p1")
    assert "ghost.p1" in refused(doc)


@pytest.mark.parametrize("text", [
    "", "{", "[]", "null", '{"format": 1}', '{"format": 2, "game": "civmint"}',
    '{"format": 1, "game": "civmint", "chain": {"registers": 0}, "lanes": [], "wells": []}',
    '{"format": 1, "game": "othergame", "chain": {"registers": 1}, "lanes": [], "wells": []}',
    b"\xff\xfe{",
])
def test_malformed_files_are_refused(text):
    msg = refused(text)
    assert msg


def test_duplicate_well_is_refused(full_doc):
    full_doc["wells"][1]["id"] = "well0"
    assert "well0" in refused(full_doc)
    doc = read_json(FULL)
    doc["wells"][1]["bus"] = 0
    assert "well1" in refused(doc)


def test_another_game_can_ship_its_own_table():
    doc = {"format": 1, "game": "mintworks", "seats": ["a", "b", "c"],
           "tracks": {"mints": {"kind": "resource", "spaces": 12}},
           "chain": {"registers": 5, "spare_bits": []},
           "lanes": [{"id": "mints.%s" % s, "track": "mints", "seat": s, "bits": list(range(12 * k, 12 * k + 12))}
                     for k, s in enumerate(["a", "b", "c"])],
           "wells": []}
    doc["chain"]["spare_bits"] = [36, 37, 38, 39]
    m = sensormap.parse(dumps(doc))
    assert m.lane_ids == ["mints.a", "mints.b", "mints.c"] and m.n_wells == 0
    doc["lanes"][2]["track"] = "coins"
    doc["lanes"][2]["id"] = "coins.c"
    assert "unknown track 'coins'" in refused(doc)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_bit_collision_is_refused_naming_the_lane(data):
    doc = read_json(FULL)
    lanes = doc["lanes"]
    a = data.draw(st.integers(0, len(lanes) - 1))
    b = data.draw(st.integers(0, len(lanes) - 1))
    i = data.draw(st.integers(0, len(lanes[a]["bits"]) - 1))
    j = data.draw(st.integers(0, len(lanes[b]["bits"]) - 1))
    if (a, i) == (b, j):
        return
    lanes[a]["bits"][i] = lanes[b]["bits"][j]
    msg = refused(doc)
    later = lanes[max(a, b)]["id"] if a != b else lanes[a]["id"]
    assert "duplicate bit" in msg and later in msg
