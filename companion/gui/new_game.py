"""New game screen: pick the game (name, players, play time, what it is), then its own setup
form: player count, names and colours, the game's options, its extra setup widget (CivMint's
map cards) and whether the first roll is drawn by the virtual dice. Layout in new_game.kv.

Everything comes from the registry (`companion.games.modules()`); no game is named here."""
from __future__ import annotations

from kivy.app import App
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, DictProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.spinner import Spinner
from kivy.uix.textinput import TextInput
from kivy.uix.togglebutton import ToggleButton

from companion import games

from companion.kit import COLOURS
from .step_panels import ensure_layouts, load


def _text_width(text: str, font_size: str) -> float:
    """Pixels that one line of text needs at that size (Kivy's own text renderer)."""
    from kivy.core.text import Label as CoreLabel

    if not text:
        return 0
    lbl = CoreLabel(text=text, font_size=sp(float(font_size.rstrip("sp"))))
    lbl.refresh()
    return lbl.texture.size[0]


class GameChoice(ToggleButton):
    game_id = StringProperty("")


class ColourChoice(ToggleButton):
    seat = StringProperty("p1")
    colour_name = StringProperty("blue")


class PlayerRow(BoxLayout):
    seat = StringProperty("p1")
    title = StringProperty("")
    screen = ObjectProperty(None, allownone=True)


class OptionRow(BoxLayout):
    key = StringProperty("")
    label = StringProperty("")
    help = StringProperty("")


class NewGameScreen(Screen):
    game_id = StringProperty("")
    game_line = StringProperty("")
    count = StringProperty("2")
    counts = ListProperty(["2"])
    chosen = DictProperty({})          # seat -> colour
    virtual_first = BooleanProperty(True)
    first_roll = StringProperty("")    # the roll the game starts with ("" when it starts with a decision)
    first_draw = BooleanProperty(False)  # ... and it is a draw (a card turned up), not dice
    message = StringProperty("")
    can_seat_app = BooleanProperty(False)  # more than one seat: the app may play some of them

    APP_LEVELS = {"Played by the app (easy)": "easy", "Played by the app (normal)": "normal",
                  "Played by the app (hard)": "hard"}

    def on_kv_post(self, base):
        self.setup_panel = None
        self._option_widgets = {}
        self._names = {}
        self._listed = None
        self.refresh_games()

    def refresh_games(self):
        """The game list (a game registered after start-up shows up the next time)."""
        modules = games.modules()
        ids = [m.id for m in modules]
        if ids == self._listed:
            return
        self._listed = ids
        box = self.ids.game_list
        box.clear_widgets()
        for m in modules:
            lo, hi = m.players
            players = f"{lo} players" if lo == hi else f"{lo}-{hi} players"
            box.add_widget(GameChoice(game_id=m.id, group="game", allow_no_selection=False,
                                      text=f"[b]{m.title}[/b]\n{players} - {m.play_time}", markup=True,
                                      on_release=lambda b: self.choose_game(b.game_id)))
        if ids and self.game_id not in ids:
            self.choose_game(ids[0])

    def on_pre_enter(self, *a):
        self.refresh_games()
        if self.game_id:
            self._build_options(self.module)  # the defaults follow the settings
        self.message = ""

    @property
    def module(self):
        return games.get_module(self.game_id)

    # ------------------------------------------------------------------ the game
    def choose_game(self, game_id):
        m = games.get_module(game_id)
        self.game_id = game_id
        for b in self.ids.game_list.children:
            b.state = "down" if b.game_id == game_id else "normal"
        lo, hi = m.players
        self.game_line = m.blurb
        self.counts = [str(n) for n in range(lo, hi + 1)]
        self.count = str(min(max(lo, int(self.count)), hi)) if self.count.isdigit() else str(lo)
        self._build_players()
        self._build_options(m)
        self._build_setup_panel(m)
        self.first_roll, self.first_draw = self._first_roll(m)
        self.message = ""

    @staticmethod
    def _first_roll(m) -> tuple:
        """The roll the game starts with ('' when it starts with a decision), and whether it is a
        draw rather than dice."""
        try:
            req = m.roll_awaited(m.game.initial_state(m.sample_setup()))
        except Exception:  # noqa: BLE001 - only a hint for the form
            return "", False
        return (req["roll"], req.get("kind") == "draw") if req else ("", False)

    def set_count(self, text):
        if text in self.counts and text != self.count:
            self.count = text
            self._build_players()

    def _build_players(self):
        m = self.module
        box = self.ids.players
        old = {seat: ti.text for seat, ti in self._names.items()}
        box.clear_widgets()
        self._names = {}
        seats = m.seats(int(self.count))
        self.can_seat_app = len(seats) > 1
        self._played_by = {}
        chosen = {}
        for i, seat in enumerate(seats):
            row = PlayerRow(seat=seat, title=f"Player {i + 1}", screen=self)
            ti = row.ids.name
            ti.text = old.get(seat, f"Player {i + 1}")
            self._names[seat] = ti
            self._played_by[seat] = row.ids.played_by
            free = [c for c in COLOURS if c not in chosen.values()]
            chosen[seat] = self.chosen.get(seat) if self.chosen.get(seat) in free else free[0]
            for c in COLOURS:
                row.ids.colours.add_widget(ColourChoice(seat=seat, colour_name=c, group=f"{seat}c"))
            box.add_widget(row)
        self.chosen = chosen
        self._show_colours()

    def _build_options(self, m):
        box = self.ids.options
        box.clear_widgets()
        self._option_widgets = {}
        settings = App.get_running_app().settings
        for o in m.options:
            row = OptionRow(key=o.key, label=o.label, help=o.help)
            default = o.default
            if o.key == "max_rounds" and "max_rounds" in settings:  # the app's setting for new games
                default = settings["max_rounds"] or None
            if o.kind == "bool":
                w = ToggleButton(text="Yes" if default else "No", state="down" if default else "normal",
                                 size_hint_x=None, width=dp(96))
                w.bind(state=lambda b, st: setattr(b, "text", "Yes" if st == "down" else "No"))
            elif o.kind == "choice":
                w = Spinner(values=[str(c[1]) for c in o.choices], size_hint_x=None, width=dp(200),
                            text=next((str(c[1]) for c in o.choices if c[0] == default), str(o.choices[0][1])))
            else:
                w = TextInput(text="" if default is None else str(default), multiline=False,
                              input_filter="int", hint_text=o.none_label or "", size_hint_x=None,
                              width=max(dp(120), _text_width(o.none_label or "", "18sp") + dp(24)),
                              font_size="18sp")  # its hint ("No round limit") whole
            row.ids.holder.add_widget(w)
            self._option_widgets[o.key] = w
            box.add_widget(row)

    def _build_setup_panel(self, m):
        holder = self.ids.setup_holder
        holder.clear_widgets()
        self.setup_panel = None
        if m.setup_panel:
            try:
                ensure_layouts(m)
                self.setup_panel = load(m.setup_panel)()
                holder.add_widget(self.setup_panel)
            except Exception as exc:  # noqa: BLE001 - a broken widget must not hide the form
                holder.add_widget(Label(text=f"The game's setup view failed to load ({exc}).",
                                        size_hint_y=None, height=dp(40)))

    # ------------------------------------------------------------------ players
    def pick(self, seat, colour):
        new = dict(self.chosen)
        new[seat] = colour
        self.chosen = new
        self._show_colours()

    def _show_colours(self):
        for row in self.ids.players.children:
            for b in row.ids.colours.children:
                b.state = "down" if self.chosen.get(b.seat) == b.colour_name else "normal"

    def name_input(self, seat):
        return self._names[seat]

    # ------------------------------------------------------------------ start
    def option_values(self) -> dict:
        out = {}
        for o in self.module.options:
            w = self._option_widgets[o.key]
            if o.kind == "bool":
                out[o.key] = w.state == "down"
            elif o.kind == "choice":
                out[o.key] = next((c[0] for c in o.choices if str(c[1]) == w.text), None)
            else:
                out[o.key] = w.text
        return out

    def start(self):
        """Start the game; what the form got wrong (colours, options, the setup widget's choice)
        comes back in plain words from the game module's own checks."""
        seats = self.module.seats(int(self.count))
        panel = self.setup_panel
        why = panel.problem() if panel is not None else None
        if why:
            self.message = f"Cannot start the game: {why}"
            return
        options = self.option_values()
        if panel is not None:
            options.update(panel.values())
        bots = {s: self.APP_LEVELS[w.text] for s, w in getattr(self, "_played_by", {}).items()
                if s in seats and w.text in self.APP_LEVELS}
        if bots:
            options["app_players"] = bots
        App.get_running_app().start_new_game(self.game_id, [self._names[s].text for s in seats],
                                             [self.chosen.get(s) for s in seats], self.virtual_first, **options)
