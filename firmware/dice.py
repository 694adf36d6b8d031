"""Dice classification and the per-well state machine (pure logic, integer arithmetic only).

Feature of a reading (c, r, g, b): chromaticity r, g, b in thousandths of r + g + b, plus
brightness c. Distance to a centroid: L1 over the chromaticity plus 500 * |c - C| / C (half
the relative brightness error in thousandths). Integer only: on the board floats are heap
objects and the sampling path must not allocate.

Centroids are indexed by the TOP value 1..6 (the sensor sees the bottom face, whose mark is
7 - top); ``classify`` sets best_value (top), best_d and second_d.

Well states (protocol wire.DICE_*): EMPTY -> ROLLING (a die arrived: readings not yet stable)
-> SETTLED (``stable_n`` consecutive samples within ``tol`` of each other whose mean is within
``threshold`` of one face and ``margin`` closer to it than to any other) or CROOKED (stable but
no face qualifies: never a guess) -> ROLLING again when the readings leave the settled mean
for two samples -> REMOVED after ``dark_n`` dark samples. Each new roll increments ``roll``.

Empty well: a sample is "dark" (no die) below the classifier's ``dark_c``. With an empty-well
reference (entry 6 of the centroids, captured by the calibration: firmware/calib.py) that is a
third of the way from the reference up to the dimmest face, so it follows the well's own optics;
without one it is ``DARK_C``. The readings are LED-on minus LED-off when the sensor's LED is
switched (firmware/tcs34725.py), so room light does not lift an empty well over it. While the
well reads dark, or steady but like no face (CROOKED: an empty well whose window reflects more
than ``dark_c`` before it was calibrated), the Well keeps a running mean of those samples in the
classifier's ``live`` list ([c, r, g, b, n]; entry 7 of the calibration store's list, shared),
which the calibration takes as the well's new empty reference when a session begins with the
well empty. The mean restarts with every run of dark samples and every new roll, so it holds only
the readings since the well was last emptied.
"""
try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:
    def const(x):
        return x

EMPTY = const(0)
ROLLING = const(1)
SETTLED = const(2)
CROOKED = const(3)
REMOVED = const(4)
DARK_C = const(300)  # clear count below which a sample is "no die" when there is no reference
LIVE_N = const(8)  # the live empty-well mean weighs its last sample 1/LIVE_N once it has this many


def _abs(x):
    return -x if x < 0 else x


def _sum(r, g, b):
    """r + g + b, at least 1: the divisor of the chromaticity thousandths."""
    s = r + g + b
    return s if s > 0 else 1


def _dist(c, rn, gn, bn, pc, pr, pg, pb):
    """Distance of features (c, rn, gn, bn) to reference features (pc, pr, pg, pb)."""
    if pc <= 0:
        pc = 1
    return _abs(rn - pr) + _abs(gn - pg) + _abs(bn - pb) + _abs(c - pc) * 500 // pc


class Classifier:
    def __init__(self, centroids, threshold=200, margin=60):
        self.threshold = threshold
        self.margin = margin
        self.fc = [1] * 6
        self.fr = [0] * 6
        self.fg = [0] * 6
        self.fb = [0] * 6
        self.set(centroids)
        self.best_value = 0
        self.best_d = 0
        self.second_d = 0

    def set(self, centroids):
        """centroids: 6 sequences (c, r, g, b) for top values 1..6, then optionally the empty-well
        reference (c, r, g, b) and the live empty-well list [c, r, g, b, n] (kept by reference)."""
        dim = 0x3FFFFFFF
        for i in range(6):
            c, r, g, b = centroids[i][0], centroids[i][1], centroids[i][2], centroids[i][3]
            s = _sum(r, g, b)
            self.fc[i] = c if c > 0 else 1
            self.fr[i] = r * 1000 // s
            self.fg[i] = g * 1000 // s
            self.fb[i] = b * 1000 // s
            if self.fc[i] < dim:
                dim = self.fc[i]
        self.dark_c = DARK_C
        self.empty_c = -1  # no reference
        if len(centroids) > 6:
            e = centroids[6][0]
            if 0 <= e < dim:
                self.empty_c = e
                self.dark_c = e + (dim - e) // 3
        if len(centroids) > 7:
            self.live = centroids[7]
        elif not hasattr(self, "live"):
            self.live = [0, 0, 0, 0, 0]

    def classify(self, c, r, g, b):
        """Nearest face of a reading; sets best_value (1..6), best_d, second_d."""
        s = _sum(r, g, b)
        rn = r * 1000 // s
        gn = g * 1000 // s
        bn = b * 1000 // s
        best = 0x3FFFFFFF
        second = 0x3FFFFFFF
        value = 0
        for i in range(6):
            d = _dist(c, rn, gn, bn, self.fc[i], self.fr[i], self.fg[i], self.fb[i])
            if d < best:
                second = best
                best = d
                value = i + 1
            elif d < second:
                second = d
        self.best_value = value
        self.best_d = best
        self.second_d = second
        return value

    def accepted(self):
        """Does the last classification name a face (within threshold, clear margin)?"""
        return self.best_d <= self.threshold and self.second_d - self.best_d >= self.margin

    def confidence(self):
        """0..100 from the distance to the face and the margin to the next one."""
        t = self.threshold
        d = self.best_d
        if d >= t:
            return 0
        a = (t - d) * 100 // t
        s = self.second_d
        m = (s - d) * 100 // (s if s > 0 else 1)
        return a if a < m else m


class Well:
    """State machine of one dice well; feed ``sample(c, r, g, b)``; True when state changed."""

    def __init__(self, classifier, stable_n=3, tol=60, dark_c=None, dark_n=3, leave_n=2):
        self.cl = classifier
        self.stable_n = stable_n
        self.tol = tol
        self.dark_c = dark_c  # None: the classifier's (from its empty-well reference)
        self.dark_n = dark_n
        self.leave_n = leave_n
        self.roll = 0
        self.reset()
        self.pc = self.pr = self.pg = self.pb = 0  # previous sample's features
        self.rc = [0] * stable_n  # ring of the last samples (raw counts)
        self.rr = [0] * stable_n
        self.rg = [0] * stable_n
        self.rb = [0] * stable_n
        self.ri = 0
        self.mc = self.mr = self.mg = self.mb = 0  # mean of the ring (stable_mean)
        self.sc = self.sr = self.sg = self.sb = 0  # settled reference features
        self.last_c = 0
        self.samples = 0

    def reset(self):
        self.state = EMPTY
        self.value = 0
        self.confidence = 0
        self.dark_count = 0
        self.stable_count = 0
        self.leave_count = 0
        self.have_prev = False

    def sample(self, c, r, g, b):
        self.samples += 1
        self.last_c = c
        dark_c = self.dark_c
        if dark_c is None:
            dark_c = self.cl.dark_c
        if c < dark_c:
            if not self.dark_count:
                self.cl.live[4] = 0  # a new run of empty readings: the live mean starts afresh
            self._live(c, r, g, b)
            self.dark_count += 1
            self.stable_count = 0
            self.have_prev = False
            if self.dark_count >= self.dark_n and self.state != EMPTY and self.state != REMOVED:
                self.state = REMOVED
                self.value = 0
                self.confidence = 0
                return True
            return False
        self.dark_count = 0
        s = r + g + b  # _sum inlined: this runs for every sample
        if s <= 0:
            s = 1
        rn = r * 1000 // s
        gn = g * 1000 // s
        bn = b * 1000 // s
        if self.have_prev and _dist(c, rn, gn, bn, self.pc, self.pr, self.pg,
                                    self.pb) <= self.tol:
            self.stable_count += 1
        else:
            self.stable_count = 1
        self.have_prev = True
        self.pc = c
        self.pr = rn
        self.pg = gn
        self.pb = bn
        i = self.ri
        self.rc[i] = c
        self.rr[i] = r
        self.rg[i] = g
        self.rb[i] = b
        self.ri = (i + 1) % self.stable_n
        st = self.state
        if st == EMPTY or st == REMOVED:
            self._rolling()
            return True
        if st == SETTLED or st == CROOKED:
            if _dist(c, rn, gn, bn, self.sc, self.sr, self.sg, self.sb) > self.tol:
                self.leave_count += 1
                if self.leave_count >= self.leave_n:
                    self._rolling()
                    return True
            else:
                self.leave_count = 0
                if st == CROOKED:  # steady and no face: perhaps an empty well brighter than
                    self._live(c, r, g, b)  # dark_c (a calibration begun now takes it)
            return False
        # ROLLING
        if self.stable_count >= self.stable_n:
            self.stable_mean()
            cl = self.cl
            cl.classify(self.mc, self.mr, self.mg, self.mb)
            s = _sum(self.mr, self.mg, self.mb)
            self.sc = self.mc
            self.sr = self.mr * 1000 // s
            self.sg = self.mg * 1000 // s
            self.sb = self.mb * 1000 // s
            self.leave_count = 0
            if cl.accepted():
                self.state = SETTLED
                self.value = cl.best_value
                self.confidence = cl.confidence()
            else:
                self.state = CROOKED
                self.value = 0
                self.confidence = 0
            return True
        return False

    def _live(self, c, r, g, b):
        """Running mean of the readings the well gives with no die in it (see module doc)."""
        lv = self.cl.live
        n = lv[4]
        if n < LIVE_N:
            n += 1
            lv[4] = n
        lv[0] += (c - lv[0]) // n
        lv[1] += (r - lv[1]) // n
        lv[2] += (g - lv[2]) // n
        lv[3] += (b - lv[3]) // n

    def _rolling(self):
        self.cl.live[4] = 0  # whatever the live mean held belonged to the last state
        self.state = ROLLING
        self.value = 0
        self.confidence = 0
        self.leave_count = 0
        self.roll = (self.roll + 1) & 0xFF

    def stable(self):
        return self.stable_count >= self.stable_n and self.dark_count == 0

    def stable_mean(self):
        """Mean of the last stable_n samples into mc, mr, mg, mb."""
        n = self.stable_n
        c = r = g = b = 0
        for i in range(n):
            c += self.rc[i]
            r += self.rr[i]
            g += self.rg[i]
            b += self.rb[i]
        self.mc = c // n
        self.mr = r // n
        self.mg = g // n
        self.mb = b // n
