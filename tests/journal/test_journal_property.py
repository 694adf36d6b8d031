"""Property: any sequence of appends / undos / reopens matches a simple in-memory model."""
import tempfile
from pathlib import Path

from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from companion.store.journal import Journal, UndoRefused

json_leaf = st.none() | st.booleans() | st.integers(-2**63, 2**63) | \
    st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
json_value = st.recursive(
    json_leaf,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3),
    max_leaves=8)
action_types = st.sampled_from(["move", "roll", "spend", "build", "trade", "combat_roll"])


def is_chance(action):
    return action["type"] in ("roll", "combat_roll")


class JournalModel(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.dir = tempfile.TemporaryDirectory()
        self.path = Path(self.dir.name) / "p.journal"
        self.j = Journal.create(self.path, "civmint", {"players": ["p1", "p2"]}, "t")
        self.raw = []        # (seq, source, action) of every row, corrections included
        self.effective = []  # (seq, source, action) of effective actions
        self.chance_seq = 0  # seq of the latest chance action ever appended

    @rule(kind=action_types, payload=st.dictionaries(st.text(max_size=6).filter(lambda k: k != "type"),
                                                     json_value, max_size=3),
          source=st.sampled_from(["ui", "board", "system"]))
    def append(self, kind, payload, source):
        action = dict(payload, type=kind)
        seq = self.j.append(action, source)
        assert seq == len(self.raw) + 1
        self.raw.append((seq, source, action))
        self.effective.append((seq, source, action))
        if is_chance(action):
            self.chance_seq = seq

    @rule()
    def undo(self):
        if not self.effective or self.effective[-1][0] <= self.chance_seq:
            try:
                self.j.undo(is_chance)
            except UndoRefused:
                return
            raise AssertionError("undo should have been refused")
        target = self.effective.pop()
        entry = self.j.undo(is_chance)
        assert (entry.seq, entry.source, entry.action) == target
        seq = len(self.raw) + 1
        self.raw.append((seq, "ui", {"type": "_undo", "target": target[0]}))

    @rule()
    def reopen(self):
        self.j.close()
        self.j = Journal.open(self.path)

    @precondition(lambda self: len(self.raw) % 5 == 0)
    @rule()
    def reopen_from_scratch_and_compare(self):
        self.j.close()
        self.j = Journal.open(self.path)
        self.check()

    @invariant()
    def check(self):
        assert [(e.seq, e.source, e.action) for e in self.j.actions()] == self.effective
        assert [(e.seq, e.source, e.action) for e in self.j.entries()] == self.raw
        assert len(self.j) == len(self.effective)

    def teardown(self):
        self.j.close()
        with Journal.open(self.path) as j:  # a final fresh read of the file
            assert [(e.seq, e.source, e.action) for e in j.actions()] == self.effective
            assert [(e.seq, e.source, e.action) for e in j.entries()] == self.raw
        self.dir.cleanup()


JournalModel.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
TestJournalModel = JournalModel.TestCase
