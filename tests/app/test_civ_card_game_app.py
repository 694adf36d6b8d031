"""Civilization: The Card Game through the real app under Xvfb.

* The set-up dealt through the card picker at 800x480, 1280x800 and a phone's 412x915: each card
  dealt or turned up is one tap on its name (or a few letters typed, then the tap) and the one
  Confirm; the question says where the card went; only cards that can still be in the deck are
  offered; a purchase view with what can be paid for first, each price's parts behind a tap.
* A whole game: chosen on the New game screen, every turn played on the manual list (labelled
  buttons + Confirm), a plot bought through the purchase panel with a payment of the player's own
  mix, the combat helper read during an attack, to the game-end screen; then resumed from Home
  exactly."""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402


def _clean(where):
    """The layout check of the table screen (tests/app/layout_check.py) on the window now."""
    from layout_check import check_window, unique

    found = unique(check_window())
    assert not found, where + ":\n" + "\n".join(map(str, found))

# a player who buys technologies first, so the game ends in a few hundred actions
PREFERENCE = ("buy_tech", "build", "attack", "fight", "block", "trade_coin", "buy_population")


def choose(ctrl, buttons, rng):
    by = {}
    for b in buttons:
        a = b.action if isinstance(b.action, dict) else b.action.to_dict()
        t = a["type"]
        if t == "trade":
            t = "trade_coin" if a["get"] == "coin" and a["give"] != "coin" else "trade"
        by.setdefault(t, []).append(b)
    for t in PREFERENCE:
        if t in by and (t != "attack" or not ctrl.state.combat):
            return rng.choice(by[t])
    rest = [b for b in buttons if (b.action if isinstance(b.action, dict) else b.action.to_dict())["type"]
            not in ("trade", "buy_plot", "play_resource")]
    return rng.choice(rest or buttons)


def scenario_civ_card_game_played_on_the_tablet(app, drv):
    drv.press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    choice = [b for b in drv.find(ng, "GameChoice") if b.game_id == "civ_card_game"]
    assert choice and "Civilization: The Card Game" in choice[0].text and "2-4 players" in choice[0].text
    drv.press(choice[0])
    ng.name_input("p1").text = "Ana"
    ng.name_input("p2").text = "Ben"
    drv.press(ng.ids.start)
    assert app.root.current == "game"
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    assert ctrl.module.id == "civ_card_game"
    assert "Ben (dealer): deal Ana's first plot card face up in front of Ana" in scr.prompt
    rng = random.Random(3)
    steps = 0
    plot_bought = combat_seen = prices_seen = False
    while not ctrl.game.is_over(ctrl.state):
        steps += 1
        assert steps < 900, "the game must end"
        drv.pump(1)
        n = len(ctrl.journal)
        s = ctrl.state
        panel = scr.ids.step_area.children[0] if scr.ids.step_area.children else None
        if (s.step == "purchase" and not s.queue and not plot_bought and s.plot_row
                and sum(s.res[s.current]) >= ctrl.game.price(s, s.current, "plot")):
            assert type(panel).__name__ == "CCPurchasePanel"
            assert "Population on plot 1" in panel.prices
            assert panel.buy_button is None  # the payment opens once a plot card is tapped
            [card_w] = [w for w in drv.find(panel, "CCCard") if w.row["plot"] == s.plot_row[0]]
            assert not card_w.dear and "resources of any kind" in card_w.text, card_w.text
            drv.press(card_w)
            assert panel.buy_button is not None, scr.message  # the payment is offered
            f, h, c = s.res[s.current]
            panel.food, panel.hammer, panel.coin = min(f, 5), 0, 0
            panel._recheck()
            drv.pump(1)
            assert panel.buy_button.disabled and "resources in all" in panel.why
            cost = ctrl.game.price(s, s.current, "plot")
            take_c = min(c, cost - panel.food)
            panel.coin = take_c
            panel.hammer = cost - panel.food - take_c
            panel._recheck()
            drv.pump(1)
            if not panel.why:
                card = panel.plot
                drv.press(panel.buy_button)
                drv.press(scr.ids.confirm)  # the purchase waits for the one Confirm
                assert len(ctrl.journal) == n + 1, scr.message
                assert ctrl.state.plots[s.current][-1][0] == card
                drv.shot("civ-card-game-purchase-panel")
                plot_bought = True
                continue
        if s.step == "purchase" and not s.queue and " - 1 (" in "\n".join(ctrl.view.snapshot(ctrl.game, s, ctrl.setup)["cc_prices"]):
            assert " - 1 (" in panel.prices and " = " in panel.prices
            assert any("takes off 1" in r["parts"] for r in panel._rows)
            prices_seen = True
        if s.step == "combat" and s.combat and s.queue and not combat_seen:
            assert type(panel).__name__ == "CCCombatPanel"
            assert "attack[/b]" in panel.text and "1. " in panel.text
            drv.shot("civ-card-game-combat-helper")
            combat_seen = True
        buttons = drv.list_buttons(scr)
        assert buttons, f"no action offered at {s.step}"
        who = ctrl.name(ctrl.game.actor(s))
        assert who in scr.prompt, scr.prompt
        for b in buttons:
            assert b.text.startswith(f"{who}: ") and "_" not in b.text, b.text  # plain words, no ids
        pick = choose(ctrl, buttons, rng)
        drv.press(pick, frames=1)
        assert scr.pending_text == f"Confirm: {pick.text}"
        drv.press(scr.ids.confirm)
        assert len(ctrl.journal) == n + 1, scr.message
    assert plot_bought and combat_seen and prices_seen
    drv.pump(3)
    assert app.root.current == "game_end"
    end = app.root.get_screen("game_end")
    sc = ctrl.view.score(ctrl.game, ctrl.state)
    assert end.total_labels["p1"].text == str(sc["p1"]["total"])
    assert "The last technology was bought." in ctrl.view.end_reasons(ctrl.game, ctrl.state, ctrl.setup)
    drv.shot("civ-card-game-game-end")
    final = ctrl.state.to_dict()
    drv.press(end.ids.home)
    home = app.root.get_screen("home")
    rows = [r for r in drv.find(home, "SavedGameRow") if r.title.startswith("Civilization: The Card Game")]
    assert len(rows) == 1
    drv.press(rows[0].children[0])
    assert app.ctrl.state.to_dict() == final


def test_civ_card_game_played_on_the_tablet(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_civ_card_game_played_on_the_tablet", tmp_path, timeout=400)


# ------------------------------------------------------------------ the set-up through the picker
def _pick_card(drv, scr, card, type_first=False):
    """Name `card` on the picker: a tap on its name (after typing a few letters when asked), or
    the one whole choice naming it when a screenful or fewer remain; returns the taps made."""
    picker = scr.ids.picker
    opts = list(reversed(picker.ids.options.children))
    if type_first and picker.searching:
        picker.ids.search.text = card[:4].lower()
        drv.pump(1)
        opts = list(reversed(picker.ids.options.children))
        assert all(card[:4].lower() in b.text.lower() for b in opts), [b.text for b in opts]
    hit = [b for b in opts if b.text == card or b.text.endswith(f" {card} for the draft")
           or f" {card} to " in b.text or f"up {card} (" in b.text]
    assert len(hit) == 1, (card, [b.text for b in opts])
    drv.press(hit[0], frames=1)
    return 1


def scenario_card_game_dealt_through_the_picker(app, drv):
    size = "x".join(str(int(v)) for v in __import__("kivy.core.window", fromlist=["Window"]).Window.size)
    drv.start_from_form(app, "civ_card_game")
    ctrl, scr = app.ctrl, app.root.get_screen("game")
    game = ctrl.game
    plots = [n for n, d in game.plot_cards.items() for _ in range(d["copies"])]
    plots = plots[::3] + plots[1::3] + plots[2::3]  # a shuffled-looking deal, the same every run
    techs = ["Writing", "Pottery", "Mining"]
    taps = confirms = 0
    shots = 0
    typed_gone = False
    while ctrl.state.step in ("deal", "draft", "market"):
        s = ctrl.state
        kind, who, arg = s.queue[0]
        n = len(ctrl.journal)
        q = scr.ids.picker.question_text
        if kind == "deal":
            target = ctrl.name(arg)
            assert f"deal {target}'s " in scr.prompt or "deal your own" in scr.prompt, scr.prompt
            assert f"face up in front of {'you' if arg == who else target}" in scr.prompt, scr.prompt
        if kind in ("deal", "row") or kind == "turn_up":
            deck = s.tech_deck if arg == "techs" else [c for c, k in s.plot_deck.items() if k]
            if len(deck) > 8:  # the card picker: the cards that can still be in that deck, by name
                want = {"deal": f"Which plot card did you deal to {ctrl.name(arg) if arg != who else 'yourself'}?",
                        "row": "Which plot card did you lay out for the draft?"}.get(
                    kind, "Which technology card did you turn up?" if arg == "techs" else "Which plot card did you turn up?")
                assert q == want, q
                picker = scr.ids.picker
                offered = []
                for page in range(8):
                    offered += [b.text for b in reversed(picker.ids.options.children)]
                    if not picker.page_text or picker.page_text.startswith(f"{page + 1} of {page + 1}"):
                        break
                    picker.turn_page(1)
                picker._page = 0
                picker._fill_options()
                assert offered == list(deck), (offered, deck)  # exactly what can still be there
                if shots < 1 and kind == "deal":
                    drv.shot(f"civ-card-game-deal-picker-{size}")
                    _clean("the deal picker")
                    shots += 1
            gone = list(s.tech_row) if arg == "techs" else [c for c, k in s.plot_deck.items() if not k]
            if gone and scr.ids.picker.searching and not typed_gone:
                # issue 28, bad input: a name typed that can no longer be in the deck is refused
                # with the game's reason, and nothing is chosen or applied
                picker = scr.ids.picker
                picker.ids.search.text = gone[0]
                drv.pump(1)
                [note] = list(picker.ids.options.children)
                want = ctrl.view.unavailable_reason(game, s, ctrl.setup, ctrl.legal_actions()[0]["type"],
                                                    "card", gone[0])
                assert want and gone[0] in want and note.text == want, (note.text, want)
                assert scr.pending is None and len(ctrl.journal) == n
                drv.shot(f"civ-card-game-typed-gone-{size}")
                _clean("a typed card that is out")
                picker.ids.search.text = ""
                drv.pump(1)
                typed_gone = True
            card = techs[len(s.tech_row)] if arg == "techs" else plots.pop(0)
            if arg != "techs" and s.plot_deck.get(card, 0) == 0:  # pragma: no cover - the list above is valid
                raise AssertionError(card)
            taps += _pick_card(drv, scr, card, type_first=(taps % 3 == 1))
        else:  # the draft: the plots laid out, one tap
            card = s.draft_row[0]
            opts = [b for b in reversed(scr.ids.picker.ids.options.children)
                    if b.text == card or f" {card} " in b.text + " "]
            drv.press(opts[0], frames=1)
            taps += 1
        assert scr.pending is not None, scr.message
        drv.press(scr.ids.confirm)
        confirms += 1
        assert len(ctrl.journal) == n + 1, scr.message
    # the set-up's cards: 4 dealt, 4 laid out, 4 drafted, 3 plots and 3 technologies turned up
    assert confirms == 18 and taps == 18, (taps, confirms)
    assert ctrl.state.tech_row == tuple(techs)
    assert typed_gone, "no card ran out while the picker searched"
    drv.shot(f"civ-card-game-after-setup-{size}")
    # on to the first purchase: the free population, the discards, the collect (first choices)
    while not (ctrl.state.step == "purchase" and not ctrl.state.queue):
        n = len(ctrl.journal)
        b = drv.list_buttons(scr)[0]
        drv.press(b, frames=1)
        drv.press(scr.ids.confirm)
        assert len(ctrl.journal) == n + 1, scr.message
    panel = scr.ids.step_area.children[0]
    assert type(panel).__name__ == "CCPurchasePanel"
    rows = panel._rows
    assert rows and rows[0]["can"], rows[:1]
    seen_dear = False
    for r in rows:  # what can be paid for first
        seen_dear = seen_dear or not r["can"]
        assert r["can"] or seen_dear
    # a card picker: each card shows what it costs this player, the ones too dear in grey; a tap
    # on a card chooses it (the one Confirm applies it) and says how its price is made
    cards = list(reversed(panel.ids.cards.children))
    assert [c.row["key"] for c in cards] == [r["key"] for r in rows if r["group"] != "hand"]
    for c in cards:
        assert c.row["cost"] in c.text and c.dear == (not c.row["can"]), c.text
    from kivy.uix.button import Button

    n_buttons = [w.text for w in panel.walk(restrict=True) if isinstance(w, Button)]
    assert len(n_buttons) <= 24, n_buttons
    first = cards[0]
    drv.press(first)
    assert first.row["parts"] in panel.detail
    assert [c.selected for c in reversed(panel.ids.cards.children)][0], "the card tapped is marked"
    if len(first.row["choices"]) == 1:
        assert scr.pending == first.row["choices"][0][1], scr.pending_text
    drv.shot(f"civ-card-game-purchase-{size}")
    _clean("the purchase view, a card chosen")
    dear = [c for c in cards if c.dear]
    if dear:  # a grey card says why, and nothing waits for Confirm
        drv.press(dear[0])
        assert "cannot pay for it now" in panel.detail and scr.pending is None
    if panel.hand_text:  # the builds that depend on the hidden hand, opened
        drv.press(panel.ids.hand)
        _clean("the purchase view, the hand opened")
    drv.shot(f"civ-card-game-purchase-open-{size}")
    done = panel.done_button
    drv.press(done)
    assert scr.pending_text == "Confirm: Done buying", scr.pending_text


def _size_test(size):
    def test(xdisplay, tmp_path):
        run_scenario(__file__, "scenario_card_game_dealt_through_the_picker", tmp_path, size=size, timeout=240)
    test.__name__ = f"test_card_game_dealt_through_the_picker_{size}"
    return test


test_card_game_dealt_through_the_picker_800x480 = _size_test("800x480")
test_card_game_dealt_through_the_picker_1280x800 = _size_test("1280x800")
test_card_game_dealt_through_the_picker_412x915 = _size_test("412x915")
