"""CivMint on the board: one counter per track and seat, each on the lane of the same id (the
board was designed around CivMint, so its binding is the sensor map's own naming), and the three
rolls the dice wells fill (well 1 = attacker, well 2 = defender in combat: REG-L3)."""
from __future__ import annotations

from companion.table.sensing import Counter, Roll, Sensing

from . import lanes


def _title(track: str) -> str:
    return track.replace("_", " ").title()


class CivMintSensing(Sensing):
    rolls = (Roll("roll_first_player", "First-player roll", 1, ("die",)),
             Roll("roll_event", "Event roll", 2, ("dice",)),
             Roll("roll_combat", "Combat roll", 2, ("attacker", "defender")))

    def counters(self, setup) -> list:
        out = []
        for lane in lanes.lane_ids():
            track, seat = lane.split(".")
            low = lanes.lane_value(lane, 0)["value"]
            high = lanes.lane_value(lane, lanes.lane_length(lane) - 1)["value"]
            out.append(Counter(lane, _title(track), seat, low, high, lane=lane,
                               kind=lanes.lane_value(lane, 0)["kind"]))
        return out

    def value(self, state, counter_id) -> int:
        return lanes.engine_value(state, counter_id)

    def value_text(self, counter_id, value) -> str:
        pos = lanes.position_of(counter_id, value)
        v = lanes.lane_value(counter_id, pos)
        if v["kind"] == "development":
            return f"{v['name']} (space {pos})"
        return str(v["value"])

    def space_text(self, counter_id, value) -> str:
        """The board screen's longer words for a space."""
        v = lanes.lane_value(counter_id, lanes.position_of(counter_id, value))
        if v["kind"] == "development":
            return f"{v['name']} (level {v['level']})"
        if v["kind"] == "aspect":
            return f"level {v['level']}"
        return str(v["value"])

    def correction(self, counter_id, value) -> dict:
        return {"type": "correct_track", "lane": counter_id, "value": value}


SENSING = CivMintSensing()
