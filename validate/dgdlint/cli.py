"""Command-line interface: argument parsing and exit codes only; the work happens in the library.

Exit codes: 0 no error finding; 1 at least one error finding (input that does not parse or render
included); 2 usage error (unknown flag, missing path, unusable CRD); 3 dgdlint itself failed."""

from __future__ import annotations

import argparse
import os
import sys

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own exit code for usage errors is already 2
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"dgdlint: error: {message}\n")


def add_render_options(parser: argparse.ArgumentParser, values_files: bool = True, title: str | None = None):
    """The chart-rendering options shared by check, render, plan and diff; returns the argument group."""
    group = parser.add_argument_group(title or "rendering a chart (the real Helm engine)")
    group.add_argument("--chart", metavar="DIR", help="render this chart first")
    if values_files:
        group.add_argument("-f", "--values", metavar="FILE", action="append", default=[],
                           help="values file (repeatable, later wins)")
    group.add_argument("--set", dest="set_values", metavar="K=V", action="append", default=[],
                       help="set a value, as helm --set (repeatable)")
    group.add_argument("--set-string", dest="set_string_values", metavar="K=V", action="append", default=[],
                       help="set a string value, as helm --set-string (repeatable)")
    group.add_argument("--release", default="cosmos3-reasoner", help="release name (default: %(default)s)")
    group.add_argument("--engine", choices=("auto", "binary", "sdk"), default="auto",
                       help="helm binary when on PATH (auto), or force one engine")
    return group


def add_namespace_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--namespace", default="default",
                        help="namespace of objects that name none, and of the render (default: %(default)s)")


def build_parser() -> argparse.ArgumentParser:
    from dgdlint import __version__

    parser = _Parser(prog="dgdlint", description="Validate NVIDIA Dynamo graph deployments before they reach a "
                                                 "cluster.")
    parser.add_argument("--version", action="version", version=f"dgdlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = commands.add_parser("check", help="check manifests (files, directories, - for stdin, or a chart)")
    check.add_argument("paths", nargs="*", metavar="PATH", help="YAML/JSON files, directories (recursive), or -")
    add_render_options(check)
    add_namespace_option(check)
    check.add_argument("--crd", metavar="PATH_OR_URL", action="append", default=[],
                       help="CRD file, directory, http(s) URL, or `cluster` (repeatable; env DGDLINT_CRD)")
    check.add_argument("--kubernetes-version", metavar="X.Y", help="Kubernetes version of the built-in schemas")
    check.add_argument("--format", metavar="FMT[=FILE]", action="append", type=_format_choice,
                       help="text, json, sarif, junit or github; repeatable, FMT=FILE writes to a file "
                            "(default: text; github under GitHub Actions)")
    check.add_argument("--output", metavar="FILE", help="write the (one) report to FILE instead of stdout")
    check.add_argument("--show-fix", action="store_true", help="text: print each finding's remediation")
    policy_group = check.add_argument_group("policy")
    policy_group.add_argument("--config", metavar="FILE",
                              help="configuration file (default: .dgdlint.yaml or [tool.dgdlint] in pyproject.toml)")
    policy_group.add_argument("--fail-on", choices=("error", "warning"), help="exit 1 on errors (default) or on "
                                                                              "warnings too")
    policy_group.add_argument("--no-ignore-annotations", action="store_true",
                              help="ignore dgdlint/ignore-<rule> annotations (strict CI)")
    policy_group.add_argument("--baseline", metavar="FILE", help="report only findings not in this baseline")
    policy_group.add_argument("--write-baseline", metavar="FILE", help="write the current findings as a baseline")

    render = commands.add_parser("render", help="render a chart and print the manifests (like helm template)")
    add_render_options(render)
    add_namespace_option(render)

    rules = commands.add_parser("rules", help="list the rules")
    rules.add_argument("--format", choices=("text", "json", "markdown"), default="text")

    schemas = commands.add_parser("schemas", help="write CRD-derived JSON schemas in kubeconform's layout")
    schemas.add_argument("--crd", metavar="PATH_OR_URL", action="append", default=[],
                         help="CRD file, directory, URL or `cluster` (repeatable; env DGDLINT_CRD)")
    schemas.add_argument("--out", metavar="DIR", required=True, help="folder for {kind}_{version}.json files")

    explain = commands.add_parser("explain", help="explain one rule")
    explain.add_argument("rule", metavar="RULE", help="rule name (e.g. streaming-endpoint-mismatch) or code")
    return parser


def main(argv: list[str] | None = None) -> int:
    import gc

    # Manifests are trees (aliases are shared, recursive ones refused): no reference cycles to collect, and
    # the collector's full passes over a growing heap would make large inputs superlinear.
    gc.disable()
    try:
        return _main(argv)
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


# Commands whose module owns its own arguments: `dgdlint NAME ...` runs dgdlint.NAME.main(args).
DELEGATED = {"smoke": "dgdlint.smoke", "diff": "dgdlint.diff", "plan": "dgdlint.plan"}


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in DELEGATED:
        import importlib

        try:
            module = importlib.import_module(DELEGATED[argv[0]])
        except ModuleNotFoundError:
            return _usage(f"`dgdlint {argv[0]}` is not available in this version")
        return module.main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    if args.command == "check":
        return _check(args, parser)
    if args.command == "render":
        return _render(args)
    if args.command == "rules":
        return _rules(args)
    if args.command == "explain":
        return _explain(args)
    if args.command == "schemas":
        return _schemas(args)
    return EXIT_USAGE


def _schemas(args) -> int:
    """kubeconform reads `-schema-location 'DIR/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'`."""
    import json

    from dgdlint.schema import CrdError, SchemaStage, crd_sources_from_env

    sources = args.crd or crd_sources_from_env()
    if not sources:
        return _usage("give the CRDs with --crd (or DGDLINT_CRD)")
    try:
        stage = SchemaStage(sources)
    except CrdError as error:
        return _usage(str(error))
    try:
        os.makedirs(args.out, exist_ok=True)
        for (_group, kind, version), crd in sorted(stage.crds.items()):
            path = os.path.join(args.out, f"{kind.lower()}_{version}.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(crd.schema, handle, indent=1, sort_keys=True)
            print(path)
    except OSError as error:
        return _usage(f"{args.out}: {error.strerror}")
    return EXIT_OK


def _usage(message: str) -> int:
    print(f"dgdlint: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _render_request(args):
    from dgdlint.render import RenderRequest

    return RenderRequest(chart=args.chart, values_files=args.values, set_values=args.set_values,
                         set_string_values=args.set_string_values, release=args.release, namespace=args.namespace)


def _render(args) -> int:
    from dgdlint.render import RenderError, as_stream, render_chart

    if not args.chart:
        return _usage("render needs --chart DIR")
    problem = _missing_render_inputs(args)
    if problem:
        return _usage(problem)
    try:
        templates = render_chart(_render_request(args), engine=args.engine)
    except RenderError as error:
        print(f"dgdlint: {args.chart}: the chart did not render: {error}", file=sys.stderr)
        return EXIT_FINDINGS
    sys.stdout.write(as_stream(templates))
    return EXIT_OK


def _missing_render_inputs(args) -> str | None:
    """A chart directory or values file that does not exist is a usage error (exit 2), like a missing path."""
    if getattr(args, "chart", None) and not os.path.isfile(os.path.join(args.chart, "Chart.yaml")):
        return f"{args.chart}: not a chart directory (no Chart.yaml)"
    for values_file in getattr(args, "values", []) or []:
        if not os.path.isfile(values_file):
            return f"{values_file}: no such values file"
    return None


def _set_keys(args) -> list[str]:
    """The dotted keys given with --set/--set-string (`a.b=1,c=2` -> a.b, c)."""
    keys = []
    for expression in [*getattr(args, "set_values", []), *getattr(args, "set_string_values", [])]:
        for part in expression.split(","):
            if "=" in part:
                keys.append(part.split("=", 1)[0].strip())
    return keys


def _outputs(args) -> list[tuple[str, str | None]]:
    """(format, file or None for stdout) for each --format FMT[=FILE]; GitHub annotations under Actions."""
    requested = args.format or (["github"] if os.environ.get("GITHUB_ACTIONS") == "true" else ["text"])
    outputs = []
    for item in requested:
        name, _, target = item.partition("=")
        outputs.append((name, target or None))
    if args.output:
        if len(outputs) != 1 or outputs[0][1]:
            raise _UsageProblem("--output goes with one --format; use --format FMT=FILE for several")
        outputs = [(outputs[0][0], args.output)]
    if sum(1 for _, target in outputs if target is None) > 1:
        raise _UsageProblem("only one format can go to stdout; give the others a file: --format sarif=FILE")
    return outputs


class _UsageProblem(Exception):
    pass


def _format_choice(text: str) -> str:
    from dgdlint.report import FORMATS

    name = text.partition("=")[0]
    if name not in FORMATS:
        raise argparse.ArgumentTypeError(f"unknown format {name!r} (choose from {', '.join(FORMATS)})")
    return text


def _check(args, parser) -> int:
    from dgdlint import policy
    from dgdlint.docs import all_rules
    from dgdlint.engine import CheckResult, apply_policy, check_loaded
    from dgdlint.load import LoadResult, UsageError, expand_paths, load_paths, load_text
    from dgdlint.model import build_model
    from dgdlint.report import FORMATS, write_report
    from dgdlint.schema import CrdError, SchemaStage, crd_sources_from_env

    if not args.paths and not args.chart:
        return _usage("give at least one PATH (or - for stdin), or --chart DIR")
    if args.values and not args.chart:
        return _usage("-f/--values needs --chart")
    problem = _missing_render_inputs(args)
    if problem:
        return _usage(problem)
    try:
        outputs = _outputs(args)
        config = policy.load_config(args.config)
        policy.check_rule_names(config, {rule.name for rule in all_rules()} | _stage_rule_names())
        if args.fail_on:
            config.fail_on = args.fail_on
        baseline = policy.load_baseline(args.baseline) if args.baseline else None
    except (_UsageProblem, policy.ConfigError) as error:
        return _usage(str(error))
    crd_sources = args.crd or crd_sources_from_env()
    try:
        schema_stage = SchemaStage(crd_sources, args.kubernetes_version)
    except CrdError as error:
        return _usage(str(error))
    try:
        paths = [p for p in expand_paths(args.paths) if p == "-" or not config.excluded(p)] if args.paths else []
        loaded = load_paths(paths) if paths else LoadResult()
    except UsageError as error:
        return _usage(str(error))

    extra_findings = []
    if args.chart:
        from dgdlint.render import RenderError, render_chart, render_finding

        try:
            for template in render_chart(_render_request(args), engine=args.engine):
                load_text(template.source, template.text, loaded)
        except RenderError as error:
            extra_findings.append(render_finding(args.chart, str(error), args.values, _set_keys(args)))
    if extra_findings and not loaded.documents:
        model = build_model(loaded, args.namespace)
        result = CheckResult(sorted(loaded.findings + extra_findings, key=lambda f: f.sort_key()), model,
                             list(loaded.files) or [args.chart], schema_skipped=not schema_stage.has_crds)
    else:
        result = check_loaded(loaded, schema_stage, args.namespace)
        result.findings += extra_findings
    if args.write_baseline:
        try:
            count = policy.write_baseline(args.write_baseline, result.findings)
        except policy.ConfigError as error:
            return _usage(str(error))
        print(f"dgdlint: wrote {count} finding(s) to the baseline {args.write_baseline}", file=sys.stderr)
    apply_policy(result, config, annotations=not args.no_ignore_annotations, baseline=baseline)
    for name, target in outputs:
        problem = write_report(FORMATS[name](result, **({"show_fix": args.show_fix} if name == "text" else {})),
                               target)
        if problem:
            return _usage(problem)
    return EXIT_FINDINGS if result.failed else EXIT_OK


def _stage_rule_names() -> set[str]:
    from dgdlint.docs import STAGE_FINDINGS

    return set(STAGE_FINDINGS)


def _rules(args) -> int:
    from dgdlint.docs import rules_json, rules_markdown, rules_text

    render = {"text": rules_text, "json": rules_json, "markdown": rules_markdown}[args.format]
    sys.stdout.write(render())
    return EXIT_OK


def _explain(args) -> int:
    from dgdlint.docs import STAGE_FINDINGS, explain, find_rule

    rule_ = find_rule(args.rule)
    if rule_ is None and args.rule in STAGE_FINDINGS:
        stage, severity, meaning = STAGE_FINDINGS[args.rule]
        sys.stdout.write(f"{args.rule} ({stage} stage, {severity})\n\n{meaning}\n")
        return EXIT_OK
    if rule_ is None:
        return _usage(f"no rule {args.rule!r} (see `dgdlint rules`)")
    sys.stdout.write(explain(rule_))
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
