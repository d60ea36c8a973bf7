"""Writing edited files in place without ever leaving half a file: each new text goes to a temporary file in
the same directory (same mode as the original), and only when every one of them is written and synced are
they renamed over the originals. A failure before that removes the temporary files and writes nothing. A path
that is a symbolic link has the file it points to rewritten; the link stays a link."""

from __future__ import annotations

import os
import stat
import tempfile


class WriteError(Exception):
    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def write_all(texts: dict[str, str]) -> None:
    """Replace each file of `texts` with its text: all of them, or (on an error) none."""
    staged: list[tuple[str, str]] = []
    try:
        for path, text in texts.items():
            target = os.path.realpath(path)  # through a symbolic link: replacing the link would unlink it
            staged.append((_stage(target, text), target))
    except OSError as error:
        for temporary, _ in staged:
            _remove(temporary)
        raise WriteError(getattr(error, "filename", None) or "?", error.strerror or str(error)) from None
    except WriteError:
        for temporary, _ in staged:
            _remove(temporary)
        raise
    paths = list(texts)
    for index, (temporary, target) in enumerate(staged):
        try:
            os.replace(temporary, target)
        except OSError as error:
            for left, _ in staged[index:]:
                _remove(left)
            done = ", ".join(paths[:index]) or "none"
            raise WriteError(paths[index], f"{error.strerror or error} (already written: {done})") from None


def _stage(path: str, text: str) -> str:
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o644
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".dgdlint", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
    except BaseException:
        _remove(temporary)
        raise
    return temporary


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
