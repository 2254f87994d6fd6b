"""Writing output files atomically, refusing to clobber without --force.

A temp file in the target directory is written, flushed, fsynced and renamed over the target,
so a crash or a full disk never leaves a half-written memo behind.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from advisor.base.errors import OutputError
from advisor.base.i18n import _


def check_writable(path: str | Path, force: bool) -> Path:
    """Fail early (before any work) if ``path`` cannot be written; every OS refusal becomes one OutputError line."""
    text = str(path)
    if not text.strip():
        raise OutputError(_("the output path is empty; give a file path"))
    if text.endswith(("/", os.sep)) or text.endswith(("/.", "/..")) or text in (".", ".."):
        raise OutputError(_("{path}: names a directory; give a file path such as {dir}/memo.md", path=shown(text), dir=shown(text.rstrip("/") or ".")))
    try:
        return _check_writable(Path(path), force)
    except OSError as exc:
        raise OutputError(_("{path}: cannot be written ({reason})", path=shown(path), reason=exc.strerror or exc)) from None


def shown(path: str | Path, limit: int = 80) -> str:
    """A path as it may be echoed in a one-line message: control characters escaped, very long names shortened."""
    text = repr(str(path))[1:-1] if any(ord(ch) < 32 or ord(ch) == 127 for ch in str(path)) else str(path)
    return text if len(text) <= limit else text[: limit // 2] + "…" + text[-limit // 2:]


def _check_writable(p: Path, force: bool) -> Path:
    s = shown(p)
    if len(p.name.encode("utf-8", "surrogateescape")) > 255:
        raise OutputError(_("{path}: the file name is longer than 255 bytes; use a shorter name", path=s))
    present = os.path.lexists(p)  # a dangling symlink is something the user has, too
    if present and p.is_dir():
        raise OutputError(_("{path}: is a directory; give a file path", path=s))
    if present and not force:
        raise OutputError(_("{path}: already exists; pass --force to overwrite it", path=s))
    if present and not p.is_symlink() and not stat.S_ISREG(os.lstat(p).st_mode):
        raise OutputError(_("{path}: is not a regular file (a device, FIFO or socket); refusing to replace it", path=s))
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.exists():
        raise OutputError(_("{path}: directory {dir} does not exist", path=s, dir=shown(parent)))
    if not parent.is_dir():
        raise OutputError(_("{path}: {dir} is not a directory", path=s, dir=shown(parent)))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(_("{path}: directory {dir} is not writable", path=s, dir=shown(parent)))
    return p


class Staged:
    """An output written and fsynced beside its target but not yet in place: ``commit()`` puts it there in one step,
    ``discard()`` removes it. A command with several outputs stages them all before committing any."""

    def __init__(self, path: Path, tmp: str, force: bool) -> None:
        self.path, self.tmp, self.force = path, tmp, force

    def commit(self) -> Path:
        s = shown(self.path)
        try:
            if self.force:
                os.replace(self.tmp, self.path)
            else:
                try:
                    os.link(self.tmp, self.path)
                except FileExistsError:
                    raise OutputError(_("{path}: already exists; pass --force to overwrite it", path=s)) from None
        except OSError as exc:
            raise OutputError(_("{path}: cannot write ({reason})", path=s, reason=exc.strerror or exc), reason=str(exc.strerror or exc)) from None
        finally:
            self.discard()
        return self.path

    def discard(self) -> None:
        if os.path.lexists(self.tmp):
            os.unlink(self.tmp)


def stage_atomic(path: str | Path, text: str, force: bool = False) -> Staged:
    """Write ``text`` to a temp file beside ``path`` and fsync it; nothing appears at ``path`` until ``commit()``."""
    p = check_writable(path, force)
    s = shown(p)
    parent = p.parent if str(p.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:200]}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise OutputError(_("{path}: cannot create a file in {dir} ({reason})", path=s, dir=shown(parent), reason=exc.strerror or exc),
                          reason=str(exc.strerror or exc)) from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask  # mkstemp makes 0600; a memo should be as readable as any new file
        if force and os.path.lexists(p) and not p.is_symlink():
            mode = stat.S_IMODE(os.lstat(p).st_mode)  # --force replaces the content, not the permissions
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException as exc:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(_("{path}: cannot write ({reason})", path=s, reason=exc.strerror or exc), reason=str(exc.strerror or exc)) from None
        raise
    return Staged(p, tmp, force)


def write_atomic(path: str | Path, text: str, force: bool = False) -> Path:
    """Write a temp file beside the target, fsync it, then put it in place in one step: with ``force`` a rename over
    the old file (keeping its permissions), without it a hard link, which fails if anything appeared at the path
    meanwhile — so two writers can never both win. The temp file is removed on every exit, SIGTERM included
    (the CLI turns SIGTERM into an exception)."""
    return stage_atomic(path, text, force).commit()


def commit_all(staged: list[Staged]) -> list[Path]:
    """Put several staged outputs in place, all or none: if one cannot be put in place, those put before it are taken
    back — a file that was not there is removed, a file --force replaced is restored from a hard link kept until all are
    in (issue 36: `ask --save A -o B` left A behind when B failed, and said 'wrote A' above the error)."""
    done: list[tuple[Staged, str | None]] = []
    try:
        for s in staged:
            old = _keep_old(s)
            try:
                s.commit()
            except BaseException:
                if old:
                    os.unlink(old)
                raise
            done.append((s, old))
    except BaseException:
        for s, old in reversed(done):
            try:
                if old:
                    os.replace(old, s.path)
                else:
                    os.unlink(s.path)
            except OSError:
                pass
        for s in staged:
            s.discard()
        raise
    for _s, old in done:
        if old:
            try:
                os.unlink(old)
            except OSError:
                pass
    return [s.path for s in staged]


def _keep_old(s: Staged) -> str | None:
    """A hard link to the file ``s`` will replace (with --force), to put it back if a later output fails; None where
    there is none, or the file system cannot link (the output is then replaced without a way back, as write_atomic does)."""
    if not s.force or not os.path.lexists(s.path):
        return None
    old = f"{s.tmp}.old"
    try:
        os.link(s.path, old, follow_symlinks=False)
    except OSError:
        return None
    return old


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file: the same path however spelled ('x', './x', a symlink to it), or two hard links."""
    try:
        if os.path.realpath(a) == os.path.realpath(b):
            return True
        return os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b)
    except (OSError, ValueError):
        return False
