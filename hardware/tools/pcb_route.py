"""A small deterministic two-layer grid router for the generated boards (used by build_pcb.py).

No KiCad import here: the router works on plain geometry in board millimetres (origin = the
board's top-left corner, y down, as in the sensor map) and returns tracks and vias, which
build_pcb.py turns into pcbnew objects.  KiCad's design-rule check is the judge afterwards.

Model: a square grid (GRID mm) on layers 0 = F.Cu (top) and 1 = B.Cu (bottom, where the
parts sit).  For every copper object of net n, the cells in which a track centre or a via
centre of *another* net would break the clearance are marked with n in `towner` / `vowner`
(-1 free, -2 blocked for everyone, n: only net n may use it).  A connection is an A* search
from one island of a net to any cell of another island of the same net; a step costs 1 on
F.Cu and more on B.Cu (keep the part side free), a bend and a via cost extra.
"""
import heapq
import math

import numpy as np

GRID = 0.25          # mm
TRACK = 0.25         # track width, mm
VIA_D = 0.6          # via diameter, mm
VIA_DRILL = 0.3
CLEAR = 0.2          # copper clearance (the board's design rule)
MARGIN = 0.04        # extra over the design rule, for grid rounding
EDGE_CLEAR = 0.3     # copper to board edge
HOLE_CLEAR = 0.25    # copper to a plain (non-plated) hole: KiCad's default hole clearance

FREE, BLOCKED = -1, -2


class RouteError(Exception):
    pass


class Router:
    def __init__(self, w_mm, h_mm):
        self.w_mm, self.h_mm = w_mm, h_mm
        self.W = int(round(w_mm / GRID)) + 1
        self.H = int(round(h_mm / GRID)) + 1
        self.towner = np.full((2, self.H, self.W), FREE, dtype=np.int32)
        self.vowner = np.full((2, self.H, self.W), FREE, dtype=np.int32)
        self.tracks = []     # (layer, x1, y1, x2, y2, net)
        self.vias = []       # (x, y, net)
        self._flat_cache = None
        self.rails = []      # indices into tracks of pre-laid straight rails (trimmed at the end)
        self.static = []     # pads and holes, replayed by rebuild()
        self._edge()

    # ---- marking ---------------------------------------------------------------------
    def _window(self, x0, y0, x1, y1):
        ix0 = max(0, int(math.floor(x0 / GRID)) - 1)
        iy0 = max(0, int(math.floor(y0 / GRID)) - 1)
        ix1 = min(self.W - 1, int(math.ceil(x1 / GRID)) + 1)
        iy1 = min(self.H - 1, int(math.ceil(y1 / GRID)) + 1)
        xs = np.arange(ix0, ix1 + 1) * GRID
        ys = np.arange(iy0, iy1 + 1) * GRID
        return ix0, iy0, xs[None, :], ys[:, None]

    def _mark(self, owner, layer, sl, mask, net):
        self._flat_cache = None
        iy0, ix0 = sl
        h, w = mask.shape
        view = owner[layer, iy0:iy0 + h, ix0:ix0 + w]
        if net == BLOCKED:
            view[mask] = BLOCKED
            return
        free = mask & (view == FREE)
        other = mask & (view != FREE) & (view != net)
        view[free] = net
        view[other] = BLOCKED

    def _mark_shape(self, layers, dist_fn, bbox, net, keep_t, keep_v):
        x0, y0, x1, y1 = bbox
        r = max(k for k in (keep_t, keep_v) if k is not None)
        ix0, iy0, xs, ys = self._window(x0 - r, y0 - r, x1 + r, y1 + r)
        d = dist_fn(xs, ys)
        for layer in layers:
            if keep_t is not None:
                self._mark(self.towner, layer, (iy0, ix0), d < keep_t, net)
            if keep_v is not None:
                self._mark(self.vowner, layer, (iy0, ix0), d < keep_v, net)

    def _keep(self, half_width_other):
        return half_width_other + CLEAR + MARGIN

    def add_rect(self, layers, cx, cy, hw, hh, net, via_block=False, record=True):
        """A pad (axis-aligned rectangle, half sizes hw, hh).  SMD pads also refuse vias of
        their own net (no via in a pad)."""
        if record:
            self.static.append(("rect", layers, cx, cy, hw, hh, net, via_block))
        def dist(xs, ys):
            dx = np.maximum(np.abs(xs - cx) - hw, 0.0)
            dy = np.maximum(np.abs(ys - cy) - hh, 0.0)
            return np.sqrt(dx * dx + dy * dy)
        bbox = (cx - hw, cy - hh, cx + hw, cy + hh)
        self._mark_shape(layers, dist, bbox, net, self._keep(TRACK / 2), self._keep(VIA_D / 2))
        if via_block:
            self._mark_shape(layers, dist, bbox, BLOCKED, None, VIA_D / 2 + 0.05)

    def add_circle(self, layers, cx, cy, r, net):
        def dist(xs, ys):
            return np.maximum(np.sqrt((xs - cx) ** 2 + (ys - cy) ** 2) - r, 0.0)
        self._mark_shape(layers, dist, (cx - r, cy - r, cx + r, cy + r), net,
                         self._keep(TRACK / 2), self._keep(VIA_D / 2))

    def add_hole(self, cx, cy, r, record=True):
        """A drilled hole: no via of any net near it (hole-to-hole), copper handled by its pad."""
        if record:
            self.static.append(("hole", cx, cy, r))
        def dist(xs, ys):
            return np.maximum(np.sqrt((xs - cx) ** 2 + (ys - cy) ** 2) - r, 0.0)
        self._mark_shape((0, 1), dist, (cx - r, cy - r, cx + r, cy + r), BLOCKED,
                         None, VIA_DRILL / 2 + 0.3)

    def add_npth(self, cx, cy, hw, hh, record=True):
        """A non-plated hole (its bounding rectangle): no track or via of any net on either layer
        within the copper-to-hole clearance."""
        if record:
            self.static.append(("npth", cx, cy, hw, hh))

        def dist(xs, ys):
            dx = np.maximum(np.abs(xs - cx) - hw, 0.0)
            dy = np.maximum(np.abs(ys - cy) - hh, 0.0)
            return np.sqrt(dx * dx + dy * dy)
        self._mark_shape((0, 1), dist, (cx - hw, cy - hh, cx + hw, cy + hh), BLOCKED,
                         TRACK / 2 + HOLE_CLEAR + MARGIN, VIA_D / 2 + HOLE_CLEAR + MARGIN)

    def add_segment(self, layer, x1, y1, x2, y2, net, width=TRACK, record=True):
        hw = width / 2.0

        def dist(xs, ys):
            dx, dy = x2 - x1, y2 - y1
            ll = dx * dx + dy * dy
            if ll == 0:
                t = 0.0
            else:
                t = np.clip(((xs - x1) * dx + (ys - y1) * dy) / ll, 0.0, 1.0)
            px, py = x1 + t * dx, y1 + t * dy
            return np.maximum(np.sqrt((xs - px) ** 2 + (ys - py) ** 2) - hw, 0.0)
        bbox = (min(x1, x2) - hw, min(y1, y2) - hw, max(x1, x2) + hw, max(y1, y2) + hw)
        self._mark_shape((layer,), dist, bbox, net, self._keep(TRACK / 2), self._keep(VIA_D / 2))
        if record:
            self.tracks.append((layer, x1, y1, x2, y2, net, width))

    def add_via(self, x, y, net, record=True):
        self.add_circle((0, 1), x, y, VIA_D / 2, net)
        self.add_hole(x, y, VIA_DRILL / 2, record=False)
        if record:
            self.vias.append((x, y, net))

    def rip(self, nets):
        """Take up every track and via of `nets` (rails stay) and rebuild the occupancy."""
        nets = set(nets)
        rails = [self.tracks[i] for i in self.rails]
        keep = [t for i, t in enumerate(self.tracks) if t[5] not in nets or i in set(self.rails)]
        self.tracks = keep
        self.rails = [keep.index(t) for t in rails]
        self.vias = [v for v in self.vias if v[2] not in nets]
        self.towner[:] = FREE
        self.vowner[:] = FREE
        self._flat_cache = None
        self._edge()
        for it in self.static:
            if it[0] == "rect":
                self.add_rect(*it[1:], record=False)
            elif it[0] == "npth":
                self.add_npth(*it[1:], record=False)
            elif it[0] == "keepout":
                self.keepout(*it[1:], record=False)
            else:
                self.add_hole(*it[1:], record=False)
        for t in self.tracks:
            self.add_segment(t[0], t[1], t[2], t[3], t[4], t[5], t[6], record=False)
        for v in self.vias:
            self.add_via(v[0], v[1], v[2], record=False)

    def near(self, pts, radius):
        """Nets with a track or via within `radius` mm of any of the points."""
        out = set()
        for (layer, x1, y1, x2, y2, net, w) in self.tracks:
            for (px, py) in pts:
                if (min(x1, x2) - radius <= px <= max(x1, x2) + radius
                        and min(y1, y2) - radius <= py <= max(y1, y2) + radius):
                    out.add(net)
                    break
        for (x, y, net) in self.vias:
            for (px, py) in pts:
                if abs(x - px) <= radius and abs(y - py) <= radius:
                    out.add(net)
                    break
        return out

    def _edge(self):
        self._flat_cache = None
        kt = EDGE_CLEAR + TRACK / 2 + MARGIN
        kv = EDGE_CLEAR + VIA_D / 2 + MARGIN
        xs = np.arange(self.W) * GRID
        ys = np.arange(self.H) * GRID
        d = np.minimum(np.minimum(xs[None, :], self.w_mm - xs[None, :]),
                       np.minimum(ys[:, None], self.h_mm - ys[:, None]))
        for layer in (0, 1):
            self.towner[layer][d < kt] = BLOCKED
            self.vowner[layer][d < kv] = BLOCKED

    def keepout(self, layers, x0, y0, x1, y1, tracks=True, vias=True, record=True):
        """A rectangle no copper of ours may enter (e.g. under a connector body)."""
        if record:
            self.static.append(("keepout", layers, x0, y0, x1, y1, tracks, vias))
        ix0, iy0 = int(math.floor(x0 / GRID)), int(math.floor(y0 / GRID))
        ix1, iy1 = int(math.ceil(x1 / GRID)), int(math.ceil(y1 / GRID))
        for layer in layers:
            self._flat_cache = None
            if tracks:
                self.towner[layer, iy0:iy1 + 1, ix0:ix1 + 1] = BLOCKED
            if vias:
                self.vowner[layer, iy0:iy1 + 1, ix0:ix1 + 1] = BLOCKED

    def trim_rails(self):
        """Cut every horizontal rail back to the outermost points where its net joins it (no
        dangling ends); a rail nothing joined is removed."""
        drop = []
        for ti in self.rails:
            layer, x1, y1, x2, y2, net, width = self.tracks[ti]
            xs = []
            for k, (l2, a1, b1, a2, b2, n2, _) in enumerate(self.tracks):
                if k == ti or n2 != net or l2 != layer:
                    continue
                for (a, b) in ((a1, b1), (a2, b2)):
                    if abs(b - y1) < 1e-6 and min(x1, x2) - 1e-6 <= a <= max(x1, x2) + 1e-6:
                        xs.append(a)
            for (a, b, n2) in self.vias:
                if n2 == net and abs(b - y1) < 1e-6 and min(x1, x2) - 1e-6 <= a <= max(x1, x2) + 1e-6:
                    xs.append(a)
            if len(set(round(x, 4) for x in xs)) < 2:
                drop.append(ti)
                continue
            self.tracks[ti] = (layer, min(xs), y1, max(xs), y2, net, width)
        for ti in sorted(drop, reverse=True):
            self.tracks.pop(ti)

    # ---- cells of a pad / track (where a route may start or end) -----------------------
    def pad_cells(self, layers, cx, cy, hw, hh, net):
        out = set()
        ix0, ix1 = int(math.ceil((cx - hw) / GRID)), int(math.floor((cx + hw) / GRID))
        iy0, iy1 = int(math.ceil((cy - hh) / GRID)), int(math.floor((cy + hh) / GRID))
        for layer in layers:
            for iy in range(iy0, iy1 + 1):
                for ix in range(ix0, ix1 + 1):
                    if self.towner[layer, iy, ix] in (FREE, net):
                        out.add((layer, iy, ix))
        if not out:
            # the nearest cell to the centre (the track then starts at the pad centre)
            ix, iy = int(round(cx / GRID)), int(round(cy / GRID))
            for layer in layers:
                if self.towner[layer, iy, ix] in (FREE, net):
                    out.add((layer, iy, ix))
        return out

    def segment_cells(self, layer, x1, y1, x2, y2):
        """Grid cells on an axis-parallel track laid on grid points."""
        ix1, iy1 = int(round(x1 / GRID)), int(round(y1 / GRID))
        ix2, iy2 = int(round(x2 / GRID)), int(round(y2 / GRID))
        out = set()
        if ix1 == ix2:
            for iy in range(min(iy1, iy2), max(iy1, iy2) + 1):
                out.add((layer, iy, ix1))
        elif iy1 == iy2:
            for ix in range(min(ix1, ix2), max(ix1, ix2) + 1):
                out.add((layer, iy1, ix))
        else:
            raise ValueError("segment_cells: axis-parallel only")
        return out

    # ---- search ------------------------------------------------------------------------
    def _flat(self):
        if self._flat_cache is None:
            self._flat_cache = (self.towner.ravel().tolist(), self.vowner.ravel().tolist())
        return self._flat_cache

    def route(self, net, sources, targets, cost_b=2.0, via_cost=8.0, bend=1.0, limit=None,
              layer_pref=None):
        """A* from any cell of `sources` to any cell of `targets` (sets of (layer, iy, ix)).
        Returns the path (list of cells) or raises RouteError."""
        if sources & targets:
            return [min(sources & targets)]
        W, H = self.W, self.H
        HW = H * W
        tflat, vflat = self._flat()
        tl = sorted(targets)
        tx0 = min(c[2] for c in tl); tx1 = max(c[2] for c in tl)
        ty0 = min(c[1] for c in tl); ty1 = max(c[1] for c in tl)
        tidx = set(c[0] * HW + c[1] * W + c[2] for c in tl)
        pref = layer_pref or (None, None)
        # moves: (d_index, d_y, d_x, direction)
        moves = ((1, 0, 1, 0), (W, 1, 0, 1), (-1, 0, -1, 0), (-W, -1, 0, 1))
        step = (1.0, cost_b)
        INF = 1e18
        best = {}
        parent = {}
        heap = []
        push, pop = heapq.heappush, heapq.heappop
        cnt = 0
        for c in sorted(sources):
            i = c[0] * HW + c[1] * W + c[2]
            best[i] = 0.0
            parent[i] = -1
            dx = tx0 - c[2] if c[2] < tx0 else (c[2] - tx1 if c[2] > tx1 else 0)
            dy = ty0 - c[1] if c[1] < ty0 else (c[1] - ty1 if c[1] > ty1 else 0)
            push(heap, (dx + dy, 0.0, cnt, i, -1))
            cnt += 1
        limit = limit or 120000
        expanded = 0
        found = -1
        while heap:
            f, g, _, i, d = pop(heap)
            if g > best.get(i, INF):
                continue
            if i in tidx:
                found = i
                break
            expanded += 1
            if expanded > limit:
                break
            layer = 1 if i >= HW else 0
            r = i - layer * HW
            iy, ix = divmod(r, W)
            sc = step[layer]
            pl = pref[layer]
            for di, ddy, ddx, dd in moves:
                ny, nx = iy + ddy, ix + ddx
                if ny < 0 or nx < 0 or ny >= H or nx >= W:
                    continue
                j = i + di
                o = tflat[j]
                if o != -1 and o != net:
                    continue
                ng = g + sc
                if pl is not None and dd != pl:
                    ng += 0.5
                if d >= 0 and dd != d:
                    ng += bend
                if ng < best.get(j, INF):
                    best[j] = ng
                    parent[j] = i
                    dx = tx0 - nx if nx < tx0 else (nx - tx1 if nx > tx1 else 0)
                    dy = ty0 - ny if ny < ty0 else (ny - ty1 if ny > ty1 else 0)
                    cnt += 1
                    push(heap, (ng + dx + dy, ng, cnt, j, dd))
            j = i + HW if layer == 0 else i - HW
            o1, o2 = vflat[i], vflat[j]
            if (o1 == -1 or o1 == net) and (o2 == -1 or o2 == net):
                ng = g + via_cost
                if ng < best.get(j, INF):
                    best[j] = ng
                    parent[j] = i
                    dx = tx0 - ix if ix < tx0 else (ix - tx1 if ix > tx1 else 0)
                    dy = ty0 - iy if iy < ty0 else (iy - ty1 if iy > ty1 else 0)
                    cnt += 1
                    push(heap, (ng + dx + dy, ng, cnt, j, -1))
        if found < 0:
            raise RouteError("no route for net %s (%d cells expanded)" % (net, expanded))
        path = []
        i = found
        while i != -1:
            layer = 1 if i >= HW else 0
            iy, ix = divmod(i - layer * HW, W)
            path.append((layer, iy, ix))
            i = parent[i]
        path.reverse()
        return path

    def commit(self, net, path, start_xy=None, end_xy=None):
        """Lay the path: merge straight runs into segments, a via at each layer change.
        start_xy / end_xy: exact pad centres to join to the first / last cell."""
        segs = []
        vias = []
        run_start = path[0]
        prev = path[0]
        prev_dir = None
        for c in path[1:]:
            if c[0] != prev[0]:
                if run_start != prev:
                    segs.append((run_start, prev))
                vias.append((prev[2] * GRID, prev[1] * GRID))
                run_start = c
                prev_dir = None
            else:
                dr = (c[1] - prev[1], c[2] - prev[2])
                if prev_dir is not None and dr != prev_dir:
                    segs.append((run_start, prev))
                    run_start = prev
                prev_dir = dr
            prev = c
        if run_start != prev:
            segs.append((run_start, prev))
        for a, b in segs:
            self.add_segment(a[0], a[2] * GRID, a[1] * GRID, b[2] * GRID, b[1] * GRID, net)
        for x, y in vias:
            self.add_via(x, y, net)
        for xy, c in ((start_xy, path[0]), (end_xy, path[-1])):
            if xy is not None:
                cx, cy = c[2] * GRID, c[1] * GRID
                if abs(cx - xy[0]) > 1e-6 or abs(cy - xy[1]) > 1e-6:
                    self.tracks.append((c[0], xy[0], xy[1], cx, cy, net, TRACK))
        return set(path)


def render_png(path, w_mm, h_mm, pads, tracks, vias, outline_only=False, scale=8, title=None, pours=()):
    """A picture of the board seen from the part side (bottom), drawn from its geometry:
    pads [(layers, cx, cy, hw, hh, kind)], tracks [(layer, x1, y1, x2, y2, net, width)],
    vias [(x, y, net)].  Mirrored left-right, as the underside is seen."""
    from PIL import Image, ImageDraw
    m = 4
    W, H = int(w_mm * scale) + 2 * m, int(h_mm * scale) + 2 * m + (18 if title else 0)
    img = Image.new("RGB", (W, H), (255, 255, 255))
    dr = ImageDraw.Draw(img)
    top = 18 if title else 0

    def X(x):
        return m + (w_mm - x) * scale

    def Y(y):
        return top + m + y * scale
    dr.rectangle([X(w_mm), Y(0), X(0), Y(h_mm)], fill=(18, 80, 40), outline=(230, 230, 120), width=2)
    for layer in (0, 1):      # GND pour: top layer as a faint tint, the part side a little stronger
        for (li, rings) in pours:
            if li != layer:
                continue
            col = (30, 100, 60) if layer == 0 else (40, 115, 70)
            for k, ring in enumerate(rings):
                if len(ring) > 2:
                    dr.polygon([(X(x), Y(y)) for x, y in ring], fill=col if k == 0 else (18, 80, 40))
    for (layer, x1, y1, x2, y2, net, width) in tracks:
        if layer == 0:
            dr.line([X(x1), Y(y1), X(x2), Y(y2)], fill=(60, 120, 190), width=max(1, int(width * scale)))
    for (layer, x1, y1, x2, y2, net, width) in tracks:
        if layer == 1:
            dr.line([X(x1), Y(y1), X(x2), Y(y2)], fill=(200, 170, 60), width=max(1, int(width * scale)))
    for (layers, cx, cy, hw, hh) in (p[:5] for p in pads):
        if not layers:        # a plain hole (an LED's window): drawn as a hole, red rim
            dr.ellipse([X(cx + hw), Y(cy - hh), X(cx - hw), Y(cy + hh)], fill=(10, 10, 10),
                       outline=(230, 60, 50), width=max(1, scale // 4))
            continue
        col = (220, 220, 220) if len(layers) == 1 else (235, 200, 90)
        dr.rectangle([X(cx + hw), Y(cy - hh), X(cx - hw), Y(cy + hh)], fill=col)
    for (x, y, net) in vias:
        r = 0.3 * scale
        dr.ellipse([X(x) - r, Y(y) - r, X(x) + r, Y(y) + r], fill=(235, 200, 90))
        r = 0.15 * scale
        dr.ellipse([X(x) - r, Y(y) - r, X(x) + r, Y(y) + r], fill=(30, 30, 30))
    if title:
        dr.text((m, 3), title, fill=(0, 0, 0))
    img.save(path, optimize=True)
