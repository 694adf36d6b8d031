"""Errors the engine raises. Every rejection names the rule it breaks (a rule id of the trace table)."""


class Rejected(Exception):
    """An action that may not be applied in this state. `rule` is a rule id (docs/civmint-trace.md)."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message


class MalformedAction(Rejected):
    """An action dict that does not have the shape of any action of the game."""

    def __init__(self, message: str):
        super().__init__("engine.malformed", message)


class SetupError(ValueError):
    """A setup dict the game cannot start from."""
