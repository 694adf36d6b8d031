"""The generic pickers of the game screen: one question of a `Decision` at a time.

`DecisionPicker` shows the picks made so far (tap one to go back to it), the next question and its
options: a stepper for a count, a grid of names for anything else, a screenful at a time with a
search box when there are more. A game may supply its own widget for a pick kind
(`GameModule.pickers`: its map for "area"); it gets `offer(question, on_pick)`. Every pick goes
through `Decision.choose`, which refuses a value that is no longer legal; the picker never
dispatches: a complete decision is handed to `on_complete(action)`, which waits for Confirm.
"""
from __future__ import annotations

from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label

from companion.decisions import WHOLE, StalePick

PAGE = 10  # option buttons shown at once: a screenful on a 7-inch tablet (two columns of five)


class PickButton(Button):
    """One option of a question (its value kept on the button)."""
    value = ObjectProperty(None, allownone=True)
    selected = BooleanProperty(False)


class TrailButton(Button):
    """A pick already made: tapping it goes back to that question."""
    field = StringProperty("")


class CountStepper(BoxLayout):
    """A count among the legal values: - / + walk the legal values; OK picks the one shown."""
    index = NumericProperty(0)
    value_text = StringProperty("")
    range_text = StringProperty("")

    def __init__(self, values, labels, on_pick, **kw):
        super().__init__(**kw)
        self.values, self.labels, self.on_pick = list(values), list(labels), on_pick
        self.range_text = f"{self.labels[0]} to {self.labels[-1]}" if self.values else ""
        self._show()

    def step(self, delta):
        self.index = max(0, min(len(self.values) - 1, self.index + delta))
        self._show()

    def _show(self):
        self.value_text = self.labels[self.index] if self.values else ""

    def pick(self):
        if self.values:
            self.on_pick(self.values[self.index])


class DecisionPicker(BoxLayout):
    """The question the decision asks now, with its options (see the module docstring)."""
    question_text = StringProperty("")
    page_text = StringProperty("")
    searching = BooleanProperty(False)
    narrow = BooleanProperty(False)   # one column of options (a phone, a narrow column)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.decision = None
        self.on_complete = None
        self.on_refused = None
        self.game_pickers = {}
        self._page = 0
        self._filter = ""
        self._question = None
        # the named choices ("No combat", "Done defending"): a button each, above the questions
        self.named_box = GridLayout(cols=2, size_hint_y=None, spacing=dp(4))
        self.named_box.bind(minimum_height=self.named_box.setter("height"))
        self.named_box.height = 0  # empty: Kivy's default 100 px stayed (no event fires at 0)
        self.add_widget(self.named_box, index=len(self.children))

    # ------------------------------------------------------------------ public
    def show(self, decision, on_complete, on_refused, game_pickers=None):
        """A new decision (a new moment of the game): everything starts from the first question."""
        self.decision, self.on_complete, self.on_refused = decision, on_complete, on_refused
        self.game_pickers = game_pickers or {}
        self._page, self._filter = 0, ""
        self.ids.search.text = ""
        self._render()

    def clear(self):
        self.decision = self._question = None
        self.question_text = ""
        self.ids.trail.clear_widgets()
        self.named_box.clear_widgets()
        self._fill_options()

    def pick_named(self, action):
        if self.decision is None:
            return
        try:
            self.decision.choose_named(action)
        except StalePick as exc:
            if self.on_refused:
                self.on_refused(str(exc))
        self._page, self._filter = 0, ""
        self.ids.search.text = ""
        self._render()

    def pick(self, field, value):
        if self.decision is None:
            return
        try:
            self.decision.choose(field, value)
        except StalePick as exc:
            if self.on_refused:
                self.on_refused(str(exc))
            self._render()
            return
        self._page, self._filter = 0, ""
        self.ids.search.text = ""
        self._render()

    def go_back(self, field):
        if self.decision is not None:
            self.decision.back(field)
            self._page = 0
            self._render()

    def set_filter(self, text):
        self._filter = text.strip().lower()
        self._page = 0
        self._fill_options()

    def turn_page(self, delta):
        self._page += delta
        self._fill_options()

    # ------------------------------------------------------------------ drawing
    def _render(self):
        d = self.decision
        trail = self.ids.trail
        trail.clear_widgets()
        if d is None:
            return self.clear()
        for field, label in d.trail():
            b = TrailButton(field=field, text=f"{label} (change)")
            b.bind(on_release=lambda btn: self.go_back(btn.field))
            trail.add_widget(b)
        named = d.named()
        picked_named = d.whole is not None and any(a == d.whole for a, _ in named)
        if d.whole is not None and not picked_named:
            b = TrailButton(field=WHOLE, text="Choose again")
            b.bind(on_release=lambda btn: self.go_back(WHOLE))
            trail.add_widget(b)
        box = self.named_box
        box.clear_widgets()
        box.cols = 1 if (self.narrow or len(named) == 1) else 2
        for action, words in named:
            b = PickButton(value=action, text=words, selected=action == d.whole)
            b.bind(on_release=lambda btn: self.pick_named(btn.value))
            box.add_widget(b)
        q = self._question = d.question()
        self.question_text = q.text if q is not None else ""
        self._fill_options()
        if self.on_complete:  # the complete action waits for Confirm; else nothing does
            self.on_complete(d.complete() if q is None else None)

    def _fill_options(self):
        q = self._question
        grid, custom = self.ids.options, self.ids.custom
        grid.clear_widgets()
        custom.clear_widgets()
        self.page_text = ""
        if q is None:
            self.searching = False
            return
        own = self.game_pickers.get(q.kind)
        if own is not None:
            self.searching = False
            w = own()
            w.offer(q, lambda v, f=q.field: self.pick(f, v))
            custom.add_widget(w)
            return
        if q.kind == "count" and len(q.options) > PAGE:
            self.searching = False
            custom.add_widget(CountStepper([v for v, _ in q.options], [lbl for _, lbl in q.options],
                                           lambda v, f=q.field: self.pick(f, v)))
            return
        opts = q.options
        self.searching = len(opts) > PAGE
        if self._filter:
            opts = [o for o in opts if self._filter in o[1].lower()]
        pages = max(1, -(-len(opts) // PAGE))
        self._page = max(0, min(self._page, pages - 1))
        shown = opts[self._page * PAGE:(self._page + 1) * PAGE]
        whole = q.field == WHOLE
        grid.cols = 1 if (whole or self.narrow) else 2
        for value, label in shown:
            b = PickButton(value=value, text=label)
            b.bind(on_release=lambda btn, f=q.field: self.pick(f, btn.value))
            grid.add_widget(b)
        if not shown:
            grid.cols = 1
            why = self.decision.why_not(q.field, self._filter) if self.decision is not None else None
            note = Label(text=why or "Nothing matches what you typed.", size_hint_y=None,
                         height=dp(48), halign="center", valign="middle")
            note.bind(width=lambda lbl, w: setattr(lbl, "text_size", (w, None)),
                      texture_size=lambda lbl, ts: setattr(lbl, "height", max(dp(48), ts[1] + dp(8))))
            grid.add_widget(note)
        if pages > 1:
            self.page_text = f"{self._page + 1} of {pages}"

