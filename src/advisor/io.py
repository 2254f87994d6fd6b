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
    """Fail early (before any work) if ``path`` cannot be written."""
    p = Path(path)
    if p.exists() and p.is_dir():
        raise OutputError(f"{p}: is a directory; give a file path")
    if p.exists() and not force:
        raise OutputError(f"{p}: already exists; pass --force to overwrite it")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.exists():
        raise OutputError(f"{p}: directory {parent} does not exist")
    if not parent.is_dir():
        raise OutputError(f"{p}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{p}: directory {parent} is not writable")
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
