"""Plain words shared by the shell and the games (no Kivy, no game): names for identifiers, and
the seat colours the app offers."""

COLOURS = ("blue", "green", "red", "yellow", "purple", "black", "orange", "white")


def nice(word) -> str:
    """'event_roll' -> 'Event roll' (a fallback for ids nobody gave words for)."""
    return str(word).replace("_", " ").capitalize()


def well_name(index: int) -> str:
    """A dice well as the players know it, the same everywhere: index 0 -> 'well 1'."""
    return f"well {int(index) + 1}"
