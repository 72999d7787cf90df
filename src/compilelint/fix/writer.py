"""Safe writes of fixed files.

Each file is written to a temporary file in its own folder, flushed to disk, given the
original's permission bits, and renamed over the original (``os.replace``, atomic on POSIX and
Windows): a reader, or a run killed at any moment, sees the old file or the new one, never a
half-written one. The bytes are what libcst produced from the file's own bytes, so the encoding
(cookie or BOM) and the newline style are those of the original. A file whose contents changed
on disk since the fix stage read it is left alone and reported.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from dataclasses import dataclass

# Test hook: when set to a path, the writer writes half of the new contents to its temporary
# file, creates that path, and waits (so a test can kill the process mid-write).
PAUSE_ENV = "COMPILELINT_TEST_WRITE_PAUSE"
TMP_SUFFIX = ".compilelint-tmp"


@dataclass(frozen=True)
class WriteResult:
    path: str
    ok: bool
    reason: str = ""


def safe_write(path: str, expected: bytes, new: bytes) -> WriteResult:
    """Replace ``path``'s contents ``expected`` by ``new``; refuse if the file changed."""
    try:
        st = os.stat(path)
        with open(path, "rb") as fh:
            current = fh.read()
    except OSError as exc:
        return WriteResult(path, False, f"cannot read it again: {exc.strerror or exc}")
    if current != expected:
        return WriteResult(path, False, "it changed on disk since it was read; run fix again")
    if current == new:
        return WriteResult(path, True)
    real = os.path.realpath(path)  # write through a symlink to its target
    folder, name = os.path.split(real)
    _remove_stale(folder, name)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=TMP_SUFFIX, dir=folder)
    except OSError as exc:
        return WriteResult(path, False, f"cannot create a temporary file: {exc.strerror or exc}")
    try:
        with os.fdopen(fd, "wb") as fh:
            pause = os.environ.get(PAUSE_ENV)
            if pause:
                half = len(new) // 2
                fh.write(new[:half])
                fh.flush()
                os.fsync(fh.fileno())
                with open(pause, "w", encoding="utf-8") as marker:
                    marker.write(tmp)
                time.sleep(60)
                fh.write(new[half:])
            else:
                fh.write(new)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        with contextlib.suppress(OSError, AttributeError):
            os.chown(tmp, st.st_uid, st.st_gid)
        # last look: another program may have written the file while we prepared ours
        with open(real, "rb") as fh:
            if fh.read() != expected:
                os.unlink(tmp)
                return WriteResult(path, False, "it changed on disk while it was being fixed")
        os.replace(tmp, real)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return WriteResult(path, False, f"cannot write it: {exc.strerror or exc}")
    _fsync_dir(folder)
    return WriteResult(path, True)


def _fsync_dir(folder: str) -> None:
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _remove_stale(folder: str, name: str) -> None:
    """Temporary files of this file left by a killed run (older than a minute)."""
    prefix = f".{name}."
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name.startswith(prefix) and entry.name.endswith(TMP_SUFFIX):
                with contextlib.suppress(OSError):
                    if now - entry.stat().st_mtime > 60:
                        os.unlink(entry.path)
