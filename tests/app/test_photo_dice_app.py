"""Dice from a photo in the real app (companion/gui/photo_dice.py), under Xvfb: when a roll is
asked, the photo buttons sit beside the touch entry; a photo file is read and shown with the
values drawn, one tap corrects a die, "Use these values" journals the roll with source "camera"
and its confidence; a photo of the wrong number of dice is refused in words (nothing recorded);
no webcam is said plainly. Screenshots at 800x480 and 1280x800 in test-artifacts/app/."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(300)


def _photo(n, path):
    """A photo of n dice the reader reads right; its values in reading order."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "vision"))
    import dice_scenes as ds
    from companion.table.dice_photo import read_dice

    for s in range(60):
        sc = ds.make_scene(s, "standard", n_dice=n, size=(960, 540))
        r = read_dice(sc.jpeg)
        if r.ok and sorted(r.values) == sorted(sc.values):
            with open(path, "wb") as f:
                f.write(sc.jpeg)
            return r.values
    raise AssertionError("no readable photo")


def _popup():
    from kivy.core.window import Window

    found = [w for w in Window.children if type(w).__name__ == "PhotoDicePopup"]
    return found[0] if found else None


def scenario_photo_roll(app, drv):
    from kivy.core.window import Window

    from companion.gui.photo_dice import NO_CAMERA
    from companion.store.journal import Journal

    tag = "%dx%d" % tuple(Window.size)
    drv.start_from_form(app, "civmint")
    drv.pump(4)
    scr = drv.game_screen(app)
    for _ in range(300):  # the players' decisions until the dice are asked (the event roll)
        req = scr.ctrl.dice_request()
        if req is not None and req["kind"] == "dice":
            break
        scr.ctrl.dispatch(scr.ctrl.legal_actions()[0])
    drv.pump(3)
    assert req["action"] == "roll_event" and req["count"] == 2, req
    done = len(scr.ctrl.journal)
    buttons = scr.ids.photo_dice
    assert buttons.height > 0 and not buttons.disabled
    drv.shot(f"photo-dice-prompt-{tag}")

    # no webcam on the test machine: said plainly, nothing recorded
    drv.press(buttons.ids.camera)
    assert scr.message == NO_CAMERA and len(scr.ctrl.journal) == done

    # the file chooser opens (and is closed again)
    drv.press(buttons.ids.file)
    chooser = [w for w in Window.children if type(w).__name__ == "FilePopup"]
    assert chooser
    chooser[0].dismiss()
    drv.pump(3)

    # three dice for a two-dice roll: refused in words, Use disabled
    buttons.from_path(os.environ["PHOTO_THREE"])
    drv.pump(3)
    pop = _popup()
    assert pop is not None
    assert "Event roll asks for 2 dice, the photo shows 3: nothing recorded" in pop.text and not pop.can_use
    drv.shot(f"photo-dice-refused-{tag}")
    drv.press(pop.ids.cancel)
    drv.wait_for(lambda: _popup() is None, 5, "the popup to close")  # (its dismiss is animated)
    assert len(scr.ctrl.journal) == done

    # two dice: read, drawn, the second corrected with one tap, used
    buttons.from_path(os.environ["PHOTO_TWO"])
    drv.pump(3)
    pop = _popup()
    first, read = (int(v) for v in os.environ["PHOTO_TWO_VALUES"].split())
    assert pop.can_use and pop.text.startswith(f"Read: {first}, {read} (confidence"), pop.text
    assert pop.ids.photo.texture is not None
    drv.shot(f"photo-dice-read-{tag}")
    other = 7 - read
    rows = pop.ids.dice_rows.children[::-1]  # Kivy keeps the last added first
    assert [r.title for r in rows] == ["Die 1", "Die 2"]
    [button] = [b for b in rows[1].ids.value_row.children if b.text == str(other)]
    drv.press(button)
    assert pop.text.startswith(f"Read: {first}, {other}") and "1 corrected by the table" in pop.text
    assert [b.text for b in rows[1].ids.value_row.children if b.state == "down"] == [str(other)]
    drv.shot(f"photo-dice-corrected-{tag}")
    drv.press(pop.ids.use)
    drv.wait_for(lambda: _popup() is None, 5, "the popup to close")
    with Journal.open(scr.ctrl.path, readonly=True) as j:
        e = j.actions()[done]
        assert e.source == "camera" and e.action == {"type": "roll_event", "dice": [first, other]}
        detail = j.sensed()[e.seq]
        assert detail["dice"][1] == {"read": read, "value": other, "confidence": detail["dice"][1]["confidence"],
                                     "corrected": True}
        assert not detail["dice"][0]["corrected"] and detail["confidence"] == detail["dice"][0]["confidence"]
    # the photo was not kept (the player did not ask)
    from companion.gui.photo_dice import photos_dir
    assert not photos_dir().exists() or not any(photos_dir().iterdir())
    assert scr.message.startswith("Done: dice from a photo")


@pytest.mark.parametrize("size", ["1280x800", "800x480"])
def test_photo_roll_in_the_app(xdisplay, tmp_path, size):
    two, three = tmp_path / "two.jpg", tmp_path / "three.jpg"
    values = _photo(2, two)
    _photo(3, three)
    run_scenario(__file__, "scenario_photo_roll", tmp_path, size=size,
                 env={"PHOTO_TWO": str(two), "PHOTO_THREE": str(three), "PHOTO_TWO_VALUES": " ".join(map(str, values))})
