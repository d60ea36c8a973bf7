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


def _add_render_options(parser: argparse.ArgumentParser, required: bool = False) -> None:
    group = parser.add_argument_group("rendering a chart (the real Helm engine)")
    group.add_argument("--chart", metavar="DIR", required=required, help="render this chart first")
    group.add_argument("-f", "--values", metavar="FILE", action="append", default=[],
                       help="values file (repeatable, later wins)")
    group.add_argument("--set", dest="set_values", metavar="K=V", action="append", default=[],
                       help="set a value, as helm --set (repeatable)")
    group.add_argument("--set-string", dest="set_string_values", metavar="K=V", action="append", default=[],
                       help="set a string value, as helm --set-string (repeatable)")
    group.add_argument("--release", default="cosmos3-reasoner", help="release name (default: %(default)s)")
    group.add_argument("--engine", choices=("auto", "binary", "sdk"), default="auto",
                       help="helm binary when on PATH (auto), or force one engine")


def build_parser() -> argparse.ArgumentParser:
    from dgdlint import __version__

    parser = _Parser(prog="dgdlint", description="Validate NVIDIA Dynamo graph deployments before they reach a "
                                                 "cluster.")
    parser.add_argument("--version", action="version", version=f"dgdlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = commands.add_parser("check", help="check manifests (files, directories, - for stdin, or a chart)")
    check.add_argument("paths", nargs="*", metavar="PATH", help="YAML/JSON files, directories (recursive), or -")
    _add_render_options(check)
    check.add_argument("--namespace", default="default",
                       help="namespace of objects that name none, and of the render (default: %(default)s)")
    check.add_argument("--crd", metavar="PATH_OR_URL", action="append", default=[],
                       help="CRD file, directory, http(s) URL, or `cluster` (repeatable; env DGDLINT_CRD)")
    check.add_argument("--kubernetes-version", metavar="X.Y", help="Kubernetes version of the built-in schemas")
    check.add_argument("--format", choices=("text", "json"), default="text", help="report format")
    check.add_argument("--output", metavar="FILE", help="write the report to FILE instead of stdout")
    check.add_argument("--show-fix", action="store_true", help="text: print each finding's remediation")

    render = commands.add_parser("render", help="render a chart and print the manifests (like helm template)")
    _add_render_options(render, required=True)
    render.add_argument("--namespace", default="default", help="release namespace (default: %(default)s)")

    rules = commands.add_parser("rules", help="list the rules")
    rules.add_argument("--format", choices=("text", "json", "markdown"), default="text")

    explain = commands.add_parser("explain", help="explain one rule")
    explain.add_argument("rule", metavar="RULE", help="rule name (e.g. streaming-endpoint-mismatch) or code")
    return parser


def main(argv: list[str] | None = None) -> int:
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
    return EXIT_USAGE


def _usage(message: str) -> int:
    print(f"dgdlint: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _render_request(args):
    from dgdlint.render import RenderRequest

    return RenderRequest(chart=args.chart, values_files=args.values, set_values=args.set_values,
                         set_string_values=args.set_string_values, release=args.release, namespace=args.namespace)


def _render(args) -> int:
    from dgdlint.render import RenderError, as_stream, render_chart

    try:
        templates = render_chart(_render_request(args), engine=args.engine)
    except RenderError as error:
        print(f"dgdlint: {args.chart}: the chart did not render: {error}", file=sys.stderr)
        return EXIT_FINDINGS
    sys.stdout.write(as_stream(templates))
    return EXIT_OK


def _locate_in_values(values_files: list[str], pointer: str) -> tuple[str, int, int, str] | None:
    """The values file (the last that sets it) and line of a JSON pointer such as `/model/variant`."""
    from dgdlint.load import format_path, load_paths

    path = tuple(int(p) if p.isdigit() else p for p in pointer.strip("/").split("/") if p)
    for values_file in reversed(values_files):
        loaded = load_paths([values_file])
        for document in loaded.documents:
            for depth in range(len(path), 0, -1):
                if path[:depth] in document.positions:
                    line, column = document.positions[path[:depth]]
                    return values_file, line, column, format_path(path)
    return None


def render_finding(chart: str, message: str, values_files: list[str] = ()):
    """A chart that does not render is input that does not parse: one error finding, placed at the values
    file line that holds the offending key when Helm's schema check names one, else at the template."""
    import re

    from dgdlint.findings import Finding

    file, line, column, field = chart, 1, 1, ""
    pointer = re.search(r"at '(/[^']*)'", message)
    located = _locate_in_values(list(values_files), pointer.group(1)) if pointer and values_files else None
    match = re.search(r"\(([^():\s]+\.(?:yaml|tpl|txt)):(\d+):(\d+)\)", message)
    if located:
        file, line, column, field = located
    elif match:
        file = os.path.join(os.path.dirname(os.path.abspath(chart)) if os.path.isdir(chart) else "",
                            match.group(1))
        file = os.path.relpath(file) if os.path.isabs(file) else file
        line, column = int(match.group(2)), int(match.group(3))
    return Finding(rule="helm-render", severity="error", stage="parse", file=file, line=line, column=column,
                   path=field, message=f"the chart did not render: {' '.join(message.split())}",
                   remediation="Fix the values named in the message (the chart's schema and checks say what "
                               "is allowed).")


def _check(args, parser) -> int:
    from dgdlint.engine import CheckResult, check_loaded
    from dgdlint.load import LoadResult, UsageError, load_paths, load_text
    from dgdlint.model import build_model
    from dgdlint.report import FORMATS
    from dgdlint.schema import CrdError, SchemaStage, crd_sources_from_env

    if not args.paths and not args.chart:
        return _usage("give at least one PATH (or - for stdin), or --chart DIR")
    if args.values and not args.chart:
        return _usage("-f/--values needs --chart")
    crd_sources = args.crd or crd_sources_from_env()
    try:
        schema_stage = SchemaStage(crd_sources, args.kubernetes_version)
    except CrdError as error:
        return _usage(str(error))
    try:
        loaded = load_paths(args.paths) if args.paths else LoadResult()
    except UsageError as error:
        return _usage(str(error))

    extra_findings = []
    if args.chart:
        from dgdlint.render import RenderError, render_chart

        try:
            for template in render_chart(_render_request(args), engine=args.engine):
                load_text(template.source, template.text, loaded)
        except RenderError as error:
            extra_findings.append(render_finding(args.chart, str(error), args.values))
    if extra_findings and not loaded.documents:
        model = build_model(loaded, args.namespace)
        result = CheckResult(sorted(loaded.findings + extra_findings, key=lambda f: f.sort_key()), model,
                             list(loaded.files) or [args.chart], schema_skipped=not schema_stage.has_crds)
    else:
        result = check_loaded(loaded, schema_stage, args.namespace)
        if extra_findings:
            result.findings = sorted(result.findings + extra_findings, key=lambda f: f.sort_key())
    report = FORMATS[args.format](result, **({"show_fix": args.show_fix} if args.format == "text" else {}))
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as error:
            return _usage(f"--output {args.output}: {error.strerror}")
    else:
        sys.stdout.write(report)
    return EXIT_FINDINGS if result.failed else EXIT_OK


def _rules(args) -> int:
    from dgdlint.docs import rules_json, rules_markdown, rules_text

    render = {"text": rules_text, "json": rules_json, "markdown": rules_markdown}[args.format]
    sys.stdout.write(render())
    return EXIT_OK


def _explain(args) -> int:
    from dgdlint.docs import explain, find_rule

    rule_ = find_rule(args.rule)
    if rule_ is None:
        return _usage(f"no rule {args.rule!r} (see `dgdlint rules`)")
    sys.stdout.write(explain(rule_))
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
