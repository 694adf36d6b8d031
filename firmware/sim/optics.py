"""Optical model of a die face under a TCS34725 lit by its white LED (CPython only).

The nominal model turns the printed sRGB colour of a face mark (hardware/tools/design.py,
FACE_COLOURS) into raw counts at the firmware's settings (ATIME 0xF6 = 24 ms, gain 4x).
``firmware/calib.py`` DEFAULT_FACES holds the same numbers as literals (a test checks them).
"""
# value on the mark (bottom face) -> sRGB
MARKS = {1: (220, 30, 40), 2: (250, 215, 0), 3: (0, 155, 70), 4: (25, 70, 200),
         5: (215, 0, 150), 6: (255, 255, 255)}
# photodiode crosstalk: channel <- (lin R, lin G, lin B)
RESPONSE = ((0.80, 0.12, 0.08), (0.10, 0.75, 0.15), (0.05, 0.15, 0.80))
K_COUNTS = 2600.0  # counts of a channel for a white face at 24 ms, 4x
CLEAR_K = 0.96
DARK = (40, 12, 12, 12)  # empty well: LED light escaping upward, ambient
NOMINAL_CYCLES = 10
NOMINAL_GAIN = 4


def lin(v):
    v = v / 255.0
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def face_counts(mark, brightness=1.0, tint=(1.0, 1.0, 1.0), cycles=NOMINAL_CYCLES,
                gain=NOMINAL_GAIN):
    """(c, r, g, b) floats for the mark value facing the sensor."""
    return mix_counts((mark_lin(mark), 1.0), brightness=brightness, tint=tint, cycles=cycles,
                      gain=gain)


def mix_counts(*parts, brightness=1.0, tint=(1.0, 1.0, 1.0), cycles=NOMINAL_CYCLES,
               gain=NOMINAL_GAIN):
    lr = sum(p[0][0] * p[1] for p in parts)
    lg = sum(p[0][1] * p[1] for p in parts)
    lb = sum(p[0][2] * p[1] for p in parts)
    scale = K_COUNTS * brightness * (cycles / NOMINAL_CYCLES) * (gain / NOMINAL_GAIN)
    ch = []
    for i, row in enumerate(RESPONSE):
        ch.append(scale * tint[i] * (row[0] * lr + row[1] * lg + row[2] * lb))
    c = CLEAR_K * (ch[0] + ch[1] + ch[2])
    return (c + DARK[0], ch[0] + DARK[1], ch[1] + DARK[2], ch[2] + DARK[3])


def mark_lin(mark):
    return tuple(lin(x) for x in MARKS[mark])


def default_faces():
    """Centroids indexed by TOP value 1..6 (the sensor sees mark 7 - top), as int tuples."""
    out = []
    for top in range(1, 7):
        out.append(tuple(int(round(x)) for x in face_counts(7 - top)))
    return out


if __name__ == "__main__":
    print(default_faces())
