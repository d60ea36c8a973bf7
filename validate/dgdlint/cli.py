"""The `dgdlint` entry point: runs the command line of dgdlint.commands and turns every failure into an exit
code, never a traceback.

Exit codes: 0 no error finding; 1 at least one error finding (input that does not parse or render
included); 2 usage error (unknown flag, missing path, unusable CRD); 3 dgdlint itself failed."""

from __future__ import annotations

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
    except Exception as error:  # never a traceback for users
        print(f"dgdlint: internal error ({type(error).__name__}: {error}); please report it", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        gc.enable()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
