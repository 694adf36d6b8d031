"""Civ Builder rules: worked examples from the text, privileges, special actions, bad input."""
import pytest

from cb_helpers import ATTRIBUTES, GAME, act, setup_state, to_step, with_attrs
from companion.engine import Rejected, SetupError
from companion.engine.dice import SeededDice
from companion.games.civ_builder.data_load import DATA

GOV4 = [3] * 7 + [4] + [3] * 3  # p1: Government 4, so p1 goes first without a roll-off


def started(players=2, **kw):
    return setup_state(players, dice={"p1": GOV4}, **kw)


def rejected(s, rule, type, **kw):
    with pytest.raises(Rejected) as ei:
        act(s, type, **kw)
    assert ei.value.rule == rule, ei.value
    return ei.value


def at_turn(s=None, **attrs):
    s = started() if s is None else s
    s = to_step(s, "trade")
    s = with_attrs(s, **attrs)
    return act(s, "end_trade", player=s.order[0])


# ------------------------------------------------------------------ setup
def test_ten_civilisations_and_their_extra_attribute_as_data():
    assert len(DATA.civs) == 10
    assert DATA.civs["middle_east"]["extra"] == "trade" and DATA.civs["meso_america"]["extra"] == "science"
    assert sorted(c["extra"] for c in DATA.civs.values()) == sorted(ATTRIBUTES)
    assert DATA.deck_total == 108


def test_setup_rolls_one_die_per_attribute_plus_the_civilisation_extra_then_five_cards():
    s = GAME.initial_state(GAME.default_setup(players=2))
    s = act(s, "choose_civ", player="p1", civ="india")
    rejected(s, "CB-CIV-UNIQUE", "choose_civ", player="p2", civ="india")
    rejected(s, "CB-CIV-CHOICE", "choose_civ", player="p2", civ="atlantis")
    s = act(s, "choose_civ", player="p2", civ="china")
    assert s.step == "setup_roll" and GAME.awaited_roll(s) == ("p1", "conquest", False)
    rejected(s, "CB-SETUP-ROLL", "roll_trade", die=3)
    rejected(s, "CB-DICE", "roll_conquest", die=7)
    for i, attr in enumerate(ATTRIBUTES):
        s = act(s, "roll_" + attr, die=1 + i % 6)
    assert GAME.awaited_roll(s) == ("p1", "religion", True)  # India's extra die
    s = act(s, "roll_religion", die=6)
    assert s.attrs["p1"]["religion"] == 6 + 6 and s.attrs["p1"]["conquest"] == 1
    for _ in range(11):
        _, attr, _ = GAME.awaited_roll(s)
        s = act(s, "roll_" + attr, die=2)
    assert s.attrs["p2"]["government"] == 4 and s.round == 1
    # dealt 5, then drew 5 in the draw phase
    assert s.hand == {"p1": 10, "p2": 10} and s.deck == 108 - 20


@pytest.mark.parametrize("n", [1, 9])
def test_player_count_outside_2_to_8_is_refused(n):
    with pytest.raises(SetupError):
        GAME.initial_state({"players": {f"p{i + 1}": {"name": "x"} for i in range(n)}})


# ------------------------------------------------------------------ initiative
def test_initiative_by_government_then_religion_then_culture_then_roll_off():
    s = started(3)
    s = with_attrs(s, p1={"government": 5, "religion": 1}, p2={"government": 5, "religion": 2},
                   p3={"government": 9})
    s.round = 0
    GAME._start_round(s)
    assert s.order == ("p3", "p2", "p1")
    s = with_attrs(s, p1={"religion": 2, "culture": 4}, p2={"culture": 3})
    s.round = 0
    GAME._start_round(s)
    assert s.order == ("p3", "p1", "p2")
    s = with_attrs(s, p1={"culture": 3})
    s.round, s.deck, s.hand = 0, 108, {"p1": 0, "p2": 0, "p3": 0}
    GAME._start_round(s)
    assert s.step == "initiative_roll" and s.rolloff == ["p1", "p2"]
    s = act(s, "roll_off", die=4)
    s = act(s, "roll_off", die=4)  # tied again: roll again
    assert s.step == "initiative_roll" and s.rolloff == ["p1", "p2"]
    s = act(s, "roll_off", die=2)
    s = act(s, "roll_off", die=5)
    assert s.order == ("p3", "p2", "p1")


# ------------------------------------------------------------------ draw phase
def test_agriculture_leader_may_draw_a_sixth_card_and_only_the_leader():
    s = started()
    s = with_attrs(s, p2={"agriculture": 12})
    s.round = 0
    s.deck, s.hand = 98, {"p1": 5, "p2": 5}
    GAME._start_round(s)
    assert s.step == "sixth_card" and s.queue == ["p2"]
    err = rejected(s, "CB-DRAW-AGRI", "draw_sixth", player="p1")
    assert "Agriculture" in err.message
    s2 = act(s, "draw_sixth", player="p2")
    assert s2.hand == {"p1": 10, "p2": 11} and s2.deck == 98 - 11 and s2.step == "trade"


def test_deck_runs_out_the_discard_is_reshuffled_and_counts_kept():
    s = at_turn().copy()
    seat = s.order[0]
    s.discard, s.deck = s.deck + s.discard - 1, 1
    s = act(s, "meld", player=seat, attribute="agriculture", cards=1)
    before = s.hand[seat]
    s = act(s, "special", player=seat)
    assert s.hand[seat] == before + 3 and s.reshuffles == 1
    assert s.deck + s.discard + sum(s.hand.values()) == 108 and s.discard == 0
    assert any("shuffle the discard" in t for t in s.table)


# ------------------------------------------------------------------ melds
def test_a_second_meld_of_one_card_is_refused_and_nothing_applied():
    s = at_turn()
    seat = s.order[0]
    trade = s.attrs[seat]["trade"]
    s = act(s, "meld", player=seat, attribute="trade", cards=1)
    assert s.attrs[seat]["trade"] == trade + 1
    s = act(s, "skip_special", player=seat)
    snapshot = s.to_dict()
    err = rejected(s, "CB-MELD-SIZE", "meld", player=seat, attribute="culture", cards=1)
    assert "2nd meld" in err.message
    rejected(s, "CB-MELD-NATURAL", "meld", player=seat, attribute="culture", cards=0, leader=1)
    assert s.to_dict() == snapshot
    s = act(s, "meld", player=seat, attribute="culture", cards=1, leader=1)  # a Leader is wild
    assert s.melds == 2


def test_meld_scores_attribute_points_and_equal_victory_points_and_goes_to_the_discard():
    s = at_turn()
    seat = s.order[0]
    hand, discard, vp, sci = s.hand[seat], s.discard, s.vp[seat], s.attrs[seat]["science"]
    s = act(s, "meld", player=seat, attribute="science", cards=3, leader=1)
    assert s.attrs[seat]["science"] == sci + 4 and s.vp[seat] == vp + 4
    assert s.hand[seat] == hand - 4 and s.discard == discard + 4 and s.step == "special"


def test_meld_rules_leader_natural_hand_size():
    s = at_turn()
    seat = s.order[0]
    rejected(s, "CB-MELD-LEADER", "meld", player=seat, attribute="trade", cards=1, leader=2)
    rejected(s, "CB-MELD-NATURAL", "meld", player=seat, attribute="trade", cards=0, leader=1)
    rejected(s, "CB-MELD-HAND", "meld", player=seat, attribute="trade", cards=s.hand[seat] + 1)
    rejected(s, "CB-MELD-TYPE", "meld", player=seat, attribute="magic", cards=1)
    rejected(s, "CB-MELD-COUNT", "meld", player=seat, attribute="trade", cards=2, leader=-1)


def test_disasters_are_wild_only_for_the_religion_leader():
    s = at_turn()
    seat, other = s.order
    s = with_attrs(s, **{other: {"religion": 20}})
    err = rejected(s, "CB-MELD-DISASTER", "meld", player=seat, attribute="trade", cards=1, disasters=1)
    assert "Religion" in err.message
    s = with_attrs(s, **{seat: {"religion": 20}})  # tied: both hold it (CB-P1)
    s = act(s, "meld", player=seat, attribute="trade", cards=1, disasters=2)
    assert s.vp[seat] == 3


def test_seafaring_cards_wild_in_trade_and_conquest_melds_only_for_the_seafaring_leader():
    s = at_turn()
    seat, other = s.order
    s = with_attrs(s, **{other: {"seafaring": 20}})
    rejected(s, "CB-MELD-SEA", "meld", player=seat, attribute="conquest", cards=1, seas=1)
    s = with_attrs(s, **{seat: {"seafaring": 21}})
    rejected(s, "CB-MELD-SEA-TYPE", "meld", player=seat, attribute="culture", cards=1, seas=1)
    s = act(s, "meld", player=seat, attribute="conquest", cards=1, seas=2)
    assert s.attrs[seat]["conquest"] == 3 + 3


def test_pick_then_cards_entry_and_legal_list_holds_only_legal_melds():
    s = at_turn()
    seat = s.order[0]
    s = act(s, "pick_meld", player=seat, attribute="religion")
    la = GAME.legal_actions(s)
    melds = [a for a in la if a.type == "meld"]
    assert melds and all(a["attribute"] == "religion" for a in melds)
    assert all(GAME.meld_size(a) <= s.hand[seat] for a in melds)
    rejected(s, "CB-MELD-TYPE", "meld", player=seat, attribute="trade", cards=1)
    s = act(s, "cancel_meld", player=seat)
    assert s.step == "turn"


# ------------------------------------------------------------------ special actions
def _special(attr, s=None, **attrs):
    s = at_turn(s, **attrs)
    seat = s.order[0]
    return act(s, "meld", player=seat, attribute=attr, cards=1), seat, s.order[1]


def test_conquest_steals_two_points_one_at_a_time_and_only_what_is_there():
    s, me, opp = _special("conquest")
    poor = with_attrs(s, **{opp: {a: 0 for a in ATTRIBUTES}})
    poor.attrs[opp]["trade"] = 1
    # CB-SP5: a steal takes what is there (as the Equestrian's discard does): 1 point, then done
    poor = act(poor, "special", player=me, target=opp)
    assert poor.step == "conquest_take"
    trade = poor.attrs[me]["trade"]
    poor = act(poor, "take_point", player=me, attribute="trade")
    assert poor.attrs[me]["trade"] == trade + 1 and poor.step == "turn"
    rejected(s, "CB-SP-TARGET", "special", player=me, target=me)
    rejected(s, "CB-SP-TARGET", "special", player=me, target="p5")
    s = act(s, "special", player=me, target=opp)
    assert s.step == "conquest_take"
    s = with_attrs(s, **{opp: {"trade": 0}})
    rejected(s, "CB-SP-CONQUEST", "take_point", player=me, attribute="trade")
    before = (s.attrs[me]["culture"], s.attrs[opp]["culture"])
    s = act(s, "take_point", player=me, attribute="culture")
    s = act(s, "take_point", player=me, attribute="culture")
    assert (s.attrs[me]["culture"], s.attrs[opp]["culture"]) == (before[0] + 2, before[1] - 2)
    assert s.step == "turn"


def test_seafaring_steals_two_vp_or_what_the_target_has():
    s, me, opp = _special("seafaring")
    assert s.vp[opp] == 0
    none = act(s, "special", player=me, target=opp)           # nothing there: nothing taken
    assert none.vp == s.vp and none.step == "turn"
    one = s.copy()
    one.vp[opp] = 1
    one.vp_log.append((1, opp, 1, "meld", "trade"))
    one = act(one, "special", player=me, target=opp)           # CB-SP5: 1 VP, never below 0
    assert one.vp[opp] == 0 and one.vp[me] == s.vp[me] + 1
    s = s.copy()
    s.vp[opp] = 5
    s.vp_log.append((1, opp, 5, "meld", "trade"))
    vp = s.vp[me]
    s = act(s, "special", player=me, target=opp)
    assert s.vp[me] == vp + 2 and s.vp[opp] == 3
    sc = GAME.score(s)
    assert sc[opp]["items"]["stolen"] == -2 and sc[me]["items"]["seafaring"] == 2


def test_religion_steals_two_cards_or_what_the_target_holds():
    s, me, opp = _special("religion")
    h = dict(s.hand)
    s2 = act(s, "special", player=me, target=opp)
    assert s2.hand[me] == h[me] + 2 and s2.hand[opp] == h[opp] - 2
    s = s.copy()
    s.discard += s.hand[opp] - 1
    s.hand[opp] = 1
    mine = s.hand[me]
    s = act(s, "special", player=me, target=opp)              # CB-SP5: the one card there
    assert s.hand[opp] == 0 and s.hand[me] == mine + 1


def test_culture_engineering_agriculture_science_government_equestrian_trade_bookkeeping():
    s, me, opp = _special("culture")
    vp = s.vp[me]
    rejected(s, "CB-SP-FIELDS", "special", player=me, target=opp)
    assert act(s, "special", player=me).vp[me] == vp + 4
    s, me, opp = _special("engineering")
    s2 = act(s, "special", player=me)
    assert s2.vp[me] == s.vp[me] + 3 and s2.hand[me] == s.hand[me] + 2 and s2.deck == s.deck - 2
    s, me, opp = _special("science")
    s2 = act(s, "special", player=me)
    assert s2.hand[me] == s.hand[me] + 2 and s2.deck == s.deck - 2
    s, me, opp = _special("government")
    rejected(s, "CB-SP-GOVERNMENT", "special", player=me, count=s.hand[me] + 1)
    s2 = act(s, "special", player=me, count=3)
    assert s2.hand[me] == s.hand[me] + 2 and s2.discard == s.discard + 3 and s2.deck == s.deck - 5
    s, me, opp = _special("equestrian")
    s2 = act(s, "special", player=me, target=opp)
    assert s2.hand[opp] == s.hand[opp] - 3 and s2.discard == s.discard + 3
    s, me, opp = _special("trade")
    rejected(s, "CB-SP-TRADE", "special", player=me, target=opp, count=5)
    s2 = act(s, "special", player=me, target=opp, count=4)
    assert s2.hand == s.hand and "takes 4 cards" in s2.table[0]


# ------------------------------------------------------------------ score phase
def _score_round(rnd, **attrs):
    s = at_turn()
    s = s.copy()
    s.round = rnd
    s = with_attrs(s, **attrs)
    for seat in s.order:
        s = act(s, "end_turn", player=seat)
    while s.step == "science_point":
        s = act(s, "decline_science", player=s.queue[0])
    return s


def test_a_tie_for_an_attribute_scores_for_every_tied_player():
    s = _score_round(2, p1={a: 1 for a in ATTRIBUTES} | {"trade": 7},
                     p2={a: 0 for a in ATTRIBUTES} | {"trade": 7})
    rec = s.scoring[2]
    trade = next(r for r in rec["rows"] if r[0] == "trade")
    assert trade[2] == ("p1", "p2") and trade[3] == 1
    assert s.vp["p2"] == 1  # trade only
    assert s.vp["p1"] == 1 + 9 + 1  # trade (tie) + 9 others alone + Culture leader


def test_round_5_pays_2_vp_per_majority_and_round_9_pays_3():
    for rnd, band in ((1, 1), (4, 1), (5, 2), (8, 2), (9, 3), (12, 3)):
        s = _score_round(rnd, p1={a: 5 for a in ATTRIBUTES}, p2={a: 1 for a in ATTRIBUTES})
        assert s.scoring[rnd]["band"] == band
        assert s.vp["p1"] == 10 * band + 1 and s.vp["p2"] == 0, rnd


def test_science_leader_gains_a_point_before_the_majorities_and_only_the_leader():
    s = at_turn(p1={"science": 9, "culture": 4}, p2={"culture": 4})
    for seat in s.order:
        s = act(s, "end_turn", player=seat)
    assert s.step == "science_point" and s.queue == ["p1"]
    rejected(s, "CB-SCORE-SCIENCE", "science_point", player="p2", attribute="culture")
    s = act(s, "science_point", player="p1", attribute="culture")
    rec = s.scoring[1]
    assert rec["science"] == (("p1", "culture"),) and rec["culture_leader"] == ("p1",)


# ------------------------------------------------------------------ end phase
def test_hand_limit_5_and_7_for_the_conquest_leader():
    s = at_turn(p1={"conquest": 10})
    assert s.hand == {"p1": 10, "p2": 10}
    for seat in s.order:
        s = act(s, "end_turn", player=seat)
    s = to_step(s, "trade")
    assert s.round == 2 and s.hand["p1"] == 7 + 5 and s.hand["p2"] == 5 + 5


def test_equestrian_leader_may_discard_all_cards_for_3_vp():
    s = at_turn(p2={"equestrian": 12})
    for seat in s.order:
        s = act(s, "end_turn", player=seat)
    s = to_step(s, "equestrian")
    assert s.queue == ["p2"]
    rejected(s, "CB-END-EQUESTRIAN", "discard_all", player="p1")
    vp, d = s.vp["p2"], s.discard
    s = act(s, "discard_all", player="p2")
    # tied on Conquest (3 each): both kept 7 cards (CB-P1); p2 discarded those 7, then drew 5 in round 2
    assert s.vp["p2"] == vp + 3 and s.discard == d + 7 and s.hand["p2"] == 5 and s.round == 2


def test_game_ends_after_round_12_with_the_winner_or_a_shared_win():
    s = at_turn().copy()
    s.round = 12
    for seat in s.order:
        s = act(s, "end_turn", player=seat)
    s = to_step(s, "game_over")
    assert s.over and GAME.actor(s) is None and GAME.legal_actions(s) == []
    res = GAME.result(s)
    assert res["end_reasons"] == ["round_limit"]
    s.vp["p2"] = s.vp["p1"]
    assert GAME.result(s)["winner"] is None and GAME.result(s)["decided_by"] == "shared"
    rejected(s, "game.over", "end_turn", player="p1")


# ------------------------------------------------------------------ trade, corrections, flow
def test_trade_gifts_move_counts_and_bad_gifts_are_refused():
    s = to_step(started(), "trade")
    rejected(s, "CB-TRADE-GIVE", "give_cards", giver="p1", taker="p1", count=1)
    rejected(s, "CB-TRADE-GIVE", "give_cards", giver="p1", taker="p2", count=11)
    rejected(s, "CB-SEAT", "give_cards", giver="p1", taker="p4", count=1)
    s = act(s, "give_cards", giver="p1", taker="p2", count=2)
    assert s.hand == {"p1": 8, "p2": 12}


def test_hand_correction_moves_cards_to_and_from_the_discard():
    s = at_turn()
    s = act(s, "correct_hand", seat="p2", count=7)
    assert s.hand["p2"] == 7 and s.discard == 3
    s = act(s, "correct_hand", seat="p2", count=12)
    assert s.hand["p2"] == 12 and s.discard == 0 and s.deck + sum(s.hand.values()) == 108
    rejected(s, "CB-CORRECT", "correct_hand", seat="p2", count=-1)
    rejected(s, "CB-CORRECT", "correct_hand", seat="p2", count=200)


def test_wrong_player_and_wrong_step_are_rejected_by_the_flow():
    s = at_turn()
    rejected(s, "flow.actor", "end_turn", player=s.order[1])
    rejected(s, "flow.step", "end_trade", player=s.order[0])
    with pytest.raises(Rejected) as ei:
        GAME.apply(s, {"type": "meld", "player": "p1", "attribute": "trade"})
    assert ei.value.rule == "engine.malformed"


def test_chance_actions_only_when_a_roll_is_awaited():
    s = at_turn()
    assert GAME.chance_action(s, SeededDice(1)) is None
    rejected(s, "flow.step", "roll_off", die=3)


def test_an_equestrian_leader_with_no_card_may_still_discard_all_for_3_vp():
    # CB-E2: "may discard all of his cards to gain 3 VP" read as written: all of none is all
    s = at_turn(p2={"equestrian": 12}).copy()
    s.discard += s.hand["p2"]
    s.hand["p2"] = 0
    for seat in s.order:
        s = act(s, "end_turn", player=seat)
    s = to_step(s, "equestrian")
    assert s.queue == ["p2"] and {a.type for a in GAME.legal_actions(s)} == {"discard_all", "keep_cards"}
    vp = s.vp["p2"]
    s = act(s, "discard_all", player="p2")
    assert s.vp["p2"] == vp + 3


def test_a_default_set_up_outside_2_to_8_players_is_refused_naming_the_range():
    for n in (1, 9):
        with pytest.raises(SetupError) as e:
            GAME.default_setup(players=n)
        assert "2-8 players" in str(e.value)
