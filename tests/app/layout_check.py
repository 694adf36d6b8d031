"""Layout check: what a player would see wrong on the screen now, read from the live widget tree.

    from layout_check import check_window
    findings = check_window()          # the running app's window (Kivy's Window)
    assert not findings, "\n".join(map(str, findings))

It walks only what is visible: widgets with opacity 0 (and their children), disabled widgets of
zero size, screens that are not current and widgets scrolled out of a ScrollView's viewport (or
outside the window) are skipped. When a modal view (a popup) is open, only it and what lies above
it take touches, so touch targets are compared within one layer. Findings:

  clipped      a label's text is larger than its box (it neither wraps into the box nor scrolls)
  ellipsis     a label shortened with "..." (`shorten`): the player loses words
  outside      text drawn past the window or past a scroll viewport in a direction it cannot scroll
  small        a touch target (button, toggle, anything with on_press/on_release) under 48 dp
  overlap      two touch targets overlapping (a tap could hit either)
  confirm      more than one enabled Confirm button visible
  hidden       a widget that cannot be seen (opacity 0) but still takes the taps meant for a
               visible touch target under it (a disabled widget swallows a tap, an enabled one
               answers it)
  dev-text     developer text on screen: cell ids (r3c4, @r1c1), snake_case keys, rule ids
               (CQ-R11, MW-R1, REG-L3), raw dicts/lists, file names (*.json, *.py, *.journal),
               markup tags shown as text

Each finding names the widget: its class, where it is in ids (`GameScreen.confirm`) when a kv
rule gave it an id, its text and its box in window pixels. The checker names no game.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

MIN_TARGET_DP = 48
SLACK_PX = 1.5  # rounding of layouts and textures: less than this is no finding

KINDS = ("clipped", "ellipsis", "outside", "small", "overlap", "confirm", "dev-text", "hidden", "crowded")
#: widgets whose touch targets are one control for a player (a map, a lane, a row of die faces,
#: the dice entry, the cards a draw may turn up): they count once toward a screen's touch targets
ONE_CONTROL = ("MapGrid", "SpacePicker", "CivQuestMap", "AreaMap", "LaneStrip", "DieRow", "FaceChoice",
               "DieFaceRow", "DiceEntry", "PlanGrid")

_MARKUP = re.compile(r"\[/?(?:b|i|u|s|sub|sup|color|font|font_family|font_context|font_features|size|ref|anchor|text_language)(?:=[^\]]*)?\]")
DEV_PATTERNS = (
    ("markup shown as text", _MARKUP),  # a label without markup=True shows its tags
    ("cell id", re.compile(r"(?<![\w])@?r\d+c\d+(?![\w])")),
    ("rule id", re.compile(r"(?<![\w-])[A-Z]{2,5}-[A-Z]{0,3}\d+[a-z]?(?![\w-])")),
    ("snake_case key", re.compile(r"(?<![\w/.])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w(])")),
    ("raw dict or list", re.compile(r"[{\[]\s*['\"][^'\"]*['\"]\s*[:,\]}]|[{\[]\s*(?:None|True|False)\b|\{\s*\}|\[\s*-?\d+(?:\s*,\s*-?\d+)+\s*\]")),
    ("file name", re.compile(r"(?<![\w])[\w.-]+\.(?:json|py|pyc|journal|kv|csv|sqlite|db|log|yaml|yml|toml|ini)(?![\w])")),
    # "1 cards", "1 stars", "1 dice": a count of one said with a plural (issue 28 item 6)
    ("wrong plural", re.compile(r"(?<![\w.,/-])1 (?:cards|stars|points|dice|tokens|coins|mints|resources|actions|"
                                r"moves|areas|cities|units|plots|rounds|turns|players|spaces|buildings|"
                                r"technologies|advances|wonders|steps|hammers)\b", re.I)),
    # "build a Infantry": the article does not fit the word after it (issue 39 item 10)
    ("wrong article", re.compile(r"(?<![\w'-])(?:[Aa] (?:[AEIaei][a-z]|O[a-z])|[Aa]n (?:[B-DF-HJ-NP-TV-Zb-df-hj-np-tv-z][a-z]))")),
    # "Plot 1 (grassland)": a name shown by its lower-case id after a numbered thing
    # (not a seat's default name with its role or colour: "Player 2 (dealer)", "Player 1 (blue)")
    ("lower-case name", re.compile(r"\b(?!Player )[A-Z][a-z]+ \d+ \((?:[a-z]+)\)")),
)


@dataclass(frozen=True)
class Finding:
    kind: str
    widget: str   # class and id path
    text: str     # the widget's text, shortened for the message
    box: tuple    # (x, y, width, height) in window pixels
    detail: str

    def key(self):
        """What stays the same when the same problem is seen again at another step (for
        de-duplicating): the kind, the widget and the detail without its figures."""
        words = " ".join(re.sub(r"\d+", "#", self.text).split()[:2])  # "Round #": the same label
        return (self.kind, self.widget, words, re.sub(r"\d+", "#", self.detail.split(" by ")[0]))

    def __str__(self):
        x, y, w, h = (round(v) for v in self.box)
        text = f" {self.text!r}" if self.text else ""
        return f"{self.kind}: {self.widget}{text} at ({x},{y}) {w}x{h}: {self.detail}"


def plain(text: str, markup: bool) -> str:
    """The words as the player reads them (markup tags and escapes taken out)."""
    if markup:
        text = _MARKUP.sub("", text)
        text = text.replace("&bl;", "[").replace("&br;", "]").replace("&amp;", "&")
    return text


def dev_text(text: str) -> list:
    """The kinds of developer text in `text` (words a player should never read), with the match."""
    out = []
    for name, rx in DEV_PATTERNS:
        m = rx.search(text)
        if m:
            out.append(f"{name} {m.group(0)!r}")
    return out


# ------------------------------------------------------------------------------ geometry
def _box(w):
    """The widget's box in window coordinates (x, y, right, top)."""
    x0, y0 = w.to_window(w.x, w.y)
    x1, y1 = w.to_window(w.right, w.top)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _intersect(a, b):
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


def _empty(r, slack=0.0):
    return r[2] - r[0] <= slack or r[3] - r[1] <= slack


class _Clip:
    """A visible region: the window, or a ScrollView's viewport within the one around it.
    `scroll_x/scroll_y`: content past the region on that axis can be scrolled into view.
    `own`: the ScrollView's own box (the region is that box cut by the regions around it);
    `outer_x/outer_y`: a region around it scrolls on that axis, so what the cut hides can be
    brought into view by scrolling that one (a card partly below the fold of a scrolling column)."""

    def __init__(self, rect, scroll_x=False, scroll_y=False, name="window", own=None, outer_x=False,
                 outer_y=False):
        self.rect, self.scroll_x, self.scroll_y, self.name = rect, scroll_x, scroll_y, name
        self.own = own or rect
        self.outer_x, self.outer_y = outer_x, outer_y


def _past(r, clip):
    """Which way `r` reaches past the clip on an axis where nothing scrolls it into view ("" when none)."""
    c, own = clip.rect, clip.own

    def past(i0, i1, scroll, outer):
        if scroll:
            return False
        if r[i0] < own[i0] - SLACK_PX or r[i1] > own[i1] + SLACK_PX:
            return True  # past the scroll area's own edge: never seen
        return (r[i0] < c[i0] - SLACK_PX or r[i1] > c[i1] + SLACK_PX) and not outer
    past_x = past(0, 2, clip.scroll_x, clip.outer_x)
    past_y = past(1, 3, clip.scroll_y, clip.outer_y)
    return " and ".join(s for s, p in (("sideways", past_x), ("up/down", past_y)) if p)


def _id_in(node, widget):
    """The id under which `node`'s kv rule names `widget`, or None."""
    for name, ref in getattr(node, "ids", {}).items():
        try:
            target = ref.__self__
        except (AttributeError, ReferenceError):
            target = ref
        if target is widget:
            return name
    return None


def _describe(w):
    """Class name and, where a kv rule named it, owner.id (e.g. GameScreen.confirm)."""
    cls = type(w).__name__
    node = w.parent
    while node is not None and node is not node.parent:
        name = _id_in(node, w)
        if name:
            return f"{cls} {type(node).__name__}.{name}"
        node = node.parent
    # no id of its own: the nearest named widget around it
    inner, node = w, w.parent
    while node is not None and node is not node.parent:
        name = _id_in(node, inner) if inner is not w else None
        if name:
            return f"{cls} in {type(inner).__name__} {type(node).__name__}.{name}"
        inner, node = node, node.parent
    parent = type(w.parent).__name__ if w.parent is not None else "-"
    screen = w.parent
    while screen is not None and screen is not screen.parent and not hasattr(screen, "manager"):
        screen = screen.parent
    on = f" on {type(screen).__name__}" if screen is not None and hasattr(screen, "manager") else ""
    return f"{cls} (in {parent}){on}"


def _short(text, n=70):
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 3] + "..."


# ------------------------------------------------------------------------------ the walk
class _Walk:
    def __init__(self, window, min_target_px, confirm_words):
        self.window = window
        self.min_target = min_target_px
        self.confirm_words = tuple(w.lower() for w in confirm_words)
        self.findings = []
        self.targets = []   # (layer, widget, clipped box, box)
        self.confirms = []
        self.seen = []      # (widget, the part of its box that can be seen)
        self.ghosts = []    # (layer, order, widget, box) unseen widgets that still take taps
        self.order = 0      # drawing order of the targets and ghosts
        self.target_order = {}
        self.max_targets = None  # more enabled controls in view in one layer: "crowded"

    def add(self, kind, w, box, detail, text=""):
        x0, y0, x1, y1 = box
        self.findings.append(Finding(kind, _describe(w), _short(text), (x0, y0, x1 - x0, y1 - y0), detail))

    def visit(self, w, clips, layer):
        from kivy.uix.modalview import ModalView
        from kivy.uix.screenmanager import Screen
        from kivy.uix.scrollview import ScrollView
        from kivy.uix.stencilview import StencilView

        if w.opacity <= 0.01:
            self._ghosts(w, clips, layer)
            return
        if isinstance(w, Screen) and w.manager is not None and w.manager.current != w.name:
            return
        box = _box(w)
        zero = box[2] - box[0] < 1 or box[3] - box[1] < 1
        if zero and w.disabled:
            return
        if isinstance(w, ModalView):
            layer = id(w)
        visible = self._visible(box, clips)
        if visible is not None and not zero:
            self.seen.append((w, visible))
            self.check_widget(w, box, visible, clips, layer)
        inner = clips
        if isinstance(w, StencilView):
            rect = _intersect(clips[-1].rect, box)
            sx = sy = False
            if isinstance(w, ScrollView) and w._viewport is not None:
                vp = w._viewport
                sx = bool(w.do_scroll_x) and vp.width > w.width + SLACK_PX
                sy = bool(w.do_scroll_y) and vp.height > w.height + SLACK_PX
            out = clips[-1]
            inner = clips + [_Clip(rect, sx, sy, _describe(w), own=box, outer_x=out.scroll_x or out.outer_x,
                                   outer_y=out.scroll_y or out.outer_y)]
            side = _past(box, clips[-1])
            if side and visible is not None:  # part of the scroll area itself can never be seen
                self.add("outside", w, box, f"scroll area reaches past {clips[-1].name} {side}, "
                         "where it cannot be scrolled into view")
            if _empty(rect):
                return  # nothing inside can be seen
        for child in reversed(w.children):  # drawing order
            self.visit(child, inner, layer)

    def _ghosts(self, w, clips, layer):
        """Widgets under an unseen `w` that a tap still reaches: disabled ones (Kivy's widget
        swallows a tap on a disabled widget) and enabled touch targets, within the clips."""
        from kivy.uix.behaviors import ButtonBehavior
        from kivy.uix.screenmanager import Screen

        if isinstance(w, Screen):
            return
        for g in w.walk(restrict=True):
            box = _box(g)
            if box[2] - box[0] < 1 or box[3] - box[1] < 1:
                continue
            target = isinstance(g, ButtonBehavior) or g.is_event_type("on_release") or g.is_event_type("on_press")
            if not (g.disabled or target):
                continue
            r = self._visible(box, clips)
            if r is not None:
                self.order += 1
                self.ghosts.append((layer, self.order, g, r))

    @staticmethod
    def _visible(box, clips):
        """The part of `box` that can be seen now, or None."""
        r = box
        for c in clips:
            r = _intersect(r, c.rect)
        return None if _empty(r, 0.5) else r

    # -------------------------------------------------------------------------- checks
    def check_widget(self, w, box, visible, clips, layer):
        from kivy.uix.behaviors import ButtonBehavior
        from kivy.uix.label import Label
        from kivy.uix.textinput import TextInput

        is_target = isinstance(w, ButtonBehavior) or (
            w.is_event_type("on_release") or w.is_event_type("on_press"))
        if is_target:
            self.order += 1
            self.targets.append((layer, w, visible, box))
            self.target_order[id(w)] = self.order
            self.check_target(w, box)
        if isinstance(w, Label) and w.text.strip():
            words = plain(w.text, w.markup)
            self.check_label(w, box, words, clips)
            for what in dev_text(words):
                self.add("dev-text", w, box, what, words)
            if is_target and not w.disabled and words.strip().lower().startswith(self.confirm_words):
                self.confirms.append((w, box, words))
        elif isinstance(w, TextInput) and (w.text.strip() or w.hint_text.strip()):
            words = w.text or w.hint_text
            for what in dev_text(words):
                self.add("dev-text", w, box, what, words)

    def check_target(self, w, box):
        width, height = box[2] - box[0], box[3] - box[1]
        if min(width, height) < self.min_target - 0.5:
            self.add("small", w, box, f"touch target {width:.0f}x{height:.0f} px, under "
                     f"{self.min_target:.0f} px ({MIN_TARGET_DP} dp)", getattr(w, "text", "") or "")

    def check_label(self, w, box, words, clips):
        tw, th = w.texture_size
        width, height = box[2] - box[0], box[3] - box[1]
        sw, sh = w.text_size
        # what is drawn: the texture, placed in the box by the label's own canvas (centred)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        drawn = (cx - tw / 2, cy - th / 2, cx + tw / 2, cy + th / 2)
        over_w, over_h = tw - width, th - height
        if over_w > SLACK_PX or over_h > SLACK_PX:
            how = []
            if over_w > SLACK_PX:
                how.append(f"{tw:.0f} px wide in {width:.0f}" + ("" if sw else " (does not wrap)"))
            if over_h > SLACK_PX:
                how.append(f"{th:.0f} px tall in {height:.0f}")
            self.add("clipped", w, box, "text larger than its box: " + ", ".join(how), words)
        if w.shorten and sw:
            full = self._measure(w)
            if full is not None and full[0] > sw + SLACK_PX:
                self.add("ellipsis", w, box, f"shortened: the full text is {full[0]:.0f} px wide "
                         f"in {sw:.0f}", words)
        elif sw:  # wraps: every line kept, and no word broken in two
            full = self._measure(w, (sw, None))
            if full is not None and sh and full[1] > sh + SLACK_PX:
                cut = f"cut to {w.max_lines} line(s)" if getattr(w, "max_lines", 0) else "lines cut"
                self.add("ellipsis" if getattr(w, "max_lines", 0) else "clipped", w, box,
                         f"{cut}: the text needs {full[1]:.0f} px, its box {sh:.0f}", words)
            long = self._longest_word(w, words)
            if long is not None and long[1] > sw + SLACK_PX:
                self.add("clipped", w, box, f"the word {long[0]!r} ({long[1]:.0f} px) is wider "
                         f"than the {sw:.0f} px it wraps in: it breaks mid-word", words)
        # text past the window, or past its scroll viewport on an axis that does not scroll
        # (the innermost region is already cut to the ones around it)
        side = _past(drawn, clips[-1])
        if side:
            self.add("outside", w, box, f"text drawn past {clips[-1].name} {side}, where it "
                     "cannot be scrolled into view", words)

    @staticmethod
    def _core(w, text, text_size):
        """A core label set like `w` (markup included) but laid out in `text_size`."""
        from kivy.core.text import Label as CoreLabel
        from kivy.core.text.markup import MarkupLabel

        opts = dict(font_size=w.font_size, font_name=w.font_name, bold=w.bold, italic=w.italic,
                    padding=w.padding, line_height=w.line_height, text_size=text_size,
                    halign=w.halign, font_context=w.font_context, font_family=w.font_family,
                    font_features=w.font_features, base_direction=w.base_direction,
                    text_language=w.text_language)
        return (MarkupLabel if w.markup else CoreLabel)(text=text, **opts)

    def _measure(self, w, text_size=(None, None)):
        """(width, height) the whole text needs, or None when it cannot be measured."""
        try:
            core = self._core(w, w.text, text_size)
            core.refresh()
            return core.content_size
        except Exception:  # noqa: BLE001 - a font the core label cannot measure: no finding
            return None

    def _longest_word(self, w, words):
        try:
            pad = w.padding[0] + w.padding[2] if len(w.padding) == 4 else 2 * w.padding[0]
            out = None
            for word in sorted(set(words.split()), key=len)[-3:]:  # the longest few
                width = self._core(w, word, (None, None)).get_extents(word)[0] + pad
                if out is None or width > out[1]:
                    out = (word, width)
            return out
        except Exception:  # noqa: BLE001
            return None

    def finish(self):
        by_layer = {}
        for layer, w, vis, box in self.targets:
            by_layer.setdefault(layer, []).append((w, vis, box))
        for items in by_layer.values():
            for i, (a, va, ba) in enumerate(items):
                for b, vb, bb in items[i + 1:]:
                    if _related(a, b):
                        continue
                    r = _intersect(va, vb)
                    if not _empty(r, SLACK_PX):
                        self.add("overlap", a, ba, f"overlaps {_describe(b)} "
                                 f"{_short(getattr(b, 'text', '') or '', 40)!r} by "
                                 f"{r[2] - r[0]:.0f}x{r[3] - r[1]:.0f} px", getattr(a, "text", "") or "")
        for layer, order, g, r in self.ghosts:  # drawn after a target: the tap reaches it first
            for t_layer, t, vt, bt in self.targets:
                if t_layer != layer or t.disabled or self.target_order[id(t)] > order or _related(g, t):
                    continue
                cut = _intersect(r, vt)
                if not _empty(cut, SLACK_PX):
                    self.add("hidden", t, bt, f"an unseen {'disabled ' if g.disabled else ''}"
                             f"{_describe(g)} {_short(getattr(g, 'text', '') or '', 30)!r} lies over it and "
                             f"takes its taps in {cut[2] - cut[0]:.0f}x{cut[3] - cut[1]:.0f} px",
                             getattr(t, "text", "") or "")
        if len(self.confirms) > 1:
            for w, box, words in self.confirms:
                self.add("confirm", w, box, f"{len(self.confirms)} enabled Confirm buttons visible", words)
        if self.max_targets is not None:
            for layer, n in self.control_counts().items():
                if n > self.max_targets:
                    self.findings.append(Finding("crowded", f"layer {layer}", "", (0, 0, 0, 0),
                                                 f"{n} touch targets in view, more than {self.max_targets}"))
        return self.findings

    def control_counts(self) -> dict:
        """{layer: how many controls a player can tap now}: the enabled touch targets in view,
        the ones inside a ONE_CONTROL widget (a map, a row of die faces) counted once for it."""
        groups = {}
        for layer, w, _vis, _box in self.targets:
            if w.disabled:
                continue
            node, key = w.parent, id(w)
            while node is not None and node is not node.parent:
                if type(node).__name__ in ONE_CONTROL:
                    key = id(node)
                node = node.parent
            groups.setdefault(layer, set()).add(key)
        return {layer: len(keys) for layer, keys in groups.items()}


def _related(a, b):
    """One inside the other (a button's own label, a toggle in a button row's box)."""
    for x, y in ((a, b), (b, a)):
        node = y.parent
        while node is not None and node is not node.parent:
            if node is x:
                return True
            node = node.parent
    return False


def _walk(roots, window_size, density=None, confirm_words=("Confirm",), max_targets=None):
    from kivy.metrics import dp

    min_px = dp(MIN_TARGET_DP) if density is None else MIN_TARGET_DP * density
    walk = _Walk(None, min_px, confirm_words)
    walk.max_targets = max_targets
    win = _Clip((0, 0, window_size[0], window_size[1]), name="the window")
    for layer, root in enumerate(roots):
        walk.visit(root, [win], ("root", layer) if layer == 0 else id(root))
    return walk


def check_tree(roots, window_size, density=None, confirm_words=("Confirm",), max_targets=None) -> list:
    """Findings for the widget trees `roots` (drawing order, bottom first) in a window of
    `window_size` pixels; with `max_targets`, a layer offering more controls in view is crowded."""
    return _walk(roots, window_size, density, confirm_words, max_targets).finish()


def control_count(window=None) -> dict:
    """{layer: controls a player can tap now} (see _Walk.control_counts)."""
    window, roots = _roots(window)
    return _walk(roots, window.size).control_counts()


def _roots(window):
    if window is None:
        from kivy.core.window import Window as window
    return window, list(reversed(window.children))  # Window.children[0] is drawn last (on top)


def check_window(window=None, **kw) -> list:
    """Findings for everything shown in Kivy's window now (the root and any open popup)."""
    return check_and_count(window, **kw)[0]


def check_and_count(window=None, density=None, confirm_words=("Confirm",), max_targets=None) -> tuple:
    """(check_window's findings, control_count's counts) from one walk of the window."""
    window, roots = _roots(window)
    walk = _walk(roots, window.size, density, confirm_words, max_targets)
    return walk.finish(), walk.control_counts()


def visible_widgets(window=None) -> list:
    """(widget, the part of its box in window pixels that can be seen) for every widget the
    check would look at now, in drawing order: what a player can see and tap."""
    window, roots = _roots(window)
    return _walk(roots, window.size).seen


def unique(findings) -> list:
    """The findings once each (the same widget and problem seen at several steps)."""
    seen, out = set(), []
    for f in findings:
        if f.key() not in seen:
            seen.add(f.key())
            out.append(f)
    return out
