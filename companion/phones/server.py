"""The table server: every seat's phone joins the game the tablet runs (aiohttp; no Kivy).

`TableServer(ctrl, owner)` serves one open game. `start()` listens (on the local network address,
or the host given: tests use 127.0.0.1) from an asyncio loop on a thread of its own; `stop()`
closes every phone's connection and stops listening. Nothing listens before `start()`.

The controller stays the one authority and is only touched on its own thread: `owner(fn)` runs
`fn` there (the app: Kivy's Clock; headless: `HeadlessOwner`). A phone's pick or action is handed
to the owner thread, checked and dispatched there with the source `phone:<seat>`; after every
change, whatever made it (the tablet, the board, a phone, the app's seats, an undo), each connected
phone is sent its seat's state (companion/phones/seat_state.py).

Security (docs/phones.md):
* a seat's key is a random token of 192 bits, per game and seat, kept in memory only and never
  written to a log, the journal or the app's logs (the access log is off). `forget(seat)` makes a
  new one: the old stops working at once and that seat's phones are closed;
* joining is `GET /join/<token>`: the page is served with the token in a cookie (HttpOnly,
  SameSite=Strict) and the page drops the token from its address; a reload or a dropped
  connection rejoins by the cookie. A wrong or forgotten token gets a short page, no state;
* every request must name this server as its Host (no DNS rebinding); the WebSocket upgrade and
  the photo upload must come from this server's own page (`Origin`);
* a photo of the roll (`POST /photo`, the roller's phone only, 8 MB at most) is read by the app's
  dice reader off both threads, and its values are recorded (source `camera`) only once that
  phone confirms them;
* a message over 16 KB, not JSON, not one of the known shapes, naming another seat or coming
  faster than the rate limit is refused with a reason and changes nothing; a connection that
  keeps doing so is closed.
"""
from __future__ import annotations

import asyncio
import collections
import json
import queue
import secrets
import socket
import threading
import time
from pathlib import Path

from aiohttp import WSMsgType, web

from companion.engine.errors import Rejected
from companion.phones.seat_state import HIDDEN_CHECK, STALE, SeatStates

STATIC = Path(__file__).with_name("static")
COOKIE = "seat_key"
COOKIE_AGE = 12 * 3600          # a long evening's game
MAX_MESSAGE = 16 * 1024         # bytes of one WebSocket message
HARD_MAX_MESSAGE = 64 * 1024    # ... beyond this the connection is closed at once (aiohttp)
MAX_PHOTO = 8 * 1024 * 1024     # bytes of one photo of a roll
RATE = 10.0                     # messages a second a connection may send on average
BURST = 20                      # ... and at once
STRIKES = 5                     # refused messages in STRIKE_WINDOW seconds that close a connection
STRIKE_WINDOW = 60.0
REMEMBERED = 64                 # action ids remembered per seat (a resend is answered, not applied)
MESSAGE_TYPES = {"sync": (), "pick": ("at", "field", "option"), "back": ("at",),
                 "act": ("at", "id", "action"), "photo_ok": ("at",)}

SCAN_AGAIN = ("<!doctype html><html lang=en><head><meta charset=utf-8>"
              "<meta name=viewport content='width=device-width,initial-scale=1'>"
              "<title>Scan again</title><style>body{background:#111;color:#eee;font:20px/1.5 sans-serif;"
              "padding:24px}</style></head><body><h1>Scan your seat's QR code again</h1>"
              "<p>This phone is not (or no longer) joined to a seat of the game on the tablet. "
              "Open the tablet's Phones panel and scan your seat's code.</p></body></html>")
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
}


def lan_address() -> str:
    """This machine's address on the local network (the interface of the default route), or
    127.0.0.1 when there is none. Sends nothing: a UDP socket only picks its route."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


class HeadlessOwner:
    """The controller's thread without Kivy: one worker thread runs every call in turn.
    `owner(fn)` queues fn; `owner.call(fn)` queues it and returns its result (or raises)."""

    def __init__(self):
        self._q = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="table-owner", daemon=True)
        self._thread.start()

    def _run(self):
        while True:
            fn = self._q.get()
            if fn is None:
                return
            try:
                fn()
            except Exception:  # noqa: BLE001 - one failed call must not stop the table
                import logging
                logging.getLogger(__name__).exception("table owner: a call failed")

    def __call__(self, fn):
        self._q.put(fn)

    def call(self, fn, timeout=30.0):
        done, box = threading.Event(), {}

        def run():
            try:
                box["value"] = fn()
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                box["error"] = exc
            finally:
                done.set()
        self._q.put(run)
        if not done.wait(timeout):
            raise TimeoutError("the table's thread did not answer")
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def close(self):
        self._q.put(None)
        self._thread.join(5)


class _Conn:
    """One phone's WebSocket: its seat, its send queue (kept in order), its rate and strikes."""

    def __init__(self, ws, seat):
        self.ws, self.seat = ws, seat
        self.out: asyncio.Queue = asyncio.Queue()
        self.tokens, self.stamp = float(BURST), time.monotonic()
        self.strikes: collections.deque = collections.deque()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.stamp) * RATE)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def strike(self) -> bool:
        """Count a refused message; True when the connection has earned its closing."""
        now = time.monotonic()
        self.strikes.append(now)
        while self.strikes and now - self.strikes[0] > STRIKE_WINDOW:
            self.strikes.popleft()
        return len(self.strikes) >= STRIKES


class TableServer:
    """The phones' server of one open game (see the module doc)."""

    def __init__(self, ctrl, owner, host: str | None = None, port: int = 0):
        self.ctrl = ctrl
        self.owner = owner
        self.host = host
        self.port = port
        self.states = SeatStates(ctrl)
        self._keys = {seat: secrets.token_urlsafe(24) for seat in ctrl.seats()}
        self._seat_of = {k: s for s, k in self._keys.items()}
        self._lock = threading.Lock()        # keys: read on the loop, changed from the tablet
        self._conns: set[_Conn] = set()      # changed on the loop; read from the tablet's thread too
        self._conns_lock = threading.Lock()
        self._done: dict[str, collections.OrderedDict] = {s: collections.OrderedDict() for s in self._keys}
        self._loop = None
        self._thread = None
        self._runner = None
        self._bound = None
        self._held = None                    # changes seen while a phone's action is dispatched
        self._photos: dict = {}              # seat -> (position, action, sensed): a photo's roll to confirm
        self.sent = collections.Counter()    # messages sent per seat (benchmarks, tests)
        self.on_sent = None                  # fn(seat, text) after a message is queued (tests)

    # ---------------------------------------------------------------- the tablet's side
    @property
    def running(self) -> bool:
        return self._loop is not None

    @property
    def address(self) -> str:
        """"host:port" phones open (after start)."""
        return f"{self._bound[0]}:{self._bound[1]}" if self._bound else ""

    def url(self, seat) -> str:
        """The address a seat's QR code holds (its key in it): show it only as that QR code."""
        with self._lock:
            key = self._keys[seat]
        return f"http://{self.address}/join/{key}"

    def qr_png(self, seat, scale=8) -> bytes:
        import io

        import segno
        buf = io.BytesIO()
        segno.make(self.url(seat), error="m").save(buf, kind="png", scale=scale, border=4)
        return buf.getvalue()

    def forget(self, seat):
        """Let `seat`'s phone go: its key stops working now and its connections are closed; the
        seat's QR code holds a new key."""
        with self._lock:
            old = self._keys[seat]
            self._seat_of.pop(old, None)
            self._keys[seat] = secrets.token_urlsafe(24)
            self._seat_of[self._keys[seat]] = seat
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._close_seat, seat,
                                            "This phone was let go at the tablet: scan your seat's QR code to join again.")

    def _open_conns(self) -> list:
        with self._conns_lock:
            return list(self._conns)

    def connected(self) -> dict:
        """seat -> number of phones connected now (a snapshot)."""
        out = collections.Counter()
        for c in self._open_conns():
            out[c.seat] += 1
        return dict(out)

    def start(self) -> str:
        """Listen; returns "host:port". Raises OSError when the address cannot be bound."""
        if self._loop is not None:
            return self.address
        host = self.host or lan_address()
        ready, box = threading.Event(), {}

        def run():
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._start(host, self.port))
            except BaseException as exc:  # noqa: BLE001 - handed to start()
                box["error"] = exc
                ready.set()
                loop.close()
                return
            self._loop = loop
            ready.set()
            loop.run_forever()
            loop.close()
        self._thread = threading.Thread(target=run, name="table-server", daemon=True)
        self._thread.start()
        ready.wait(15)
        if "error" in box:
            self._thread = None
            raise box["error"]
        self.ctrl.subscribe(self._on_change)
        return self.address

    def stop(self):
        """Close every phone's connection and stop listening (nothing listens afterwards)."""
        self.ctrl.unsubscribe(self._on_change)
        loop = self._loop
        if loop is None:
            return
        fut = asyncio.run_coroutine_threadsafe(self._stop(), loop)
        try:
            fut.result(10)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            self._thread.join(10)
            self._loop = self._thread = self._runner = self._bound = None

    # ---------------------------------------------------------------- the loop's side
    async def _start(self, host, port):
        @web.middleware
        async def guard(request, handler):
            return await self._guard(request, handler)
        app = web.Application(client_max_size=MAX_PHOTO + 64 * 1024, middlewares=[guard])
        app.router.add_get("/", self._home)
        app.router.add_get("/join/{key}", self._join)
        app.router.add_get("/seat", self._seat_page)
        app.router.add_get("/joined", self._joined)
        app.router.add_get("/favicon.ico", self._no_icon)
        app.router.add_get("/ws", self._ws)
        app.router.add_post("/photo", self._photo)
        app.router.add_get("/static/{name}", self._static)
        self._runner = web.AppRunner(app, access_log=None)  # a URL holds a key: never logged
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        sock = site._server.sockets[0]
        self._bound = sock.getsockname()[:2]
        self._hosts = {f"{self._bound[0]}:{self._bound[1]}"}
        if self._bound[0] == "127.0.0.1":
            self._hosts.add(f"localhost:{self._bound[1]}")

    async def _stop(self):
        await asyncio.gather(*(self._close(c, 1001, "The tablet stopped letting phones join.")
                               for c in self._open_conns()), return_exceptions=True)
        await self._runner.cleanup()

    def _close_seat(self, seat, reason):
        for c in self._open_conns():
            if c.seat == seat:
                asyncio.ensure_future(self._close(c, 4001, reason))

    async def _close(self, conn, code, reason):
        with self._conns_lock:
            self._conns.discard(conn)
        try:
            while not conn.out.empty():  # what was said before (a refusal's reason) goes first
                await conn.ws.send_str(conn.out.get_nowait())
            await conn.ws.send_str(json.dumps({"type": "bye", "reason": reason}))
            await conn.ws.close(code=code, message=b"bye")
        except Exception:  # noqa: BLE001 - already gone
            pass

    async def _guard_headers(self, resp):
        for k, v in HEADERS.items():
            resp.headers.setdefault(k, v)
        return resp

    async def _guard(self, request, handler):
        if request.host not in self._hosts:
            return await self._guard_headers(web.Response(status=421, text="Wrong host."))
        resp = await handler(request)
        return await self._guard_headers(resp) if not isinstance(resp, web.WebSocketResponse) else resp

    def _seat_by_key(self, key):
        if not isinstance(key, str) or not 20 <= len(key) <= 64:
            return None
        with self._lock:
            for k, seat in self._seat_of.items():
                if secrets.compare_digest(k, key):
                    return seat
        return None

    def _same_origin(self, request) -> bool:
        return request.headers.get("Origin") == f"http://{request.host}"

    async def _home(self, request):
        return web.Response(status=403, text=SCAN_AGAIN, content_type="text/html")

    async def _join(self, request):
        key = request.match_info["key"]
        if self._seat_by_key(key) is None:
            return web.Response(status=403, text=SCAN_AGAIN, content_type="text/html")
        resp = web.Response(body=(STATIC / "seat.html").read_bytes(), content_type="text/html")
        resp.set_cookie(COOKIE, key, max_age=COOKIE_AGE, path="/", httponly=True, samesite="Strict")
        return resp

    async def _seat_page(self, request):
        key = request.cookies.get(COOKIE)
        if key is not None and self._seat_by_key(key) is None:
            return web.Response(status=403, text=SCAN_AGAIN, content_type="text/html")
        # no cookie: the page itself holds no state; its connection asks for the seat
        return web.Response(body=(STATIC / "seat.html").read_bytes(), content_type="text/html")

    async def _no_icon(self, request):
        return web.Response(status=204)

    async def _joined(self, request):
        """204 while this phone's cookie names a seat, else 403 (the page then says to scan again)."""
        if self._seat_by_key(request.cookies.get(COOKIE)) is None:
            return web.Response(status=403, text="Scan your seat's QR code again.")
        return web.Response(status=204)

    async def _static(self, request):
        name = request.match_info["name"]
        types = {"seat.css": "text/css", "seat.js": "application/javascript"}
        if name not in types:
            raise web.HTTPNotFound()
        return web.Response(body=(STATIC / name).read_bytes(), content_type=types[name])

    async def _ws(self, request):
        if not self._same_origin(request):
            return web.Response(status=403, text="This connection must come from the seat's own page.")
        seat = self._seat_by_key(request.cookies.get(COOKIE))
        if seat is None:
            return web.Response(status=403, text="Scan your seat's QR code again.")
        ws = web.WebSocketResponse(max_msg_size=HARD_MAX_MESSAGE, heartbeat=20, timeout=2.0)
        await ws.prepare(request)
        conn = _Conn(ws, seat)
        with self._conns_lock:
            self._conns.add(conn)
        writer = asyncio.ensure_future(self._writer(conn))
        self.owner(lambda: self._sync(conn))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    if not self._still_joined(conn):
                        break
                    reason = self._read(conn, msg.data)
                    if reason is not None:
                        self._send(conn, {"type": "refused", "reason": reason})
                        if conn.strike():
                            await self._close(conn, 1008, "Too many refused messages: this connection is closed.")
                            break
                elif msg.type == WSMsgType.BINARY:
                    self._send(conn, {"type": "refused", "reason": "Messages are text (JSON)."})
                    if conn.strike():
                        await self._close(conn, 1008, "Too many refused messages: this connection is closed.")
                        break
                else:
                    break
        finally:
            with self._conns_lock:
                self._conns.discard(conn)
            writer.cancel()
        return ws

    def _still_joined(self, conn) -> bool:
        with self._lock:
            return conn.seat in self._keys and self._keys[conn.seat] in self._seat_of

    async def _writer(self, conn):
        try:
            while True:
                text = await conn.out.get()
                await conn.ws.send_str(text)
        except (asyncio.CancelledError, ConnectionError, RuntimeError):
            return
        except Exception:  # noqa: BLE001 - a closed socket
            return

    def _send(self, conn, doc):
        """Queue `doc` for `conn` (call on the loop thread)."""
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
        self.sent[conn.seat] += 1
        conn.out.put_nowait(text)
        if self.on_sent is not None:
            self.on_sent(conn.seat, text)

    def _send_from_owner(self, conn, doc):
        loop = self._loop
        if loop is not None:
            loop.call_soon_threadsafe(self._send, conn, doc)

    # ---------------------------------------------------------------- messages
    def _read(self, conn, data) -> str | None:
        """Check one message and hand it to the owner thread; the reason when it is refused."""
        if not conn.allow():
            return "Too many messages: slow down (nothing changed)."
        if len(data) > MAX_MESSAGE or len(data.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
            return "That message is too large (nothing changed)."
        try:
            msg = json.loads(data)
        except ValueError:
            return "That message is not valid JSON (nothing changed)."
        if not isinstance(msg, dict) or msg.get("type") not in MESSAGE_TYPES:
            return "The app does not know that message (nothing changed)."
        kind = msg["type"]
        if "seat" in msg and msg["seat"] != conn.seat:
            return "That message names another seat: a phone speaks for its own seat only (nothing changed)."
        for f in MESSAGE_TYPES[kind]:
            if f not in msg:
                return f"That message lacks '{f}' (nothing changed)."
        at = msg.get("at")
        if "at" in msg and (not isinstance(at, int) or isinstance(at, bool)):
            return "That message's position is not a number (nothing changed)."
        if kind == "pick" and (not isinstance(msg["field"], str) or not isinstance(msg["option"], int)
                               or isinstance(msg["option"], bool)):
            return "That pick is not one the page makes (nothing changed)."
        if kind == "back" and not isinstance(msg.get("field", ""), str):
            return "That message is not one the page makes (nothing changed)."
        if kind == "act":
            if not isinstance(msg["action"], dict) or not isinstance(msg["id"], str) or not 1 <= len(msg["id"]) <= 64:
                return "That action is not one the page makes (nothing changed)."
            owner = msg["action"].get("player", msg["action"].get("seat"))
            if isinstance(owner, str) and owner != conn.seat and owner in self._keys:
                return "That action names another seat: a phone decides for its own seat only (nothing changed)."
        self.owner(lambda: self._handle(conn, msg))
        return None

    def _handle(self, conn, msg):
        """On the owner thread: a checked message of `conn`."""
        if self._loop is None:
            return
        kind, seat, st = msg["type"], conn.seat, self.states
        if kind == "sync":
            return self._sync(conn)
        if kind == "photo_ok":
            return self._photo_ok(conn, msg)
        if kind == "pick":
            why = st.pick(seat, msg["at"], msg["field"], msg["option"])
        elif kind == "back":
            why = st.back(seat, msg["at"], msg.get("field") or None)
        else:
            return self._act(conn, msg)
        if why is not None:
            self._send_from_owner(conn, {"type": "refused", "reason": why})
        self._sync(conn)

    def _act(self, conn, msg):
        seat, mid, action = conn.seat, msg["id"], msg["action"]
        done = self._done[seat]
        if mid in done:  # a resend: answered as the first time, never applied again
            self._send_from_owner(conn, dict(done[mid], again=True))
            return self._sync(conn)
        why = self.states.refusal(seat, msg["at"], action)
        changed, label = False, ""
        if why is None:
            label = self.ctrl.action_label(action)
            self._held = []  # the phones hear of the change after the answer to this one
            try:
                self.ctrl.dispatch(action, f"phone:{seat}")
            except Rejected:  # legal in the seat's view, not in the whole state (hidden cards)
                why = HIDDEN_CHECK
            except Exception as exc:  # noqa: BLE001 - e.g. the save cannot be written: nothing applied
                why = f"The tablet could not record that move ({exc.__class__.__name__}); nothing changed."
            finally:
                changed, self._held = bool(self._held), None
        if why is None:
            reply = {"type": "ok", "id": mid, "text": f"Done: {label}."}
        else:
            reply = {"type": "refused", "id": mid, "reason": why}
        if why != STALE:  # a stale action may be sent again once the phone has the new state
            done[mid] = reply
            while len(done) > REMEMBERED:
                done.popitem(last=False)
        self._send_from_owner(conn, reply)
        if changed:
            self._on_change(self.ctrl)
        elif why is not None:
            self._sync(conn)

    def _todo(self):
        try:
            from companion.table.todo import TableTodo
            todo = TableTodo(self.ctrl.path)
            entries = self.ctrl.history.entries
            return todo.setup_items() + todo.items(entries)
        except Exception:  # noqa: BLE001 - the list is a help: a phone shows none
            return []

    def _sync(self, conn):
        """On the owner thread: send `conn` its seat's state now."""
        self._send_from_owner(conn, self.states.state(conn.seat, self._todo()))

    def _on_change(self, ctrl):
        """On the owner thread, after every change: each connected phone gets its new state."""
        if self._loop is None:
            return
        if self._held is not None:  # inside a phone's action: after its answer (_act)
            self._held.append(True)
            return
        conns = self._open_conns()
        if not conns:
            return
        todo = self._todo()
        built = {}
        for c in conns:
            if c.seat not in built:
                built[c.seat] = self.states.state(c.seat, todo)
            self._send_from_owner(c, built[c.seat])

    # ---------------------------------------------------------------- a photo of the roll
    async def _ask_owner(self, fn):
        """fn() run on the owner thread; its result here (on the loop)."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()

        def run():
            try:
                value, error = fn(), None
            except Exception as exc:  # noqa: BLE001 - handed back to the request
                value, error = None, exc

            def put():
                if fut.done():
                    return
                if error is not None:
                    fut.set_exception(error)
                else:
                    fut.set_result(value)
            loop.call_soon_threadsafe(put)
        self.owner(run)
        return await asyncio.wait_for(fut, 30)

    def _photo_refusal(self, seat, at) -> str | None:
        """On the owner thread: why `seat` may not send a photo of the roll now, or None."""
        if at != self.states.position():
            return STALE
        req = self.ctrl.dice_request()
        if req is None or req.get("kind") != "dice":
            return "No dice roll is awaited now: nothing recorded."
        who = req.get("who")
        if who is not None and who != seat and who in self._keys:
            return f"It is {self.ctrl.name(who)}'s roll: their phone or the tablet records it."
        return None

    def _photo_roll(self, seat, at, reading) -> dict:
        """On the owner thread: the roll read from the photo, held for the phone to confirm."""
        from companion.table.photo_roll import roll_from_photo

        why = self._photo_refusal(seat, at)
        if why is not None:
            return {"reason": why}
        got = roll_from_photo(reading, self.ctrl.dice_request())
        if got.action is None:
            return {"reason": got.refusal}
        self._photos[seat] = (at, got.action, got.sensed)
        values = ", ".join(map(str, got.values))
        return {"values": list(got.values), "confirm": True,
                "text": f"The photo shows {values}. Check the dice on the table, then tap Record this roll."}

    def _photo_ok(self, conn, msg):
        """On the owner thread: the phone confirmed the roll its photo showed."""
        seat = conn.seat
        held = self._photos.pop(seat, None)
        if held is None or held[0] != msg["at"] or msg["at"] != self.states.position():
            self._send_from_owner(conn, {"type": "refused", "reason": "That photo's roll is no longer awaited: "
                                                                     "nothing recorded."})
            return self._sync(conn)
        _, action, sensed = held
        self._held = []
        try:
            self.ctrl.dispatch(action, "camera", sensed=dict(sensed or {}, confirmed=f"phone:{seat}"))
            reply = {"type": "ok", "text": "Roll recorded from the photo."}
        except Rejected as exc:
            reply = {"type": "refused", "reason": self.ctrl.refusal_text(exc)}
        except Exception as exc:  # noqa: BLE001 - nothing applied
            reply = {"type": "refused", "reason": f"The tablet could not record the roll ({exc.__class__.__name__})."}
        finally:
            changed, self._held = bool(self._held), None
        self._send_from_owner(conn, reply)
        if changed:
            self._on_change(self.ctrl)
        else:
            self._sync(conn)

    async def _photo(self, request):
        """POST /photo?at=N: a photo of the awaited roll from the roller's phone. Read by the
        app's dice reader (companion/table/dice_photo.py) off the loop and the tablet's thread;
        the values are held until the phone confirms them (`photo_ok`): never recorded unseen."""
        if not self._same_origin(request):
            return web.json_response({"reason": "This upload must come from the seat's own page."}, status=403)
        seat = self._seat_by_key(request.cookies.get(COOKIE))
        if seat is None:
            return web.json_response({"reason": "Scan your seat's QR code again."}, status=403)
        try:
            at = int(request.query.get("at", ""))
        except ValueError:
            return web.json_response({"reason": "The photo does not say which roll it is for."}, status=400)
        why = await self._ask_owner(lambda: self._photo_refusal(seat, at))
        if why is not None:
            return web.json_response({"reason": why}, status=409)
        body = await request.read()
        if not body or len(body) > MAX_PHOTO:
            return web.json_response({"reason": "That photo is empty or too large."}, status=413)
        from companion.table.dice_photo import read_dice
        reading = await asyncio.get_running_loop().run_in_executor(None, read_dice, body)
        answer = await self._ask_owner(lambda: self._photo_roll(seat, at, reading))
        return web.json_response(answer, status=200 if answer.get("confirm") else 422)
