"""A small learned check on each die (no Kivy): the die's window -> how sure each value is.

The classical reader (dice_photo.py) finds the dice and reads their pips; on the photos that
defeat it (a top and its sides in the same tone, glare, a tilted or touching die) it declines.
This classifier looks at a square window around a die's top face, `WINDOW_SIDES` die sides
wide, shrunk to WINDOW px in grey, and gives seven probabilities: no die centred in the
window (class 0), or a die showing 1 to 6. It runs through OpenCV's `dnn` module from the
ONNX file shipped beside this module, so the app needs nothing more than OpenCV.

It is trained by `tests/vision/train_dice_windows.py` from generated photos (tuning seeds and
surfaces only); docs/dice-photo.md says how and what it measured. The training windows and the
windows read here are made by the same code (`die_windows`), so the two never drift apart.
"""
from __future__ import annotations

import math
import pathlib

import cv2
import numpy as np

WINDOW = 48            # side of the window the classifier reads, px
WINDOW_SIDES = 2.2     # the window spans this many sides of the die
MODEL = pathlib.Path(__file__).with_name("dice_windows.onnx")

_net = None


def die_window(gray: np.ndarray, centre, side: float, angle: float = 0.0) -> np.ndarray:
    """The WINDOW x WINDOW uint8 window of a grey image around `centre` (px), a die of `side`
    px filling 1 / WINDOW_SIDES of it, turned by `angle` degrees. Outside the image is the
    nearest edge pixel. Shrunk from a blurred copy, so that pips do not alias away."""
    return die_windows(gray, [centre], side, angle)[0]


def die_windows(gray: np.ndarray, centres, side: float, angle: float = 0.0) -> np.ndarray:
    """`die_window` at many centres with one side: the part of the image they need is
    blurred once (a scan's windows overlap), each window then cut from it."""
    span = WINDOW_SIDES * max(4.0, float(side))
    f = WINDOW / span
    half = int(math.ceil(span * 0.75)) + 2  # room for the turn
    h, w = gray.shape[:2]
    out = np.zeros((len(centres), WINDOW, WINDOW), np.uint8)
    pts = [(float(c[0]), float(c[1])) for c in centres]
    finite = [(cx, cy) for cx, cy in pts if math.isfinite(cx) and math.isfinite(cy)]
    if not finite:
        return out
    x0 = int(min(cx for cx, _ in finite)) - half
    y0 = int(min(cy for _, cy in finite)) - half
    x1 = int(max(cx for cx, _ in finite)) + half + 1
    y1 = int(max(cy for _, cy in finite)) + half + 1
    # far outside the image is all edge pixels: clamp the region so it stays small
    x0, x1 = max(x0, -2 * half - 1), min(x1, w + 2 * half + 1)
    y0, y1 = max(y0, -2 * half - 1), min(y1, h + 2 * half + 1)
    if x1 <= x0 or y1 <= y0:
        return out
    region = gray[max(0, y0):max(0, min(h, y1)), max(0, x0):max(0, min(w, x1))]
    if region.size == 0:
        return out
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        region = cv2.copyMakeBorder(region, max(0, -y0), max(0, y1 - h), max(0, -x0), max(0, x1 - w),
                                    cv2.BORDER_REPLICATE)
    if f < 0.7:
        region = cv2.GaussianBlur(region, (0, 0), 0.45 / f)
    for k, (cx, cy) in enumerate(pts):
        if not (math.isfinite(cx) and math.isfinite(cy)):
            continue
        m = cv2.getRotationMatrix2D((cx - x0, cy - y0), angle, f)
        m[0, 2] += WINDOW / 2 - (cx - x0)
        m[1, 2] += WINDOW / 2 - (cy - y0)
        out[k] = cv2.warpAffine(region, m, (WINDOW, WINDOW), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def normalise(windows: np.ndarray) -> np.ndarray:
    """(n, WINDOW, WINDOW) uint8 -> (n, 1, WINDOW, WINDOW) float32, each window's own mean
    and spread taken out (a dim photo and a bright one read alike)."""
    x = windows.astype(np.float32)
    mean = x.mean(axis=(1, 2), keepdims=True)
    std = x.std(axis=(1, 2), keepdims=True)
    return ((x - mean) / (std + 4.0))[:, None, :, :]


def available() -> bool:
    """Whether the classifier can run here: its file is shipped and OpenCV's dnn module loads
    it (an OpenCV built without dnn, as some Android builds may be, leaves the classical
    reader alone)."""
    return _network() is not None


def _network():
    global _net
    if _net is None:
        try:
            engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)  # OpenCV 5: two to three times faster here
            _net = cv2.dnn.readNetFromONNX(str(MODEL)) if engine is None else \
                cv2.dnn.readNetFromONNX(str(MODEL), engine=engine)
        except (AttributeError, cv2.error):
            _net = False
    return None if _net is False else _net


def classify(windows: np.ndarray) -> np.ndarray:
    """(n, 7) probabilities for n windows from `die_window`: column 0 is "no die centred
    here", column v is "a die showing v"."""
    if len(windows) == 0:
        return np.zeros((0, 7), np.float32)
    net = _network()
    if net is None:
        raise RuntimeError(f"the dice classifier cannot be loaded from {MODEL}")
    net.setInput(normalise(np.asarray(windows)))
    logits = net.forward().reshape(len(windows), -1).astype(np.float64)
    logits -= logits.max(1, keepdims=True)
    p = np.exp(logits)
    return (p / p.sum(1, keepdims=True)).astype(np.float32)
