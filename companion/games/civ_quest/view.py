"""Civ Quest in plain words for the shell (no Kivy): prompts that say what to do at the table,
each player's pad, labelled actions, the result."""
from __future__ import annotations

import json
import os

from companion.engine.errors import Rejected
from companion.games.contract import ROLE_SYSTEM, GameView, Pick, dice_words

from .data_load import DATA
from .map_layout import cells_for
from .rules import ROLL_NAMES, TURN_STEPS

STEP_NAMES = {"start": "Starting areas", "first_player": "First player", "leader": "Leader phase",
              "city": "City phase", "advance": "Advance phase", "growth": "Growth phase", "build": "Build phase",
              "disaster": "Disaster phase", "clash": "Clash phase", "migration": "Migration phase"}
WHAT = {"pt": "Population Token", "ip": "Idea Point", "rp": "Resource Point", "mp": "Move Point",
        "vp": "Victory Point"}
END_WORDS = {"land_full": "Every land area is occupied.", "wonders_built": "All wonders are built.",
             "seven_cities": "A civilisation has 7 cities.", "last_civ": "Only one civilisation is left.",
             "round_limit": "The agreed number of rounds is over."}
ITEM_WORDS = {"advances": "Advances", "wonder_bonus": "Wonder VP (Pyramids)", "iconic_leaders": "Iconic leaders",
              "city_rolls": "City rolls", "areas": "Areas occupied", "wonders": "Wonders (5 each)",
              "corrections": "Corrections"}


def _plural(n, word, many=None):
    return f"{n} {word if n == 1 else (many or word + 's')}"


# the fields a player picks on the map, in the order asked (the shell narrows the rest)
AREA_PICKS = {
    "place_start": (Pick("area", "area", "Which empty land area do you start in?"),),
    "place": (Pick("area", "area", "Where do the Population Tokens go?"),
              Pick("count", "count", "How many PT there?")),
    "place_city": (Pick("area", "area", "Which of your areas takes the free city?"),),
    "build_city": (Pick("area", "area", "Build the city in which of your areas?"),),
    "lose": (Pick("area", "area", "Remove tokens from which area?"), Pick("count", "count", "How many PT?")),
    "break_city": (Pick("area", "area", "Break the city in which area?"),),
    "war": (Pick("opponent", "seat", "War on whom?"), Pick("to_area", "area", "Which area do you attack?"),
            Pick("from_area", "area", "Attack from which of your areas?")),
    "steal_pt": (Pick("from_area", "area", "Take 1 PT from which of their areas?"),
                 Pick("to_area", "area", "Put it in which of your areas?")),
    "move_from": (Pick("from_area", "area", "Move tokens from which area?"),),
    "move": (Pick("from_area", "area", "Move tokens from which area?"),
             Pick("to_area", "area", "Move them to which area?"), Pick("count", "count", "How many PT?")),
}
AREA_FIELDS = ("area", "from_area", "to_area")


TYPE_WORDS = {"place_start": "Choose a starting area", "place": "Place Population Tokens",
              "place_city": "Put the free city", "build_city": "Build a city", "build_wonder": "Build a wonder",
              "lose": "Remove tokens", "break_city": "Break a city", "trade": "Trade", "war": "War",
              "peace": "Neither trade nor war", "steal_pt": "Take a PT", "move_from": "Move tokens",
              "move": "Move tokens",
              "buy_advance": "Buy an advance", "pick_advance": "Take an advance", "pick_city": "Take a City result",
              "keep_roll": "Keep the roll", "reroll": "Reroll", "done": "End the phase",
              "correct": "Correct a count"}


class CivQuestView(GameView):
    def __init__(self):
        with open(os.path.join(DATA, "help.json"), encoding="utf-8") as f:
            self._help = json.load(f)

    def step_label(self, step):
        return STEP_NAMES.get(step) or ROLL_NAMES.get(step) or super().step_label(step)

    def phase_label(self, phase):
        return "Turn" if phase == "turn" else ("Setup" if phase == "setup" else super().phase_label(phase))

    def step_help(self, step):
        return self._help.get(step, "")

    def roll_owner(self, state):
        return state.roller if state.roll else None

    # ---------------------------------------------------------------- pickers and the map
    def picks(self, game, action_type, state=None, setup=None):
        return AREA_PICKS.get(action_type) or super().picks(game, action_type)

    def type_label(self, action_type):
        return TYPE_WORDS.get(action_type) or super().type_label(action_type)

    def value_label(self, game, state, setup, action_type, field, value):
        if field in AREA_FIELDS and state is not None:
            return state.board.name(value)
        if field == "count" and isinstance(value, int):
            return f"{value} PT"
        return super().value_label(game, state, setup, action_type, field, value)

    def map_model(self, game, state, setup) -> dict:
        """What the schematic map draws (plain data): each area in play with its grid cell, kind,
        owner, PT and city; the borders; the grid's size."""
        b = state.board
        cells, cols, rows = cells_for(b)
        areas = []
        for a in b.order:
            u = state.units.get(a)
            c, r = cells[a]
            areas.append({"id": a, "name": b.name(a), "kind": b.kind[a], "col": c, "row": r,
                          "owner": u[0] if u else None, "pt": u[1] if u else 0, "city": bool(u and u[2])})
        edges = sorted({tuple(sorted((a, n))) for a in b.order for n in b.adj[a]})
        return {"areas": areas, "edges": edges, "cols": cols, "rows": rows}

    def why_not_area(self, game, state, setup, actions, field, area) -> str:
        """Why tapping `area` for `field` picks nothing now, in plain words. `actions`: the legal
        actions still offered (dicts); the rules' own refusal of the closest one, with the area
        tapped, says why."""
        b = state.board
        name = b.name(area)
        if area not in b.kind:
            return f"{name} is not in play with this many players."
        if b.kind[area] != "land":
            return f"{name} is {'deep sea' if b.kind[area] == 'deep' else 'sea'}: tokens stay on land areas."
        probe = next((a for a in actions if field in a), None)
        if probe is None:
            return f"{name} is not one of the choices now."
        if any(a.get(field) == area for a in actions):
            return f"{name} is a choice, but not with what you picked before: change that first."
        try:
            game.apply(state, dict(probe, **{field: area}))
        except Rejected as exc:
            msg = exc.message
            return msg[:1].upper() + msg[1:] + ("" if msg.endswith(".") else ".")
        except (ValueError, KeyError, TypeError):
            pass
        u = state.units.get(area)
        held = f" ({self.name(setup, u[0])} is there)" if u else " (it is empty)"
        return f"{name} is not one of the choices now{held}."

    # ---------------------------------------------------------------- actions
    def action_label(self, action, state, setup):
        t = action.get("type")
        who = self.name(setup, action.get("player")) if action.get("player") else ""
        area = lambda k: state.board.name(action[k]) if state is not None else action[k]  # noqa: E731
        if t in ROLL_NAMES:
            vals = [action[k] for k in ("die", "first", "second") if k in action]
            return f"{ROLL_NAMES[t]}: " + ("-".join(map(str, vals)) if t == "research_roll" else " + ".join(map(str, vals)))
        words = {
            "place_start": lambda: f"start with 7 PT in {area('area')}",
            "keep_roll": lambda: "keep the roll",
            "reroll": lambda: f"reroll it ({action['source']})",
            "place": lambda: f"place {action['count']} PT in {area('area')}",
            "place_city": lambda: f"put the free city in {area('area')}",
            "pick_city": lambda: f"take 1 {WHAT.get(action['result'], action['result'])}",
            "buy_advance": lambda: f"buy an advance for {self._cost(state)} IP and roll on the Research table",
            "pick_advance": lambda: f"take {action['advance']}",
            "build_city": lambda: f"build a city in {area('area')} (5 RP, 5 PT)",
            "build_wonder": lambda: f"build {action['wonder']}",
            "lose": lambda: f"lose {action['count']} PT from {area('area')}",
            "break_city": lambda: f"break the city in {area('area')} into 5 PT",
            "trade": lambda: f"trade with {self.name(setup, action['opponent'])}",
            "peace": lambda: f"neither trade nor war with {self.name(setup, action['opponent'])}",
            "war": lambda: (f"war on {self.name(setup, action['opponent'])}: {area('from_area')} attacks "
                            f"{area('to_area')}"),
            "steal_pt": lambda: f"take 1 PT from {area('from_area')} into {area('to_area')}",
            "move_from": lambda: f"move tokens from {area('from_area')}",
            "move": lambda: f"move {action['count']} PT from {area('from_area')} to {area('to_area')}",
            "done": lambda: f"end the {STEP_NAMES.get(state.step, 'phase') if state is not None else 'phase'}",
            "correct": lambda: f"correct {action['what'].upper()} to {action['value']}",
        }
        try:
            text = words[t]()
        except (KeyError, AttributeError, TypeError):
            return super().action_label(action, state, setup)
        return f"{who}: {text}" if who else text

    @staticmethod
    def _cost(state):
        from .rules import GAME
        return GAME.advance_cost(state) if state is not None else "?"

    # ---------------------------------------------------------------- the moment
    def last_outcome(self, game, state, setup) -> str:
        """What the latest roll did, in words (shown until the next roll)."""
        if not state.rolls:
            return ""
        kind, who, dice, note = state.rolls[-1]
        if note:
            return f"{self.name(setup, who)} rerolled the {ROLL_NAMES[kind]} ({note.split(' with ')[-1]})."
        c = state.ctx
        shown = "-".join(map(str, dice)) if kind == "research_roll" else " + ".join(map(str, dice))
        head = f"{self.name(setup, who)}'s {ROLL_NAMES[kind]}: {shown}"
        if c.get("offer"):
            return head + "."
        extra = ""
        if kind in ("leader_roll", "leader_bonus_roll") and c.get("leader"):
            ld = game.leaders[c["leader"]]
            extra = (" - no leader" if c["leader"] == "none"
                     else f" - {ld['name']} leader ({ld['notes']})")
        elif kind == "disaster_roll":
            extra = " - a disaster" if dice[0] >= game.rules["disaster_on"] else " - no disaster"
        elif kind == "disaster_type_roll" and c.get("disaster"):
            extra = f" - {c['disaster'].capitalize()}"
        elif kind == "casualty_roll" and "lost" in c:
            mit = game.mitigated(state, who, c.get("disaster"))
            extra = f" - lose {c['lost']} PT" + (f" (-2 for {', '.join(mit)})" if mit else "")
        elif kind == "trade_roll" and c.get("trade_result"):
            extra = {"rp": " - steal 1 RP", "ip": " - steal 1 IP", "advance": " - learn an advance they know",
                     "pt": " - steal 1 PT"}[c["trade_result"]]
        elif kind == "war_roll" and c.get("last_war") and not c.get("war"):
            att, dfn, frm, to, ta, td, winner = c["last_war"]
            place = state.board.name(to if winner == att else frm)
            extra = (f" - {ta} against {td}: {self.name(setup, winner)} wins; clear {place} of the loser's"
                     f" tokens and put 1 {self.name(setup, winner)} token there")
        return head + extra + "."

    # ---------------------------------------------------------------- what a roll did
    def history_lines(self, game, before, action, after, setup):
        """What followed an action by itself: for a roll, its consequence for the table (what to
        take, put, move or remove), then the round's end and the game's end."""
        out = []
        t = action.get("type")
        if t == "keep_roll" and (before.ctx or {}).get("offer"):  # the kept roll takes effect now
            kind, _who, dice = before.ctx["offer"]
            keys = ("first", "second") if len(dice) == 2 else ("die",)
            action = dict(zip(keys, dice), type=kind)
            t = kind
        if t in ROLL_NAMES:
            try:
                out = self.roll_consequence(game, before, action, after, setup)
            except (KeyError, IndexError, TypeError, ValueError, AttributeError):
                out = []
            if not out:  # never a card that says nothing
                out = ["Nothing changes on the table."]
        more = super().history_lines(game, before, action, after, setup)
        return out + [("Round 1 begins." if x.startswith("Round 0 ends") else x) for x in more]

    def roll_consequence(self, game, before, action, after, setup) -> list:
        t = action["type"]
        who = before.roller
        nm = lambda s: self.name(setup, s)  # noqa: E731
        dice = tuple(action[k] for k in ("die", "first", "second") if k in action)
        c0, c1 = before.ctx or {}, after.ctx or {}
        if who is None and c0.get("offer"):  # a kept roll: whose it was
            who = c0["offer"][1]
        if t == "first_roll":
            if after.order and not before.order:
                return [f"{nm(after.order[0])} has the highest roll and plays first; the turn order is "
                        + ", ".join(nm(x) for x in after.order) + "."]
            tied = self.first_roll_tie(after)
            if tied:
                return [f"A tie for the highest roll ({tied[1]}): " + " and ".join(nm(x) for x in tied[0])
                        + f" roll again, {nm(tied[0][0])} first."]
            return [f"{nm(after.roller)} rolls next."] if after.roller else []
        if c1.get("offer") and c1.get("offer") != c0.get("offer"):
            srcs = " or ".join(game.rerolls_left(after, who))
            return [f"{nm(who)} may keep this roll or reroll it with {srcs}; it takes effect once kept."]
        head = []
        if t == "leader_roll":
            ld = game.leaders[c1["leader"]]
            if not ld.get("bonus") and ld["name"].lower() == "none":
                head.append(f"No leader for {nm(who)} this turn: nothing changes.")
            else:
                head.append(f"{ld['name']} leads {nm(who)}'s civilisation this turn ({ld['notes']})"
                            + ("; roll the Leader bonus roll next." if ld.get("bonus") else "."))
        elif t == "leader_bonus_roll":
            bonus = game.leaders[c1["leader"]]["bonus"]
            if bonus == "wars":
                head.append(f"{nm(who)} may make {_plural(dice[0], 'extra war')} this turn.")
            elif bonus == "mp":
                head.append(f"Leader bonus {_plural(dice[0], 'Move Point')} for the Migration phase.")
            elif bonus == "pt":
                head.append(f"Leader bonus {dice[0]} PT.")
            elif bonus == "vp":
                head.append(f"Leader bonus {_plural(dice[0], 'Victory Point')} (iconic leader).")
            else:
                head.append(f"Leader bonus {dice[0]} {bonus.upper()}.")
        elif t == "city_roll":
            res = game.rules["city_table"][str(max(1, min(6, dice[0])))]
            head.append({"pt": "City table: 1 PT.", "ip": "City table: 1 Idea Point.",
                         "rp": "City table: 1 Resource Point.", "mp": "City table: 1 Move Point for Migration.",
                         "vp": "City table: 1 Victory Point.",
                         "pick": f"City table: {nm(who)} picks 1 PT, IP, RP or Move Point."}[res])
        elif t == "research_roll":
            rolled = game.rules["research_table"][f"{dice[0]}-{dice[1]}"]
            got = [a for a in after.players[who].advances if a not in before.players[who].advances]
            if got and got[0] != rolled:
                head.append(f"The table gives {rolled}, which needs {got[0]} first: {got[0]} learned; take the "
                            f"{got[0]} card.")
            elif got:
                head.append(f"{got[0]} learned; take the {got[0]} card.")
            elif c1.get("pick"):
                head.append(f"{nm(who)} already knows {rolled}: pick an advance you do not know.")
            else:
                head.append(f"{nm(who)} already knows {rolled} and every advance open to them: nothing learned.")
            got = got[1:]
        elif t == "disaster_roll":
            head.append("A disaster strikes: roll its type next." if after.roll == "disaster_type_roll"
                        else f"No disaster (one comes on {game.rules['disaster_on']} or more).")
        elif t == "disaster_type_roll":
            dis = c1.get("disaster", "")
            mit = game.mitigated(after, who, dis)
            head.append(f"{dis.capitalize()}: roll the Casualty roll next"
                        + (f" ({', '.join(mit)} take 2 off the losses)." if mit else "."))
        elif t == "casualty_roll":
            lost = c1.get("lost", 0)
            head.append(f"{nm(who)} loses {lost} PT" + (" (2 fewer for " + ", ".join(game.mitigated(after, who, c1.get('disaster'))) + ")"
                                                         if game.mitigated(after, who, c1.get("disaster")) else "")
                        + ("." if lost else ": nothing to remove."))
        elif t == "trade_roll":
            res = c1.get("trade_result")
            opp = c0.get("partner")
            head.append({"rp": f"{nm(who)} takes 1 RP from {nm(opp)}.", "ip": f"{nm(who)} takes 1 IP from {nm(opp)}.",
                         "advance": f"{nm(who)} learns an advance {nm(opp)} knows.",
                         "pt": f"{nm(who)} takes 1 PT from {nm(opp)}."}.get(res, "Trade done."))
        elif t == "war_roll":
            if c1.get("war") and not c1.get("last_war") == c0.get("last_war"):
                pass
            if c1.get("war"):
                w = dict(c1["war"])
                head.append(f"{nm(who)} (attacker) totals {w.get('att')}; {nm(w['defender'])} rolls to defend next.")
            elif c1.get("last_war") and c1.get("last_war") != c0.get("last_war"):
                att, dfn, frm, to, ta, td, winner = c1["last_war"]
                loser = dfn if winner == att else att
                place = after.board.name(to if winner == att else frm)
                head.append(f"War: {nm(att)} {ta} against {nm(dfn)} {td}: {nm(winner)} wins. Clear {place} of "
                            f"{nm(loser)}'s tokens and put 1 {nm(winner)} PT there.")
        elif t == "growth_roll":
            n = max(0, dice[0] + game.roll_bonus(before, who, "growth_roll"))
            head.append(f"Growth: {nm(who)} gains {n} PT.")
        elif t in ("resource_roll", "idea_roll"):
            k = "rp" if t == "resource_roll" else "ip"
            n = max(0, dice[0] + game.roll_bonus(before, who, t))
            got = getattr(after.players[who], k) - getattr(before.players[who], k)
            cap = game.rules[k + "_cap"]
            tail = "." if got >= n else (f", capped at {cap}: only {got} kept." if got > 0
                                         else f", but the pad is full at {cap}: nothing kept.")
            head.append(f"{nm(who)} gains {n} {k.upper()}{tail}")
        elif t == "migration_roll":
            # from the roll, not from the context after it: a phase with nothing to move ends at
            # once and the next turn's context has no points
            n = max(0, dice[0] + game.roll_bonus(before, who, t))
            had = c0.get("mp", 0)
            head.append(f"{nm(who)} gains {_plural(n, 'Move Point')}" + (f" ({had + n} in all)" if had else "")
                        + ": move tokens in the Migration phase (1 PT per point).")
        return head + self._table_diff(game, before, after, setup, skip_advances=t == "research_roll")

    def _table_diff(self, game, before, after, setup, skip_advances=False) -> list:
        """What changed on the pad and the map, as things to do at the table."""
        nm = lambda s: self.name(setup, s)  # noqa: E731
        out = []
        caps = {"ip": game.rules["ip_cap"], "rp": game.rules["rp_cap"]}
        for seat in self.seats(setup):
            p0, p1 = before.players[seat], after.players[seat]
            for k, word in (("ip", "IP"), ("rp", "RP")):
                a, b = getattr(p0, k), getattr(p1, k)
                if a != b:
                    capped = " (the most a pad holds)" if b == caps[k] else ""
                    out.append(f"{nm(seat)}: {word} {a} -> {b}{capped}.")
            vp = (p1.vp_iconic + p1.vp_city) - (p0.vp_iconic + p0.vp_city)
            if vp:
                out.append(f"{nm(seat)}: {'+' if vp > 0 else ''}{vp} VP: note it on the pad.")
            if not skip_advances:
                for adv in p1.advances:
                    if adv not in p0.advances:
                        out.append(f"{nm(seat)}: {adv} learned; take the {adv} card.")
        b = after.board
        for a in b.order:
            u0, u1 = before.units.get(a), after.units.get(a)
            if u0 == u1:
                continue
            name = b.name(a)
            if u1 is None:
                out.append(f"{name}: remove {nm(u0[0])}'s tokens" + (" and city" if u0[2] else "") + ".")
            elif u0 is None or u0[0] != u1[0]:
                gone = f"clear {nm(u0[0])}'s tokens, " if u0 else ""
                out.append(f"{name}: {gone}put {_plural(u1[1], 'PT', 'PT')} of {nm(u1[0])} there.")
            elif u1[1] > u0[1]:
                cap = game.rules["area_pt_cap"]
                note = f", capped at {cap}" if u1[1] == cap else ""
                out.append(f"{name}: put {u1[1] - u0[1]} PT there ({nm(u1[0])}, now {u1[1]}{note}).")
            elif u1[1] < u0[1]:
                out.append(f"{name}: remove {u0[1] - u1[1]} PT ({nm(u1[0])}, now {u1[1]}).")
            if u0 is not None and u1 is not None and u0[2] != u1[2]:
                out.append(f"{name}: {'put a city there' if u1[2] else 'remove the city'}.")
        c0, c1 = before.ctx or {}, after.ctx or {}
        lost = c1.get("place_lost", 0) - c0.get("place_lost", 0)
        if lost > 0:
            out.append(f"{_plural(lost, 'PT', 'PT')} had no room (at most {game.rules['area_pt_cap']} per area) "
                       "and are lost.")
        if c1.get("place", 0) > c0.get("place", 0) or (c1.get("place", 0) and not c0.get("place")):
            out.append(f"{nm(after.current)}: place {c1['place']} PT in your areas "
                       f"(at most {game.rules['area_pt_cap']} per area).")
        if c1.get("losses", 0) and c1.get("losses") != c0.get("losses"):
            out.append(f"{nm(after.current)}: remove {c1['losses']} PT from your areas.")
        if c1.get("free_cities", 0) > c0.get("free_cities", 0):
            out.append(f"{nm(after.current)}: put your free city in one of your areas.")
        if c1.get("steal") and not c0.get("steal"):
            out.append(f"{nm(after.current)}: take 1 PT from {nm(c1['steal'])}'s areas into one of yours.")
        if c1.get("pick") and not c0.get("pick") and c1["pick"][0] != "advance":
            out.append(f"{nm(after.current)}: pick " + ("1 PT, IP, RP or Move Point." if c1["pick"][0] == "city"
                                                         else f"an advance {nm(c1.get('partner'))} knows and you do not."))
        return out

    @staticmethod
    def first_roll_tie(state):
        """(the tied seats, their roll) while the players tied for the highest first-player roll
        roll again (CQ-S2), before the first of them has rolled; else None."""
        if state.step != "first_player" or state.roll != "first_roll" or (state.ctx or {}).get("rolloff"):
            return None
        last = [r for r in state.rolls if r[0] == "first_roll"]
        if not last:
            return None
        return state.rolloff, last[-1][2][0]

    def prompt(self, game, state, setup, dice):
        if game.is_over(state):
            return self.result_text(game, state, setup)
        name = lambda s: self.name(setup, s)  # noqa: E731
        before = self.last_outcome(game, state, setup)
        before = before + " " if before else ""
        actor = game.actor(state)
        if actor == ROLE_SYSTEM:
            tied = self.first_roll_tie(state)
            if tied:  # said before whose roll it is: the table knows why the same players roll
                before += (f"A tie for the highest roll ({tied[1]}): " + " and ".join(name(x) for x in tied[0])
                           + " roll again. ")
            if not dice:
                return before + "Roll the dice."
            extra = ""
            if state.roll == "research_roll":
                extra = " (well 1 or Die 1 is the first number, well 2 the second)"
            elif state.roll == "war_roll":
                w = dict(state.ctx.get("war") or ())
                side = "attacker" if state.roller == state.current else "defender"
                extra = (f" ({side}; {state.board.name(w.get('from', ''))} against "
                         f"{state.board.name(w.get('to', ''))})")
            elif state.roll == "leader_bonus_roll":
                extra = f" ({game.leaders[state.ctx['leader']]['notes']})"
            return (before + f"{dice_words(dice, name)}{extra}: roll at the table and put the dice in the wells, "
                    "enter what they show, or use the virtual dice.")
        who = name(actor)
        c = state.ctx
        pend = game.pending(state) if state.order else None
        if state.step == "start":
            return f"{who}: put 7 of your tokens on one empty land area, then tap that area on the map."
        if pend == "offer":
            srcs = " or ".join(game.rerolls_left(state, actor))
            return before + f"{who}: keep this roll, or reroll it with {srcs} (once per turn each)."
        if pend == "pick":
            kind = c["pick"][0]
            if kind == "city":
                return before + f"{who}: a 5 on the City table: take 1 PT, IP, RP or Move Point."
            if kind == "advance":
                return before + f"{who}: you already know that advance: pick one you do not know."
            return before + f"{who}: pick an advance {name(c.get('partner'))} knows and you do not."
        if pend == "losses":
            return before + (f"{who}: remove {_plural(c['losses'], 'Population Token')} from your areas "
                             "(a city may be broken into 5 PT).")
        if pend == "place":
            return before + (f"{who}: place {_plural(c['place'], 'Population Token')} in your areas "
                             f"(at most {game.rules['area_pt_cap']} per area).")
        if pend == "free_city":
            return before + f"{who}: put your free city (Aqueduct) in one of your areas without a city."
        if pend == "steal":
            return before + f"{who}: take 1 PT from {name(c['steal'])}'s area and put it in one of yours."
        if pend == "clash":
            opp = c["queue"][0]
            return before + f"{who}: {name(opp)} borders you: trade, war, or neither."
        if pend == "moving":
            return before + (f"{who}: {_plural(c.get('mp', 0), 'Move Point')} left: move tokens from "
                             f"{state.board.name(c['moving'])}: tap where they go, then how many (1 MP each). "
                             "Undo to choose another area.")
        if state.step == "advance":
            return before + (f"{who}: you have {state.players[actor].ip} IP. Buy an advance for "
                             f"{game.advance_cost(state)} IP, or end the phase.")
        if state.step == "build":
            return before + (f"{who}: you have {state.players[actor].rp} RP. Build a city (5 RP + 5 PT) or a "
                             "wonder, or end the phase.")
        if state.step == "clash":
            bits = []
            if c.get("extra_wars"):
                bits.append(f"{_plural(c['extra_wars'], 'extra war')} (Conqueror)")
            if c.get("extra_trades"):
                bits.append("1 extra trade (Great Lighthouse)")
            return before + f"{who}: you may still make {' and '.join(bits)}, or end the phase."
        if state.step == "migration":
            return before + (f"{who}: {_plural(c.get('mp', 0), 'Move Point')} left: move tokens (1 MP each), "
                             "or end the phase. Unused points are lost.")
        return before + f"{who}: choose an action."

    def round(self, state):
        """None while setting up (the engine counts round 0 then): no round has ended when round 1
        begins, so no round card is shown for it."""
        return state.round or None

    def round_summary(self, game, setup, history, ended_round):
        """The card at a round's end: each civilisation as the round left it."""
        state = game.initial_state(setup)
        for a, _source in history:
            if (state.round or 0) > ended_round:
                break
            state = game.apply(state, a)
        sc = self.score(game, state)
        rows = []
        for seat in self.seats(setup):
            sh = state.players[seat]
            n = len(game.areas_of(state, seat))
            cities = game.cities_of(state, seat)
            rows.append((seat, f"[b]{self.name(setup, seat)}[/b]  {sc[seat]['total']} VP, "
                               f"{_plural(n, 'area')}, {game.pt_of(state, seat)} PT, "
                               f"{_plural(cities, 'city', 'cities')}, {sh.ip} IP, {sh.rp} RP"
                               + (" - out of the game" if sh.out else "")))
        nxt = f"  -  round {ended_round + 1}: {self.name(setup, state.current)} begins" if state.order else ""
        return {"title": f"[b]Round {ended_round} ended[/b]{nxt}", "rows": rows}

    def header(self, game, state, setup):
        if state.step in ("start", "first_player"):
            return f"Setup: [b]{self.step_label(state.step)}[/b]"
        mr = state.max_rounds
        who = self.name(setup, state.current)
        leader = state.ctx.get("leader")
        name = game.leaders[leader]["name"] if leader else ""
        lead = ("   -   no leader" if name.lower() == "none" else f"   -   leader: {name}") if leader else ""
        return (f"Round {state.round}" + (f"/{mr}" if mr else "") + f"   -   [b]{who}[/b]'s turn: "
                f"[b]{self.step_label(state.step)}[/b]" + lead)

    # ---------------------------------------------------------------- players and score
    def player_lines(self, game, state, setup, seat, player=None):
        sh = state.players[seat]
        sc = self.score(game, state)[seat]
        areas = game.areas_of(state, seat)
        cities = game.cities_of(state, seat)
        lines = [("VP", f"[b]{sc['total']}[/b]"), ("IP / RP", f"{sh.ip} / {sh.rp}"),
                 ("Areas", f"{len(areas)} ({game.pt_of(state, seat)} PT, {cities} {'city' if cities == 1 else 'cities'})")]
        if sh.out:
            lines.insert(0, ("Out", "[b]no units left[/b]"))
        if state.order and seat == state.current and state.step == "migration":
            lines.append(("Move Points", str(state.ctx.get("mp", 0))))
        lines.append(("Advances", ", ".join(sh.advances) or "none", "block"))
        if sh.wonders:
            lines.append(("Wonders", ", ".join(sh.wonders), "block"))
        return lines

    def score(self, game, state):
        return {seat: {"total": v["total"], "items": {ITEM_WORDS.get(k, k): n for k, n in v["items"].items()}}
                for seat, v in game.score(state).items()}

    def result(self, game, state):
        return game.result(state)

    def headline(self, game, state, setup):
        r = game.result(state)
        ws = r.get("winners") or []
        if len(ws) == 1:
            return f"{self.name(setup, ws[0])} wins"
        return "Shared victory: " + " and ".join(self.name(setup, w) for w in ws) if ws else "No winner"

    def end_reasons(self, game, state, setup):
        return [END_WORDS.get(r, r) for r in state.end_reasons]

    def snapshot(self, game, state, setup):
        """The map and the turn's rolls, for the Map tab."""
        b = state.board
        areas = []
        for a in b.order:
            if b.kind[a] != "land":
                continue
            u = state.units.get(a)
            areas.append({"id": a, "name": b.name(a), "owner": u[0] if u else None, "pt": u[1] if u else 0,
                          "city": bool(u and u[2]), "coastal": a in b.coastal})
        rolls = []
        for kind, who, dice, note in state.rolls:
            shown = "-".join(map(str, dice)) if kind == "research_roll" else " + ".join(map(str, dice))
            rolls.append(f"{self.name(setup, who)}: {ROLL_NAMES[kind]} {shown}" + (f" ({note})" if note else ""))
        return {"cq_areas": areas, "cq_rolls": rolls, "cq_turn": list(TURN_STEPS)}
