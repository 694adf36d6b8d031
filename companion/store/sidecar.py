"""Files kept beside a save, `<save>.<kind>.json` (the table list, the list summary): never
the game itself, which is the journal alone."""
import json
import os
from pathlib import Path


def path(save_path, kind: str) -> Path:
    p = Path(save_path)
    return p.with_name(f"{p.stem}.{kind}.json")


def write_json(target: Path, doc, durable: bool) -> None:
    """Replace `target` with `doc` atomically (a temporary file, then rename); `durable`
    flushes it to the disk first. Raises OSError, leaving no temporary file behind."""
    tmp = target.with_name(target.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
