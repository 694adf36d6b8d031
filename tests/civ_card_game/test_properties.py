"""Properties over seeded random 2-4 player games: nothing negative, building limits, statuses
that match their definition, every game ends, VP equal to its breakdown, replay reproduces the
game. CC_GAMES sets the number of games (default 200; the benchmark plays more)."""
from __future__ import annotations

import os

from cc_helpers import play_random

from companion.games.civ_card_game.rules import GAME

GAMES = int(os.environ.get("CC_GAMES", "200"))


def culture_by_definition(s, seat):
    cards = list(s.techs[seat]) + [b for _, _, bs in s.plots[seat] for b in bs]
    return sum(GAME.cards[g].get(c, {}).get("culture", 0) for c in cards
               for g in ("technologies", "buildings", "wonders"))


def happiness_by_definition(s, seat):
    cards = list(s.techs[seat]) + [b for _, _, bs in s.plots[seat] for b in bs]
    return sum(GAME.cards[g].get(c, {}).get("happiness", 0) for c in cards
               for g in ("technologies", "buildings", "wonders"))


def check_invariants(s, a):
    assert GAME.status(s) == [], (GAME.status(s), a)
    for p in s.seats:
        assert min(s.res[p]) >= 0
    if a.type == "build":
        seat, i = a["player"], a["plot"]
        built = s.plots[seat][i][2]
        eng = any(GAME.techs[t].get("plot_limit") for t in s.techs[seat])
        assert len(built) <= (2 if eng or s.plots[seat][i][1] >= 3 else 1)
    cult = {p: culture_by_definition(s, p) for p in s.seats}
    hap = {p: happiness_by_definition(s, p) for p in s.seats}
    hc = tuple(p for p in s.seats if cult[p] == max(cult.values()) and cult[p] > 2)
    hh = tuple(p for p in s.seats if hap[p] == max(hap.values()) and hap[p] >= 2)
    assert GAME.highest_culture(s) == hc and GAME.highest_happiness(s) == hh
    for p, v in GAME.score(s).items():
        assert v["total"] == sum(v["items"].values())
        assert v["items"]["Population"] == sum(pop for _, pop, _ in s.plots[p])
        assert v["items"]["Technologies"] == len(s.techs[p])
        assert v["items"]["Wonders"] == sum(1 for _, _, bs in s.plots[p] for b in bs if b in GAME.wonders)


def test_random_games_keep_every_invariant_and_end():
    ended = {2: 0, 3: 0, 4: 0}
    for seed in range(GAMES):
        s, actions = play_random(seed, check=check_invariants if seed % 4 == 0 else None)
        assert s.over and not s.tech_row and not s.tech_deck
        assert GAME.status(s) == []
        r = GAME.result(s)
        best = max(v["total"] for v in GAME.score(s).values())
        assert all(GAME.score(s)[w]["total"] == best for w in r["winners"])
        ended[len(s.seats)] += 1
    assert all(ended.values()), ended


def test_replay_from_the_setup_reproduces_the_game_and_apply_never_mutates():
    for seed in range(0, GAMES, 40):
        final, actions = play_random(seed)
        s = GAME.initial_state(GAME.default_setup(players=len(final.seats)))
        for a in actions:
            before = s.to_dict()
            nxt = GAME.apply(s, GAME.action_from_dict(a.to_dict()))
            assert s.to_dict() == before
            s = nxt
        assert s.to_dict() == final.to_dict()


def _every_mix(plots):
    """Brute force: every sum of one resource per population, of a type its plot prints."""
    from companion.games.civ_card_game.rules import RES
    opts = {(0, 0, 0)}
    for name, pop, _ in plots:
        types = [RES.index(r) for r in GAME.plot_cards[name]["yield"]]
        one = set()

        def fill(left, i, v):
            if i == len(types) - 1:
                w = list(v)
                w[types[i]] += left
                one.add(tuple(w))
                return
            for n in range(left + 1):
                w = list(v)
                w[types[i]] += n
                fill(left - n, i + 1, w)
        if pop:
            fill(pop, 0, [0, 0, 0])
            opts = {tuple(x + y for x, y in zip(a, b)) for a in opts for b in one}
    return sorted(opts, reverse=True)


def test_population_bonus_options_are_exactly_every_mix_the_plots_allow():
    import random as _r
    from cc_helpers import arranged, started
    rng = _r.Random(5)
    names = sorted(GAME.plot_cards)
    s = started(2)
    for _ in range(200):
        plots = tuple((rng.choice(names), rng.randint(0, 4), ()) for _ in range(rng.randint(1, 6)))
        t = arranged(s, plots={"p1": plots})
        want = _every_mix(plots)
        assert GAME.bonus_options(t, "p1") == want, plots
        for v in want[:5]:
            assert GAME.bonus_allowed(t, "p1", v)
        total = sum(p for _, p, _ in plots)
        for v in ((total + 1, 0, 0), (0, 0, total + 1), (-1, total + 1, 0)):
            assert not GAME.bonus_allowed(t, "p1", v)
