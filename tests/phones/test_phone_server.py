"""The phones' table server without a browser (issue 37, parts 1, 2, 4 and "Bad input"): joining
by key, the cookie, Host and Origin checks, message checks and the closing of an abusive
connection, one authority (stale, resent and foreign actions), every phone updated after every
change, keys never logged or journalled, and the switch off closing everything."""
import asyncio
import json
import logging
import os
import socket
import sys

import aiohttp
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from phone_kit import Phone, Table, picks_to, run  # noqa: E402

from companion.engine.session import Session  # noqa: E402
from companion.phones import server as S  # noqa: E402
from companion.store import journal as J  # noqa: E402


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path, "mint_works", ["Ana", "Ben", "Cleo"])
    t.play_chance()  # the app deals the Plan Supply: Ana's decision
    yield t
    t.close()


def first_action(table, seat):
    return table.call(lambda: table.server.states.decision(seat)[0][0])


def test_seat_sources_are_recorded_and_odd_ones_refused(tmp_path):
    assert J.is_source("phone:p1") and J.is_source("phone:p7") and J.is_source("ui")
    for bad in ("phone:", "phone:p0", "phone:p", "phone:x1", "phone:p1x", "phone:p01", "phone:p١",
                "tablet:p1", "phone:p1:p2", 7, None):
        assert not J.is_source(bad), bad
    sess = Session.new("mint_works", {"players": {"p1": {"name": "A", "colour": "blue"},
                                                  "p2": {"name": "B", "colour": "red"}}},
                       journal_path=tmp_path / "g.journal")
    with pytest.raises(ValueError):
        sess.dispatch(sess.legal_actions()[0], "phone:p0")
    sess.dispatch(sess.legal_actions()[0], "phone:p1")
    sess.close()
    again = Session.resume(tmp_path / "g.journal")  # a phone's entry reads back as it was written
    assert again.history[-1][1] == "phone:p1"
    again.close()


def test_join_by_key_and_scan_again_pages(table):
    async def go():
        p = Phone(table)
        try:
            status, page = await p.join(table.server.url("p1"))
            assert status == 200 and "seat.js" in page
            cookie = next(c for c in p.session.cookie_jar if c.key == S.COOKIE)
            assert cookie["httponly"] and cookie["samesite"] == "Strict"
            state = await p.connect()
            assert state["seat"] == "p1" and state["you"]["name"] == "Ana" and state["turn"]["mine"]
            # a wrong key: the short page, no state, no cookie
            q = Phone(table)
            status, page = await q.join(f"http://{table.address}/join/{'x' * 32}")
            assert status == 403 and "Scan your seat's QR code again" in page and "Ana" not in page
            assert not [c for c in q.session.cookie_jar if c.key == S.COOKIE]
            with pytest.raises(aiohttp.WSServerHandshakeError) as err:  # no key: no connection
                await q.connect()
            assert err.value.status == 403
            await q.close()
        finally:
            await p.close()
    run(go())


def test_foreign_origin_and_host_are_refused(table):
    async def go():
        p = Phone(table)
        await p.join(table.server.url("p2"))
        for origin in ("http://evil.example", f"https://{table.address}", "null"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as err:
                await p.connect(origin=origin)
            assert err.value.status == 403
        async with p.session.get(f"http://{table.address}/seat", headers={"Host": "rebound.example:80"}) as r:
            assert r.status == 421
        async with p.session.post(f"http://{table.address}/photo", data=b"x",
                                  headers={"Origin": "http://evil.example"}) as r:
            assert r.status == 403
        state = await p.connect()  # the page's own origin is welcome
        assert state["seat"] == "p2"
        await p.close()
    run(go())


def test_bad_messages_are_refused_and_a_persistent_sender_is_closed(table):
    async def go():
        p = Phone(table)
        await p.join(table.server.url("p1"))
        state = await p.connect()
        before = table.call(lambda: table.ctrl.journal.last_seq)
        act = first_action(table, "p1")
        bad = [("not json {", "not valid JSON"),
               ("x" * (S.MAX_MESSAGE + 1), "too large"),
               (json.dumps({"type": "hack"}), "does not know"),
               (json.dumps({"type": "sync", "seat": "p2"}), "another seat"),
               (json.dumps({"type": "act", "at": state["at"], "id": "a1", "action": dict(act, player="p2")}),
                "another seat")]
        for text, words in bad[:4]:
            await p.send(text)
            got = await p.next("refused")
            assert words in got["reason"]
        await p.send(bad[4][0])  # the fifth refusal: said, then the connection is closed
        got = await p.next()
        assert got["type"] == "refused" and "another seat" in got["reason"]
        got = await p.next()
        assert got["type"] == "bye" and "Too many refused messages" in got["reason"]
        got = await p.next()
        assert got["type"] == "_closed" and got["code"] == 1008
        assert table.call(lambda: table.ctrl.journal.last_seq) == before  # nothing changed
        # the seat itself is not banned: a new connection works
        state = await p.connect()
        assert state["seat"] == "p1"
        await p.close()
    run(go())


def test_too_fast_is_refused(table):
    async def go():
        p = Phone(table)
        await p.join(table.server.url("p1"))
        await p.connect()
        for _ in range(S.BURST + 5):
            await p.send({"type": "sync"})
        reasons = []
        while True:
            got = await p.next(timeout=3)
            if got["type"] == "refused":
                reasons.append(got["reason"])
            if got["type"] == "_closed" or len(reasons) >= 1:
                break
        assert any("Too many messages" in r for r in reasons)
        await p.close()
    run(go())


def test_one_authority_stale_resent_and_other_seats(table):
    async def go():
        ana, ben, cleo = Phone(table), Phone(table), Phone(table)
        for ph, seat in ((ana, "p1"), (ben, "p2"), (cleo, "p3")):
            await ph.join(table.server.url(seat))
        s1, s2, s3 = await ana.connect(), await ben.connect(), await cleo.connect()
        assert s2["decision"] is None and not s2["turn"]["mine"]
        act = first_action(table, "p1")
        # Ben cannot play Ana's move, nor one of his own out of turn
        await ben.send({"type": "act", "at": s2["at"], "id": "b1", "action": act})
        assert "another seat" in (await ben.next("refused"))["reason"]
        await ben.send({"type": "act", "at": s2["at"], "id": "b2", "action": dict(act, player="p2")})
        assert "not your decision" in (await ben.next("refused"))["reason"]
        assert (await ben.next("state"))["at"] == s2["at"]
        # Ana plays through the pickers, then Confirm
        for field, i in picks_to(table, "p1", act):
            await ana.send({"type": "pick", "at": s1["at"], "field": field, "option": i})
            s1 = await ana.next("state")
        assert s1["decision"]["complete"]["action"] == act
        msg = {"type": "act", "at": s1["at"], "id": "a-1", "action": act}
        await ana.send(msg)
        ok = await ana.next("ok")
        assert ok["id"] == "a-1"
        entries = table.call(lambda: table.ctrl.journal.entries())
        assert entries[-1].source == "phone:p1" and entries[-1].action == act
        n = len(entries)
        # every phone gets the new state
        for ph in (ana, ben, cleo):
            st = await ph.next("state")
            assert st["at"] == entries[-1].seq
        # a resend (the answer was lost) is answered again, never applied twice
        await ana.send(msg)
        again = await ana.next()
        assert again["type"] == "ok" and again.get("again")
        assert len(table.call(lambda: table.ctrl.journal.entries())) == n
        # a stale action (an old position) is refused with the fresh state
        await ana.send({"type": "act", "at": s1["at"], "id": "a-2", "action": act})
        ref = await ana.next("refused")
        assert "moved on" in ref["reason"]
        fresh = await ana.next("state")
        assert fresh["at"] == entries[-1].seq
        # a tablet action reaches every phone too
        st = table.call(lambda: table.ctrl.state)
        actor = table.call(lambda: table.ctrl.game.actor(st))
        nxt = first_action(table, actor)
        table.tablet(nxt)
        for ph in (ana, ben, cleo):
            st = await ph.next("state")
            assert st["at"] == table.call(lambda: table.ctrl.journal.last_seq)
        # undo stays on the tablet, and the phones follow it
        table.call(table.ctrl.undo)
        for ph in (ana, ben, cleo):
            st = await ph.next("state")
            assert st["log"][0]["text"].startswith("Undo")
        for ph in (ana, ben, cleo):
            await ph.close()
    run(go())


def test_forget_closes_the_phone_and_its_key_stops_working(table):
    async def go():
        p = Phone(table)
        old_url = table.server.url("p2")
        await p.join(old_url)
        await p.connect()
        table.server.forget("p2")
        bye = await p.next()
        while bye["type"] == "state":
            bye = await p.next()
        assert bye["type"] == "bye" and "scan" in bye["reason"]
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await p.connect()
        async with p.session.get(f"http://{table.address}/seat") as r:  # the old cookie
            assert r.status == 403 and "Scan your seat's QR code again" in await r.text()
        async with p.session.get(f"http://{table.address}/joined") as r:
            assert r.status == 403
        status, _ = await p.join(old_url)
        assert status == 403
        new_url = table.server.url("p2")
        assert new_url != old_url
        status, _ = await p.join(new_url)  # scanning the new code rejoins
        assert status == 200
        assert (await p.connect())["seat"] == "p2"
        await p.close()
    run(go())


def test_keys_never_reach_logs_or_the_journal(table, caplog):
    caplog.set_level(logging.DEBUG)
    keys = [table.server.url(s).rsplit("/", 1)[1] for s in ("p1", "p2", "p3")]

    async def go():
        p = Phone(table)
        await p.join(table.server.url("p1"))
        s1 = await p.connect()
        await p.join(f"http://{table.address}/join/{keys[1]}x")  # a wrong key is not logged either
        act = first_action(table, "p1")
        for field, i in picks_to(table, "p1", act):
            await p.send({"type": "pick", "at": s1["at"], "field": field, "option": i})
            s1 = await p.next("state")
        await p.send({"type": "act", "at": s1["at"], "id": "k1", "action": act})
        await p.next("ok")
        await p.close()
    run(go())
    path = table.ctrl.path
    raw = open(path, "rb").read()
    wal = open(path + "-wal", "rb").read() if os.path.exists(path + "-wal") else b""
    logs = caplog.text + json.dumps(table.call(lambda: table.ctrl.log()))
    for k in keys:
        assert k.encode() not in raw and k.encode() not in wal and k not in logs
    assert "phone:p1" in json.dumps(table.call(lambda: table.ctrl.export()))


def test_switch_off_closes_every_phone_and_stops_listening(tmp_path):
    t = Table(tmp_path, "civ_quest", ["Ana", "Ben"])
    host, port = t.address.split(":")

    async def go():
        p = Phone(t)
        await p.join(t.server.url("p1"))
        await p.connect()
        t.server.stop()
        got = await p.next()
        while got["type"] == "state":
            got = await p.next()
        assert got["type"] in ("bye", "_closed")
        await p.close()
    try:
        run(go())
        with pytest.raises(OSError):
            socket.create_connection((host, int(port)), timeout=1).close()
        assert not t.server.running
        t.server.start()  # on again: the same keys, a fresh port
        assert t.server.running and t.server.url("p1").startswith("http://127.0.0.1:")
    finally:
        t.close()


def test_a_photo_of_the_roll_from_the_rollers_phone_is_recorded_once_confirmed(tmp_path):
    """The seat page's "Photo of the roll": read by the app's dice reader, held until the
    roller's phone confirms it, then journaled with the source camera; another seat's photo, a
    photo when no roll is awaited and a stale one are refused in words."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "vision"))
    from test_photo_roll import photo_of

    t = Table(tmp_path, "civmint", ["Ana", "Ben"], seed=4)
    try:
        req = None
        for _ in range(200):  # play the tablet until a roll with dice the wells would read is awaited
            req = t.call(t.ctrl.dice_request)
            if req is not None and req.get("spec") is not None and req["kind"] == "dice":
                break
            if req is not None:
                t.call(t.ctrl.roll_virtual)
            else:
                t.tablet(first_action(t, t.call(lambda: t.ctrl.game.actor(t.ctrl.state))))
        assert req is not None and req.get("spec") is not None
        roller = req.get("who") or "p1"
        other = "p2" if roller == "p1" else "p1"
        scene, reading = photo_of(req["spec"].dice)

        async def go():
            mine, theirs = Phone(t), Phone(t)
            await mine.join(t.server.url(roller))
            await theirs.join(t.server.url(other))
            st = await mine.connect()
            assert st["dice"]["mine"]
            url = f"http://{t.address}/photo?at={st['at']}"
            if req.get("who"):
                async with theirs.session.post(url, data=scene.jpeg, headers={"Origin": theirs.origin}) as r:
                    assert r.status == 409 and "roll" in (await r.json())["reason"]
            async with mine.session.post(f"http://{t.address}/photo?at={st['at'] - 1}", data=scene.jpeg,
                                         headers={"Origin": mine.origin}) as r:
                assert r.status == 409 and "moved on" in (await r.json())["reason"]
            before = t.call(lambda: t.ctrl.journal.last_seq)
            async with mine.session.post(url, data=scene.jpeg, headers={"Origin": mine.origin}) as r:
                got = await r.json()
            assert r.status == 200 and got["confirm"] and got["values"] == reading.values
            assert t.call(lambda: t.ctrl.journal.last_seq) == before  # nothing recorded unseen
            await mine.send({"type": "photo_ok", "at": st["at"]})
            assert (await mine.next("ok"))["text"].startswith("Roll recorded")
            last = t.call(lambda: t.ctrl.journal.entries(last=1)[0])
            assert last.source == "camera" and last.seq > before
            sensed = t.call(lambda: t.ctrl.journal.sensed())
            assert any("phone:" + roller in json.dumps(x) for x in (sensed.values() if isinstance(sensed, dict)
                                                                     else sensed))
            await mine.send({"type": "photo_ok", "at": st["at"]})  # twice: nothing more
            assert "no longer awaited" in (await mine.next("refused"))["reason"]
            await mine.close()
            await theirs.close()
        run(go())
    finally:
        t.close()
