"""Reading many files in worker processes (`--jobs`; dgdlint.parallel shares the tasks).

Reading YAML is most of what a check of many files costs, and each file is read on its own: the files are
cut into short runs, and this process and its workers each read the next run when they are free. A worker
marshals each run as soon as it has read it (plain values: marshal reads them back faster than pickle, and
runs no code; a document's positions as bytes of their own, read only when a finding asks for a line), so
that writing the bytes is all that is left when it is done. The runs are put back in file order: the result
is the one a single process gives. Meanwhile this process does what the check needs next (imports, the
schema stage)."""

from __future__ import annotations

import marshal
import pickle
from collections.abc import Callable

from dgdlint.load.quick import QuickDocument
from dgdlint.load.result import Document, LoadResult
from dgdlint.parallel import MAX_TASKS, share, worker_count

# Fewer files than this are read here: a worker (a fork, the results sent back) costs about what it saves.
MIN_FILES = 32
FILES_PER_RUN = 8


def load_files(files: list[str], load_one: Callable[[str, LoadResult], None], jobs: int | None = 1,
               meanwhile: Callable[[], None] | None = None) -> LoadResult:
    """Every file loaded by `load_one(file, result)`, shared with worker processes where `jobs` allows and
    the files are many (standard input is read here). `meanwhile` runs here while the workers read; without
    them, before the first file is read (dgdlint.parallel.share)."""
    workers = worker_count(jobs) if len(files) >= MIN_FILES and "-" not in files else 0
    size = max(FILES_PER_RUN, -(-len(files) // MAX_TASKS))
    runs = [files[start:start + size] for start in range(0, len(files), size)]
    parts = share(len(runs), lambda task: _load_run(runs[task], load_one), workers, meanwhile, send=marshal.dumps,
                  receive=lambda payload: {task: unpack(marshal.loads(part))
                                           for task, part in marshal.loads(payload).items()},
                  ready=lambda result: marshal.dumps(pack(result)))
    result = LoadResult()
    for part in parts:
        result.extend(part)
    return result


def _load_run(files: list[str], load_one) -> LoadResult:
    result = LoadResult()
    for file in files:
        load_one(file, result)
    return result


def pack(result: LoadResult) -> tuple:
    """A LoadResult as plain values marshal can write (findings, rare, pickled). A document with positions sends
    them as bytes of their own; one read by load.fast, which has none yet, sends its file's text (once a file)."""
    documents = tuple((d.file, d.index, d.value, d._line, d._column,
                       d.source if d.source is not None else marshal.dumps(d.places()), d.has_null,
                       d.whole_floats, d.marks, d.keys) for d in result.documents)
    return (documents, pickle.dumps(result.findings, protocol=pickle.HIGHEST_PROTOCOL), result.files,
            result.template_syntax, result.manifest_like)


def unpack(packed: tuple) -> LoadResult:
    documents, findings, files, template_syntax, manifest_like = packed
    return LoadResult(
        documents=[(Document if type(places) is bytes else QuickDocument)(
                       file, index, value, line, column, positions=None,
                       packed=places if type(places) is bytes else None,
                       source=places if type(places) is str else None, has_null=has_null,
                       whole_floats=whole_floats, marks=marks, keys=keys)
                   for file, index, value, line, column, places, has_null, whole_floats, marks, keys in documents],
        findings=pickle.loads(findings),  # noqa: S301 - written by this process's own fork
        files=list(files), template_syntax=set(template_syntax), manifest_like=set(manifest_like))
