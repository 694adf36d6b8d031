"""Kivy tablet companion: `tabletop-companion` (console entry point) starts it.

    tabletop-companion [--size 1280x800] [--data DIR] [--board none|auto|virtual|PORT] [--fullscreen]

Saved games are journal files in `<data>/games` (default `~/.local/share/tabletop-companion`,
or `$TABLETOP_COMPANION_DATA`). If the app is killed mid-game, the next start reopens that game
exactly where it was (`<data>/current` names it until the player goes back Home).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

GUI_DIR = Path(__file__).with_name("gui")
KV_FILE = GUI_DIR / "companion.kv"  # shared styles first, the kit, every other gui/*.kv, the games'
KIT_KV = Path(__file__).with_name("kit.kv")
DEFAULT_SIZE = (1280, 800)
MIN_SIZE = (320, 480)  # the window's least: a phone in portrait (about 412x915 dp) fits
# screen name -> "module:Class" (each screen's layout is in its own gui/*.kv)
SCREENS = (  # (name, module:class, built at start); the others are built when first shown
    ("home", "companion.gui.home:HomeScreen"),
    ("new_game", "companion.gui.new_game:NewGameScreen"),
    ("game", "companion.gui.screens:GameScreen"),
    ("board", "companion.gui.board_screen:BoardScreen"),
    ("game_end", "companion.gui.summary:GameEndScreen"),
    ("settings", "companion.gui.settings_screen:SettingsScreen"),
)
LAZY_SCREENS = ("new_game", "game", "board", "game_end", "settings")


def _parse(argv):
    ap = argparse.ArgumentParser(prog="tabletop-companion", description=__doc__.split("\n")[0])
    ap.add_argument("--size", default=None, help="window size WxH (default: the whole screen, not fullscreen)")
    ap.add_argument("--data", default=None, help="data directory (saved games)")
    ap.add_argument("--board", default=None, help="none, auto (default: a USB board, else the virtual board), virtual, or a serial port")
    ap.add_argument("--fullscreen", action="store_true")
    ap.add_argument("--exit-after", type=float, default=None, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def screen_bounds():
    """(x, y, width, height) of the first screen's usable area (less panels and docks), asked of
    SDL before any window exists; None when it cannot be told. A window made to this size at this
    place is on the screen whole, with or without a window manager to maximize it."""
    import ctypes
    import ctypes.util
    import glob

    try:
        import kivy
    except ImportError:
        return None
    libs = glob.glob(os.path.join(os.path.dirname(os.path.dirname(kivy.__file__)), "Kivy.libs", "libSDL2-*.so*"))
    name = libs[0] if libs else ctypes.util.find_library("SDL2")
    if not name:
        return None

    class Rect(ctypes.Structure):
        _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("w", ctypes.c_int), ("h", ctypes.c_int)]
    try:
        sdl = ctypes.CDLL(name)
        video = 0x20  # SDL_INIT_VIDEO
        if sdl.SDL_InitSubSystem(video) != 0:
            return None
        try:
            r = Rect()
            if sdl.SDL_GetDisplayUsableBounds(0, ctypes.byref(r)) != 0 or r.w <= 0 or r.h <= 0:
                return None
            return r.x, r.y, r.w, r.h
        finally:
            sdl.SDL_QuitSubSystem(video)
    except (OSError, AttributeError):
        return None


def configure_kivy(size=DEFAULT_SIZE, fullscreen=False, maximized=False, at=None):
    """Must run before kivy.core.window is imported: the window is made once, at its size (or
    maximized, filling the screen it opens on) - never resized after its first frame."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    if sys.platform.startswith("linux"):
        os.environ.setdefault("KIVY_CLIPBOARD", "sdl2")  # no xclip/xsel needed
    from kivy.config import Config

    Config.set("graphics", "width", str(size[0]))
    Config.set("graphics", "height", str(size[1]))
    Config.set("graphics", "minimum_width", str(MIN_SIZE[0]))
    Config.set("graphics", "minimum_height", str(MIN_SIZE[1]))
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    # made maximized (SDL_WINDOW_MAXIMIZED), not maximized after its first frame
    Config.set("graphics", "window_state", "maximized" if maximized and not fullscreen else "visible")
    if at is not None:  # the window's top left corner on the screen
        Config.set("graphics", "position", "custom")
        Config.set("graphics", "left", str(at[0]))
        Config.set("graphics", "top", str(at[1]))
    Config.set("input", "mouse", "mouse,disable_multitouch")
    Config.set("kivy", "exit_on_escape", "0")


def _make_app_class():
    from kivy.app import App
    from kivy.clock import Clock
    from kivy.lang import Builder
    from kivy.uix.screenmanager import NoTransition, ScreenManager

    from companion.store import paths
    from companion.store import settings as settings_mod
    from companion.link.board_port import ENV_VAR as BOARD_ENV
    from companion.link.board_port import ManualBoard, open_board

    # what only other screens need is imported, and their layouts read, when first wanted:
    # the start shows Home, and Home needs neither
    layouts = []

    def _load_layouts():
        """The kit's layouts, then every gui/*.kv but the shared one (read once, before the
        first screen that is not Home is built). Home's own layout (companion.kv) uses neither:
        a Home that comes to use the kit must read kit.kv in build()."""
        if layouts:
            return
        layouts.append(True)
        Builder.load_file(str(KIT_KV))
        for kv in sorted(GUI_DIR.glob("*.kv")):
            if kv != KV_FILE:
                Builder.load_file(str(kv))

    class LazyScreens(ScreenManager):
        """Every screen but home is built the first time it is asked for, which keeps the
        home screen's start short (a screen not built yet misses no board event: it reads
        the board when shown)."""

        def __init__(self, **kw):
            super().__init__(**kw)
            self.later = {}

        def build(self, name, ref):
            if name != "home":
                _load_layouts()
            mod, _, cls = ref.partition(":")
            self.add_widget(getattr(importlib.import_module(mod), cls)(name=name))

        def get_screen(self, name):
            ref = self.later.pop(name, None)
            if ref is not None:
                self.build(name, ref)
            return super().get_screen(name)

        def has_screen(self, name):
            return name in self.later or super().has_screen(name)

    class CompanionApp(App):
        title = "Tabletop companion"
        load_layouts = staticmethod(_load_layouts)  # for tests that make a screen's widgets alone

        def __init__(self, board_choice=None, **kw):
            super().__init__(**kw)
            self.board_choice = board_choice
            self.board = ManualBoard()
            self.ctrl = None
            self.settings, self.settings_problems = settings_mod.load()
            self.games_dir = str(paths.games_dir())
            self._prev_screen = "home"
            self._poll_ev = None

        # ---------------------------------------------------------------- lifecycle
        def build(self):
            Builder.load_file(str(KV_FILE))  # shared styles and Home; the rest in load_layouts
            sm = LazyScreens(transition=NoTransition())
            for name, ref in SCREENS:
                if name in LAZY_SCREENS:
                    sm.later[name] = ref
                else:
                    sm.build(name, ref)
            self._sm = sm
            resumed = self._auto_resume()
            if not resumed:
                sm.current = "home"
            Clock.schedule_once(lambda dt: self._open_board(), 0.5)
            return sm

        def _open_board(self):
            # command line / environment first, then the saved setting
            self.board = open_board(self.board_choice or os.environ.get(BOARD_ENV) or self.settings["board"])
            try:
                self.board.start()
            except Exception as exc:
                self.board = ManualBoard(f"Board could not start ({exc}).")
            if self._poll_ev is None:
                self._poll_ev = Clock.schedule_interval(lambda dt: self.poll_board(), 0)  # every frame
            self._notify_board([])

        def switch_board(self, choice):
            """Replace the board (port picker): none | auto | virtual | a port name."""
            old, self.board = self.board, ManualBoard()
            old.stop()
            self.board_choice = choice
            self._open_board()

        def poll_board(self):
            """UI thread: drain the board's queue and hand the events to the screens."""
            try:
                events = self.board.poll()
            except Exception as exc:  # a broken board must not stop the game
                events = [{"type": "ERROR", "detail": f"board poll failed: {exc}"}]
            if events:
                self._notify_board(events)

        def _notify_board(self, events):
            for scr in self._sm.screens:
                fn = getattr(scr, "on_board_events", None)
                if fn is not None:
                    fn(self.board, events)

        def on_stop(self):
            self.board.stop()
            if self.ctrl is not None:
                self.ctrl.close()

        @staticmethod
        def colour_rgba(name):
            from companion import kit

            return kit.rgba(name)

        @staticmethod
        def refused_games() -> list:
            """Game folders this build could not register, in plain words (shown on Home)."""
            from companion import games

            return [why for _, why in sorted(games.refused().items())]

        # ---------------------------------------------------------------- navigation
        def go(self, name):
            if self._sm.current != name:
                self._prev_screen = self._sm.current
            self._sm.current = name

        def go_back(self):
            self.go(self._prev_screen if self._prev_screen != "board" else "home")

        def _current_file(self) -> Path:
            return paths.data_dir() / "current"

        def _auto_resume(self) -> bool:
            f = self._current_file()
            try:
                path = f.read_text(encoding="utf-8").strip()
            except OSError:
                return False
            if path and os.path.exists(path):
                return self.resume_game(path)
            return False

        def _set_game(self, ctrl):
            if self.ctrl is not None:
                self.ctrl.close()
            self.ctrl = ctrl
            f = self._current_file()
            tmp = f.with_suffix(".tmp")
            tmp.write_text(ctrl.path, encoding="utf-8")
            os.replace(tmp, f)
            self.board.empty_wells()  # no die of an earlier game stays in the virtual wells
            self._sm.get_screen("game").set_controller(ctrl)
            self._game_changed()
            self.go("game")

        def _game_changed(self):
            """Screens that show something of the open game start clean from it (or from none)."""
            if "board" not in self._sm.later:  # built screens only: the rest start clean anyway
                self._sm.get_screen("board").game_changed()

        def start_new_game(self, game, names, colours, virtual_first=True, **options):
            """A new game of `game` (a registered id) from the new-game form's values."""
            from companion import controller as C

            scr = self._sm.get_screen("new_game")
            try:
                ctrl = C.GameController.new(self.games_dir, names, colours, game=game, think_aside=True,
                                            **options)
            except Exception as exc:
                scr.message = f"Cannot start the game: {exc}"
                return None
            if virtual_first and ctrl.awaiting_dice():
                ctrl.roll_virtual()
            self._set_game(ctrl)
            return ctrl

        def resume_game(self, path) -> bool:
            from companion import controller as C

            home = self._sm.get_screen("home")
            try:
                ctrl = C.GameController.open(path, think_aside=True)
            except Exception as exc:
                home.message = f"Cannot resume {os.path.basename(path)}: {exc}"
                self._sm.current = "home"
                return False
            self._set_game(ctrl)
            return True

        def leave_game(self):
            if "game" not in self._sm.later:  # built: its guidance lights go out, it forgets the game
                self._sm.get_screen("game").clear_game()
            if self.ctrl is not None:
                self.ctrl.close()
                self.ctrl = None
            self._game_changed()
            try:
                self._current_file().unlink()
            except OSError:
                pass
            self.go("home")

    return CompanionApp


def create_app(board_choice=None):
    """The App instance (Kivy must already be configured; tests call configure_kivy first)."""
    return _make_app_class()(board_choice=board_choice)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["simulate"]:  # headless games between bots: no Kivy (companion/cli/simulate.py)
        from companion.cli.simulate import main as simulate

        return simulate(argv[1:])
    if argv[:1] == ["read-dice"]:  # dice read from image files: no Kivy (companion/cli/read_dice.py)
        from companion.cli.read_dice import main as read_dice

        return read_dice(argv[1:])
    args = _parse(argv)
    if args.data:
        os.environ["TABLETOP_COMPANION_DATA"] = args.data
    size, at = DEFAULT_SIZE, None
    if args.size:
        w, _, h = args.size.lower().partition("x")
        if not (w.isdigit() and h.isdigit() and int(w) >= MIN_SIZE[0] and int(h) >= MIN_SIZE[1]):
            sys.exit(f"tabletop-companion: --size wants WIDTHxHEIGHT of at least {MIN_SIZE[0]}x{MIN_SIZE[1]} "
                     f"(a phone in portrait: 412x915), not {args.size!r}")
        size = (int(w), int(h))
    elif not args.fullscreen:
        # no size asked for: fill the screen it opens on, whatever its size (a 7" 800x480 panel
        # or a laptop) - made so, not resized after. Made to the screen's usable size at its
        # corner, so that it is on the screen whole even where no window manager maximizes it
        bounds = screen_bounds()
        if bounds is not None:
            at, size = bounds[:2], (max(MIN_SIZE[0], bounds[2]), max(MIN_SIZE[1], bounds[3]))
    configure_kivy(size, args.fullscreen, maximized=not args.size, at=at)
    app = create_app(args.board)
    from kivy.clock import Clock

    if args.exit_after is not None:
        Clock.schedule_once(lambda dt: app.stop(), args.exit_after)
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
