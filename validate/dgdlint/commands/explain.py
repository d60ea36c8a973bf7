"""`dgdlint explain RULE`: one rule's page (why it matters, what to do, a failing manifest and its fix), or
what a finding of the parse and schema stages, or a note code of `convert` and `fix`, means."""

from __future__ import annotations

import difflib
import sys

from dgdlint.commands.options import EXIT_OK, UsageProblem

NAME = "explain"
HELP = "explain one rule"
EXAMPLE = "dgdlint explain streaming-endpoint-mismatch\ndgdlint explain dgd101"


def add_arguments(parser) -> None:
    parser.add_argument("rule", metavar="RULE", help="rule name (e.g. streaming-endpoint-mismatch) or code, any case")


def run(args) -> int:
    from dgdlint.docs import explain
    from dgdlint.edit.notes import EDIT_NOTES
    from dgdlint.rules.catalogue import STAGE_FINDINGS, close_names, find_rule, find_stage_finding

    rule_ = find_rule(args.rule)
    if rule_ is not None:
        sys.stdout.write(explain(rule_))
        return EXIT_OK
    stage_name = find_stage_finding(args.rule)
    if stage_name is not None:
        stage, severity, meaning = STAGE_FINDINGS[stage_name]
        sys.stdout.write(f"{stage_name} ({stage} stage, {severity})\n\n{meaning}\n")
        return EXIT_OK
    wanted = args.rule.strip().lower()
    if wanted in EDIT_NOTES:  # a note of convert or fix, not a rule
        commands, severity, meaning = EDIT_NOTES[wanted]
        sys.stdout.write(f"{wanted} (a note of dgdlint {commands}, {severity})\n\n{meaning}\n")
        return EXIT_OK
    close = close_names(args.rule) or difflib.get_close_matches(wanted, list(EDIT_NOTES), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else " (see `dgdlint rules`)"
    raise UsageProblem(f"no rule {args.rule!r}{hint}")
