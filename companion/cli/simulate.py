"""`tabletop-companion simulate GAME --games N --seats bot:normal,random,...`: seeded games
played headless, then the win rate of each seat with a 95 % confidence interval, game length
and score distributions (`--json FILE` writes them). No Kivy is imported.

The simulator is the table: its dice are the session's seeded dice (game k uses seed
`--seed + k`), a card the table turns up is drawn from a generator of that seed, and every card
a hand draws is dealt by name (the game's hooks, companion.games.hooks_for) so each seat plays
the cards it really holds. Players choose through companion.bots, which shows each seat only
what it may see.
Seats rotate from game to game (`--no-rotate` keeps them) so no player always moves first.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time

from companion.bots import BotError, player_for
from companion.engine import Rejected, Session
from companion.games import hooks_for

MAX_ACTIONS = 20000  # a game that has not ended by then is counted as unfinished


def wilson(k: int, n: int, z: float = 1.96):
    """The Wilson score interval of a proportion k/n (95 % by default): (low, high)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, mid - half), min(1.0, mid + half))


def _dist(xs):
    if not xs:
        return {}
    xs = sorted(xs)
    q = lambda f: xs[min(len(xs) - 1, int(f * len(xs)))]  # noqa: E731
    return {"mean": round(statistics.fmean(xs), 2), "sd": round(statistics.pstdev(xs), 2), "min": xs[0],
            "p25": q(0.25), "median": q(0.5), "p75": q(0.75), "max": xs[-1]}


def play_game(module, specs, seed, options=None, player_seed=None, on_decision=None, max_actions=None,
              score_unfinished=False):
    """Play one game; returns {"winners": [spec index...], "scores": {index: total}, "actions",
    "decisions", "finished"}. specs[i] plays seat p(i+1). A game still going after
    `max_actions` (MAX_ACTIONS) stops unfinished: no winner, or with `score_unfinished` the
    game's result on the position reached (the score leader)."""
    max_actions = MAX_ACTIONS if max_actions is None else max_actions
    n = len(specs)
    setup = module.setup_from_form([{"name": f"Seat {i + 1} ({s})", "colour": c}
                                    for i, (s, c) in enumerate(zip(specs, _colours(n)))], options or {})
    sess = Session.new(module.game, setup, seed=seed)
    game = sess.game
    hooks = hooks_for(game)
    table = random.Random(f"table:{seed}")  # the table's shuffles: turned-up cards, dealt hands
    base = seed if player_seed is None else player_seed
    players = {f"p{i + 1}": player_for(module.id, s, seed=f"{base}:{i}") for i, s in enumerate(specs)}
    hooks.deal(sess.state, table)
    actions = decisions = 0
    while not game.is_over(sess.state) and actions < max_actions:
        who = game.actor(sess.state)
        if who is None:
            break
        if who == "system":
            if hooks.is_draw(sess.state) or game.chance_action(sess.state, _Probe()) is None:
                a = hooks.sample_chance(sess.state, table)
                sess.dispatch(a, "system")
            else:
                sess.roll()
        elif hooks.is_app_seat(sess.state, who):  # Mint Works' solitaire AI: its card decides
            sess.dispatch(game.app_action(sess.state, who), "app")
        elif hooks.is_draw(sess.state):
            sess.dispatch(hooks.sample_chance(sess.state, table), "ui")
        else:
            p = players.get(who)
            if p is None:
                raise BotError(f"{who} has no player in this simulation")
            sess.dispatch(p.choose(sess, who), "ui")
            decisions += 1
            if on_decision:
                on_decision(p, who)
        hooks.deal(sess.state, table)
        actions += 1
    finished = game.is_over(sess.state)
    res = module.view.result(game, sess.state) if finished or score_unfinished else {}
    winners = res.get("winners") or ([res["winner"]] if res.get("winner") else [])
    if (finished or score_unfinished) and not winners:
        winners = list(players)
    sc = module.view.score(game, sess.state)
    idx = {f"p{i + 1}": i for i in range(n)}
    return {"winners": [idx[w] for w in winners if w in idx], "scores": {idx[s]: v["total"] for s, v in sc.items() if s in idx},
            "actions": actions, "decisions": decisions, "finished": finished}


class _Probe:
    def roll(self, n=1):
        return [1] * n


def _colours(n):
    from companion.words import COLOURS

    return COLOURS[:n]


def simulate(game_id, specs, games, seed=0, rotate=True, options=None, progress=None):
    """Play `games` games; returns the summary dict (the --json content)."""
    from companion.games import get_module

    module = get_module(game_id)
    lo, hi = module.players
    if not lo <= len(specs) <= hi:
        raise BotError(f"{module.title} is for {lo}-{hi} players, not {len(specs)} seats")
    for s in specs:
        player_for(game_id, s, seed=0)  # a bad seat spec fails before any game
    n = len(specs)
    wins = [0.0] * n
    outright = [0] * n
    scores = [[] for _ in range(n)]
    lengths, decisions, unfinished = [], [], 0
    times = {i: [] for i in range(n)}
    t0 = time.perf_counter()
    for k in range(games):
        shift = k % n if rotate else 0
        order = [(j + shift) % n for j in range(n)]  # seat i is played by spec order[i]

        def note(p, seat, order=order):
            if p.kind == "bot" and p.last.get("options", 1) > 1:
                times[order[int(seat[1:]) - 1]].append(p.last["seconds"])
        r = play_game(module, [specs[j] for j in order], seed + k, options, on_decision=note)
        if not r["finished"]:
            unfinished += 1
        for seat_i, j in enumerate(order):
            if seat_i in r["scores"]:
                scores[j].append(r["scores"][seat_i])
            if seat_i in r["winners"]:
                wins[j] += 1.0 / len(r["winners"])
                if len(r["winners"]) == 1:
                    outright[j] += 1
        lengths.append(r["actions"])
        decisions.append(r["decisions"])
        if progress:
            progress(k + 1, games, time.perf_counter() - t0)
    seats = []
    for j, s in enumerate(specs):
        lo_ci, hi_ci = wilson(round(wins[j]), games)
        t = sorted(times[j])
        seats.append({"seat": j + 1, "player": s, "wins": wins[j], "outright_wins": outright[j],
                      "win_rate": round(wins[j] / games, 4) if games else 0.0,
                      "ci95": [round(lo_ci, 4), round(hi_ci, 4)], "score": _dist(scores[j]),
                      "decision_seconds": ({"median": round(statistics.median(t), 4),
                                            "p95": round(t[min(len(t) - 1, int(0.95 * len(t)))], 4),
                                            "count": len(t)} if t else None)})
    return {"game": game_id, "games": games, "seed": seed, "rotate": rotate, "options": options or {},
            "seats": seats, "length_actions": _dist(lengths), "length_decisions": _dist(decisions),
            "unfinished": unfinished, "seconds": round(time.perf_counter() - t0, 1)}


def _bar(done, total, secs, out=None):
    out = out or sys.stderr
    width = 30
    filled = int(width * done / total) if total else width
    eta = secs / done * (total - done) if done else 0
    out.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games, {secs:.0f} s"
              + (f", about {eta:.0f} s left" if done < total else "") + ("\n" if done == total else ""))
    out.flush()


def report(summary) -> str:
    lines = [f"{summary['game']}: {summary['games']} games, seeds {summary['seed']}.."
             f"{summary['seed'] + summary['games'] - 1}" + (" (seats rotate)" if summary["rotate"] else "")]
    for s in summary["seats"]:
        lo, hi = s["ci95"]
        sc = s["score"]
        line = (f"  seat {s['seat']} {s['player']:<12} wins {s['win_rate'] * 100:5.1f} % "
                f"(95 % CI {lo * 100:.1f}-{hi * 100:.1f} %)")
        if sc:
            line += f"  score mean {sc['mean']} (sd {sc['sd']}, {sc['min']}-{sc['max']})"
        if s["decision_seconds"]:
            d = s["decision_seconds"]
            line += f"  decision median {d['median'] * 1000:.0f} ms, p95 {d['p95'] * 1000:.0f} ms"
        lines.append(line)
    la = summary["length_actions"]
    if la:
        lines.append(f"  game length: {la['mean']} actions on average (median {la['median']}, {la['min']}-{la['max']})")
    if summary["unfinished"]:
        lines.append(f"  {summary['unfinished']} game(s) did not finish within {MAX_ACTIONS} actions")
    return "\n".join(lines)


def _parse(argv):
    ap = argparse.ArgumentParser(prog="tabletop-companion simulate",
                                 description="Play seeded games headless and print each seat's win rate.")
    ap.add_argument("game", help="the game's id (civmint, civ_quest, civ_builder, mint_works, civ_card_game)")
    ap.add_argument("--games", type=int, default=20, help="how many games (default 20)")
    ap.add_argument("--seats", required=True,
                    help="one player per seat, comma-separated: bot, bot:easy, bot:normal, bot:hard, random, greedy")
    ap.add_argument("--seed", type=int, default=0, help="the first game's seed (default 0)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a new-game option (a house rule, a variant), as the new-game form takes it")
    ap.add_argument("--no-rotate", action="store_true", help="keep each player in its seat in every game")
    ap.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = _parse(sys.argv[1:] if argv is None else argv)
    from companion.games import available, get_module

    try:
        module = get_module(args.game)
    except KeyError:
        print(f"tabletop-companion simulate: no game {args.game!r}; choose one of {', '.join(available())}",
              file=sys.stderr)
        return 2
    if args.games < 1:
        print("tabletop-companion simulate: --games wants a positive number", file=sys.stderr)
        return 2
    specs = [s.strip() for s in args.seats.split(",") if s.strip()]
    options = {}
    for o in args.option:
        k, eq, v = o.partition("=")
        if not eq or not k.strip():
            print(f"tabletop-companion simulate: --option wants KEY=VALUE, not {o!r}", file=sys.stderr)
            return 2
        known = {x.key: x for x in module.options}
        if k.strip() not in known:
            print(f"tabletop-companion simulate: {module.title} has no option {k.strip()!r}"
                  + (f" (it has: {', '.join(known)})" if known else ""), file=sys.stderr)
            return 2
        raw = v.strip()
        if known[k.strip()].kind == "choice":  # a choice's values may be numbers
            vals = {str(c[0]): c[0] for c in known[k.strip()].choices}
            raw = vals.get(raw, raw)
        options[k.strip()] = raw
    try:
        summary = simulate(args.game, specs, args.games, args.seed, not args.no_rotate, options,
                           None if args.quiet else _bar)
    except (BotError, ValueError, Rejected) as exc:
        print(f"tabletop-companion simulate: {exc}", file=sys.stderr)
        return 2
    print(report(summary))
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(summary, f, indent=1)
        except OSError as exc:
            print(f"tabletop-companion simulate: cannot write {args.json}: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
