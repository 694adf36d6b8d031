"""Bad input is rejected with the rule it breaks and nothing applied; the view speaks plain words."""
import json

import pytest

from companion.engine import Rejected
from companion.engine.errors import MalformedAction
from companion.games.mint_works import MODULE, VIEW
from mw_helpers import G, apply, position, start


def rejected(s, rule, **a):
    before = s.to_dict()
    with pytest.raises(Rejected) as ei:
        G.apply(s, G.codec.make(**a) if "type" in a else a)
    assert ei.value.rule == rule, ei.value
    assert s.to_dict() == before
    return ei.value.message


def test_every_bad_placement_names_its_rule():
    _, s = start()
    s = s.copy()
    s.deck += s.supply
    s.supply = []
    for pid in ("mine", "plant", "statue"):
        s.deck.remove(pid)
        s.supply.append(pid)
    assert "is not in the Plan Supply" in rejected(s, "supplier.supply", type="place", player="p1",
                                                   location="supplier", plan="gardens")
    assert "needs 5 Mints; only 3" in rejected(s, "mints.negative", type="place", player="p1",
                                               location="supplier", plan="plant")
    assert "no unbuilt Plan" in rejected(s, "builder.unbuilt", type="place", player="p1", location="builder")
    assert "closed" in rejected(s, "place.closed", type="place", player="p1", location="lotto")
    rejected(s, "place.location", type="place", player="p1", location="temp_agency")
    rejected(s, "place.location", type="place", player="p1", location="castle")
    rejected(s, "flow.actor", type="place", player="p2", location="producer")
    rejected(s, "flow.step", type="coop_give", player="p1", beneficiary="p2")
    rejected(s, "flow.step", type="draw", plan="gardens")
    s1 = G.apply(s, G.codec.make("place", player="p1", location="leadership_council"))
    assert "every Mint Placement Space" in rejected(s1, "place.occupied", type="place", player="p2",
                                                    location="leadership_council")
    s2 = position(s, "p1", [("windmill", True), ("gardens", False)])
    assert "not an unbuilt Plan of yours" in rejected(s2, "builder.unbuilt", type="place", player="p1",
                                                     location="builder", plan="windmill")
    poor = position(s, "p1", [("gardens", False)], mints=1)
    rejected(poor, "mints.negative", type="place", player="p1", location="builder", plan="gardens")


def test_corrections_and_malformed_actions():
    _, s = start()
    assert "below 0" in rejected(s, "mints.negative", type="set_mints", player="p1", value=-1)
    rejected(s, "table.mints", type="set_mints", player="p4", value=2)
    with pytest.raises(MalformedAction):
        G.apply(s, {"type": "place", "player": "p9", "location": "producer"})
    with pytest.raises(MalformedAction):
        G.apply(s, {"type": "place", "player": "p1"})
    t = G.apply(s, G.codec.make("set_mints", player="p1", value=7))
    assert t.mints["p1"] == 7 and G.status(t) == []


def test_setups_the_rules_refuse():
    with pytest.raises(ValueError, match="choose an AI"):
        MODULE.setup_from_form([{"name": "A", "colour": "blue"}], {"opponent": "none"})
    two = MODULE.setup_from_form([{"name": "A", "colour": "blue"}, {"name": "B", "colour": "red"}],
                                 {"opponent": "mort"})
    assert two["opponent"] is None and set(two["players"]) == {"p1", "p2"}  # solitaire only
    assert MODULE.sample_setup()["opponent"] == "justin"
    assert MODULE.sample_setup()["players"]["p2"] == {"name": "Justin", "colour": "white", "ai": "justin"}
    with pytest.raises(ValueError, match="Advanced location"):
        MODULE.setup_from_form([{"name": "A", "colour": "blue"}, {"name": "B", "colour": "red"}],
                               {"advanced": "recycler"})


def test_labels_prompt_and_player_lines_in_plain_words():
    setup, s = start(2, advanced="recycler+crowdfunder")
    s = s.copy()
    s.deck += s.supply
    s.supply = []
    for pid in ("mine", "plant", "statue"):
        s.deck.remove(pid)
        s.supply.append(pid)
    lab = lambda **a: VIEW.action_label(a, s, setup)  # noqa: E731
    assert lab(type="place", player="p1", location="supplier", plan="mine") == \
        "Ana: place 2 mints on the Supplier, buy the Mine"
    assert lab(type="place", player="p1", location="producer") == "Ana: place 1 mint on the Producer"
    assert lab(type="place", player="p1", location="crowdfunder", beneficiary="p2") == \
        "Ana: place 3 mints on the Crowdfunder, 1 more mint to Ben"
    assert lab(type="pass", player="p2") == "Ben: pass"
    assert lab(type="draw", plan="vault") == "Plan drawn: Vault (cost 5, 2 stars per face-down plan)"
    text = VIEW.prompt(G, s, setup)
    assert "Ana: place mints on a free space, or pass (3 mints in hand)." in text
    # the prompt says the decision (and the plans dealt to lay out) only; the supply and the
    # locations are in the panel's snapshot
    assert "Plan Supply:" not in text and "Producer" not in text
    snap = VIEW.snapshot(G, s, setup)["mint_works"]
    assert snap["supply_words"].startswith(
        "Plan Supply: Mine (Production, cost 2), Plant (Production, cost 5), Statue (Culture, cost 2)")
    line = {x["id"]: x["text"] for x in snap["line"]}
    assert line["producer"] == "Producer: free, free" and line["wholesaler"] == "Wholesaler: closed"
    s = G.apply(s, G.codec.make("place", player="p1", location="producer"))
    assert {x["id"]: x["text"] for x in VIEW.snapshot(G, s, setup)["mint_works"]["line"]}["producer"] \
        == "Producer: Ana (1), free"
    lines = dict((x[0], x[1]) for x in VIEW.player_lines(G, s, setup, "p1"))
    assert lines["Mints"] == "[b]4[/b]" and lines["Built"] == "none"
    assert "Round 1" in VIEW.header(G, s, setup) and "Ben" in VIEW.header(G, s, setup)
    assert VIEW.step_help("turn").startswith("Place:")


def test_the_app_deck_tells_the_table_which_card_to_put_out():
    from companion.engine.dice import SeededDice
    from mw_helpers import setup_for
    setup = setup_for(2, seed=4)
    s = G.initial_state(setup)
    assert G.actor(s) == "system" and "tap Let the app draw" in VIEW.prompt(G, s, setup)
    a = G.chance_action(s, SeededDice(4))
    s = G.apply(s, a)
    assert f"Put the {G.data.plan_name(a['plan'])} face up in the Plan Supply." in VIEW.prompt(G, s, setup)
    assert MODULE.roll_awaited(s)["action"] == "draw"


def test_every_plan_drawn_since_the_last_decision_is_told_after_the_ai_moved():
    """A draw, the AI's move after it, another draw: the table is told both cards to lay out, in
    the order things happened, until the player decides again (an action's events name only
    its own draws, and the app plays the AI at once after a draw)."""
    setup, s = start(1, opponent="rachael", seed=1)
    for loc in ("producer", "leadership_council"):
        s = apply(s, G.codec.make("place", player="p1", location=loc))
    s = G.apply(s, G.codec.make("place", player="p1", location="supplier", plan="gardens"))
    draw = G.chance_action(s, None)  # the replacement (MW-SR1)
    s = G.apply(s, draw)
    first = f"Put the {G.data.plan_name(draw['plan'])} face up in the Plan Supply."
    assert VIEW.prompt(G, s, setup).startswith(first + "\n")
    s = G.apply(s, G.app_action(s, "p2"))  # Rachael buys it: another replacement is awaited
    assert s.plans["p2"] == [(draw["plan"], False, False)] and G.actor(s) == "system"
    assert not [e for e in s.events if e[0] == "drawn"] and first in VIEW.prompt(G, s, setup)
    again = G.chance_action(s, None)
    s = G.apply(s, again)
    second = f"Put the {G.data.plan_name(again['plan'])} face up in the Plan Supply."
    (bought,) = s.ai_turn
    assert "buys the" in bought
    assert VIEW.prompt(G, s, setup) == (f"{first} {bought} {second}\n"
                                        "Ana: place mints on a free space, or pass (1 mint in hand).")
    s = apply(s, G.codec.make("pass", player="p1"))  # Ana decides: the table was told them
    assert s.drawn == [] and "face up" not in VIEW.prompt(G, s, setup)


def test_a_lotto_plan_told_to_the_table_stays_hidden_from_the_other_seats():
    setup, s = start(2, seed=1)
    s = position(s, "p1", [("lotto", True)])  # Ana built the Lotto: it is open
    s = G.apply(s, G.codec.make("pass", player="p1"))
    s = G.apply(s, G.codec.make("place", player="p2", location="lotto"))
    s = G.apply(s, G.chance_action(s, None))
    ((_, _, won, _),) = s.drawn
    name = G.data.plan_name(won)
    assert f"Ben: take the {name} face down (Lotto)." in VIEW.prompt(G, s, setup)
    assert f"Ben: take the {name} face down (Lotto)." in VIEW.prompt(G, MODULE.seat_view(s, "p2"), setup)
    ana = MODULE.seat_view(s, "p1")
    assert "Ben: take a plan face down (Lotto)." in VIEW.prompt(G, ana, setup)
    assert ana.drawn == [("lotto", "p2", "?", 0)] and name not in VIEW.prompt(G, ana, setup)
    cards = {k: v for k, v in ana.to_dict().items() if k in ("supply", "deck", "bottom", "plans", "drawn")}
    assert won not in json.dumps(cards)  # (a Deed plan shares its id with its location)


def test_the_round_summary_card():
    from mw_helpers import play, setup_for
    setup = setup_for(2, seed=3)
    s, actions = play(setup, 3)
    history = [(a, "ui") for a in actions]
    card = VIEW.round_summary(G, setup, history, 1)
    assert card["title"].startswith("[b]Round 1 ended[/b]") and "starts round 2" in card["title"]
    assert [r[0] for r in card["rows"]] == ["p1", "p2"] and "stars" in card["rows"][0][1]
    last = VIEW.round_summary(G, setup, history, s.round)
    assert last is not None and "starts" not in last["title"]
