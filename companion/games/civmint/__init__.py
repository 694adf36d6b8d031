"""CivMint game module: `GAME` is the engine.Game for CivMint."""
from .rules import CivMint, bonuses, research_cost  # noqa: F401
from .lanes import lane_value, lane_position, position_of, reconcile, lane_ids  # noqa: F401

GAME = CivMint()
