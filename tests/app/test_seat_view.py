"""What a seat may see (docs/games.md, `GameModule.seat_view`): one function in each game's folder,
the hooks' `observe`, used by the bots and the phone pages alike. Marker values planted in every
seat's secret parts (a Card Game hand's named cards, a Mint Works plan won at the Lotto) must not
reach another seat's view, however it is serialized, while the seat keeps its own and everything
public stays."""
import json
import random

import pytest

from companion import games
from companion.games.hooks import GameHooks

GAMES = ("civmint", "civ_quest", "civ_builder", "mint_works", "civ_card_game")


def dump(state) -> str:
    """Everything a message built from `state` could carry: its whole dict, as JSON."""
    return json.dumps(state.to_dict(), sort_keys=True, default=repr)


def secret(seat):
    return f"<secret of {seat}>"


def public(seat):
    return f"<public of {seat}>"


def mid_game(gid, seed=1):
    """A state some way into a game of 3 seats (2 where the game takes no more), every hand named
    (`deal`), reached by random moves and the table's sampled rolls and draws."""
    m = games.get_module(gid)
    n = max(m.players[0], min(3, m.players[1]))
    setup = m.sample_setup(n)
    g, h, rng = m.game, games.hooks_for(gid), random.Random(seed)
    state = g.initial_state(setup)
    h.deal(state, rng)
    for _ in range(40):
        if g.is_over(state):
            break
        who = h.decider(state)
        a = h.random_option(state, who, rng) if who else h.table_action(state, rng)
        if a is None:
            break
        state = g.apply(state, h.concrete(state, a, rng))
        h.deal(state, rng)
    return m, state, m.view.seats(setup)


def plant_card_game(state, seats):
    # a hand is a count plus the cards the app knows in it: a named card is the seat's secret
    for p in seats:
        state.known[p] = state.known[p] + (secret(p),)
        state.hand[p] += 1


def plant_mint_works(state, seats):
    # a plan won at the Lotto stays secret until built; a plan bought from the supply is public
    for p in seats:
        state.plans[p] = state.plans[p] + [(secret(p), False, True), (public(p), False, False)]


PLANT = {"civ_card_game": plant_card_game, "mint_works": plant_mint_works}


@pytest.mark.parametrize("gid", sorted(PLANT))
def test_a_seat_view_keeps_no_other_seats_secret_and_keeps_its_own(gid):
    m, state, seats = mid_game(gid)
    PLANT[gid](state, seats)
    before = dump(state)
    for seat in seats:
        text = dump(m.seat_view(state, seat))
        assert secret(seat) in text, f"{gid}: {seat} lost its own secret"
        for other in seats:
            if other != seat:
                assert secret(other) not in text, f"{gid}: {seat} sees {other}'s secret"
        for p in seats:
            if gid == "mint_works":
                assert public(p) in text, f"{gid}: {seat} lost {p}'s public plan"
    assert dump(state) == before, "the seat view changed the tablet's state"


@pytest.mark.parametrize("gid", sorted(PLANT))
def test_a_seat_view_keeps_what_others_hold_as_counts(gid):
    m, state, seats = mid_game(gid)
    PLANT[gid](state, seats)
    view = m.seat_view(state, seats[0])
    if gid == "civ_card_game":
        assert view.hand == state.hand
    else:
        assert {p: len(v) for p, v in view.plans.items()} == {p: len(v) for p, v in state.plans.items()}


@pytest.mark.parametrize("gid", sorted(PLANT))
def test_a_seat_the_game_does_not_have_sees_no_secret(gid):
    m, state, seats = mid_game(gid)
    PLANT[gid](state, seats)
    for stranger in ("p9", "", None):
        text = dump(m.seat_view(state, stranger))
        assert not [p for p in seats if secret(p) in text], stranger


@pytest.mark.parametrize("gid", [g for g in GAMES if g not in PLANT])
def test_a_game_that_hides_nothing_shows_every_seat_the_whole_state(gid):
    m, state, seats = mid_game(gid)
    assert type(games.hooks_for(gid)).observe is GameHooks.observe, (
        f"{gid} now hides something: plant markers for it in PLANT")
    for seat in seats:
        assert dump(m.seat_view(state, seat)) == dump(state)
    if gid == "civ_builder":  # its hands are counts only: no card of a hand is named anywhere
        assert state.hand and all(type(n) is int for n in state.hand.values())


@pytest.mark.parametrize("gid", GAMES)
def test_the_bots_and_the_seat_view_read_the_same_function(gid):
    m, state, seats = mid_game(gid)
    if gid in PLANT:
        PLANT[gid](state, seats)
    h = games.hooks_for(gid)
    assert isinstance(h, m.hooks) and m.hooks is not GameHooks
    assert games.hooks_for(m.game).__class__ is m.hooks and games.hooks_for(m).__class__ is m.hooks
    for seat in seats:
        assert dump(h.observe(state, seat)) == dump(m.seat_view(state, seat))


def test_rules_no_registered_game_owns_get_the_default_hooks():
    class Stray:
        name = "no_such_game"

    h = games.hooks_for(Stray())
    assert type(h) is GameHooks and h.observe("anything", "p1") == "anything"


def test_mint_works_deck_does_not_give_away_a_hidden_lotto_plan():
    """The deck's list plus every face-up plan would name a hidden Lotto plan by elimination:
    another seat's view shows only the deck's size, and the bots' sample from that view still
    accounts for all 21 plans."""
    m, state, seats = mid_game("mint_works")
    hidden_id = state.deck[0]
    state.deck.remove(hidden_id)
    state.plans[seats[1]] = state.plans[seats[1]] + [(hidden_id, False, True)]
    assert not m.game.status(state)
    view = m.seat_view(state, seats[0])
    assert len(view.deck) == len(state.deck)
    assert not set(view.deck) & set(m.game.data.plans), "the deck's plans show in another seat's view"
    sample = games.hooks_for("mint_works").determinize(view, seats[0], random.Random(3))
    assert not m.game.status(sample)
    assert len(sample.deck) == len(state.deck)
