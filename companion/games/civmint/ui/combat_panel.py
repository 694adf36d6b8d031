"""Combat wizard (step "combat"): the battle being fought, its stage, dice, Combat Power bidding,
retreat choices and the last battle's outcome. Layout in combat.kv; data from combat_model.

Also what the event panel shares with it: `WizardPanel` (a tapped kit `ChoiceButton` waits for the
dashboard's one Confirm, dice entered on the kit's `DiceEntry`). Panels never dispatch dice from board events: the dashboard
feeds settled dice in the wells to the engine.
"""
from __future__ import annotations

from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from companion.kit import ChoiceButton, StepPanel

from . import combat_model as M
from .. import labels as L


class WizardPanel(StepPanel):
    """What the combat and event panels share: the legal actions of the last update, a tapped
    ChoiceButton handed to the dashboard's Confirm, and the roll entered on the DiceEntry. A subclass sets
    `model` (a module with `roll_action(legal, d1, d2)`) and `no_roll_text`."""
    confirm_text = StringProperty("")
    can_confirm = BooleanProperty(False)
    max_height = NumericProperty(dp(360))
    model = None
    no_roll_text = ""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.screen = None
        self.ctrl = None
        self.chosen = None
        self._legal = []
        self._choices_key = None  # the options the choice buttons were made for

    def _begin(self, screen, ctrl, snap) -> list:
        """Start of `update`: keep screen and controller, size to the screen, the legal actions."""
        self.screen, self.ctrl = screen, ctrl
        if screen is not None and screen.height:
            self.max_height = max(dp(220), screen.height * 0.55)
        self._legal = ctrl.legal_actions() if not snap.get("over") else []
        return self._legal

    def _clear_choice(self):
        self.chosen = None
        self.confirm_text = ""
        self.can_confirm = False

    def pick(self, button):
        """A tapped choice waits for the dashboard's Confirm (the one confirm bar)."""
        for w in self.ids.choices.children:
            w.selected = w is button
        self.chosen = button.action
        if self.screen is not None:
            self.screen.submit(button.action, label=button.text)

    def enter_dice(self, d1, d2):
        a = self.model.roll_action(self._legal, d1, d2)
        if a is None:
            if self.screen is not None:
                self.screen.message, self.screen.error = self.no_roll_text, True
            return
        self.screen.submit(a)


class CombatPanel(WizardPanel):
    model = M
    no_roll_text = "No combat roll is awaited now."
    stage_text = StringProperty("")
    spaces_text = StringProperty("")
    battle_text = StringProperty("")
    dice_text = StringProperty("")
    cp_text = StringProperty("")
    last_text = StringProperty("")
    choose_title = StringProperty("")
    show_dice = BooleanProperty(False)
    show_cp = BooleanProperty(False)
    cp_amount = NumericProperty(1)
    cp_min = NumericProperty(0)
    cp_max = NumericProperty(0)

    def __init__(self, **kw):
        super().__init__(**kw)
        self._known = {}          # unit id -> (kind, owner), to name units after they are gone
        self._last_key = None     # the last_battle record the line was made for

    # ------------------------------------------------------------------ refresh
    def update(self, screen, ctrl, snap):
        legal = self._begin(screen, ctrl, snap)
        s = ctrl.state
        stage = M.stage_of(ctrl, legal)
        self.stage_text = "  >  ".join(
            (f"[b][color=ffd24d]{label}[/color][/b]" if k == stage else f"[color=999999]{label}[/color]")
            for k, label in M.STAGES)
        if stage == "retreat" and (s.combat or {}).get("kind") == "disembark":
            self.stage_text += "\n[b]A lost Ship's cargo goes ashore[/b]"

        # contested / current space
        cont = ctrl.game.contested_spaces(s)
        cur_sp = s.t.get("cspace")
        parts = []
        if cont:
            parts.append("Contested: " + "; ".join(f"[b]{L.space_words(sp)}[/b]" if sp == cur_sp
                                                   else L.space_words(sp) for sp in cont))
        if cur_sp:
            parts.append(f"Current battle space: [b]{L.space_words(cur_sp)}[/b] (finish it first)")
        if not cont and stage in ("attack", "next"):
            parts.append("No contested space.")
        self.spaces_text = "\n".join(parts)

        # the battle
        b = M.battle(ctrl)
        if b:
            lines = [f"[b]Battle for {L.space_words(b['target'])}[/b]",
                     f"Attacker: {b['attacker_text']}  [b]attack +{b['attack_bonus']}[/b]",
                     f"Defender: {b['defender_text']}" + (f"  [b]defence +{b['defence_bonus']}[/b]"
                                                          if b["defence_bonus"] is not None else "")]
            sides = M.space_sides(ctrl, b["target"])
            for seat, us in sides.items():
                lines.append(f"At {L.space_words(b['target'])} ({ctrl.name(seat)}): " + "; ".join(us))
            self.battle_text = "\n".join(lines)
        elif s.combat and s.combat.get("stage") == "retreat":
            c = s.combat
            sides = M.space_sides(ctrl, c["from"])
            mover = L.unit_words(s.units[c["unit"]], s, ctrl.name, where=False)
            lines = [f"[b]{'Disembark' if c['kind'] == 'disembark' else 'Retreat'} from {L.space_words(c['from'])}[/b]: "
                     f"{mover} chooses where to go"]
            lines += [f"At {L.space_words(c['from'])} ({ctrl.name(seat)}): " + "; ".join(us) for seat, us in sides.items()]
            self.battle_text = "\n".join(lines)
        elif stage == "next":
            self.battle_text = "No battle left to fight: end the combat step."
        else:
            self.battle_text = ""

        # dice
        self.show_dice = stage == "roll"
        if b and b["dice"]:
            a, d = b["dice"]
            ta, td = b["totals"]
            self.dice_text = f"Dice: attacker {a}, defender {d}.  Totals: attacker [b]{ta}[/b], defender [b]{td}[/b]"
        else:
            self.dice_text = M.dice_prompt(stage)

        # combat power
        rng = M.cp_range(legal) if stage == "cp" else None
        self.show_cp = rng is not None
        if rng is not None:
            seat = b["cp_turn"] if b else ctrl.game.actor(s)
            self.cp_min, self.cp_max = rng
            if not (self.cp_min <= self.cp_amount <= self.cp_max):
                self.cp_amount = self.cp_min
            have = "   ".join(f"{ctrl.name(p)}: {s.players[p].res['combat_power']}" for p in ("p1", "p2"))
            self.cp_text = (f"[b]{ctrl.name(seat)}[/b] spends Combat Power (or passes).  Combat Power left: {have}")
        else:
            self.cp_text = ""

        self._fill_choices(stage, legal)

        lb = s.t.get("last_battle")
        key = repr(lb)
        if key != self._last_key:
            self.last_text = M.last_battle_text(ctrl, self._known)
            self._last_key = key
        self._known.update({u.id: (u.kind, u.owner) for u in s.units.values()})

    def _fill_choices(self, stage, legal):
        box = self.ids.choices
        opts = []
        if stage == "attack":
            self.choose_title = "Choose the attack (target space, attacking unit):"
            for grp in M.attack_choices(self.ctrl, legal):
                tag = " (contested)" if grp["contested"] else ""
                for o in grp["options"]:
                    opts.append((o["action"], f"{L.cap(L.space_words(grp['target']))}{tag}: {o['text']}"))
        else:
            ch = M.choice_actions(self.ctrl, legal)
            if ch and stage == "defend":
                self.choose_title = f"{self.ctrl.name(ch[0]['action']['player'])}: choose the defender:"
            elif ch:
                self.choose_title = f"{self.ctrl.name(ch[0]['action']['player'])}: choose where to go:"
            else:
                self.choose_title = ""
            opts = [(o["action"], o["text"]) for o in ch]
        key = tuple(repr(a) for a, _ in opts)
        if key == self._choices_key:
            return
        self._choices_key = key
        box.clear_widgets()
        self._clear_choice()
        for a, text in opts:
            box.add_widget(ChoiceButton(action=a, text=text, on_release=self.pick))

    # ------------------------------------------------------------------ touch
    def cp_step(self, delta):
        self.cp_amount = min(self.cp_max, max(self.cp_min, self.cp_amount + delta))

    def cp_commit(self, amount=None):
        n = int(self.cp_amount if amount is None else amount)
        a = M.spend_action(self._legal, n)
        if a is not None and self.screen is not None:
            self.screen.submit(a)
