"""The tablet's side of the phones in the real app under Xvfb (issue 37, parts 1 and 2): the game
screen's Phones button opens the panel; nothing listens while "Phones may join" is off; on, it
shows the address and a QR code per seat, read back (OpenCV) from a screenshot of the window; a
phone joined by that code plays its move, which reaches the tablet through Kivy's thread with the
source phone:p1; "Forget this phone" makes a new code; off (and leaving the game) closes it all."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "app"))
from gui_process import run_scenario  # noqa: E402


def _phone_moves(address, url, out):
    """A phone (aiohttp's client) on its own thread: join by `url`, play the first choice offered."""
    import asyncio
    import json

    import aiohttp

    async def go():
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
            async with s.get(url) as r:
                out["join"] = r.status
            ws = await s.ws_connect(f"http://{address}/ws", headers={"Origin": f"http://{address}"})
            st = json.loads((await ws.receive(timeout=10)).data)
            while st["decision"]["complete"] is None:
                q = st["decision"]["question"]
                await ws.send_str(json.dumps({"type": "pick", "at": st["at"], "field": q["field"], "option": 0}))
                st = json.loads((await ws.receive(timeout=10)).data)
            await ws.send_str(json.dumps({"type": "act", "at": st["at"], "id": "k1",
                                          "action": st["decision"]["complete"]["action"]}))
            while True:
                msg = json.loads((await ws.receive(timeout=10)).data)
                if msg["type"] in ("ok", "refused"):
                    out["answer"] = msg
                    break
            await ws.close()
    try:
        asyncio.run(go())
    except Exception as exc:  # noqa: BLE001 - reported to the scenario
        out["error"] = repr(exc)


def scenario_phones_panel(app, drv):
    import socket
    import sys
    import threading

    import cv2
    import numpy as np

    from companion.gui import phones_panel

    phones_panel.HOST = "127.0.0.1"  # tests never listen on the network
    drv.start_from_form(app, "mint_works", names=("Ana", "Ben"))
    scr = drv.game_screen(app)
    while scr.ctrl.awaiting_dice():  # the app draws the Plan Supply (as "Let the app draw")
        scr.ctrl.roll_virtual()
        drv.pump(2)
    assert phones_panel.table_for(scr, make=False) is None  # nothing made, nothing listens
    drv.press(scr.ids.phones)
    (panel,) = [w for w in app.root_window.children if type(w).__name__ == "PhonesPanel"]
    assert not panel.on and "nothing listens" in panel.status
    panel.ids.switch.active = True
    drv.pump(3)
    server = phones_panel.table_for(scr, make=False)
    assert panel.on and server.running and server.address in panel.status
    folder = os.environ.get("PHONE_SHOTS") or os.path.join(os.environ["TABLETOP_COMPANION_DATA"], "shots")
    from kivy.core.window import Window
    path = drv.shot(f"phones-panel-{Window.width}x{Window.height}", folder=folder)
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    ok, texts, _, _ = cv2.QRCodeDetector().detectAndDecodeMulti(img)
    read = {t for t in texts if t} if ok else set()
    if Window.width >= 1000:  # both codes in sight (a smaller window scrolls to the second)
        assert read == {server.url("p1"), server.url("p2")}, read  # the codes on the screen are the seats'
    else:
        assert read and read <= {server.url("p1"), server.url("p2")}, read

    out = {}
    th = threading.Thread(target=_phone_moves, args=(server.address, server.url("p1"), out))
    th.start()
    drv.wait_for(lambda: not th.is_alive(), seconds=20, what="the phone's move")
    assert "error" not in out and out["join"] == 200 and out["answer"]["type"] == "ok", out
    last = scr.ctrl.journal.entries(last=1)[0]
    assert last.source == "phone:p1"
    assert "from the player's phone" in scr.log_text  # the tablet showed the move at once

    old = server.url("p2")
    (forget,) = [w for w in drv.find(panel, text="Forget this phone") if w.parent.parent.seat == "p2"]
    drv.press(forget)
    assert server.url("p2") != old

    host, port = server.address.split(":")
    panel.ids.switch.active = False
    drv.pump(3)
    assert not server.running and "nothing listens" in panel.status
    try:
        socket.create_connection((host, int(port)), timeout=1).close()
        raise AssertionError("still listening with the switch off")
    except OSError:
        pass
    panel.ids.switch.active = True  # on again, then the game is left: it stops with the game
    drv.pump(3)
    assert server.running
    panel.dismiss()
    drv.pump(2)
    app.leave_game()
    drv.pump(3)
    assert not server.running and phones_panel.table_for(scr, make=False) is None


@pytest.mark.parametrize("size", ["1280x800", "800x480", "412x915"])
def test_phones_panel_in_the_app(xdisplay, tmp_path, size):
    run_scenario(__file__, "scenario_phones_panel", tmp_path, size=size)
