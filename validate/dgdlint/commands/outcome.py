"""The one policy path of every command that reports findings (check, diff, plan, and those to come):
the configuration (rule selection, severities, exclusions, fail-on), the suppression annotations, the
baseline (read, or written with --write-baseline), then the reports in each --format, then the exit code.

    decisions = outcome.read_policy(args)          # before loading: the configuration's exclusions
    ...                                             # load, check: a CheckResult
    outcome.apply(result, decisions)
    return outcome.report(args, lambda name: ..., result.failed)
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from dgdlint.commands.options import EXIT_FINDINGS, EXIT_OK, UsageProblem, outputs


class Policy:
    """What decides a check's outcome besides the findings: configuration, annotations, baseline. (A plain
    class, as findings.Finding is: made before the reading workers start.)"""

    def __init__(self, config, annotations: bool = True, baseline: set[str] | None = None,
                 write_baseline: str | None = None):
        self.config = config  # dgdlint.policy.Config
        self.annotations = annotations
        self.baseline = baseline
        self.write_baseline = write_baseline


def read_policy(args) -> Policy:
    """The configuration (--config, else the one found from the working directory), --fail-on, the baseline."""
    from dgdlint import policy

    try:
        config = policy.load_config(getattr(args, "config", None))
        if config.select or config.ignore or config.severity:  # the rules are imported only to know their names
            from dgdlint.rules.catalogue import known_names

            policy.check_rule_names(config, known_names())
        if getattr(args, "fail_on", None):
            config.fail_on = args.fail_on
        baseline_file = getattr(args, "baseline", None)
        baseline = policy.load_baseline(baseline_file) if baseline_file else None
    except policy.ConfigError as error:
        raise UsageProblem(str(error)) from None
    return Policy(config, annotations=not getattr(args, "no_ignore_annotations", False), baseline=baseline,
                  write_baseline=getattr(args, "write_baseline", None))


def apply(result, decisions: Policy) -> None:
    """Write the baseline when asked (every finding before the policy), then apply the policy to `result`."""
    from dgdlint import policy
    from dgdlint.engine import apply_policy
    from dgdlint.report.text import one_line

    if decisions.write_baseline:
        try:
            count = policy.write_baseline(decisions.write_baseline, result.findings)
        except policy.ConfigError as error:
            raise UsageProblem(str(error)) from None
        print(f"dgdlint: wrote {count} finding(s) to the baseline {one_line(str(decisions.write_baseline))}",
              file=sys.stderr)
    apply_policy(result, decisions.config, annotations=decisions.annotations, baseline=decisions.baseline)


def report(args, render: Callable[[str], str], failed: bool, result=None) -> int:
    """Write `render(format)` for each --format FMT[=FILE]; the exit code. The reports written to files are
    named in one line on stderr (as pytest's `generated xml file`), which starts with the counts of `result`
    when no report went to stdout: a run whose every report goes to a file is not silent."""
    from dgdlint.report import write_report
    from dgdlint.report.text import counts, one_line

    written = []
    targets = outputs(args)
    for name, target in targets:
        problem = write_report(render(name), target)
        if problem:
            raise UsageProblem(problem)
        if target is not None:
            written.append(f"{name} to {one_line(str(target))}")
    if written:
        head = f"{counts(result)}; " if result is not None and all(t is not None for _n, t in targets) else ""
        print(f"dgdlint: {head}wrote {', '.join(written)}", file=sys.stderr)
    return EXIT_FINDINGS if failed else EXIT_OK


def render_findings(result, args) -> Callable[[str], str]:
    """The findings' formats (text, json, sarif, junit, github) for `report`."""
    from dgdlint.report import FORMATS

    def render(name: str) -> str:
        options = {"show_fix": getattr(args, "show_fix", False)} if name == "text" else {}
        return FORMATS[name](result, **options)

    return render
