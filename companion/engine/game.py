"""The game-agnostic reducer: one `apply` for every action of every game.

A game module subclasses `Game`, supplies a `Flow` (phases/steps data), an `ActionCodec` (action
schemas) and, for each action type `t`, a validator `check_t(state, action)` that raises `Rejected`
and an effect `do_t(state, action)` that mutates a private copy. `apply` never mutates its input.
"""
from __future__ import annotations

from .actions import Action, ActionCodec
from .errors import Rejected
from .flow import Flow


class Game:
    name = "?"
    flow: Flow
    codec: ActionCodec
    #: Action types that overwrite a recorded value with what the players say the table shows
    #: (not a rules move). Session.dispatch accepts them only from source "ui": a correction is
    #: the players' explicit, confirmed decision, never the board's or the app's own.
    correction_types: frozenset = frozenset()

    # -- to be provided by the game -------------------------------------------------------------
    def initial_state(self, setup: dict):  # pragma: no cover - interface
        raise NotImplementedError

    def actor(self, state) -> str | None:
        """Who must act now: a seat, 'system' (a chance action is awaited) or None (game over)."""
        raise NotImplementedError  # pragma: no cover

    def pseudo_legal_actions(self, state) -> list[Action]:
        """Candidate actions of the right shape for this step (may include illegal ones)."""
        raise NotImplementedError  # pragma: no cover

    def chance_action(self, state, dice) -> Action | None:
        """The chance action awaited now, filled from `dice` (a SeededDice), or None."""
        raise NotImplementedError  # pragma: no cover

    def is_over(self, state) -> bool:
        raise NotImplementedError  # pragma: no cover

    def view(self, state) -> dict:
        """Plain-data view of `state` for the UI (game hook)."""
        return {"step": state.step, "actor": self.actor(state)}

    def app_seats(self, state) -> tuple:
        """Seats whose moves the game itself decides, which the app plays as those seats' own
        journaled actions (Mint Works' solitaire AIs). The controller asks `app_action` for
        them whenever one is the actor; none by default."""
        return ()

    def app_action(self, state, seat):
        """The move of `seat` (one of `app_seats`) now: an Action legal for it."""
        raise NotImplementedError  # pragma: no cover - only for games with app_seats

    def default_setup(self, **over) -> dict:
        return dict(over)

    def status(self, state) -> list[str]:
        """Problems that make the state impossible under the rules ([] when consistent)."""
        return []

    # -- generic --------------------------------------------------------------------------------
    def validate_definition(self) -> list[str]:
        """Consistency of flow data, schemas and handlers: every action a step allows has a schema
        and check_/do_ handlers, and every schema is allowed in some step."""
        probs = []
        allowed = set()
        for step, acts in self.flow.allowed.items():
            for t in acts:
                allowed.add(t)
                if t not in self.codec.schemas:
                    probs.append(f"step {step!r} allows {t!r}, which has no schema")
        for t in self.codec.schemas:
            if not hasattr(self, "check_" + t) or not hasattr(self, "do_" + t):
                probs.append(f"action {t!r} has no check_/do_ handler")
            if t not in allowed:
                probs.append(f"action {t!r} is allowed in no step")
        return probs

    def action_from_dict(self, d) -> Action:
        return self.codec.from_dict(d)

    def is_chance(self, action) -> bool:
        return self.codec.is_chance(action)

    def check(self, state, action: Action) -> None:
        """Raise `Rejected` when `action` may not be applied to `state`."""
        if self.is_over(state):
            raise Rejected("game.over", "the game is over; no more actions are accepted")
        step = state.step
        t = action.type
        flow = self.flow
        if t not in flow.actions_of(step):
            raise Rejected("flow.step", f"{t!r} is not an action of the {step!r} step "
                           f"(allowed: {', '.join(sorted(flow.actions_of(step))) or 'none'})")
        if t in flow.anytime:  # a correction: nobody's turn in particular
            getattr(self, "check_" + t)(state, action)
            return
        who = self.actor(state)
        if self.codec.schemas[t].chance:
            if who != "system":
                raise Rejected("flow.actor", f"no dice roll is awaited now ({who} must act)")
        else:
            seat = action.get("player")
            if seat is not None and seat != who:
                if who == "system":
                    raise Rejected("flow.actor", "a dice roll is awaited now, not a player's decision")
                raise Rejected("flow.actor", f"it is {who}'s decision now, not {seat}'s")
        getattr(self, "check_" + t)(state, action)

    def apply(self, state, action):
        """Return the state after `action`, or raise `Rejected` (then nothing changed)."""
        if not isinstance(action, Action):
            action = self.codec.from_dict(action)
        self.check(state, action)
        new = state.copy()
        self._effect(new, action)
        return new

    def _effect(self, state, action) -> None:
        """The effect of a checked action on a private state: its do_ handler, then settle (a game
        with more to do per action overrides this, so apply and apply_in_place stay one path)."""
        getattr(self, "do_" + action.type)(state, action)
        self.settle(state)

    def apply_in_place(self, state, action) -> None:
        """Check `action` and apply it to `state` itself, which the caller owns alone (a replay's
        working copy): the same check, effect and settle as `apply`, without the copy per action.
        On `Rejected` nothing changed; any other error leaves `state` unusable (a replay stops).
        A `cache` attribute of the state (derived values) is dropped first."""
        if not isinstance(action, Action):
            action = self.codec.from_dict(action)
        self.check(state, action)
        if getattr(state, "cache", None) is not None:
            state.cache = None
        self._effect(state, action)

    def replay(self, state, actions):
        """The state after `actions` from `state` (not changed): one copy, then each action
        applied in place. Raises what `apply` raises, for the first action that fails."""
        state = state.copy()
        for a in actions:
            self.apply_in_place(state, a)
        return state

    def settle(self, state) -> None:
        """Run automatic steps until a decision or a roll is awaited (game hook)."""

    def is_legal(self, state, action) -> bool:
        try:
            self.check(state, action)
        except Rejected:
            return False
        return True

    def legal_actions_for(self, state, seat: str) -> list[Action]:
        """What `seat` may do now (a game may let a player act out of turn, e.g. CivMint's early start)."""
        return self.legal_actions(state) if self.actor(state) == seat else []

    def legal_actions(self, state) -> list[Action]:
        if self.is_over(state):
            return []
        return [a for a in self.pseudo_legal_actions(state) if self.is_legal(state, a)]
