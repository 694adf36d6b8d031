"""`tabletop-companion read-dice PHOTO [PHOTO...] [--json] [--draw OUT.png]`: read the dice in
image files (JPEG or PNG) and print what was read, or why not. No Kivy; nothing is kept.

Exit status: 0 when every photo was read, 1 when one was declined (the reason is printed),
2 for a file that could not be opened.
"""
from __future__ import annotations

import argparse
import json
import sys

from companion.table.dice_photo import draw_reading, read_dice


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="tabletop-companion read-dice",
                                 description="Read the dice in photos (JPEG or PNG).")
    ap.add_argument("photos", nargs="+", metavar="PHOTO")
    ap.add_argument("--json", action="store_true", help="one JSON object per photo")
    ap.add_argument("--draw", metavar="OUT.png", help="write the (first) photo with the values drawn on each die")
    args = ap.parse_args(argv)
    status = 0
    for i, path in enumerate(args.photos):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            print(f"{path}: cannot open it ({exc.strerror or exc})", file=sys.stderr)
            status = 2
            continue
        r = read_dice(data)
        if args.json:
            print(json.dumps({"file": path, **r.to_dict()}))
        elif r.ok:
            print(f"{path}: {' '.join(map(str, r.values))} (confidence {r.confidence:.2f}, {len(r.dice)} "
                  f"{'die' if len(r.dice) == 1 else 'dice'}, {1000 * r.seconds:.0f} ms)")
        else:
            seen = ", ".join("?" if d.value is None else str(d.value) for d in r.dice)
            print(f"{path}: not read: {r.reason}" + (f" (seen: {seen})" if seen else ""))
        if not r.ok:
            status = max(status, 1)
        if args.draw and i == 0:
            png = draw_reading(data, r)
            if png is not None:
                with open(args.draw, "wb") as f:
                    f.write(png)
    return status


if __name__ == "__main__":
    sys.exit(main())
