"""Settings file: defaults, round trip, untrusted content (companion/store/settings.py, no Kivy)."""
import json

import pytest

from companion.store import settings


@pytest.fixture(autouse=True)
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_COMPANION_DATA", str(tmp_path))
    return tmp_path


def test_defaults_when_missing():
    assert settings.load() == (settings.DEFAULTS, [])


def test_round_trip():
    saved = settings.save({"board": "virtual", "board_dice": False, "max_rounds": 5})
    assert settings.load() == (saved, [])
    assert saved["table_checks"] is True


@pytest.mark.parametrize("content, expect", [
    (b"{not json", "could not be read"),
    (b"\xff\xfe\x00", "could not be read"),
    (b"[1, 2]", "not a JSON object"),
])
def test_corrupt_file_gives_defaults_and_a_reason(data, content, expect):
    (data / "settings.json").write_bytes(content)
    values, problems = settings.load()
    assert values == settings.DEFAULTS and expect in problems[0]


def test_bad_values_fall_back_one_by_one(data):
    (data / "settings.json").write_text(json.dumps(
        {"board": "usb9", "board_dice": "yes", "max_rounds": 3, "colour": "red", "table_checks": False}))
    values, problems = settings.load()
    assert values["board"] == "auto" and values["board_dice"] is True
    assert values["max_rounds"] == 3 and values["table_checks"] is False
    assert len(problems) == 3 and any("'colour'" in p for p in problems)


@pytest.mark.parametrize("bad", [{"board": "x"}, {"max_rounds": -1}, {"max_rounds": True}, {"nope": 1}])
def test_save_refuses_bad_values_and_keeps_the_file(data, bad):
    settings.save({"board": "none"})
    with pytest.raises(ValueError):
        settings.save(bad)
    assert settings.load()[0]["board"] == "none"
