"""Type checks (issue 19 item 1): firmware/ and protocol/ checked with pyright against the
published MicroPython stubs of the RP2040 (Pico) and of the ESP32, so every machine,
micropython, sys and time call the firmware makes exists on both ports with those arguments.
The Board's `machine` parameter and the drivers' bus objects are typed for the checker
(TYPE_CHECKING blocks, type comments) so their calls are checked too. A probe file with a
call neither port has must fail, or the check would be proving nothing."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUBS = {"rp2": "micropython-rp2-rpi-pico-stubs==1.29.0.post1",
         "esp32": "micropython-esp32-stubs==1.29.0.post1"}
CACHE = os.path.join(ROOT, "build", "board-stubs")


def stubs(port):
    """The port's stubs, installed once with pip --target (two ports cannot share a
    site-packages: both define `machine`)."""
    d = os.path.join(CACHE, port)
    if not os.path.exists(os.path.join(d, "machine.pyi")):
        r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                            "--target", d, STUBS[port], "micropython-stdlib-stubs==1.29.0.post2"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    return d


def pyright(tmp_path, port, probe=None):
    pytest.importorskip("pyright")
    work = tmp_path / port
    os.makedirs(work)
    for pkg in ("firmware", "protocol"):
        os.symlink(os.path.join(ROOT, pkg), work / pkg)
    include = ["firmware", "protocol"]
    if probe:
        (work / "probe.py").write_text(probe)
        include.append("probe.py")
    d = stubs(port)
    (work / "pyrightconfig.json").write_text(json.dumps({
        "include": include, "exclude": ["firmware/sim"], "typeshedPath": d, "stubPath": d,
        "pythonPlatform": "Linux", "typeCheckingMode": "basic",
        "reportMissingModuleSource": "none"}))
    r = subprocess.run([sys.executable, "-m", "pyright", "--outputjson", "-p",
                        str(work / "pyrightconfig.json")], capture_output=True, text=True,
                       cwd=work)
    try:
        out = json.loads(r.stdout)
    except ValueError:
        pytest.fail("pyright gave no report: %s %s" % (r.stdout[-500:], r.stderr[-500:]))
    errors = ["%s:%d %s" % (os.path.relpath(e["file"], work), e["range"]["start"]["line"] + 1,
                            e["message"].splitlines()[0])
              for e in out["generalDiagnostics"] if e["severity"] == "error"]
    return errors, out["summary"]["filesAnalyzed"]


@pytest.mark.parametrize("port", sorted(STUBS))
def test_firmware_and_protocol_type_check_against_the_port_stubs(tmp_path, port):
    errors, files = pyright(tmp_path, port)
    assert files >= 15  # every firmware and protocol module, not an empty include
    assert errors == []


@pytest.mark.parametrize("port", sorted(STUBS))
def test_a_call_the_port_lacks_is_caught(tmp_path, port):
    errors, _ = pyright(tmp_path, port, probe=(
        "import machine\n"
        "machine.Pin(2).toggle_fast()\n"          # no such method
        "machine.I2C(0).readfrom_mem_into(0x29)\n"  # missing arguments
        "machine.Pin(2).value()\n"                # fine
    ))
    assert [e.split(" ")[0] for e in errors] == ["probe.py:2", "probe.py:3"], errors
