"""`tabletop-companion simulate` (companion/cli/simulate.py): seeded headless games, win rates
with confidence intervals, --json, clear errors, and no Kivy."""
import json
import os
import subprocess
import sys

import pytest

from companion.cli.simulate import main, simulate, wilson

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_wilson_interval():
    lo, hi = wilson(8, 10)
    assert 0.49 < lo < 0.5 and 0.94 < hi < 0.95  # the textbook 95 % interval of 8/10
    assert wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("gid,seats", [("mint_works", ["random", "greedy"]),
                                        ("civ_card_game", ["random", "random", "greedy"]),
                                        ("civ_builder", ["greedy", "random"])])
def test_simulate_counts_every_game(gid, seats):
    s = simulate(gid, seats, 3, seed=5)
    assert s["games"] == 3 and s["unfinished"] == 0
    assert abs(sum(x["wins"] for x in s["seats"]) - 3) < 1e-9  # shared wins are split
    for x in s["seats"]:
        lo, hi = x["ci95"]
        assert 0 <= lo <= x["win_rate"] <= hi <= 1
        assert x["score"]["min"] <= x["score"]["mean"] <= x["score"]["max"]
    assert s["length_actions"]["min"] > 10
    assert simulate(gid, seats, 3, seed=5)["seats"] == s["seats"]  # seeded: the same figures


def test_simulate_with_a_bot_reports_its_decision_times(monkeypatch):
    from companion.bots import players
    from companion.bots.search import Budget

    monkeypatch.setitem(players.LEVELS, "easy", Budget(steps=20, depth=2, seconds=5))
    s = simulate("mint_works", ["bot:easy", "random"], 2, seed=1)
    d = s["seats"][0]["decision_seconds"]
    assert d["count"] > 5 and 0 <= d["median"] <= d["p95"]
    assert s["seats"][1]["decision_seconds"] is None


def test_cli_prints_and_writes_json(tmp_path, capsys):
    out = tmp_path / "sim.json"
    assert main(["mint_works", "--games", "2", "--seats", "random,greedy", "--json", str(out), "--seed", "3"]) == 0
    text = capsys.readouterr()
    assert "wins" in text.out and "95 % CI" in text.out and "game length" in text.out
    assert "2/2 games" in text.err  # the progress bar
    data = json.loads(out.read_text())
    assert data["game"] == "mint_works" and data["games"] == 2 and data["seed"] == 3
    assert [x["player"] for x in data["seats"]] == ["random", "greedy"]


@pytest.mark.parametrize("argv,msg", [
    (["chess", "--seats", "random,random"], "no game 'chess'"),
    (["mint_works", "--seats", "random,human"], "unknown player 'human'"),
    (["mint_works", "--seats", "random,random,random,random,random"], "for 1-4 players"),
    (["mint_works", "--seats", "random,random", "--games", "0"], "positive number"),
    (["mint_works", "--seats", "random,random", "--option", "nonsense"], "KEY=VALUE"),
    (["mint_works", "--seats", "random,random", "--option", "colour=red"], "no option 'colour'"),
    (["mint_works", "--seats", "bot:genius,random"], "unknown level"),
])
def test_cli_bad_input_is_a_clear_error(argv, msg, capsys):
    assert main(argv) == 2
    assert msg in capsys.readouterr().err


def test_cli_cannot_write_json(tmp_path, capsys):
    assert main(["mint_works", "--games", "1", "--seats", "random,random", "--quiet",
                 "--json", str(tmp_path / "missing" / "x.json")]) == 1
    assert "cannot write" in capsys.readouterr().err


def test_the_app_command_simulates_without_kivy():
    code = ("import sys\nfrom companion.app import main\n"
            "rc = main(['simulate', 'mint_works', '--games', '1', '--seats', 'random,random', '--quiet'])\n"
            "assert rc == 0, rc\n"
            "assert not any(m == 'kivy' or m.startswith('kivy.') for m in sys.modules), 'kivy imported'\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "wins" in r.stdout
