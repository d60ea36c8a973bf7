"""The options commands share, so that every command spells them, documents them and reads them alike:
chart rendering, the namespace, CRDs, report formats (`--format FMT[=FILE]`, repeatable) and the policy
(configuration, annotations, baseline, --fail-on)."""

from __future__ import annotations

import argparse
import os
import sys

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
CHECK_FORMATS = ("text", "json", "sarif", "junit", "github")


class Parser(argparse.ArgumentParser):
    """argparse with dgdlint's usage errors: the usage line, `PROG: error: MESSAGE`, exit 2."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class UsageProblem(Exception):
    """Arguments that parse but do not go together (exit 2, the message printed as is)."""


def usage(message: str, command: str = "") -> int:
    print(f"dgdlint{' ' + command if command else ''}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def add_render_options(parser: argparse.ArgumentParser, values_files: bool = True, title: str | None = None,
                       render_out: bool = True):
    """The chart-rendering options; returns the argument group (a command may add its own values options).
    `render_out`: --render-out DIR, for a command that reads the render back (not `render`, which prints it)."""
    group = parser.add_argument_group(title or "rendering a chart (the real Helm engine)")
    group.add_argument("--chart", metavar="CHART", help="render this chart first: a directory or a packaged .tgz")
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
    if values_files and render_out:
        group.add_argument("--render-out", metavar="DIR",
                           help="write the rendered manifests under DIR and report findings at their lines there "
                                "(default: at the chart's template, the nearest line that template has)")
    return group


DEFAULT_NAMESPACE = "default"


def add_namespace_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--namespace", default=DEFAULT_NAMESPACE, type=_namespace_name,
                        help="namespace of objects that name none, and of the render (default: %(default)s)")


def _namespace_name(text: str) -> str:
    """A namespace is a DNS label (the API server makes none of another name): said now, not as a pass."""
    if text == DEFAULT_NAMESPACE:  # argparse passes the default through here on every run: a known label
        return text
    from dgdlint.label_syntax import dns1123_label_problem

    problem = dns1123_label_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text!r} is no namespace name: it {problem}")
    return text


def add_paths_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="YAML/JSON files, directories (recursive), - for stdin, or a chart")


def add_input_options(parser: argparse.ArgumentParser, manifests_only: bool = True) -> None:
    parser.add_argument("--allow-empty", action="store_true",
                        help="no Kubernetes object in the input is fine (default: an error, exit 1)")
    parser.add_argument("--jobs", "-j", metavar="N", type=_jobs, default=0,
                        help="processes that read 32 files or more (default 0: one per CPU, at most 8; 1: only "
                             "this one)")
    if manifests_only:
        parser.add_argument("--manifests-only", action="store_true",
                            help="check only files holding Kubernetes objects; leave other YAML (workflows, values "
                                 "files, chart templates) alone; implies --allow-empty (the pre-commit hook's mode)")


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 256:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes from 0 to 256")
    return value


def add_crd_options(parser: argparse.ArgumentParser, what: str = "") -> None:
    """Where the schema stage finds its schemas: a bundled Dynamo release (the newest by default), or CRDs."""
    parser.add_argument("--dynamo-version", metavar="RELEASE",
                        help="check Dynamo resources against this bundled release's schemas (default: the newest; "
                             "`dgdlint schemas list`; config key dynamo-version)")
    parser.add_argument("--crd", metavar="PATH_OR_URL", action="append", default=[],
                        help=f"CRD file, directory, http(s) URL, or `cluster`{what}, instead of the bundled schemas "
                             "(repeatable; env DGDLINT_CRD)")
    parser.add_argument("--kubernetes-version", metavar="X.Y", help="Kubernetes version of the built-in schemas")
    parser.add_argument("--service-node-port-range", metavar="LOW-HIGH",
                        help="the cluster's kube-apiserver --service-node-port-range, which node ports are checked "
                             "against (default: 30000-32767; config key service-node-port-range)")


def add_report_options(parser: argparse.ArgumentParser, formats: tuple[str, ...] = CHECK_FORMATS,
                       default: str = "text", show_fix: bool = True) -> None:
    """--format FMT[=FILE] (repeatable), --output FILE, and --show-fix for the findings' text format."""
    parser.set_defaults(format_choices=formats, default_format=default)
    parser.add_argument("--format", metavar="FMT[=FILE]", action="append", type=_format_choice(formats),
                        help=f"{', '.join(formats)}; repeatable, FMT=FILE writes to a file (- is stdout) "
                             f"(default: {default}"
                             + ("; github under GitHub Actions)" if "github" in formats else ")"))
    parser.add_argument("--output", metavar="FILE", help="write the (one) report to FILE instead of stdout")
    if show_fix:
        parser.add_argument("--show-fix", action="store_true", help="text: print each finding's remediation")


def add_policy_options(parser: argparse.ArgumentParser, write_baseline: bool = True) -> None:
    group = parser.add_argument_group("policy")
    group.add_argument("--config", metavar="FILE",
                       help="configuration file (default: .dgdlint.yaml or [tool.dgdlint] in pyproject.toml)")
    group.add_argument("--fail-on", choices=("error", "warning"), help="exit 1 on errors (default) or on warnings too")
    group.add_argument("--no-ignore-annotations", action="store_true",
                       help="ignore dgdlint/ignore-<rule> annotations (strict CI)")
    group.add_argument("--baseline", metavar="FILE", help="report only findings not in this baseline")
    if write_baseline:
        group.add_argument("--write-baseline", metavar="FILE", help="write the current findings as a baseline")


def _format_choice(formats: tuple[str, ...]):
    def check(text: str) -> str:
        name = text.partition("=")[0]
        if name not in formats:
            raise argparse.ArgumentTypeError(f"invalid choice: {name!r} (choose from {', '.join(formats)})")
        return text

    return check


def outputs(args) -> list[tuple[str, str | None]]:
    """(format, file or None for stdout) for each --format FMT[=FILE]; GitHub annotations under Actions. A FILE
    of `-` is stdout, as for the paths read."""
    default = args.default_format
    if "github" in args.format_choices and os.environ.get("GITHUB_ACTIONS") == "true":
        default = "github"
    result = []
    for item in args.format or [default]:
        name, _, target = item.partition("=")
        result.append((name, None if target in ("", "-") else target))
    if args.output:
        if len(result) != 1 or result[0][1]:
            raise UsageProblem("--output goes with one --format; use --format FMT=FILE for several")
        result = [(result[0][0], None if args.output == "-" else args.output)]
    if sum(1 for _, target in result if target is None) > 1:
        raise UsageProblem("only one format can go to stdout; give the others a file: --format json=FILE")
    return result


def set_keys(args) -> list[tuple[str, str]]:
    """(flag, dotted key) for each key given with --set or --set-string (`a.b=1,c=2` -> a.b, c), in the order
    Helm applies them (pkg/cli/values: the -f files, then every --set, then every --set-string): the last pair
    naming a key is the flag whose value the chart got."""
    from dgdlint.set_values import keys_of

    return [(flag, key) for flag, expressions in (("--set", getattr(args, "set_values", [])),
                                                  ("--set-string", getattr(args, "set_string_values", [])))
            for expression in expressions for key in keys_of(expression)]
