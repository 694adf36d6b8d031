"""A photo of the dice as another dice source through the game's binding (no Kivy, no camera).

    reading = read_dice(jpeg_bytes)                       # companion/table/dice_photo.py
    got = roll_from_photo(reading, ctrl.dice_request())   # the roll the controller awaits
    if got.action is not None:
        ctrl.dispatch(got.action, "camera", sensed=got.sensed)
    else:
        say(got.refusal)                                  # plain words; nothing was recorded

The values fill the awaited roll exactly as the dice wells' do: through the game's `Roll`
declaration (companion/table/sensing.py), one value per die, in the photo's reading order
(top row first, left to right). A roll that asks for n dice takes a photo of exactly n dice:
anything else is refused and nothing is recorded. `values` are the table's corrections (one
per die of the reading, None where it keeps the reader's value or the die stays unread).

`sensed` is what the journal keeps beside the entry (docs/journal.md, "sensed"): the least
sure die's confidence, each die's read value and confidence, and which dice the table
corrected. Nothing of the photo itself is kept.
"""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class PhotoRoll:
    action: dict | None      # the action to dispatch with source "camera", or None
    refusal: str = ""        # why not, in plain words ("" when there is an action)
    sensed: dict | None = None
    values: tuple = ()       # the values used, in the roll's order


def _dice(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


def roll_from_photo(reading, request, values=None) -> PhotoRoll:
    """The awaited roll's action from a photo's `reading` (a dice_photo.DiceReading), or a
    plain refusal. `request`: the controller's dice_request() (None: no roll awaited)."""
    if request is None:
        return PhotoRoll(None, "No dice roll is awaited now: nothing recorded.")
    name = request.get("roll") or "This roll"
    if request.get("kind") == "draw":
        return PhotoRoll(None, f"{name} is drawn at the table, not thrown: tap what was drawn. Nothing recorded.")
    spec = request.get("spec")
    if spec is None:
        return PhotoRoll(None, f"{name}: this game takes no dice values from the table; roll the virtual "
                               "dice or choose by hand. Nothing recorded.")
    dice = list(getattr(reading, "dice", ()))
    problem = getattr(reading, "problem", "")
    if problem:
        return PhotoRoll(None, f"{problem} Nothing recorded.")
    if not dice:
        return PhotoRoll(None, f"{reading.reason} Nothing recorded.")
    if len(dice) != spec.dice:
        return PhotoRoll(None, f"{name} asks for {_dice(spec.dice)}, the photo shows {len(dice)}: nothing "
                               f"recorded. Take {'the extra dice out' if len(dice) > spec.dice else 'all the dice'} "
                               "and photograph them again, or enter the values by touch.")
    fixes = list(values) if values is not None else [None] * len(dice)
    if len(fixes) != len(dice):
        return PhotoRoll(None, f"{len(fixes)} corrections for {_dice(len(dice))}: nothing recorded.")
    final, detail = [], []
    for i, (d, fix) in enumerate(zip(dice, fixes)):
        if fix is not None and (isinstance(fix, bool) or not isinstance(fix, int) or not 1 <= fix <= 6):
            return PhotoRoll(None, f"A die shows 1 to 6, not {fix!r}: nothing recorded.")
        v = fix if fix is not None else d.value
        if v is None:
            return PhotoRoll(None, f"{d.problem or 'A die was not read.'} Tap it to set its value, or photograph "
                                   "the dice again. Nothing recorded.")
        final.append(v)
        detail.append({"read": d.value, "value": v, "confidence": round(float(d.confidence), 3),
                       "corrected": fix is not None and fix != d.value})
    try:
        action = spec.action_from(final)
    except ValueError as exc:
        return PhotoRoll(None, f"{exc}: nothing recorded.")
    kept = [x["confidence"] for x in detail if not x["corrected"]]
    sensed = {"via": "photo", "confidence": min(kept) if kept else None, "dice": detail}
    return PhotoRoll(action, "", sensed, tuple(final))


def field_names(request) -> list:
    """What each die of the photo fills, in reading order, for the confirm screen ("attacker",
    "defender"), or [] when the values fill one list (order does not matter)."""
    spec = (request or {}).get("spec")
    if spec is None or len(spec.fields) != spec.dice or spec.dice < 2:
        return []
    return [str(f).replace("_", " ") for f in spec.fields]
