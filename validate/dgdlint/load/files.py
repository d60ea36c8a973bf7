"""Reading inputs: files, directories (recursive, YAML and JSON by suffix), `-` for stdin; bytes decoded to
text (UTF-8, a BOM, UTF-16) and handed to the YAML loader, every unreadable input a finding."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from dgdlint.load import fast
from dgdlint.load.common import MAX_FILE_BYTES, YAML_SUFFIXES, may_hold_marks
from dgdlint.load.quick import QuickDocument
from dgdlint.load.result import LoadResult, parse_finding


def byte_position(data: bytes, offset: int) -> tuple[int, int]:
    """The 1-based line and column of the byte at `offset` (an undecodable one, for a message)."""
    return data.count(b"\n", 0, offset) + 1, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def decode(file: str, data: bytes, result: LoadResult) -> str | None:
    """Bytes to text: UTF-8 (a BOM is fine), CRLF kept for libyaml; anything else is a finding."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    if b"\x00" in data[:8192]:
        result.findings.append(parse_finding(file, 1, 1, "binary content (NUL bytes), not YAML text",
                                             "Pass only YAML or JSON manifests.", rule="yaml-encoding"))
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = byte_position(data, error.start)
        result.findings.append(parse_finding(
            file, line, column, f"invalid UTF-8 (byte 0x{data[error.start]:02x})",
            "Save the file as UTF-8.", rule="yaml-encoding"))
        return None


def load_text(file: str, text: str, result: LoadResult | None = None) -> LoadResult:
    result = result if result is not None else LoadResult()
    result.files.append(file)
    if "{{" in text:
        result.template_syntax.add(file)
    if "apiVersion" in text and "kind" in text:
        result.manifest_like.add(file)
    documents = fast.read(text)
    if documents is None:
        from dgdlint.load.documents import build_documents  # here: PyYAML is imported only for a file that needs it

        build_documents(file, text, result)
    else:
        marks = may_hold_marks(text)
        result.documents += [QuickDocument(file, index, value, has_null=has_null, whole_floats=whole_floats,
                                           marks=marks, keys=keys, source=text)
                             for index, value, has_null, whole_floats, keys in documents]
    return result


def load_bytes(file: str, data: bytes, result: LoadResult | None = None) -> LoadResult:
    result = result if result is not None else LoadResult()
    if len(data) > MAX_FILE_BYTES:
        result.files.append(file)
        result.findings.append(parse_finding(
            file, 1, 1, f"file is {len(data) // (1024 * 1024)} MiB, over the {MAX_FILE_BYTES // (1024 * 1024)} "
            "MiB limit for one manifest file", "Split the file, or check that it is a manifest.",
            rule="yaml-limits"))
        return result
    text = decode(file, data, result)
    if text is None:
        result.files.append(file)
        return result
    return load_text(file, text, result)


class UsageError(Exception):
    """A path that does not exist or cannot be used at all: a usage error (exit 2)."""


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files to read: files as given, directories walked for YAML/JSON (symlink loops visited once)."""
    files: list[str] = []
    for raw in paths:
        if raw == "-":
            if "-" not in files:  # standard input is read once, however often it is named
                files.append("-")
            continue
        try:  # (one stat a path: a check of many files names each, and the workers' files come through here)
            is_dir = stat.S_ISDIR(os.stat(raw).st_mode)
        except (OSError, ValueError):  # missing, a broken link, out of reach: reading it says which
            if not os.path.lexists(raw):
                raise UsageError(f"{raw}: no such file or directory") from None
            is_dir = False
        if is_dir:
            files.extend(_walk(Path(raw)))
        else:
            files.append(raw)
    return files


def _walk(root: Path) -> list[str]:
    found: list[str] = []
    seen: set[str] = set()
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            real = os.path.realpath(directory)
        except OSError:
            continue
        if real in seen:
            continue
        seen.add(real)
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError:
            continue
        subdirectories = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir():
                    subdirectories.append(Path(entry.path))
                elif entry.name.lower().endswith(YAML_SUFFIXES):  # `.YAML` too
                    found.append(entry.path)
            except OSError:
                continue
        pending.extend(reversed(subdirectories))
    return sorted(found)


def load_paths(paths: Iterable[str], stdin=None, max_file_bytes: int | None = None, jobs: int | None = 1,
               meanwhile: Callable[[], None] | None = None) -> LoadResult:
    """Load every file under `paths` into one set. Unreadable files become findings. `jobs` other than 1 loads
    many files in worker processes (0 or None: one per CPU), running `meanwhile` here as they work
    (load.workers)."""
    from dgdlint.load.workers import load_files

    limit = max_file_bytes or MAX_FILE_BYTES
    return load_files(expand_paths(paths), lambda file, result: _load_file(file, result, limit, stdin), jobs,
                      meanwhile)


def _load_file(file: str, result: LoadResult, limit: int, stdin) -> None:
    if file == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(limit + 1)
        load_bytes("<stdin>", data, result)
        return
    try:
        info = os.stat(file)
        if not stat.S_ISREG(info.st_mode):
            result.files.append(file)
            result.findings.append(parse_finding(file, 1, 1, "not a regular file",
                                                 "Pass YAML files or directories.", rule="file-unreadable"))
            return
        if info.st_size > limit:
            result.files.append(file)
            result.findings.append(parse_finding(
                file, 1, 1, f"file is {info.st_size // (1024 * 1024)} MiB, over the "
                f"{limit // (1024 * 1024)} MiB limit for one manifest file",
                "Split the file, or check that it is a manifest.", rule="yaml-limits"))
            return
        with open(file, "rb") as handle:
            # As many bytes as the file has (asking for the limit's would allocate that much every time), and
            # the rest, to the limit, of a file that grew since.
            data = handle.read(info.st_size + 1)
            if len(data) > info.st_size:
                data += handle.read(limit + 1 - len(data))
    except OSError as error:
        result.files.append(file)
        result.findings.append(parse_finding(file, 1, 1, f"cannot read file: {error.strerror}",
                                             "Check the path and its permissions.", rule="file-unreadable"))
        return
    load_bytes(file, data, result)
