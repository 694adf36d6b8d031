"""Property tests over seeded random games (thousands of games in total)."""
import os
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine.dice import SeededDice
from companion.engine.errors import Rejected
from companion.games.civmint import GAME
from companion.games.civmint.rules import TOP_DEV
from companion.games.civmint.state import other
from engine_helpers import random_game

MAX_ROUNDS = 8
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))


def invariants(before, a, s):
    for seat in ("p1", "p2"):
        r = s.players[seat].res
        assert all(0 <= v <= 10 for v in r.values()), (seat, r, a)
        assert GAME.dice_count(s, seat) <= 8, (seat, a)
    caps = sorted((u.id, u.space) for u in s.units.values() if u.kind == "capital")
    assert caps == [(1, s.board.home["p1"]), (2, s.board.home["p2"])], f"capital changed by {a}"
    assert GAME.status(s) == [], (GAME.status(s), a)
    assert s.round <= (s.max_rounds or 10 ** 9)
    assert before.to_dict() != s.to_dict() or a.type in ("trade_opponent", "round_repair", "spend_combat_power",
                                                         "end_step", "produce", "event_gather", "repair")


def score_invariants(s):
    sc = GAME.score(s)
    for seat in ("p1", "p2"):
        assert sc[seat]["total"] == sum(sc[seat]["items"].values())
        assert sc[seat]["development_points"] == sc[seat]["items"]["development"]
        assert all(v >= 0 for v in sc[seat]["items"].values())
    res = GAME.result(s)
    if res["winner"] is not None:
        w, l = res["winner"], ("p2" if res["winner"] == "p1" else "p1")
        assert (sc[w]["total"], sc[w]["development_points"], sc[w]["aspect_points"]) > (
            sc[l]["total"], sc[l]["development_points"], sc[l]["aspect_points"])


@SETTINGS
@given(st.integers(0, 2 ** 32 - 1))
def test_random_games_keep_every_invariant(seed):
    s, actions, _ = random_game(seed, MAX_ROUNDS, "aggressive", check=invariants)
    assert s.over and GAME.legal_actions(s) == []
    assert s.round <= MAX_ROUNDS
    score_invariants(s)


@SETTINGS
@given(st.integers(0, 2 ** 32 - 1))
def test_replaying_the_actions_reproduces_the_state(seed):
    s, actions, _ = random_game(seed, 6, "mixed")
    again = GAME.initial_state(GAME.default_setup(max_rounds=6))
    for a in actions:
        again = GAME.apply(again, GAME.action_from_dict(a.to_dict()))
    assert again.to_dict() == s.to_dict()


def test_two_thousand_seeded_games_end_within_the_bound():
    """Cheap invariants over 2,000 seeded games (the other tests check every state in depth)."""
    for seed in range(2000):
        s, actions, _ = random_game(seed, 4, "aggressive")
        assert s.over and s.round <= 4 and len(actions) < 2000
        for seat in ("p1", "p2"):
            assert min(s.players[seat].res.values()) >= 0
            assert GAME.dice_count(s, seat) <= 8
        assert GAME.status(s) == []


def test_games_can_end_naturally():
    """Without a round limit a development-minded policy ends the game by the text's own conditions."""
    rng = random.Random(5)
    dice = SeededDice(5)
    s = GAME.initial_state(GAME.default_setup(max_rounds=None))
    n = 0
    while not s.over:
        if GAME.actor(s) == "system":
            a = GAME.chance_action(s, dice)
        else:
            la = GAME.legal_actions(s)
            pref = [x for x in la if x.type in ("research", "improve_aspect", "pay_upkeep", "produce")]
            a = rng.choice(pref) if pref else next((x for x in la if x.type == "end_step"), la[0])
        s = GAME.apply(s, a)
        n += 1
        assert n < 20000
    assert s.end_reasons and "round_limit" not in s.end_reasons


@SETTINGS
@given(st.integers(0, 2 ** 32 - 1), st.data())
def test_legal_actions_apply_and_illegal_ones_never_change_state(seed, data):
    s, actions, states = random_game(seed, 3, "aggressive", keep_states=True)
    st_ = data.draw(st.sampled_from(states[:-1]))
    legal = GAME.legal_actions(st_)
    for a in legal:
        GAME.apply(st_, a)
    snapshot = st_.to_dict()
    for a in GAME.pseudo_legal_actions(st_):
        if a not in legal:
            try:
                GAME.apply(st_, a)
            except Rejected as e:
                assert e.rule and e.message
            else:
                raise AssertionError(f"{a} applied but was not listed as legal")
    assert st_.to_dict() == snapshot


ACTION_TYPES = sorted(GAME.codec.schemas)
junk = st.one_of(st.integers(-3, 40), st.text(max_size=6), st.none(), st.booleans(),
                 st.lists(st.integers(-2, 9), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(-2, 5), max_size=2),
                 st.sampled_from(["p1", "p2", "r0c0", "r4c4", "food", "money", "technology", "settler", "infantry"]))


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "400")), deadline=None)
@given(st.integers(0, 300), st.sampled_from(ACTION_TYPES),
       st.dictionaries(st.sampled_from(["player", "unit", "to", "target", "die", "dice", "give", "get", "kind",
                                        "space", "track", "amount", "units", "spaces", "attacker", "defender",
                                        "picks", "bogus"]), junk, max_size=5))
def test_fuzzed_input_is_rejected_or_consistent(n, t, fields):
    s, actions, states = random_game(n, 2, "aggressive", keep_states=True)
    st_ = states[n % len(states)]
    snap = st_.to_dict()
    try:
        new = GAME.apply(st_, {"type": t, **fields})
    except Rejected as e:
        assert e.rule
    else:
        assert GAME.status(new) == []
    assert st_.to_dict() == snap


def test_top_track_positions_are_the_last_printed_space():
    assert set(TOP_DEV.values()) == {7}


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "400")), deadline=None)
@given(st.integers(0, 400), st.integers(0, 10 ** 6), junk)
def test_mutated_legal_actions_are_rejected_or_consistent(n, pick, value):
    """Take a legal action and corrupt one field: a clear rejection or a consistent state, never a crash."""
    s, actions, states = random_game(n, 3, "aggressive", keep_states=True)
    st_ = states[pick % (len(states) - 1)]
    legal = GAME.legal_actions(st_)
    d = legal[pick % len(legal)].to_dict()
    keys = [k for k in d if k != "type"]
    if keys:
        d[keys[pick % len(keys)]] = value
    snap = st_.to_dict()
    try:
        new = GAME.apply(st_, d)
    except Rejected as e:
        assert e.rule
    else:
        assert GAME.status(new) == []
    assert st_.to_dict() == snap


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_early_start_interleaving_gives_the_same_state(seed):
    """The second player's early actions commute with the first player's Development actions."""
    rng = random.Random(seed)
    s, actions, states = random_game(seed % 500, 3, "aggressive", keep_states=True)
    starts = [x for x in states if x.step == "research" and x.turn == 0 and not x.over and x.early is None]
    if not starts:
        return
    s0 = starts[rng.randrange(len(starts))]
    # play the first player's development to its end, recording it
    dev, cur = [], s0
    while cur.turn == 0 and not cur.over:
        la = GAME.legal_actions(cur)
        a = rng.choice(la)
        dev.append(a)
        cur = GAME.apply(cur, a)
    # the second player's actions up to Move, played in their own turn
    own, cur2 = [], cur
    while cur2.step in ("production", "trade", "upkeep", "build") and GAME.actor(cur2) == other(s0.first):
        la = [a for a in GAME.legal_actions(cur2) if a.type not in ("trade_opponent",)]
        a = rng.choice(la)
        own.append(a)
        cur2 = GAME.apply(cur2, a)
    # now interleave the same actions during the first player's development
    inter, i, j = s0, 0, 0
    while i < len(dev) or j < len(own):
        if j < len(own) and (i >= len(dev) - 1 or rng.random() < 0.5):
            inter = GAME.apply(inter, own[j])
            j += 1
        else:
            inter = GAME.apply(inter, dev[i])
            i += 1
    assert inter.to_dict() == cur2.to_dict()
