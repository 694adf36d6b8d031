"""The core is game-agnostic: a tiny second game built only from engine pieces runs through Session."""
import pytest

from companion.engine import ActionCodec, ActionSchema, Flow, Game, Rejected, Session


class ToyState:
    __slots__ = ("step", "turn", "first", "scores", "over")

    def copy(self):
        s = ToyState()
        s.step, s.turn, s.first, s.scores, s.over = self.step, self.turn, self.first, dict(self.scores), self.over
        return s

    @property
    def active(self):
        return ("p1", "p2")[self.turn]


class RaceToTen(Game):
    """Each turn: roll a die (chance), then bank it or pass. First to 10 wins."""
    name = "toy"

    def __init__(self):
        self.flow = Flow({"phases": [{"id": "turns", "per_player": True, "steps": ["roll", "bank"]}],
                          "steps": {"roll": {"actions": ["roll"]}, "bank": {"actions": ["bank", "pass"]}}})
        self.codec = ActionCodec([ActionSchema("roll", {"die": "die"}, chance=True),
                                  ActionSchema("bank", {"player": "seat"}),
                                  ActionSchema("pass", {"player": "seat"})])

    def initial_state(self, setup):
        s = ToyState()
        s.step, s.turn, s.first, s.scores, s.over = "roll", 0, "p1", {"p1": 0, "p2": 0, "last": 0}, False
        return s

    def actor(self, s):
        return None if s.over else ("system" if s.step == "roll" else s.active)

    def is_over(self, s):
        return s.over

    def chance_action(self, s, dice):
        return self.codec.fast("roll", die=dice.roll(1)[0]) if s.step == "roll" else None

    def pseudo_legal_actions(self, s):
        return [self.codec.fast("bank", player=s.active), self.codec.fast("pass", player=s.active)]

    def _next(self, s):
        s.step, s.turn, _ = self.flow.next(s.step, s.turn)

    def check_roll(self, s, a):
        if not 1 <= a["die"] <= 6:
            raise Rejected("dice.range", "die outside 1..6")

    def do_roll(self, s, a):
        s.scores["last"] = a["die"]
        self._next(s)

    def check_bank(self, s, a):
        pass

    def do_bank(self, s, a):
        s.scores[a["player"]] += s.scores["last"]
        s.over = s.scores[a["player"]] >= 10
        self._next(s)

    check_pass = check_bank

    def do_pass(self, s, a):
        self._next(s)


def test_a_second_game_runs_on_the_same_core():
    g = RaceToTen()
    sess = Session.new(g, {}, None, seed=3)
    with pytest.raises(Rejected) as ei:
        sess.dispatch({"type": "roll", "die": 9}, "board")
    assert ei.value.rule == "dice.range"
    n = 0
    while not sess.state.over:
        if sess.actor() == "system":
            sess.roll()
        else:
            sess.dispatch({"type": "bank", "player": sess.actor()}, "ui")
        n += 1
        assert n < 100
    assert max(sess.state.scores["p1"], sess.state.scores["p2"]) >= 10
    assert sess.legal_actions() == []
