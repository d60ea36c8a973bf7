"""Loading a command's inputs, the one way every command does it: files, directories (recursive), `-` for
stdin, and a chart (a directory or a packaged `.tgz`) rendered with the real Helm engine. Problems with
the arguments themselves (a missing file, a chart that is no chart) raise UsageProblem (exit 2); input
that does not parse or render becomes findings (exit 1)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from dgdlint.commands.options import UsageProblem, set_keys
from dgdlint.findings import Finding
from dgdlint.load import LoadResult

CHART_ARCHIVE_SUFFIXES = (".tgz", ".tar.gz")


class Inputs:
    """What was read: the documents and their parse findings, plus findings of a chart that did not render.
    (A plain class, as findings.Finding is: imported before the reading workers start.)"""

    def __init__(self, loaded: LoadResult | None = None, render_findings: list[Finding] | None = None,
                 sources: list[str] | None = None, rendered: dict[str, tuple[str, str]] | None = None):
        self.loaded = LoadResult() if loaded is None else loaded
        self.render_findings = [] if render_findings is None else render_findings
        self.sources = [] if sources is None else sources  # what the user named, for messages
        self.rendered = {} if rendered is None else rendered  # rendered name -> (template, text)

    @property
    def nothing_rendered(self) -> bool:
        return bool(self.render_findings) and not self.loaded.documents


def is_chart_archive(path: str) -> bool:
    return path.endswith(CHART_ARCHIVE_SUFFIXES) and os.path.isfile(path)


def check_chart_arguments(args) -> None:
    """A chart or values file that does not exist is a usage error (exit 2), like a missing path."""
    chart = getattr(args, "chart", None)
    if chart and not (os.path.isfile(os.path.join(chart, "Chart.yaml")) or is_chart_archive(chart)):
        raise UsageProblem(f"{chart}: not a chart (no Chart.yaml, and not a packaged chart .tgz)")
    values = [*getattr(args, "values", []), *getattr(args, "old_values", []), *getattr(args, "new_values", [])]
    for values_file in values:
        if not os.path.isfile(values_file):
            raise UsageProblem(f"{values_file}: no such values file")


def load_inputs(args, config=None, meanwhile=None) -> Inputs:
    """The PATHs (minus what the configuration excludes) and the chart render of `args`. A chart given as a
    PATH is rendered as if given with --chart. `meanwhile` runs once, after the usage errors of the paths:
    while worker processes read the files (--jobs), where they do, else before anything is read."""
    paths = charts_given_as_paths(args, list(getattr(args, "paths", []) or []))
    if not paths and not args.chart:
        raise UsageProblem("give at least one PATH (or - for stdin), or --chart CHART")
    if (args.values or args.set_values or args.set_string_values) and not args.chart:
        raise UsageProblem("-f/--values and --set need --chart")
    if getattr(args, "render_out", None) and not args.chart:
        raise UsageProblem("--render-out needs --chart (it is where the chart's render is written)")
    check_chart_arguments(args)
    inputs = Inputs(sources=list(paths))
    if paths:
        load_path_inputs(paths, inputs.loaded, config, getattr(args, "jobs", 1), meanwhile)
        from dgdlint.load.triage import triage

        triage(inputs.loaded, getattr(args, "manifests_only", False), args.chart)
    elif meanwhile is not None:
        meanwhile()
    if args.chart:
        inputs.sources.append(args.chart)
        inputs.render_findings += render_into(inputs.loaded, args, list(args.values), rendered=inputs.rendered)
    return inputs


def charts_given_as_paths(args, paths: list[str]) -> list[str]:
    """Take a chart directory or packaged chart among the PATHs as --chart (saying so on stderr)."""
    import sys

    charts = [p for p in paths if os.path.isfile(os.path.join(p, "Chart.yaml")) or is_chart_archive(p)]
    if not charts:
        return paths
    rest = [p for p in paths if p not in charts]
    if args.chart or len(charts) > 1:
        raise UsageProblem(f"{charts[0]} is a chart: check one chart at a time, as "
                           f"dgdlint {args.command_name} --chart {charts[0]} -f VALUES")
    args.chart = charts[0]
    print(f"dgdlint: {args.chart} is a chart: rendering it with its default values (as --chart {args.chart}"
          f"{' with ' + ', '.join('-f ' + v for v in args.values) if args.values else ''})", file=sys.stderr)
    return rest


def empty_input_finding(inputs_: Inputs, objects: int, findings) -> Finding | None:
    """No Kubernetes object anywhere in the input, and nothing else wrong with it: an error of its own."""
    from dgdlint.load import parse_finding

    if objects or any(f.severity == "error" for f in findings):
        return None
    files = list(dict.fromkeys(inputs_.loaded.files)) or inputs_.sources or ["-"]
    where = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    if not inputs_.loaded.files and inputs_.sources:
        where += " (no .yaml, .yml or .json file)"
    return parse_finding(files[0] if inputs_.loaded.files else (inputs_.sources or ["-"])[0], 1, 1,
                         f"no Kubernetes objects found in {where}",
                         "Give files of Kubernetes objects (for a chart: --chart DIR -f VALUES); if an empty input "
                         "is fine, pass --allow-empty.", rule="no-objects")


def load_path_inputs(paths: list[str], loaded: LoadResult, config=None, jobs: int | None = 1,
                     meanwhile=None) -> LoadResult:
    """Files, directories and `-`, into `loaded` (in `jobs` worker processes: load.workers)."""
    from dgdlint.load import UsageError, expand_paths, load_paths

    try:
        expanded = [p for p in expand_paths(paths) if p == "-" or config is None or not config.excluded(p)]
        result = load_paths(expanded, jobs=jobs, meanwhile=meanwhile)
    except UsageError as error:
        raise UsageProblem(str(error)) from None
    loaded.extend(result)
    return loaded


def render_into(loaded: LoadResult, args, values_files: list[str], prefix: str = "",
                rendered: dict | None = None) -> list[Finding]:
    """Render `args.chart` with these values files (and --set) into `loaded`; a finding when it does not
    render. `prefix` goes before each template's name (diff's old side). With --render-out DIR each rendered
    template is written there and read from there; else `rendered` learns, for a chart directory, which
    template of the repository each rendered name comes from (see commands.locations)."""
    from dgdlint.load import load_paths, load_text
    from dgdlint.render import EngineMissing, RenderError, RenderRequest, render_chart, render_finding

    # A values file that is not valid YAML: said at its own line, before Helm says it without the file name.
    broken = [f for values_file in values_files for f in load_paths([values_file]).findings if f.severity == "error"]
    if broken:
        for finding in broken:
            finding.message = f"values file: {finding.message}"
        return broken
    with chart_directory(args.chart) as chart:
        request = RenderRequest(chart=chart, values_files=values_files, set_values=args.set_values,
                                set_string_values=args.set_string_values, release=args.release,
                                namespace=args.namespace)
        try:
            templates = render_chart(request, engine=args.engine)
        except EngineMissing as error:
            raise UsageProblem(str(error)) from None
        except RenderError as error:
            return [render_finding(args.chart, str(error), values_files, set_keys(args))]
    out = getattr(args, "render_out", None)
    for template in templates:
        name = prefix + template.source
        if out:
            name = write_rendered(out, name, template.text)
        elif rendered is not None and not is_chart_archive(args.chart):
            source = os.path.normpath(os.path.join(args.chart, template.source.partition("/")[2]))
            if os.path.isfile(source):
                rendered[name] = (source, template.text)
        load_text(name, template.text, loaded)
    return []


def write_rendered(folder: str, name: str, text: str) -> str:
    path = os.path.join(folder, name)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise UsageProblem(f"--render-out {folder}: {error.strerror}") from None
    return path


@contextlib.contextmanager
def chart_directory(chart: str) -> Iterator[str]:
    """The chart as a directory: itself, or a packaged chart unpacked into a temporary folder."""
    if not is_chart_archive(chart):
        yield chart
        return
    import tarfile  # only for a packaged chart: tarfile pulls in compression modules at start-up
    import tempfile

    with tempfile.TemporaryDirectory(prefix="dgdlint-chart-") as folder:
        try:
            with tarfile.open(chart, "r:gz") as archive:
                archive.extractall(folder, filter="data")  # no absolute paths, links out or devices
        except (tarfile.TarError, OSError) as error:
            raise UsageProblem(f"{chart}: not a packaged chart ({error})") from None
        tops = [name for name in os.listdir(folder) if os.path.isfile(os.path.join(folder, name, "Chart.yaml"))]
        if len(tops) != 1:
            raise UsageProblem(f"{chart}: not a packaged chart (no one top folder with a Chart.yaml)")
        yield os.path.join(folder, tops[0])
