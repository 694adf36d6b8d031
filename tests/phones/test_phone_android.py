"""The Android build carries the phones' server (issue 37, part 8): aiohttp and segno in the
buildozer requirements at the desktop's pins, the network permission, and the seat page's files
packaged (their extensions in source.include_exts)."""
import configparser
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_buildozer_spec_has_the_table_server_and_its_page():
    cp = configparser.ConfigParser(allow_no_value=True, interpolation=None)
    cp.optionxform = str
    cp.read(os.path.join(ROOT, "buildozer.spec"), encoding="utf-8")
    app = cp["app"]
    reqs = dict(r.strip().partition("==")[::2] for r in app["requirements"].split(","))
    pyproject = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    for name in ("aiohttp", "segno"):
        assert reqs.get(name) and f'"{name}=={reqs[name]}"' in pyproject, name
    assert "INTERNET" in [p.strip() for p in app["android.permissions"].split(",")]
    exts = {e.strip() for e in app["source.include_exts"].split(",")}
    static = os.path.join(ROOT, "companion", "phones", "static")
    files = os.listdir(static)
    assert files and {f.rsplit(".", 1)[1] for f in files} <= exts
