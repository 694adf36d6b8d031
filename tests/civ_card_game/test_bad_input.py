"""Bad input: each refused with the rule it breaks, nothing applied."""
from __future__ import annotations

import json

import pytest
from cc_helpers import act, arranged, rejected, started

from companion.engine.errors import MalformedAction, SetupError
from companion.games.civ_card_game.data_load import DATA, DataError, load_cards, load_rules
from companion.games.civ_card_game.rules import GAME

FOUR = (("Grassland", 0, ()), ("Hills", 0, ()), ("River", 0, ()), ("Plains", 0, ()))


@pytest.fixture
def buying():
    s = act(started(), "collect", player="p1", bonus={"food": 1})
    return arranged(s, res={"p1": (5, 5, 5)}, plots={"p1": FOUR}, known={"p1": ("Library",)}, hand={"p1": 1})


def test_a_purchase_that_cannot_be_paid(buying):
    rejected(buying, "CC-P1", "buy_population", player="p1", plot=0)  # 6 Food, 5 in hand
    rejected(buying, "CC-P2", "buy_plot", player="p1", card=buying.plot_row[0], pay={"food": 5, "hammer": 5, "coin": 5,
                                                                                       "bread": 0})
    rejected(buying, "CC-P2", "buy_plot", player="p1", card=buying.plot_row[0], pay={"food": 5, "hammer": 5, "coin": 4})
    rejected(buying, "CC-P2", "buy_plot", player="p1", card=buying.plot_row[0], pay={"food": 15})
    rejected(buying, "CC-P3", "buy_tech", player="p1", card="Engineering")  # 12 Coins
    rich = arranged(buying, res={"p1": (0, 4, 0)})
    rejected(rich, "CC-P3", "build", player="p1", card="Library", plot=0)  # 5 Hammers
    rejected(buying, "CC-R1", "trade", player="p1", give="food", get="food")
    rejected(arranged(buying, res={"p1": (2, 0, 0)}), "CC-R1", "trade", player="p1", give="food", get="coin")


def test_a_building_on_a_full_plot(buying):
    s = arranged(buying, res={"p1": (0, 20, 0)}, plots={"p1": (("Grassland", 0, ("Granary",)),) + FOUR[1:]})
    rejected(s, "CC-B1", "build", player="p1", card="Library", plot=0)
    rejected(s, "CC-B1", "build", player="p1", card="Library", plot=9)
    rejected(s, "CC-B2", "build", player="p1", card="Archers", plot=1)


def test_a_technology_that_is_not_face_up(buying):
    s = arranged(buying, res={"p1": (0, 0, 20)})
    hidden = next(t for t in s.tech_deck)
    rejected(s, "CC-P3", "buy_tech", player="p1", card=hidden)
    rejected(s, "CC-P3", "buy_tech", player="p1", card="Time Travel")


def test_a_card_the_hand_cannot_hold(buying):
    s = arranged(buying, res={"p1": (0, 20, 0)}, known={"p1": ()}, hand={"p1": 0})
    rejected(s, "CC-H1", "build", player="p1", card="Library", plot=1)  # an empty hand
    # every Pyramids (one copy) already built by p2: no hand can hold it
    s = arranged(s, hand={"p1": 3}, plots={"p2": (("River", 0, ("Pyramids",)),) + FOUR[1:]})
    rejected(s, "CC-H1", "build", player="p1", card="Pyramids", plot=1)
    rejected(s, "CC-R2", "play_resource", player="p1", card="Library")


def test_an_illegal_defender_or_attack():
    s = act(started(), "collect", player="p1", bonus={"food": 1})
    s = act(s, "done", player="p1")
    s = arranged(s, known={"p1": ("Chariot", "Archers"), "p2": ("Swordsmen", "Chariot")}, hand={"p1": 2, "p2": 2},
                 plots={"p2": (("Grassland", 1, ()),) + FOUR[1:]})
    rejected(s, "CC-C2", "attack", player="p1", card="Archers", target="p2")  # Archers only defend
    rejected(s, "CC-C1", "attack", player="p1", card="Chariot", target="p1")
    rejected(s, "CC-C1", "fight", player="p1")  # nothing declared
    s = act(s, "attack", player="p1", card="Chariot", target="p2")
    rejected(s, "CC-C1", "done", player="p1")
    s = act(s, "fight", player="p1")
    rejected(s, "CC-C5", "block", player="p2", card="Swordsmen", attacker=0)
    rejected(s, "CC-C5", "block", player="p2", card="Chariot", attacker=0)
    rejected(s, "CC-H1", "block", player="p2", card="Archers", attacker=0)  # not in p2's known hand, none unknown
    rejected(s, "CC-C5", "block", player="p2", card="Archers", attacker=3)
    rejected(s, "flow.actor", "block", player="p1", card="Archers", attacker=0)


def test_out_of_turn_and_out_of_step():
    s = started()
    rejected(s, "flow.actor", "collect", player="p2")
    rejected(s, "flow.step", "buy_tech", player="p1", card="Mining")
    rejected(s, "flow.step", "end_turn", player="p1")


def test_setup_decisions_only_from_what_is_there():
    s = GAME.initial_state(GAME.default_setup(players=2))
    rejected(s, "CC-M1", "turn_up", player="p2", card="Atlantis")
    rejected(s, "flow.actor", "turn_up", player="p1", card="Grassland")  # the dealer (p2) deals
    s = arranged(s, plot_deck={**s.plot_deck, "Oasis": 0})
    rejected(s, "CC-M1", "turn_up", player="p2", card="Oasis")


def test_corrections_are_checked():
    s = started()
    rejected(s, "CC-X1", "correct", player="p1", what="gold", value=3)
    rejected(s, "CC-X1", "correct", player="p1", what="food", value=-1)
    rejected(s, "CC-X1", "correct", player="p1", what="hand", value=999)
    s2 = act(s, "correct", player="p2", what="coin", value=7)
    assert s2.res["p2"][2] == 7 and GAME.status(s2) == []
    s3 = act(s, "correct", player="p1", what="hand", value=1)
    assert s3.hand["p1"] == 1 and GAME.status(s3) == []


def test_malformed_actions_and_setups():
    with pytest.raises(MalformedAction):
        GAME.action_from_dict({"type": "buy_plot", "player": "p1", "card": "Hills", "pay": {"food": "lots"}})
    with pytest.raises(MalformedAction):
        GAME.action_from_dict({"type": "build", "player": "p9", "card": "Library", "plot": 0})
    with pytest.raises(SetupError):
        GAME.initial_state({"players": {f"p{i}": {"name": str(i)} for i in range(1, 6)}})
    with pytest.raises(SetupError):
        GAME.initial_state({"players": {"p1": {}, "p3": {}}})


@pytest.mark.parametrize("name,change,words", [
    ("cards.json", lambda c: c["plots"]["Hills"].update(copies=0), "copies"),
    ("cards.json", lambda c: c["units"]["Spearmen"].update(defends_against=["Dragon"]), "defends_against"),
    ("cards.json", lambda c: c["technologies"]["Mining"].update(cost="six"), "cost"),
    ("cards.json", lambda c: c["buildings"]["Granary"].update(discount={"magic": 1}), "discount"),
    ("cards.json", lambda c: c["resources"].update(Hills={"copies": 1, "yield": {"food": 1}}), "unique"),
    ("rules.json", lambda r: r.update(plot_cost={"base": 15}), "plot_cost"),
    ("rules.json", lambda r: r.update(status_ties="coin toss"), "status_ties"),
    ("rules.json", lambda r: r.update(round_limit=0), "round_limit"),
])
def test_bad_data_files_are_refused_naming_the_entry(tmp_path, name, change, words):
    with open(f"{DATA}/{name}", encoding="utf-8") as f:
        data = json.load(f)
    change(data)
    p = tmp_path / name
    p.write_text(json.dumps(data))
    with pytest.raises(DataError) as e:
        (load_cards if name == "cards.json" else load_rules)(str(p))
    assert words in str(e.value)
    p.write_text("{not json")
    with pytest.raises(DataError):
        (load_cards if name == "cards.json" else load_rules)(str(p))


def test_a_default_set_up_outside_2_to_4_players_is_refused_naming_the_range():
    for n in (1, 5, 9):
        with pytest.raises(SetupError) as e:
            GAME.default_setup(players=n)
        assert "2-4 players" in str(e.value)
