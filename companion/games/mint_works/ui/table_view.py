"""The Table tab: the location line with its occupied spaces, the Plan Supply and the deck, and
what the solitaire AI just did, read from the view's snapshot (view.py `snapshot`)."""
from __future__ import annotations

from kivy.metrics import dp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView


def _label(text, size="16sp", bold=False, colour=(1, 1, 1, 1)):
    lab = Label(text=f"[b]{text}[/b]" if bold else text, markup=True, font_size=size, color=colour,
                size_hint_y=None, halign="left", valign="top")
    lab.bind(width=lambda w, v: setattr(w, "text_size", (v, None)),
             texture_size=lambda w, v: setattr(w, "height", v[1] + dp(6)))
    return lab


class TableView(BoxLayout):
    """Left-column view of the shared table; `lines` holds the texts shown (for tests)."""

    def __init__(self, **kw):
        super().__init__(orientation="vertical", **kw)
        self.lines = []
        scroll = ScrollView(do_scroll_x=False)
        self.box = BoxLayout(orientation="vertical", size_hint_y=None, spacing=dp(4), padding=dp(8))
        self.box.bind(minimum_height=self.box.setter("height"))
        self.box.height = self.box.minimum_height  # no event fires while it stays at 0
        scroll.add_widget(self.box)
        self.add_widget(scroll)

    def update(self, screen, ctrl, snap):
        data = snap.get("mint_works") or ctrl.view.snapshot(ctrl.game, ctrl.state, ctrl.setup)["mint_works"]
        lines = []
        if data["ai_turn"]:
            lines.append(("The AI's turn", True))
            lines += [(t, False) for t in data["ai_turn"]]
        n = data["deck"]
        lines.append((f"Plan Supply ({n} plan{'s' if n != 1 else ''} in the deck)", True))
        lines += [(p, False) for p in data["supply"]] or [("empty", False)]
        lines.append(("Locations", True))
        lines += [(loc["text"], False) for loc in data["line"]]
        if lines == self.lines:
            return
        self.lines = lines
        self.box.clear_widgets()
        for text, head in lines:
            self.box.add_widget(_label(text, "17sp" if head else "15sp", bold=head))
