"""Lane mapping for table-vs-app reconciliation.

A lane id is `<track>.<seat>` (docs/architecture.md); a lane position is the 0-based index of the
printed space. `lane_value` says what a sensed position means in engine terms; `lane_position` says
where the cube should be for a state; `reconcile` lists the lanes where table and engine disagree.
"""
from __future__ import annotations

from companion.engine.errors import Rejected

from .data_load import DATA
from .state import SEATS


def _split(lane_id: str):
    if not isinstance(lane_id, str) or lane_id.count(".") != 1:
        raise Rejected("lane.id", f"lane id must look like '<track>.<seat>', got {lane_id!r}")
    track, seat = lane_id.split(".")
    if seat not in SEATS:
        raise Rejected("lane.id", f"unknown seat {seat!r} in lane {lane_id!r}")
    if track in DATA.dev:
        return "development", track, seat
    if track in DATA.asp:
        return "aspect", track, seat
    if track in DATA.res_ids:
        return "resource", track, seat
    raise Rejected("lane.id", f"unknown track {track!r} in lane {lane_id!r}")


def lane_ids() -> list[str]:
    return [f"{t}.{s}" for s in SEATS for t in DATA.dev_ids + DATA.asp_ids + DATA.res_ids]


def _length(kind: str, track: str) -> int:
    if kind == "development":
        return len(DATA.dev[track])
    if kind == "aspect":
        return len(DATA.asp[track])
    return DATA.cap + 1


def lane_length(lane_id: str) -> int:
    kind, track, _ = _split(lane_id)
    return _length(kind, track)


def lane_value(lane_id: str, position: int) -> dict:
    """What printed space `position` of a lane means: {'kind', 'track', 'seat', 'position', 'value', ...}.

    value = printed space index (development; also 'level' and 'name'), level 1..6 (aspect),
    amount 0..10 (resource)."""
    kind, track, seat = _split(lane_id)
    n = _length(kind, track)
    if not isinstance(position, int) or not 0 <= position < n:
        raise Rejected("lane.position", f"position {position!r} outside 0..{n - 1} on lane {lane_id}")
    out = {"kind": kind, "track": track, "seat": seat, "position": position}
    if kind == "development":
        sp = DATA.dev[track][position]
        out.update(value=position, level=sp["level"], name=sp["name"])
    elif kind == "aspect":
        out.update(value=position + 1, level=position + 1)
    else:
        out.update(value=position)
    return out


def position_of(lane_id: str, value: int) -> int:
    """Inverse of lane_value: the printed position that shows engine value `value`."""
    kind, _, _ = _split(lane_id)
    pos = value - 1 if kind == "aspect" else value
    lane_value(lane_id, pos)  # range check
    return pos


def _values(state, lane_id: str):
    """The player's dict that holds the lane's engine value, and the key in it."""
    kind, track, seat = _split(lane_id)
    p = state.players[seat]
    return {"development": p.dev, "aspect": p.asp, "resource": p.res}[kind], track


def engine_value(state, lane_id: str) -> int:
    values, track = _values(state, lane_id)
    return values[track]


def set_engine_value(state, lane_id: str, value: int) -> None:
    """Put the lane's engine value to `value` in `state` (mutates it; value already range-checked)."""
    values, track = _values(state, lane_id)
    values[track] = value


def lane_position(state, lane_id: str) -> int:
    """Where the cube of `lane_id` should sit for `state`."""
    return position_of(lane_id, engine_value(state, lane_id))


def reconcile(state, sensed: dict) -> list[dict]:
    """Compare sensed lane positions with the state: a list of {'lane', 'table', 'engine'} mismatches."""
    out = []
    for lane, pos in sorted(sensed.items()):
        want = lane_position(state, lane)
        if pos != want:
            out.append({"lane": lane, "table": pos, "engine": want,
                        "table_value": lane_value(lane, pos)["value"] if 0 <= pos < lane_length(lane) else None,
                        "engine_value": engine_value(state, lane)})
    return out
