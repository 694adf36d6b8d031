"""The plan picker: every plan that can still be drawn as a card in a grid (its whole name, cost
and stars), for a plan drawn from either deck (GameModule.pickers["card"]).

Columns follow the width (each at least PLAN_W wide, so a name never breaks inside a word);
a name is wrapped only between words, and the font steps down when the longest word would not
fit its button. A tap picks; the pick waits for the screen's one Confirm."""
from __future__ import annotations

from kivy.core.text import Label as CoreLabel
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label

PLAN_W = 132  # dp: the narrowest column ("Wholesaler" at 16sp with room to spare)


class PlanButton(Button):
    plan = StringProperty("")
    chosen = BooleanProperty(False)

    def __init__(self, name, facts, **kw):
        super().__init__(markup=True, halign="center", valign="middle", size_hint_y=None, **kw)
        self.name_text, self.facts = name, facts
        self.bind(width=self._fit)
        self._fit()

    def _fit(self, *_):
        """Words whole: the font steps down until the longest word fits the button's width."""
        room = max(10, self.width - dp(10))
        longest = max(self.name_text.split(), key=len)
        size = 16
        while size > 11 and CoreLabel(text=longest, font_size=sp(size), bold=True).render()[0] > room:
            size -= 1
        self.font_size = sp(size)
        self.text = f"[b]{self.name_text}[/b]\n[size={max(11, size - 3)}sp]{self.facts}[/size]"
        self.text_size = (room, None)
        self.texture_update()
        self.height = max(dp(56), self.texture_size[1] + dp(12))


class PlanGrid(BoxLayout):
    """offer(question, on_pick): the question's options are plan ids with their words."""
    question_text = StringProperty("")

    def __init__(self, **kw):
        super().__init__(orientation="vertical", size_hint_y=None, spacing=dp(4), **kw)
        self.bind(minimum_height=self.setter("height"))
        self.height = self.minimum_height  # no event fires while it stays at 0
        self.grid = GridLayout(cols=2, size_hint_y=None, spacing=dp(4))
        self.grid.bind(minimum_height=self.grid.setter("height"))
        self.grid.height = self.grid.minimum_height  # no event fires while it stays at 0
        self.add_widget(self.grid)
        self.bind(width=self._columns)
        self.on_pick = None

    def offer(self, question, on_pick):
        from ..view import VIEW

        self.on_pick = on_pick
        self.grid.clear_widgets()
        for value, label in sorted(question.options, key=lambda o: VIEW.plan(o[0])):
            b = PlanButton(VIEW.plan(value), VIEW.plan_facts(value) or label)
            b.plan = value
            b.bind(on_release=lambda btn: self.pick(btn.plan))
            self.grid.add_widget(b)
        if not question.options:
            self.grid.add_widget(Label(text="No plan can be drawn now.", size_hint_y=None, height=dp(48)))
        self._columns()

    def _columns(self, *_):
        self.grid.cols = max(1, min(4, int(self.width // dp(PLAN_W)))) if self.width > 1 else 2

    def pick(self, plan):
        for b in self.grid.children:
            if isinstance(b, PlanButton):
                b.chosen = b.plan == plan
        if self.on_pick is not None:
            self.on_pick(plan)
