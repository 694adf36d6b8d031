"""``tabletop-board``: deploy the firmware to a board (a mip package, companion/cli/firmware_package.py), open its REPL, run a virtual board.

    tabletop-board deploy --board pico|esp32 [--port P] [--map PATH] [--dev] [--dry-run] [--source]
    tabletop-board package --board pico|esp32 --out DIR [--map PATH] [--source]
    tabletop-board repl [--port P]
    tabletop-board virtual [--map PATH] [--seed N]   (prints the pty path; commands on stdin)
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MAP = os.path.join(ROOT, "hardware", "sensor_map.json")


def deploy_commands(package_json, port, dev):
    """The mpremote argument lists deploy runs: mip installs the built package (firmware and
    protocol as .mpy, profile, map, /main.py) at the board's root."""
    conn = ["connect", port or "auto"]
    cmds = [conn + ["mip", "install", "--target", "/", package_json]]
    if dev:
        cmds.append(conn + ["exec", "open('devmode', 'w').close()"])
    else:
        cmds.append(conn + ["exec", "import os\ntry:\n    os.remove('devmode')\nexcept OSError:\n"
                            "    pass\n"])
    cmds.append(conn + ["reset"])
    return cmds


def cmd_deploy(args):
    from companion.cli import firmware_package
    with tempfile.TemporaryDirectory() as staging:
        try:  # refuse a map the board cannot run before touching the board
            pj = firmware_package.build(args.board, args.map, staging, mpy=not args.source)
        except firmware_package.PackageError as exc:
            print("not deployed: %s" % exc, file=sys.stderr)
            return 2
        for c in deploy_commands(pj, args.port, args.dev):
            line = "mpremote " + " ".join(shlex.quote(x) for x in c)
            print(line)
            if args.dry_run:
                continue
            r = subprocess.run([sys.executable, "-m", "mpremote"] + c)
            if r.returncode:
                print("failed (%d). A running firmware ignores Ctrl-C: hold the profile's "
                      "repl_pin low and reset the board, or send CMD_REPL, then retry."
                      % r.returncode, file=sys.stderr)
                return r.returncode
    return 0


def cmd_package(args):
    from companion.cli import firmware_package
    try:
        pj = firmware_package.build(args.board, args.map, args.out, mpy=not args.source)
    except firmware_package.PackageError as exc:
        print("not built: %s" % exc, file=sys.stderr)
        return 2
    print("%s\ninstall with: mpremote mip install --target / %s" % (pj, pj))
    return 0


def cmd_repl(args):
    print("If the firmware is running it ignores Ctrl-C: send CMD_REPL from the app or hold "
          "repl_pin low while resetting the board.", file=sys.stderr)
    return subprocess.call([sys.executable, "-m", "mpremote", "connect", args.port or "auto",
                            "repl"])


HELP = """commands:
  place LANE POS | remove LANE POS | move LANE FROM TO [MS_PER_SPACE]
  roll WELL [VALUE] [settle_ms=N] [crooked] | take WELL
  unplug | replug | reset
  stuck BIT [LEVEL] | unstick BIT | nosensor WELL | sensor WELL | sensorid WELL ID
  chain N (connected registers) | tokens | state | help | quit"""


def run_command(vb, line):
    """Execute one virtual-board console command; returns a reply line."""
    p = line.split()
    if not p:
        return ""
    c, a = p[0], p[1:]

    def well(x):
        return int(x) if x.isdigit() else x
    if c == "place":
        vb.place(a[0], int(a[1]))
    elif c == "remove":
        vb.remove(a[0], int(a[1]))
    elif c == "move":
        vb.move(a[0], int(a[1]), int(a[2]), *(int(x) for x in a[3:4]))
    elif c == "roll":
        value = None
        settle = 400
        crooked = False
        for x in a[1:]:
            if x == "crooked":
                crooked = True
            elif x.startswith("settle_ms="):
                settle = int(x.split("=", 1)[1])
            else:
                value = int(x)
        return "rolled %d" % vb.roll(well(a[0]), value, settle, crooked)
    elif c == "take":
        vb.remove_die(well(a[0]))
    elif c == "unplug":
        vb.unplug()
    elif c == "replug":
        vb.replug()
    elif c == "reset":
        vb.reset()
    elif c == "stuck":
        vb.inject_stuck_bit(int(a[0]), int(a[1]) if len(a) > 1 else 0)
    elif c == "unstick":
        vb.clear_stuck_bit(int(a[0]))
    elif c == "nosensor":
        vb.remove_sensor(well(a[0]))
    elif c == "sensor":
        vb.restore_sensor(well(a[0]))
    elif c == "sensorid":
        vb.set_sensor_id(well(a[0]), int(a[1], 0))
    elif c == "chain":
        vb.set_chain_registers(int(a[0]))
    elif c == "tokens":
        return repr(vb.tokens())
    elif c == "state":
        return "%s, boots %d, %s" % (vb.state, vb.boots, vb.path)
    elif c == "help":
        return HELP
    else:
        raise ValueError("unknown command %r (help lists them)" % c)
    return "ok"


def cmd_virtual(args):
    from companion.link.virtual_board import VirtualBoard
    vb = VirtualBoard(args.map, seed=args.seed)
    print(vb.start(), flush=True)
    try:
        for line in sys.stdin:
            line = line.strip()
            if line in ("quit", "exit"):
                break
            try:
                reply = run_command(vb, line)
            except (ValueError, IndexError, KeyError) as exc:
                reply = "error: %s" % (exc,)
            if reply:
                print(reply, flush=True)
        else:
            while args.stay:
                time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        vb.stop()
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tabletop-board", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("deploy", help="copy firmware, protocol, profile and map; restart")
    d.add_argument("--board", choices=("pico", "esp32"), required=True)
    d.add_argument("--port", default=None)
    d.add_argument("--map", default=DEFAULT_MAP)
    d.add_argument("--dev", action="store_true", help="no watchdog (creates /devmode)")
    d.add_argument("--dry-run", action="store_true", help="print the mpremote commands only")
    d.add_argument("--source", action="store_true", help=".py sources instead of compiled .mpy")
    p = sub.add_parser("package", help="build the mip package (.mpy, profile, map) into a folder")
    p.add_argument("--board", choices=("pico", "esp32"), required=True)
    p.add_argument("--map", default=DEFAULT_MAP)
    p.add_argument("--out", required=True)
    p.add_argument("--source", action="store_true", help=".py sources instead of compiled .mpy")
    r = sub.add_parser("repl", help="open the board's REPL with mpremote")
    r.add_argument("--port", default=None)
    v = sub.add_parser("virtual", help="run a virtual board on a pty")
    v.add_argument("--map", default=DEFAULT_MAP)
    v.add_argument("--seed", type=int, default=None)
    v.add_argument("--stay", action="store_true", help="keep running after stdin closes")
    args = ap.parse_args(argv)
    return {"deploy": cmd_deploy, "package": cmd_package, "repl": cmd_repl,
            "virtual": cmd_virtual}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
