"""Crash-safe, append-only session journal (SQLite, one transaction per action).

Game-agnostic: an action is a plain JSON-serialisable dict with a non-empty str ``"type"``.
This module deliberately imports nothing from the rules engine, Kivy or serial.

See ``docs/journal.md`` for the on-disk schema, the guarantees, the undo policy and recovery.

Typical use::

    with Journal.create("games/2026-05-09.journal", "civmint", setup, app_version) as j:
        seq = j.append({"type": "roll", "well": "well0", "value": 4}, "board")
        ...
    j = Journal.open(path)          # JournalCorrupt / JournalTooNew / NotAJournal on trouble
    for entry in j.actions():       # effective history, undo corrections applied
        engine.dispatch(entry.action)
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import math
import os
import sqlite3
import stat
import threading
from pathlib import Path
from typing import Callable, Iterable

__all__ = [
    "SCHEMA_VERSION", "SOURCES", "is_source", "JOURNAL_SUFFIX", "UNDO_TYPE",
    "Journal", "Entry", "JournalSummary", "BrokenJournal", "list_journals",
    "JournalError", "JournalCorrupt", "JournalTooNew", "NotAJournal", "UndoRefused",
    "JournalExists", "JournalNotFound", "JournalClosed", "JournalWriteError", "JournalReadOnly",
]

#: Version of the on-disk layout written by this module. A file with a larger number is refused.
SCHEMA_VERSION = 1
#: Who produced an action.
SOURCES = frozenset({"ui", "board", "system", "app", "camera"})  # app: a seat the app plays (old files
# lack it); camera: dice read from a photo and confirmed by the table
#: ... and a seat's own device: "phone:p3" (companion/phones; the seat, never its token)
SEAT_SOURCE_KINDS = frozenset({"phone"})


def is_source(source) -> bool:
    """A source the journal records: one of SOURCES, or "<kind>:<seat>" (SEAT_SOURCE_KINDS)."""
    if source.__class__ is not str:
        return False
    if source in SOURCES:
        return True
    kind, _, seat = source.partition(":")
    return kind in SEAT_SOURCE_KINDS and 2 <= len(seat) <= 3 and seat[0] == "p" and seat[1:].isdigit() \
        and seat[1] != "0" and seat[1:].isascii()
#: File name suffix that :func:`list_journals` looks for.
JOURNAL_SUFFIX = ".journal"
#: ``type`` of the correction row written by :meth:`Journal.undo`.
UNDO_TYPE = "_undo"
#: SQLite header ``application_id`` of a journal ("TCJ1").
APPLICATION_ID = 0x54434A31
FORMAT_NAME = "tabletop-companion-journal"

_SQLITE_MAGIC = b"SQLite format 3\x00"
_GENESIS = "0" * 32
_META_KEYS = ("format", "schema_version", "game", "setup", "created", "app_version")
#: Meta keys a journal may lack (written by later versions of the app; covered by the checksum).
_OPTIONAL_META_KEYS = ("data_version",)

_SCHEMA_SQL = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL            -- JSON-encoded value
);
CREATE TABLE entries (
    seq      INTEGER PRIMARY KEY,  -- 1, 2, 3 ... with no gaps
    source   TEXT NOT NULL,        -- 'ui' | 'board' | 'system' | 'app' | 'camera'
    created  TEXT NOT NULL,        -- ISO 8601 UTC, millisecond precision
    action   TEXT NOT NULL,        -- canonical JSON of the action dict
    checksum TEXT NOT NULL         -- chained sha256 prefix, see _row_checksum()
);
CREATE TRIGGER entries_no_update BEFORE UPDATE ON entries
    BEGIN SELECT RAISE(ABORT, 'journal entries are append-only'); END;
CREATE TRIGGER entries_no_delete BEFORE DELETE ON entries
    BEGIN SELECT RAISE(ABORT, 'journal entries are append-only'); END;
CREATE TRIGGER meta_no_update BEFORE UPDATE ON meta
    BEGIN SELECT RAISE(ABORT, 'journal meta is write-once'); END;
CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta
    BEGIN SELECT RAISE(ABORT, 'journal meta is write-once'); END;
"""

#: How a sensed action was read (a photo's confidence), beside its entry: created with the first
#: such row, in the same transaction as the entry; old files simply have none. Never replayed.
_SENSED_SQL = (
    "CREATE TABLE IF NOT EXISTS sensed (seq INTEGER PRIMARY KEY, detail TEXT NOT NULL, checksum TEXT NOT NULL)",
    "CREATE TRIGGER IF NOT EXISTS sensed_no_update BEFORE UPDATE ON sensed "
    "BEGIN SELECT RAISE(ABORT, 'journal entries are append-only'); END",
    "CREATE TRIGGER IF NOT EXISTS sensed_no_delete BEFORE DELETE ON sensed "
    "BEGIN SELECT RAISE(ABORT, 'journal entries are append-only'); END",
)


# --------------------------------------------------------------------------- errors


class JournalError(Exception):
    """Base class of every error this module raises about a journal file."""

    def __init__(self, path, message: str):
        self.path = str(path)
        super().__init__(message)


class NotAJournal(JournalError):
    """The file is not a journal at all (not SQLite, another SQLite database, empty...)."""

    def __init__(self, path, reason: str):
        self.reason = reason
        super().__init__(path, f"{path}: not a game journal ({reason})")


class JournalTooNew(JournalError):
    """The file was written by a newer version of the app (larger schema version)."""

    def __init__(self, path, found: int, supported: int = SCHEMA_VERSION):
        self.found = found
        self.supported = supported
        super().__init__(
            path,
            f"{path}: journal schema version {found} was written by a newer version of the app; "
            f"this app understands schema version {supported} at most. Update the app to open it.",
        )


class JournalCorrupt(JournalError):
    """The file is a damaged journal. ``recovered_actions`` is the effective history of the
    valid prefix (entries 1..``last_good_seq``); ``recovered_entries`` the raw rows of it."""

    def __init__(self, path, reason: str, last_good_seq: int = 0,
                 recovered_entries: list | None = None, recovered_actions: list | None = None):
        self.reason = reason
        self.last_good_seq = last_good_seq
        self.recovered_entries = list(recovered_entries or [])
        self.recovered_actions = list(recovered_actions or [])
        if last_good_seq:
            tail = (f"entries 1..{last_good_seq} are intact "
                    f"({len(self.recovered_actions)} actions); Journal.recover() can save them")
        else:
            tail = "no entries could be recovered"
        super().__init__(path, f"{path}: journal is damaged: {reason}; {tail}")


class UndoRefused(JournalError):
    """Nothing to undo, or the undo would cross a revealed chance action (dice roll...)."""

    def __init__(self, path, reason: str):
        self.reason = reason
        super().__init__(path, f"{path}: cannot undo: {reason}")


class JournalExists(JournalError, FileExistsError):
    """:meth:`Journal.create` / :meth:`Journal.recover` refuse to overwrite a file."""

    def __init__(self, path):
        super().__init__(path, f"{path}: a file with this name already exists; "
                               f"refusing to overwrite it")


class JournalNotFound(JournalError, FileNotFoundError):
    def __init__(self, path):
        super().__init__(path, f"{path}: no such journal file")


class JournalClosed(JournalError):
    def __init__(self, path):
        super().__init__(path, f"{path}: journal is closed")


class JournalWriteError(JournalError):
    """SQLite failed to write (disk full, file changed by another process...). Nothing
    was recorded by the failed call."""


class JournalReadOnly(JournalError):
    """The save is intact but lies in a read-only place (a write-protected file or folder, a
    read-only card): it can be read (``Journal.open(path, readonly=True)``) but not continued."""

    def __init__(self, path, why: str):
        self.why = why
        super().__init__(path, f"{path}: this save is in a read-only place ({why}); it is intact "
                               f"and can be viewed, but to continue the game copy it to a "
                               f"writable folder")


# --------------------------------------------------------------------------- data


@dataclasses.dataclass(frozen=True)
class Entry:
    """One journal row. ``action`` is a fresh dict on every call (mutating it is harmless)."""
    seq: int
    source: str
    action: dict
    created: str  # ISO 8601 UTC, e.g. '2026-05-09T07:35:25.123+00:00'


@dataclasses.dataclass(frozen=True)
class JournalSummary:
    """A healthy journal, for a 'resume game' screen."""
    path: str
    game: str
    setup: dict
    created: str
    updated: str  # time of the last entry (or ``created`` when there is none)
    action_count: int  # effective actions (undone ones not counted)
    app_version: str
    schema_version: int
    data_version: int = 1  # the game module's data version (1 for journals written before it was kept)
    # what reading it did first, in plain words (a foreign -journal set aside), for the app to
    # show once; an attribute, not a field: stored summaries (save_summary) keep the fields only
    notes = ()


@dataclasses.dataclass(frozen=True)
class BrokenJournal:
    """A journal file that cannot be opened as-is; ``reason`` is a human message."""
    path: str
    reason: str
    error: str  # exception class name: 'JournalCorrupt', 'JournalTooNew', 'NotAJournal'...
    last_good_seq: int = 0  # for JournalCorrupt: entries up to this one can be recovered


# --------------------------------------------------------------------------- helpers


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def _row_checksum(prev: str, seq: int, source: str, created: str, action_json: str) -> str:
    """Chained checksum: detects a changed, half-written, missing or reordered row."""
    h = hashlib.sha256()
    h.update(f"{prev}\n{seq}\n{source}\n{created}\n".encode())
    h.update(action_json.encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


def _meta_checksum(meta: dict) -> str:
    return hashlib.sha256(_canonical(meta).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{where}: {text!r} is not valid Unicode text (lone surrogate)") from None


def _decode_text(data: bytes) -> str:
    # Damaged bytes must not raise while reading; they decode to lone surrogates, which
    # then fail the checksum (computed over the original UTF-8 bytes).
    return data.decode("utf-8", "surrogateescape")


def _check_json_value(value, where: str, depth: int = 0) -> None:
    """Refuse what would not survive a JSON round trip unchanged in meaning."""
    if depth > 100:
        raise ValueError(f"{where}: nested too deeply")
    if isinstance(value, str):
        _check_text(value, where)
        return
    if value is None or isinstance(value, (bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{where}: {value!r} is not valid JSON")
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ValueError(f"{where}: key {k!r} is not a str (JSON object keys are strings)")
            _check_text(k, where)
            _check_json_value(v, f"{where}[{k!r}]", depth + 1)
        return
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_json_value(v, f"{where}[{i}]", depth + 1)
        return
    raise ValueError(f"{where}: {type(value).__name__} is not JSON-serialisable")


def _encode_action(action) -> str:
    if not isinstance(action, dict):
        raise ValueError(f"action must be a dict, not {type(action).__name__}")
    t = action.get("type")
    if not isinstance(t, str) or not t:
        raise ValueError(f"action needs a non-empty str 'type', got {t!r}")
    if t.startswith("_"):
        raise ValueError(f"action type {t!r}: types starting with '_' are reserved for the journal")
    _check_json_value(action, "action")
    try:
        return _canonical(action)
    except (TypeError, ValueError, RecursionError) as exc:  # pragma: no cover - belt and braces
        raise ValueError(f"action is not JSON-serialisable: {exc}") from None


def _check_source(source) -> None:
    if not is_source(source):
        raise ValueError(f"source must be one of {sorted(SOURCES)} or phone:<seat>, not {source!r}")


def _ro_uri(path: Path) -> str:
    return path.resolve().as_uri() + "?mode=ro"


def _connect(path: Path, readonly) -> sqlite3.Connection:
    if readonly:
        uri = _ro_uri(path) + ("&immutable=1" if readonly == "immutable" else "")
        conn = sqlite3.connect(uri, uri=True, isolation_level=None,
                               check_same_thread=False, timeout=5.0)
    else:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                               timeout=5.0)
    conn.text_factory = _decode_text
    return conn


# A raw row as stored: (seq, source, created, action_json, checksum)
_Row = tuple


def _entry(row: _Row) -> Entry:
    return Entry(row[0], row[1], json.loads(row[3]), row[2])


class _Scan:
    """Result of reading and verifying a journal file."""

    def __init__(self):
        self.meta: dict | None = None
        self.rows: list[_Row] = []       # the verified prefix
        self.effective: list[int] = []   # indexes into rows of the effective actions
        self.parsed: list[dict] = []     # each row's action, parsed once while verifying it
        # indexes of rows whose text an earlier row has too: their entry in `parsed` is that
        # earlier row's dict (parsed and checked once; a long game repeats a few hundred texts)
        self.repeats: list[int] = []
        self.problem: str | None = None  # first problem found (None: healthy)
        self.notes: list[str] = []  # what was done before reading (a foreign journal set aside)
        self.sensed: list = []  # raw (seq, detail, checksum) rows of the sensed table, if any

    def entries(self) -> list[Entry]:
        return [_entry(r) for r in self.rows]

    def actions(self) -> list[Entry]:
        return [_entry(self.rows[i]) for i in self.effective]


def _read_header(path: Path) -> bytes:
    # a FIFO, socket or device named like a save must not block or be read: stat first
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise JournalNotFound(path) from None
    except OSError as exc:
        raise JournalError(path, f"{path}: cannot read the file: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise NotAJournal(path, "it is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise NotAJournal(path, "it is not a regular file (a pipe, socket or device)")
    try:
        with open(path, "rb") as fh:
            return fh.read(100)
    except FileNotFoundError:
        raise JournalNotFound(path) from None
    except IsADirectoryError:
        raise NotAJournal(path, "it is a directory") from None
    except OSError as exc:
        raise JournalError(path, f"{path}: cannot read the file: {exc.strerror or exc}") from None


def _truncation_note(path: Path, header: bytes) -> str | None:
    """When the main file is shorter than its own header says, describe it (else None).

    Only trusted when no non-empty ``-wal`` file exists (after a clean close or a
    checkpoint the main file holds every page)."""
    if len(header) < 100:
        return None
    wal = Path(str(path) + "-wal")
    try:
        if wal.exists() and wal.stat().st_size > 0:
            return None
        size = path.stat().st_size
    except OSError:
        return None
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if header[24:28] != header[92:96]:
        return None  # in-header size not valid
    n_pages = int.from_bytes(header[28:32], "big")
    expected = n_pages * page_size
    if n_pages and size < expected:
        return f"the file is truncated ({size} of {expected} bytes)"
    return None


_WAL_MAGIC = (0x377F0682, 0x377F0683)


def _wal_checksum(data: bytes, big: bool, s0: int, s1: int) -> tuple[int, int]:
    words = memoryview(data).cast("I")
    if big != (os.sys.byteorder == "big"):
        import array
        arr = array.array("I", data)
        arr.byteswap()
        words = arr
    m = 0xFFFFFFFF
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & m
        s1 = (s1 + words[i + 1] + s0) & m
    return s0, s1


def _wal_problem(path: Path, header: bytes) -> str | None:
    """What is wrong with the write-ahead log beside ``path`` (None: nothing).

    This app keeps every confirmed action in the main file (rollback journal, written at each
    commit), so a ``-wal`` beside a save is either a save of an older version (header in WAL
    mode: its log must be whole) or a file that does not belong to it. SQLite would silently
    apply the valid part of any log it finds, and silently drop a damaged tail: both could
    show another, shorter game, so both are reported here before SQLite opens the file."""
    wal = Path(str(path) + "-wal")
    try:
        data = wal.read_bytes() if wal.exists() else b""
    except OSError as exc:
        return f"its write-ahead log {wal.name} cannot be read ({exc.strerror or exc})"
    if not data:
        return None
    in_wal_mode = header[18] == 2 and header[19] == 2
    if not in_wal_mode:
        return (f"a write-ahead log ({wal.name}, {len(data)} bytes) lies beside this save, which "
                f"never uses one: they do not belong together (move {wal.name} away to open "
                f"the save as it is)")
    if len(data) < 32:
        return f"its write-ahead log {wal.name} is damaged (truncated header)"
    magic, _ver, page_size, _ckpt, salt1, salt2, c1, c2 = \
        [int.from_bytes(data[i:i + 4], "big") for i in range(0, 32, 4)]
    if magic not in _WAL_MAGIC or page_size < 512 or page_size & (page_size - 1):
        return f"its write-ahead log {wal.name} is damaged (bad header)"
    big = magic & 1 == 1
    s0, s1 = _wal_checksum(data[:24], big, 0, 0)
    if (s0, s1) != (c1, c2):
        return f"its write-ahead log {wal.name} is damaged (header checksum)"
    size = 24 + page_size
    pos = 32
    bad_at = None
    frames = 0  # frames of this log whose checksums hold, in order
    committed = 0  # of which up to the last commit frame (its "database size" field not 0)
    db_pages = 0  # the database size that last commit gives
    while pos + size <= len(data):
        fh = data[pos:pos + 24]
        f_salt1, f_salt2 = int.from_bytes(fh[8:12], "big"), int.from_bytes(fh[12:16], "big")
        if (f_salt1, f_salt2) == (salt1, salt2):
            if bad_at is not None:
                # a frame of this log after a broken one: confirmed actions were in between
                return f"its write-ahead log {wal.name} is damaged (frame at byte {bad_at})"
            t0, t1 = _wal_checksum(fh[:8], big, s0, s1)
            t0, t1 = _wal_checksum(data[pos + 24:pos + size], big, t0, t1)
            if (t0, t1) != (int.from_bytes(fh[16:20], "big"), int.from_bytes(fh[20:24], "big")):
                bad_at = pos
            else:
                s0, s1 = t0, t1
                frames += 1
                if int.from_bytes(fh[4:8], "big"):
                    committed, db_pages = frames, int.from_bytes(fh[4:8], "big")
        pos += size
    # SQLite writes whole frames and ends every write with a commit frame; it reads the log up
    # to the last valid commit and silently ignores the rest. A log that ends any other way was
    # cut (a truncated copy) or damaged, and the actions after the cut are gone without a word
    cut = f"its write-ahead log {wal.name} is cut short or damaged"
    if bad_at is not None:
        return f"{cut} (its last frame, at byte {bad_at}, fails its checksum)"
    tail = len(data) - pos
    if tail and (tail < 16 or data[pos + 8:pos + 16] == data[16:24]):
        return f"{cut} ({len(data)} bytes: it ends {tail} bytes into a frame)"
    if frames > committed:
        return f"{cut} (it ends inside a write: {frames - committed} frames after its last commit)"
    mx = _wal_index_frames(Path(str(path) + "-shm"), data[16:24])
    if mx is not None and mx > committed:
        return f"{cut} (it holds {committed} committed frames; its index {wal.name[:-4]}-shm counted {mx})"
    if header[24:28] == header[92:96]:  # the save's own page count is valid
        own = int.from_bytes(header[28:32], "big")
        if committed and own > db_pages:
            return (f"{cut} (its last commit leaves {db_pages} pages; the save itself already "
                    f"has {own})")
    if committed:
        return _wal_foreign(path, wal.name)
    return None


_FOREIGN_WAL = "does not belong to this save"


def _wal_foreign(path: Path, wal_name: str) -> str | None:
    """A whole log that is another save's: nothing in a -wal names its database, and SQLite
    applies any valid one. A save only ever grows (append-only rows), so its own log read on top
    of it (a copy) gives the same game with the save's entries as a prefix; another save's log
    gives another game, other entries, or damage."""
    alone = _trial_scan(path, None)
    whole = _trial_scan(path, None, wal=True)
    if alone is None or alone.problem or alone.meta is None:
        return None  # nothing to compare with: the save needs its log (the checks above hold)
    why = None
    if whole is None or whole.meta is None:
        why = "SQLite cannot read the save with it"
    elif whole.meta != alone.meta:
        why = "it holds another game"
    elif whole.problem:
        why = "read with it the save is damaged: %s" % whole.problem
    elif [r[4] for r in whole.rows[:len(alone.rows)]] != [r[4] for r in alone.rows]:
        why = ("its entries do not continue the save's %d: it was written for another save"
               % len(alone.rows))
    if why is None:
        return None
    return (f"its write-ahead log {wal_name} {_FOREIGN_WAL} ({why}); move "
            f"{wal_name} away to open the save as it is")


def _wal_index_frames(shm: Path, salts: bytes) -> int | None:
    """mxFrame, the frames the wal-index (-shm) says are valid, when the -shm holds a complete
    header for a log with these salts (None otherwise). The index header is two identical
    48-byte copies in native byte order: iVersion, unused, iChange, isInit (u8), bigEndCksum
    (u8), szPage (u16), mxFrame, nPage, aFrameCksum[2], aSalt[2], aCksum[2]."""
    import struct
    try:
        with open(shm, "rb") as fh:
            head = fh.read(96)
    except OSError:
        return None
    if len(head) < 96 or head[:48] != head[48:96]:
        return None
    version, _u, _c, init, _b, _sz, mx, _n, _f1, _f2 = struct.unpack("=IIIBBHIIII", head[:32])
    if version != 3007000 or not init or head[32:40] != salts:
        return None
    return mx


# Rollback journal (SQLite file format, "The Rollback Journal"): an 8-byte magic, then big-endian
# u32s: page records in this segment (nRec), the checksum nonce, the database size in pages when
# the transaction began, the sector size (the header fills one sector), the page size. Records
# follow at offset sector size: page number u32, the page as it was, checksum u32 (the nonce
# plus every 200th byte of the page, from page_size - 200 down). Nothing in it names the
# database it was written for: SQLite plays back any such file lying beside a database.
_ROLLBACK_MAGIC = bytes.fromhex("d9d505f920a163d7")
# POSIX lock bytes SQLite's unix VFS uses: a RESERVED lock means a writer is inside a
# transaction, so its -journal is live, not hot (and SQLite will not play it back)
_RESERVED_BYTE = 0x40000001


def _reserved_lock_held(path: Path) -> bool:
    try:
        import fcntl
        import struct
        fd = os.open(path, os.O_RDONLY)
    except (ImportError, OSError):
        return False
    try:
        # struct flock on Linux: short l_type, short l_whence, off_t l_start, off_t l_len, pid_t
        query = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, _RESERVED_BYTE, 1, 0)
        got = fcntl.fcntl(fd, fcntl.F_GETLK, query)
        return struct.unpack("hhqqi4x", got)[0] != fcntl.F_UNLCK
    except (OSError, struct.error, ValueError):
        return False
    finally:
        os.close(fd)


def _rollback_header(data: bytes) -> dict | None:
    """The header of a rollback journal SQLite would play back (None: it would not)."""
    if len(data) < 28 or data[:8] != _ROLLBACK_MAGIC:
        return None
    n_rec, nonce, orig_pages, sector, page_size = \
        [int.from_bytes(data[i:i + 4], "big") for i in range(8, 28, 4)]
    return {"records": n_rec, "nonce": nonce, "orig_pages": orig_pages, "sector": sector,
            "page_size": page_size}


def _journal_page1_counter(jpath: Path, info: dict) -> int | None:
    """The file change counter in the journal's image of page 1 (the save's header when the
    cut-short write began), or None when it holds no valid image of page 1 (SQLite journals
    page 1 in a commit of a rollback-mode database, whose counter changes, but a write that
    spilled pages early may be cut before it)."""
    size = info["page_size"]
    step = 4 + size + 4
    try:
        with open(jpath, "rb") as fh:
            fh.seek(info["sector"])
            data = fh.read(step * 4096)  # a save's commit journals a handful of pages
    except (OSError, ValueError):
        return None
    for off in range(0, len(data) - step + 1, step):
        rec = data[off:off + step]
        page = rec[4:4 + size]
        cksum = info["nonce"]
        for i in range(size - 200, 0, -200):
            cksum += page[i]
        if cksum & 0xFFFFFFFF != int.from_bytes(rec[4 + size:], "big"):
            return None  # SQLite stops playing back here too
        if int.from_bytes(rec[:4], "big") == 1:
            return int.from_bytes(page[24:28], "big")
    return None


def _trial_scan(path: Path, journal: Path | None, wal: bool = False) -> _Scan | None:
    """Scan a copy of ``path`` (with ``journal`` beside it: SQLite plays it back on the copy;
    with its -wal when ``wal``: SQLite reads the log's committed frames)."""
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory(prefix="journal-trial-") as d:
        copy = Path(d) / path.name
        try:
            shutil.copyfile(path, copy)
            if journal is not None:
                shutil.copyfile(journal, str(copy) + "-journal")
            if wal:
                shutil.copyfile(str(path) + "-wal", str(copy) + "-wal")
            scan, conn = _scan(copy, readonly=journal is None and not wal, _trial=True)
            if conn is not None:
                conn.close()
            return scan
        except (JournalError, OSError, sqlite3.Error):
            return None


def _hot_journal_check(path: Path, header: bytes, move: bool = True) -> tuple[str | None, bool]:
    """A rollback journal beside ``path`` that is not its own is set aside before SQLite sees
    it. Returns (note for the player or None, True when it must be ignored in place).

    SQLite plays back whatever valid journal it finds beside a database: one left by another
    crash (a backup of the save restored next to an old leftover) rewrites pages of the save
    with pages of another moment and ruins it. So the playback is first tried on a copy and
    compared with the save as it stands. The journal is the save's own when the save's page
    size is the journal's and the playback gives a verified save that is the save as it
    stands, or that minus its last entry (a commit cut short after the new pages reached the
    file), or when the save as it stands is damaged and the playback repairs it (a commit cut
    short while the pages were being written); and when the file change counter in its image
    of page 1 is the save's, or one less (the cut-short commit wrote page 1). Anything else is
    not its own."""
    jpath = Path(str(path) + "-journal")
    try:
        with open(jpath, "rb") as fh:
            jhead = fh.read(28)
    except OSError:
        return None, False
    info = _rollback_header(jhead)
    if info is None or _reserved_lock_held(path):
        return None, False  # SQLite would not play it back, or a writer is using it
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    why = None
    counter = _journal_page1_counter(jpath, info) if info["page_size"] == page_size else None
    saved = int.from_bytes(header[24:28], "big")
    if info["page_size"] != page_size:
        why = f"its page size {info['page_size']} is not the save's {page_size}"
    elif counter is not None and saved not in (counter, (counter + 1) & 0xFFFFFFFF):
        # its own journal was written when the save's counter was `counter`; the interrupted
        # commit may have written the save's page 1 (counter + 1), nothing more
        why = f"it was written at change {counter} of a save, this save is at change {saved}"
    else:
        as_is = _trial_scan(path, None)
        played = _trial_scan(path, jpath)
        sums = lambda s: [r[4] for r in s.rows]  # noqa: E731
        if as_is is None or as_is.problem:
            if played is None or (played.problem and as_is is not None
                                  and len(played.rows) < len(as_is.rows)):
                why = "playing it back would not repair the save"
        elif played is None or played.problem:
            why = "playing it back would damage the save (%s)" % (
                played.problem if played else "SQLite could not read the result")
        elif played.meta != as_is.meta:
            why = "it was written for another game"
        elif sums(played) not in (sums(as_is), sums(as_is)[:-1]):
            why = ("it was written at another moment: playing it back would turn the save's "
                   f"{len(as_is.rows)} entries into {len(played.rows)}")
    if why is None:
        return None, False
    if not move:  # the caller only reads (recover): ignored in place, the files untouched
        return (f"a rollback journal {jpath.name} lies beside this save that does not belong to "
                f"it ({why}); it was ignored"), True
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S")
    aside = Path(f"{jpath}.set-aside-{stamp}")
    n = 1
    while os.path.lexists(aside):
        n += 1
        aside = Path(f"{jpath}.set-aside-{stamp}-{n}")
    try:
        os.rename(jpath, aside)
        _fsync_dir(path.parent)
    except OSError as exc:
        return (f"a rollback journal {jpath.name} lies beside this save that does not belong to "
                f"it ({why}); it could not be moved away ({exc.strerror or exc}), so the save "
                f"was read as it is, ignoring it"), True
    return (f"a rollback journal {jpath.name} lay beside this save that does not belong to it "
            f"({why}); it was moved to {aside.name} and the save opened as it was"), False


def _writable_problem(path: Path) -> str | None:
    """Why ``path`` cannot be written here (None: it can): the file or its folder (SQLite
    writes a rollback journal beside the file at every commit)."""
    if not os.access(path, os.W_OK):
        return "the file is write-protected"
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return f"the folder {path.parent} is write-protected"
    try:
        st = os.statvfs(path)
        if st.f_flag & getattr(os, "ST_RDONLY", 1):
            return "the file system is mounted read-only"
    except (OSError, AttributeError):
        pass
    return None


def _scan(path: Path, readonly: bool, _trial: bool = False, move_foreign: bool = True
          ) -> tuple[_Scan, sqlite3.Connection | None]:
    """Open ``path`` and verify everything. Raises NotAJournal / JournalTooNew /
    JournalNotFound directly; corruption is reported in ``scan.problem`` with the valid
    prefix loaded. Returns the open connection (caller closes it), or None when the file
    could only be salvaged (``scan.problem`` is then set)."""
    header = _read_header(path)
    if len(header) == 0:
        raise NotAJournal(path, "the file is empty")
    if not _SQLITE_MAGIC.startswith(header[:16]):  # the magic, or (short file) a prefix of it
        raise NotAJournal(path, "it is not an SQLite database")
    if len(header) < 72:
        raise NotAJournal(path, f"only {len(header)} bytes: too short to be a journal "
                                f"(truncated SQLite header)")
    ours_by_header = int.from_bytes(header[68:72], "big") == APPLICATION_ID
    if len(header) < 100:
        raise JournalCorrupt(path, f"the file is truncated to {len(header)} bytes "
                                   f"(inside the SQLite header)")
    if ours_by_header and not _trial:
        wal_problem = _wal_problem(path, header)
        if wal_problem:
            # before SQLite opens it: it would apply the valid part silently (and, opened for
            # writing, fold it into the save and delete the evidence). What a copy of both
            # gives is the prefix that can be recovered; the files themselves stay untouched
            # (a log that is not the save's own is left out: the save alone is the prefix)
            own_log = _FOREIGN_WAL not in wal_problem
            scan = _trial_scan(path, None, wal=own_log) or _Scan()
            scan.problem = wal_problem
            if scan.meta is None:
                raise JournalCorrupt(path, wal_problem)
            return scan, None
    truncation = _truncation_note(path, header)
    if readonly and header[18] == 2 and not os.path.exists(str(path) + "-wal") \
            and _writable_problem(path):
        readonly = "immutable"  # a WAL-mode save on read-only media: nothing to merge
    note, ignore = (None, False) if _trial else _hot_journal_check(path, header, move_foreign)
    if ignore:
        readonly = "immutable"  # a foreign journal that could not be moved: never played back
    try:
        hot = not ignore and os.path.getsize(str(path) + "-journal") > 0
    except OSError:
        hot = False
    if readonly and hot and not _writable_problem(path):
        # a write cut short (crash): SQLite must roll it back before anyone can read the
        # file, which a read-only connection cannot do; only the unconfirmed write is undone
        readonly = False

    scan = _Scan()
    if note:
        scan.notes.append(note)
    try:
        conn = _connect(path, readonly)
    except sqlite3.Error as exc:
        raise JournalError(path, f"{path}: cannot open: {exc}") from None
    try:
        _scan_conn(path, conn, scan, ours_by_header)
    except _Unreadable as exc:
        conn.close()
        if not ours_by_header:
            raise NotAJournal(path, f"SQLite cannot read it: {exc}") from None
        # A journal SQLite refuses to read as a whole (typically: shorter than its header
        # says). Salvage what we can through a read-only connection that trusts the file size.
        scan = _salvage(path, ours_by_header)
        scan.problem = f"SQLite cannot read the database: {exc}"
        conn = None
    except BaseException:
        conn.close()
        raise
    else:
        if scan.problem:
            better = _salvage(path, ours_by_header)
            if len(better.rows) > len(scan.rows):
                scan.rows, scan.effective, scan.parsed = better.rows, better.effective, better.parsed
    if truncation and scan.problem is None:
        scan.problem = truncation
    elif truncation:
        scan.problem = f"{truncation}: {scan.problem}"
    return scan, conn


class _Unreadable(Exception):
    """SQLite cannot read even the schema of the file."""


def _salvage(path: Path, ours_by_header: bool) -> _Scan:
    """Best-effort read of the valid prefix of a damaged journal. ``writable_schema`` on a
    read-only connection makes SQLite use the real file size instead of refusing a file
    shorter than its header says; nothing can be written through this connection."""
    scan = _Scan()
    try:
        conn = _connect(path, readonly=True)
    except sqlite3.Error as exc:
        raise JournalCorrupt(path, f"SQLite cannot open the file: {exc}") from None
    try:
        conn.execute("PRAGMA writable_schema=ON")
        _scan_conn(path, conn, scan, ours_by_header)
    except (_Unreadable, sqlite3.DatabaseError, UnicodeError) as exc:
        raise JournalCorrupt(path, f"SQLite cannot read the database: {exc}") from None
    finally:
        conn.close()
    return scan


def _scan_conn(path: Path, conn: sqlite3.Connection, scan: _Scan, ours_by_header: bool) -> None:
    # 1. identity and schema version (read first: a newer schema may differ in everything else)
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        has_meta = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
    except (sqlite3.DatabaseError, UnicodeError) as exc:
        raise _Unreadable(str(exc)) from None
    if app_id != APPLICATION_ID and not ours_by_header:
        raise NotAJournal(path, "it is an SQLite database of another application")
    if not has_meta:
        raise JournalCorrupt(path, "the meta table is missing")
    raw_meta: dict = {}
    try:
        for key, value in conn.execute("SELECT key, value FROM meta"):
            raw_meta[key] = value
    except (sqlite3.DatabaseError, UnicodeError) as exc:
        raise JournalCorrupt(path, f"the meta table cannot be read: {exc}") from None
    try:
        version = json.loads(raw_meta["schema_version"])
        if not isinstance(version, int) or isinstance(version, bool):
            raise ValueError(version)
    except (KeyError, ValueError, TypeError):
        raise JournalCorrupt(path, "the schema version is missing or unreadable") from None
    if version > SCHEMA_VERSION:
        raise JournalTooNew(path, version)
    if version < 1:
        raise JournalCorrupt(path, f"invalid schema version {version}")

    # 2. meta contents and checksum
    try:
        meta = {k: json.loads(raw_meta[k]) for k in _META_KEYS}
        meta.update({k: json.loads(raw_meta[k]) for k in _OPTIONAL_META_KEYS if k in raw_meta})
        stored = json.loads(raw_meta["checksum"])
    except (KeyError, ValueError, TypeError) as exc:
        raise JournalCorrupt(path, f"the meta table is incomplete or unreadable ({exc})") from None
    if meta["format"] != FORMAT_NAME:
        raise NotAJournal(path, f"unknown format {meta['format']!r}")
    dv = meta.get("data_version", 1)
    if stored != _meta_checksum(meta) or not isinstance(meta["game"], str) \
            or not isinstance(meta["setup"], dict) or not isinstance(dv, int) or isinstance(dv, bool):
        raise JournalCorrupt(path, "the meta table (game, setup...) fails its checksum")
    scan.meta = meta

    # 3. SQLite's own structural check
    problem = None
    try:
        result = [r[0] for r in conn.execute("PRAGMA quick_check(5)")]
        if result != ["ok"]:
            problem = "SQLite integrity check failed: " + "; ".join(map(str, result))
    except (sqlite3.DatabaseError, UnicodeError) as exc:
        problem = f"SQLite integrity check failed: {exc}"

    # 4. every row, in order; stop at the first bad one and keep the prefix
    row_problem = _load_rows(conn, scan)
    try:  # how sensed actions were read: a note beside them (checked when asked for)
        scan.sensed = conn.execute("SELECT seq, detail, checksum FROM sensed ORDER BY seq").fetchall()
    except (sqlite3.DatabaseError, UnicodeError):  # none written yet (or unreadable: a note only)
        scan.sensed = []
    scan.problem = row_problem or problem
    if row_problem and problem:
        scan.problem = f"{row_problem} ({problem})"


_ROWS_SQL = "SELECT seq, source, created, action, checksum FROM entries ORDER BY seq"
#: json.loads without its Python wrapper (same decoder, same options); see _parse_action
_scan_json = json.JSONDecoder().scan_once


def _parse_action(text: str):
    """json.loads(text), faster for the canonical JSON this module writes: the C scanner alone
    when it reads the whole text; anything else (whitespace, a BOM, damage, deep nesting) goes
    to json.loads itself, so every row gets exactly json.loads's answer or error."""
    try:
        value, end = _scan_json(text, 0)
        if end == len(text):
            return value
    except Exception:  # StopIteration, JSONDecodeError, RecursionError: json.loads decides
        pass
    return json.loads(text)


def _load_rows(conn: sqlite3.Connection, scan: _Scan) -> str | None:
    """Read and verify every row in one pass (the chain of checksums, the sources, each action
    parsed once: the parsed dicts are kept for the first actions() / entries())."""
    # Fast path: SQLite's own strict UTF-8 decoding (every row this app writes is valid UTF-8)
    # and all rows fetched at once. Damaged bytes or an unreadable page raise here; the rows are
    # then read again one by one with the lenient decoder, which reports exactly what and where.
    saved = conn.text_factory
    conn.text_factory = str
    try:
        return _verify_rows(conn.execute(_ROWS_SQL).fetchall(), scan)
    except (sqlite3.DatabaseError, ValueError):
        pass
    finally:
        conn.text_factory = saved
    scan.rows.clear()
    scan.effective.clear()
    scan.parsed.clear()
    scan.repeats.clear()
    readable, error = [], None
    try:
        for row in conn.execute(_ROWS_SQL):
            readable.append(row)
    except (sqlite3.DatabaseError, ValueError) as exc:
        error = exc
    # the rows before the one SQLite cannot read are verified as ever: a bad one among them is
    # the first problem; else the read error after the last of them
    problem = _verify_rows(readable, scan)
    if problem is None and error is not None:
        return f"SQLite cannot read past entry {len(scan.rows)}: {error}"
    return problem


def _verify_rows(rows: list, scan: _Scan) -> str | None:
    """Add the verified prefix of `rows` to `scan` (empty before); the first problem, or None."""
    prev = _GENESIS
    effective = scan.effective
    parsed = scan.parsed
    repeats = scan.repeats
    known = {}  # action text -> its dict, already parsed and found to be an action (not an undo)
    sha256 = hashlib.sha256
    problem = None
    i = 0
    for row in rows:
        seq, source, created, action_json, checksum = row
        if seq != i + 1:
            problem = f"entry {i + 1} is missing (found entry {seq} instead)"
            break
        if source.__class__ is not str or created.__class__ is not str \
                or action_json.__class__ is not str or checksum.__class__ is not str:
            problem = f"entry {seq} has a column of the wrong type"
            break
        # _row_checksum in one call: the same bytes when the whole text is valid UTF-8;
        # otherwise _row_checksum itself (lone surrogates from damaged bytes)
        try:
            data = f"{prev}\n{seq}\n{source}\n{created}\n{action_json}".encode()
        except UnicodeEncodeError:
            try:
                own = _row_checksum(prev, seq, source, created, action_json)
            except ValueError as exc:  # damaged bytes in the source or the time: unreadable
                problem = f"SQLite cannot read past entry {i}: {exc}"
                break
        else:
            own = sha256(data).hexdigest()[:32]
        if checksum != own:
            problem = f"entry {seq} fails its checksum (changed or half-written)"
            break
        if source not in SOURCES and not is_source(source):
            problem = f"entry {seq} has an unknown source {source!r}"
            break
        action = known.get(action_json)
        if action is not None:  # the same text as an earlier row: the same answer to every check
            repeats.append(i)
            effective.append(i)
        else:
            try:
                action = _parse_action(action_json)
            except ValueError:
                problem = f"entry {seq} is not valid JSON"
                break
            if not isinstance(action, dict) or not isinstance(action.get("type"), str):
                problem = f"entry {seq} is not an action"
                break
            if action["type"] == UNDO_TYPE:
                if not effective or rows[effective[-1]][0] != action.get("target"):
                    problem = f"entry {seq} undoes {action.get('target')!r}, which is not the latest action"
                    break
                effective.pop()
            else:
                known[action_json] = action
                effective.append(i)
        parsed.append(action)
        prev = checksum
        i += 1
    scan.rows.extend(rows if i == len(rows) else rows[:i])
    return problem


def _raise_if_corrupt(path: Path, scan: _Scan) -> None:
    if scan.problem:
        raise JournalCorrupt(path, scan.problem,
                             last_good_seq=scan.rows[-1][0] if scan.rows else 0,
                             recovered_entries=scan.entries(),
                             recovered_actions=scan.actions())


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_sqlite_files(base: Path) -> None:
    """Delete ``base`` and its rollback/WAL/shared-memory companions, where present."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.unlink(str(base) + suffix)
        except FileNotFoundError:
            pass


def _set_rollback_mode(conn: sqlite3.Connection, path: Path) -> None:
    """Rollback journal (DELETE): each commit is written into the main file itself, so the
    file copied alone holds every confirmed action (a WAL would keep the latest ones in a
    side file until a checkpoint). A save of an older version in WAL mode is checkpointed
    and converted here."""
    mode = conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]
    if mode.lower() != "delete":
        raise JournalWriteError(path, f"{path}: SQLite refused the rollback journal ({mode})")


def _write_new_file(path: Path, meta: dict, rows: Iterable[_Row], extra_meta: dict) -> None:
    """Build a complete journal in a hidden temporary file next to ``path`` and link it into
    place atomically, refusing to overwrite. A crash leaves either nothing at ``path`` or a
    complete journal (plus possibly a stray hidden temp file)."""
    if os.path.lexists(path):
        raise JournalExists(path)
    directory = path.parent
    tmp = directory / f".{path.name}.creating-{os.getpid()}-{threading.get_ident()}"
    _remove_sqlite_files(tmp)
    try:
        conn = sqlite3.connect(str(tmp), isolation_level=None)
        try:
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
            conn.executescript(_SCHEMA_SQL)  # temp file: atomicity comes from the link below
            conn.execute("BEGIN")
            stored = dict(meta)
            stored["checksum"] = _meta_checksum(meta)
            stored.update(extra_meta)
            conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)",
                             [(k, _canonical(v)) for k, v in stored.items()])
            conn.executemany(
                "INSERT INTO entries(seq, source, created, action, checksum) VALUES (?,?,?,?,?)",
                rows)
            conn.execute("COMMIT")
            _set_rollback_mode(conn, path)
        finally:
            conn.close()
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise JournalExists(path) from None
        except OSError:
            # file systems without hard links: best effort non-overwriting rename
            if os.path.lexists(path):
                raise JournalExists(path) from None
            os.rename(tmp, path)
        _fsync_dir(directory)
    except sqlite3.Error as exc:
        raise JournalWriteError(path, f"{path}: cannot create the journal: {exc}") from None
    finally:
        _remove_sqlite_files(tmp)


# --------------------------------------------------------------------------- Journal


class Journal:
    """An open journal. Create with :meth:`create`, :meth:`open` or :meth:`recover`."""

    def __init__(self, path: Path, conn: sqlite3.Connection, scan: _Scan):
        # private: use the class methods
        self._path = path
        self._conn = conn
        self._meta = scan.meta
        self._rows: list[_Row] = scan.rows
        self._effective: list[int] = scan.effective
        # the actions parsed while verifying, row by row, never handed out yet: the first full
        # actions() / entries() / replay_actions() takes them (each call still gets dicts no
        # one else holds); later calls, and any call after a write, parse the rows again
        self._parsed: list[dict] | None = scan.parsed
        self._repeats: list[int] = scan.repeats  # rows of `_parsed` that share an earlier row's dict
        self._lock = threading.RLock()
        self._readonly: str | None = None
        self.notes: list[str] = list(scan.notes)  # e.g. a foreign -journal set aside on open
        self._sensed: list = list(scan.sensed)  # (seq, detail, checksum) as stored

    # ---- construction

    @classmethod
    def create(cls, path, game: str, setup: dict, app_version: str, data_version: int = 1) -> "Journal":
        """Create a new journal file; refuses to overwrite an existing file (JournalExists).
        `data_version` is the game module's (GameModule.data_version), kept to refuse a save of a
        newer game data version with a clear reason."""
        path = Path(path)
        if not isinstance(game, str) or not game:
            raise ValueError(f"game must be a non-empty str, not {game!r}")
        if not isinstance(setup, dict):
            raise ValueError(f"setup must be a dict, not {type(setup).__name__}")
        _check_json_value(setup, "setup")
        if not isinstance(app_version, str):
            raise ValueError(f"app_version must be a str, not {app_version!r}")
        if not isinstance(data_version, int) or isinstance(data_version, bool) or data_version < 1:
            raise ValueError(f"data_version must be a positive int, not {data_version!r}")
        meta = {
            "format": FORMAT_NAME, "schema_version": SCHEMA_VERSION, "game": game,
            "setup": json.loads(_canonical(setup)), "created": _now(), "app_version": app_version,
            "data_version": data_version,
        }
        _write_new_file(path, meta, [], {})
        return cls.open(path)

    @classmethod
    def open(cls, path, readonly: bool = False) -> "Journal":
        """Open and fully verify an existing journal (every row's checksum, SQLite quick_check,
        the write-ahead log of an older save).

        Raises JournalNotFound, NotAJournal, JournalTooNew, JournalCorrupt (whose
        ``recovered_actions`` / ``last_good_seq`` describe the valid prefix), or
        JournalReadOnly for an intact save in a read-only place (``readonly=True`` opens it
        for reading: appending then raises JournalReadOnly)."""
        path = Path(path)
        _read_header(path)  # JournalNotFound / NotAJournal (a directory) first
        why = _writable_problem(path)
        if readonly or why:
            scan, conn = _scan(path, readonly=True)
            if conn is not None:
                conn.close()
            _raise_if_corrupt(path, scan)
            if not readonly:
                raise JournalReadOnly(path, why)
            j = cls(path, None, scan)
            j._readonly = why or "opened for reading"
            return j
        scan, conn = _scan(path, readonly=False)
        if scan.problem:
            if conn is not None:
                conn.close()
            _raise_if_corrupt(path, scan)
        try:
            conn.execute("PRAGMA busy_timeout=5000")
            _set_rollback_mode(conn, path)
            conn.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as exc:
            conn.close()
            raise JournalError(path, f"{path}: cannot open for writing: {exc}") from None
        except BaseException:
            conn.close()
            raise
        return cls(path, conn, scan)

    @classmethod
    def recover(cls, path, new_path) -> "Journal":
        """Write ``new_path`` with every entry of ``path`` up to the last good one (same
        game, setup, sequence numbers, timestamps and undo corrections) and open it. The
        original file is only read. Works on healthy journals too (a verified copy).

        Raises JournalExists if ``new_path`` exists; NotAJournal / JournalTooNew, or
        JournalCorrupt when even the journal's meta data (game, setup) is unreadable."""
        path, new_path = Path(path), Path(new_path)
        if os.path.lexists(new_path):
            raise JournalExists(new_path)
        scan, conn = _scan(path, readonly=True, move_foreign=False)
        if conn is not None:
            conn.close()
        meta = dict(scan.meta)
        extra = {"recovered_from": path.name, "recovered_at": _now(),
                 "recovered_reason": scan.problem or "healthy copy"}
        _write_new_file(new_path, meta, scan.rows, extra)
        return cls.open(new_path)

    # ---- properties

    @property
    def path(self) -> Path:
        return self._path

    @property
    def meta(self) -> dict:
        """``{game, setup, created, app_version, schema_version, data_version}`` (a fresh copy)."""
        m = self._meta
        return {"game": m["game"], "setup": json.loads(_canonical(m["setup"])),
                "created": m["created"], "app_version": m["app_version"],
                "schema_version": m["schema_version"], "data_version": m.get("data_version", 1)}

    @property
    def closed(self) -> bool:
        return self._conn is None and self._readonly is None

    @property
    def readonly(self) -> str | None:
        """Why this journal cannot be written (None: it can)."""
        return self._readonly

    @property
    def last_seq(self) -> int:
        """Sequence number of the last raw entry (0 when empty)."""
        with self._lock:
            return self._rows[-1][0] if self._rows else 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._effective)

    def summary(self) -> "JournalSummary":
        """What list_journals would say of this file now, from memory (no re-read)."""
        with self._lock:
            return _summary(self._path, self._meta, self._rows, self._effective)

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self)} actions"
        return f"<Journal {str(self._path)!r} {self._meta['game']} {state}>"

    # ---- reading

    def _take_parsed(self, shared: bool = False) -> list[dict]:
        """Each row's action as a dict no caller holds: the ones parsed while opening, the first
        time (then forgotten), else parsed again. Rows with the same text share one dict there:
        unless `shared`, each repeat gets its own (parsed again)."""
        parsed, self._parsed = self._parsed, None
        if parsed is None or len(parsed) != len(self._rows):
            return [json.loads(r[3]) for r in self._rows]
        if self._repeats and not shared:
            rows = self._rows
            for i in self._repeats:  # verified at open: json.loads's answer, by its scanner
                parsed[i] = _parse_action(rows[i][3])
        return parsed

    def actions(self, last: int | None = None) -> list[Entry]:
        """The effective history, oldest first (actions removed by undo left out); only the
        latest `last` of them when given (only those are parsed)."""
        with self._lock:
            if last:
                return [_entry(self._rows[i]) for i in self._effective[-last:]]
            rows, parsed = self._rows, self._take_parsed()
            return [Entry(rows[i][0], rows[i][1], parsed[i], rows[i][2]) for i in self._effective]

    def replay_actions(self, shared: bool = False) -> list[tuple[int, str, dict]]:
        """``(seq, source, action)`` of the effective history, oldest first: what actions()
        gives, without building an Entry per action (a resume replays thousands). With
        `shared`, actions of the same text may be one dict (read them, never change them):
        a long game repeats a few hundred texts, which are then parsed once (Session.resume)."""
        with self._lock:
            rows, parsed = self._rows, self._take_parsed(shared)
            return [(rows[i][0], rows[i][1], parsed[i]) for i in self._effective]

    def entries(self, last: int | None = None) -> list[Entry]:
        """The raw append-only log, including ``_undo`` correction rows; only the latest `last`
        rows when given (only those are parsed: what an undo just wrote, read back at once)."""
        with self._lock:
            if last:
                return [_entry(r) for r in self._rows[-last:]]
            parsed = self._take_parsed()
            return [Entry(r[0], r[1], a, r[2]) for r, a in zip(self._rows, parsed)]

    # ---- writing

    def append(self, action: dict, source: str, sensed: dict | None = None) -> int:
        """Record one action durably (committed and fsynced before returning); returns its seq.

        `sensed`: how the action was read (a JSON dict, e.g. a photo's confidence), kept beside
        the entry in the same transaction (`sensed()`), never part of the action.

        ValueError (nothing written) for a bad source or an action that is not a dict with a
        non-empty str 'type' (not starting with '_') and JSON-serialisable contents."""
        _check_source(source)
        action_json = _encode_action(action)
        sensed_json = None
        if sensed is not None:
            if not isinstance(sensed, dict):
                raise ValueError(f"sensed must be a dict, not {type(sensed).__name__}")
            _check_json_value(sensed, "sensed")
            sensed_json = _canonical(sensed)
        return self._write(source, action_json, undoes=None, sensed=sensed_json)

    def sensed(self) -> dict:
        """{seq: detail} of the entries written with `sensed` (a detail whose checksum does not
        match its entry is left out: it is a note, the entry stands without it)."""
        with self._lock:
            rows = list(self._sensed)
            sums = {r[0]: r[4] for r in self._rows}
            out = {}
            for seq, detail, checksum in rows:
                if seq not in sums or not isinstance(detail, str) \
                        or checksum != _row_checksum(sums[seq], seq, "sensed", "", detail):
                    continue
                try:
                    out[seq] = json.loads(detail)
                except ValueError:
                    continue
            return out

    def undo(self, is_chance: Callable[[dict], bool], source: str = "ui") -> Entry:
        """Remove the latest effective action by appending ``{"type": "_undo", "target": seq}``.

        Returns the Entry of the action that was undone. Raises UndoRefused when there is
        nothing to undo, or when the latest effective action is at or before the latest
        action for which ``is_chance(action)`` is true (a revealed roll is never undone,
        nor anything before it)."""
        _check_source(source)
        with self._lock:
            self._check_open()
            why = self.undo_refusal(is_chance)
            if why is not None:
                raise UndoRefused(self._path, why)
            target_row = self._rows[self._effective[-1]]
            self._write(source, _canonical({"type": UNDO_TYPE, "target": target_row[0]}),
                        undoes=target_row[0])
            return _entry(target_row)

    def undo_refusal(self, is_chance: Callable[[dict], bool], back: int = 1) -> str | None:
        """Why `undo` would refuse now (None: it would undo the latest effective action; with
        `back`, the latest `back` of them one after another). Reads back only from the end, so
        a screen can ask after every action."""
        with self._lock:
            if len(self._effective) < max(1, back):
                return "there is no action to undo"
            target_seq = self._rows[self._effective[-max(1, back)]][0]
            # every non-correction row at or after the target (the target itself and
            # any already-undone actions after it)
            for row in reversed(self._rows):
                if row[0] < target_seq:
                    break
                action = json.loads(row[3])
                if action.get("type") == UNDO_TYPE:
                    continue
                if is_chance(action):
                    what = "the latest action" if row[0] == target_seq else f"action {row[0]}"
                    return (f"{what} ({action.get('type')!r}, #{row[0]}) revealed a chance "
                            f"result; actions up to it are final")
            return None

    def _write(self, source: str, action_json: str, undoes: int | None, sensed: str | None = None) -> int:
        with self._lock:
            self._check_open()
            conn = self._conn
            prev_seq = self._rows[-1][0] if self._rows else 0
            prev_sum = self._rows[-1][4] if self._rows else _GENESIS
            seq = prev_seq + 1
            created = _now()
            row = (seq, source, created, action_json,
                   _row_checksum(prev_sum, seq, source, created, action_json))
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    last = conn.execute(
                        "SELECT seq, checksum FROM entries ORDER BY seq DESC LIMIT 1").fetchone()
                    if (last or (0, _GENESIS)) != (prev_seq, prev_sum):
                        raise JournalWriteError(
                            self._path, f"{self._path}: the file was changed by another "
                                        f"writer since it was opened; reopen it")
                    conn.execute("INSERT INTO entries(seq, source, created, action, checksum)"
                                 " VALUES (?,?,?,?,?)", row)
                    if sensed is not None:
                        for sql in _SENSED_SQL:
                            conn.execute(sql)
                        sensed_row = (seq, sensed, _row_checksum(row[4], seq, "sensed", "", sensed))
                        conn.execute("INSERT INTO sensed(seq, detail, checksum) VALUES (?,?,?)", sensed_row)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                why = _writable_problem(self._path)
                if why or "readonly" in str(exc):  # e.g. the card was write-locked meanwhile
                    raise JournalReadOnly(self._path, why or str(exc)) from None
                raise JournalWriteError(
                    self._path, f"{self._path}: could not record the action: {exc}") from None
            self._rows.append(row)
            if sensed is not None:
                self._sensed.append(sensed_row)
            self._parsed = None  # handed-out-once cache: only for the rows read at open
            if undoes is None:
                self._effective.append(len(self._rows) - 1)
            else:
                self._effective.pop()
            return seq

    # ---- lifecycle

    def _check_open(self) -> None:
        if self._readonly is not None:
            raise JournalReadOnly(self._path, self._readonly)
        if self._conn is None:
            raise JournalClosed(self._path)

    def close(self) -> None:
        with self._lock:
            self._readonly = None
            if self._conn is not None:
                try:
                    self._conn.close()
                finally:
                    self._conn = None

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# --------------------------------------------------------------------------- listing


def _summarise(path: Path) -> JournalSummary | BrokenJournal:
    try:
        scan, conn = _scan(path, readonly=True)
        if conn is not None:
            conn.close()
        _raise_if_corrupt(path, scan)
    except JournalError as exc:
        return BrokenJournal(str(path), str(exc), type(exc).__name__,
                             getattr(exc, "last_good_seq", 0))
    except Exception as exc:  # never let one file hide the others
        return BrokenJournal(str(path), f"{path}: cannot be read ({exc})", type(exc).__name__)
    return _summary(path, scan.meta, scan.rows, scan.effective, scan.notes)


def _summary(path, meta: dict, rows, effective, notes=()) -> JournalSummary:
    summary = JournalSummary(
        path=str(path), game=meta["game"], setup=meta["setup"], created=meta["created"],
        updated=rows[-1][2] if rows else meta["created"],
        action_count=len(effective), app_version=meta["app_version"],
        schema_version=meta["schema_version"], data_version=meta.get("data_version", 1))
    if notes:
        object.__setattr__(summary, "notes", tuple(notes))
    return summary


def file_stamp(path) -> list | None:
    """[size, mtime_ns, ctime_ns, inode] of a journal at rest, or None while a rollback journal
    or write-ahead log lies beside it (or it cannot be read): an equal stamp later means the
    file was not written in between (the change time cannot be set back by a program)."""
    p = Path(path)
    try:
        if any(os.path.lexists(f"{p}{tail}") for tail in ("-journal", "-wal")):
            return None
        st = os.stat(p)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def list_journals(directory, pattern: str = "*" + JOURNAL_SUFFIX, known=None
                  ) -> list[JournalSummary | BrokenJournal]:
    """Every journal file (``pattern``, default ``*.journal``) in ``directory``, read-only.

    Healthy journals come first, most recently updated first; broken ones (BrokenJournal,
    with a human ``reason``) follow, by name. A missing directory gives an empty list.
    ``known(path)`` may return a JournalSummary stored for that very file (see file_stamp),
    which is then listed without opening it; opening it later verifies it in full."""
    good, broken = [], []
    for p in sorted(journal_files(directory, pattern)):
        item = summarise(p, known)
        (good if isinstance(item, JournalSummary) else broken).append(item)
    good.sort(key=lambda s: (s.updated, s.path), reverse=True)
    return good + broken


def journal_files(directory, pattern: str = "*" + JOURNAL_SUFFIX) -> list[Path]:
    """The journal files in ``directory`` (none opened), most recently written first (by the
    file's or its write-ahead log's modification time): the order of list_journals, cheaply
    guessed, so a list can show the newest games before it has read the others."""
    def written(p):
        times = []
        for f in (p, p.with_name(p.name + "-wal")):
            try:
                times.append(f.stat().st_mtime_ns)
            except OSError:
                pass
        return max(times, default=0)
    try:
        paths = [p for p in Path(directory).glob(pattern) if not p.name.startswith(".")]
    except OSError:
        return []
    return sorted(paths, key=lambda p: (written(p), str(p)), reverse=True)


def summarise(path, known=None) -> JournalSummary | BrokenJournal:
    """One journal of a list (read-only): ``known(path)``'s stored summary, else read from it."""
    return (known and known(str(path))) or _summarise(Path(path))


def listing_order(item):
    """Sort key of list_journals' order: healthy journals newest first, then broken ones by name."""
    if isinstance(item, JournalSummary):
        return (0, _Reversed((item.updated, item.path)))
    return (1, item.path)


class _Reversed:
    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __lt__(self, other):
        return self.key > other.key

    def __eq__(self, other):
        return self.key == other.key
