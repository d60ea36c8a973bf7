"""`dgdlint rules`: the catalogue of rules, check and diff, as text, JSON or Markdown."""

from __future__ import annotations

import sys

from dgdlint.commands.options import EXIT_OK

NAME = "rules"
HELP = "list the rules"
EXAMPLE = "dgdlint rules --format markdown"


def add_arguments(parser) -> None:
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                        help="text (one line a rule), json (every field) or markdown (the tables of README's Rules) "
                             "(default: %(default)s)")


def run(args) -> int:
    from dgdlint.docs import rules_json, rules_markdown, rules_text

    sys.stdout.write({"text": rules_text, "json": rules_json, "markdown": rules_markdown}[args.format]())
    return EXIT_OK
