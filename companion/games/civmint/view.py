"""CivMint as the shell sees it (no Kivy): names, the dashboard snapshot, player lines, log text,
results and the round summary. Rules stay in rules.py; this module only reads them."""
from __future__ import annotations

from companion.games.contract import GameView, Pick

from . import history as H
from . import labels
from .help import step_help as _step_help
from .labels import nice


class CivMintView(GameView):
    def step_help(self, step) -> str:
        return _step_help(step)

    def action_label(self, action: dict, state, setup) -> str:
        return labels.describe(action, state, lambda seat: self.name(setup, seat))

    # pickers: units and spaces by their words on the table, never by their ids ----------------
    SPACE_FIELDS = {"space": "Which space?", "target": "Which space to attack?", "spaces": "Which spaces?"}
    TO_SPACE = ("move", "retreat")  # their "to" is a space; an upgrade's "to" is a kind

    def picks(self, game, action_type, state=None, setup=None) -> tuple:
        out = []
        for p in super().picks(game, action_type):
            if p.field == "unit":
                out.append(Pick("unit", "unit", "Which unit?"))
            elif p.field in self.SPACE_FIELDS or (p.field == "to" and action_type in self.TO_SPACE):
                out.append(Pick(p.field, "area", self.SPACE_FIELDS.get(p.field, "To which space?")))
            elif p.field == "units":
                out.append(Pick("units", "unit", "Which units?"))
            elif p.field == "to":
                out.append(Pick("to", "choice", "Into what?"))
            else:
                out.append(p)
        return tuple(out)

    def value_label(self, game, state, setup, action_type, field, value) -> str:
        if field == "unit" and isinstance(value, int):
            return labels.cap(labels.unit_ref(state, value))
        if field == "units" and isinstance(value, (list, tuple)):
            return labels.cap(labels.units_words(state, value)) if value else "None"
        if field in self.SPACE_FIELDS or (field == "to" and action_type in self.TO_SPACE):
            if isinstance(value, (list, tuple)):
                return labels.cap(labels.spaces_words(value))
            return labels.cap(labels.space_words(value))
        if field == "picks" and isinstance(value, dict):
            return "; ".join(f"{labels.cap(labels.unit_ref(state, int(k)))}: {nice(r)}"
                             for k, r in value.items()) or "No choice"
        if field in ("give", "get") and isinstance(value, dict):
            return ", ".join(labels.count(n, nice(r)) for r, n in value.items()) or "Nothing"
        return super().value_label(game, state, setup, action_type, field, value)

    def _unit_changes(self, before, after, setup, skip=()):
        """(unit id, plain words) for every die on the map that must change: gone, gained,
        conquered, moved, turned to another kind, damaged or repaired."""
        name = lambda seat: self.name(setup, seat)  # noqa: E731

        def unit(u, state=before):
            w = labels.unit_words(u, state, name)
            return w[0].upper() + w[1:]
        out = []
        for uid, u in sorted(before.units.items()):
            v = after.units.get(uid)
            if v is None:
                out.append((uid, f"{unit(u)} is gone: take its die off the map."))
                continue
            if uid in skip:
                continue
            if v.owner != u.owner:
                out.append((uid, f"{unit(u)} is conquered by {name(v.owner)}: it is now {name(v.owner)}'s."))
            if v.space != u.space:
                where = "onto a Ship at " if v.carrier and not u.carrier else ""
                out.append((uid, f"{unit(u)} moves to {where}{labels.space_words(v.space)}: move its die."))
            if v.kind != u.kind:
                out.append((uid, f"{unit(u)} becomes {labels.with_article(nice(v.kind))}: turn its die to {nice(v.kind)}."))
            if v.damage != u.damage:
                what = f"takes {v.damage - u.damage} damage" if v.damage > u.damage else "is repaired"
                out.append((uid, f"{unit(u)} {what}: it has {labels.count(v.damage, 'damage cube')} now."))
        for uid, v in sorted(after.units.items()):
            if uid not in before.units:
                out.append((uid, f"{name(v.owner)} gains {labels.with_article(nice(v.kind))} at "
                                 f"{labels.space_words(v.space)}: put a die there."))
        return out

    def table_changes(self, game, before, action: dict, after, setup) -> list:
        """Every physical change the table must make after `action` (units as dice on the map;
        cubes on the tracks, each with the lane the board senses it on)."""
        out = [{"text": text, "kind": "die"} for _uid, text in self._unit_changes(before, after, setup)]
        name = lambda seat: self.name(setup, seat)  # noqa: E731
        for seat in self.seats(setup):
            p0, p1 = before.players[seat], after.players[seat]
            for track, v1 in p1.dev.items():
                v0 = p0.dev.get(track)
                if v0 != v1:
                    out.append({"text": f"{name(seat)}'s {nice(track)}: {labels.dev_space(track, v0)['name']} -> "
                                        f"{labels.dev_space(track, v1)['name']}: move the cube.",
                                "kind": "track", "lane": f"{track}.{seat}"})
            for track, v1 in p1.asp.items():
                v0 = p0.asp.get(track)
                if v0 != v1:
                    out.append({"text": f"{name(seat)}'s {nice(track)}: {v0} -> {v1}: move the cube.",
                                "kind": "track", "lane": f"{track}.{seat}"})
            for res, v1 in p1.res.items():
                v0 = p0.res.get(res)
                if v0 != v1:
                    out.append({"text": f"{name(seat)}'s {nice(res)}: {v0} -> {v1}: move the cube.",
                                "kind": "track", "lane": f"{res}.{seat}"})
        return out

    def history_lines(self, game, before, action: dict, after, setup) -> list:
        """What followed by itself, as the table must see it: battles, units lost or gained,
        conquests, retreats, damage, event numbers, aspect tracks moved by something other than
        the action itself, round ends, the game's end."""
        name = lambda seat: self.name(setup, seat)  # noqa: E731

        def unit(u):
            return labels.unit_words(u, before, name)
        out = []
        t = action.get("type")
        lb = after.t.get("last_battle")
        battle = lb is not None and lb is not before.t.get("last_battle")
        if battle:
            au, du = before.units.get(lb["attacker"]), before.units.get(lb["defender"])
            if au is not None and du is not None:
                hit = au if lb["damaged"] == au.id else du
                out.append(f"Battle: {unit(au)} ({lb['dice'][0]}, total {lb['totals'][0]}) against {unit(du)} "
                           f"({lb['dice'][1]}, total {lb['totals'][1]}): {name(lb['winner'])} wins; "
                           f"{name(hit.owner)}'s {nice(hit.kind)} takes 1 damage.")
        skip = set()  # what the action's own words already say
        if t in ("move", "retreat", "event_upgrade", "upgrade", "downgrade", "event_downgrade", "repair"):
            uid = action.get("unit")
            skip.add(uid)
            skip.update(x.id for x in before.units.values() if x.carrier == uid)
        if t == "round_repair":
            skip.update(action.get("units") or ())
        hit_id = lb["damaged"] if battle else None
        if hit_id in after.units and after.units[hit_id].owner == before.units[hit_id].owner:
            skip.add(hit_id)  # the Battle line says it
        out.extend(text for _uid, text in self._unit_changes(before, after, setup, skip))
        if after.events and after.events is not before.events and after.events != before.events:
            for seat in self.seats(setup):
                n = after.events.get(seat)
                if n is not None:
                    ev = game.data.events["events"].get(str(n), {})
                    out.append(f"Global event for {name(seat)}: {n} - {ev.get('name', '?')}.")
        if t not in ("correct_track", "improve_aspect"):
            for seat in self.seats(setup):
                p0, p1 = before.players[seat], after.players[seat]
                for track, v1 in p1.asp.items():
                    v0 = p0.asp.get(track)
                    if v0 != v1:
                        out.append(f"{name(seat)}'s {nice(track)} goes {v0} -> {v1}: move the cube.")
        out.extend(super().history_lines(game, before, action, after, setup))
        return out

    def prompt(self, game, state, setup, dice) -> str:
        text = super().prompt(game, state, setup, dice)
        if state.step == "first_player" and not game.is_over(state):
            fp = game.data.rules["first_player_die"]
            said = "; ".join(f"{', '.join(map(str, vals))} - {self.name(setup, seat)} plays first"
                             for seat, vals in fp.items())
            text += f" The die decides who starts: {said}."
        return text

    def roll_owner(self, state):
        return state.active if state.step == "event_roll" and state.first else None

    def roller_words(self, game, state, action, setup) -> str | None:
        """Combat: each side throws its unit's die (the Log names both); other rolls: roll_owner."""
        c = state.combat if action.get("type") == "roll_combat" else None
        if not c:
            return None
        att, dfd = state.units.get(c["att"]), state.units.get(c["def"])
        if att is None or dfd is None:
            return None
        return (f"rolled by {self.name(setup, att.owner)} (attacker) and "
                f"{self.name(setup, dfd.owner)} (defender)")

    # -- the dashboard's snapshot (the CivMint panels read it) ---------------------------------
    def snapshot(self, game, state, setup) -> dict:
        g, s = game, state
        d = s.to_dict()
        actor = g.actor(s)
        players = {}
        score = g.score(s)
        for seat, p in d["players"].items():
            units = sorted(g.units_of(s, seat), key=lambda u: u.id)
            counts = {}
            for u in units:
                counts[u.kind] = counts.get(u.kind, 0) + 1
            players[seat] = {
                "seat": seat, "name": self.name(setup, seat), "colour": p["colour"],
                "resources": p["resources"],
                "development": {t: labels.dev_space(t, pos) for t, pos in p["development"].items()},
                "aspects": p["aspects"],
                "bonuses": dict(g.bonuses(s, seat)),
                "upkeep": g.upkeep(s, seat),
                "units": labels.unit_list(units),
                "unit_counts": counts,
                "score": score[seat],
            }
        return {
            "round": d["round"], "max_rounds": d["max_rounds"], "step": d["step"],
            "phase": g.flow.phase(d["step"]), "first": d["first"], "active": d["active"],
            "actor": actor, "over": d["over"], "end_reasons": d["end_reasons"],
            "combat": d["combat"], "players": players,
            "result": g.result(s) if d["over"] else None,
        }

    def player_lines(self, game, state, setup, seat, player=None) -> list:
        p = player if player and "resources" in player else self.snapshot(game, state, setup)["players"][seat]
        res = "   ".join(f"{labels.resource_markup(r)}\u00a0[b]{v}[/b]" for r, v in p["resources"].items())
        tracks = "\n".join(
            f"{nice(t)}: [b]{d['name']}[/b] (level {d['level']}, space {d['position']}/{d['top']})"
            for t, d in p["development"].items())
        aspects = "   ".join(f"{nice(t)} [b]{v}[/b]" for t, v in p["aspects"].items())
        b = p["bonuses"]
        keys = ("research", "taxes", "event_bonus", "supported", "trade_rate", "ship_carry",
                "ship_move", "combat_power_max")
        bonuses = "   ".join(f"{nice(k)} [b]{b[k]}[/b]" for k in keys if k in b)
        up = ", ".join(f"{n} {nice(r)}" for r, n in p["upkeep"].items()) or "none"
        counts = ", ".join(labels.count(n, nice(k)) for k, n in sorted(p["unit_counts"].items()))
        units = f"{counts}\nUpkeep: {up}\n" + "; ".join(p["units"])
        sc = p["score"]
        score = f"Score [b]{sc['total']}[/b]  (" + ", ".join(
            f"{nice(k)} {v}" for k, v in sc["items"].items() if v) + ")"
        return [("", score), ("Resources", res), ("Aspects", aspects), ("Development", tracks, "block"),
                ("Bonuses", bonuses, "small"), ("Units", units, "small")]

    # -- results -----------------------------------------------------------------------------
    def end_reasons(self, game, state, setup) -> list:
        name = lambda seat: self.name(setup, seat)  # noqa: E731
        return [H.end_reason_text(r, name, state.max_rounds) for r in state.end_reasons]

    def tiebreak(self, game, state, setup):
        return H.tiebreak_text(game.result(state), lambda seat: self.name(setup, seat))

    def tiebreak_rows(self, game, state) -> list:
        res = game.result(state)
        if res["decided_by"] == "total":
            return []
        sc = res["score"]
        return [(title, {s: sc[s][key] for s in sc})
                for key, title in (("development_points", "Dev. points"), ("aspect_points", "Aspect points"))]

    def result_text(self, game, state, setup) -> str:
        res = game.result(state)
        sc = res["score"]
        by = H.DECIDED_BY.get(res["decided_by"], "")
        return ("Game over - " + self.headline(game, state, setup) +
                f" ({sc['p1']['total']} : {sc['p2']['total']}{by}). "
                + " ".join(self.end_reasons(game, state, setup)))

    # -- history -----------------------------------------------------------------------------
    def score_series(self, game, setup, history) -> dict:
        hist = H.build_from(game, setup, history)
        return {s: hist.totals(s) for s in hist.seats}

    def round_summary(self, game, setup, history, ended_round):
        hist = H.build_from(game, setup, history)
        rec = hist.record(ended_round)
        if rec is None:
            return {"title": f"Round {ended_round} ended.", "rows": []}
        nxt = hist.record(ended_round + 1)
        first = nxt.first if nxt is not None else None
        title = f"[b]Round {rec.round} ended[/b]" + (
            f"  -  next round: {self.name(setup, first)} goes first" if first else "")
        rows = [(seat, f"[b]{self.name(setup, seat)}[/b]  " + "  \u00b7  ".join(H.delta_lines(rec, seat)))
                for seat in hist.seats]
        return {"title": title, "rows": rows, "record": rec}


VIEW = CivMintView()
