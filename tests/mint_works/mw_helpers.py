"""Helpers of the Mint Works tests: set-ups, seeded random play, hand-made positions."""
import random

from companion.engine.dice import SeededDice
from companion.games.mint_works import GAME, MODULE

G = GAME


def setup_for(players=2, opponent=None, deck="app", advanced="none", seed=0):
    names = [{"name": n, "colour": c} for n, c in zip(("Ana", "Ben", "Cy", "Di"), ("blue", "green", "red", "yellow"))]
    setup = MODULE.setup_from_form(names[:players], {"opponent": opponent or "none", "deck": deck,
                                                     "advanced": advanced})
    setup["seed"] = seed
    return setup


def start(players=2, **kw):
    setup = setup_for(players, **kw)
    return setup, deal(G.initial_state(setup), kw.get("seed", 0))


def deal(s, seed=0):
    """Resolve every pending draw with the seeded deck (or the first candidate in table mode),
    and play the solitaire AI's turns in between, as the app does (`ai`)."""
    dice = SeededDice(seed, s.chance_count)
    s = ai(s)
    while not s.over and s.step == "draw":
        a = G.chance_action(s, dice) or G.pseudo_legal_actions(s)[0]
        s = ai(G.apply(s, a))
    return s


def ai(s):
    """Play the solitaire AI's moves while it is to act: its seat's journaled actions, as the
    app's controller dispatches them (older saves played them inside settle)."""
    while not G.is_over(s) and G.actor(s) in G.app_seats(s):
        s = G.apply(s, G.app_action(s, G.actor(s)))
    return s


def apply(s, a):
    """A player's action, then the AI's answer (what G.apply did while the AI played in settle)."""
    return ai(G.apply(s, a))


def random_policy(rng, place_bias=0.8):
    """A random player: places (some legal placement) with probability place_bias, else passes."""
    def choose(s, acts):
        places = [a for a in acts if a.type == "place"]
        if places and rng.random() < place_bias:
            return rng.choice(places)
        return rng.choice(acts)
    return choose


def play(setup, seed, policy=None, max_actions=3000, on_state=None):
    """A whole seeded random game: (final state, the action list)."""
    rng = random.Random(seed)
    policy = policy or random_policy(rng)
    dice = SeededDice(seed)
    s = G.initial_state(setup)
    actions = []
    while not G.is_over(s):
        a = None
        if G.actor(s) in G.app_seats(s):
            a = G.app_action(s, G.actor(s))  # the AI's move: the players' random policy is not asked
        elif G.actor(s) == "system":
            dice.drawn = s.chance_count
            a = G.chance_action(s, dice)
        if a is None:
            a = policy(s, G.legal_actions(s))
        s = G.apply(s, a)
        actions.append(a)
        if on_state:
            on_state(s, a)
        assert len(actions) < max_actions, "the game did not end"
    return s, actions


def position(s, seat, plans=(), mints=None, gallery=0):
    """A copy of `s` where `seat` holds `plans` ((id, built) pairs) taken out of deck/supply."""
    s = s.copy()
    for pid, built in plans:
        for pile in (s.deck, s.supply, s.bottom):
            if pid in pile:
                pile.remove(pid)
                break
        else:
            for other in s.plans.values():
                for i, (p, _, _) in enumerate(other):
                    if p == pid:
                        other.pop(i)
                        break
        s.plans[seat].append((pid, built, False))
        if built:
            G._opened(s, seat, pid)
    if mints is not None:
        s.issued += mints - s.mints[seat]
        s.mints[seat] = mints
    if gallery:
        s.issued += gallery
        s.gallery[seat] = gallery
    return s
