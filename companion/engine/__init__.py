"""Game-agnostic engine core: actions, flow (phases/steps as data), reducer, session, dice."""
from .actions import Action, ActionCodec, ActionSchema  # noqa: F401
from .dice import SeededDice  # noqa: F401
from .errors import MalformedAction, Rejected, SetupError  # noqa: F401
from .flow import Flow  # noqa: F401
from .game import Game  # noqa: F401
from .session import ReplayError, ResumeError, Session, SOURCES  # noqa: F401
