"""The seat pages in a real browser (issue 37, part 6): Playwright driving Debian's Chromium.

Four browser contexts are four phones. Each joins by the address decoded (OpenCV) from the QR
PNG the tablet shows. A scripted part of a Card Game and of a Mint Works game is played from the
phones, the tablet doing only what the table does (the rolls and draws); the journal equals a
tablet-only replay of the same actions; no byte sent to a phone holds another seat's planted
secret (a face-down Lotto plan renamed to a marker); a killed phone rejoins by its cookie within
2 s; a forgotten key and a stale action are refused on the page. Screenshots at 360x740 and
412x915 go to the test's folder (and to $PHONE_SHOTS when set, to be looked at)."""
import json
import os
import random
import shutil
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from phone_kit import Table, picks_to, read_qr  # noqa: E402

from companion.controller import GameController  # noqa: E402
from companion.phones.seat_state import SeatStates  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
SIZES = ((360, 740), (412, 915))


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail("Debian's Chromium is missing: apt-get install chromium (.ci/run does)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def scan(png: bytes) -> str:
    """The address in a QR code image, read the way a phone's camera app reads it."""
    import cv2
    import numpy as np
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    text = read_qr(img)
    assert text, "the QR code could not be read"
    return text


def script(tmp_path, game, names, seed, steps, pick_seed, prefer=None, **options):
    """A seeded part of a game played tablet-only: [(seat or None for chance, action)], and that
    replay's journal actions. Each seat's move is one its phone is offered (its own view)."""
    ctrl = GameController.new(tmp_path / "replay", names=names, colours=("blue", "green", "red", "yellow"),
                              seed=seed, game=game, **options)
    states, rng, out = SeatStates(ctrl), random.Random(pick_seed), []
    try:
        while len(out) < steps and not ctrl.game.is_over(ctrl.state):
            if ctrl.awaiting_dice():
                out.append((None, None))
                ctrl.roll_virtual()
                continue
            seat = ctrl.game.actor(ctrl.state)
            if states.drawing():  # a card named at the table: the tablet records it
                a = random.Random(pick_seed * 1000 + len(out)).choice(ctrl.legal_actions())
                out.append((None, a))
                ctrl.dispatch(a, "ui")
                continue
            acts = states.legal_for(seat)
            liked = [a for a in acts if prefer and prefer in json.dumps(a)]
            a = rng.choice(liked) if liked and rng.random() < 0.9 else rng.choice(acts)
            out.append((seat, a))
            ctrl.dispatch(a, "ui")
        return out, [e.action for e in ctrl.journal.actions()]
    finally:
        ctrl.close()


class Phones:
    """Browser contexts as phones, each joined by scanning its seat's QR code."""

    def __init__(self, browser, table, seats, size=(412, 915)):
        self.table, self.pages, self.contexts = table, {}, {}
        for seat in seats:
            url = scan(table.server.qr_png(seat))
            assert url == table.server.url(seat) and url.startswith(f"http://{table.address}/join/")
            ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
            page = ctx.new_page()
            page.goto(url)
            self.contexts[seat], self.pages[seat] = ctx, page
        for page in self.pages.values():
            self.wait_at(page, self.at())

    def at(self):
        return self.table.call(lambda: self.table.ctrl.journal.last_seq)

    @staticmethod
    def wait_at(page, at, timeout=10000):
        page.wait_for_function("a => window.seatPage && seatPage.state() && seatPage.state().at === a", arg=at,
                               timeout=timeout)

    def step(self, seat, action):
        """One step of a script: a seat's move from its phone, or (seat None) what the table does
        on the tablet (a roll, or a card drawn and named), then every page catches up."""
        if seat is not None:
            self.play(seat, action)
            return
        if action is not None:
            self.table.tablet(action)
        else:
            self.table.play_chance()
        for p in self.pages.values():
            self.wait_at(p, self.at())

    def play(self, seat, action):
        """Tap through `seat`'s pickers to `action`, then Confirm; every page shows the result."""
        page = self.pages[seat]
        for field, i in picks_to(self.table, seat, action):
            n = page.evaluate("seatPage.renders()")
            page.locator("#options button").nth(i).click()
            page.wait_for_function("n => seatPage.renders() > n", arg=n)
        label = page.locator("#confirm").inner_text()
        assert label.startswith("Confirm: ")
        before = self.at()
        page.locator("#confirm").click()
        deadline = time.monotonic() + 10
        while self.at() == before:
            assert time.monotonic() < deadline, f"{seat}'s Confirm was not applied"
            time.sleep(0.01)
        for p in self.pages.values():
            self.wait_at(p, self.at())

    def close(self):
        for ctx in self.contexts.values():
            ctx.close()


def shoot(page, name, tmp_path):
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path))
    out = os.environ.get("PHONE_SHOTS")
    if out:
        os.makedirs(out, exist_ok=True)
        shutil.copy(path, os.path.join(out, path.name))
    return path


def check_page_fits(page):
    """Nothing wider than the screen; every button at least 48 CSS px high."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width
    small = page.evaluate("""Array.from(document.querySelectorAll('button, summary, .button'))
        .filter(b => b.offsetParent !== null && b.getBoundingClientRect().height < 48)
        .map(b => b.textContent)""")
    assert not small, small


def test_card_game_from_four_phones(browser, tmp_path):
    names = ["Ana", "Ben", "Cleo", "Dan"]
    steps, replay = script(tmp_path, "civ_card_game", names, seed=21, steps=36, pick_seed=2)
    table = Table(tmp_path / "live", "civ_card_game", names, seed=21)
    phones = Phones(browser, table, ["p1", "p2", "p3", "p4"])
    try:
        for i, (seat, action) in enumerate(steps):
            phones.step(seat, action)
            if i == 8:
                for w, h in SIZES:
                    page = phones.pages[seat or "p1"]
                    page.set_viewport_size({"width": w, "height": h})
                    shoot(page, f"card-game-{w}x{h}", tmp_path)
                    check_page_fits(page)
        live = table.call(lambda: [e for e in table.ctrl.journal.actions()])
        assert [e.action for e in live] == replay  # the same game as the tablet alone
        assert {e.source for e in live} >= {"phone:p1", "phone:p2"}
        assert all(e.source.startswith("phone:") for e, (seat, _) in zip(live, steps) if seat is not None)
    finally:
        phones.close()
        table.close()


def test_mint_works_from_phones_keeps_the_lotto_plan_secret(browser, tmp_path, monkeypatch):
    names = ["Ana", "Ben", "Cleo", "Dan"]
    steps, replay = script(tmp_path, "mint_works", names, seed=5, steps=52, pick_seed=4, prefer="lotto")
    table = Table(tmp_path / "live", "mint_works", names, seed=5)
    data = table.ctrl.game.data
    # find the Lotto plan of the script, then plant a marker as its name (words only: the same game)
    secret = {}

    def note_secret():
        for seat in table.ctrl.state.seats:
            for pid, built, hidden in table.ctrl.state.plans[seat]:
                if hidden and not built:
                    secret[pid] = seat
    phones = Phones(browser, table, ["p1", "p2", "p3", "p4"])
    try:
        marked = False
        for seat, action in steps:
            phones.step(seat, action)
            table.call(note_secret)
            if secret and not marked:
                pid = next(iter(secret))
                monkeypatch.setitem(data.plans[pid], "name", f"ZQMARK-{secret[pid]}-{pid}")
                marked, table.sent[:] = True, []  # check from the moment it is secret
                for p in phones.pages.values():  # a reload after the draw: first sync again
                    p.reload()
                    phones.wait_at(p, phones.at())
        assert marked, "the script reached no Lotto draw"
        pid, owner = next(iter(secret.items()))
        owner_page = phones.pages[owner]
        assert owner_page.locator("#mylines").inner_text().count(f"ZQMARK-{owner}-{pid}") >= 1
        shoot(owner_page, "mint-works-owner-412x915", tmp_path)
        for w, h in SIZES:
            owner_page.set_viewport_size({"width": w, "height": h})
            shoot(owner_page, f"mint-works-{w}x{h}", tmp_path)
            check_page_fits(owner_page)
        other = next(s for s in phones.pages if s != owner)
        other_page = phones.pages[other]
        # errors carry no secret either: a stale action and junk from another seat's page
        at = phones.at()
        other_page.evaluate("a => seatPage.send({type: 'act', at: a - 1, id: 'stale1', action: {type: 'pass', player: "
                            f"'{other}'" + "}})", at)
        other_page.wait_for_function("() => !document.querySelector('#note').hidden")
        assert "moved on" in other_page.locator("#note").inner_text()
        other_page.evaluate("() => seatPage.send({type: 'pick', at: 0, field: 'x', option: 99})")
        other_page.wait_for_timeout(200)
        # a killed phone rejoins its seat by its cookie, without scanning
        kept = phones.contexts[other].storage_state()
        phones.contexts[other].close()
        ctx = browser.new_context(viewport={"width": 412, "height": 915}, storage_state=kept)
        t0 = time.monotonic()
        page = ctx.new_page()
        page.goto(f"http://{table.address}/seat")
        phones.wait_at(page, phones.at(), timeout=2000)
        assert time.monotonic() - t0 <= 2.0
        phones.contexts[other], phones.pages[other] = ctx, page
        assert page.evaluate("seatPage.state().seat") == other
        # no byte sent to any other seat holds the marker or the plan's id while it is face down
        table.call(note_secret)
        assert pid in secret, "the plan was built during the check: lengthen nothing, shorten the script"
        sent = list(table.sent)
        assert any(s == owner and f"ZQMARK-{owner}-{pid}" in t for s, t in sent)
        others = [(s, t) for s, t in sent if s != owner]
        assert others
        for s, text in others:
            assert "ZQMARK" not in text and f'"{pid}"' not in text, s
        live = table.call(lambda: [e.action for e in table.ctrl.journal.actions()])
        assert live == replay
    finally:
        phones.close()
        table.close()


def test_a_forgotten_phone_is_told_to_scan_again(browser, tmp_path):
    table = Table(tmp_path, "civ_quest", ["Ana", "Ben"])
    try:
        ctx = browser.new_context(viewport={"width": 360, "height": 740})
        page = ctx.new_page()
        page.goto(scan(table.server.qr_png("p2")))
        Phones.wait_at(page, table.call(lambda: table.ctrl.journal.last_seq))
        assert page.url.endswith("/seat")  # the key left the address bar
        table.server.forget("p2")
        page.wait_for_selector("#gone:not([hidden])", timeout=5000)
        assert "Scan your seat's QR code again" in page.locator("#gone").inner_text()
        page.reload()
        assert "Scan your seat's QR code again" in page.content()
        bad = ctx.new_page()
        bad.goto(f"http://{table.address}/join/{'A' * 32}")
        assert "Scan your seat's QR code again" in bad.content() and "Ben" not in bad.content()
        ctx.close()
    finally:
        table.close()
