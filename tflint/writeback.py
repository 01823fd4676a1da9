"""``--fix`` writes the fixed text back into the file it read, not over it.

Writing in place keeps what makes the file the user's: its owner and group, its mode
(a read-only file is refused, as an editor would), its hard links (every name of the
file sees the fix), its extended attributes and ACLs. Before a byte is written the file
is read again through the same open descriptor and compared with what was linted: an
edit saved in between is never overwritten (:class:`FileChanged`). Space for a longer
text is reserved first, so a full disk fails before the file is touched; if writing
still fails part way, the original bytes are put back.
"""

from __future__ import annotations

import errno
import os
import stat


class FileChanged(OSError):
    """The file is no longer what was read and fixed: it is left alone."""


def write_back(path: str, original: bytes, new: bytes) -> None:
    """Replace the contents of the file at ``path`` (read as ``original``) by ``new``.
    Raises :class:`FileChanged` or another OSError; the file is then unchanged."""
    fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            raise PermissionError(errno.EACCES, "the file is read-only")
        if _read_all(fd, st.st_size) != original:
            raise FileChanged(errno.EAGAIN, "the file changed since it was read; not written")
        if len(new) > len(original) and hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(fd, 0, len(new))
            except OSError as e:
                if e.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                    raise
        try:
            _write_all(fd, new)
        except OSError:
            try:
                _write_all(fd, original)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)


def _read_all(fd: int, size: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, max(size + 1, 1 << 16))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _write_all(fd: int, data: bytes) -> None:
    os.lseek(fd, 0, os.SEEK_SET)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.ftruncate(fd, len(data))
    os.fsync(fd)
