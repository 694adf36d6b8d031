"""Shared by the phone tests: a headless table (controller + owner thread + server on 127.0.0.1),
a WebSocket phone made with aiohttp's client, and the picks that lead a seat's page to an action."""
from __future__ import annotations

import asyncio
import json

import aiohttp

from companion.controller import GameController
from companion.decisions import TYPE_FIELD, WHOLE, _key
from companion.phones.server import HeadlessOwner, TableServer

COLOURS = ("blue", "green", "red", "yellow", "purple", "black", "orange")


class Table:
    """A game on a headless tablet with its phones' server (tests bind to 127.0.0.1)."""

    def __init__(self, tmp_path, game, names, seed=7, **options):
        self.ctrl = GameController.new(tmp_path, names=names, colours=COLOURS[:len(names)], seed=seed,
                                       game=game, **options)
        self.owner = HeadlessOwner()
        self.server = TableServer(self.ctrl, self.owner, host="127.0.0.1")
        self.address = self.server.start()
        self.sent = []  # (seat, text) of every message the server sent
        self.server.on_sent = lambda seat, text: self.sent.append((seat, text))

    def call(self, fn):
        """Run fn on the controller's thread (as the tablet does) and return its result."""
        return self.owner.call(fn)

    def tablet(self, action):
        return self.call(lambda: self.ctrl.dispatch(action, "ui"))

    def play_chance(self):
        """Roll or draw with the app while the table awaits chance (what the tablet does)."""
        def run():
            while self.ctrl.awaiting_dice():
                self.ctrl.roll_virtual()
        self.call(run)

    def close(self):
        self.server.stop()
        self.owner.call(self.ctrl.close)
        self.owner.close()


def picks_to(table, seat, action) -> list:
    """The option numbers a seat's page taps, question after question, to reach `action`
    (the same narrowing as the page's, made on a fresh Decision)."""
    def run():
        _, dec = table.server.states.new_decision(seat)
        out = []
        while dec is not None and dec.complete() is None:
            q = dec.question()
            if q.field == WHOLE:
                i = next(i for i, (v, _) in enumerate(q.options) if _key(v) == _key(action))
            elif q.field == TYPE_FIELD:
                i = next(i for i, (v, _) in enumerate(q.options) if v == action["type"])
            else:
                want = _key(action.get(q.field))
                matches = [i for i, (v, _) in enumerate(q.options) if _key(v) == want]
                if not matches:  # twins merged: a value worded like the one wanted
                    labels = {dec._value_label(action["type"], q.field, action.get(q.field))}
                    matches = [i for i, (_, lab) in enumerate(q.options) if lab in labels]
                i = matches[0]
            out.append((q.field, i))
            dec.choose(q.field, q.options[i][0])
        assert dec is not None and _key(dec.complete()) == _key(action), (action, dec and dec.complete())
        return out
    return table.call(run)


class Phone:
    """A phone without a browser: aiohttp's client, its own cookies."""

    def __init__(self, table):
        self.table = table
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        self.ws = None
        self.origin = f"http://{table.address}"

    async def join(self, url):
        async with self.session.get(url) as r:
            return r.status, await r.text()

    async def connect(self, origin=None):
        self.ws = await self.session.ws_connect(f"http://{self.table.address}/ws",
                                                headers={"Origin": origin or self.origin})
        return await self.next("state")

    async def next(self, kind=None, timeout=5.0):
        """The next message (of type `kind` when given: others are skipped)."""
        while True:
            msg = await self.ws.receive(timeout=timeout)
            if msg.type != aiohttp.WSMsgType.TEXT:
                return {"type": "_closed", "code": self.ws.close_code}
            doc = json.loads(msg.data)
            if kind is None or doc["type"] == kind:
                return doc

    async def send(self, doc):
        await self.ws.send_str(doc if isinstance(doc, str) else json.dumps(doc))

    async def close(self):
        if self.ws is not None:
            await self.ws.close()
        await self.session.close()


def run(coro):
    return asyncio.run(coro)
