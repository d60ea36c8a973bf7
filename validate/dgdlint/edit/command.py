"""The edit commands' work, independent of argument parsing: convert files, fix files, and write the results
all at once or not at all. Returns exit codes (0 ok, 1 an error note or a file refused, or with --diff a file
the command would change, 2 usage)."""

from __future__ import annotations

import os
import stat
import sys

from dgdlint.edit.atomic import WriteError, write_all
from dgdlint.edit.notes import Note
from dgdlint.edit.roundtrip import EditableFile, open_text
from dgdlint.edit.shown_diff import print_diffs, print_utf8, secret_values, secrets_in, without_keys
from dgdlint.edit.source import EditError
from dgdlint.load import MAX_FILE_BYTES, byte_position
from dgdlint.report.text import one_line

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _read(path: str) -> str:
    """The file's text, decoded here from its bytes (stdin too, whatever the locale says of it): an EditError
    names the line of the first byte that is not UTF-8. At most `check`'s limit for one file is read (an endless
    stdin is not), and a larger file is refused."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                big = os.fstat(handle.fileno()).st_size > MAX_FILE_BYTES
                data = b"" if big else handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise EditError(path, 1, f"cannot read it ({error.strerror or error})") from None
    if path != "-" and big or len(data) > MAX_FILE_BYTES:
        raise EditError(path, 1, f"over the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit for one manifest file")
    if b"\x00" in data[:8192]:  # as `check` says it
        raise EditError(path, 1, "binary content (NUL bytes), not YAML text")
    try:
        return data.decode("utf-8")  # a byte-order mark stays, and is put back on write
    except UnicodeDecodeError as error:
        raise EditError(path, byte_position(data, error.start)[0],
                        f"not UTF-8 text (byte 0x{data[error.start]:02x})") from None


def _open_all(paths: list[str], notes: list[Note]) -> dict[str, EditableFile]:
    files: dict[str, EditableFile] = {}
    for path in paths:
        try:
            files[path] = open_text(path, _read(path))
        except EditError as error:
            notes.append(Note(error.file, error.line, "error", "edit-refused",
                              f"{error.message}; the file is left untouched"))
    return files


def _render_all(files: dict[str, EditableFile], notes: list[Note]) -> dict[str, str]:
    out = {}
    for path, edit in files.items():
        for document in edit.documents:
            for line in document.table.lost_lines(document.root) if document is not None and document.changed else []:
                notes.append(Note(path, document.chunk.start + line + 1, "warning", "edit-comment-dropped",
                                  "this comment belonged to something the edit left out; it is not in the result"))
        try:
            out[path] = edit.render()
        except EditError as error:
            # What was planned for the file is not done: no note may say it was.
            notes[:] = [note for note in notes if not (note.file == path and note.code == "fixed")]
            notes.append(Note(error.file, error.line, "error", "edit-refused",
                              f"{error.message}; the file is left untouched"))
    return out


def _once(paths: list[str]) -> list[str]:
    """The paths without repeats, a file named twice (`a.yaml` and `./a.yaml`, or a symbolic link to it) kept
    at its first name."""
    first: dict[str, str] = {}
    for path in paths:
        first.setdefault("-" if path == "-" else os.path.realpath(path), path)
    return list(first.values())


def _missing(paths: list[str], stdin_ok: bool) -> str | None:
    """Why the paths cannot be edited (a usage error), or None."""
    if not paths:
        return "give at least one FILE"
    for path in paths:
        if path == "-":
            if not stdin_ok:
                return "- (stdin) cannot be written in place"
            continue
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            return f"{path}: no such file" + (" (a broken symbolic link)" if os.path.islink(path) else "")
        except OSError as error:
            return f"{path}: cannot be read ({error.strerror or error})"
        if stat.S_ISDIR(mode):
            return f"{path}: is a directory; give the YAML files in it"
        if not stat.S_ISREG(mode):
            return f"{path}: is {_kind_of(mode)}, not a regular file; give a YAML file" + \
                (" (or - to read stdin)" if stdin_ok else "")
    return None


def _kind_of(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "a special file")


def _report(notes: list[Note], stream=None) -> None:
    """The notes on stderr; an NGC key a note would quote is not shown (the fixers withhold what they know to be
    secret; this catches a key written where none was expected)."""
    stream = stream or sys.stderr
    for note in sorted(notes, key=lambda n: (n.file, n.line)):
        print(without_keys(note.text()), file=stream)


def _write(texts: dict[str, str], notes: list[Note]) -> int:
    if any(n.severity == "error" for n in notes):
        print("dgdlint: nothing written: fix the errors above first (all files or none)", file=sys.stderr)
        return EXIT_FINDINGS
    try:
        write_all(texts)
    except WriteError as error:
        print(f"dgdlint: error: {error.path}: {error.reason}; nothing written", file=sys.stderr)
        return EXIT_FINDINGS
    for path in texts:
        print(f"dgdlint: wrote {one_line(str(path))}", file=sys.stderr)
    return EXIT_OK


def _nothing_to_convert(files: dict[str, EditableFile], to: str) -> str | None:
    """What to say when no file holds a graph to convert (their text passes through as it is), else None."""
    from dgdlint.edit.convert import GROUP, KIND, graph_places

    source = "v1alpha1" if to == "v1beta1" else "v1beta1"
    if not files or any(graph_places(d, source) for edit in files.values() for d in edit.documents):
        return None
    already = sum(len(graph_places(d, to)) for edit in files.values() for d in edit.documents)
    names = ", ".join("stdin" if path == "-" else path for path in files)
    return f"nothing to convert: no {GROUP}/{source} {KIND} in {names}" + \
        (f" ({already} {'is' if already == 1 else 'are'} already {GROUP}/{to})" if already else "")


def run_convert(paths: list[str], to: str, write: bool, diff: bool = False) -> int:
    """Converted YAML on stdout (exit 0), or the files rewritten (--write), or a unified diff (--diff: exit 1
    when a file would change, as `fix --diff`)."""
    from dgdlint.edit.convert import convert_file

    paths = _once(paths)  # a file (or stdin) named twice is read and converted once
    problem = "--diff and --write cannot be used together (--diff writes nothing)" if diff and write \
        else _missing(paths, stdin_ok=not write)
    if problem:  # said as every command says a usage error: `dgdlint COMMAND: error: ...`
        print(f"dgdlint convert: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    notes: list[Note] = []
    files = _open_all(paths, notes)
    nothing = _nothing_to_convert(files, to)
    for edit in files.values():
        notes += convert_file(edit, to)
    refused = {n.file for n in notes if n.severity == "error"}
    texts = _render_all({p: e for p, e in files.items() if p not in refused}, notes)
    _report(notes)
    failed = any(n.severity == "error" for n in notes)
    if nothing and not failed:  # not an error: objects that are not graphs pass through untouched
        print(f"dgdlint: {nothing}", file=sys.stderr)
    if write:
        return _write({p: t for p, t in texts.items() if files[p].changed}, notes)
    if diff:
        changed = {p: t for p, t in texts.items() if files[p].changed and t != files[p].text}
        print_diffs({p: files[p].text for p in changed}, changed, secrets_in(files))
        if changed:
            print(f"dgdlint: would convert {_count(len(changed), 'file')}; nothing written", file=sys.stderr)
        return EXIT_FINDINGS if failed or changed else EXIT_OK
    for index, path in enumerate(p for p in paths if p in texts):
        text = texts[path]
        if index and not text.startswith("---"):
            print_utf8("---\n")
        print_utf8(text if text.endswith(("\n", "\r")) or not text else text + "\n")
    return EXIT_FINDINGS if failed else EXIT_OK


def fix_texts(paths: list[str], notes: list[Note], rules=None, respect_annotations: bool = True,
              config=None, secrets: set[str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """(original texts, fixed texts) of the files whose fixes apply; notes say what was done and left. Only
    findings the policy keeps are fixed: a rule the configuration turns off, or an object that suppresses it
    with a reason, is left as it is."""
    from dgdlint.edit.fix import apply
    from dgdlint.edit.fixers import plans_for
    from dgdlint.engine import apply_policy, check_loaded
    from dgdlint.load import LoadResult, load_text
    from dgdlint.rules.hygiene import SECRET_ENV

    files = _open_all(paths, notes)
    loaded = LoadResult()
    for path, edit in files.items():
        load_text(path, edit.text, loaded)
    result = check_loaded(loaded)
    if secrets is not None:  # the values a diff must not show whatever they look like
        secrets.update(secret_values(result.model, SECRET_ENV))
    apply_policy(result, config, annotations=respect_annotations)
    reported = {(f.rule, f.object_ref) for f in result.findings}
    # A plan is made when a finding it answers is reported (one the policy keeps), on the object it edits
    # or on those it names as reported_on (a Job's fix answers its graphs' findings).
    plans = [p for p in plans_for(result.model, rules)
             if any((p.rule, obj.ref) in reported for obj in getattr(p, "reported_on", None) or (p.obj,))]
    seen, unique = set(), []
    for plan in plans:  # one edit per (object, container, what)
        key = (type(plan).__name__, plan.rule, plan.obj.ref, getattr(plan, "name", None),
               repr(getattr(plan, "container", None) and plan.container.path), getattr(plan, "path", None),
               getattr(plan, "paths", None), getattr(plan, "indexes", None))
        if key not in seen:
            seen.add(key)
            unique.append(plan)
    notes += apply(files, unique)
    texts = _render_all(files, notes)
    originals = {p: files[p].text for p in texts}
    return originals, {p: t for p, t in texts.items() if t != originals[p]}


def run_fix(paths: list[str], diff: bool, config=None, command: str = "fix") -> int:
    paths = _once(paths)  # a file named twice is fixed once
    problem = _missing(paths, stdin_ok=False)
    if problem:
        print(f"dgdlint {command}: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    notes: list[Note] = []
    secrets: set[str] = set()
    originals, fixed = fix_texts(paths, notes, config=config, secrets=secrets)
    failed = any(n.severity == "error" for n in notes)
    unwritten = None  # why nothing is written, when so
    if diff or failed:
        unwritten = "nothing written" if diff else "nothing written: fix the errors above first (all files or none)"
    elif fixed:
        try:
            write_all(fixed)
        except WriteError as error:
            unwritten = f"error: {error.path}: {error.reason}; nothing written"
    if unwritten:  # no note may call fixed what is not written: it would be
        notes = [Note(n.file, n.line, n.severity, "would-fix", n.message) if n.code == "fixed" else n for n in notes]
    _report(notes)
    if not fixed and not failed:
        print("dgdlint: nothing to fix", file=sys.stderr)
        return EXIT_OK
    if diff:  # a refused file (it does not parse, or holds what the round trip cannot keep) is no diff
        print_diffs(originals, fixed, secrets)
    if unwritten:
        done = sum(n.code == "would-fix" for n in notes)
        pending = f"would fix {_count(done, 'finding')} in {_count(len(fixed), 'file')}" if fixed else ""
        said = f"{unwritten} ({pending})" if unwritten.startswith("error") else \
            "; ".join(part for part in (pending, unwritten) if part)
        print(f"dgdlint: {said}", file=sys.stderr)
        return EXIT_FINDINGS  # with --diff as `ruff check --diff`: exit 1 while a fix is pending
    for path in fixed:
        print(f"dgdlint: wrote {one_line(str(path))}", file=sys.stderr)
    return EXIT_OK


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
