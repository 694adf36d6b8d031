"""Step panels of the round dashboard for the economy steps: Production, Trade, Upkeep, Build,
Research and Taxation (registered in step_panels.PANELS). Layout in economy.kv.

Each panel explains the step and offers its decision in a better form than the plain list of
legal actions (which stays below as the manual fallback). The values come from economy_model,
which asks the engine; every button holds an action the engine accepts now (`ctrl.check`), and
dispatches it with `screen.submit(action)` (journaled with source "ui").
"""
from __future__ import annotations

from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label

from companion.kit import StepPanel, nice

from . import economy_model as M
from .. import labels as L
from ..help import step_help

def fmt(change: dict, sign=True) -> str:
    """'+2 Food, -1 Wood' (sign=False: '2 Food, 1 Wood')."""
    if not change:
        return "nothing"
    return ", ".join((f"{n:+d}" if sign else f"{abs(n)}") + f" {nice(r)}" for r, n in change.items())


def split(change: dict) -> tuple[dict, dict]:
    """A resource change as (what is given, what is got), both as positive amounts."""
    return ({r: -n for r, n in change.items() if n < 0}, {r: n for r, n in change.items() if n > 0})


def pay_gain(change: dict) -> str:
    """A resource change as 'pay 1 Food, 1 Wood; gain 1 Combat power'."""
    pay, gain = split(change)
    parts = []
    if pay:
        parts.append("pay " + fmt(pay, sign=False))
    if gain:
        parts.append("gain " + fmt(gain, sign=False))
    return "; ".join(parts) or "free"


def unit_name(u, state=None) -> str:
    """'the Settler at row 2, column 5' ('one of the 2 Settlers at ...'): never an id."""
    if u is None:
        return "a unit"
    return L.unit_words(u, state)


class EcoText(Label):
    pass


class EcoHead(Label):
    pass


class EcoRow(BoxLayout):
    pass


class EcoButton(Button):
    key = StringProperty("")
    selected = BooleanProperty(False)
    primary = BooleanProperty(False)


class EconomyPanel(StepPanel):
    """Common frame: title, collapsible rule help, a body filled by `fill` (the dashboard's now
    column scrolls it with everything else)."""
    title = StringProperty("")
    help_text = StringProperty("")
    show_help = BooleanProperty(False)
    expanded = BooleanProperty(True)

    _screen = None
    ctrl = None
    snap = None

    # ---------------------------------------------------------------- dashboard hook
    def update(self, screen, ctrl, snap):
        self._screen = screen
        self.ctrl, self.snap = ctrl, snap
        self.help_text = step_help(snap.get("step"))
        self.rebuild()

    def rebuild(self):
        body = self.ids.body
        body.clear_widgets()
        if self.ctrl is None or self.snap is None or self.snap.get("over"):
            return
        self.fill(body)

    def fill(self, body):  # pragma: no cover - every panel overrides it
        raise NotImplementedError

    # ---------------------------------------------------------------- widget helpers
    def who(self, seat) -> str:
        return self.ctrl.name(seat) if seat else "?"

    def text(self, body, markup, small=False, colour=None):
        w = EcoText(text=markup, font_size="14sp" if small else "15sp")
        if colour:
            w.color = colour
        body.add_widget(w)
        return w

    def head(self, body, text):
        body.add_widget(EcoHead(text=text))

    def button(self, text, action=None, key="", on_press=None, enabled=True, selected=False,
               primary=False):
        """A button; with `action` it dispatches it and is enabled only if the engine accepts it."""
        if action is not None and enabled:
            enabled = self.ctrl.check(action) is None
        b = EcoButton(text=text, key=key, selected=selected, primary=primary, disabled=not enabled)
        if action is not None:
            b.bind(on_release=lambda *_a: self.submit(action))
        elif on_press is not None:
            b.bind(on_release=lambda *_a: on_press())
        return b

    def row(self, body, *widgets):
        r = EcoRow()
        for w in widgets:
            r.add_widget(w)
        body.add_widget(r)
        return r

    def label(self, text, width=None):
        w = EcoText(text=text, size_hint_y=1)
        if width:
            w.size_hint_x, w.width = None, width
        return w

    def submit(self, action):
        return self._screen.submit(action)

    def repairs_section(self, body, repairs, title="Repairs"):
        if not repairs:
            return
        self.head(body, title)
        for r in repairs:
            body.add_widget(self.button(f"Repair {unit_name(r['unit'], self.ctrl.state)}: {pay_gain(r['change'])}",
                                        r["action"], key=f"repair:{r['action']['unit']}"))


# ------------------------------------------------------------------------------------ production
class ProductionPanel(EconomyPanel):
    """Per unit: its space, what it collects, the Settlers' picks; the total; Produce."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.picks: dict[int, str] = {}
        self._seat = None

    def pick(self, uid, res):
        self.picks[uid] = res
        self.rebuild()

    def fill(self, body):
        seat = M.seat_to_act(self.ctrl)
        if seat != self._seat:
            self.picks, self._seat = {}, seat
        p = M.production(self.ctrl, self.picks)
        self.title = f"Production - {self.who(seat)}"
        if p is None:
            self.text(body, "Nothing to produce now.")
            return
        self.picks = dict(p["picks"])
        idle = []
        for row in p["units"]:
            u = row["unit"]
            if not row["yield"] and not row["options"]:
                idle.append(unit_name(u, self.ctrl.state))
                continue
            space = f"{L.space_words(row['space'])} ({', '.join(nice(r) for r in row['space_res']) or 'no resources'})"
            self.text(body, f"{L.cap(L.unit_words(u, self.ctrl.state, where=False))} at {space}: "
                            f"[b]{fmt(row['yield'])}[/b]")
            if len(row["options"]) > 1:
                self.row(body, self.label("Pick:", dp(56)), *[
                    self.button(nice(r), key=f"pick:{u.id}:{r}", selected=(r == row["pick"]),
                                on_press=lambda uid=u.id, r=r: self.pick(uid, r))
                    for r in row["options"]])
        if idle:
            self.text(body, "Collect nothing: " + "; ".join(idle), small=True, colour=(0.7, 0.7, 0.7, 1))
        self.text(body, f"[b]Total to gain: {fmt(p['total'])}[/b]")
        body.add_widget(self.button(f"Produce ({fmt(p['total'])})", p["action"], key="produce", primary=True))


# ------------------------------------------------------------------------------------ trade
class TradePanel(EconomyPanel):
    """Trade at the player's rate (give/get selectors), offers to the opponent and their answer."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.give = None
        self.get = None
        self.offer_give: dict[str, int] = {}
        self.offer_get: dict[str, int] = {}

    def choose(self, side, res):
        setattr(self, side, res)
        self.rebuild()

    def bump(self, side, res, limit):
        m = self.offer_give if side == "give" else self.offer_get
        m[res] = m.get(res, 0) + 1 if m.get(res, 0) < limit else 0
        self.rebuild()

    def clear_offer(self):
        self.offer_give, self.offer_get = {}, {}
        self.rebuild()

    def fill(self, body):
        t = M.trade(self.ctrl)
        if t is None:
            self.text(body, "No trade now.")
            return
        seat = t["seat"]
        if t["offer_open"]:
            self.title = f"Trade offer - {self.who(seat)} answers"
            gives, gets = split((t.get("offer_outcome") or {}).get(seat, {}))
            self.text(body, f"{self.who(t['offerer'])} offers a trade. If {self.who(seat)} accepts: "
                            f"give [b]{fmt(gives, sign=False)}[/b], get [b]{fmt(gets, sign=False)}[/b].")
            self.row(body, *[self.button("Accept" if a["type"] == "accept_trade" else "Decline", a,
                                         key=a["type"], primary=a["type"] == "accept_trade")
                             for a in t["answers"]])
            return
        self.title = f"Trade - {self.who(seat)}"
        self.text(body, f"Your trade rate: [b]{t['rate']} : 1[/b]")
        pairs = set(t["pairs"])
        self.row(body, self.label("Give:", dp(56)), *[
            self.button(nice(r), key=f"give:{r}", selected=(r == self.give),
                        enabled=any(g == r for g, _ in pairs), on_press=lambda r=r: self.choose("give", r))
            for r in t["gives"]])
        self.row(body, self.label("Get:", dp(56)), *[
            self.button(nice(r), key=f"get:{r}", selected=(r == self.get),
                        enabled=((self.give, r) in pairs) if self.give else any(h == r for _, h in pairs),
                        on_press=lambda r=r: self.choose("get", r))
            for r in t["gets"]])
        if self.give and self.get:
            act = M.trade_action(seat, self.give, self.get)
            why = M.refusal(self.ctrl, act)
            if why is None:
                gives, gets = split(M.outcome(self.ctrl, act)[seat])
                body.add_widget(self.button(f"Trade: give {fmt(gives, sign=False)}, get {fmt(gets, sign=False)}",
                                            act, key="trade", primary=True))
            else:
                self.text(body, f"Not possible: {why[1]}", colour=(1, 0.6, 0.6, 1))
        elif not pairs:
            self.text(body, f"No trade possible now: each trade gives {t['rate']} of one resource.",
                      small=True)
        else:
            self.text(body, "Choose what to give and what to get.", small=True)
        self.opponent_section(body, t)

    def opponent_section(self, body, t):
        form = t["opponent"]
        seat = t["seat"]
        opp = "p2" if seat == "p1" else "p1"
        if not form["enabled"]:
            self.text(body, f"Trade with {self.who(opp)}: {form['reason']}", small=True,
                      colour=(0.7, 0.7, 0.7, 1))
            return
        self.head(body, f"Offer to {self.who(opp)} (tap to add 1)")
        mine = self.snap["players"][seat]["resources"]
        theirs = self.snap["players"][opp]["resources"]
        for side, m, have in (("give", self.offer_give, mine), ("get", self.offer_get, theirs)):
            self.row(body, self.label("You " + side + ":", dp(72)), *[
                self.button(f"{nice(r)} {m.get(r, 0)}", key=f"offer_{side}:{r}",
                            on_press=lambda side=side, r=r, lim=have.get(r, 0): self.bump(side, r, lim))
                for r in form["resources"]])
        act = M.offer_action(seat, self.offer_give, self.offer_get)
        why = M.refusal(self.ctrl, act)
        if why and (act["give"] or act["get"]):
            self.text(body, f"Offer not possible: {why[1]}", small=True, colour=(1, 0.6, 0.6, 1))
        body.add_widget(self.button(f"Offer: give {fmt(act['give'], sign=False)}, get {fmt(act['get'], sign=False)}",
                                    act, key="offer", primary=True))
        body.add_widget(self.button("Clear the offer", key="offer_clear", on_press=self.clear_offer,
                                    enabled=bool(act["give"] or act["get"])))


# ------------------------------------------------------------------------------------ upkeep
class UpkeepPanel(EconomyPanel):
    """Upkeep due vs resources; Pay, or the downgrades/disbands that make it payable; repairs."""

    def fill(self, body):
        u = M.upkeep(self.ctrl)
        if u is None:
            self.text(body, "No upkeep now.")
            return
        seat = u["seat"]
        self.title = f"Upkeep - {self.who(seat)}"
        have = u["have"]
        self.text(body, f"Due: [b]{fmt(u['need'], sign=False) if u['need'] else 'nothing'}[/b]   -   "
                        "have: " + ", ".join(f"{nice(r)} {have[r]}" for r in (set(u["need"]) | {"money"})
                                            if r in have))
        st = u["status"]
        if st == "payable":
            body.add_widget(self.button(f"Pay upkeep ({fmt(u['pay_outcome'])})", u["pay"], key="pay",
                                        primary=True))
        elif st == "paid":
            self.text(body, "[b]Upkeep paid.[/b]" if u["need"] else "[b]No upkeep due.[/b]")
        else:
            self.text(body, f"[b]Cannot pay:[/b] {u['reason']}", colour=(1, 0.6, 0.6, 1))
        if u["cuts"]:
            self.head(body, "Downgrade or disband (refund)" + (" - choose until payable" if st == "unpayable" else ""))
            for c in u["cuts"]:
                a = c["action"]
                verb = "Downgrade" if a["type"] == "downgrade" else "Disband"
                then = fmt(c["need_after"], sign=False) if c["need_after"] else "nothing"
                ok = "payable" if c["payable_after"] else "still not payable"
                tail = f"; upkeep then {then} ({ok})" if st != "paid" else ""
                body.add_widget(self.button(f"{verb} {unit_name(c['unit'], self.ctrl.state)}: {pay_gain(c['change'])}{tail}",
                                            a, key=f"{a['type']}:{a['unit']}"))
        self.repairs_section(body, u["repairs"], "Repairs (after paying)")


# ------------------------------------------------------------------------------------ build
class BuildPanel(EconomyPanel):
    """Legal builds and upgrades grouped by the kind they make, with their exact cost."""

    def fill(self, body):
        b = M.build(self.ctrl)
        if b is None:
            self.text(body, "Nothing to build now.")
            return
        self.title = f"Build - {self.who(b['seat'])}"
        self.text(body, f"Unit dice in play: {b['dice_in_play']}", small=True)
        if not b["groups"]:
            self.text(body, "Nothing can be built or upgraded now.")
        for kind, opts in b["groups"].items():
            self.head(body, nice(kind))
            for o in opts:
                a = o["action"]
                if a["type"] == "build":
                    text = f"Build at {L.space_words(o['space'])}: {pay_gain(o['change'])}"
                    key = f"build:{kind}:{o['space']}"
                else:
                    where = f", placed at {L.space_words(o['space'])}" if a.get("space") else ""
                    text = f"Upgrade {unit_name(o['from'], self.ctrl.state)}{where}: {pay_gain(o['change'])}"
                    key = f"upgrade:{a['unit']}:{kind}" + (f":{a['space']}" if a.get("space") else "")
                body.add_widget(self.button(text, a, key=key))


# ------------------------------------------------------------------------------------ development
class ResearchPanel(EconomyPanel):
    """Each development track: current space, next space, its cost, and Research."""

    def fill(self, body):
        r = M.research(self.ctrl)
        if r is None:
            self.text(body, "No research now.")
            return
        self.title = f"Research - {self.who(r['seat'])}"
        self.text(body, f"Research left this turn: [b]{r['left']}[/b]")
        for t in r["tracks"]:
            now = t["now"]
            head = f"[b]{nice(t['track'])}[/b]: {now['name']} (level {now['level']})"
            if t["next"] is None:
                self.text(body, head + " - top of the track")
                continue
            nxt = t["next"]
            body.add_widget(self.button(f"{head} -> {nxt['name']} (level {nxt['level']}), cost {t['cost']}",
                                        t["action"], key=f"research:{t['track']}", primary=t["legal"]))
            if not t["legal"]:
                self.text(body, t["reason"], small=True, colour=(0.75, 0.75, 0.75, 1))


class TaxationPanel(EconomyPanel):
    """Taxes collected; one Civilization Aspect improvement (exact cost); repairs."""

    def fill(self, body):
        x = M.taxation(self.ctrl)
        if x is None:
            self.text(body, "No taxation now.")
            return
        self.title = f"Taxation - {self.who(x['seat'])}"
        self.text(body, f"Your taxes: [b]{x['taxes']} Money[/b] a turn (this turn's were collected "
                        "when the step began)", small=True)
        self.head(body, "Improve ONE aspect")
        reasons = {a["reason"] for a in x["aspects"] if not a["legal"]}
        shared = len(reasons) == 1 and not any(a["legal"] for a in x["aspects"])
        if shared:
            self.text(body, reasons.pop(), small=True, colour=(0.75, 0.75, 0.75, 1))
        for a in x["aspects"]:
            text = f"{nice(a['track'])}: level {a['level']}"
            if a["legal"]:
                text += f" -> {a['level_after']}: {pay_gain(a['change'])}"
            body.add_widget(self.button(text, a["action"], key=f"improve:{a['track']}", primary=a["legal"]))
            if not a["legal"] and not shared:
                self.text(body, a["reason"], small=True, colour=(0.75, 0.75, 0.75, 1))
        self.repairs_section(body, x["repairs"])
