"""Round End summary card and Game End screen, for any game. Layout in summary.kv; what they say
comes from the game's view (contract.GameView): round_summary, score, headline, end_reasons,
tiebreak, tiebreak_rows and score_series (a replay through the engine)."""
from __future__ import annotations

from pathlib import Path

from kivy.app import App
from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.metrics import dp, sp
from kivy.properties import (BooleanProperty, ListProperty, NumericProperty, ObjectProperty,
                             StringProperty)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from companion.kit import nice, rgba


class SummaryRow(BoxLayout):
    """One player's line(s) in the round card: a colour bar and the text."""
    colour = ListProperty([0.5, 0.5, 0.5, 1])
    text = StringProperty("")


class RoundSummaryCard(BoxLayout):
    """Shown on the dashboard when a round has ended; OK removes it."""
    screen = ObjectProperty(None, allownone=True)
    ctrl = ObjectProperty(None, allownone=True)
    ended_round = NumericProperty(0)
    title = StringProperty("")
    record = ObjectProperty(None, allownone=True)  # the game's own record of the round, if any

    def on_kv_post(self, *a):
        self.fill()

    def on_ctrl(self, *a):
        self.fill()

    def on_ended_round(self, *a):
        self.fill()

    def fill(self):
        c = self.ctrl
        if c is None or not self.ended_round or "rows" not in self.ids:  # ids exist after the kv rule
            return
        summ = c.view.round_summary(c.game, c.setup, c.session.history, self.ended_round)
        box = self.ids.rows
        box.clear_widgets()
        if not summ:
            self.title = f"Round {self.ended_round} ended."
            self.record = None
            return
        self.record = summ.get("record")
        self.title = summ["title"]
        for seat, text in summ["rows"]:
            box.add_widget(SummaryRow(colour=list(rgba(c.colour(seat))), text=text))

    def dismiss(self):
        if self.parent is not None:
            self.parent.remove_widget(self)


class ScoreChart(Widget):
    """Each player's score total per round: axes, round labels, one Line per player, legend.
    series: [{"seat", "name", "rgba", "values": [total per round]}]."""
    series = ListProperty([])
    lines = None  # seat -> the Line instruction of that player's series (for tests)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.lines = {}
        # once per frame, after the layout has settled (right/top lag behind size during layout)
        self._trigger = Clock.create_trigger(self._redraw, -1)
        self.bind(pos=self._trigger, size=self._trigger, series=self._trigger)

    @staticmethod
    def _text(txt, size="13sp", bold=False):
        lb = CoreLabel(text=str(txt), font_size=sp(float(size[:-2])), bold=bold)
        lb.refresh()
        return lb.texture

    def _blit(self, tex, x, y):
        Color(0.85, 0.85, 0.85, 1)
        Rectangle(texture=tex, pos=(int(x), int(y)), size=tex.size)

    def _redraw(self, *a):
        self.canvas.clear()
        self.lines = {}
        if not self.series or self.width < 10 or self.height < 10:
            return
        n = max(len(s["values"]) for s in self.series)
        top = max([v for s in self.series for v in s["values"]] + [1])
        step = next((k for k in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000) if top / k <= 5), 10 ** len(str(top)))
        ymax = -(-top // step) * step
        x0, y0, w, h = self.x, self.y, self.width, self.height
        left, right, bottom = x0 + dp(40), x0 + w - dp(12), y0 + dp(34)
        legend_h = dp(26)
        topy = y0 + h - legend_h - dp(8)
        with self.canvas:
            Color(0.11, 0.12, 0.14, 1)
            Rectangle(pos=self.pos, size=self.size)
            # horizontal grid and y labels
            for k in range(0, ymax + 1, step):
                y = bottom + (topy - bottom) * k / ymax
                Color(0.3, 0.3, 0.33, 1)
                Line(points=[left, y, right, y], width=1)
                tex = self._text(k)
                self._blit(tex, left - tex.width - dp(6), y - tex.height / 2)
            # axes
            Color(0.8, 0.8, 0.8, 1)
            Line(points=[left, topy, left, bottom, right, bottom], width=dp(1.2))

            def xpos(i):
                return left + (right - left) * ((i + 0.5) / n)

            every = max(1, int(-(-dp(40) * n // max(right - left, 1))))  # labels >= 40 dp apart
            for i in range(n):
                if i % every:
                    continue
                x = xpos(i)
                Color(0.8, 0.8, 0.8, 1)
                Line(points=[x, bottom, x, bottom - dp(4)], width=1)
                tex = self._text(f"R{i + 1}")
                self._blit(tex, x - tex.width / 2, bottom - dp(6) - tex.height)
            # one line per player; the earlier ones drawn wider so equal scores stay visible
            widths = [dp(3.5), dp(1.8), dp(1.2), dp(1)]
            r = dp(4)
            for j, s in enumerate(self.series):
                pts = []
                for i, v in enumerate(s["values"]):
                    pts += [xpos(i), bottom + (topy - bottom) * v / ymax]
                # halo: dark colours (black) on the dark chart; opaque, because a wide Line with
                # alpha < 1 draws through the stencil and so undoes the ScrollView's clipping
                Color(0.43, 0.44, 0.45, 1)
                Line(points=pts, width=widths[min(j, 3)] + dp(1))
                Color(*s["rgba"])
                self.lines[s["seat"]] = Line(points=pts, width=widths[min(j, 3)])
                for i in range(0, len(pts), 2):
                    Ellipse(pos=(pts[i] - r, pts[i + 1] - r), size=(2 * r, 2 * r))
            # legend
            x = left + dp(4)
            ly = y0 + h - legend_h
            for s in self.series:
                Color(*s["rgba"])
                Line(points=[x, ly + legend_h / 2, x + dp(24), ly + legend_h / 2], width=dp(3))
                tex = self._text(f"{s['name']} ({s['values'][-1] if s['values'] else 0})", bold=True)
                self._blit(tex, x + dp(30), ly + (legend_h - tex.height) / 2)
                x += dp(30) + tex.width + dp(24)


class GameEndScreen(Screen):
    headline = StringProperty("")
    reasons_text = StringProperty("")
    tiebreak_text = StringProperty("")
    export_text = StringProperty("")
    export_failed = BooleanProperty(False)
    wide = BooleanProperty(True)
    total_labels = None  # seat -> the Label showing that player's total (for tests)

    def on_size(self, *a):
        self.wide = self.width >= dp(760)

    def on_pre_enter(self, *a):
        self.fill(App.get_running_app().ctrl)

    def fill(self, ctrl):
        table = self.ids.table
        table.clear_widgets()
        self.total_labels = {}
        chart = self.ids.chart
        if ctrl is None or not ctrl.game.is_over(ctrl.state):
            self.headline, self.reasons_text, self.tiebreak_text = "No finished game", "", ""
            chart.series = []
            return
        g, st, v, setup = ctrl.game, ctrl.state, ctrl.view, ctrl.setup
        res = v.result(g, st)
        self.headline = "Game over - " + v.headline(g, st, setup)
        reasons = v.end_reasons(g, st, setup)
        self.reasons_text = ("Why it ended: " + " ".join(reasons)) if reasons else ""
        self.tiebreak_text = v.tiebreak(g, st, setup) or "Decided by the totals."
        seats = ctrl.seats()
        sc = v.score(g, st)

        def cell(text, bold=False, colour=(1, 1, 1, 1), halign="center"):
            lb = TableCell(text=str(text), bold=bold, color=colour, halign=halign)
            table.add_widget(lb)
            return lb

        table.cols = 1 + len(seats)
        cell("", halign="left")
        for s in seats:
            cell(ctrl.name(s), bold=True, colour=rgba(ctrl.colour(s)))
        items = list(sc[seats[0]]["items"]) if sc.get(seats[0]) else []
        for item in items:
            cell(nice(item), halign="left")
            for s in seats:
                cell(sc[s]["items"].get(item, 0))
        cell("Total", bold=True, halign="left")
        for s in seats:
            self.total_labels[s] = cell(sc.get(s, {}).get("total", "-"), bold=True,
                                        colour=(1, 0.9, 0.4, 1) if res.get("winner") == s else (1, 1, 1, 1))
        rows = getattr(v, "tiebreak_rows", None)
        for title, values in (rows(g, st) if rows else []):
            cell(title, halign="left")
            for s in seats:
                cell(values.get(s, "-"))
        series = v.score_series(g, setup, ctrl.session.history)
        chart.series = [{"seat": s, "name": ctrl.name(s), "rgba": list(rgba(ctrl.colour(s))),
                         "values": series.get(s, [])} for s in seats]


    def export(self):
        """Save the game (JSON) and its BG Stats play in the documents folder, and say where."""
        from kivy.utils import escape_markup

        from companion.store import paths
        app = App.get_running_app()
        try:
            path = Path(app.ctrl.export_to())
        except (OSError, AttributeError) as exc:
            why = getattr(exc, "strerror", None) or str(exc)
            where = getattr(exc, "filename", None)
            where = f" in {paths.shown_folder(Path(where).parent)}" if where else ""
            self.export_failed = True
            self.export_text = escape_markup(f"Could not save the files{where}: {why}. Nothing of the game "
                                             "is lost; try again once the folder can be written.")
            return
        folder = paths.shown_folder(path.parent)
        bgstats = path.name[:-len(".json")] + ".bgstats.json"
        self.export_failed = False
        self.export_text = (f"Saved in [b]{escape_markup(folder)}[/b]:\n"
                            f"{escape_markup(bgstats)}: this play in BG Stats' import format\n"
                            f"{escape_markup(path.name)}: the whole game, move by move")
        if self.can_open_bg_stats:
            self.export_text += "\nOr tap Open in BG Stats to import the play there now."

    #: a phone or tablet can hand the play to BG Stats through its import link
    can_open_bg_stats = BooleanProperty(False)

    def on_kv_post(self, *a):
        from kivy.utils import platform
        self.can_open_bg_stats = platform in ("android", "ios")
        button = self.ids.get("open_bg_stats")
        if button is not None and not self.can_open_bg_stats and button.parent is not None:
            button.parent.remove_widget(button)  # a desktop has no BG Stats to hand the play to

    def open_bg_stats(self):
        """Hand the play to BG Stats (its bgstats:// import link); say so if nothing took it."""
        import webbrowser
        app = App.get_running_app()
        try:
            ok = webbrowser.open(app.ctrl.bg_stats_link())
        except Exception:  # noqa: BLE001 - no handler: the saved file is still there
            ok = False
        if not ok:
            self.export_failed = True
            self.export_text = "BG Stats did not open: is it installed? The saved file can be imported later."


class TableCell(Label):
    pass
