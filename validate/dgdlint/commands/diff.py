"""`dgdlint diff OLD NEW`: what applying NEW over OLD will break, before it is applied. NEW is also checked
as `check` would; both sets of findings go through the one policy path and check's formats."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from dgdlint.commands import inputs, options, outcome
from dgdlint.commands.options import UsageProblem

NAME = "diff"
HELP = "say what applying NEW over OLD breaks (immutable fields, lost sessions, cache, deletions)"
DESCRIPTION = ("Say what applying NEW over OLD breaks: immutable fields, lost streaming sessions, a download "
               "that does not run, a changed or dropped cache, deletions. NEW is also checked as `check` would. "
               "Sides: OLD NEW (files, directories or -, at most one -); or --chart with --old-values and/or "
               "--new-values (a side without values renders the chart's defaults); or one SIDE and --chart: SIDE "
               "is the old side with --new-values, the new side with --old-values.")
EXAMPLE = """dgdlint diff old.yaml new.yaml
dgdlint diff --chart charts/cosmos3-reasoner --old-values values/nano-fp8.yaml \\
    --new-values values/nano-fp8-streaming.yaml
helm get manifest RELEASE | dgdlint diff - --chart charts/cosmos3-reasoner --new-values values/nano-fp8.yaml"""


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="*", metavar="SIDE", help="OLD then NEW: a file, a directory, or -")
    render = options.add_render_options(parser, values_files=False,
                                        title="rendering the chart for the sides given by values "
                                              "(--set applies to both)")
    render.add_argument("--old-values", metavar="FILE", action="append", default=[],
                        help="values file of the old side (repeatable, later wins)")
    render.add_argument("--new-values", metavar="FILE", action="append", default=[],
                        help="values file of the new side (repeatable, later wins)")
    options.add_namespace_option(parser)
    options.add_input_options(parser, manifests_only=False)
    options.add_crd_options(parser, " for the new side's schema stage")
    options.add_report_options(parser)
    options.add_policy_options(parser)


@dataclass
class Side:
    """One side of the diff: a path, or a chart render with its values files."""

    name: str  # "old" or "new"
    path: str | None = None
    values: list[str] | None = None

    def describe(self) -> str:
        return self.path if self.path is not None else f"--chart with {self.name} values"


def resolve_sides(args) -> tuple[Side, Side]:
    paths = list(args.paths)
    if args.chart is None:
        if args.old_values or args.new_values or args.set_values or args.set_string_values:
            raise UsageProblem("--old-values, --new-values and --set need --chart")
        if len(paths) != 2:
            raise UsageProblem("give two sides, OLD and NEW (files, directories or -), or --chart CHART with values")
        old, new = Side("old", path=paths[0]), Side("new", path=paths[1])
    elif not (args.old_values or args.new_values):
        raise UsageProblem("--chart needs --old-values or --new-values (a side without values renders the defaults)")
    elif not paths:
        old, new = Side("old", values=args.old_values), Side("new", values=args.new_values)
    elif len(paths) == 1 and args.new_values and not args.old_values:
        old, new = Side("old", path=paths[0]), Side("new", values=args.new_values)
    elif len(paths) == 1 and args.old_values and not args.new_values:
        old, new = Side("old", values=args.old_values), Side("new", path=paths[0])
    elif len(paths) == 1:
        raise UsageProblem("with --chart and one SIDE, give only --new-values (SIDE is the old side) or only "
                           "--old-values (SIDE is the new side)")
    else:
        raise UsageProblem("with --chart, give at most one SIDE path")
    if old.path == "-" and new.path == "-":
        raise UsageProblem("at most one side can be - (stdin)")
    return old, new


def load_side(side: Side, args, config) -> inputs.Inputs:
    """The side's documents, and a finding when its chart does not render."""
    side_inputs = inputs.Inputs(sources=[side.path] if side.path is not None else [])
    if side.path is not None:
        inputs.load_path_inputs([side.path], side_inputs.loaded, config, args.jobs)
        return side_inputs
    # Both sides of a chart diff render the same template names; the old side's carry a prefix (a plain
    # relative path, so that every output format, SARIF's URIs included, can carry it).
    prefix = "old/" if side.name == "old" else ""
    side_inputs.render_findings = inputs.render_into(side_inputs.loaded, args, list(side.values or []), prefix)
    return side_inputs


def empty_sides(side: inputs.Inputs, model, findings) -> list:
    empty = inputs.empty_input_finding(side, len(model.objects), findings)
    return [empty] if empty else []


def run(args) -> int:
    from dgdlint.commands.check import schema_stage_for
    from dgdlint.diff import compare, replaced_on_update
    from dgdlint.engine import CheckResult, check_loaded
    from dgdlint.model import build_model

    options.outputs(args)
    old_side, new_side = resolve_sides(args)
    inputs.check_chart_arguments(args)
    decisions = outcome.read_policy(args)
    schema_stage = schema_stage_for(args, decisions.config)
    old, new = load_side(old_side, args, decisions.config), load_side(new_side, args, decisions.config)

    old_model = build_model(old.loaded, args.namespace)
    # The new side is an update of the old one: the CRDs' transition rules (oldSelf) compare the two.
    schema_stage.previous = {obj.ref: obj for obj in old_model.objects}
    if new.nothing_rendered:
        new_model = build_model(new.loaded, args.namespace)
        result = CheckResult(list(new_model.findings), new_model, list(new.loaded.files),
                             schema_skipped=not schema_stage.has_crds, schema_source=schema_stage.description)
    else:
        result = check_loaded(new.loaded, schema_stage, args.namespace, stored=schema_stage.previous)
    # The old side contributes what keeps it from loading, never its own rule findings.
    old_broken = [f for f in old_model.findings if f.severity == "error"] + old.render_findings
    if not args.allow_empty:
        old_broken += empty_sides(old, old_model, old_broken)
        new.render_findings += empty_sides(new, result.model, result.findings + new.render_findings)
    result.findings += old_broken + new.render_findings
    result.files = list(old.loaded.files) + list(result.files)
    new_files = set(new.loaded.files)
    new_broken = new.render_findings or any(f.stage == "parse" and f.severity == "error" and f.file in new_files
                                            for f in result.findings)
    if old_broken or new_broken:
        broken = " and ".join(s.describe() for s, bad in ((old_side, old_broken), (new_side, new_broken)) if bad)
        print(f"dgdlint diff: {broken} did not load cleanly; the two sides were not compared", file=sys.stderr)
    else:
        result.findings = [f for f in result.findings if not replaced_on_update(f, old_model)]
        result.findings += compare(old_model, result.model)
    outcome.apply(result, decisions)
    failed = result.failed and not decisions.write_baseline  # writing a baseline accepts what is there
    return outcome.report(args, outcome.render_findings(result, args), failed, result)
