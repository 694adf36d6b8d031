"""Stars of a neighbourhood (pure functions of the plan data): the printed values and the star
formulas of Museum, Gallery, Obelisk, Vault, Landfill's malus, and Bridge counting as two."""
from __future__ import annotations


def built_ids(plans) -> list:
    """Built plans of a neighbourhood (a list of (plan id, built, secret)), oldest first."""
    return [pid for pid, built, _ in plans if built]


def culture_count(data, built) -> int:
    """Culture buildings, Bridge counting as two (MW-P6)."""
    return sum(data.plans[p].get("culture_weight", 1) for p in built if data.plans[p]["type"] == "culture")


def building_count(data, built) -> int:
    """Buildings (built plans), Bridge counting as two (MW-P6, MW-R6)."""
    return sum(data.plans[p].get("building_weight", 1) for p in built)


def neighbourhood_size(data, plans) -> int:
    """Plans of a neighbourhood for the tie-breaker: built and unbuilt, a built Bridge as two."""
    return sum(data.plans[p].get("building_weight", 1) if built else 1 for p, built, _ in plans)


def plan_stars(data, pid, built, face_down, gallery_mints) -> int:
    """The stars one built plan gives in its neighbourhood."""
    p = data.plans[pid]
    rule = p.get("star_rule")
    v = data.values
    if rule == "museum":
        stars = culture_count(data, built)
    elif rule == "gallery":
        stars = gallery_mints
    elif rule == "obelisk":
        stars = building_count(data, built)
    elif rule == "vault":
        stars = v["vault_base"] + v["vault_per_face_down"] * face_down
    else:
        stars = p["stars"]
    if p["type"] == "culture" and any(data.plans[b].get("ability") == "landfill" for b in built):
        stars = max(0, stars - v["landfill_culture_malus"])
    return stars


def star_items(data, plans, gallery_mints=0) -> dict:
    """{plan name: stars} for every built plan of a neighbourhood (its score breakdown)."""
    built = built_ids(plans)
    face_down = sum(1 for _, b, _ in plans if not b)
    return {data.plans[p]["name"]: plan_stars(data, p, built, face_down, gallery_mints) for p in built}


def stars(data, plans, gallery_mints=0) -> int:
    return sum(star_items(data, plans, gallery_mints).values())
