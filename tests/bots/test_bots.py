"""The bots (companion/bots, docs/bots.md): every move legal, seeded moves reproducible, a bot
never reads what its seat cannot see, and clear errors for the requests it cannot answer.

Searches here use a tiny budget (a few dozen engine steps) so thousands of decisions stay quick;
strength and speed are measured by benchmarks/bench_bots.py, not here."""
import random

import pytest

from companion.bots import Bot, BotError, GreedyPlayer, RandomPlayer, bot_for, player_for
from companion.bots.search import Budget
from companion.engine import Session
from companion.games import get_module, hooks_for

GAMES = ("civmint", "civ_quest", "civ_builder", "mint_works", "civ_card_game")
TINY = Budget(steps=16, depth=3, seconds=10.0)


def tiny_bot(gid, seed):
    b = bot_for(gid, "easy", seed=seed)
    b.budget = TINY
    return b


def new_session(gid, players=2, seed=0):
    m = get_module(gid)
    sess = Session.new(gid, m.sample_setup(players), seed=seed)
    hooks_for(sess.game).deal(sess.state, random.Random(seed))
    return m, sess


def step_table(sess, hooks, rng):
    """Let the table act (rolls, turned-up cards); True when a seat's decision is awaited."""
    g = sess.game
    while not g.is_over(sess.state) and hooks.decider(sess.state) is None:
        who = g.actor(sess.state)
        if hooks.is_app_seat(sess.state, who):
            sess.dispatch(g.app_action(sess.state, who), "app")
        elif who == "system" and not hooks.is_draw(sess.state):
            sess.roll()
        else:
            sess.dispatch(hooks.sample_chance(sess.state, rng), "system" if who == "system" else "ui")
        hooks.deal(sess.state, rng)
    return not g.is_over(sess.state)


def advance(sess, rng, moves):
    """Play `moves` random decisions (with the table's draws between)."""
    h = hooks_for(sess.game)
    for _ in range(moves):
        if not step_table(sess, h, rng):
            return
        who = sess.game.actor(sess.state)
        sess.dispatch(h.concrete(sess.state, rng.choice(h.options(sess.state, who)), rng).to_dict(), "ui")
        h.deal(sess.state, rng)
    step_table(sess, h, rng)


@pytest.mark.parametrize("gid,players", [(g, 2) for g in GAMES] + [("civ_card_game", 3), ("mint_works", 3)])
def test_every_move_of_a_whole_game_is_legal(gid, players):
    _, sess = new_session(gid, players, seed=7)
    g, h, rng = sess.game, hooks_for(sess.game), random.Random(7)
    bots = {f"p{i + 1}": tiny_bot(gid, seed=i) for i in range(players)}
    decisions = 0
    while step_table(sess, h, rng) and decisions < 3000:
        who = g.actor(sess.state)
        a = bots[who].choose(sess, who)
        assert isinstance(a, dict)
        assert g.is_legal(sess.state, g.action_from_dict(a)), (sess.state.step, a)
        sess.dispatch(a, "ui")  # the one input path accepts it
        h.deal(sess.state, rng)
        assert sess.status() == []
        decisions += 1
    assert decisions > 5
    assert g.is_over(sess.state)  # bots playing each other reach the end (no endless repeats)


@pytest.mark.parametrize("gid", GAMES)
def test_the_same_seed_and_state_give_the_same_move(gid):
    _, sess = new_session(gid, seed=3)
    rng = random.Random(3)
    checked = 0
    for k in range(12):
        advance(sess, rng, rng.randrange(1, 8))
        if sess.game.is_over(sess.state):  # random play may end a game early: a new one
            _, sess = new_session(gid, seed=4 + k)
            step_table(sess, hooks_for(sess.game), rng)
        who = sess.game.actor(sess.state)
        a = bot_for(gid, "easy", seed=42)
        b = bot_for(gid, "easy", seed=42)
        first = a.choose(sess, who)
        assert b.choose(sess, who) == first
        assert a.choose(sess, who) == first  # asking again changes nothing
        checked += 1
    assert checked >= 3


def test_different_seeds_play_differently_somewhere():
    _, sess = new_session("civ_builder", seed=5)
    advance(sess, random.Random(5), 20)
    who = sess.game.actor(sess.state)
    moves = {str(tiny_bot("civ_builder", s).choose(sess, who)) for s in range(12)}
    assert len(moves) > 1  # the seed drives the search (a bot that ignores it cannot pass)


# -------------------------------------------------------------------------------- fair play

def _card_game_positions(n, seed=11):
    """States where p1 decides and p2's whole hand is named (as a simulated table keeps it)."""
    _, sess = new_session("civ_card_game", seed=seed)
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        advance(sess, rng, rng.randrange(1, 6))
        s = sess.state
        if sess.game.is_over(s):
            break
        h = hooks_for(sess.game)
        if h.decider(s) == "p1" and s.known["p2"] and len(h.options(h.observe(s, "p1"), "p1")) > 1:
            out.append(s)
    return sess.game, out


def _other_hand(game, s, rng):
    """`s` with p2's named cards swapped for others the deck could hide (counts unchanged)."""
    h = hooks_for(game)
    pool = h._unseen_pool(s, exclude_known_of=s.seats)  # what is in no named hand
    old = list(s.known["p2"])
    pool += old
    for _ in range(20):
        rng.shuffle(pool)
        new = tuple(pool[:len(old)])
        if sorted(new) != sorted(old):
            t = s.copy()
            t.known["p2"] = new
            assert game.status(t) == []
            return t
    return None


def test_card_game_bot_never_reads_another_seats_cards():
    game, states = _card_game_positions(10)
    assert len(states) >= 5
    rng = random.Random(1)
    compared = 0
    for k, s in enumerate(states):
        t = _other_hand(game, s, rng)
        if t is None:
            continue
        h = hooks_for(game)
        for j in range(3):  # the sampled worlds do not depend on p2's cards
            assert h.determinize(s, "p1", random.Random(j)).known == h.determinize(t, "p1", random.Random(j)).known
        bot = bot_for("civ_card_game", "easy", seed=k)
        assert bot.choose_state(game, s, "p1", key=k) == bot.choose_state(game, t, "p1", key=k)
        compared += 1
    assert compared >= 5


def test_card_game_determinization_samples_other_hands_from_what_is_unplaced():
    game, states = _card_game_positions(3)
    s = states[-1]
    h = hooks_for(game)
    hands = set()
    for i in range(30):
        d = h.determinize(s, "p1", random.Random(i))
        assert d.known["p1"] == s.known["p1"]           # its own hand as it is
        assert len(d.known["p2"]) == s.hand["p2"]       # every hidden card named
        assert game.status(d) == []                     # and consistent with what is public
        hands.add(tuple(sorted(d.known["p2"])))
    assert len(hands) > 1  # sampled, not read


#: Civ Builder's state as reviewed for fair play: hands, deck and discard are counts (the cards
#: are physical; the app records declared melds), nothing names a card
CIV_BUILDER_FIELDS = {"attrs", "chance_count", "civ", "deck", "discard", "end_reasons", "hand", "init_keys",
                      "meld_attr", "melds", "order", "over", "queue", "reshuffles", "rolloff", "round", "rounds",
                      "science_picks", "scoring", "seats", "setup_rolls", "setup_seat", "special_attr", "step",
                      "table", "taken", "target", "turn", "vp", "vp_log"}


def test_civ_builder_keeps_no_card_a_bot_could_read():
    """Civ Builder's hidden cards are counts only: a bot's view is the public state (no hand of
    any seat named), so there is nothing to drop or sample. A new field in the state fails here
    until it is reviewed (a named hand would need observe/determinize like the Card Game's)."""
    _, sess = new_session("civ_builder", seed=5)
    rng = random.Random(5)
    h = hooks_for(sess.game)
    seen = 0
    for _ in range(20):
        advance(sess, rng, 4)
        s = sess.state
        if sess.game.is_over(s):
            break
        assert set(type(s).__slots__) == CIV_BUILDER_FIELDS
        assert all(type(v) is int for v in s.hand.values())
        assert type(s.deck) is int and type(s.discard) is int
        who = h.decider(s)
        if who is None:
            continue
        assert h.observe(s, who) is s and h.determinize(s, who, rng) is s
        seen += 1
    assert seen >= 5


def _mint_works_with_a_secret_plan(seed=2):
    """A competitive Mint Works state where p2 holds an unbuilt Lotto plan and p1 decides."""
    m = get_module("mint_works")
    for k in range(40):
        sess = Session.new("mint_works", m.sample_setup(2), seed=seed + k)
        rng = random.Random(seed + k)
        h = hooks_for(sess.game)
        for _ in range(120):
            if not step_table(sess, h, rng):
                break
            s = sess.state
            who = sess.game.actor(s)
            secret = any(sec and not built for _, built, sec in s.plans["p2"])
            if who == "p1" and secret and s.deck and len(h.options(s, "p1")) > 1:
                return sess.game, s
            opts = h.options(s, who)
            lotto = [o for o in opts if o.get("location") == "lotto"]
            sess.dispatch((lotto[0] if who == "p2" and lotto else rng.choice(opts)).to_dict(), "ui")
    pytest.skip("no position with a secret plan found")


def test_mint_works_bot_never_reads_a_secret_plan_nor_the_deck_order():
    game, s = _mint_works_with_a_secret_plan()
    i = next(i for i, (_, b, sec) in enumerate(s.plans["p2"]) if sec and not b)
    for k in range(6):
        t = s.copy()
        real = t.plans["p2"][i][0]
        swap = t.deck[k % len(t.deck)]
        t.plans["p2"][i] = (swap, False, True)
        t.deck = sorted([c for c in t.deck if c != swap] + [real])
        assert game.status(t) == []
        u = s.copy()
        u.seed = s.seed + 1000 + k  # the app's deck would deal other plans: the bot must not care
        h = hooks_for(game)
        for j in range(5):  # the sampled worlds do not depend on the hidden plan
            ds, dt = h.determinize(s, "p1", random.Random(j)), h.determinize(t, "p1", random.Random(j))
            assert (ds.plans, sorted(ds.deck)) == (dt.plans, sorted(dt.deck))
        bot = bot_for("mint_works", "easy", seed=k)
        first = bot.choose_state(game, s, "p1", key=k)
        assert bot.choose_state(game, t, "p1", key=k) == first
        assert bot.choose_state(game, u, "p1", key=k) == first


def test_chance_is_sampled_with_the_bots_own_dice():
    """The search never calls the game's seeded chance stream (Mint Works' deck is one)."""
    game, s = _mint_works_with_a_secret_plan()
    calls = []
    real = game.chance_action
    game.chance_action = lambda *a, **k: calls.append(1) or real(*a, **k)
    try:
        bot_for("mint_works", "normal", seed=1).choose_state(game, s, "p1")
    finally:
        del game.chance_action
    assert calls == []


# -------------------------------------------------------------------------------- bad input

def test_a_bot_refuses_a_seat_that_is_not_to_act():
    _, sess = new_session("civ_builder")
    who = sess.game.actor(sess.state)
    other = "p2" if who == "p1" else "p1"
    with pytest.raises(BotError, match="not p2's decision|not p1's decision"):
        bot_for("civ_builder", seed=0).choose(sess, other)


def test_a_bot_refuses_a_dice_roll():
    _, sess = new_session("civmint")
    assert sess.game.actor(sess.state) == "system"
    with pytest.raises(BotError, match="dice roll is awaited"):
        bot_for("civmint", seed=0).choose(sess, "p1")


def test_a_bot_refuses_a_finished_game():
    _, sess = new_session("mint_works", seed=1)
    advance(sess, random.Random(1), 500)
    assert sess.game.is_over(sess.state)
    with pytest.raises(BotError, match="game is over"):
        bot_for("mint_works", seed=0).choose(sess, "p1")


def test_a_bot_with_no_legal_action_says_so():
    _, sess = new_session("civ_builder")
    bot = bot_for("civ_builder", seed=0)
    bot.hooks.options = lambda state, seat: []
    with pytest.raises(BotError, match="no legal action"):
        bot.choose(sess, sess.game.actor(sess.state))


def test_a_search_that_overruns_returns_its_best_move_so_far():
    _, sess = new_session("civ_builder")
    advance(sess, random.Random(4), 30)
    who = sess.game.actor(sess.state)
    bot = bot_for("civ_builder", "hard", seed=0)
    bot.budget = Budget(steps=10 ** 9, depth=8, seconds=0.05)
    a = bot.choose(sess, who)
    assert sess.game.is_legal(sess.state, sess.game.action_from_dict(a))
    assert bot.last["overran"] and bot.last["iterations"] >= 1


def test_unknown_levels_players_and_games_are_refused():
    with pytest.raises(BotError, match="unknown level"):
        bot_for("civmint", "grandmaster")
    with pytest.raises(BotError, match="unknown player"):
        player_for("civmint", "human")
    with pytest.raises(KeyError):
        bot_for("chess")
    _, sess = new_session("civ_builder")
    with pytest.raises(BotError, match="plays civmint"):
        bot_for("civmint", seed=0).choose(sess, "p1")


def test_player_specs():
    assert isinstance(player_for("mint_works", "random", 1), RandomPlayer)
    assert isinstance(player_for("mint_works", "greedy", 1), GreedyPlayer)
    b = player_for("mint_works", "bot:hard", 1)
    assert isinstance(b, Bot) and b.level == "hard"
    assert player_for("mint_works", "bot", 1).level == "normal"


def test_civmint_bot_offers_one_opponent_trade_per_trade_step():
    """REG-P2 allows any number of offers: two bots would swap a Food for a Stone for ever."""
    from types import SimpleNamespace

    from companion.games import get_game

    g = get_game("civmint")
    h = hooks_for(g)
    offer = g.codec.fast("trade_opponent", player="p1", give={"food": 1}, get={"stone": 1})
    opts = [offer, g.codec.fast("end_step", player="p1")]
    trade = SimpleNamespace(step="trade")
    earlier_step = [g.codec.fast("end_step", player="p1"), offer, g.codec.fast("end_step", player="p1")]
    assert h.root_options(trade, "p1", opts, earlier_step) == opts  # that offer was in another step
    this_step = [g.codec.fast("end_step", player="p1"), offer, g.codec.fast("decline_trade", player="p2")]
    assert [o.type for o in h.root_options(trade, "p1", opts, this_step)] == ["end_step"]
    assert h.root_options(trade, "p2", opts, this_step) == opts  # the other seat's offer


def test_civ_builder_bot_never_cancels_its_own_meld_pick():
    _, sess = new_session("civ_builder", seed=2)
    h, rng = hooks_for(sess.game), random.Random(2)
    for _ in range(400):
        step_table(sess, h, rng)
        if sess.state.step == "turn" and any(o.type == "pick_meld" for o in h.options(sess.state, sess.game.actor(sess.state))):
            break
        advance(sess, rng, 1)
    who = sess.game.actor(sess.state)
    pick = next(o for o in h.options(sess.state, who) if o.type == "pick_meld")
    sess.dispatch(pick.to_dict(), "ui")
    assert "cancel_meld" in {a.type for a in sess.legal_actions()}  # the table may back out
    assert "cancel_meld" not in {o.type for o in h.options(sess.state, who)}  # a bot does not


def test_a_bot_plays_solitaire_mint_works_against_the_card_ai():
    """Mint Works keeps its solitaire AIs: their seat is the rules' to play (app_action), never a
    bot's; the bot plays the human seat and its search plays the AI's card moves."""
    m = get_module("mint_works")
    setup = m.setup_from_form([{"name": "Ana", "colour": "blue"}], {"opponent": "rachael"})
    assert setup.get("ai_moves") == "journaled"  # a new game journals the AI's moves as its seat's
    sess = Session.new(m.game, setup, seed=3)
    h, rng = hooks_for(sess.game), random.Random(3)
    bot = tiny_bot("mint_works", 1)
    while step_table(sess, h, rng):
        who = sess.game.actor(sess.state)
        assert who == "p1"
        sess.dispatch(bot.choose(sess, who), "ui")
    ai_moves = sum(1 for _, src in sess.history if src == "app")
    assert sess.game.is_over(sess.state) and ai_moves > 3
    with pytest.raises(BotError):
        tiny_bot("mint_works", 1).choose_state(sess.game, sess.state, "p2")


def test_card_game_income_counts_only_for_the_rounds_left_before_the_round_limit():
    """CC-E3 ends a game at the round limit: near it, production that pays in later rounds is
    worth less to the bot's cut-off, resources and VP the same."""
    _, sess = new_session("civ_card_game", seed=3)
    h, rng = hooks_for(sess.game), random.Random(3)
    while sess.state.round < 2:  # set-up played: the seats hold plots that produce
        step_table(sess, h, rng)
        sess.dispatch(rng.choice(sess.legal_actions()), "ui")
    limit = sess.game.rules["round_limit"]
    s = sess.state.copy()
    s.round = 5
    early = h.value(s, "p1")
    s.round = limit - 1
    late = h.value(s, "p1")
    s.round = limit
    last = h.value(s, "p1")
    assert early > late > last  # the seat's plots produce: their worth falls with the rounds left


def test_a_bot_thinks_aside_and_its_move_is_applied_only_where_it_was_searched(tmp_path):
    """The app's screens search a bot's move off their thread (GameController.think_aside): the
    move is journaled as the seat's ("app") when the game is still where it was searched; a
    position the game has left is not played; a failed search is said once and that move is
    the players' (no endless retry)."""
    from companion.controller import GameController

    c = GameController.new(str(tmp_path), ["Ana", "Ben"], ["blue", "green"], game="civ_quest", seed=5,
                           app_players={"p2": "easy"}, think_aside=True)
    rng = random.Random(5)

    def to_the_bots_turn():  # the players (and the dice) play at random until the bot is to act
        while c.bot_turn() is None:
            if c.awaiting_dice():
                c.roll_virtual()
            else:
                c.dispatch(rng.choice(c.legal_actions()), "ui")
        return c.bot_turn()
    seat, position, think = to_the_bots_turn()
    assert seat == "p2" and c.game.actor(c.state) == "p2"  # nothing played inside dispatch
    n = len(c.journal)
    move = think()
    assert not c.play_thought(seat, object(), move)  # another position: stale, nothing applied
    assert len(c.journal) == n
    assert c.play_thought(seat, position, move)
    last = c.journal.entries(last=1)[-1]
    assert last.source == "app" and last.action.get("player") == "p2" and c.app_moves
    seat, position, _ = to_the_bots_turn()
    assert not c.play_thought(seat, position, error=ValueError("no move"))
    assert "could not choose Ben's move (no move): choose it by hand" in c.app_problem
    assert c.bot_turn() is None and c.game.actor(c.state) == "p2" and c.legal_actions()
    c.close()
