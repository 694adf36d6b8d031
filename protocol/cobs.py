"""Consistent Overhead Byte Stuffing into caller-owned buffers (MicroPython and CPython).

encode_into/decode_into never allocate on MicroPython when given bytearrays, so the board can
frame events from preallocated buffers. encode/decode are conveniences that allocate.
"""


class CobsError(ValueError):
    pass


class CobsOverflow(CobsError):
    """The decoded block does not fit the destination buffer."""


def max_encoded_len(n):
    """Worst-case encoded size of n bytes (without delimiters)."""
    return n + n // 254 + 1


def encode_into(src, n, dst, pos):
    """COBS-encode src[0:n] into dst at pos; return the end offset. dst must have room."""
    code_pos = pos
    pos += 1
    code = 1
    i = 0
    while i < n:
        b = src[i]
        i += 1
        if b == 0:
            dst[code_pos] = code
            code_pos = pos
            pos += 1
            code = 1
        else:
            dst[pos] = b
            pos += 1
            code += 1
            if code == 0xFF and i < n:
                dst[code_pos] = code
                code_pos = pos
                pos += 1
                code = 1
    dst[code_pos] = code
    return pos


def decode_into(src, start, end, dst):
    """Decode the COBS block src[start:end] (no delimiters) into dst; return the length."""
    out = 0
    limit = len(dst)
    i = start
    while i < end:
        code = src[i]
        if code == 0:
            raise CobsError("zero byte inside a COBS block")
        i += 1
        block_end = i + code - 1
        if block_end > end:
            raise CobsError("COBS block runs past the end of the frame")
        k = block_end - i
        if out + k > limit:
            raise CobsOverflow("decoded frame longer than the buffer")
        dst[out:out + k] = src[i:block_end]
        out += k
        i = block_end
        if code != 0xFF and i < end:
            if out >= limit:
                raise CobsOverflow("decoded frame longer than the buffer")
            dst[out] = 0
            out += 1
    return out


def encode(data):
    buf = bytearray(max_encoded_len(len(data)))
    return bytes(buf[:encode_into(data, len(data), buf, 0)])


def decode(data):
    buf = bytearray(len(data))
    return bytes(buf[:decode_into(data, 0, len(data), buf)])
