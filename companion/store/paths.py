"""Where the app keeps its saved games: a per-user data directory.

`TABLETOP_COMPANION_DATA` overrides it (tests, portable installs). Saved games are journal files
(`*.journal`) in `<data>/games`.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ENV_VAR = "TABLETOP_COMPANION_DATA"
APP_DIR_NAME = "tabletop-companion"


def data_dir() -> Path:
    over = os.environ.get(ENV_VAR)
    if over:
        return Path(over).expanduser()
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / APP_DIR_NAME


def games_dir(create: bool = True) -> Path:
    d = data_dir() / "games"
    if create:
        d.mkdir(parents=True, exist_ok=True)
    return d


EXPORTS_ENV = "TABLETOP_COMPANION_EXPORTS"
EXPORTS_FOLDER = "Tabletop Companion"


def _on_android() -> bool:
    return "ANDROID_ARGUMENT" in os.environ or "ANDROID_PRIVATE" in os.environ


def xdg_user_dir(key: str, home: Path | None = None) -> Path | None:
    """A folder of the XDG user dirs (key "DOCUMENTS", "DOWNLOAD"), as the desktop's file manager
    names it in ~/.config/user-dirs.dirs (XDG_DOCUMENTS_DIR="$HOME/Documents"); None when the
    file does not name it, or names the home folder itself (the spec's way to say "unset")."""
    home = home or Path.home()
    conf = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "user-dirs.dirs"
    try:
        text = conf.read_text(encoding="utf-8")
    except (OSError, UnicodeError):
        return None
    for line in text.splitlines():
        name, _, value = line.strip().partition("=")
        if name != f"XDG_{key}_DIR":
            continue
        value = value.strip().strip('"')
        if value.startswith("$HOME"):
            value = str(home) + value[len("$HOME"):]
        path = Path(value)
        if not path.is_absolute() or path == home:
            return None
        return path
    return None


def _android_dirs() -> list:
    """Android: the shared Documents folder, then Download (both seen by the Files app and over
    USB), then the app's own external folder (Android/data/<app>/files, writable without any
    permission), from the platform API through pyjnius."""
    out = []
    try:
        from jnius import autoclass  # python-for-android's Java bridge
        env = autoclass("android.os.Environment")
        for kind in (env.DIRECTORY_DOCUMENTS, env.DIRECTORY_DOWNLOADS):
            out.append(Path(env.getExternalStoragePublicDirectory(kind).getAbsolutePath()) / EXPORTS_FOLDER)
        activity = autoclass("org.kivy.android.PythonActivity").mActivity
        own = activity.getExternalFilesDir(None)
        if own is not None:
            out.append(Path(own.getAbsolutePath()) / "exports")
    except Exception:  # noqa: BLE001 - no bridge or an old API: the app's data folder still works
        pass
    return out


def export_dirs() -> list:
    """Where exports go, best first: a folder the player finds with the system's file manager.
    TABLETOP_COMPANION_EXPORTS when set; on Android the shared Documents, then Download folder
    (docs/android.md); on a desktop the documents folder (XDG on Linux), then Downloads, each
    with a "Tabletop Companion" folder, except when TABLETOP_COMPANION_DATA keeps the app in one
    folder (a portable install, the tests); last `<data>/exports`, which is always writable."""
    over = os.environ.get(EXPORTS_ENV)
    if over:
        return [Path(over).expanduser()]
    out = []
    if _on_android():
        out += _android_dirs()
    elif not os.environ.get(ENV_VAR):
        home = Path.home()
        for key, fallback in (("DOCUMENTS", "Documents"), ("DOWNLOAD", "Downloads")):
            found = xdg_user_dir(key, home) if sys.platform.startswith("linux") else None
            if found is None and (home / fallback).is_dir():
                found = home / fallback
            if found is not None:
                out.append(found / EXPORTS_FOLDER)
    out.append(data_dir() / "exports")
    return out


def announce_files(files) -> None:
    """Android: have the media scanner index new files, so the Files app and a computer on USB
    list them at once; nothing elsewhere (and nothing lost if the scan cannot run)."""
    if not _on_android():
        return
    try:
        from jnius import autoclass
        scanner = autoclass("android.media.MediaScannerConnection")
        activity = autoclass("org.kivy.android.PythonActivity").mActivity
        scanner.scanFile(activity, [str(f) for f in files], None, None)
    except Exception:  # noqa: BLE001 - the files are written; only the listing may lag
        pass


def shown_folder(path) -> str:
    """A folder as a player would look for it: "Documents/Tabletop Companion" under the home or
    the phone's shared storage, else the full path."""
    p = Path(path)
    for base in ([Path.home()] + ([Path("/storage/emulated/0"), Path("/sdcard")] if _on_android() else [])):
        try:
            return str(p.relative_to(base))
        except ValueError:
            continue
    return str(p)
