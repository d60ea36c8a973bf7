"""dgdlint's command line: one parser, one module per command.

A command is a module of this package with five names:

    NAME = "plan"                       # the word after `dgdlint`
    HELP = "one line for dgdlint --help"
    EXAMPLE = "dgdlint plan ..."        # shown at the end of the command's --help (one or more lines)
    def add_arguments(parser): ...      # its options, the shared ones from commands.options
    def run(args) -> int: ...           # the work; returns the exit code

Adding a command is writing that module and adding its name to COMMANDS below; `dgdlint --help` then
lists it. A command that reports findings loads with `inputs.load_inputs` (files, directories, stdin,
a chart directory or .tgz), takes `options.add_report_options` and `options.add_policy_options`, and
ends with `outcome.apply` and `outcome.report`, so the configuration, the annotations, the baseline,
--fail-on and `--format FMT=FILE` mean the same everywhere. Import heavy modules inside `run`: every
command module is imported to build the parser, and the CLI must start fast for a pre-commit hook.

Exit codes: 0 no error finding; 1 at least one error finding (input that does not parse or render
included); 2 usage error (unknown flag, missing path, unusable CRD, an output that cannot be written);
3 dgdlint itself failed."""

from __future__ import annotations

import argparse
import importlib
import sys
import textwrap

from dgdlint.commands.options import EXIT_USAGE, Parser, UsageProblem, usage

# In the order `dgdlint --help` lists them.
COMMANDS = ["check", "convert", "fix", "render", "plan", "diff", "preflight", "rules", "explain", "schemas", "smoke"]


def command_module(name: str):
    return importlib.import_module(f"dgdlint.commands.{name}")


def build_parser(only: str | None = None) -> Parser:
    """The whole command line; `only`: with that command's parser alone (what `dgdlint COMMAND ...` reads:
    the other commands' modules, some with heavy imports of their own, are then not imported)."""
    from dgdlint import __version__

    parser = Parser(prog="dgdlint", description="Validate NVIDIA Dynamo graph deployments before they reach a "
                                                "cluster.",
                    epilog="Run `dgdlint COMMAND --help` for a command's options and an example.")
    parser.add_argument("--version", action="version", version=f"dgdlint {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in [only] if only else COMMANDS:
        module = command_module(name)
        description = textwrap.fill(getattr(module, "DESCRIPTION", module.HELP), 100)
        sub = subparsers.add_parser(name, help=module.HELP, description=description,
                                    epilog="example:\n" + _indent(module.EXAMPLE),
                                    formatter_class=_Formatter, add_help=not getattr(module, "PASSTHROUGH", False))
        module.add_arguments(sub)
        sub.set_defaults(run=module.run, command_name=name, command_parser=sub)
    return parser


def run(argv: list[str]) -> int:
    if argv and argv[0] in COMMANDS:
        module = command_module(argv[0])
        if getattr(module, "PASSTHROUGH", False):  # a command whose own parser reads its arguments
            return module.run_arguments(argv[1:])
    # `dgdlint COMMAND ...` needs that command's parser only; --help and a missing command, all of them.
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the command's parser, with its usage line: `dgdlint check: error: ...`
        (getattr(args, "command_parser", None) or parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.run(args)
    except UsageProblem as problem:
        return usage(str(problem), args.command_name)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.strip("\n").splitlines())


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the example's lines as written (the description is wrapped beforehand)."""
