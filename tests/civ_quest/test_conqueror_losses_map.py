"""Civ Quest cases read against the text: the Conqueror's extra Clash Phases (CQ-L6, CQ-R4), a
city's breaking is the player's choice (CQ-D4..D5, CQ-R11), the map's "about 20 areas per
player" at every player count (CQ-R1)."""
from __future__ import annotations

from cq_helpers import act, rejected, started, to_step, with_units

from companion.games.civ_quest.data_load import Board, load_map
from companion.games.civ_quest.rules import GAME


def _conqueror_at_clash(extra):
    """p1 (Thrace) borders p2 (Bithynia) and p3 (Moesia); p1's leader is a Conqueror with
    `extra` extra Clash Phases."""
    s = with_units(started(3), macedonia=None, syria=None, lower_egypt=None, thrace=("p1", 9, False),
                   bithynia=("p2", 5, False), moesia=("p3", 5, False))
    s = act(s, "leader_roll", die=6)
    assert s.ctx["leader"] == "Conqueror" or GAME.leaders[s.ctx["leader"]].get("bonus") == "wars"
    s = act(s, "leader_bonus_roll", die=extra)
    return to_step(s, "clash")


def _win_war(s, opp, frm, to):
    s = act(s, "war", player="p1", opponent=opp, from_area=frm, to_area=to)
    s = act(s, "war_roll", first=6, second=6)   # 12 + 1 (Conqueror)
    return act(s, "war_roll", first=1, second=1)


def test_each_extra_clash_phase_offers_every_neighbour_war_or_neither():
    s = _conqueror_at_clash(1)
    assert s.ctx["queue"] == ("p2", "p3")          # the normal phase: trade, war or neither
    s = act(s, "peace", player="p1", opponent="p2")
    s = act(s, "peace", player="p1", opponent="p3")
    # the one extra phase: every neighbour again, War only
    assert s.step == "clash" and s.ctx["queue"] == ("p2", "p3")
    rejected(s, "CQ-L6", "trade", player="p1", opponent="p2")
    assert not any(a.type == "trade" for a in GAME.legal_actions(s))
    # the old reading's single free war against any neighbour is refused: p2 comes first
    rejected(s, "CQ-T1", "war", player="p1", opponent="p3", from_area="thrace", to_area="moesia")
    s = _win_war(s, "p2", "thrace", "bithynia")
    assert s.units["bithynia"] == ("p1", 1, False)
    # the same phase goes on to the second neighbour (the old engine ended it after one war)
    assert s.step == "clash" and s.ctx["queue"] == ("p3",)
    wars = [a for a in GAME.legal_actions(s) if a.type == "war"]
    assert wars and all(a["opponent"] == "p3" for a in wars)
    s = _win_war(s, "p3", "thrace", "moesia")
    assert s.step == "migration" or s.current != "p1" or s.over


def test_the_conqueror_may_give_up_his_remaining_extra_phases():
    s = _conqueror_at_clash(3)
    s = act(s, "peace", player="p1", opponent="p2")
    s = act(s, "peace", player="p1", opponent="p3")
    assert s.ctx["queue"] == ("p2", "p3") and s.ctx["extra_wars"] == 2   # phase 1 of 3 running
    s = act(s, "peace", player="p1", opponent="p2")
    s = act(s, "peace", player="p1", opponent="p3")
    assert s.ctx["queue"] == ("p2", "p3") and s.ctx["extra_wars"] == 1   # phase 2 of 3
    s = act(s, "done", player="p1")
    assert s.step == "migration"


def _disaster(s, casualty):
    s = to_step(s, "disaster")
    for t, d in (("disaster_roll", 6), ("disaster_type_roll", 4), ("casualty_roll", casualty)):
        s = act(s, t, die=d)            # Earthquake: nothing mitigates it
    return s


def test_losses_as_large_as_all_tokens_and_cities_do_not_remove_a_city_unasked():
    s = _disaster(with_units(started(), macedonia=None, thrace=("p1", 0, True)), 6)
    assert s.units["thrace"] == ("p1", 1, True)     # the Growth roll's 1 PT
    assert s.ctx["losses"] == 6                       # 1 PT + 5 for the city: the old engine removed all
    assert not s.players["p1"].out
    rejected(s, "CQ-D4", "done", player="p1")         # the tokens go first
    s = act(s, "lose", player="p1", area="thrace", count=1)
    assert s.ctx["losses"] == 5 and s.units["thrace"] == ("p1", 0, True)
    types = {a.type for a in GAME.legal_actions(s)}
    assert types == {"done", "break_city"}            # breaking is a choice, not the only way
    kept = act(s, "done", player="p1")
    assert kept.units["thrace"] == ("p1", 0, True) and kept.ctx["losses"] == 0
    assert not kept.players["p1"].out and kept.step != "disaster"
    broken = act(s, "break_city", player="p1", area="thrace")
    assert "thrace" not in broken.units and broken.players["p1"].out   # 5 PT, 5 lost: nothing left


def test_a_player_with_tokens_and_a_city_chooses_where_losses_fall():
    s = _disaster(with_units(started(), macedonia=("p1", 2, True)), 3)
    pt = s.units["macedonia"][1]
    assert s.ctx["losses"] == 3 and pt >= 3
    # one area, but it has a city: the player may break it first, so nothing is taken unasked
    assert {a.type for a in GAME.legal_actions(s)} == {"lose", "break_city"}
    s = act(s, "lose", player="p1", area="macedonia", count=3)
    assert s.units["macedonia"] == ("p1", pt - 3, True) and s.ctx["losses"] == 0


def test_the_map_has_about_20_areas_per_player_for_every_count():
    raw = load_map()
    for n in range(2, 8):
        b = Board(raw, n)
        assert 18 * n <= len(b.order) <= 22 * n, (n, len(b.order))
        # every area in play can be reached from every other (the map is one piece)
        seen, todo = {b.order[0]}, [b.order[0]]
        while todo:
            for y in b.adj[todo.pop()]:
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        assert seen == set(b.order), (n, set(b.order) - seen)
    s = GAME.initial_state(GAME.default_setup(players=7))
    assert len(s.board.order) == 140 and len(s.board.land) >= 100
