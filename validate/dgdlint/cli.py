"""The `dgdlint` entry point: runs the command line of dgdlint.commands and turns every failure into an exit
code, never a traceback.

Exit codes: 0 no error finding; 1 at least one error finding (input that does not parse or render
included); 2 usage error (unknown flag, missing path, unusable CRD, an output that cannot be written);
3 dgdlint itself failed."""

from __future__ import annotations

import errno
import sys

from dgdlint.commands.options import (  # noqa: F401  (the exit codes, importable from here too)
    EXIT_FINDINGS,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
)


def build_parser():
    from dgdlint.commands import build_parser as build

    return build()


def main(argv: list[str] | None = None) -> int:
    import gc

    from dgdlint.commands import run

    # Manifests are trees (aliases are shared, recursive ones refused): no reference cycles to collect, and
    # the collector's full passes over a growing heap would make large inputs superlinear.
    gc.disable()
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    except OSError as error:
        if error.errno not in _CANNOT_WRITE:
            return _internal(error)
        # The output's device refused it (a full disk under `> file`); a report to --output says this itself.
        print(f"dgdlint: cannot write its output: {error.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # never a traceback for users
        return _internal(error)
    finally:
        gc.enable()


def _internal(error: Exception) -> int:
    print(f"dgdlint: internal error ({type(error).__name__}: {error}); please report it", file=sys.stderr)
    return EXIT_INTERNAL


# What writing to a full or failing device raises (ENOSPC, EDQUOT, EFBIG, EIO).
_CANNOT_WRITE = {getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO") if hasattr(errno, name)}


def entry() -> None:
    """The `dgdlint` command and `python -m dgdlint`: `main()`, then the process ends at once. A check of many
    files leaves a large heap, and the interpreter's orderly shutdown frees it object by object (about a
    tenth of a second for 300 files) for nothing. Every file dgdlint writes is closed by then (with blocks,
    worker processes waited for); standard output and error are flushed here, and a report that cannot be
    written is said as `--output` says it (exit 2)."""
    import os

    code = main()
    code = code if isinstance(code, int) else EXIT_OK  # as sys.exit(None) would
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left (`dgdlint check | head`): the verdict stands
        pass
    except OSError as error:
        print(f"dgdlint: cannot write the report to standard output: {error.strerror}", file=sys.stderr)
        code = EXIT_USAGE
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
