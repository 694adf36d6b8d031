"""Train the dice window classifier (companion/table/dice_windows.py) from generated photos.

    python tests/vision/train_dice_windows.py data  [--scenes N] [--focus] [--out F.npz]   (numpy, OpenCV)
    python tests/vision/train_dice_windows.py train [--data F.npz ...] [--init M.onnx]      (PyTorch, onnx)

`data` renders tuning photos only (seeds below dice_scenes.HELD_OUT_SEED, tuning and patterned
surfaces, never the held-out check cloth) and cuts windows with the reader's own `die_window`:
around each die's top face, shifted and scaled a little (a die found roughly is still read),
and turned at any angle; and windows centred off every die (on its side, between two dice that
touch, on the table) labelled 0, "no die here". `train` fits a small convolutional network on
them and writes companion/table/dice_windows.onnx, which the app runs with OpenCV's dnn module.
`data --focus` renders hard photos only, with more windows on the hard dice and "no die" windows
on the seam of two dice that touch; `train --init` trains a shipped model further on them
(docs/dice-photo.md lists the commands that made the shipped model).
PyTorch is needed only here: `pip install torch==2.13.0 onnx` in a separate environment.
"""
from __future__ import annotations

import argparse
import math
import pathlib
import random
import sys

import cv2
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

import dice_scenes as ds  # noqa: E402
from companion.table import dice_windows as dw  # noqa: E402

FIRST_SEED = 20_000  # training photos: far from the seeds the reader was tuned and checked on
FOCUS_SEED = 40_000  # the focus photos (`data --focus`): hard ones, past the first 9,000


def scene_for(i: int):
    """The i-th training photo: mostly hard ones, some standard, some on patterned tables."""
    seed = FIRST_SEED + i
    k = i % 10
    if k < 6:
        return ds.make_scene(seed, "hard")
    if k < 9:
        return ds.make_scene(seed, "standard")
    return ds.make_scene(seed, "hard" if i % 20 < 10 else "standard",
                         surface=ds.PATTERN_TUNING_SURFACES[i % 2])


def focus_scene_for(i: int):
    """The i-th focus photo: hard ones only, one in five on a patterned table."""
    seed = FOCUS_SEED + i
    return ds.make_scene(seed, "hard", surface=ds.PATTERN_TUNING_SURFACES[i % 2] if i % 5 == 4 else None)


def is_hard_die(d) -> bool:
    return d.touching or d.glare or bool(d.tilt) or d.colour not in ("white", "ivory")


def windows_of(scene, r: random.Random, per_die: int = 2, off_per_die: int = 1, ring_per_die: int = 1,
               table: int = 1, hard_extra: int = 0, seams: int = 0, toward_camera: int = 0):
    gray = cv2.cvtColor(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR),
                        cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    xs, ys = [], []
    centres = [(d.centre, d.side_px) for d in scene.dice]

    def off_dice(c, own=None):  # in the photo, off every die's top but `own`'s (its centre)
        return 0 <= c[0] < w and 0 <= c[1] < h and \
            not any(e is not own and math.dist(c, e) < 0.75 * s for e, s in centres)

    for d in scene.dice:
        for _ in range(per_die + (hard_extra if is_hard_die(d) else 0)):
            a, rad = r.uniform(0, 2 * math.pi), d.side_px * 0.3 * math.sqrt(r.random())
            c = (d.centre[0] + rad * math.cos(a), d.centre[1] + rad * math.sin(a))
            xs.append(dw.die_window(gray, c, d.side_px * r.uniform(0.8, 1.25), r.uniform(0, 360)))
            ys.append(d.value)
        placed, tries = 0, 0
        while placed < off_per_die and tries < 20:  # near this die, off every die's top
            tries += 1
            a, rad = r.uniform(0, 2 * math.pi), d.side_px * r.uniform(0.8, 1.6)
            c = (d.centre[0] + rad * math.cos(a), d.centre[1] + rad * math.sin(a))
            if not off_dice(c):
                continue
            xs.append(dw.die_window(gray, c, d.side_px * r.uniform(0.8, 1.25), r.uniform(0, 360)))
            ys.append(0)
            placed += 1
    for d in scene.dice:
        # half a side or more from its middle: a die's side face, its edge, the table by it
        # ("no die centred here", so a die is read only where its top face is)
        for _ in range(ring_per_die):
            a, rad = r.uniform(0, 2 * math.pi), d.side_px * r.uniform(0.5, 0.85)
            c = (d.centre[0] + rad * math.cos(a), d.centre[1] + rad * math.sin(a))
            if off_dice(c, d.centre):
                xs.append(dw.die_window(gray, c, d.side_px * r.uniform(0.8, 1.25), r.uniform(0, 360)))
                ys.append(0)
    for d in scene.dice:
        # a die's sides are seen on its way to the point below the camera (below the photo's
        # middle: the reader takes it 0.15 of the width below, a camera leaning 9 degrees; the
        # hard photos lean up to 25): a side there, foreshortened, shows pips like a top but is
        # "no die centred here", also seen at its top's size
        to_n = np.array([w / 2, h / 2 + 0.25 * w]) - np.asarray(d.centre)
        base = math.atan2(to_n[1], to_n[0])
        for _ in range(toward_camera):
            a, rad = base + math.radians(r.uniform(-30, 30)), d.side_px * r.uniform(0.6, 0.95)
            c = (d.centre[0] + rad * math.cos(a), d.centre[1] + rad * math.sin(a))
            if off_dice(c, d.centre):
                xs.append(dw.die_window(gray, c, d.side_px * r.uniform(0.8, 1.2), r.uniform(0, 360)))
                ys.append(0)
    for i, d in enumerate(scene.dice):
        # on the seam of two dice that touch, also seen at up to the two dice's size: "no die
        # centred here", so that two alike that touch are not read as one die between them
        for e in scene.dice[i + 1:]:
            side = (d.side_px + e.side_px) / 2
            if math.dist(d.centre, e.centre) > 1.4 * side:
                continue
            for _ in range(seams):
                mx = (d.centre[0] + e.centre[0]) / 2 + r.uniform(-0.1, 0.1) * side
                my = (d.centre[1] + e.centre[1]) / 2 + r.uniform(-0.1, 0.1) * side
                if all(math.dist((mx, my), f) >= 0.45 * s for f, s in centres):
                    xs.append(dw.die_window(gray, (mx, my), side * r.uniform(0.8, 1.8), r.uniform(0, 360)))
                    ys.append(0)
    sides = [d.side_px for d in scene.dice]
    for _ in range(table if sides else 0):  # anywhere on the table, away from the dice
        c = (r.uniform(0, w), r.uniform(0, h))
        if off_dice(c) and all(math.dist(c, e) >= s for e, s in centres):
            xs.append(dw.die_window(gray, c, float(np.median(sides)) * r.uniform(0.8, 1.25), r.uniform(0, 360)))
            ys.append(0)
    return xs, ys


def make_data(n_scenes: int, out: pathlib.Path, part: int = 0, parts: int = 1, start: int = 0,
              focus: bool = False, toward_camera: int = 0):
    cv2.setNumThreads(1)
    xs, ys = [], []
    for i in range(start + part, start + n_scenes, parts):
        if focus:
            a, b = windows_of(focus_scene_for(i), random.Random(FOCUS_SEED + i), hard_extra=2, seams=2,
                              toward_camera=toward_camera)
        else:
            a, b = windows_of(scene_for(i), random.Random(FIRST_SEED + i))
        xs += a
        ys += b
        if (i - start) % 500 == part:
            print(f"  {i - start}/{n_scenes} photos, {len(ys)} windows", flush=True)
    np.savez_compressed(out, x=np.stack(xs), y=np.array(ys, np.int64))
    print(f"{len(ys)} windows -> {out}")


def net_from_onnx(path: pathlib.Path, nn, torch):
    """The network of a shipped model, to train further: its exported file has each batch norm
    folded into the convolution before it, so the network rebuilt here has none."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(str(path))
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in model.graph.initializer}
    plain = {"Relu": nn.ReLU, "MaxPool": lambda: nn.MaxPool2d(2),
             "GlobalAveragePool": lambda: nn.AdaptiveAvgPool2d(1), "Flatten": nn.Flatten}
    layers = []
    for node in model.graph.node:  # the graph's layers in order, each with its own weights
        if node.op_type in plain:
            layers.append(plain[node.op_type]())
            continue
        w, b = weights[node.input[1]], weights[node.input[2]]
        if node.op_type == "Conv":
            layer = nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], padding=w.shape[2] // 2)
        else:  # Gemm: the last layer, dropout before it as in training
            layers.append(nn.Dropout(0.2))
            layer = nn.Linear(w.shape[1], w.shape[0])
        layer.weight.data, layer.bias.data = w, b
        layers.append(layer)
    return nn.Sequential(*layers)


def held_back_right(net, X, Y, val, torch) -> float:
    """The share of the held-back windows `val` the network reads right."""
    net.eval()
    with torch.no_grad():
        pv = torch.cat([net(X[val[i:i + 1024]]) for i in range(0, len(val), 1024)]).argmax(1)
    return float((pv == Y[val]).float().mean())


def train(data_paths, epochs: int, out: pathlib.Path, widths=(24, 48, 64, 96), init: pathlib.Path | None = None,
          max_lr: float = 3e-3):
    import torch
    from torch import nn

    torch.manual_seed(1)
    xs, ys = [], []
    for p in data_paths:
        z = np.load(p)
        xs.append(z["x"])
        ys.append(z["y"])
    x, y = np.concatenate(xs), np.concatenate(ys)
    print(f"{len(y)} windows, per class {np.bincount(y, minlength=7).tolist()}")
    X = torch.from_numpy(dw.normalise(x))
    Y = torch.from_numpy(y)
    n_val = len(y) // 20
    perm = torch.randperm(len(y))
    val, tr = perm[:n_val], perm[n_val:]
    a, b, c, e = widths
    net = net_from_onnx(init, nn, torch) if init else nn.Sequential(
        nn.Conv2d(1, a, 3, padding=1), nn.BatchNorm2d(a), nn.ReLU(), nn.MaxPool2d(2),  # 24 px
        nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(), nn.MaxPool2d(2),  # 12
        nn.Conv2d(b, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(2),  # 6
        nn.Conv2d(c, e, 3, padding=1), nn.BatchNorm2d(e), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(e, 7))
    opt = torch.optim.AdamW(net.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = epochs * math.ceil(len(tr) / 256)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps)
    if init:
        print(f"from {init}: held-back windows right {100 * held_back_right(net, X, Y, val, torch):.2f} %", flush=True)
    loss_f = nn.CrossEntropyLoss(label_smoothing=0.02)
    for ep in range(epochs):
        net.train()
        order = tr[torch.randperm(len(tr))]
        total = 0.0
        for i in range(0, len(order), 256):
            idx = order[i:i + 256]
            xb = X[idx]
            # a die's value is the same turned a quarter or mirrored
            k = int(torch.randint(0, 4, (1,)))
            xb = torch.rot90(xb, k, (2, 3))
            if torch.rand(1) < 0.5:
                xb = torch.flip(xb, (3,))
            loss = loss_f(net(xb), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        acc = held_back_right(net, X, Y, val, torch)
        print(f"epoch {ep + 1}/{epochs}: loss {total / len(tr):.4f}, held-back windows right {100 * acc:.2f} %",
              flush=True)
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 1, dw.WINDOW, dw.WINDOW), str(out), dynamo=False,
                      input_names=["window"], output_names=["logits"],
                      dynamic_axes={"window": {0: "n"}, "logits": {0: "n"}})
    print(f"-> {out} ({out.stat().st_size} bytes)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data")
    d.add_argument("--scenes", type=int, default=9000)
    d.add_argument("--out", type=pathlib.Path, default=pathlib.Path("dice_windows.npz"))
    d.add_argument("--start", type=int, default=0, help="the first photo's number")
    d.add_argument("--part", type=int, default=0, help="this process's share (with --parts)")
    d.add_argument("--parts", type=int, default=1)
    d.add_argument("--focus", action="store_true",
                   help="hard photos from FOCUS_SEED on, more windows on hard dice, seams of touching dice")
    d.add_argument("--toward-camera", type=int, default=0,
                   help="with --focus: this many 'no die' windows on each die's sides seen toward the camera")
    t = sub.add_parser("train")
    t.add_argument("--data", type=pathlib.Path, nargs="+", default=[pathlib.Path("dice_windows.npz")])
    t.add_argument("--epochs", type=int, default=8)
    t.add_argument("--out", type=pathlib.Path, default=dw.MODEL)
    t.add_argument("--init", type=pathlib.Path, help="train further from this model (ONNX) instead of from scratch")
    t.add_argument("--max-lr", type=float, default=3e-3)
    a = ap.parse_args(argv)
    if a.cmd == "data":
        make_data(a.scenes, a.out, a.part, a.parts, a.start, a.focus, a.toward_camera)
    else:
        train(a.data, a.epochs, a.out, init=a.init, max_lr=a.max_lr)


if __name__ == "__main__":
    main()
