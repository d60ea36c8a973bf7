"""Loading a command's inputs, the one way every command does it: files, directories (recursive), `-` for
stdin, and a chart (a directory or a packaged `.tgz`) rendered with the real Helm engine. Problems with
the arguments themselves (a missing file, a chart that is no chart) raise UsageProblem (exit 2); input
that does not parse or render becomes findings (exit 1)."""

from __future__ import annotations

import contextlib
import os
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field

from dgdlint.commands.options import UsageProblem, set_keys
from dgdlint.findings import Finding
from dgdlint.load import LoadResult

CHART_ARCHIVE_SUFFIXES = (".tgz", ".tar.gz")


@dataclass
class Inputs:
    """What was read: the documents and their parse findings, plus findings of a chart that did not render."""

    loaded: LoadResult = field(default_factory=LoadResult)
    render_findings: list[Finding] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # what the user named, for messages

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


def load_inputs(args, config=None) -> Inputs:
    """The PATHs (minus what the configuration excludes) and the chart render of `args`."""
    paths = list(getattr(args, "paths", []) or [])
    if not paths and not args.chart:
        raise UsageProblem("give at least one PATH (or - for stdin), or --chart DIR")
    if (args.values or args.set_values or args.set_string_values) and not args.chart:
        raise UsageProblem("-f/--values and --set need --chart")
    check_chart_arguments(args)
    inputs = Inputs(sources=list(paths))
    if paths:
        load_path_inputs(paths, inputs.loaded, config)
    if args.chart:
        inputs.sources.append(args.chart)
        inputs.render_findings += render_into(inputs.loaded, args, list(args.values))
    return inputs


def load_path_inputs(paths: list[str], loaded: LoadResult, config=None) -> LoadResult:
    """Files, directories and `-`, into `loaded`."""
    from dgdlint.load import UsageError, expand_paths, load_paths

    try:
        expanded = [p for p in expand_paths(paths) if p == "-" or config is None or not config.excluded(p)]
        result = load_paths(expanded)
    except UsageError as error:
        raise UsageProblem(str(error)) from None
    loaded.documents += result.documents
    loaded.findings += result.findings
    loaded.files += result.files
    return loaded


def render_into(loaded: LoadResult, args, values_files: list[str], prefix: str = "") -> list[Finding]:
    """Render `args.chart` with these values files (and --set) into `loaded`; a finding when it does not
    render. `prefix` goes before each template's name (diff's old side)."""
    from dgdlint.load import load_text
    from dgdlint.render import RenderError, RenderRequest, render_chart, render_finding

    with chart_directory(args.chart) as chart:
        request = RenderRequest(chart=chart, values_files=values_files, set_values=args.set_values,
                                set_string_values=args.set_string_values, release=args.release,
                                namespace=args.namespace)
        try:
            templates = render_chart(request, engine=args.engine)
        except RenderError as error:
            return [render_finding(args.chart, str(error), values_files, set_keys(args))]
    for template in templates:
        load_text(prefix + template.source, template.text, loaded)
    return []


@contextlib.contextmanager
def chart_directory(chart: str) -> Iterator[str]:
    """The chart as a directory: itself, or a packaged chart unpacked into a temporary folder."""
    if not is_chart_archive(chart):
        yield chart
        return
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
