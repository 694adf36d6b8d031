"""A card name typed in the card picker that matches nothing the player may pick now: the view says
why in plain words (issue 28, Bad input), or nothing for a name the game does not know."""
from __future__ import annotations

from cc_helpers import arranged, started

from companion.games.civ_card_game import MODULE

G, V = MODULE.game, MODULE.view
SETUP = {"players": {"p1": {"name": "Ana", "colour": "blue"}, "p2": {"name": "Ben", "colour": "green"}}}
FOUR = (("Grassland", 0, ()), ("Hills", 0, ()), ("River", 0, ()), ("Plains", 0, ()))


def why(s, action_type, typed, field="card"):
    return V.unavailable_reason(G, s, SETUP, action_type, field, typed)


def turning_up(deck="plots", **changes):
    s = started(2)
    return arranged(s, queue=(("turn_up", "p2", deck),), step="purchase", **changes)


def test_both_copies_of_a_plot_already_out_are_named_with_where_they_are():
    s = turning_up(plots={"p1": FOUR[:3] + (("Gold Coast", 1, ()),)},
                   plot_row=("Gold Coast", "Oasis"), plot_deck={"Gold Coast": 0})
    assert "Gold Coast" not in {a["card"] for a in G.legal_actions(s)}
    text = why(s, "turn_up", "gold coast")
    assert text == "Both Gold Coast cards are already out (Ana's plot and the face-up plots)."
    assert why(s, "turn_up", "gold c") == text                    # part of a name, as typed
    assert why(s, "turn_up", "Eldorado") is None                   # no such card: nothing to add
    assert why(s, "turn_up", "gold coast", field="plot") is None   # only the card picker


def test_a_card_of_the_wrong_deck_and_a_technology_already_bought():
    s = turning_up(plot_deck={"Gold Coast": 0})
    assert why(s, "turn_up", "Mining") == "Mining is a technology card; the app asks for a plot card."
    s = turning_up("techs", techs={"p2": ("Pottery",)})
    assert why(s, "turn_up", "pottery") == "Pottery is already out: Ben bought it."
    assert why(s, "turn_up", "Grassland") == "Grassland is a plot card; the app asks for a technology card."


def test_a_building_every_copy_of_which_is_in_sight():
    s = started(2)
    s = arranged(s, step="purchase", res={"p1": (0, 20, 0)},
                 plots={"p1": (("Grassland", 0, ("Granary",)), ("Hills", 0, ("Granary",))) + FOUR[2:]},
                 discard_known=("Granary",))
    text = why(s, "build", "granary")
    assert text == "All 3 Granary cards are already out (Ana's plot 1, Ana's plot 2 and the discard pile)."
    # a hand the app knows entirely
    s = arranged(started(2), step="purchase", hand={"p1": 1}, known={"p1": ("Archers",)})
    assert why(s, "build", "library") == "The app knows every card in Ana's hand (Archers): no Library among them."


def test_a_technology_too_dear_and_a_unit_that_cannot_attack():
    s = arranged(started(2), step="purchase", res={"p1": (0, 0, 1)}, tech_row=("Mining", "Engineering", "Writing"))
    assert why(s, "buy_tech", "engineering") == "Engineering costs 12 Coins; you have 1 Coin."
    s = arranged(started(2), step="combat")
    assert why(s, "attack", "archers") == "Archers cannot attack."
    assert why(s, "attack", "granary") == "Granary is a building card, not a military unit."
