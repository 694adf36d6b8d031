"""Mint Works in plain words for the shell: the location line, the plan supply, every
neighbourhood, each player's Mints, and what the solitaire AI just did (no Kivy)."""
from __future__ import annotations

import json
import os
from functools import lru_cache

from companion.games.contract import ROLE_SYSTEM, GameView, Pick

from . import ai as AI
from . import scoring
from .rules import HIDDEN

HERE = os.path.dirname(os.path.abspath(__file__))

# a plan whose stars come from a formula (scoring.plan_stars): the formula as the card says it
STAR_RULE_WORDS = {"museum": "1 star per Culture building", "gallery": "1 star per Mint on it",
                   "obelisk": "1 star per building", "vault": "2 stars per face-down plan"}

END_WORDS = {
    "seven_stars": "A neighbourhood reached 7 stars at Upkeep.",
    "supply_not_refilled": "The Plan Supply could not be refilled from the deck.",
    "supply_empty": "The Mint Supply ran out: Rachael, The Keeper, wins.",
}
TIE_WORDS = {
    "supply_empty": "Decided by Rachael's card: the Mint Supply ran out.",
    "stars": "Decided by the stars.",
    "smallest_neighbourhood": "Tied on stars: the smallest neighbourhood (fewest plans) wins.",
    "most_mints": "Tied on stars and plans: the most Mints wins.",
    "shared": "Tied on stars, plans and Mints: a shared victory.",
}


@lru_cache(maxsize=1)
def _help() -> dict:
    with open(os.path.join(HERE, "data", "help.json"), encoding="utf-8") as f:
        return json.load(f)["steps"]


def plural(n, word) -> str:
    """'1 star', '2 stars'."""
    return f"{n} {word}{'s' if n != 1 else ''}"


def mints_word(n) -> str:
    return plural(n, "mint")


DRAW_QUESTION = "Which plan did you draw?"


class MintWorksView(GameView):
    #: BoardGameGeek's id of Mint Works (boardgamegeek.com/boardgame/200077/mint-works), for the
    #: BG Stats export; the shell reads it where a game has one
    bgg_id = 200077
    STEPS = {"turn": "Turn", "draw": "Plan draw", "coop": "Co-Op", "over": "Game over"}

    def step_label(self, step) -> str:
        return self.STEPS.get(step, super().step_label(step))

    def phase_label(self, phase) -> str:
        return {"development": "Development", "upkeep": "Upkeep"}.get(phase, super().phase_label(phase))

    def step_help(self, step) -> str:
        return _help().get(step or "", "")

    # ------------------------------------------------------------------ words for things
    @staticmethod
    def _game():
        from . import GAME
        return GAME

    def plan(self, pid) -> str:
        return self._game().data.plan_name(pid)

    def loc(self, lid) -> str:
        return self._game().data.loc_name(lid)

    def plan_card(self, pid) -> str:
        p = self._game().data.plans[pid]
        return f"{p['name']} ({p['type'].title()}, cost {p['cost']})"

    def plan_facts(self, pid) -> str:
        """'cost 5, 1 star' (the formula in words where the card's stars depend on the game)."""
        p = self._game().data.plans.get(pid)
        if p is None:
            return ""
        stars = STAR_RULE_WORDS.get(p.get("star_rule")) or plural(p["stars"], "star")
        return f"cost {p['cost']}, {stars}"

    def plan_words(self, pid) -> str:
        """A plan as a player picks it: 'Assembler (cost 5, 1 star)'."""
        facts = self.plan_facts(pid)
        return f"{self.plan(pid)} ({facts})" if facts else self.plan(pid)

    # ------------------------------------------------------------------ pickers
    def picks(self, game, action_type, state=None, setup=None) -> tuple:
        """A drawn plan is a card picked by name (the app's deck or the table's own), never a roll."""
        if action_type in ("draw", "reveal"):
            return (Pick("plan", "card", DRAW_QUESTION),)
        return super().picks(game, action_type)

    def type_label(self, action_type) -> str:
        return {"draw": "Draw a plan", "reveal": "Draw a plan", "place": "Place mints", "pass": "Pass",
                "coop_give": "Co-Op: give a mint", "set_mints": "Correct a Mint count"}.get(
            action_type, super().type_label(action_type))

    def value_label(self, game, state, setup, action_type, field, value) -> str:
        if field in ("plan", "give") and isinstance(value, str) and value in game.data.plans:
            return self.plan_words(value)
        if field in ("location", "target") and isinstance(value, str) and value in game.data.locations:
            return self.loc(value)
        return super().value_label(game, state, setup, action_type, field, value)

    def draw_prompt(self, game, state, setup, request) -> str:
        return self.decision_words(game, state, setup)

    def action_label(self, action: dict, state, setup) -> str:
        t = action.get("type")
        who = self.name(setup, action.get("player")) if action.get("player") else ""
        if t in ("place", "pass") and state is not None and action.get("player") in self._game().app_seats(state):
            return self.ai_move_words(action, state)
        if t == "place":
            return f"{who}: " + self.place_words(action, state, setup)
        if t == "pass":
            return f"{who}: pass"
        if t == "draw":
            return f"Plan drawn: {self.plan_words(action['plan'])}"
        if t == "reveal":
            return f"{who} drew the {self.plan_words(action['plan'])}"
        if t == "coop_give":
            return f"{who}: Co-Op gives 1 mint to {self.name(setup, action['beneficiary'])}"
        if t == "set_mints":
            return f"{who}: Mints set to {action['value']} (as on the table)"
        return super().action_label(action, state, setup)

    def ai_move_words(self, action, state) -> str:
        """The AI's move as its card explains it ("Justin places 1 mint on the Producer: the
        first location in the line he can use."), told against the state it was made in."""
        g = self._game()
        params = {k: action[k] for k in ("plan", "give", "target", "beneficiary") if action.get(k) is not None}
        try:
            return AI.explain(g, state, None if action["type"] == "pass" else (action["location"], params))
        except (KeyError, ValueError, IndexError, TypeError):
            return f"{g.ai_card(state)['name']}: {action['type']}"

    def roller_words(self, game, before, action, setup) -> str:
        """Who drew a plan: the app from its deck, or the player who revealed it."""
        if action.get("type") == "reveal":
            return f"drawn by {self.name(setup, action.get('player'))}"
        if before.pending and before.pending[0][0] == "lotto":
            return f"drawn by the app from its deck for {self.name(setup, before.pending[0][1])}'s Lotto"
        return "drawn by the app from its deck for the Plan Supply"

    def history_lines(self, game, before, action, after, setup) -> list:
        """Saves of app 0.1 played the AI inside the players' actions: its moves are listed under
        the action that let it play (later saves journal them as its own entries)."""
        n = after.ai_moves - before.ai_moves
        inside = list(after.ai_turn[-n:]) if n > 0 and not after.ai_journaled else []
        return inside + super().history_lines(game, before, action, after, setup)

    def place_words(self, a, state, setup=None) -> str:
        g = self._game()
        params = {k: a[k] for k in ("plan", "give", "target", "beneficiary") if a.get(k) is not None}
        cost = None
        if state is not None and a.get("location") in getattr(state, "spaces", {}):
            try:
                cost = g.effect_cost(state, a["player"], a["location"], params)
            except (KeyError, ValueError, IndexError):
                cost = None
        text = f"place {mints_word(cost)} on the {self.loc(a['location'])}" if cost is not None else \
            f"place on the {self.loc(a['location'])}"
        return text + self._effect_words(a.get("location"), params, setup or {})

    def _effect_words(self, loc, params, setup) -> str:
        eff = self._game().data.locations.get(loc, {}).get("effect")
        if eff == "buy":
            return f", buy the {self.plan(params.get('plan'))}"
        if eff == "build":
            return f", build the {self.plan(params.get('plan'))}"
        if eff == "swap":
            return f", take the {self.plan(params.get('plan'))} for your {self.plan(params.get('give'))}"
        if eff == "recycle":
            return f", recycle the {self.plan(params.get('plan'))}"
        if eff == "crowdfund" and params.get("beneficiary"):
            return f", 1 more mint to {self.name(setup, params['beneficiary'])}"
        if eff == "temp" and params.get("target"):
            return f" to use the {self.loc(params['target'])}" + self._effect_words(params["target"], params, setup)
        return ""

    # ------------------------------------------------------------------ the moment
    def header(self, game, state, setup) -> str:
        if state.over:
            return f"Round {state.round}   -   [b]Game over[/b]"
        phase = "Upkeep" if state.phase == "upkeep" else "Development"
        actor = game.actor(state)
        who = "the app (draw)" if actor == ROLE_SYSTEM else self.name(setup, actor)
        return f"Round {state.round}   -   {phase}: [b]{self.step_label(state.step)}[/b]   -   to act: [b]{who}[/b]"

    def drawn_words(self, state, setup, kind, seat, pid) -> str:
        """What the table must do with one drawn plan ("" when the drawer holds it already)."""
        if kind == "lotto":
            what = "a plan" if pid == HIDDEN else f"the {self.plan(pid)}"  # another seat's secret
            return f"{self.name(setup, seat)}: take {what} face down (Lotto)."
        if state.deck_mode == "app":
            return f"Put the {self.plan(pid)} face up in the Plan Supply."
        return ""

    def told_words(self, state, setup) -> str:
        """Everything since the last player decision, in the order it happened: the AI's moves
        and the plans drawn from the app's deck (every one, also when the AI moved after it)."""
        told = [((i, 1), line) for i, line in enumerate(state.ai_turn)]
        # a draw after n of the AI's moves comes after move n - 1 and before move n
        told += [((n - 1, 2), self.drawn_words(state, setup, kind, seat, pid)) for kind, seat, pid, n in state.drawn]
        return " ".join(words for _, words in sorted(told, key=lambda x: x[0]) if words)

    def prompt(self, game, state, setup, dice=None) -> str:
        if game.is_over(state):
            return self.result_text(game, state, setup)
        # the decision only: the Plan Supply and the locations are in the turn panel and the
        # Table tab, so the location buttons stay above the fold at 800x480
        told = self.told_words(state, setup)
        return "\n".join(([told] if told else []) + [self.decision_words(game, state, setup)])

    def decision_words(self, game, state, setup) -> str:
        actor = game.actor(state)
        if state.step == "draw":
            kind, seat = state.pending[0]
            what = (f"the top plan for {self.name(setup, seat)}'s Lotto (face down)" if kind == "lotto"
                    else "a plan for the Plan Supply")
            if state.deck_mode == "app":
                return f"Draw {what}: tap Let the app draw, or draw at the table and tap the plan you drew."
            return f"{self.name(setup, actor)}: draw {what} from your Plan Deck and tap it here."
        if state.step == "coop":
            return f"{self.name(setup, actor)} (Co-Op): choose another player, who gains 1 mint."
        return (f"{self.name(setup, actor)}: place mints on a free space, or pass "
                f"({mints_word(state.mints[actor])} in hand).")

    def supply_words(self, game, state) -> str:
        supply = ", ".join(self.plan_card(p) for p in state.supply) or "empty"
        return f"Plan Supply: {supply}. Deck: {plural(game.deck_size(state), 'plan')}."

    def table_words(self, game, state, setup) -> str:
        return self.supply_words(game, state) + "\n" + self.line_words(game, state, setup)

    def line_words(self, game, state, setup) -> str:
        return "; ".join(self.location_text(game, state, setup, loc) for loc in state.line)

    def location_text(self, game, state, setup, loc) -> str:
        name = self.loc(loc)
        if loc in state.owner and state.owner[loc] is None:
            return f"{name}: closed"
        spaces = []
        for occ in state.spaces[loc]:
            spaces.append("free" if occ is None else f"{self.name(setup, occ[0])} ({occ[1]})")
        extra = ""
        if loc in state.owner:
            extra = f", owned by {self.name(setup, state.owner[loc])}"
        if loc in state.closed:
            extra += ", closed by Justin"
        return f"{name}{extra}: " + ", ".join(spaces)

    # ------------------------------------------------------------------ players and score
    def private_lines(self, game, state, setup, seat) -> list:
        """A seat's face-down Lotto plans by name, for its own phone only."""
        hidden = [self.plan_card(p) for p, built, secret in state.plans[seat] if secret and not built]
        return [("Face down", ", ".join(hidden), "block")] if hidden else []

    def player_lines(self, game, state, setup, seat, player=None) -> list:
        g = game
        lines = []
        if g.tycoon(state, seat):
            lines.append(("Mints", "[b]unlimited[/b] (from the supply)"))
        else:
            lines.append(("Mints", f"[b]{state.mints[seat]}[/b]"))
        lines.append(("Stars", f"[b]{g.stars(state, seat)}[/b]"))
        built = [p for p, b, _ in state.plans[seat] if b]
        unbuilt = [p for p, b, secret in state.plans[seat] if not b and not secret]
        secret = sum(1 for _, b, sec in state.plans[seat] if not b and sec)
        items = scoring.star_items(g.data, state.plans[seat], state.gallery[seat])
        lines.append(("Built", ", ".join(f"{self.plan(p)} ({items.get(self.plan(p), 0)}*)" for p in built) or "none",
                      "block"))
        rest = [self.plan(p) for p in unbuilt] + ([f"{secret} face-down plan{'s' if secret > 1 else ''} (Lotto)"]
                                                  if secret else [])
        lines.append(("Unbuilt", ", ".join(rest) or "none", "block"))
        deeds = [self.loc(loc) for loc, o in state.owner.items() if o == seat]
        if deeds:
            lines.append(("Owns", ", ".join(deeds)))
        if state.start == seat:
            lines.append(("", "holds the Start Player token", "small"))
        if g.is_ai(state, seat):
            ai = g.ai_card(state)
            lines.append(("AI", f"{ai['name']}, {ai['title']}", "small"))
            if state.cap is not None:
                lines.append(("Mint Supply", f"{g.supply_left(state)} of {state.cap} left "
                                             f"({state.removed} out of the game)", "small"))
        return lines

    def snapshot(self, game, state, setup) -> dict:
        return {"mint_works": {
            "line": [{"id": loc, "name": self.loc(loc), "text": self.location_text(game, state, setup, loc)}
                     for loc in state.line],
            "supply": [self.plan_card(p) for p in state.supply],
            "supply_words": self.supply_words(game, state),
            "deck": game.deck_size(state),
            "ai_turn": list(state.ai_turn),
        }}

    def result(self, game, state) -> dict:
        return game.result(state)

    def headline(self, game, state, setup) -> str:
        r = game.result(state)
        if r["winner"]:
            return f"{self.name(setup, r['winner'])} wins"
        return "Shared victory: " + " and ".join(self.name(setup, s) for s in r.get("tied", ()))

    def end_reasons(self, game, state, setup) -> list:
        return [END_WORDS.get(r, r) for r in game.result(state).get("end_reasons", ())]

    def tiebreak(self, game, state, setup) -> str | None:
        return TIE_WORDS.get(game.result(state).get("decided_by"))

    def round_summary(self, game, setup, history, ended_round: int) -> dict | None:
        """The card shown when a round ends: stars, Mints and plans of each seat as the next
        round starts, and who holds the Start Player token."""
        state = game.initial_state(setup)
        for a, _source in history:
            if state.round > ended_round:
                break
            state = game.apply(state, a)
        if state.round <= ended_round and not state.over:
            return None
        rows = []
        for seat in state.seats:
            built = sum(1 for _, b, _ in state.plans[seat] if b)
            unbuilt = len(state.plans[seat]) - built
            mints = "unlimited mints" if game.tycoon(state, seat) else mints_word(state.mints[seat])
            rows.append((seat, f"[b]{self.name(setup, seat)}[/b]  {plural(game.stars(state, seat), 'star')}  -  "
                               f"{mints}  -  {built} built, {unbuilt} unbuilt"))
        title = f"[b]Round {ended_round} ended[/b]"
        if not state.over:
            title += f"  -  {self.name(setup, state.start)} starts round {state.round}"
        return {"title": title, "rows": rows}


VIEW = MintWorksView()
