"""Plain words from identifiers, shared by the shell and the games (no Kivy, no game)."""


def nice(word) -> str:
    """'event_roll' -> 'Event roll' (a fallback for ids nobody gave words for)."""
    return str(word).replace("_", " ").capitalize()
