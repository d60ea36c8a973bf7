"""`dgdlint check`: the schema stage and the rules over manifests or a chart render, in every format."""

from __future__ import annotations

from dgdlint.commands import inputs, locations, options, outcome

NAME = "check"
HELP = "check manifests (files, directories, - for stdin, or a chart)"
EXAMPLE = """dgdlint check examples/vllm-video-understanding.v1beta1.yaml
dgdlint check --chart charts/cosmos3-reasoner -f values/nano-fp8.yaml --format sarif=dgdlint.sarif"""


def add_arguments(parser) -> None:
    options.add_paths_argument(parser)
    options.add_render_options(parser)
    options.add_namespace_option(parser)
    options.add_input_options(parser)
    options.add_crd_options(parser)
    options.add_report_options(parser)
    options.add_policy_options(parser)
    parser.add_argument("--fix", action="store_true", help="first repair the files as `dgdlint fix` does, then check")


def run(args) -> int:
    options.outputs(args)  # a usage error before any work
    decisions = outcome.read_policy(args)
    if args.fix:
        _fix_first(args, decisions.config)
    prepared: list = []
    loaded_inputs = inputs.load_inputs(args, decisions.config,
                                       meanwhile=lambda: prepared.append(_prepare(args, decisions.config)))
    schema_stage = prepared[0]
    loaded = loaded_inputs.loaded

    from dgdlint.engine import CheckResult, check_loaded
    from dgdlint.model import build_model

    if loaded_inputs.nothing_rendered:
        model = build_model(loaded, args.namespace)
        result = CheckResult(sorted(loaded.findings + loaded_inputs.render_findings, key=lambda f: f.sort_key()),
                             model, list(loaded.files) or [args.chart], schema_skipped=not schema_stage.has_crds,
                             schema_source=schema_stage.description)
    else:
        result = check_loaded(loaded, schema_stage, args.namespace, jobs=args.jobs)
        result.findings += loaded_inputs.render_findings
    if not (args.allow_empty or args.manifests_only):
        empty = inputs.empty_input_finding(loaded_inputs, len(result.model.objects), result.findings)
        result.findings += [empty] if empty else []
    locations.relocate(result.findings, loaded_inputs.rendered, getattr(args, "values", None), args.chart)
    outcome.apply(result, decisions)
    failed = result.failed and not decisions.write_baseline  # writing a baseline accepts what is there
    return outcome.report(args, outcome.render_findings(result, args), failed, result)


def _prepare(args, config):
    """What checking needs besides the files, set up while worker processes read them (before anything is read
    where none do): the schema stage, whose usage errors (an unusable --crd) come then, and the rules' modules.
    The schemas themselves are compiled where they are used: for a large set, in the worker that runs the
    schema stage while this process runs the rules (engine.check_loaded); and only the versions the set uses.
    What that compilation needs whatever the versions (libraries, the CEL environment) is set up here."""
    stage = schema_stage_for(args, config)
    import dgdlint.rules  # noqa: F401 - importing registers every rule

    stage.warm()
    return stage


def _fix_first(args, config) -> None:
    """`check --fix` is `fix` then `check`: the files are repaired (or refused, said on stderr) first."""
    import os

    from dgdlint.edit.command import run_fix

    if not args.paths or not all(p != "-" and os.path.isfile(p) for p in args.paths):
        raise options.UsageProblem("--fix needs files (not -, directories or a chart)")
    run_fix(list(args.paths), diff=False, config=config, command="check")


def schema_stage_for(args, config=None):
    """The schema stage: --crd (or DGDLINT_CRD) when given, else the bundled release of --dynamo-version, of the
    configuration's dynamo-version, or the newest."""
    from dgdlint.release import parse_node_port_range
    from dgdlint.schema import CrdError, SchemaStage, crd_sources_from_env

    release = getattr(args, "dynamo_version", None) or getattr(config, "dynamo_version", None)
    ports = getattr(args, "service_node_port_range", None) or getattr(config, "service_node_port_range", None)
    try:
        node_ports = parse_node_port_range(ports) if ports else None
    except ValueError as error:
        raise options.UsageProblem(f"--service-node-port-range {error}") from None
    try:
        return SchemaStage(args.crd or crd_sources_from_env(), getattr(args, "kubernetes_version", None), release,
                           node_ports=node_ports)
    except CrdError as error:
        raise options.UsageProblem(str(error)) from None
