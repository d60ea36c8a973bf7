"""`dgdlint fix FILE...`: the findings of fixable rules repaired in place (--diff shows the change instead);
what has more than one answer is reported and left."""

from __future__ import annotations

NAME = "fix"
HELP = "repair the findings that have one right answer, in place (see the fixable rules in `dgdlint rules`)"
EXAMPLE = """dgdlint fix --diff tests/edit/cases/commented-edge-streaming.v1alpha1.yaml
dgdlint fix deploy/reasoner.yaml"""


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="FILE", help="YAML files")
    parser.add_argument("--diff", action="store_true", help="show the change as a unified diff; write nothing "
                                                                 "(exit 1 when a file would change)")
    parser.add_argument("--config", metavar="FILE", help="configuration file (default: .dgdlint.yaml or "
                                                         "[tool.dgdlint] in pyproject.toml); a rule it turns off "
                                                         "is not fixed")


def run(args) -> int:
    from dgdlint.commands.outcome import read_policy
    from dgdlint.edit.command import run_fix

    return run_fix(args.paths, args.diff, read_policy(args).config)
