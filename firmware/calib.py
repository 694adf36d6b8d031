"""Calibration store: colour centroids per face per well, in flash as versioned JSON.

File (``calibration.json``)::

    {"format": "tabletop-cal", "version": 1, "atime": 246, "gain": 1,
     "wells": [{"faces": [[c, r, g, b] x 6 (top value 1..6)], "captured": [0/1 x 6],
                "empty": [c, r, g, b]}, ...]}

``empty`` is the empty-well reference (optional: a file without it gets ``DEFAULT_EMPTY``). In
memory a well is a list of 8: the six faces, the empty reference, and the live empty-well mean
[c, r, g, b, n] that the dice.Well keeps while the well reads dark (never written to the file;
the Store keeps one such list per well for good, so the classifier built on it stays bound).

Written atomically: the whole file goes to ``<path>.tmp``, then ``os.rename`` over the old
one (LittleFS replaces the target; where rename refuses an existing target, the old file
is removed first and ``load`` falls back to the complete ``.tmp``). A missing, unreadable,
corrupt, wrong-version or wrong-settings file gives the defaults and ``defaults_in_use``
(reported as FAULT_CAL_DEFAULTS); it never raises. A file that reads but whose well fails the
capture rules (``check_well``: the rules CAL_CAPTURE and CAL_SAVE apply, so only a file of older
firmware or one edited by hand can) marks that well ``implausible`` (FAULT_CAL_IMPLAUSIBLE): the
board keeps its data (a bug report can see it) but reports no dice from it until it is
calibrated again or reset to the defaults, so the tablet asks the players instead of misreading.

Guided procedure (``Session``), driven by CMD_CALIBRATE steps from the tablet: BEGIN (well)
copies that well's centroids; CAPTURE (well, face) takes the stable mean of the die lying
with ``face`` on top; SAVE writes the file; CANCEL drops the copy; DEFAULTS resets the well
(255 = every well) to the defaults and saves.

Empty-well reference: the tablet begins a session only once the player has emptied the well and
the board reports it empty (companion/link/board_port.py), so BEGIN takes the well's live
empty-well mean as the session's new reference (``empty_captured``); SAVE stores it with the
faces. A reference that is not darker than every face is not used (dice.Classifier.set).
"""
import json
import os

from protocol import wire

FORMAT = "tabletop-cal"
VERSION = 1
ATIME = 0xF6  # firmware sensor settings the centroids were captured with
GAIN = 1
# Nominal centroids (c, r, g, b) by top value 1..6 at ATIME 0xF6 / gain 4x, from the printed
# mark colours (firmware/sim/optics.py computes the same numbers; a test checks them).
DEFAULT_FACES = (
    (7528, 2612, 2612, 2612),  # top 1: bottom mark 6 white
    (2435, 1489, 308, 735),  # top 2: bottom mark 5 magenta
    (1704, 171, 359, 1239),  # top 3: bottom mark 4 blue
    (1032, 127, 675, 267),  # top 4: bottom mark 3 green
    (4037, 2212, 1586, 401),  # top 5: bottom mark 2 yellow
    (1825, 1509, 232, 154),  # top 6: bottom mark 1 red
)
# Empty well (c, r, g, b) at the same settings: the LED's light that comes back from the window
# and the hood with no die (firmware/sim/optics.py DARK). A calibration replaces it.
DEFAULT_EMPTY = (40, 12, 12, 12)
LIVE_MIN = 3  # dark samples the live empty-well mean needs before BEGIN takes it


# Plausibility of a capture (CAL_IMPLAUSIBLE): every two faces at least this far apart in the
# classifier's own distance (dice._dist), twice its acceptance margin, so that a reading between
# two faces still decides; and a captured face must be nearer its own printed colour (the
# chromaticity of DEFAULT_FACES) than any other face's, else the die was turned or the well lit.
MIN_FACE_GAP = 120


def _chroma(f):
    s = f[1] + f[2] + f[3]
    if s <= 0:
        s = 1
    return f[1] * 1000 // s, f[2] * 1000 // s, f[3] * 1000 // s


def printed_match(reading):
    """Top value 1..6 whose printed colour has the chromaticity nearest the reading's."""
    r, g, b = _chroma(reading)
    best = 0
    best_d = 0x3FFFFFFF
    for i in range(6):
        pr, pg, pb = _chroma(DEFAULT_FACES[i])
        d = abs(r - pr) + abs(g - pg) + abs(b - pb)
        if d < best_d:
            best, best_d = i + 1, d
    return best


def check_capture(face, reading):
    """None when the reading of `face` on top looks like its printed colour, else the top value
    whose printed colour it is nearer to."""
    m = printed_match(reading)
    return None if m == face else m


def closest_faces(faces):
    """(i, j, distance): the two nearest of six centroids (top values 1..6), in the
    classifier's distance (both directions, the smaller)."""
    from firmware.dice import _dist, _sum
    feats = []
    for i in range(6):
        c, r, g, b = faces[i][0], faces[i][1], faces[i][2], faces[i][3]
        s = _sum(r, g, b)
        feats.append((c if c > 0 else 1, r * 1000 // s, g * 1000 // s, b * 1000 // s))
    best = (0, 0, 0x3FFFFFFF)
    for i in range(6):
        for j in range(i + 1, 6):
            a, q = feats[i], feats[j]
            d = min(_dist(a[0], a[1], a[2], a[3], q[0], q[1], q[2], q[3]),
                    _dist(q[0], q[1], q[2], q[3], a[0], a[1], a[2], a[3]))
            if d < best[2]:
                best = (i + 1, j + 1, d)
    return best


def check_faces(faces):
    """None when every two faces are far enough apart, else (i, j, distance) of the nearest."""
    i, j, d = closest_faces(faces)
    return None if d >= MIN_FACE_GAP else (i, j, d)


def check_well(faces, captured):
    """The capture rules applied to a stored well (6 faces, captured flags): None when they
    hold, else (face, other, rule): rule wire.CAL_RULE_COLOUR, a captured face nearer the
    printed colour of `other` (the capture's check), or wire.CAL_RULE_GAP, the two nearest
    faces closer than MIN_FACE_GAP (the save's check)."""
    for i in range(6):
        if captured[i]:
            m = check_capture(i + 1, faces[i])
            if m is not None:
                return (i + 1, m, wire.CAL_RULE_COLOUR)
    near = check_faces(faces)
    if near is not None:
        return (near[0], near[1], wire.CAL_RULE_GAP)
    return None


def defaults(n_wells):
    """Default faces and empty reference per well (7 lists each)."""
    out = []
    for _ in range(n_wells):
        out.append([list(f) for f in DEFAULT_FACES] + [list(DEFAULT_EMPTY)])
    return out


def _counts(v, what):
    if not isinstance(v, list) or len(v) != 4:
        raise ValueError("%s is [c, r, g, b]" % what)
    for x in v:
        if type(x) is not int or x < 0 or x > 65535:
            raise ValueError("a count is an integer 0..65535")


def path_exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def parse(text, n_wells):
    """Validate file text; return (wells, captured) or raise ValueError."""
    doc = json.loads(text)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError("not a calibration file")
    if doc.get("version") != VERSION:
        raise ValueError("calibration version %r, expected %d" % (doc.get("version"), VERSION))
    if doc.get("atime") != ATIME or doc.get("gain") != GAIN:
        raise ValueError("captured with other sensor settings")
    wl = doc.get("wells")
    if not isinstance(wl, list) or len(wl) != n_wells:
        raise ValueError("calibration for another number of wells")
    wells = []
    caps = []
    for w in wl:
        faces = w.get("faces") if isinstance(w, dict) else None
        cap = w.get("captured", [0] * 6) if isinstance(w, dict) else None
        if not isinstance(faces, list) or len(faces) != 6:
            raise ValueError("a well needs 6 faces")
        if not isinstance(cap, list) or len(cap) != 6:
            raise ValueError("a well needs 6 captured flags")
        fl = []
        for f in faces:
            _counts(f, "a face")
            if f[0] == 0 or f[1] + f[2] + f[3] == 0:
                raise ValueError("a face centroid is dark")
            fl.append(list(f))
        empty = w.get("empty", list(DEFAULT_EMPTY))
        _counts(empty, "the empty-well reference")
        fl.append(list(empty))
        wells.append(fl)
        caps.append([1 if x else 0 for x in cap])
    return wells, caps


def dumps(wells, captured):
    ws = []
    for i in range(len(wells)):
        w = wells[i]
        ws.append({"faces": [list(w[j]) for j in range(6)], "captured": captured[i],
                   "empty": list(w[6]) if len(w) > 6 else list(DEFAULT_EMPTY)})
    return json.dumps({"format": FORMAT, "version": VERSION, "atime": ATIME, "gain": GAIN,
                       "wells": ws})


class Store:
    def __init__(self, path, n_wells):
        self.path = path
        self.tmp = path + ".tmp"
        self.n_wells = n_wells
        # the live empty-well mean of each well: made once, kept by every (re)load and save
        self.live = [[0, 0, 0, 0, 0] for _ in range(n_wells)]
        self.wells = self._bind(defaults(n_wells))
        self.captured = [[0] * 6 for _ in range(n_wells)]
        self.defaults_in_use = True
        self.problem = "not loaded"
        # per well: None, or (face, other, rule) when its stored calibration fails the capture rules
        # (a file of older firmware): the board reports it (FAULT_CAL_IMPLAUSIBLE) and the well
        # reports no dice until it is calibrated again
        self.implausible = [None] * n_wells  # type: list

    def _check(self):
        for w in range(self.n_wells):
            self.implausible[w] = None if self.defaults_in_use else \
                check_well(self.wells[w], self.captured[w])

    def _bind(self, wells):
        """Wells as the board keeps them: 6 faces, empty reference, this Store's live list."""
        out = []
        for i in range(len(wells)):
            w = wells[i]
            faces = [list(w[j]) for j in range(6)]
            faces.append(list(w[6]) if len(w) > 6 else list(DEFAULT_EMPTY))
            faces.append(self.live[i])
            out.append(faces)
        return out

    def _read(self, path):
        with open(path) as f:
            return parse(f.read(), self.n_wells)

    def load(self):
        """Load the file (or the complete .tmp left by an interrupted save); never raises.

        Returns True when a calibration file was used."""
        for path in (self.path, self.tmp):
            if not path_exists(path):
                continue
            try:
                wells, self.captured = self._read(path)
                self.wells = self._bind(wells)
                self.defaults_in_use = False
                self.problem = None
                self._check()
                return True
            except Exception as exc:  # ValueError, OSError, MemoryError: all mean "unusable"
                self.problem = "%s: %s" % (path, exc)
        if self.problem is None or self.problem == "not loaded":
            self.problem = "no calibration file"
        self.wells = self._bind(defaults(self.n_wells))
        self.captured = [[0] * 6 for _ in range(self.n_wells)]
        self.defaults_in_use = True
        self._check()
        return False

    def save(self, wells, captured):
        """Write atomically; returns True on success (False: flash error, old file kept)."""
        text = dumps(wells, captured)
        try:
            with open(self.tmp, "w") as f:
                f.write(text)
            try:
                os.rename(self.tmp, self.path)
            except OSError:
                if path_exists(self.path):
                    os.remove(self.path)
                os.rename(self.tmp, self.path)
        except OSError as exc:
            self.problem = "save failed: %s" % (exc,)
            return False
        self.wells = self._bind(wells)
        self.captured = [list(c) for c in captured]
        self.defaults_in_use = False
        self.problem = None
        self._check()  # a well saved again passes (the session checked it); the others keep theirs
        return True


class Session:
    """One guided calibration of one well (CMD_CALIBRATE steps)."""

    def __init__(self, store):
        self.store = store
        self.well = -1
        self.faces = []  # per face [c, r, g, b] (then the empty reference) while active
        self.captured = []
        self.empty_captured = 0

    def active(self):
        return self.well >= 0

    def begin(self, well):
        """Open a session; the well is empty now (the tablet saw it so): its live empty-well
        mean, when it has one, becomes the session's empty reference."""
        self.well = well
        w = self.store.wells[well]
        self.faces = [list(w[i]) for i in range(7)]
        self.captured = list(self.store.captured[well])
        live = w[7]
        self.empty_captured = 0
        if live[4] >= LIVE_MIN:
            self.faces[6] = [live[0], live[1], live[2], live[3]]
            self.empty_captured = 1

    def capture(self, face, c, r, g, b):
        self.faces[face - 1] = [c, r, g, b]
        self.captured[face - 1] = 1

    def save(self):
        wells = [[list(w[i]) for i in range(7)] for w in self.store.wells]
        caps = [list(c) for c in self.store.captured]
        wells[self.well] = self.faces
        caps[self.well] = self.captured
        ok = self.store.save(wells, caps)
        if ok:
            self.cancel()
        return ok

    def cancel(self):
        self.well = -1
        self.faces = []
        self.captured = []
        self.empty_captured = 0
