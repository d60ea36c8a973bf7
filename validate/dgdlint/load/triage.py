"""Which loaded files are manifests: a file of Kubernetes objects is checked; a Helm chart template is one
clear finding (render it with --chart); a YAML file without any object (a values file, a workflow) is
reported, or, in the pre-commit hook's mode (`--manifests-only`), left alone with the chart templates."""

from __future__ import annotations

import os

from dgdlint.load.result import LoadResult, parse_finding


def is_object(value: object) -> bool:
    """A Kubernetes object: a mapping that names its apiVersion and kind."""
    return isinstance(value, dict) and isinstance(value.get("apiVersion"), str) and isinstance(value.get("kind"), str)


def chart_of(file: str) -> str | None:
    """The chart directory a file belongs to (the nearest folder above it with a Chart.yaml), if any."""
    folder = os.path.dirname(os.path.abspath(file))
    for _ in range(6):
        if os.path.isfile(os.path.join(folder, "Chart.yaml")):
            return os.path.relpath(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None


def triage(loaded: LoadResult, manifests_only: bool = False, chart_given: str | None = None) -> list[str]:
    """Sort `loaded` in place as the module docstring says; returns the files left alone."""
    by_file: dict[str, list] = {}
    for document in loaded.documents:
        by_file.setdefault(document.file, []).append(document)
    errors = {f.file for f in loaded.findings if f.severity == "error"}
    dropped, replaced, skipped = set(), [], []
    for file in dict.fromkeys(loaded.files):
        documents = by_file.get(file, [])
        has_objects = any(is_object(d.value) for d in documents)
        template = file in loaded.template_syntax and (not has_objects or file in errors)
        if has_objects and not template:
            continue
        if not documents and file not in errors:
            continue  # empty, or only comments: the empty-input check speaks for the whole set
        if manifests_only and (template or file not in errors or file not in loaded.manifest_like):
            dropped.add(file)
            skipped.append(file)
            continue
        if manifests_only:
            continue  # a broken manifest: its findings stay
        if template:
            chart = chart_of(file) if file != "<stdin>" else None
            dropped.add(file)
            replaced.append(parse_finding(
                file, 1, 1, "a Helm template, not a manifest: render it with --chart "
                f"(dgdlint check --chart {chart or 'CHART'} -f VALUES)",
                "Check the chart's rendered output, not its templates.", rule="helm-template"))
        elif chart_given and file not in errors:
            dropped.add(file)
            replaced.append(parse_finding(
                file, 1, 1, "holds no Kubernetes object; to render the chart with these values, give the file "
                f"with -f: dgdlint check --chart {chart_given} -f {file}",
                "Give values files with -f next to --chart.", rule="not-an-object"))
    if dropped:
        loaded.documents = [d for d in loaded.documents if d.file not in dropped]
        loaded.findings = [f for f in loaded.findings if f.file not in dropped] + replaced
        loaded.files = [f for f in loaded.files if f not in skipped]
    return skipped
