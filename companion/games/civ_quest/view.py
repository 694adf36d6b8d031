"""Civ Quest in plain words for the shell (no Kivy): prompts that say what to do at the table,
each player's pad, labelled actions, the result."""
from __future__ import annotations

import json
import os

from companion.games.contract import ROLE_SYSTEM, GameView, dice_words

from .data_load import DATA
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


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


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
            "move": lambda: f"move {action['count']} PT {area('from_area')} -> {area('to_area')}",
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
            extra = f" - {ld['name']} leader ({ld['notes']})"
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

    def prompt(self, game, state, setup, dice):
        if game.is_over(state):
            return self.result_text(game, state, setup)
        name = lambda s: self.name(setup, s)  # noqa: E731
        before = self.last_outcome(game, state, setup)
        before = before + " " if before else ""
        actor = game.actor(state)
        if actor == ROLE_SYSTEM:
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
            return f"{who}: put 7 of your tokens on one empty land area, then tap it here."
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
        if state.step == "advance":
            return before + (f"{who}: you have {state.players[actor].ip} IP. Buy an advance for "
                             f"{game.advance_cost(state)} IP, or end the phase.")
        if state.step == "build":
            return before + (f"{who}: you have {state.players[actor].rp} RP. Build a city (5 RP + 5 PT) or a "
                             "wonder, or end the phase.")
        if state.step == "clash":
            bits = []
            if c.get("extra_wars"):
                bits.append(f"{c['extra_wars']} extra war(s) (Conqueror)")
            if c.get("extra_trades"):
                bits.append("1 extra trade (Great Lighthouse)")
            return before + f"{who}: you may still make {' and '.join(bits)}, or end the phase."
        if state.step == "migration":
            return before + (f"{who}: {_plural(c.get('mp', 0), 'Move Point')} left: move tokens (1 MP each), "
                             "or end the phase. Unused points are lost.")
        return before + f"{who}: choose an action."

    def header(self, game, state, setup):
        if state.step in ("start", "first_player"):
            return f"Setup: [b]{self.step_label(state.step)}[/b]"
        mr = state.max_rounds
        who = self.name(setup, state.current)
        leader = state.ctx.get("leader")
        lead = f"   -   leader: {game.leaders[leader]['name']}" if leader else ""
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
