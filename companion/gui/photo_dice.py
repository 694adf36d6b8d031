"""Dice read from a photo, on the tablet (layouts in photo_dice.kv).

When dice are asked, `PhotoDiceButtons` sits beside the touch entry and the virtual dice:
"Read the dice with the camera" (a webcam, cv2.VideoCapture) and "Photo from a file" (any JPEG
or PNG). The photo is read (companion/table/dice_photo.py) and shown in `PhotoDicePopup` with
each die's value drawn on it; the table confirms ("Use these values"), or corrects a die with one
tap on its row of values. The roll goes through the game's binding (companion/table/photo_roll.py)
and is journaled with source "camera" and the confidence. A wrong count, an unread die or a
photo the reader declines is said in words and records nothing. The photo is kept only when
"Keep this photo" is ticked (into <data>/photos).
"""
from __future__ import annotations

import io
import os
import time
from pathlib import Path

from kivy.core.image import Image as CoreImage
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView
from kivy.uix.togglebutton import ToggleButton

from companion.table.photo_roll import field_names, roll_from_photo

NO_CAMERA = "No camera found on this device: choose a photo file, or enter the values by touch."


def grab_camera_frame(index: int = 0, warm_up: int = 5):
    """JPEG bytes of one frame from camera `index`, or a plain sentence saying why not."""
    try:
        import cv2
    except ImportError:  # pragma: no cover - OpenCV is a dependency
        return NO_CAMERA
    cap = cv2.VideoCapture(index)
    try:
        if not cap.isOpened():
            return NO_CAMERA
        frame = None
        for _ in range(max(1, warm_up)):  # the first frames are dark while exposure settles
            ok, got = cap.read()
            if ok:
                frame = got
        if frame is None:
            return "The camera gave no picture: check that no other program uses it, or choose a photo file."
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
        return buf.tobytes() if ok else "The camera's picture could not be read: choose a photo file."
    finally:
        cap.release()


def photos_dir() -> Path:
    from companion.store import paths
    return paths.data_dir() / "photos"


class PhotoDiceButtons(BoxLayout):
    """The photo's way in, beside the touch entry (the game screen sets `screen`)."""
    screen = ObjectProperty(None, allownone=True)
    camera_index = 0

    def from_camera(self):
        got = grab_camera_frame(self.camera_index)
        if isinstance(got, str):
            self._say(got)
            return
        self.show(got)

    def from_file(self):
        FilePopup(on_chosen=self.from_path).open()

    def from_path(self, path):
        try:
            with open(path, "rb") as f:
                data = f.read(60_000_001)
        except OSError as exc:
            self._say(f"Could not open {os.path.basename(path)}: {exc.strerror or exc}.")
            return
        self.show(data)

    def show(self, data: bytes):
        """Read `data` and open the confirm popup (also for the phone pages' photos)."""
        screen = self.screen
        if screen is None or screen.ctrl is None:
            return None
        popup = PhotoDicePopup(screen=screen, data=data)
        popup.open()
        return popup

    def _say(self, text):
        if self.screen is not None:
            self.screen.message, self.screen.error = text, True


class FilePopup(ModalView):
    """Choose a JPEG or PNG file (Kivy's file chooser, starting in the home folder)."""
    on_chosen = ObjectProperty(None)
    start = StringProperty(str(Path.home()))

    def choose(self, selection):
        if selection:
            self.dismiss()
            self.on_chosen(selection[0])


class PhotoDicePopup(ModalView):
    """The photo with the values drawn, one row of 1..6 per die (a tap corrects it), and
    "Use these values" (the table's confirmation)."""
    screen = ObjectProperty(None)
    text = StringProperty("")
    problem = BooleanProperty(False)
    can_use = BooleanProperty(False)
    keep = BooleanProperty(False)
    fields = ListProperty([])

    def __init__(self, screen, data: bytes, **kw):
        # OpenCV (about 0.3 s to import) is loaded by the first photo, not at the app's start
        from companion.table.dice_photo import read_dice

        self.data = data
        self.reading = read_dice(data)
        self.fixes = [None] * len(self.reading.dice)
        super().__init__(screen=screen, **kw)
        self.fields = field_names(screen.ctrl.dice_request())
        self._rows()
        self.update()

    # ------------------------------------------------------------------ the view
    def _rows(self):
        box = self.ids.dice_rows
        box.clear_widgets()
        for i, d in enumerate(self.reading.dice):
            row = DieRow(popup=self, index=i)
            name = self.fields[i] if i < len(self.fields) else ""
            row.title = f"Die {i + 1}" + (f" ({name})" if name else "")
            for v in range(1, 7):
                b = ToggleButton(text=str(v), group=f"photo-die-{id(self)}-{i}", allow_no_selection=False,
                                 font_size="20sp", state="down" if d.value == v else "normal")
                b.bind(on_release=lambda btn, i=i, v=v: self.set_value(i, v))
                row.ids.value_row.add_widget(b)
            box.add_widget(row)

    def set_value(self, i, v):
        """One tap on a die's row: that die's value is the table's."""
        self.fixes[i] = None if v == self.reading.dice[i].value else v
        for row in self.ids.dice_rows.children:
            if row.index == i:
                for b in row.ids.value_row.children:
                    b.state = "down" if b.text == str(v) else "normal"
        self.update()

    def update(self):
        from companion.table.dice_photo import draw_reading

        png = draw_reading(self.data, self.reading, max_side=1280, values=self.fixes)
        if png is not None:
            self.ids.photo.texture = CoreImage(io.BytesIO(png), ext="png").texture
        got = roll_from_photo(self.reading, self.screen.ctrl.dice_request(), self.fixes)
        self.can_use = got.action is not None
        if got.action is None:
            self.text, self.problem = got.refusal, True
        else:
            fixed = sum(1 for d in got.sensed["dice"] if d["corrected"])
            conf = got.sensed["confidence"]
            sure = f" (confidence {conf:.0%})" if conf is not None else ""
            what = f"{fixed} corrected by the table" if fixed else "as read"
            self.text = (f"Read: {', '.join(map(str, got.values))}{sure}, {what}. Check each die on the photo, "
                         "tap a value to correct it, then Use these values.")
            self.problem = False
        self._got = got

    # ------------------------------------------------------------------ the choices
    def use(self):
        """The table confirms: the roll is dispatched with source "camera" and its confidence."""
        got = roll_from_photo(self.reading, self.screen.ctrl.dice_request(), self.fixes)
        if got.action is None:
            self.text, self.problem = got.refusal, True
            return
        screen = self.screen
        if getattr(screen, "pending", None) is not None:
            self.text, self.problem = "First tap Confirm or Cancel below the dice entry; nothing was recorded.", True
            return
        label = f"dice from a photo: {screen.ctrl.action_label(got.action)}"
        if screen.submit(got.action, "camera", label, sensed=got.sensed):
            if self.keep:
                self.keep_photo()
            self.dismiss()
        else:
            self.text, self.problem = screen.message, True

    def keep_photo(self):
        """Only when the player asked: the photo into <data>/photos, named by the save and time."""
        try:
            folder = photos_dir()
            folder.mkdir(parents=True, exist_ok=True)
            stem = Path(self.screen.ctrl.path).stem
            ext = ".png" if self.data[:4] == b"\x89PNG" else ".jpg"
            (folder / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}{ext}").write_bytes(self.data)
        except OSError as exc:
            self.screen.message = f"The roll is recorded; the photo could not be kept ({exc.strerror or exc})."


class DieRow(BoxLayout):
    popup = ObjectProperty(None)
    index = NumericProperty(0)
    title = StringProperty("")
