"""Global Event panel (steps event_roll and event_choice): the roll prompt and touch entry, each
player's event (dice, bonus, number, name, text) and the choice it asks. Layout in event.kv;
data from event_model. Dice settled in the wells are fed by the dashboard, not here."""
from __future__ import annotations

from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.togglebutton import ToggleButton

from companion.kit import ChoiceButton

from . import event_model as M
from .. import labels as L
from .combat_panel import WizardPanel


class EventRow(BoxLayout):
    """One player's Global Event."""
    seat = StringProperty("")
    head = StringProperty("")
    roll = StringProperty("")
    body = StringProperty("")
    status = StringProperty("")


class PickToggle(ToggleButton):
    value = ObjectProperty(None, allownone=True)


class EventPanel(WizardPanel):
    model = M
    no_roll_text = "No Global Event roll is awaited now."
    prompt_text = StringProperty("")
    choose_title = StringProperty("")
    show_dice = BooleanProperty(False)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.multi = None       # 'multi': the choice description from event_model.choice
        self._rows_key = None

    def update(self, screen, ctrl, snap):
        legal = self._begin(screen, ctrl, snap)
        rolling = snap["step"] == "event_roll"
        self.show_dice = rolling and any(a["type"] == "roll_event" for a in legal)
        if rolling:
            self.prompt_text = ("[b]Global Event[/b]: roll 2D6 in the wells (wells 1 and 2), or tap Roll "
                                "virtual dice, or enter the values below.\n" + "\n".join(M.bonus_lines(ctrl)))
        else:
            self.prompt_text = ""  # the rows say it all; keeps the choice in sight on small screens
        self._fill_rows([] if rolling else M.player_events(ctrl))
        self._fill_choice(None if rolling else M.choice(ctrl, legal))

    # ------------------------------------------------------------------ rows
    def _fill_rows(self, items):
        key = repr(items)
        if key == self._rows_key:
            return
        self._rows_key = key
        # the players still waiting are listed after the choice being made, so it stays near the top
        self.ids.rows.clear_widgets()
        self.ids.rows_after.clear_widgets()
        marks = {"choosing": "[color=ffd24d]choosing now[/color]",
                 "waiting": "[color=999999]after the first player[/color]",
                 "done": "[color=88dd88]applied[/color]"}
        for it in items:
            box = self.ids.rows_after if it["status"] == "waiting" else self.ids.rows
            box.add_widget(EventRow(
                seat=it["seat"],
                head=f"[b]{it['name']}: {it['number']}. {it['event']}[/b]", roll=M.roll_line(it),
                body=it["text"], status=marks[it["status"]]))

    # ------------------------------------------------------------------ choice
    def _fill_choice(self, ch):
        key = repr(ch)
        if key == self._choices_key:
            return
        self._choices_key = key
        box = self.ids.choices
        box.clear_widgets()
        self._clear_choice()
        self.multi = None
        if ch is None:
            self.choose_title = ""
            return
        who = self.ctrl.name(ch["seat"])
        if ch["kind"] == "pick":
            self.choose_title = f"{who}: choose one:"
            for o in ch["options"]:
                box.add_widget(ChoiceButton(action=o["action"], text=o["text"], on_release=self.pick))
        else:
            self.multi = ch
            what = "unit" if ch["field"] == "units" else "space"
            self.choose_title = f"{who}: choose exactly {L.count(ch['need'], what)}:"
            for c in ch["candidates"]:
                box.add_widget(PickToggle(value=c["value"], text=c["text"], on_release=self.toggle))
            self.toggle(None)

    def chosen_values(self):
        return [w.value for w in reversed(self.ids.choices.children)
                if isinstance(w, PickToggle) and w.state == "down"]

    def toggle(self, _button):
        ch = self.multi
        vals = self.chosen_values()
        a = M.multi_action(ch, vals)
        why = self.ctrl.check(a) if len(vals) == ch["need"] else None
        self.chosen = a if len(vals) == ch["need"] and why is None else None
        self.can_confirm = self.chosen is not None
        self.confirm_text = f"{len(vals)} of {ch['need']} chosen" + (f" - {why}" if why else "")
        if self.screen is not None:
            if self.chosen is not None:
                self.screen.submit(self.chosen)  # complete: it waits for the dashboard's Confirm
            else:
                self.screen.withdraw()
