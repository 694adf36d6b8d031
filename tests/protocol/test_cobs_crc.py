"""COBS against the published vectors and the `cobs` package; CRC-32 check value."""
import binascii

import cobs.cobs as ref
import pytest
from hypothesis import given, settings, strategies as st

from protocol import cobs

# Wikipedia "Consistent Overhead Byte Stuffing", encoding examples 1-10 (delimiter not included)
PUBLISHED = [
    ("00", "0101"),
    ("0000", "010101"),
    ("001100", "01021101"),
    ("11220033", "03112202 33".replace(" ", "")),
    ("11223344", "0511223344"),
    ("11000000", "02110101 01".replace(" ", "")),
    (bytes(range(1, 255)).hex(), "ff" + bytes(range(1, 255)).hex()),
    (bytes(range(0, 255)).hex(), "01ff" + bytes(range(1, 255)).hex()),
    (bytes(range(1, 256)).hex(), "ff" + bytes(range(1, 255)).hex() + "02ff"),
    ((bytes(range(2, 256)) + b"\x00").hex(), "ff" + bytes(range(2, 256)).hex() + "0101"),
]


@pytest.mark.parametrize("raw,enc", PUBLISHED)
def test_published_vectors(raw, enc):
    raw, enc = bytes.fromhex(raw), bytes.fromhex(enc)
    assert cobs.encode(raw) == enc
    assert cobs.decode(enc) == raw


@settings(max_examples=2000)
@given(st.binary(max_size=1200))
def test_differential_against_cobs_package(data):
    assert cobs.encode(data) == ref.encode(data)
    assert cobs.decode(ref.encode(data)) == data


@settings(max_examples=500)
@given(st.binary(min_size=1, max_size=600))
def test_decode_agrees_with_reference_on_garbage(data):
    data = data.replace(b"\x00", b"\x01")
    try:
        expected = ref.decode(data)
    except ref.DecodeError:
        expected = None
    try:
        got = cobs.decode(data)
    except cobs.CobsError:
        got = None
    assert got == expected


def test_encoded_length_bound():
    for n in (0, 1, 253, 254, 255, 508, 512):
        assert len(cobs.encode(b"\x01" * n)) <= cobs.max_encoded_len(n)


def test_crc32_check_value():
    assert binascii.crc32(b"123456789") == 0xCBF43926
