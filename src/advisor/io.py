"""Writing output files atomically, refusing to clobber without --force.

A temp file in the target directory is written, flushed, fsynced and renamed over the target,
so a crash or a full disk never leaves a half-written memo behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import OutputError


def check_writable(path: str | Path, force: bool) -> Path:
    """Fail early (before any work) if ``path`` cannot be written; every OS refusal becomes one OutputError line."""
    try:
        return _check_writable(Path(path), force)
    except OSError as exc:
        raise OutputError(f"{shown(path)}: cannot be written ({exc.strerror or exc})") from None


def shown(path: str | Path, limit: int = 80) -> str:
    """A path as it may be echoed in a one-line message: control characters escaped, very long names shortened."""
    text = repr(str(path))[1:-1] if any(ord(ch) < 32 or ord(ch) == 127 for ch in str(path)) else str(path)
    return text if len(text) <= limit else text[: limit // 2] + "…" + text[-limit // 2:]


def _check_writable(p: Path, force: bool) -> Path:
    s = shown(p)
    if len(p.name.encode("utf-8", "surrogateescape")) > 255:
        raise OutputError(f"{s}: the file name is longer than 255 bytes; use a shorter name")
    if p.exists() and p.is_dir():
        raise OutputError(f"{s}: is a directory; give a file path")
    if p.exists() and not force:
        raise OutputError(f"{s}: already exists; pass --force to overwrite it")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.exists():
        raise OutputError(f"{s}: directory {shown(parent)} does not exist")
    if not parent.is_dir():
        raise OutputError(f"{s}: {shown(parent)} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{s}: directory {shown(parent)} is not writable")
    return p


def write_atomic(path: str | Path, text: str, force: bool = False) -> Path:
    p = check_writable(path, force)
    parent = p.parent if str(p.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise OutputError(f"{p}: cannot create a file in {parent} ({exc.strerror or exc})") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a memo should be as readable as any new file
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if p.exists() and not force:  # appeared while we were writing
            raise OutputError(f"{p}: already exists; pass --force to overwrite it")
        os.replace(tmp, p)
    except OSError as exc:
        raise OutputError(f"{p}: cannot write ({exc.strerror or exc})") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return p
