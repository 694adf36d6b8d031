"""Dice read from a photo (no Kivy): `read_dice(image)` -> a `DiceReading`.

A classical OpenCV pipeline, checked by a small classifier (docs/dice-photo.md):

1. decode (JPEG or PNG bytes, or an array), refusing what is not an image; a photo over
   20 megapixels is decoded scaled down (JPEG natively), and one over MAX_PIXELS refused;
2. find the dice: the table is estimated by a large median (dice are small against it), and
   what differs from it by more than the table's own texture does is a candidate blob; when
   that looks wrong, a second pass takes the table as several colours (a check cloth, stripes,
   tiles). Pip marks found over the whole photo that lie on no die found are read from their
   own face or declined;
3. straighten each top face: inside a blob, the faces are split by their shading (the top face
   of a die lit from above is one tone, its sides another, the rounded edges between them
   darker); each face-sized region is warped to a square;
4. count the pips on the square (blobs that differ from the face's colour, either darker or
   lighter) and check them against the six pip layouts. A face whose pips are not exactly one
   of the layouts is never given a value: the die is reported with a reason instead;
5. tell a die's top from its side (the side lies toward the point below the camera), and
   settle the photo: a blob too big for the faces read in it holds a touching die (declined);
6. a second look by a small learned classifier (dice_windows.py) at each die's window: a die
   read that it is sure shows another value is declined; a die declined is read where it is
   sure of the dice at that place and they explain it; places off every die found where it is
   sure a die lies are read or declined (a die the finder missed is never left out);
7. last, a die read just beside another, toward the nadir, whose colour ends within half a
   side past its middle, or which is of its colour but lit otherwise, is that die's side:
   declined.

Whatever goes wrong is said in a player's words (`Die.problem`, `DiceReading.problem`), and
nothing is guessed: `DiceReading.values` is None unless every die found was read.

The reader checks a deadline between steps and gives up with "took too long" past it; inputs
are bounded before any work (bytes, pixels, blob count), so a crafted file cannot make it hang.
"""
from __future__ import annotations

import dataclasses
import math
import struct
import time

import cv2
import numpy as np

from companion.table import dice_windows

MAX_BYTES = 60_000_000          # a larger file is refused before it is decoded
SCALE_DOWN_PIXELS = 20_000_000  # over this, the photo is decoded scaled down first
MAX_PIXELS = 200_000_000        # over this (width x height in its header), refused
READ_LONG_SIDE = 1600           # faces are read at most at this size (a phone's 12 MP is shrunk)
FIND_WIDTH = 640                # dice are found at this width
MAX_BLOBS = 40                  # more candidate blobs than this: not a photo of a few dice
SINGLE_BLOB = 2.17              # a blob this many times its one top face read holds another die
ACCEPT_FIT = 0.13                # a face's pips at most this far (of its side) from a layout's
PIP_CONTRAST = 40               # a pip mark differs from its surround by this much lightness (0-255)
TIME_LIMIT = 3.0                # seconds

#: pip centres of each value on a unit face; 2, 3 and 6 also turned a quarter
LAYOUTS = {
    1: [[(0.5, 0.5)]],
    2: [[(0.25, 0.25), (0.75, 0.75)], [(0.75, 0.25), (0.25, 0.75)]],
    3: [[(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)], [(0.75, 0.25), (0.5, 0.5), (0.25, 0.75)]],
    4: [[(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)]],
    5: [[(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)]],
    6: [[(0.25, 0.25), (0.75, 0.25), (0.25, 0.5), (0.75, 0.5), (0.25, 0.75), (0.75, 0.75)],
        [(0.25, 0.25), (0.5, 0.25), (0.75, 0.25), (0.25, 0.75), (0.5, 0.75), (0.75, 0.75)]],
}

# the reasons, in a player's words
NOT_AN_IMAGE = "This file is not a photo the app can read (JPEG or PNG)."
TOO_LARGE = "This photo is far too large to read; take it again with the phone's normal camera."
TOO_DARK = "The photo is too dark: turn on a light or move the dice into the light."
TOO_BLURRED = "The photo is too blurred: hold the phone still and let it focus."
NO_DICE = "No dice found in the photo: photograph the dice from above, filling most of the picture."
TOO_MANY = "Too many things in the photo look like dice: photograph only the dice, on a plain part of the table."
TOO_SLOW = "Reading the photo took too long; take it again."
TOUCHING = "Two dice touch: move them apart."
GLARE = "Glare on a die: tilt the phone."
ON_EDGE = "A die is on its edge: lay it flat."
UNREADABLE = "A die could not be read: move it apart from other things and photograph it from above."
CUT_OFF = "A die is cut off by the edge of the photo: take the whole roll."


@dataclasses.dataclass(frozen=True)
class Die:
    """One die found: its value (None: not read, see `problem`), where it is in the image as
    given (`box`: four corners of the top face in px, `centre`), and how sure the reader is."""
    value: int | None
    centre: tuple
    box: tuple
    confidence: float
    problem: str = ""

    def to_dict(self) -> dict:
        return {"value": self.value, "centre": [round(c, 1) for c in self.centre],
                "box": [[round(x, 1), round(y, 1)] for x, y in self.box],
                "confidence": round(self.confidence, 3), "problem": self.problem}


@dataclasses.dataclass(frozen=True)
class DiceReading:
    """What a photo shows: the dice found (read or not) and, when the whole photo is refused,
    `problem` in plain words. `values` only when every die was read and nothing is wrong."""
    dice: tuple = ()
    problem: str = ""
    size: tuple = (0, 0)      # (width, height) of the image as given (0, 0: not decoded)
    scaled: float = 1.0       # < 1 when a very large photo was decoded scaled down
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problem and bool(self.dice) and all(d.value is not None for d in self.dice)

    @property
    def values(self) -> list | None:
        """The values in reading order (top row first, left to right: see `dice`), or None
        when the photo or any die was not read."""
        return [d.value for d in self.dice] if self.ok else None

    @property
    def confidence(self) -> float:
        """The least sure die's confidence (0 when nothing was read)."""
        return min((d.confidence for d in self.dice), default=0.0) if self.ok else 0.0

    @property
    def reason(self) -> str:
        """Why the roll cannot be taken from this photo ("" when it can): the photo's problem,
        else the first die's."""
        if self.problem:
            return self.problem
        for d in self.dice:
            if d.value is None:
                return d.problem
        return "" if self.dice else NO_DICE

    def to_dict(self) -> dict:
        return {"dice": [d.to_dict() for d in self.dice], "problem": self.problem, "ok": self.ok,
                "values": self.values, "confidence": round(self.confidence, 3), "reason": self.reason,
                "size": list(self.size), "seconds": round(self.seconds, 4)}


class _Timeout(Exception):
    pass


# --------------------------------------------------------------------------- decoding


def image_size(data: bytes) -> tuple | None:
    """(width, height) from a PNG's or a JPEG's header, or None when it is neither or is cut
    before its size. Read before decoding, to refuse or scale down huge pictures."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        if len(data) < 24 or data[12:16] != b"IHDR":
            return None
        w, h = struct.unpack(">II", data[16:24])
        return (w, h) if w and h else None
    if data[:2] != b"\xff\xd8":
        return None
    i, n = 2, len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        if marker == 0xD9:
            return None
        seg = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 9 > n:
                return None
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return (w, h) if w and h else None
        if seg < 2:
            return None
        i += 2 + seg
    return None


def _decode(image) -> tuple:
    """(BGR uint8 array, its scale to the picture given, the given (width, height)) or a
    problem string."""
    if isinstance(image, np.ndarray):
        a = image
        if a.dtype != np.uint8:
            if a.dtype.kind not in "uif" or a.size == 0 or not np.isfinite(a).all():
                return NOT_AN_IMAGE
            a = np.clip(a * (255.0 if a.dtype.kind == "f" and a.max() <= 1.0 else 1.0), 0, 255).astype(np.uint8)
        if a.ndim == 2:
            a = cv2.cvtColor(a, cv2.COLOR_GRAY2BGR)
        elif a.ndim == 3 and a.shape[2] == 4:
            a = cv2.cvtColor(a, cv2.COLOR_BGRA2BGR)
        elif not (a.ndim == 3 and a.shape[2] == 3):
            return NOT_AN_IMAGE
        if a.shape[0] < 16 or a.shape[1] < 16:
            return NOT_AN_IMAGE
        if a.shape[0] * a.shape[1] > MAX_PIXELS:
            return TOO_LARGE
        return np.ascontiguousarray(a), 1.0, (a.shape[1], a.shape[0])
    if isinstance(image, (bytearray, memoryview)):
        image = bytes(image)
    if not isinstance(image, bytes) or len(image) < 24:
        return NOT_AN_IMAGE
    if len(image) > MAX_BYTES:
        return TOO_LARGE
    size = image_size(image)
    if size is None:
        return NOT_AN_IMAGE
    w, h = size
    if w * h > MAX_PIXELS:
        return TOO_LARGE
    flag, scale = cv2.IMREAD_COLOR, 1.0
    for f, k in ((cv2.IMREAD_REDUCED_COLOR_2, 2), (cv2.IMREAD_REDUCED_COLOR_4, 4), (cv2.IMREAD_REDUCED_COLOR_8, 8)):
        if w * h <= SCALE_DOWN_PIXELS:
            break
        if (w // k) * (h // k) <= SCALE_DOWN_PIXELS or k == 8:
            flag, scale = f, 1.0 / k
            break
    try:
        a = cv2.imdecode(np.frombuffer(image, np.uint8), flag)
    except cv2.error:
        return NOT_AN_IMAGE
    if a is None or a.ndim != 3 or a.shape[0] < 16 or a.shape[1] < 16:
        return NOT_AN_IMAGE
    if a.shape[0] * a.shape[1] > SCALE_DOWN_PIXELS * 1.01:
        f = math.sqrt(SCALE_DOWN_PIXELS / (a.shape[0] * a.shape[1]))
        a = cv2.resize(a, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    scale = a.shape[1] / w
    return a, scale, (w, h)


# --------------------------------------------------------------------------- reading a face


def _layout_fit_scaled(points, diameters) -> tuple:
    """(value, worst distance, scale) of the layout nearest to pip centres on a square that may
    hold a little more than the face (a region that took in some table or shadow): the layout is
    fitted with its own centre and size, which must stay near the square's and its pips' sizes.
    The distance is in units of the fitted face's side."""
    n = len(points)
    if not 1 <= n <= 6:
        return None, math.inf, 0.0
    pts = np.asarray(points, np.float64)
    pip = float(np.median(diameters))
    if n == 1:
        k = pip / 0.19
        off = float(np.linalg.norm(pts[0] - 0.5)) / max(k, 1e-6)
        return (1, off, k) if 0.55 <= k <= 1.35 else (None, math.inf, 0.0)
    c = pts.mean(0)
    P = pts - c
    best = (None, math.inf, 0.0)
    for lay in LAYOUTS[n]:
        L = np.asarray(lay, np.float64) - 0.5
        k = math.sqrt((P ** 2).sum() / (L ** 2).sum())
        d = np.linalg.norm(P[:, None, :] - k * L[None, :, :], axis=2)
        pick = d.argmin(1)
        if len(set(pick.tolist())) != n:
            continue
        worst = float(d[np.arange(n), pick].max()) / k
        if worst < best[1]:
            best = (n, worst, k)
    value, worst, k = best
    if value is None or not 0.55 <= k <= 1.35 or np.abs(c - 0.5).max() > 0.2 \
            or not 0.11 <= pip / k <= 0.3:
        return None, math.inf, 0.0
    return value, worst, k


FACE = 64  # side of the straightened face, px
_PIP_SURROUND = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (19, 19))  # a pip and its rim, on a face
_GRID = [(gx, gy) for gy in (0.25, 0.5, 0.75) for gx in (0.25, 0.5, 0.75)]


def _grid_places(pips: list, k: float) -> tuple:
    """The nine places of the pip grid (FACE units) of a fitted layout: its centre is the pips'
    mean when they make a whole layout, its size `k` (of the face)."""
    pts = np.asarray(pips, np.float64)
    c = pts.mean(0) if len(pts) > 1 else pts[0]
    return [(c[0] + k * (gx - 0.5), c[1] + k * (gy - 0.5)) for gx, gy in _GRID]


def _spot(img: np.ndarray, x: float, y: float, r: int = 2) -> np.ndarray:
    """The pixels of `img` in a (2r+1)-square at (x, y) in face units (empty off the face)."""
    xi, yi = int(round(x * FACE)), int(round(y * FACE))
    if not (r <= xi < FACE - r and r <= yi < FACE - r):
        return img[0:0, 0:0]
    return img[yi - r:yi + r + 1, xi - r:xi + r + 1]


def _burnt(burnt: np.ndarray, x: float, y: float, k: float) -> bool:
    """A place of the grid (face units; `k` the grid's size) burnt out by glare over a whole
    pip's disc: a pip there could not be seen. Glare that leaves any of the disc unburnt would
    leave a pip's rim darker there, so such a place holds no pip."""
    r = 0.095 * k * FACE
    xi, yi, ri = int(round(x * FACE)), int(round(y * FACE)), int(math.ceil(r))
    if not (ri <= xi < FACE - ri and ri <= yi < FACE - ri):
        return False
    yy, xx = np.mgrid[-ri:ri + 1, -ri:ri + 1]
    disc = burnt[yi - ri:yi + ri + 1, xi - ri:xi + ri + 1][xx ** 2 + yy ** 2 <= r * r]
    return float(disc.mean()) >= 0.9


def _marked_places(signed: np.ndarray, pips: list, k: float, burnt: np.ndarray, glare_l=None) -> list:
    """The places of the pip grid (face units) that hold no pip found but are marked like one
    (a pip lost in glare, blur or a shadow): a 6 seen as a 4, a 5 or a 3 without its middle
    pip. The places are the fitted layout's; `signed` is how much each pixel looks like a pip
    (darker than its surround, or away from the face's colour); a place burnt out by glare is
    left to `_glare_values`. `glare_l`: (lightness, the face's lightness) when glare is on the
    face (`signed` then the darkness against the surround): under glare a pip shows faintly."""
    places = _grid_places(pips, k)
    pts = np.asarray(pips, np.float64)

    def mark(x, y):
        s = _spot(signed, x, y)
        return float(s.mean()) if s.size else 0.0
    contrast = float(np.median([mark(x, y) for x, y in pts]))

    def enough(x, y):
        # under glare: the surround the place is measured against is lighter than the face
        darkness = _spot(signed, x, y)
        if glare_l is not None and darkness.size \
                and float((_spot(glare_l[0], x, y) + darkness).mean()) >= glare_l[1] + 8:
            # (over the pip's whole disc: glare may leave only its rim darker)
            disc = _spot(signed, x, y, max(2, int(0.08 * k * FACE)))
            return disc.size > 0 and float(np.percentile(disc, 90)) > min(0.2 * contrast, 18.0)
        return mark(x, y) > 0.2 * contrast
    return [(x, y) for x, y in places if np.min(np.hypot(pts[:, 0] - x, pts[:, 1] - y)) >= 0.12 * k
            and enough(x, y) and not _burnt(burnt, x, y, k)]


_LAYOUT_SETS = [(v, frozenset((int(round(x * 4)) - 1, int(round(y * 4)) - 1) for x, y in lay))
                for v, lays in LAYOUTS.items() for lay in lays]


def _glare_values(pips: list, k: float, burnt: np.ndarray) -> set:
    """The values a face may show when glare burns out some places of its pip grid: every
    layout that holds all the pips found and more, only where the glare is (the pips found
    alone are `_layout_fit_scaled`'s to judge). `k` is the grid's
    size (of the face); the grid is placed on the pips found, every way they fit it."""
    pts = np.asarray(pips, np.float64)
    step = 0.25 * k
    values = set()
    for px, py in pts[:1]:
        for gx, gy in _GRID:  # the first pip at each place of the grid
            ox, oy = px - k * (gx - 0.5), py - k * (gy - 0.5)  # the grid's centre
            if max(abs(ox - 0.5), abs(oy - 0.5)) > 0.2:
                continue
            cells = set()
            for x, y in pts:
                i, j = (x - ox) / step + 1, (y - oy) / step + 1
                ri, rj = int(round(i)), int(round(j))
                if not (0 <= ri <= 2 and 0 <= rj <= 2) or math.hypot(i - ri, j - rj) > 0.45:
                    break
                cells.add((ri, rj))
            else:
                if len(cells) != len(pts):
                    continue
                hidden = {(i, j) for i in range(3) for j in range(3) if (i, j) not in cells
                          and _burnt(burnt, ox + step * (i - 1), oy + step * (j - 1), k)}
                values |= {v for v, lay in _LAYOUT_SETS if cells < lay <= cells | hidden}
    return values


def _read_face(face_bgr: np.ndarray) -> dict:
    """Read a straightened face (FACE x FACE BGR): {"value" (None: not a layout), "fit" (the
    worst pip's distance from the layout, in face sides), "pips", "glare" (burnt-out pixels
    brighter than the face), "odd" (a blob no pip makes: a side seen slanted, or glare)}.

    Glare on a face with dark pips is a light spot: it is no pip, and where it burns out a
    place of the pip grid, every layout it may hide is considered; the face is read only when
    one value fits them all."""
    lab = cv2.cvtColor(face_bgr, cv2.COLOR_BGR2Lab).astype(np.float32)
    inner = lab[6:-6, 6:-6].reshape(-1, 3)
    b, g, r = face_bgr[..., 0], face_bgr[..., 1], face_bgr[..., 2]
    bgr_min, bgr_max = np.minimum(np.minimum(b, g), r), np.maximum(np.maximum(b, g), r)
    # the face's colour where glare does not burn it out (white in every channel); a face
    # burnt out nearly all over is lit too brightly, not glared, and no pip is hidden on it
    lit = bgr_min[6:-6, 6:-6].ravel() < 245
    glare_spot = 0.4 <= lit.mean() < 1.0
    body = np.median(inner[lit] if glare_spot else inner, axis=0)
    dist = _norm(lab - body)
    glare = (bgr_max >= 250) & (lab[..., 0] > body[0] + 25)
    burnt = ((bgr_min >= 245) & (lab[..., 0] > body[0] + 8) & glare_spot).astype(np.float32)
    d8 = np.clip(dist * 2, 0, 255).astype(np.uint8)
    core = d8[6:-6, 6:-6]
    t, _ = cv2.threshold(core, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    t = max(t, 40)  # a pip differs from the face by at least this much (x2 units of Lab)
    mask = (d8 > t).astype(np.uint8)
    mask[:4, :] = 0
    mask[-4:, :] = 0
    mask[:, :4] = 0
    mask[:, -4:] = 0
    n, lab_img, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    expected = (FACE * 0.19) ** 2 * math.pi / 4  # a pip's area on the straightened face
    blobs = []  # (centre, area, lighter, shape ok, share burnt out, mean Lab colour)
    cut = False
    # each component's mean colour and share burnt out, in one pass over the face
    flat = lab_img.ravel()
    count = np.maximum(np.bincount(flat, minlength=n), 1)
    means = np.stack([np.bincount(flat, lab[..., c].ravel(), n) for c in range(3)], 1) / count[:, None]
    burnt_share = np.bincount(flat, burnt.ravel(), n) / count
    for i in range(1, n):
        a = stats[i, cv2.CC_STAT_AREA]
        if a < expected * 0.12:
            continue  # speck
        x, y, w, h = stats[i, :4]
        cx, cy = cents[i] / FACE
        inside = 0.13 < cx < 0.87 and 0.13 < cy < 0.87 and x > 4 and y > 4 and x + w < FACE - 4 and y + h < FACE - 4
        if a <= expected * 3 and not inside:
            # the edge of the face, or past it: never a pip of this face. But a whole round
            # pip just inside the edge, beside the pips' rows, says the square took only part
            # of a face (two touching dice cut in the wrong place: a 6 seen as a 4)
            if 0.4 * expected <= a <= 1.6 * expected and max(w, h) <= 1.4 * min(w, h) + 1 \
                    and min(cx, cy) > 0.06 and max(cx, cy) < 0.94 and (0.2 < cx < 0.8 or 0.2 < cy < 0.8):
                cut = True
            continue
        colour = means[i]
        lighter = float(colour[0]) > body[0]
        shaped = a <= expected * 3 and max(w, h) <= 1.6 * min(w, h) + 1
        blobs.append(((cx, cy), a, lighter, shaped, float(burnt_share[i]), colour))
    glare_px = int(glare.sum())
    # on a face whose pips are darker (most of its pip-shaped blobs), a lighter spot is glare,
    # not a pip (a pip under it is found again as darker than the glare round it)
    darker = sum(not b[2] for b in blobs if b[3])
    dark_pips = darker > 0 and darker >= sum(b[2] for b in blobs if b[3])
    glared = [b for b in blobs if dark_pips and b[2]]
    rest = [b for b in blobs if b not in glared]
    pips = [b[0] for b in rest if b[3]]
    areas = [b[1] for b in rest if b[3]]
    diameters = [math.sqrt(4 * b[1] / math.pi) / FACE for b in rest if b[3]]
    if glared:
        glare_px = max(glare_px, 9)
    if any(not b[3] for b in rest):
        # something big, or stretched, that is not a pip: not a face seen square (a side)
        return {"value": None, "fit": math.inf, "pips": len(rest), "glare": glare_px, "odd": True}
    # light pips are all lighter than the face: a dark spot among them (a shadow, a dent, a
    # reflection of something dark) and the face is not read
    if len({b[2] for b in rest}) > 1:
        return {"value": None, "fit": math.inf, "pips": len(pips), "glare": max(glare_px, 9), "odd": True}
    if not dark_pips and len(rest) >= 3:
        # light pips are paint of one colour: a spot fainter than the others, or of another
        # tint, is glare on a coloured die (the face's colour under a white light)
        cols = np.array([b[5] for b in rest])
        contrast = _norm(cols - body)
        paint = np.median(cols, axis=0)
        if contrast.min() < 0.8 * float(np.median(contrast)) or float(_norm(cols[:, 1:] - paint[1:]).max()) > 12:
            return {"value": None, "fit": math.inf, "pips": len(pips), "glare": max(glare_px, 9), "odd": True}
    value, fit, k = _layout_fit_scaled(pips, diameters)
    if pips and burnt.any():
        # glare burns out part of the face: every value it may hide a pip of is considered
        if value is None or fit >= ACCEPT_FIT:
            k = float(np.median(diameters)) / 0.19
        vals = _glare_values(pips, k, burnt) if 0.55 <= k <= 1.35 else set()
        if value is not None and fit < ACCEPT_FIT:
            if vals - {value}:
                value, fit, glare_px = None, math.inf, max(glare_px, 9)  # one more pip may be hidden
        elif len(vals) == 1:
            value, fit = vals.pop(), 0.1  # one pip hidden, and only one value has it there
        elif vals:
            glare_px = max(glare_px, 9)
    if cut:
        value, fit = None, math.inf
    # pips are one size (with glare dropped, a dark speck at the edge must not make up a face)
    if value is not None and areas and max(areas) > (1.8 if glared else 2.6) * min(areas):
        value, fit = None, math.inf
    if value is not None:
        # how much darker than its own surround each place is (a pip under glare is lighter
        # than the face, but darker than the glare round it), or how far from the face's colour
        signed = cv2.morphologyEx(np.clip(lab[..., 0], 0, 255).astype(np.uint8), cv2.MORPH_BLACKHAT,
                                  _PIP_SURROUND).astype(np.float32) if dark_pips else dist
        glare_l = (lab[..., 0], body[0]) if dark_pips and (glared or glare_px > 8 or burnt.sum() >= 4) else None
        marked = _marked_places(signed, pips, k, burnt, glare_l)
        under_glare = [p for p in marked if glare_l is not None
                       and float(_spot(lab[..., 0] + signed, *p).mean()) >= body[0] + 8]
        if marked and len(under_glare) == len(marked):
            # a pip under glare, lighter than the face: read with it when the face then makes
            # a layout with no other place marked
            more = pips + under_glare
            v2, f2, k2 = _layout_fit_scaled(more, diameters + [float(np.median(diameters))] * len(marked))
            if v2 is not None and f2 < ACCEPT_FIT and not _marked_places(signed, more, k2, burnt, glare_l):
                value, fit = v2, max(f2, 0.1)
            else:
                value, fit = None, math.inf
        elif marked:
            value, fit = None, math.inf
    # the face the pips' layout was fitted on (centre and side, in the square's units), when its
    # own pips made it: the square may hold some table or a side of a dark die as well
    top = None
    if value is not None and value == len(pips) >= 2 and 0.55 <= k <= 1.35:
        c = np.mean(np.asarray(pips, np.float64), axis=0)
        top = (float(c[0]), float(c[1]), float(k))
    return {"value": value, "fit": fit, "pips": len(pips), "glare": glare_px, "odd": False, "top": top}


# --------------------------------------------------------------------------- finding dice


def _order_quad(q):
    q = np.asarray(q, np.float32).reshape(4, 2)
    c = q.mean(0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    return q[np.argsort(ang)]


def _face_quads(region: np.ndarray) -> list:
    """Quadrilaterals of the face-shaped parts of a binary region (uint8): the region's own
    rotated rectangle, or, for a region as long as two or three faces, its halves / thirds."""
    cnts, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return []
    c = max(cnts, key=cv2.contourArea)
    (cx, cy), (w, h), ang = cv2.minAreaRect(c)
    if min(w, h) < 4:
        return []
    k = max(w, h) / min(w, h)
    parts = 1 if k < 1.55 else (2 if k < 2.5 else 3)
    out = []
    box = cv2.boxPoints(((cx, cy), (w, h), ang))
    if parts == 1:
        return [(_order_quad(box), 1, min(w, h) / max(w, h))]
    # split along the long side
    a, b, cc, d = box
    long_ab = np.linalg.norm(b - a) >= np.linalg.norm(cc - b)
    if not long_ab:
        a, b, cc, d = b, cc, d, a
    for i in range(parts):
        p0, p1 = a + (b - a) * i / parts, a + (b - a) * (i + 1) / parts
        q0, q1 = d + (cc - d) * i / parts, d + (cc - d) * (i + 1) / parts
        out.append((_order_quad([p0, p1, q1, q0]), parts, min(w, h) / (max(w, h) / parts)))
    return out


def _grow(quad, f):
    c = quad.mean(0)
    return (quad - c) * f + c


_FACE_CORNERS = np.array([[0, 0], [FACE, 0], [FACE, FACE], [0, FACE]], np.float32)  # a straightened face's


def _warp_face(img, quad) -> np.ndarray:
    # start the corners at the top-left-most one so the warp is not mirrored
    q = _order_quad(quad)
    M = cv2.getPerspectiveTransform(q.astype(np.float32), _FACE_CORNERS)
    return cv2.warpPerspective(img, M, (FACE, FACE), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _top_quad(quad, got: dict) -> np.ndarray:
    """The die's top within a square read as `got` (`_read_face` on `_warp_face(img, quad)`): the
    face its pips' layout was fitted on, in the image's px; the square itself when that is not
    known (a 1, a pip under glare)."""
    if not got.get("top"):
        return np.asarray(quad, np.float32)
    cx, cy, k = got["top"]
    corners = np.array(_square((cx, cy), k), np.float32) * FACE
    M = cv2.getPerspectiveTransform(_FACE_CORNERS, _order_quad(quad).astype(np.float32))
    return cv2.perspectiveTransform(corners.reshape(-1, 1, 2), M).reshape(4, 2)


def _mask_rect(mask: np.ndarray) -> tuple:
    """The rotated rectangle round a mask's pixels (uint8), from its outlines' points alone: the
    same hull, so the same rectangle, without passing every pixel inside."""
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cnts:  # an empty mask: OpenCV's own error, which the reader turns into a sentence
        return cv2.minAreaRect(cv2.findNonZero(mask))
    return cv2.minAreaRect(np.concatenate(cnts))


def _norm(v: np.ndarray) -> np.ndarray:
    """The length of each pixel's vector (float32, the last axis)."""
    # a sum over the few channels: several times faster than einsum on small images, same values
    return np.sqrt(sum(v[..., k] * v[..., k] for k in range(v.shape[-1])))


def _blurred(small) -> bool:
    """No sharp edge anywhere: the dice's outlines and pips are the sharpest things in a photo
    of dice, and a photo in focus has some (the 99.9th percentile of the gradient, at
    FIND_WIDTH, is 290-750 in focus, under 120 when a die's pips blur away)."""
    g = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    mag = cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1))
    return float(np.percentile(mag[::2, ::2], 99.9)) < 130


def _table_colours(lab: np.ndarray) -> np.ndarray:
    """The table's main colours (K x 3 Lab, float32): clusters of the pixels along the photo's
    border (the dice are inside the photo), each holding at least 5 % of them."""
    h, w = lab.shape[:2]
    b = max(2, int(min(h, w) * 0.08))
    frame = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3),
                            lab[b:-b, :b].reshape(-1, 3), lab[b:-b, -b:].reshape(-1, 3)]).astype(np.float32)
    frame = frame[::max(1, len(frame) // 3000)]
    k = 6
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0)
    cv2.setRNGSeed(1)  # the same photo reads the same every time
    _, labels, centres = cv2.kmeans(frame, k, None, crit, 1, cv2.KMEANS_PP_CENTERS)
    share = np.bincount(labels.ravel(), minlength=k) / len(labels)
    return centres[share >= 0.05].astype(np.float32)


def _pattern_distance(labf: np.ndarray) -> np.ndarray:
    """Each pixel's Lab distance to the table's colours (`_table_colours`), to the lines between
    two of them (where two colours of a pattern meet and blur together) and to each a little
    darker (the light falling off across the table, a soft shadow), at a third of the size."""
    h, w = labf.shape[:2]
    third = cv2.resize(labf, (max(8, w // 3), max(8, h // 3)), interpolation=cv2.INTER_AREA)
    cols = _table_colours(third)
    dark = cols.copy()
    dark[:, 0] *= 0.75
    dark[:, 1:] = cols[:, 1:] * 0.75 + 128 * 0.25
    segs = [(cols[i], cols[j]) for i in range(len(cols)) for j in range(i + 1, len(cols))]
    segs += [(cols[i], dark[i]) for i in range(len(cols))]
    A = np.array([a for a, _ in segs], np.float32)
    D = np.array([b - a for a, b in segs], np.float32)
    P = third.reshape(-1, 3)
    dd = (D ** 2).sum(1) + 1e-6
    t = np.clip((P @ D.T - (A * D).sum(1)) / dd, 0, 1)
    # |p - a - t d|^2 = |p|^2 - 2 p.a + |a|^2 - 2 t (p.d - a.d) + t^2 |d|^2
    pp = np.einsum("ij,ij->i", P, P)[:, None]
    d2 = pp - 2 * (P @ A.T) + (A ** 2).sum(1) - 2 * t * (P @ D.T - (A * D).sum(1)) + t ** 2 * dd
    dist = np.sqrt(np.maximum(d2.min(1), 0)).reshape(third.shape[:2])
    return cv2.resize(dist, (w, h), interpolation=cv2.INTER_LINEAR)


def _pip_marks(L: np.ndarray) -> np.ndarray:
    """Pip-like marks anywhere in a photo (lightness, at FIND_WIDTH): small round spots, darker
    or lighter than a uniform surround by a pip's contrast. Rows of (x, y, diameter) in px.
    They show where a die is, so that a die the finder missed (on a patterned table, against a
    table of its own colour) is read from its pips' face or declined, never left out of a roll."""
    se = cv2.getStructuringElement(cv2.MORPH_RECT, (15, 15))  # square: much faster, and pips are smaller
    out = []
    for resp, sign in ((cv2.morphologyEx(L, cv2.MORPH_BLACKHAT, se), -1), (cv2.morphologyEx(L, cv2.MORPH_TOPHAT, se), 1)):
        # (contours, not labelled components: a few times faster on a whole photo)
        cnts, hier = cv2.findContours((resp > PIP_CONTRAST).astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
        if hier is None:
            continue
        # every component's outline (a mark inside another's hole too), not the holes'
        cnts = [c for c, hh in zip(cnts, hier[0]) if hh[3] < 0 and len(c) >= 4]
        if not cnts:
            continue
        rects = np.array([cv2.boundingRect(c) for c in cnts], np.float32).reshape(-1, 4)
        w, h = rects[:, 2], rects[:, 3]
        # pixels covered: the outline's area plus half its length (the outline runs through pixel centres)
        a = np.array([cv2.contourArea(c) + cv2.arcLength(c, True) / 2 + 1 for c in cnts], np.float32)
        ce = np.array([c.reshape(-1, 2).mean(0) for c in cnts], np.float32)
        d = np.sqrt(4 * a / math.pi)
        keep = (a >= 7) & (d <= 13) & (np.maximum(w, h) <= 1.5 * np.minimum(w, h) + 1) \
            & (a >= 0.55 * math.pi / 4 * np.maximum(w, h) ** 2)
        ce, d = ce[keep], d[keep]
        if not len(ce):
            continue
        # the surround, sampled on a ring just outside the spot: the face's own colour, the
        # same all round and clearly lighter (or darker) than the spot
        ang = np.linspace(0, 2 * math.pi, 8, endpoint=False)
        rad = 0.75 * d[:, None] + 1.5
        xs = np.clip(np.round(ce[:, :1] + rad * np.cos(ang)), 0, L.shape[1] - 1).astype(int)
        ys = np.clip(np.round(ce[:, 1:] + rad * np.sin(ang)), 0, L.shape[0] - 1).astype(int)
        ring = L[ys, xs].astype(np.float32)
        centre = L[np.clip(np.round(ce[:, 1]).astype(int), 0, L.shape[0] - 1),
                   np.clip(np.round(ce[:, 0]).astype(int), 0, L.shape[1] - 1)].astype(np.float32)
        ring.sort(1)
        body = np.median(ring, 1)
        contrast = (body - centre) * -sign
        spread = ring[:, 6] - ring[:, 1]  # the ring, leaving out its darkest and lightest sample
        ok = (contrast > PIP_CONTRAST) & (spread < 0.5 * contrast)
        out += [(float(x), float(y), float(dd)) for (x, y), dd in zip(ce[ok], d[ok])]
    return np.array(out, np.float32).reshape(-1, 3)


def _unexplained_marks(marks: np.ndarray, dice: list, to_img: float) -> list:
    """Groups of pip marks (index arrays into `marks`, the largest first; `to_img` scales the
    marks' px to the dice's) that lie on no die found: each may be a die missed."""
    if not len(marks):
        return []
    pts = marks[:, :2] * to_img
    covered = np.zeros(len(pts), bool)
    for d in dice:
        grown = _grow(np.asarray(d.box, np.float32), 2.0).reshape(-1, 1, 2)
        for i, (x, y) in enumerate(pts):
            if not covered[i] and cv2.pointPolygonTest(grown, (float(x), float(y)), False) >= 0:
                covered[i] = True
    rest = [int(i) for i in np.flatnonzero(~covered)]
    if not rest:
        return []
    # group: marks within four of their diameters (a 2's pips are 3.7 apart)
    groups, seen = [], set()
    for i in rest:
        if i in seen:
            continue
        g, todo = [], [i]
        seen.add(i)
        while todo:
            j = todo.pop()
            g.append(j)
            for k in rest:
                if k not in seen and math.dist(pts[j], pts[k]) < 4.2 * max(marks[j, 2], marks[k, 2]) * to_img:
                    seen.add(k)
                    todo.append(k)
        groups.append(np.array(g))
    return sorted(groups, key=len, reverse=True)


def _square(c, side) -> tuple:
    """The four corners of an upright square of `side` around `c`."""
    half = side / 2
    return tuple((float(c[0] + sx * half), float(c[1] + sy * half)) for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)))


def _declined_at(pts: np.ndarray, dia: float) -> Die:
    """A die declined where pip marks are (px of the image given), about a die's size."""
    c = pts.mean(0)
    return Die(None, (float(c[0]), float(c[1])), _square(c, dia / 0.19), 0.0, UNREADABLE)


def _face_from_marks(read: np.ndarray, pts: np.ndarray, dias: np.ndarray) -> dict | None:
    """Read a die from its pip marks alone (px of `read`), for a die the table model did not
    find (a table of its colour, a pattern): the face is grown from the colour around its
    pips, straightened and read as any other face. None when that does not give one clear
    face of a die's size."""
    dia = float(np.median(dias))
    side = dia / 0.19
    h, w = read.shape[:2]
    c = pts.mean(0)
    r = int(1.4 * side + 2)
    x0, y0, x1, y1 = max(0, int(c[0]) - r), max(0, int(c[1]) - r), min(w, int(c[0]) + r), min(h, int(c[1]) + r)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    win = read[y0:y1, x0:x1]
    # the face is found at about 48 px a side (a large die's window is many times that), and
    # read from the window at full size
    f = min(1.0, 48.0 / side)
    small = cv2.resize(win, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else win
    sh, sw = small.shape[:2]
    if sh < 8 or sw < 8:
        return None
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab).astype(np.float32)
    local = (pts - np.array([x0, y0], np.float32)) * f
    dias_s, dia_s, side_s = dias * f, dia * f, side * f
    # the face's colour: around each pip, on a ring just outside it; a top lit from above is the
    # lightest face, so the pips with the lightest surround are the top's
    ang = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    rad = 0.75 * dias_s[:, None] + 1.5
    xs = np.clip(np.round(local[:, :1] + rad * np.cos(ang)), 0, sw - 1).astype(int)
    ys = np.clip(np.round(local[:, 1:] + rad * np.sin(ang)), 0, sh - 1).astype(int)
    bodies = np.median(lab[ys, xs], axis=1)
    top = bodies[:, 0] >= bodies[:, 0].max() - 15
    body = np.median(bodies[top], axis=0)
    dist = np.sqrt(((lab[..., 0] - body[0]) / 1.5) ** 2 + (lab[..., 1] - body[1]) ** 2 + (lab[..., 2] - body[2]) ** 2)
    m = (dist < 14).astype(np.uint8)
    k = max(3, int(dia_s * 1.4)) | 1
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=4)
    seed = local[top].mean(0)
    i = labels[min(int(seed[1]), sh - 1), min(int(seed[0]), sw - 1)]
    if i == 0:
        return None
    area = stats[i, cv2.CC_STAT_AREA]
    if not 0.45 * side_s ** 2 <= area <= 1.5 * side_s ** 2:
        return None  # leaked into a table of the face's colour, or only part of a face
    x, y, bw, bh = stats[i, :4]
    if x <= 0 or y <= 0 or x + bw >= sw or y + bh >= sh:
        return None
    (cx, cy), (rw, rh), a = _mask_rect((labels == i).astype(np.uint8))
    if min(rw, rh) < 0.8 * max(rw, rh) or area < 0.8 * rw * rh:
        return None  # not a square face seen from above
    quad = _order_quad(cv2.boxPoints(((cx, cy), (rw, rh), a))) / f
    quad = _grow(quad, 1.06)
    got = _read_face(_warp_face(win, quad))
    if got["value"] is None or got["fit"] >= ACCEPT_FIT or got["odd"]:
        return None
    # every top pip mark lies on the face read
    q = quad.reshape(-1, 1, 2)
    if any(cv2.pointPolygonTest(q, (float(px), float(py)), False) < 0 for px, py in local[top] / f):
        return None
    return {"value": got["value"], "quad": quad + np.array([x0, y0], np.float32),
            "top_quad": _top_quad(quad, got) + np.array([x0, y0], np.float32),
            "confidence": max(0.0, min(1.0, 1.0 - got["fit"] / 0.2))}


def _face_from_pip_layout(win: np.ndarray, top: np.ndarray, dias: np.ndarray, outline=None) -> dict | None:
    """Read a die from where its top's pips lie (px of `win`), for a face the shading split and
    the face's colour do not outline (a small die whose lit sides look like its top): when the
    marks could be one face's pips, the square that face would be is straightened and read as
    any face, with every check of `_read_face`, and must show just those pips (trying parts of
    the marks as a face read a side's pips as a top: not done). Four to six marks make a
    square; two or three in a line are as often pips of a die's top and side: not read so.
    A lone pip is a 1's, in the middle of its face, which is turned as the die's outline and
    sized by the pip, a little inside its edges: `outline` is the die's silhouette (uint8, as
    `win`), and that square must lie well inside it (a corner pip of a face whose other pips
    were not seen is off the middle of the die)."""
    n = len(top)
    if float(dias.max()) > 1.5 * float(dias.min()):
        return None
    dia = float(np.median(dias))
    c = top.mean(0)
    if n == 1:
        if outline is None:
            return None
        # turned as the outline, else in steps of 15 degrees; read only when every way that
        # stays inside the outline and gives a face gives a 1
        first = _mask_rect(outline)[2]
        got = [_face_on_pips_at(win, c, 0.85 * dia / 0.19, math.radians(first + turn), 1, outline)
               for turn in (0, 15, 30, 45, 60, 75)]
        read = [g for g in got if g is not None]
        return read[0] if read and all(g["value"] == 1 for g in read) else None
    if not 4 <= n <= 6:
        return None
    # a 4, 5 or 6: its corner pips make a square half its side
    (_, _), (rw, rh), a = cv2.minAreaRect(top.astype(np.float32).reshape(-1, 1, 2))
    if min(rw, rh) < 0.7 * max(rw, rh):
        return None
    side = 2 * float(np.mean([rw, rh]))
    ang = math.radians(a)
    if not 3.8 <= side / dia <= 7.0:  # a pip is about a fifth of its face's side
        return None
    return _face_on_pips_at(win, c, side, ang, n)


def _face_on_pips_at(win: np.ndarray, c, side: float, ang: float, n: int, outline=None) -> dict | None:
    """The face of side `side` px centred on `c`, turned `ang` radians, read: None unless it
    shows `n` pips making a face (and, with `outline`, lies inside it)."""
    u = np.array([math.cos(ang), math.sin(ang)], np.float32) * side / 2 * 1.06
    v = np.array([-u[1], u[0]], np.float32)
    quad = _order_quad([c - u - v, c + u - v, c + u + v, c - u + v])
    h, w = win.shape[:2]
    if quad.min() < 0 or quad[:, 0].max() > w - 1 or quad[:, 1].max() > h - 1:
        return None
    # (the square's corners and the middles of its sides)
    if outline is not None and not all(outline[int(round(y)), int(round(x))]
                          for x, y in np.concatenate([quad, (quad + np.roll(quad, 1, 0)) / 2])):
        return None
    face = _warp_face(win, quad)
    # one face is one tone: a square across a die's top and side (pips of both taken for one
    # face's) is lighter in one half than in the other
    L = cv2.cvtColor(face, cv2.COLOR_BGR2Lab)[..., 0][8:-8, 8:-8]
    h2 = L.shape[0] // 2
    halves = [np.median(q) for q in (L[:h2], L[h2:], L[:, :h2], L[:, h2:])]
    if max(abs(halves[0] - halves[1]), abs(halves[2] - halves[3])) > 18:
        return None
    got = _read_face(face)
    if got["value"] is None or got["fit"] >= ACCEPT_FIT or got["odd"] or got["pips"] != n:
        return None
    return {"value": got["value"], "quad": quad, "top_quad": _top_quad(quad, got),
            "confidence": 0.8 * max(0.0, min(1.0, 1.0 - got["fit"] / 0.2))}


NADIR_BELOW = 0.15  # the point below the camera: this many photo widths below its middle


def _nadir(w: int, h: int) -> tuple:
    """Where the point straight below the camera is guessed to be in a w x h photo: below its
    middle, as a phone is held tilted toward the player (a phone held straight down has it at
    the middle, where few sides are seen)."""
    return (w / 2, h / 2 + NADIR_BELOW * w)


def _toward_nadir(sil: np.ndarray, quad: np.ndarray, nadir) -> float:
    """How far (px) a face lies from its blob's middle toward the nadir, where a die's sides
    are seen: a die's top lies at or beyond the middle, away from it."""
    m = cv2.moments(sil, True)
    mid = np.array([m["m10"], m["m01"]], np.float32) / max(m["m00"], 1.0)
    to_n = np.asarray(nadir, np.float32) - mid
    return float((quad.mean(0) - mid) @ to_n) / (float(np.linalg.norm(to_n)) + 1e-6)


def _overlap(a: Die, b: Die) -> bool:
    """Two dice found at one place: each one's centre inside the other's box, grown by half."""
    def inside(p, d):
        box = _grow(np.asarray(d.box, np.float32), 1.5).reshape(-1, 1, 2)
        return cv2.pointPolygonTest(box, (float(p[0]), float(p[1])), False) >= 0
    return inside(a.centre, b) and inside(b.centre, a)


def _within(a: Die, b: Die) -> bool:
    """Every corner of `a`'s box lies in `b`'s, grown to 1.6 times its side (`a` is at most
    the sides and edge of the die `b`)."""
    box = _grow(np.asarray(b.box, np.float32), 1.6).reshape(-1, 1, 2)
    return all(cv2.pointPolygonTest(box, (float(x), float(y)), False) >= 0 for x, y in a.box)


def _worth(dice, problem) -> tuple:
    """How well a photo was read, to compare two readings: the dice read, then the fewest left
    unread (a photo problem, or no dice, is worst)."""
    if problem or not dice:
        return (-1, 0)
    return (sum(d.value is not None for d in dice), -sum(d.value is None for d in dice))


# the window classifier's thresholds (docs/dice-photo.md: chosen on tuning photos)
SECOND_LOOK_READ = 0.95    # a die declined is read when the classifier is this sure of one value
SECOND_LOOK_VETO = 0.9     # a die read is declined when the classifier is this sure of another
SECOND_LOOK_DOUBT = 0.1    # or gives its value less than this
SECOND_LOOK_DIE = 0.2      # a window less sure than this that no die is centred in it holds part of one
SCAN_STEP = 0.4            # the scan over a declined die's place, in die sides
EXPLAINED = 0.6            # a window this near a die (in its sides) is explained by it
EXPLAINED_UNSURE_SIDE = 0.45  # (when no die was read to tell a die's side)
SCAN_MOST = 120            # a declined place needing more windows than this is far bigger than a die or two
TWO_DICE_SIDE = 0.57       # a die's side in a box around two that touch
TURNS = (45, 135, 225, 315)  # a die the scan reads is looked at again turned these many degrees
SCAN_MAYBE = 0.8           # a scan's window this sure of a value is looked at centred and turned
SCAN_MAYBE_READ = 0.9      # and read when the classifier is this sure of it on average
SCAN_OTHER_VALUE = 0.65    # a window of another value nearer than this (in sides) to a die the scan found is that die's
SCAN_OTHER_VALUE_UNSURE_SIDE = 0.7  # (when no die was read to tell a die's side)
SCAN_OTHER_SEEN = 0.55     # a window surer of another value than of none, by a die the scan reads, keeps it declined
TURNED_READ = 0.9          # and read only when the classifier is this sure of its value on average
SIDE_BY_PLACE = True       # the classifier reads a die at the side dice have where it lies (False: their median side)
SIDE_SPREAD = 1.3          # a die's side where it lies stays within this factor of the dice read's median
SIDE_FIT_OFF = 0.12        # a die read this far off the others' fit of the side (a share of it) is left out
SIDE_FACE_NO_DIE = 0.8     # a declined place beside a die read, this sure of no die all over, is its side
SIDE_FACE_NEAR = 1.5       # (and no farther from that die's middle than this, in its sides)
FLAT_SPREAD = 4.0          # a scan window whose middle is this even (grey levels' spread) is bare table
FLAT_HALF = 0.3            # (its middle: this many sides each way from its centre)
# a place and six around it, a quarter side away: a closer look where a die may be
_LOOK_AROUND = [(0.0, 0.0)] + [(0.25 * math.cos(a), 0.25 * math.sin(a)) for a in np.arange(6) * math.pi / 3]


def _box_side(d: Die) -> float:
    b = np.asarray(d.box, np.float32)
    return float(np.mean([np.linalg.norm(b[i] - b[(i + 1) % 4]) for i in range(4)]))


def _typical_side(dice: list) -> float | None:
    """The median side of the dice read (image px), None when none was read."""
    sides = [_box_side(d) for d in dice if d.value is not None]
    return float(np.median(sides)) if sides else None


def _side_at(dice: list):
    """A die's side (image px) where it lies, from the dice read: a photo of a table in
    perspective shows a die smaller the farther it is, and one over a side is an affine
    function of where it lies in the photo (a plane's inverse depth). Fitted to the dice read
    (three or more, not in a line; one far off the others' fit is left out) and held within
    SIDE_SPREAD of their median side; with fewer, the median side everywhere. None when no
    die was read."""
    read = [(d.centre, _box_side(d)) for d in dice if d.value is not None]
    if not read:
        return None
    med = float(np.median([s for _, s in read]))
    flat = lambda at: med  # noqa: E731
    if len(read) < 3:
        return flat
    A = np.array([(c[0], c[1], 1.0) for c, _ in read], np.float64) / med
    inv = np.array([1.0 / s for _, s in read], np.float64) * med

    def fit(keep):  # None when too few dice, or in a line
        if keep.sum() < 3:
            return None
        coef, _, rank, _ = np.linalg.lstsq(A[keep], inv[keep], rcond=None)
        return coef if rank == 3 else None
    coef = fit(np.ones(len(read), bool))
    if coef is not None:
        off = np.abs(A @ coef / inv - 1)
        if off.max() > SIDE_FIT_OFF:  # the worst one out, once
            coef = fit(off < off.max())
    if coef is None:
        return flat

    def at(c):
        v = float(np.array([c[0], c[1], 1.0]) / med @ coef)
        return med if v <= 0 else float(np.clip(med / v, med / SIDE_SPREAD, med * SIDE_SPREAD))
    return at


def _classify(wins: np.ndarray, check) -> np.ndarray:
    """The classifier over many windows, a batch at a time, the reader's deadline checked
    between batches (a crafted photo of many declined blobs cannot hold the reader up)."""
    out = [np.zeros((0, 7), np.float32)]
    for i in range(0, len(wins), 100):
        check()
        out.append(dice_windows.classify(wins[i:i + 100]))
    return np.concatenate(out)


def _around(at, side: float) -> list:
    """`at` and six places a quarter of `side` round it."""
    return [(at[0] + sx * side, at[1] + sy * side) for sx, sy in _LOOK_AROUND]


_NO_DIE = np.array([1, 0, 0, 0, 0, 0, 0], np.float32)


def _flat(gray: np.ndarray, at, side: float) -> bool:
    """Whether the middle of a window at `at` is even (bare table, or a die's plain side): every
    face of a die has a pip within FLAT_HALF of a side of its middle, so no die is centred there."""
    h = max(2, int(FLAT_HALF * side))
    x, y = int(round(at[0])), int(round(at[1]))
    patch = gray[max(0, y - h):max(0, y + h + 1), max(0, x - h):max(0, x + h + 1)]
    return patch.size > 0 and float(patch.std()) < FLAT_SPREAD


def _scan_places(d: Die, side: float, f_read: float) -> list | None:
    """Where a declined die's place is scanned (px in the photo at `f_read`): every
    SCAN_STEP of `side` over its box and 0.3 of a side round it, and round where the classical
    steps put it (the grid seldom falls on a die's middle); None when that is far bigger than a
    die or two."""
    box = np.asarray(d.box, np.float32) * f_read
    lo, hi = box.min(0) - 0.3 * side, box.max(0) + 0.3 * side
    step = SCAN_STEP * side
    nx, ny = int((hi[0] - lo[0]) / step) + 1, int((hi[1] - lo[1]) / step) + 1
    if nx * ny > SCAN_MOST:
        return None
    mid = (lo + hi) / 2
    grid = [(float(mid[0] + (ix - (nx - 1) / 2) * step), float(mid[1] + (iy - (ny - 1) / 2) * step))
            for iy in range(ny) for ix in range(nx)]
    c = np.asarray(d.centre, np.float32) * f_read
    return grid + [(float(x), float(y)) for x, y in _around(c, side)]


def _one_die(a, b, side: float, other_value: float) -> bool:
    """Whether two dice read, (centre, value), are one die read twice: nearer than three
    quarters of `side` when of one value, than `other_value` of it when not (two touching
    dice's surest windows lean together)."""
    return math.dist(a[0], b[0]) < (0.75 if a[1] == b[1] else other_value) * side


def _read_scan(windows: list, side: float, read_at: list, gray: np.ndarray, explained: float, check,
               other_value: float) -> list | None:
    """The dice a scan reads (centre, value, confidence): none when the classifier is sure of
    no die there away from the dice read, None when the place stays declined. `windows` are
    (place, probabilities); `read_at` the (centre, side) of the dice read."""
    found = []  # (centre, value, confidence, by a die of another value)
    for at, p in sorted(windows, key=lambda w: -float(w[1][1:].max())):
        v = int(np.argmax(p[1:])) + 1
        if p[v] < SCAN_MAYBE:
            break
        if any(math.dist(at, c) < 0.75 * s for c, s in read_at):
            continue
        # windows near a die found are that die's, but another value farther than `other_value`
        # may be a die touching it: read only if as sure of it centred and turned
        if any(_one_die((at, v), f, side, other_value) for f in found):
            continue
        found.append((at, v, float(p[v]), any(math.dist(at, f[0]) < 0.75 * side for f in found)))
    if not found:
        return []
    # each die where the windows sure of its value centre (the scan's step is coarse)
    for k, (at, v, conf, by_other) in enumerate(found):
        near_v = [(a, float(p[v])) for a, p in windows if math.dist(a, at) < 0.5 * side and p[v] >= 0.5
                  and not any(math.dist(a, c) < math.dist(a, at) for c, _ in read_at)]
        wsum = sum(w for _, w in near_v)
        found[k] = ((sum(a[0] * w for a, w in near_v) / wsum, sum(a[1] * w for a, w in near_v) / wsum), v, conf, by_other)
    # a die read again where another already is would take the declined die's place
    if any(math.dist(f[0], c) < 0.75 * s for f in found for c, s in read_at):
        return None
    # each die read seen turned four ways too, and as sure on the whole (a worn or faded pip
    # read as a blank one way is seldom read so every way)
    views = np.concatenate([dice_windows.die_windows(gray, [f[0] for f in found], side, a) for a in (0,) + TURNS])
    pv = _classify(views, check).reshape(1 + len(TURNS), len(found), 7)
    if any(float(pv[1:, k, v].mean()) < TURNED_READ for k, (_, v, conf, by_other) in enumerate(found)
           if conf >= SECOND_LOOK_READ and not by_other):
        return None
    # a die the scan was less sure of, or found by another, is read when, centred, the
    # classifier is as sure of it every way on the whole
    found = [(at, v, conf) for k, (at, v, conf, by_other) in enumerate(found)
             if (conf >= SECOND_LOOK_READ and not by_other) or float(pv[:, k, v].mean()) >= SCAN_MAYBE_READ]
    if not found or any(_one_die(a, b, side, other_value) for j, a in enumerate(found) for b in found[j + 1:]):
        return None
    # another value seen by a die read, where no die of it is: a tilted die's side is read
    # where the classifier half sees its top (declined still)
    centres = [f[0] for f in found] + [c for c, _ in read_at]
    for a, p in windows:
        k = min(range(len(centres)), key=lambda j: math.dist(a, centres[j]))
        if k >= len(found) or math.dist(a, centres[k]) >= explained * side:
            continue  # nearer a die read, or by no die
        v = found[k][1]
        w = max((u for u in range(1, 7) if u != v), key=lambda u: p[u])
        if p[w] >= SCAN_OTHER_SEEN and (p[0] < SECOND_LOOK_DIE or p[w] >= p[0]) and p[w] > p[v]:
            return None
    # part of a die the scan did not read: declined still
    near = [at for at, _, _ in found] + [c for c, _ in read_at]
    if any(p[0] < SECOND_LOOK_DIE and not any(math.dist(at, c) < explained * side for c in near)
           for at, p in windows):
        return None
    return found


SIDE_FACE_AWAY = -0.5       # a place lying this straight (cosine) away from the nadir from a die read
SIDE_FACE_AWAY_FROM = 0.5   # (and this far from it, in sides) is no side of that die


def _away_from_nadir(at, c, side: float, nadir, f_read: float) -> bool:
    """Whether `at` lies clearly away from the nadir (image px; None: unknown) from a die read
    at `c` (px at `f_read`): where none of its sides is seen."""
    if nadir is None:
        return False
    off, to_n = np.asarray(at, np.float64) - c, np.asarray(nadir, np.float64) * f_read - c
    d, dn = float(np.linalg.norm(off)), float(np.linalg.norm(to_n))
    return d >= SIDE_FACE_AWAY_FROM * side and dn > 0 and float(off @ to_n) < SIDE_FACE_AWAY * d * dn


def _second_look(dice: list, gray: np.ndarray, f_read: float, check=lambda: None, nadir=None) -> list:
    """Each die looked at again by the window classifier (dice_windows.py), in `gray` (the
    photo at `f_read`); `check` raises past the reader's deadline.

    A die read whose window the classifier is sure shows another value, or no die, is declined.
    A declined die's place (its box and 0.3 of a die's side around it) is scanned: the dice the classifier
    is sure of there, away from the dice read, take its place, but only when they explain the
    place: every window there that looks like part of a die lies by one of them or by a die
    read. Otherwise the die stays declined, so a die is never dropped, with one exception: a
    declined place beside a die read where the classifier is sure no die is centred anywhere
    but by that die is the die's side, and is left out, unless it lies away from the nadir
    (`nadir`, image px) from that die, where no side of it is seen (the die read may then be
    the side of a die whose top is this place)."""
    if not dice or not dice_windows.available():
        return dice
    typical = _typical_side(dice)
    side_at = _side_at(dice) if SIDE_BY_PLACE else (lambda at: typical)
    wins, owner, bare = [], [], []
    for i, d in enumerate(dice):
        if d.value is not None:
            c = np.asarray(d.centre, np.float32) * f_read
            side = (side_at(d.centre) if typical else _box_side(d)) * f_read
            check()
            wins.append(dice_windows.die_windows(gray, [c], side))
            owner.append((i, 0, (float(c[0]), float(c[1])), side))
            continue
        # with no die read, a die's side is not known: the place is one die, or two that touch
        # (whose box is about 1.75 sides), and is scanned at both sizes
        sides = [side_at(d.centre)] if typical else [_box_side(d), TWO_DICE_SIDE * _box_side(d)]
        for k, side in enumerate(s * f_read for s in sides):
            places = _scan_places(d, side, f_read)
            if places is None:  # not scanned: stays declined
                continue
            # a window centred on bare table is not classified: no die is centred there
            flat = [_flat(gray, at, side) for at in places]
            bare += [(i, k, at, side) for at, f in zip(places, flat) if f]
            places = [at for at, f in zip(places, flat) if not f]
            if places:
                check()
                wins.append(dice_windows.die_windows(gray, places, side))
                owner += [(i, k, at, side) for at in places]
    if not wins:
        return dice
    probs = list(_classify(np.concatenate(wins), check))
    owner += bare
    probs += [_NO_DIE] * len(bare)
    read_at = [(np.asarray(d.centre, np.float32) * f_read, _box_side(d) * f_read) for d in dice if d.value is not None]
    out = list(dice)
    scans = {}
    for (i, k, at, side), p in zip(owner, probs):
        d = dice[i]
        if d.value is not None:
            other = max(p[v] for v in range(7) if v != d.value)
            if other >= SECOND_LOOK_VETO or p[d.value] < SECOND_LOOK_DOUBT:
                out[i] = dataclasses.replace(d, value=None, confidence=0.0, problem=UNREADABLE)
            continue
        scans.setdefault((i, k, side), []).append((at, p))
    # with no die read, the side is a guess: a die is explained only close to one read
    explained = EXPLAINED if typical else EXPLAINED_UNSURE_SIDE
    # and two dice of different values must be farther apart to be two: at a guessed size a
    # tilted die's side reads as a die beside its top
    other_value = SCAN_OTHER_VALUE if typical else SCAN_OTHER_VALUE_UNSURE_SIDE
    replaced = {}
    for (i, _, side), windows in sorted(scans.items(), key=lambda kv: kv[0][:2]):  # each die's first size first
        if i in replaced:  # read at the first size
            continue
        found = _read_scan(windows, side, read_at, gray, explained, check, other_value)
        if found:
            replaced[i] = [Die(v, (at[0] / f_read, at[1] / f_read), _square((at[0] / f_read, at[1] / f_read), side / f_read), conf)
                           for at, v, conf in found]
            continue
        # a die's side seen beside its top (read): no die centred anywhere in the place but by
        # the die read, the classifier all but sure of it, and the place itself by that die
        centre = np.asarray(dice[i].centre, np.float32) * f_read
        beside = [(c, s) for c, s in read_at if math.dist(centre, c) < SIDE_FACE_NEAR * s]
        if found == [] and beside and not all(_away_from_nadir(centre, c, s, nadir, f_read) for c, s in beside) and \
                all(p[0] >= SIDE_FACE_NO_DIE or any(math.dist(at, c) < EXPLAINED * s for c, s in read_at)
                    for at, p in windows):
            replaced[i] = []
    if not replaced:
        return out
    final = []
    for i, d in enumerate(out):
        final += replaced.get(i, [d])
    # two declined dice whose scans read the same die: kept once
    kept = []
    for d in final:
        if d.value is not None and any(e.value is not None and
                                       _one_die((d.centre, d.value), (e.centre, e.value), _box_side(e), other_value)
                                       for e in kept):
            continue
        kept.append(d)
    return kept


MISSED_LOOKS = 48          # places off the dice found that the classifier looks at, most busy first
MISSED_DIE = 0.2           # a die missed is there when the classifier is less sure than this that none is
MISSED_APART = 0.6         # places nearer a die found than this (in sides) are its own
MISSED_MAYBE = 0.9         # a place is looked at closer when the classifier is less sure than this of no die
MISSED_BY_CORNERS = True    # the busy places ranked by how much they vary both ways (not along one edge)
MISSED_BESIDE = 1.0        # where a die touching one read is centred, in sides from that die's middle


def _missed_dice(dice: list, gray: np.ndarray, f_read: float, check=lambda: None) -> list:
    """Dice the finder did not find (a white die on a light table, its pips too blurred to
    mark; a die touching one read, on a patterned table): the busiest places of the photo
    (local spread of lightness) away from every die found, and the places beside each die read
    where a die touching it would be, are looked at by the window classifier. A place it is
    sure shows a die is read, or declined when it is sure only that a die is there, so that
    the roll is never taken without it. The busy places are ranked by the least of their
    variation's two directions (a corner measure): a die varies every way, a patterned
    table's edges (stripes, tiles) along one, and they outnumber the looks. Returns the dice
    to add (image px)."""
    typical = _typical_side(dice)
    if typical is None or not dice_windows.available():
        return []
    side = typical * f_read
    fs = min(1.0, 16.0 / side)  # a die about 16 px across
    g = cv2.resize(gray, None, fx=fs, fy=fs, interpolation=cv2.INTER_AREA).astype(np.float32)
    mean = cv2.blur(g, (9, 9))
    spread = np.sqrt(np.maximum(cv2.blur(g * g, (9, 9)) - mean * mean, 0))
    level = float(np.median(spread))
    rank = cv2.cornerMinEigenVal(g, 9, 3) if MISSED_BY_CORNERS else spread
    peaks = (rank == cv2.dilate(rank, np.ones((11, 11), np.uint8))) & (spread > max(8.0, 3 * level))
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-rank[ys, xs])
    busy = [(float(xs[k]) / fs, float(ys[k]) / fs) for k in order]
    # and a die touching one read (their shared edge, its busiest spot, lies by the die read;
    # on a patterned table the pattern's edges are busier): a side away from each die read, off
    # its edges and corners, where the photo is busier than most of it (not on bare table)
    sh, sw = spread.shape
    beside = []
    for d in dice:
        if d.value is None:
            continue
        box = np.asarray(d.box, np.float32) * f_read
        c = box.mean(0)
        for a in [box[k] for k in range(4)] + [(box[k] + box[(k + 1) % 4]) / 2 for k in range(4)]:
            at = c + (a - c) / (np.linalg.norm(a - c) + 1e-6) * side * MISSED_BESIDE
            x, y = int(at[0] * fs), int(at[1] * fs)
            if 0 <= x < sw and 0 <= y < sh and spread[y, x] > max(8.0, level):
                beside.append((float(at[0]), float(at[1])))
    centres = [(d.centre[0] * f_read, d.centre[1] * f_read) for d in dice]
    places = []

    def apart(at):  # off every die found and every place already taken
        return all(math.dist(at, c) >= MISSED_APART * side for c in centres) and \
            all(math.dist(at, q) >= 0.5 * side for q in places)
    for at in beside:  # every place beside a die read
        if apart(at):
            places.append(at)
    most = len(places) + MISSED_LOOKS  # and the busiest others
    for at in busy:
        if len(places) >= most:
            break
        if apart(at):
            places.append(at)
    if not places:
        return []
    first = _classify(dice_windows.die_windows(gray, places, side), check)
    # where a die may be, a closer look around the place (the busiest spot is seldom its middle)
    places = [at for at, p in zip(places, first) if p[0] < MISSED_MAYBE]
    if not places:
        return []
    looks = [q for at in places for q in _around(at, side)]
    probs = _classify(dice_windows.die_windows(gray, looks, side), check)
    added = []
    n = len(_LOOK_AROUND)
    for j in range(len(places)):
        ps, ats = probs[j * n:(j + 1) * n], looks[j * n:(j + 1) * n]
        if ps[:, 0].min() >= MISSED_DIE:
            continue
        k = int(np.argmax(ps[:, 1:].max(1)))
        v = int(np.argmax(ps[k, 1:])) + 1
        at = ats[k]
        if any(math.dist(at, (d.centre[0] * f_read, d.centre[1] * f_read)) < 0.75 * side for d in dice + added):
            continue
        c = (at[0] / f_read, at[1] / f_read)
        if ps[k, v] >= SECOND_LOOK_READ:
            added.append(Die(v, c, _square(c, side / f_read), float(ps[k, v])))
        else:
            added.append(Die(None, c, _square(c, side / f_read), 0.0, UNREADABLE))
    return added


SIDE_NEAR = 0.95            # a die read this near another (in sides) may be that die's side
SIDE_TOWARD_NADIR = 0.8     # when it lies this straight (cosine) toward the nadir from it
SIDE_SEEN = 0.7             # and the finder's map covers this much of it (it sees the die's colour there)
SIDE_PAST = (0.4, 0.5)      # where, in sides past its middle away from the other, a die goes on
SIDE_PAST_BARE = 0.3        # a side ends: the map covers less than this there on average
SIDE_BY_SHADE = True        # a die of the other's colour but lit otherwise is its side too
SIDE_SAME_COLOUR = 12.0     # two faces this near in colour (Lab a, b) are of one die's stuff
SIDE_SHADE = (0.8, 1.2)     # and tops of such dice are as light as each other within this ratio


def _sides_read_as_dice(dice: list, fg: np.ndarray, to_fg: float, nadir, lab=None) -> list:
    """Dice read that may be the side of a die read beside them, declined. A camera above sees
    a die's sides on the way to the nadir; a side read as a die lies as near its top as a die
    touching it (0.7-0.95 of a side) but ends within half a side past its middle, where a
    real die goes on (its top's far half, then its own side); and it faces another way than
    the top, so it is lit otherwise: a die of the same colour touching it has a top as light
    as the other's. `fg`: the finder's map of what is not table, and `lab` the photo in Lab
    (None: not asked), at `to_fg` times the photo's px; `nadir` in the photo's px."""
    read = [d for d in dice if d.value is not None]
    side_at = _side_at(read)
    if side_at is None or len(read) < 2:
        return dice

    def patch(img, at, r, least: int) -> np.ndarray:  # a square round `at` (photo px), half-side r
        x, y, r = int(round(at[0] * to_fg)), int(round(at[1] * to_fg)), max(least, int(r * to_fg))
        return img[max(0, y - r):max(0, y + r + 1), max(0, x - r):max(0, x + r + 1)]

    def cover(at, r) -> float:
        p = patch(fg, at, r, 1)
        return float(p.mean()) if p.size else 0.0

    def body(at, r):  # a face's own colour: the half of a patch nearest its median lightness
        p = patch(lab, at, r, 2).reshape(-1, 3).astype(np.float32)
        if not len(p):
            return None
        off = np.abs(p[:, 0] - np.median(p[:, 0]))
        return p[off <= np.median(off)].mean(0)

    def shaded_otherwise(a, b, s) -> bool:
        if lab is None or not SIDE_BY_SHADE:
            return False
        of_a, of_b = body(a.centre, 0.3 * s), body(b.centre, 0.3 * s)
        if of_a is None or of_b is None or float(np.linalg.norm(of_a[1:] - of_b[1:])) >= SIDE_SAME_COLOUR:
            return False
        ratio = float(of_b[0]) / max(float(of_a[0]), 1.0)
        return not SIDE_SHADE[0] <= ratio <= SIDE_SHADE[1]
    out = []
    for b in dice:
        if b.value is not None:
            s = side_at(b.centre)
            cb = np.asarray(b.centre, np.float64)
            for a in read:
                ca = np.asarray(a.centre, np.float64)
                gap = float(np.linalg.norm(cb - ca))
                if a is b or not 0 < gap <= SIDE_NEAR * s:
                    continue
                u, to_n = (cb - ca) / gap, np.asarray(nadir, np.float64) - ca
                if u @ to_n < SIDE_TOWARD_NADIR * float(np.linalg.norm(to_n)):
                    continue
                # where the map sees it, it tells where its colour ends; its shade tells anyway
                ends = cover(cb, 0.3 * s) >= SIDE_SEEN and \
                    np.mean([cover(cb + u * k * s, 0.08 * s) for k in SIDE_PAST]) < SIDE_PAST_BARE
                if ends or shaded_otherwise(a, b, s):
                    b = dataclasses.replace(b, value=None, confidence=0.0, problem=UNREADABLE)
                    break
        out.append(b)
    return out


class _Reader:
    def __init__(self, deadline):
        self.deadline = deadline
        self.blobs_read = {}
        self.skipped = False  # a blob too big for dice was left out: the table model is wrong

    def check(self):
        if time.monotonic() > self.deadline:
            raise _Timeout

    def run(self, img: np.ndarray) -> tuple:
        """(list of Die in `img` px, photo problem or "")."""
        h, w = img.shape[:2]
        # the working copy
        f_read = min(1.0, READ_LONG_SIDE / max(h, w))
        read = cv2.resize(img, None, fx=f_read, fy=f_read, interpolation=cv2.INTER_AREA) if f_read < 1 else img
        rh, rw = read.shape[:2]
        f_find = FIND_WIDTH / rw if rw > FIND_WIDTH else 1.0
        small = cv2.resize(read, None, fx=f_find, fy=f_find, interpolation=cv2.INTER_AREA) if f_find < 1 else read
        sh, sw = small.shape[:2]
        lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)
        # the table: a median far larger than a die
        tiny_w = 160
        ft = tiny_w / sw
        tiny = cv2.resize(lab, (tiny_w, max(8, int(round(sh * ft)))), interpolation=cv2.INTER_AREA)
        if float(tiny[..., 0].mean()) < 28 and float(np.percentile(tiny[..., 0], 99)) < 90:
            return [], TOO_DARK
        k = max(3, int(min(tiny.shape[:2]) * 0.45)) | 1
        bg = cv2.medianBlur(tiny, min(k, 255))
        bg = cv2.resize(bg, (sw, sh), interpolation=cv2.INTER_LINEAR)
        labf = cv2.GaussianBlur(lab, (3, 3), 0).astype(np.float32)
        diff = _norm(labf - bg.astype(np.float32))
        # a shadow is the table darker, its colour kept: not part of a die
        bgf = bg.astype(np.float32)
        chroma = _norm(labf[..., 1:] - bgf[..., 1:])
        ratio_l = (labf[..., 0] + 1) / (bgf[..., 0] + 1)
        shadow = (ratio_l > 0.35) & (ratio_l < 0.92) & (chroma < 8)
        marks = _pip_marks(lab[..., 0])
        self.check()
        geometry = (read, small, f_read, f_find, marks)
        dice, problem, fg = self.find(diff, shadow, geometry)
        nadir = _nadir(w, h)
        gray = cv2.cvtColor(read, cv2.COLOR_BGR2GRAY)

        def doubtful(found):  # a die declined for another reason than glare
            return any(d.value is None and d.problem != GLARE for d in found)

        seen = None  # the plain pass's dice after the classifier's second look
        if not problem and not self.skipped and doubtful(dice):
            # the second look first: when it reads every die declined, the table was modelled
            # well enough, and the pattern pass below is not needed
            self.check()
            seen = _second_look(dice, gray, f_read, self.check, nadir)
        if seen is None or any(d.value is None for d in seen):
            if problem or self.skipped or doubtful(dice):
                # a patterned table (checks, stripes, tiles) is several colours, which one large
                # median does not model: what is near one of the colours along the photo's
                # border, or between two of them (where they meet and blur), or a little darker,
                # is table too. Tried only when the plain model looks wrong (a blob as big as a
                # good part of the photo, a die not read for another reason than glare: dice said
                # to touch are often one die and its shadow against a table of two colours), and
                # kept when it reads more dice, or as many with fewer left unread.
                self.check()
                dice2, problem2, fg2 = self.find(np.minimum(diff, _pattern_distance(labf)), shadow, geometry)
                if _worth(dice2, problem2) > _worth(dice, problem):
                    dice, problem, seen, fg = dice2, problem2, None, fg2
        if not problem:
            self.check()
            dice = seen if seen is not None else _second_look(dice, gray, f_read, self.check, nadir)
            # dice missed: a roll is never offered without them, and with a die declined the
            # table has fewer to enter by hand
            dice = dice + _missed_dice(dice, gray, f_read, self.check)
            dice = _sides_read_as_dice(dice, fg, f_find * f_read, nadir, lab)
        if not problem and (not dice or any(d.value is None for d in dice)) and _blurred(small):
            return dice, TOO_BLURRED
        return dice, problem

    def find(self, diff, shadow, geometry) -> tuple:
        """(dice, photo problem, the map of what is not table) from a distance-to-the-table
        map at FIND_WIDTH."""
        read, small, f_read, f_find, marks = geometry
        rh, rw = read.shape[:2]
        sh, sw = small.shape[:2]
        sample = diff[::2, ::2]  # the table's own spread (a quarter of the pixels tell it as well)
        med = float(np.median(sample))
        mad = float(np.median(np.abs(sample - med))) + 1e-3
        thr = max(12.0, med + 6.0 * mad)
        fg = ((diff > thr) & ~shadow).astype(np.uint8)
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        cnts, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        min_area = (sw * 0.022) ** 2
        cnts = [c for c in cnts if cv2.contourArea(c) >= min_area]
        if not cnts:  # a blurred photo of dice still has their contrast; a bare table has not
            if len(marks):
                found = self.from_marks(marks, [], read, f_read, f_find)
                return found, ("" if found else NO_DICE), fg
            busy = float(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).std()) > 12
            return [], (TOO_BLURRED if busy and _blurred(small) else NO_DICE), fg
        if len(cnts) > MAX_BLOBS:
            return [], TOO_MANY, fg
        blobs = []
        up = 1.0 / f_find
        for c in cnts:
            self.check()
            x, y, bw, bh = cv2.boundingRect(c)
            if bw * bh > sw * sh * 0.3:
                self.skipped = True
                continue
            pad = int(max(bw, bh) * 0.15) + 2
            x0, y0 = max(0, int((x - pad) * up)), max(0, int((y - pad) * up))
            x1, y1 = min(rw, int((x + bw + pad) * up)), min(rh, int((y + bh + pad) * up))
            roi = read[y0:y1, x0:x1]
            sil = np.zeros((sh, sw), np.uint8)
            cv2.drawContours(sil, [c], -1, 1, -1)
            sil = cv2.resize(sil[max(0, y - pad):y + bh + pad, max(0, x - pad):x + bw + pad],
                             (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
            touches_edge = x <= 1 or y <= 1 or x + bw >= sw - 1 or y + bh >= sh - 1
            nadir = tuple(np.subtract(_nadir(rw, rh), (x0, y0)))
            key = (x, y, bw, bh, int(sil.sum()))  # a blob both passes find is read once
            if key not in self.blobs_read:
                inside = [i for i, (mx, my, _) in enumerate(marks)
                          if cv2.pointPolygonTest(c, (float(mx), float(my)), False) >= 0]
                blob_marks = marks[inside] / np.array([f_find, f_find, f_find], np.float32) \
                    - np.array([x0, y0, 0], np.float32)
                got = self.read_blob(roi, sil, touches_edge, nadir, blob_marks)
                shift = np.array([x0, y0], np.float32)
                for d in got:
                    d["quad"] = (d["quad"] + shift) / f_read
                    d["sil_quad"] = (d["sil_quad"] + shift) / f_read
                    if "top_quad" in d:
                        d["top_quad"] = (d["top_quad"] + shift) / f_read
                self.blobs_read[key] = got
            got = [dict(d) for d in self.blobs_read[key]]
            if got:
                blobs.append(got)
        dice = self.settle(blobs)
        # pip marks on a die declined (a blob that held only its side, its top as light as the
        # table) may still read its top: that face takes the declined die's place when the
        # declined blob lies all beside it (not also over another die)
        found = self.from_marks(marks, [d for d in dice if d.value is not None], read, f_read, f_find)
        declined = [d for d in dice if d.value is None]
        kept = [d for d in declined if not any(e.value is not None and _overlap(d, e) and _within(d, e)
                                                for e in found)]
        found = [e for e in found if e.value is not None or not any(_overlap(d, e) for d in declined)]
        return [d for d in dice if d.value is not None] + kept + found, "", fg

    def from_marks(self, marks, dice, read, f_read, f_find) -> list:
        """Dice where pip marks lie on no die found: each read from its pips' face when that
        gives one clear face, else declined, so that the roll is never taken without it."""
        out = []
        for g in _unexplained_marks(marks, dice, 1.0 / (f_find * f_read)):
            self.check()
            pts, dias = marks[g, :2] / f_find, marks[g, 2] / f_find
            got = _face_from_marks(read, pts, dias)
            if got is None:  # (a top the colour of the table: the square its pips sit on)
                got = _face_from_pip_layout(read, pts, dias)
            if got is None:
                # a lone mark that gives no face is a die's only when it is as big as their pips
                # (a speck on the table otherwise)
                sides = [math.dist(d.box[0], d.box[1]) for d in dice + out if d.value is not None]
                pip_d = 0.19 * float(np.median(sides)) * f_read if sides else None
                if len(g) > 1 or (pip_d is not None and 0.6 * pip_d <= float(dias[0]) <= 1.6 * pip_d):
                    out.append(_declined_at(pts / f_read, float(np.median(dias)) / f_read))
                continue
            q = got["quad"] / f_read
            c = q.mean(0)
            side = math.sqrt(float(cv2.contourArea(q.reshape(-1, 1, 2))))
            if any(math.dist(c, d.centre) < 1.6 * max(side, math.dist(d.box[0], d.box[1])) for d in dice):
                # right beside a die read: a side of that die as likely as a die touching it
                out.append(Die(None, tuple(float(v) for v in c), tuple(tuple(float(v) for v in p) for p in q),
                               0.0, UNREADABLE))
                continue
            top = got["top_quad"] / f_read
            out.append(Die(got["value"], tuple(float(v) for v in top.mean(0)),
                           tuple(tuple(float(v) for v in p) for p in top), got["confidence"]))
            # marks of the group off the face read: a die touching it, its pips on another colour
            face = _grow(got["quad"], 1.1).reshape(-1, 1, 2)
            off = [i for i, (x, y) in enumerate(pts) if cv2.pointPolygonTest(face, (float(x), float(y)), False) < 0]
            if off:
                out.append(dataclasses.replace(_declined_at(pts[off] / f_read, float(np.median(dias)) / f_read),
                                               problem=TOUCHING))
        return out

    @staticmethod
    def settle(blobs) -> list:
        """The dice of the photo from each blob's readings, checked against the blobs' sizes:
        a blob about as big as one die more than it shows read holds a die touching another
        (said, never dropped); a blob too small for the faces read in it is one die seen twice
        (declined); an unread blob much smaller than the dice is a mark on the table."""
        faces = [d["face_area"] for b in blobs for d in b if d["value"] is not None]
        face_med = float(np.median(faces)) if faces else 0.0
        for b in blobs:  # a "face" far smaller than the dice's faces is a speck on the table
            for d in b:
                if d["value"] is not None and d["face_area"] < 0.4 * face_med:
                    d.update(value=None, problem=UNREADABLE, confidence=0.0)
        # how much bigger a die's blob is than its top face (its sides, its shadow's edge)
        ratios = [b[0]["blob_total"] / b[0]["face_area"] for b in blobs if len(b) == 1 and b[0]["value"] is not None]
        ratio = float(np.median(ratios)) if ratios else 1.6
        typical = ratio * face_med if face_med else None

        def die(d, value=None, problem=None, quad=None):
            if quad is None:  # a die read is where its pips' face is; one declined, where it was looked at
                quad = d["quad"] if problem is not None else d.get("top_quad", d["quad"])
            return Die(d["value"] if problem is None else value, tuple(float(v) for v in quad.mean(0)),
                       tuple(tuple(float(v) for v in p) for p in quad),
                       d["confidence"] if problem is None else 0.0, d["problem"] if problem is None else problem)
        out = []
        for b in blobs:
            read = [d for d in b if d["value"] is not None]
            total = b[0]["blob_total"]
            n_est = total / typical if typical else 1.0
            if not read:
                if typical and n_est < 0.45:
                    continue
                why = TOUCHING if n_est > 1.6 and b[0]["problem"] == UNREADABLE else b[0]["problem"]
                out.append(die(b[0], None, why))
                continue
            n_est = total / (ratio * float(np.mean([d["face_area"] for d in read])))
            if len(read) >= 2 and n_est < len(read) - 0.6:
                out.append(die(b[0], None, UNREADABLE, b[0]["sil_quad"]))
                continue
            # a lone die's blob (its top, its sides, without its shadow) measures at most about
            # 2.1 of its top face in the generated photos; a touching pair's, 2.2 and more
            own = total / float(np.mean([d["face_area"] for d in read]))
            touching = any(d["problem"] == TOUCHING for d in b)
            if (n_est > len(read) + 0.5 or own > SINGLE_BLOB * len(read)) and not touching:
                out.append(die(b[0], None, TOUCHING, b[0]["sil_quad"]))
                touching = True
            others = [d["face_area"] for o in blobs if o is not b for d in o if d["value"] is not None]
            for d in b:
                if d["value"] is not None and touching and d["confidence"] < 0.6 \
                        and d["face_area"] < 0.8 * (float(np.median(others)) if others else face_med):
                    # where two dice touch, a face read loosely and smaller than the other dice's may
                    # be part of one cut in the wrong place (a 6 cut to a 4): declined
                    out.append(die(d, None, TOUCHING))
                elif d["value"] is not None or d["problem"] == TOUCHING:
                    out.append(die(d))
        return out

    @staticmethod
    def tops(faces, nadir) -> list:
        faces = sorted(faces, key=lambda r: -r["aspect"])
        keep = []
        for r in faces:
            c = r["quad"].mean(0)
            # (two faces alike in size and both seen square are two dice touching: a die's side
            # is seen more slanted, and smaller, than its top)
            clash = [o for o in keep if np.linalg.norm(c - o["quad"].mean(0)) < 0.9 * math.sqrt(max(r["area"], o["area"]))
                     and not (min(r["aspect"], o["aspect"]) >= 0.85
                              and min(r["area"], o["area"]) >= 0.8 * max(r["area"], o["area"]))]
            if not clash:
                keep.append(r)
                continue
            for o in clash:
                oc = o["quad"].mean(0)
                v = c - oc
                to_n = np.asarray(nadir, np.float32) - oc
                cos = float(v @ to_n / (np.linalg.norm(v) * np.linalg.norm(to_n) + 1e-6))
                if cos < -0.3:  # r lies away from the nadir: r is the top, o a side
                    keep.remove(o)
                    if r not in keep:
                        keep.append(r)
        return keep

    @staticmethod
    def unread_neighbour(lab, sil, read, nadir) -> list:
        """A die touching the ones read in this blob, not read itself: a patch of the blob, away
        from the faces read and their sides (which lie toward the nadir), of the read faces' own
        colour and at least 0.4 of a face big. Returned declined ("Two dice touch"), so the roll
        is never taken without it."""
        h, w = sil.shape
        near = np.zeros((h, w), np.uint8)
        colours = []
        for d in read:
            q = d["quad"]
            m = np.zeros((h, w), np.uint8)
            cv2.fillConvexPoly(m, np.round(_grow(q, 0.8)).astype(np.int32), 1)
            colours.append(np.median(lab[m > 0].reshape(-1, 3), axis=0))
            grown = _grow(q, 1.3)
            cv2.fillConvexPoly(near, np.round(grown).astype(np.int32), 1)
            c = q.mean(0)
            to_n = np.asarray(nadir, np.float32) - c
            side = math.sqrt(max(d["face_area"], 1.0))
            shift = to_n / (np.linalg.norm(to_n) + 1e-6) * 0.65 * side
            cv2.fillConvexPoly(near, np.round(grown + shift).astype(np.int32), 1)
        body = np.median(np.array(colours), axis=0).astype(np.float32)
        diff = lab.astype(np.float32) - body
        close = np.sqrt((diff[..., 0] / 2.5) ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2) < 14
        rest = (close & (sil > 0) & (near == 0)).astype(np.uint8)
        rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
        face = float(np.mean([d["face_area"] for d in read]))
        out = []
        for i in range(1, n):
            if stats[i, cv2.CC_STAT_AREA] >= 0.4 * face:
                quad = _order_quad(cv2.boxPoints(_mask_rect((labels == i).astype(np.uint8))))
                out.append({"value": None, "quad": quad, "confidence": 0.0, "problem": TOUCHING, "face_area": 0.0})
        return out

    def read_blob(self, roi, sil, touches_edge, nadir, blob_marks=None) -> list:
        """The dice of one candidate blob: [{"value", "quad", "confidence", "problem"}].
        `blob_marks`: the pip marks on it (roi px: x, y, diameter), to read its top from its
        pips when splitting it by shading finds no face (a small die whose side shows large)."""
        lab = cv2.cvtColor(roi, cv2.COLOR_BGR2Lab)
        area = int(sil.sum())
        side = math.sqrt(area)
        pip_k = max(3, int(side * 0.16)) | 1
        L = cv2.medianBlur(lab[..., 0], pip_k)
        vals = L[sil > 0]
        if vals.size < 20:
            return []
        t, _ = cv2.threshold(vals.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        cut = max(1, int(side * 0.03))
        er = np.ones((2 * cut + 1, 2 * cut + 1), np.uint8)
        # the rounded edges between faces (and the pips) are darker lines: cut along them too
        bk = max(3, int(side * 0.12)) | 1
        seams = cv2.morphologyEx(lab[..., 0], cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (bk, bk)))
        found, seen = [], set()
        for part in ((L > t) & (sil > 0), (L <= t) & (sil > 0), (seams <= 7) & (sil > 0), (seams <= 14) & (sil > 0)):
            m = cv2.erode(part.astype(np.uint8), er)
            n, lab_img, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=4)
            for i in range(1, n):
                if stats[i, cv2.CC_STAT_AREA] < area * 0.08:
                    continue
                region = (lab_img == i).astype(np.uint8)
                for quad, parts, aspect in _face_quads(region):
                    quad = _grow(quad, 1.0 + 2.2 * cut / max(4.0, math.sqrt(cv2.contourArea(quad.reshape(-1, 1, 2)))))
                    same = tuple(np.round(quad).astype(int).ravel())
                    if same in seen:  # the tone split and the seams often give the same square
                        continue
                    seen.add(same)
                    face = _warp_face(roi, quad)
                    r = _read_face(face)
                    r["quad"] = quad
                    r["top_quad"] = _top_quad(quad, r)
                    r["area"] = float(cv2.contourArea(quad.reshape(-1, 1, 2)))
                    r["parts"] = parts
                    r["aspect"] = aspect
                    found.append(r)
            # a blob that is one die whose top the first split read cleanly needs no other split
            if any(r["value"] is not None and r["fit"] < 0.05 and r["parts"] == 1 and r["aspect"] >= 0.85
                   and area <= 1.9 * r["area"] for r in found):
                break
        good = [r for r in found if r["value"] is not None and r["fit"] < ACCEPT_FIT]
        # non-overlapping faces, best fit first, the larger first on ties
        good.sort(key=lambda r: (r["fit"] > 0.08, -r["area"]))
        chosen = []
        for r in good:
            c = r["quad"].mean(0)
            if any(cv2.pointPolygonTest(o["quad"].reshape(-1, 1, 2), (float(c[0]), float(c[1])), False) >= 0
                   or cv2.pointPolygonTest(r["quad"].reshape(-1, 1, 2), tuple(float(v) for v in o["quad"].mean(0)), False) >= 0
                   for o in chosen):
                continue
            chosen.append(r)
        # a top face is about as big as the largest face; smaller readable faces are sides
        if chosen:
            big = max(r["area"] for r in chosen)
            chosen = [r for r in chosen if r["area"] >= big * 0.55]
        # two faces closer than a face's side are one die's top and side. A camera held above
        # the table sees a die's sides on the way to the point below it (the nadir: the centre
        # of the photo, or below it when the phone leans forward): the top is the face farther
        # from there; when that does not tell, the face seen squarest
        chosen = self.tops(chosen, nadir)
        out = []
        for r in chosen:
            conf = max(0.0, min(1.0, 1.0 - r["fit"] / 0.2))
            if len(chosen) == 1 and _toward_nadir(sil, r["quad"], nadir) > 0.1 * math.sqrt(r["area"]):
                # the one face read lies toward the nadir from the blob's middle, where a die's
                # sides are: the side of a die tilted, its top not read
                out.append({"value": None, "quad": r["quad"], "confidence": 0.0, "problem": UNREADABLE,
                            "face_area": 0.0})
                continue
            out.append({"value": r["value"], "quad": r["quad"], "top_quad": r["top_quad"], "confidence": conf,
                        "problem": "", "face_area": r["area"]})
        faces_read = [d for d in out if d["value"] is not None]
        if faces_read:
            out += self.unread_neighbour(lab, sil, faces_read, nadir)
        if not out and blob_marks is not None and len(blob_marks):
            got = _face_from_marks(roi, blob_marks[:, :2], blob_marks[:, 2])
            if got is None:
                got = _face_from_pip_layout(roi, blob_marks[:, :2], blob_marks[:, 2], sil)
            if got is not None:
                area = float(cv2.contourArea(got["quad"].reshape(-1, 1, 2)))
                # a die's sides lie toward the nadir from its top: a face read there, off the
                # blob's middle, may be a side of a tilted die (its top not read): not taken
                # (and a die's blob is at most about SINGLE_BLOB times its top: a smaller face
                # read in it is a side)
                if _toward_nadir(sil, got["quad"], nadir) <= 0.1 * math.sqrt(area) \
                        and area * SINGLE_BLOB >= float(sil.sum()):
                    out.append({"value": got["value"], "quad": got["quad"], "top_quad": got["top_quad"],
                                "confidence": got["confidence"], "problem": "", "face_area": area})
        if not out and max((r["pips"] for r in found), default=0) == 0:
            return []  # nothing like a pip anywhere in it: a mark on the table, not a die
        sil_quad = _order_quad(cv2.boxPoints(_mask_rect(sil)))
        if not out:
            glare = any(r.get("glare", 0) > 8 for r in found)
            why = CUT_OFF if touches_edge else (GLARE if glare else UNREADABLE)
            out.append({"value": None, "quad": sil_quad, "confidence": 0.0, "problem": why, "face_area": 0.0})
        for d in out:
            d.update(blob_total=float(area), sil_quad=sil_quad)
        return out


def read_dice(image, time_limit: float = TIME_LIMIT) -> DiceReading:
    """Read the dice in a photo: JPEG or PNG bytes, or a numpy array (BGR, BGRA or grey).

    Never raises for a bad picture: the reading's `problem` says what is wrong in a player's
    words. `time_limit` seconds bounds the work after decoding."""
    start = time.monotonic()
    got = _decode(image)
    if isinstance(got, str):
        return DiceReading(problem=got, seconds=time.monotonic() - start)
    img, scale, size = got
    try:
        dice, problem = _Reader(start + time_limit).run(img)
    except _Timeout:
        return DiceReading(problem=TOO_SLOW, size=size, scaled=scale, seconds=time.monotonic() - start)
    except cv2.error:  # a picture OpenCV cannot work with: said, never raised
        return DiceReading(problem=NOT_AN_IMAGE, size=size, scaled=scale, seconds=time.monotonic() - start)
    if scale != 1.0:
        dice = [dataclasses.replace(d, centre=tuple(v / scale for v in d.centre),
                                    box=tuple(tuple(v / scale for v in p) for p in d.box)) for d in dice]
    dice.sort(key=lambda d: (round(d.centre[1] / max(1.0, size[1] / 6)), d.centre[0]))
    if not problem and not dice:
        problem = NO_DICE
    return DiceReading(tuple(dice), problem, size, scale, time.monotonic() - start)


def draw_reading(image, reading: DiceReading, max_side: int = 1280, values=None) -> bytes | None:
    """The photo as PNG bytes (at most `max_side` px) with each die's top face outlined and its
    value drawn on it: green when read, red "?" when not (`values`: the table's corrections,
    drawn in blue). None when the photo cannot be decoded. For the confirm screens."""
    got = _decode(image)
    if isinstance(got, str):
        return None
    img, scale, _ = got
    f = min(1.0, max_side / max(img.shape[:2]))
    out = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else img.copy()
    k = scale * f  # given px -> drawn px
    for i, d in enumerate(reading.dice):
        fixed = values[i] if values is not None and i < len(values) else None
        v = fixed if fixed is not None else d.value
        colour = (255, 120, 0) if fixed is not None else ((60, 200, 60) if d.value is not None else (40, 40, 230))
        pts = np.array([[x * k, y * k] for x, y in d.box], np.int32)
        cv2.polylines(out, [pts], True, colour, max(2, int(out.shape[1] / 400)), cv2.LINE_AA)
        side = max(12.0, float(np.linalg.norm(pts[0] - pts[1])))
        text = str(v) if v is not None else "?"
        scale_txt = max(0.6, side / 40)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale_txt, 2)
        x, y = int(d.centre[0] * k - tw / 2), int(min(p[1] for p in pts) - 8)
        y = max(th + 4, y)
        cv2.rectangle(out, (x - 4, y - th - 4), (x + tw + 4, y + 4), (255, 255, 255), -1)
        cv2.putText(out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale_txt, colour, 2, cv2.LINE_AA)
        cv2.putText(out, str(i + 1), (int(pts[:, 0].max()) + 4, int(pts[:, 1].max())), cv2.FONT_HERSHEY_SIMPLEX,
                    max(0.5, scale_txt * 0.5), (255, 255, 255), 2, cv2.LINE_AA)
    ok, buf = cv2.imencode(".png", out)
    return buf.tobytes() if ok else None
