"""The game-module contract (docs/games.md), headless: the shell names no game, the registry refuses
a game that breaks the contract and says what is missing, saves of two games live side by side,
and a save this build cannot open is listed with its reason."""
import ast
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from toy_module import TOY_ID, register_toy, toy_module  # noqa: E402

from companion import games  # noqa: E402
from companion.store import journal as J  # noqa: E402
from companion.games.contract import ContractError, GameModule, GameView, Option, check_module  # noqa: E402
from companion import controller as C  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHELL = ["companion/app.py", "companion/kit.py", "companion/words.py", "companion/table/sync.py", "companion/store/journal.py", "companion/table/sensing.py",
         "companion/link/board_link.py", "companion/cli/board_cli.py", "companion/link/virtual_board.py",
         "companion/link/linksim.py", "companion/link/android_serial.py"]
SHELL += [f"companion/gui/{f}" for f in sorted(os.listdir(os.path.join(ROOT, "companion/gui"))) if f.endswith(".py")]
SHELL += [f"companion/engine/{f}" for f in sorted(os.listdir(os.path.join(ROOT, "companion/engine"))) if f.endswith(".py")]
# the bots keep only the search; every game's hooks live in its own folder (companion/games/hooks.py)
BOTS = [f"companion/bots/{f}" for f in sorted(os.listdir(os.path.join(ROOT, "companion/bots"))) if f.endswith(".py")]
SHELL += BOTS + ["companion/games/hooks.py", "companion/games/contract.py"]
SHELL_KV = ["companion/kit.kv"] + [f"companion/gui/{f}" for f in sorted(os.listdir(os.path.join(ROOT, "companion/gui"))) if f.endswith(".kv")]
GAME_DIRS = sorted(d for d in os.listdir(os.path.join(ROOT, "companion/games"))
                   if os.path.isdir(os.path.join(ROOT, "companion/games", d)) and not d.startswith("_"))
ALLOWED = {"companion.games", "companion.games.contract", "companion.games.hooks"}


def _imports(path):
    tree = ast.parse(open(os.path.join(ROOT, path), encoding="utf-8").read(), path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
            if node.module == "companion.games":  # `from companion.games import civmint`
                out += [f"companion.games.{a.name}" for a in node.names if a.name in GAME_DIRS]
    return out


@pytest.mark.parametrize("path", SHELL)
def test_the_shell_imports_no_game_by_name(path):
    bad = [m for m in _imports(path) if m.startswith("companion.games") and m not in ALLOWED]
    assert not bad, f"{path} imports a game module: {bad}"
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    for game in GAME_DIRS:
        assert f"companion.games.{game}" not in text, f"{path} names the game package {game!r}"


@pytest.mark.parametrize("path", BOTS + ["companion/games/hooks.py"])
def test_the_bots_and_the_base_hooks_name_no_game(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read().lower()
    for game in GAME_DIRS:
        m = games.get_module(game)
        for name in (game, m.title.lower(), m.game.__class__.__name__.lower()):
            assert name not in text, f"{path} names the game {name!r}"


def test_a_games_hooks_live_in_its_own_folder():
    from companion.games.hooks import GameHooks

    for game in GAME_DIRS:
        m = games.get_module(game)
        assert m.hooks is GameHooks or m.hooks.__module__ == f"companion.games.{game}.hooks", m.hooks
    assert toy_module().hooks is GameHooks  # a game with nothing of its own gets the defaults


@pytest.mark.parametrize("path", SHELL_KV)
def test_the_shell_layouts_name_no_game(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read().lower()
    for game in GAME_DIRS:
        assert game not in text, f"{path} names the game {game!r}"


def test_game_panels_import_only_the_shell_kit():
    for game in GAME_DIRS:
        base = os.path.join(ROOT, "companion/games", game)
        for dirpath, _, files in os.walk(base):
            for f in files:
                if f.endswith(".py"):
                    rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
                    gui = [m for m in _imports(rel) if m.startswith("companion.gui") or m == "companion.app"]
                    assert not gui, f"{rel} imports shell modules {gui} (only companion.kit is theirs)"


def test_every_game_folder_is_registered_or_refused_with_a_reason():
    ids = {m.id for m in games.modules()}
    assert "civmint" in ids
    for d in GAME_DIRS:
        assert d in ids or d in games.refused(), d
    assert games.modules()[0].id == "civmint"  # the flagship first
    assert check_module(games.get_module("civmint")) == []


def _good(**over):
    m = toy_module()
    for k, v in over.items():
        setattr(m, k, v)
    return m


@pytest.mark.parametrize("change,needle", [
    ({"title": ""}, "title is missing"),
    ({"players": (3, 2)}, "players must be"),
    ({"data_version": 0}, "data_version must be a positive integer"),
    ({"game": object()}, "game must be an engine.Game"),
    ({"view": object()}, "view must be a companion.games.contract.GameView"),
    ({"make_setup": None}, "make_setup(players, options) is missing"),
    ({"panels": {"bank": "no_colon_here"}}, "must be named as 'module:Class'"),
    ({"tab_for_step": {"bank": "map"}}, "opens unknown tab 'map'"),
    ({"kv_files": ("/nowhere/x.kv",)}, "layout file /nowhere/x.kv does not exist"),
    ({"options": ("max_rounds",)}, "is not an Option"),
    ({"hooks": object}, "hooks must be a class deriving from companion.games.hooks.GameHooks"),
    ({"hooks": None}, "hooks must be a class deriving from companion.games.hooks.GameHooks"),
])
def test_a_module_that_breaks_the_contract_is_refused_naming_what_is_missing(change, needle):
    with pytest.raises(ContractError) as ei:
        games.register(_good(**change))
    assert needle in str(ei.value) and "'toy' is refused" in str(ei.value)
    assert TOY_ID not in games.available()


def test_a_game_missing_rules_methods_is_refused():
    from companion.engine import Game

    class NoRules(Game):
        name = "toy"

    with pytest.raises(ContractError) as ei:
        games.register(_good(game=NoRules()))
    for meth in ("initial_state", "actor", "pseudo_legal_actions", "chance_action", "is_over"):
        assert f"does not implement {meth}()" in str(ei.value)


def test_a_broken_game_folder_is_refused_and_hides_no_other(tmp_path, monkeypatch):
    pkg = tmp_path / "brokengame"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise RuntimeError('data file missing')\n")
    nomod = tmp_path / "nomodule"
    nomod.mkdir()
    (nomod / "__init__.py").write_text("X = 1\n")
    monkeypatch.setattr(games, "__path__", list(games.__path__) + [str(tmp_path)])
    monkeypatch.setattr(games, "_packages", None)  # look at the folders again
    monkeypatch.setattr(games, "_tried", set())
    monkeypatch.setattr(games, "_refused", {})
    try:
        refused = games.refused()
        assert "fails to load (RuntimeError: data file missing)" in refused["brokengame"]
        assert "exports no MODULE" in refused["nomodule"]
        assert "civmint" in games.available()
        with pytest.raises(KeyError) as ei:
            games.get_module("brokengame")
        assert "data file missing" in str(ei.value)
        with pytest.raises(KeyError):
            games.get_module("nosuchgame")
    finally:
        sys.modules.pop("companion.games.brokengame", None)
        sys.modules.pop("companion.games.nomodule", None)


def test_options_parse_in_plain_words():
    rounds = Option("max_rounds", "Round limit", "int", default=12, low=1, high=99, none_label="No limit")
    assert rounds.parse("7") == 7 and rounds.parse("") is None and rounds.parse(None) is None
    for bad, why in (("x", "not a whole number"), ("0", "from 1 to 99"), (True, "from 1 to 99")):
        with pytest.raises(ValueError) as ei:
            rounds.parse(bad)
        assert why in str(ei.value)
    m = games.get_module("civmint")
    with pytest.raises(ValueError, match="for 2 players, not 3"):
        m.setup_from_form([{"name": "a", "colour": "red"}, {"name": "b", "colour": "blue"},
                           {"name": "c", "colour": "green"}])
    with pytest.raises(ValueError, match="different colour"):
        m.setup_from_form([{"name": "a", "colour": "red"}, {"name": "b", "colour": "red"}])
    setup = m.setup_from_form([{"name": " Ada ", "colour": "red"}, {"name": "", "colour": "blue"}],
                              {"max_rounds": None})
    assert setup["players"]["p1"] == {"name": "Ada", "colour": "red"}
    assert setup["players"]["p2"]["name"] == "Player 2" and setup["max_rounds"] is None


@pytest.fixture
def toy():
    register_toy()
    yield games.get_module(TOY_ID)
    games.unregister(TOY_ID)


def _play_toy(ctrl):
    n = 0
    while not ctrl.game.is_over(ctrl.state):
        if ctrl.awaiting_dice():
            req = ctrl.dice_request()
            assert req["roll"] == "Turn roll" and req["count"] == 1
            ctrl.dispatch(req["spec"].action_from([5]), "ui")
        else:
            ctrl.dispatch({"type": "bank", "player": ctrl.game.actor(ctrl.state)})
        n += 1
        assert n < 50
    return n


def test_two_games_saved_side_by_side_and_resumed(tmp_path, toy):
    civ = C.GameController.new(tmp_path, ("Ada", "Bo"), ("red", "yellow"), seed=7)
    civ.roll_virtual()
    civ_path, civ_state = civ.path, civ.state.to_dict()
    civ.close()
    race = C.GameController.new(tmp_path, ("Cy", "Di"), ("blue", "green"), seed=1, game=TOY_ID)
    assert race.module.id == TOY_ID and os.path.basename(race.path).startswith("toy-")
    _play_toy(race)
    race_path, race_scores = race.path, dict(race.state.scores)
    race.close()
    listed = {it.summary.game: it for it in C.list_games(tmp_path)}
    assert set(listed) == {"civmint", TOY_ID}
    assert listed["civmint"].title == "CivMint" and listed[TOY_ID].title == "Race to Ten"
    assert not listed["civmint"].unavailable and not listed[TOY_ID].unavailable
    assert listed[TOY_ID].summary.data_version == 1
    again = C.GameController.open(civ_path)
    assert again.state.to_dict() == civ_state and again.module.id == "civmint"
    again.close()
    again = C.GameController.open(race_path)
    assert again.state.scores == race_scores and again.game.is_over(again.state)
    snap = again.snapshot()
    assert snap["players"]["p1"]["name"] == "Cy" and snap["over"] and snap["result"]["winner"] == "p1"
    again.close()


def test_saves_this_build_cannot_open_are_listed_with_a_reason(tmp_path, toy):
    ok = C.GameController.new(tmp_path, ("Ada", "Bo"), ("red", "yellow"), seed=7)
    ok_path = ok.path
    ok.close()
    newer = C.GameController.new(tmp_path, ("Cy", "Di"), ("blue", "green"), seed=1, game=TOY_ID)
    newer_path = newer.path
    newer.close()
    games.unregister(TOY_ID)
    register_toy(data_version=1)
    # a save of data version 3 of the toy game (made by a newer build), and of an unknown game
    J.Journal.create(tmp_path / "future.journal", TOY_ID, {"players": {}}, "9.9", data_version=3).close()
    J.Journal.create(tmp_path / "other.journal", "chess", {"players": {"p1": {"name": "X"}}}, "9.9").close()
    (tmp_path / "junk.journal").write_bytes(b"not a journal at all")
    items = C.list_games(tmp_path)
    by_name = {os.path.basename(it.path): it for it in items}
    assert "newer version of Race to Ten (game data 3, this app has 1)" in by_name["future.journal"].unavailable
    assert "game of 'chess', which this version of the app does not have" in by_name["other.journal"].unavailable
    assert isinstance(by_name["junk.journal"], J.BrokenJournal)
    assert not by_name[os.path.basename(newer_path)].unavailable
    assert not by_name[os.path.basename(ok_path)].unavailable
    for name in ("future.journal", "other.journal"):
        with pytest.raises(C.GameUnavailable):
            C.GameController.open(tmp_path / name)


def test_old_journals_without_a_data_version_read_as_version_1(tmp_path):
    meta = {"format": J.FORMAT_NAME, "schema_version": J.SCHEMA_VERSION, "game": "civmint",
            "setup": {"players": {}}, "created": "2026-01-01T00:00:00.000+00:00", "app_version": "0.0.9"}
    J._write_new_file(tmp_path / "old.journal", meta, [], {})
    with J.Journal.open(tmp_path / "old.journal") as j:
        assert j.meta["data_version"] == 1
    (summary,) = J.list_journals(tmp_path)
    assert summary.data_version == 1
    with pytest.raises(ValueError):
        J.Journal.create(tmp_path / "bad.journal", "civmint", {}, "1", data_version=0)


def test_the_generic_view_speaks_for_a_game_without_one(tmp_path, toy):
    c = C.GameController.new(tmp_path, ("Cy", "Di"), ("blue", "green"), seed=1, game=TOY_ID)
    assert isinstance(c.view, GameView) and type(c.view) is GameView
    req = c.dice_request()
    assert req == {"action": "roll", "roll": "Turn roll", "count": 1, "who": None, "spec": req["spec"], "kind": "dice"}
    assert "Turn roll, 1 die" in c.view.prompt(c.game, c.state, c.setup, req)
    c.dispatch({"type": "roll", "die": 4})
    assert c.view.prompt(c.game, c.state, c.setup, None) == "Cy: choose an action for the Bank step."
    labels = sorted(c.action_label(a) for a in c.legal_actions())
    assert labels == ["Cy: Bank", "Cy: Pass"]
    assert "to act: [b]Cy[/b]" in c.view.header(c.game, c.state, c.setup)
    _play_toy(c)
    winner = "Cy" if c.state.scores["p1"] >= 10 else "Di"
    totals = f"({c.state.scores['p1']} : {c.state.scores['p2']})"
    assert c.view.result_text(c.game, c.state, c.setup) == f"Game over - {winner} wins {totals}."
    series = c.view.score_series(c.game, c.setup, c.session.history)
    assert series["p1"][-1] == c.state.scores["p1"]
    c.close()


def test_a_module_object_of_the_wrong_type_is_refused():
    assert check_module(object())[0].startswith("MODULE must be")
    assert isinstance(toy_module(), GameModule)


def test_no_two_layouts_define_the_same_widget_rule():
    """Kivy's kv rules are global by class name: a game's <TradePanel> would restyle another
    game's TradePanel. Every rule name in the shell's and the games' .kv files is defined once."""
    import glob
    import re

    from companion import games as registry

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = sorted(glob.glob(os.path.join(root, "companion", "*.kv")) + glob.glob(os.path.join(root, "companion", "gui", "*.kv")))
    for m in registry.modules():
        files += [f for f in m.kv_files if f not in files]
    seen = {}
    clashes = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            for name in re.findall(r"^<([A-Za-z_][\w,@ +-]*)>:", f.read(), re.M):
                for cls in name.split(","):
                    cls = cls.split("@")[0].strip()
                    if cls in seen and seen[cls] != path:
                        clashes.append(f"<{cls}> in {seen[cls]} and {path}")
                    seen.setdefault(cls, path)
    assert not clashes, clashes


def test_no_two_packages_define_a_widget_class_of_the_same_name():
    """kv rules match widgets by class name, across packages: CivMint's TradePanel took another
    game's <TradePanel> layout once. Widget classes of the shell, the kit and every game's ui/
    have names of their own."""
    import glob
    import re

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    comp = os.path.join(root, "companion")
    files = glob.glob(os.path.join(comp, "gui", "*.py")) + [os.path.join(comp, "kit.py")] + glob.glob(
        os.path.join(comp, "games", "*", "ui", "*.py"))
    where = {}
    for path in sorted(files):
        with open(path, encoding="utf-8") as f:
            for cls in re.findall(r"^class (\w+)\(", f.read(), re.M):
                where.setdefault(cls, set()).add(os.path.relpath(path, comp))
    clashes = {c: sorted(p) for c, p in where.items() if len(p) > 1}
    assert not clashes, clashes


def test_a_saved_game_loads_only_its_own_game(monkeypatch):
    """get_module imports one game folder; the menu (modules()) and refused() import them all."""
    monkeypatch.setattr(games, "_packages", None)
    monkeypatch.setattr(games, "_tried", set())
    monkeypatch.setattr(games, "_modules", {})
    monkeypatch.setattr(games, "_refused", {})
    assert games.get_module("civmint").id == "civmint"
    assert games._tried == {"civmint"}
    assert {m.id for m in games.modules()} >= {"civmint", "civ_quest", "mint_works"}
    assert games._tried == set(games._folders())


@pytest.mark.parametrize("game_id", ["civ_quest", "mint_works"])
def test_default_table_changes_name_each_counter_that_moved(game_id):
    """A game without its own table_changes still tells the table which tokens to move: every
    counter of its sensing whose value an action changed, named by player."""
    import random

    from companion.games import get_module

    m = get_module(game_id)
    setup = m.sample_setup()
    s = m.game.initial_state(setup)
    rng = random.Random(1)
    seen = 0
    for _ in range(300):
        if m.game.is_over(s):
            break
        if m.game.actor(s) == "system":
            a = m.game.chance_action(s, _Dice(rng))
        else:
            a = rng.choice(m.game.legal_actions(s))
        after = m.game.apply(s, a)
        items = m.view.table_changes(m.game, s, a.to_dict(), after, setup)
        moved = [c for c in m.sensing.counters(setup) if m.sensing.value(s, c.id) != m.sensing.value(after, c.id)]
        assert [it["counter"] for it in items] == [c.id for c in moved]
        for it, c in zip(items, moved):
            assert it["text"].startswith(f"{m.view.name(setup, c.seat)} - {c.name}: ")
            assert it["text"].endswith(": note it on the pad." if c.on_pad else ": move the token.")
        seen += len(items)
        s = after
    assert seen


class _Dice:
    def __init__(self, rng):
        self.rng = rng

    def roll(self, n=1):
        return [self.rng.randint(1, 6) for _ in range(n)]
