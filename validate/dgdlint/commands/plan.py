"""`dgdlint plan`: what manifests will ask of the cluster (pods, GPUs, CPU, memory, claims, totals) and
whether the GPUs they target fit; the counting rules are in dgdlint.plan."""

from __future__ import annotations

from dgdlint.commands import inputs, locations, options, outcome

NAME = "plan"
HELP = "show what manifests ask of the cluster (pods, GPUs, CPU, memory, claims) and check the GPU fit"
EXAMPLE = """dgdlint plan --chart charts/cosmos3-reasoner -f values/super-bf16.yaml
dgdlint plan manifests.yaml --format markdown=plan.md --format json=plan.json"""
FORMATS = ("text", "markdown", "json")


def add_arguments(parser) -> None:
    options.add_paths_argument(parser)
    options.add_render_options(parser)
    options.add_namespace_option(parser)
    options.add_input_options(parser)
    options.add_report_options(parser, FORMATS, show_fix=False)
    options.add_crd_options(parser)
    options.add_policy_options(parser)


def run(args) -> int:
    from dgdlint.commands.check import schema_stage_for
    from dgdlint.engine import CheckResult
    from dgdlint.model import build_model
    from dgdlint.plan import build_plan, in_plan_scope
    from dgdlint.report import PLAN_FORMATS

    options.outputs(args)
    decisions = outcome.read_policy(args)
    schema_stage = schema_stage_for(args, decisions.config)
    loaded = inputs.load_inputs(args, decisions.config)
    model = build_model(loaded.loaded, args.namespace)
    plan = build_plan(model, loaded.render_findings, schema_stage)
    if not (args.allow_empty or args.manifests_only):
        empty = inputs.empty_input_finding(loaded, len(model.objects), plan.findings)
        plan.findings += [empty] if empty else []
    result = CheckResult(plan.findings, model, list(loaded.loaded.files), schema_skipped=not schema_stage.has_crds,
                         schema_source=schema_stage.description)
    locations.relocate(result.findings, loaded.rendered, getattr(args, "values", None), args.chart)
    outcome.apply(result, decisions)
    result.findings = plan.findings = [f for f in result.findings if in_plan_scope(f)]
    failed = result.failed and not decisions.write_baseline  # writing a baseline accepts what is there
    return outcome.report(args, lambda name: PLAN_FORMATS[name](plan), failed, result)
