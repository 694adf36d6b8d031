"""The true history (companion/store/history_log.py): words fixed when an action happens, automatic
consequences listed, undone entries kept and marked, BG Stats export (issue 18, item 2)."""
import json

from companion.engine.session import Session
from companion.games import civmint
from companion.store.history_log import SOURCE_NAME, HistoryLog, bg_stats_play

from engine_helpers import P2_CAP, act, at, bare, new_game, no_cp, put

GAME, VIEW = civmint.GAME, civmint.VIEW
SETUP = GAME.default_setup(players={"p1": {"colour": "blue", "name": "Ana"},
                                    "p2": {"colour": "green", "name": "Ben"}})


def _record(log, before, type, **kw):
    a = GAME.codec.make(type, **kw).to_dict()
    after = GAME.apply(before, a)
    entry = log.record(len(log.entries) + 1, "ui", "", a, before, after)
    return after, entry


def test_a_moved_units_entry_reads_the_same_after_later_moves():
    log = HistoryLog(GAME, VIEW, SETUP)
    s = bare("move")
    cav = put(s, "p1", "cavalry", "r2c2")
    s, first = _record(log, s, "move", player="p1", unit=cav, to="r2c3")
    text = first.text
    # from where, to where: as it happened, rows and columns counted from 1 as on the printed map
    assert "row 3, column 3" in text and "row 3, column 4" in text, text
    s.units[cav] = s.units[cav]._replace(moved=False)  # a later turn
    s, _ = _record(log, s, "move", player="p1", unit=cav, to="r2c4")
    assert log.entries[0].text == text
    assert "row 3, column 4" in log.entries[1].text and "row 3, column 5" in log.entries[1].text


def test_an_earthquake_that_kills_a_cavalry_says_which_die_to_remove():
    log = HistoryLog(GAME, VIEW, SETUP)
    s = at(new_game(), "event_roll")
    s.units = {k: u for k, u in s.units.items() if u.kind == "capital"}
    cav = put(s, "p1", "cavalry", "r2c2")
    earthquake = next(int(n) for n, e in GAME.data.events["events"].items() if e["name"] == "Earthquake")
    total = earthquake - civmint.bonuses(s.players["p1"])["event_bonus"]  # p1 rolls an Earthquake
    dice = [min(6, total - 1), total - min(6, total - 1)]
    s, entry = _record(log, s, "roll_event", dice=dice)
    assert s.events["p1"] == earthquake
    if cav in s.units:  # the player chooses which unit: the only military unit is the Cavalry
        s, entry = _record(log, s, "event_lose", player="p1", units=[cav])
    assert cav not in s.units
    words = "\n".join(e for x in log.entries for e in x.effects)
    assert "Global event for Ana: %d - Earthquake" % earthquake in words
    assert "Ana's Cavalry at row 3, column 3 is gone: take its die off the map." in words
    assert "Settler" not in words


def test_a_battle_and_a_conquest_have_entries():
    log = HistoryLog(GAME, VIEW, SETUP)
    s = bare("combat", cspace=None)
    s.house = frozenset({"defenders_fight_every_battle"})
    inf = [put(s, "p1", "infantry", "r4c3") for _ in range(4)]
    no_cp(s)
    s.step = "move"
    for u in inf:
        s = act(s, "move", player="p1", unit=u, to=P2_CAP)
    s = act(s, "end_step", player="p1")
    for u in inf:
        s, _ = _record(log, s, "attack", player="p1", unit=u, target=P2_CAP)
        s, e = _record(log, s, "roll_combat", attacker=6, defender=1)
        assert e.text.endswith("rolled by Ana (attacker) and Ben (defender)"), e.text
        # four Infantry on one space: "one of Ana's 4 Infantry at ..." until their damage differs
        assert any(x.startswith("Battle: ") and "Ana's" in x and "Infantry at row 5, column 5 (6, total" in x
                   and "Ana wins" in x
                   and "Ben's Capital takes 1 damage" in x for x in e.effects), e.effects
    assert any(x.startswith("Ben's Capital (3 damage) at row 5, column 5 is conquered by Ana") for x in e.effects), e.effects


def _live_log(sess):
    """A HistoryLog kept up to date by `sess`'s actions, as the controller keeps it; and a
    one-item list holding the state after the latest action."""
    log = HistoryLog(GAME, VIEW, SETUP)
    state = [GAME.initial_state(SETUP)]

    def on(a, source, new):
        last = sess.journal.actions(last=1)[0]
        log.record(last.seq, source, last.created, a.to_dict(), state[0], new)
        state[0] = new
    sess.subscribe(on)
    return log, state


def test_undone_entries_stay_marked_and_the_rebuild_equals_the_live_log(tmp_path):
    sess = Session.new(GAME, SETUP, tmp_path / "g.journal", seed=4)
    log, state = _live_log(sess)
    sess.roll()
    for _ in range(6):
        la = sess.legal_actions()
        sess.dispatch(la[0], "ui")
    undone_text = log.entries[-1].text
    sess.undo()
    e = sess.journal.entries()[-1]
    state[0] = log.undone(e.seq, e.source, e.created, e.action["target"], state[0])
    assert log.entries[-2].undone and log.entries[-2].text == undone_text
    assert log.entries[-1].text == "Undo: " + undone_text and log.entries[-1].undo_of == log.entries[-2].seq
    assert "undone" in log.text().splitlines()[1]
    again = HistoryLog(GAME, VIEW, SETUP)
    end = again.rebuild(sess.journal.entries(), GAME.initial_state(SETUP))
    assert end == sess.state == state[0]
    assert [x.to_dict() for x in again.entries] == [x.to_dict() for x in log.entries]


def test_bg_stats_play_has_a_stable_source_and_a_unique_play_id(tmp_path):
    from companion.controller import GameController
    plays = []
    for n in range(2):
        c = GameController.new(tmp_path, ("Ana", "Ben"), ("blue", "green"), seed=11, max_rounds=1)
        while not c.game.is_over(c.state):
            if c.awaiting_dice():
                c.roll_virtual()
            else:
                c.dispatch(c.legal_actions()[-1])
        plays.append(c.bg_stats())
        path = c.export_to(tmp_path / "exports")
        assert json.loads(open(path).read())["history"]
        assert path.endswith(".json") and path.rsplit("/", 1)[-1].startswith("CivMint - Ana vs Ben - ")
        assert json.loads(open(path[:-5] + ".bgstats.json").read())["sourcePlayId"] == plays[-1]["sourcePlayId"]
        c.close()
    a, b = plays
    assert a["sourceName"] == b["sourceName"] == SOURCE_NAME
    assert a["sourcePlayId"] != b["sourcePlayId"]
    # the push-play import format: the game nested as an object, only that format's fields
    assert set(a) == {"sourceName", "sourcePlayId", "game", "playDate", "durationMin", "players", "comments"}
    assert a["game"] == {"name": "CivMint", "sourceGameId": "civmint", "highestWins": True, "noPoints": False}
    assert "round" in a["comments"] and "not finished" not in a["comments"]
    assert [p["name"] for p in a["players"]] == ["Ana", "Ben"]
    assert all(set(p) == {"name", "sourcePlayerId", "score", "winner", "startPlayer", "rank"} for p in a["players"])
    assert sum(p["winner"] for p in a["players"]) >= 1
    assert all(p["rank"] == 1 for p in a["players"] if p["winner"])
    assert all(p["rank"] == 2 for p in a["players"] if not p["winner"])
    assert all(p["score"].isdigit() for p in a["players"])
    assert sum(p["startPlayer"] for p in a["players"]) == 1
    assert len(a["playDate"]) == 19 and isinstance(a["durationMin"], int)


def test_an_unfinished_game_is_exported_without_a_winner(tmp_path):
    from companion.controller import GameController
    c = GameController.new(tmp_path, ("Ana", "Ben"), ("blue", "green"), seed=2)
    c.roll_virtual()
    play = bg_stats_play(c.module, c.setup, c.view, c.game, c.state, c.journal.meta, c.history.entries, "x")
    assert "not finished" in play["comments"] and "ignored" not in play
    assert not any(p["winner"] for p in play["players"]) and not any("rank" in p for p in play["players"])
    c.close()


def test_a_game_with_a_bgg_id_names_it_and_ranks_follow_the_score(tmp_path):
    from companion.controller import GameController
    c = GameController.new(tmp_path, ("Ana",), ("blue",), seed=3, game="mint_works", opponent="justin")
    while not c.game.is_over(c.state):
        if c.awaiting_dice():
            c.roll_virtual()
        else:
            c.dispatch({"type": "pass", "player": "p1"})
    play = c.bg_stats()
    assert play["game"]["name"] == "Mint Works" and play["game"]["bggId"] == 200077
    result = c.view.result(c.game, c.state)
    by_seat = {p["sourcePlayerId"]: p for p in play["players"]}
    if result["winner"]:
        loser = "p1" if result["winner"] == "p2" else "p2"
        assert by_seat[result["winner"]]["winner"] and by_seat[result["winner"]]["rank"] == 1
        assert not by_seat[loser]["winner"] and by_seat[loser]["rank"] == 2
    c.close()


def test_roll_entries_name_who_rolled(tmp_path):
    from companion.controller import GameController
    c = GameController.new(tmp_path, ("Ana", "Ben"), ("blue", "green"), seed=5)
    c.roll_virtual()  # CivMint's first-player die: nobody's in particular
    rolls = [e for e in c.history.entries if c.game.is_chance(e.action)]
    assert rolls and all(" - rolled by " in e.text for e in rolls)
    assert rolls[0].text.endswith("rolled by the players")
    c.close()
    m = GameController.new(tmp_path, ("Ana",), ("blue",), seed=5, game="mint_works", opponent="rachael")
    m.roll_virtual()
    assert m.history.entries[-1].text.endswith("drawn by the app from its deck for the Plan Supply")
    m.close()


def test_the_log_is_read_in_pages_and_only_the_page_read_is_put_in_words(tmp_path):
    """Issue 39 item 12: opening a long game replays its actions only; the words of an entry are
    worked out when its page is read, and they equal the words of the live log."""
    sess = Session.new(GAME, SETUP, tmp_path / "g.journal", seed=7)
    live, _ = _live_log(sess)
    while len(sess.journal.entries()) < 90 and not GAME.is_over(sess.state):
        if GAME.actor(sess.state) == "system":
            sess.roll()
        else:
            sess.dispatch(sess.legal_actions()[-1], "ui")
    again = HistoryLog(GAME, VIEW, SETUP)
    again.rebuild(sess.journal.entries(), GAME.initial_state(SETUP))
    n = len(again.entries)
    assert n >= 90 and all(e.unread for e in again.entries)
    page = again.newest_first(40, skip=40)
    assert [e.seq for e in page] == [e.seq for e in again.entries[n - 80:n - 40]][::-1]
    assert again.text(limit=40, skip=40).splitlines()[0].startswith(f"#{page[0].seq} ")
    read = {e.seq for e in again.entries if not e.unread}
    assert read == {e.seq for e in page}  # that page, and no other entry
    assert again.newest_first(40, skip=n) == [] and len(again.newest_first(40, skip=n - 5)) == 5
    assert [x.to_dict() for x in again.entries] == [x.to_dict() for x in live.entries]
