"""Render a Helm chart with the real Helm engine: the `helm` binary when it is on PATH, else the
embedded Helm SDK (helm-python-sdk). Both take the same inputs and give the same output shape, so
nothing downstream knows which engine ran."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dgdlint.set_values import SetError, apply_set, key_parts
from dgdlint.withheld import without_ngc_keys

NOTES_SUFFIX = "NOTES.txt"


class RenderError(Exception):
    """The chart did not render: bad values, a failed template, a schema violation."""


class EngineMissing(Exception):
    """No Helm engine: no `helm` binary on PATH and the embedded SDK not installed (the `helm` extra), or the
    engine asked for (`--engine binary`, `--engine sdk`) is the one missing."""

    def __init__(self, message: str = ""):
        super().__init__(message or "no Helm engine: put the helm binary on PATH, or install the embedded one "
                                    "with pip install 'dgdlint[helm]'")


def _helm_sdk():
    try:
        import helm_python
    except ImportError:
        raise EngineMissing() from None
    return helm_python


@dataclass(frozen=True)
class RenderedTemplate:
    """One template's output. `source` is the chart-relative path, e.g. `cosmos3-reasoner/templates/job.yaml`."""

    source: str
    text: str


@dataclass
class RenderRequest:
    chart: str | os.PathLike[str]
    values_files: Sequence[str | os.PathLike[str]] = ()
    set_values: Sequence[str] = ()
    set_string_values: Sequence[str] = ()
    release: str = "cosmos3-reasoner"
    namespace: str = "default"
    extra_values: dict | None = field(default=None)  # merged last, as a last --set would be
    kube_version: str | None = None  # the binary's --kube-version (the SDK renders for its own, sdk_kube_version())


def available_engines() -> list[str]:
    engines = []
    if shutil.which("helm"):
        engines.append("binary")
    engines.append("sdk")
    return engines


def render_chart(request: RenderRequest, engine: str = "auto", helm: str = "helm") -> list[RenderedTemplate]:
    """Render every template of the chart, NOTES.txt excluded, in a stable order.

    engine: "auto" (binary when on PATH, else SDK), "binary" or "sdk"; helm: the binary to run.
    """
    chart = Path(request.chart)
    if not (chart / "Chart.yaml").is_file():
        raise RenderError(f"{chart}: not a chart directory (no Chart.yaml)")
    for values_file in request.values_files:
        if not Path(values_file).is_file():
            raise RenderError(f"{values_file}: values file not found")
    if engine == "auto":
        engine = "binary" if shutil.which("helm") else "sdk"
    if engine == "binary":
        if shutil.which(helm) is None:
            raise EngineMissing(f"--engine binary: no {helm} binary on PATH (--engine sdk, or auto, uses the "
                                "embedded one)")
        return _render_with_binary(request, helm)
    if engine == "sdk":
        return _render_with_sdk(request)
    raise ValueError(f"unknown engine {engine!r}")


def sdk_kube_version() -> str:
    """The Kubernetes version the embedded SDK renders for (its `.Capabilities.KubeVersion`); a binary given
    the same --kube-version renders the same objects."""
    import tempfile

    import helm_python

    with tempfile.TemporaryDirectory() as probe:
        Path(probe, "templates").mkdir()
        Path(probe, "Chart.yaml").write_text("apiVersion: v2\nname: probe\nversion: 0.1.0\n", encoding="utf-8")
        Path(probe, "templates", "version.yaml").write_text("{{ .Capabilities.KubeVersion.Version }}", encoding="utf-8")
        with helm_python.Chart.load(probe) as chart:
            return next(iter(chart.render({}, name="probe", namespace="default").values())).strip()


def render_notes(request: RenderRequest) -> str:
    """NOTES.txt as the SDK renders it (the binary prints it only on install)."""
    rendered = _sdk_render_all(request)
    return "".join(text for name, text in sorted(rendered.items()) if name.endswith(NOTES_SUFFIX))


def merge_values(base: dict, override: dict) -> dict:
    """Merge two values trees the way Helm merges successive -f files: maps deep, the rest replaced."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_values(merged[key], value)
        else:
            merged[key] = value
    return merged


def user_values(request: RenderRequest) -> dict:
    """The values a user supplies (files in order, then --set, then --set-string, each written into the values
    before it), parsed by Helm."""
    helm_python = _helm_sdk()

    values: dict = {}
    try:
        for values_file in request.values_files:
            text = Path(values_file).read_text(encoding="utf-8")
            parsed = helm_python.values_from_yaml(text) if text.strip() else {}
            values = merge_values(values, parsed or {})
    except helm_python.HelmError as error:
        raise RenderError(_clean_helm_message(str(error))) from None
    except (OSError, UnicodeDecodeError) as error:
        raise RenderError(f"cannot read values: {error}") from None
    # Written into the files' values, as the Helm CLI does; a refusal says which expression, with Helm's words
    # where Helm's parser refuses it (the CLI says "failed parsing --set data: ..." without the expression).
    for flag, expressions, parse in (("--set", request.set_values, helm_python.parse_set_string),
                                     ("--set-string", request.set_string_values, helm_python.parse_set_string_values)):
        for expression in expressions:
            try:
                apply_set(values, expression, parse)
            except (helm_python.HelmError, SetError) as error:
                raise RenderError(f"failed parsing {flag} {expression}: {_clean_helm_message(str(error))}") from None
    if request.extra_values:
        values = merge_values(values, request.extra_values)
    return values


def _sdk_render_all(request: RenderRequest) -> dict[str, str]:
    helm_python = _helm_sdk()

    values = user_values(request)
    try:  # `helm template` refuses a release name `helm install` would; the SDK's render does not ask
        helm_python.validate_release_name(request.release)
    except helm_python.HelmError as error:
        raise RenderError(f"release name \"{request.release}\": {_clean_helm_message(str(error))}") from None
    try:
        with helm_python.Chart.load(str(request.chart)) as chart:
            return chart.render(
                values,
                name=request.release,
                namespace=request.namespace,
                is_install=True,
            )
    except helm_python.HelmError as error:
        raise RenderError(_clean_helm_message(str(error))) from None


def _render_with_sdk(request: RenderRequest) -> list[RenderedTemplate]:
    rendered = _sdk_render_all(request)
    return [
        RenderedTemplate(name, text)
        for name, text in sorted(rendered.items())
        if not name.endswith(NOTES_SUFFIX) and text.strip()
    ]


_SOURCE_HEADER = re.compile(r"^# Source: (.+)$", re.MULTILINE)


def _render_with_binary(request: RenderRequest, helm: str = "helm") -> list[RenderedTemplate]:
    import tempfile

    import yaml

    command = [
        helm, "template", request.release, str(request.chart),
        "--namespace", request.namespace,
    ]
    if request.kube_version:
        command += ["--kube-version", request.kube_version]
    for values_file in request.values_files:
        command += ["-f", str(values_file)]
    for expression in request.set_values:
        command += ["--set", expression]
    for expression in request.set_string_values:
        command += ["--set-string", expression]
    extra_file = None
    try:
        if request.extra_values:
            extra_file = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
            yaml.safe_dump(request.extra_values, extra_file)
            extra_file.close()
            command += ["-f", extra_file.name]
        try:
            completed = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        except subprocess.TimeoutExpired:
            raise RenderError("helm template did not finish within 300 s") from None
    finally:
        if extra_file is not None:
            os.unlink(extra_file.name)
    if completed.returncode != 0:
        raise RenderError(_clean_helm_message(completed.stderr.strip() or completed.stdout.strip()))
    return split_template_stream(completed.stdout)


def split_template_stream(stream: str) -> list[RenderedTemplate]:
    """Split `helm template` output into one text per source template (documents of one template joined)."""
    by_source: dict[str, list[str]] = {}
    chunks = re.split(r"^---[ \t]*$", stream, flags=re.MULTILINE)
    for chunk in chunks:
        match = _SOURCE_HEADER.search(chunk)
        if not match or not chunk.strip():
            continue
        source = match.group(1).strip()
        body = chunk[match.end():].lstrip("\n")
        by_source.setdefault(source, []).append(body)
    return [RenderedTemplate(source, "---\n".join(parts)) for source, parts in sorted(by_source.items())]


def _clean_helm_message(message: str) -> str:
    message = message.strip()
    for prefix in ("Error: ", "error: "):
        if message.startswith(prefix):
            message = message[len(prefix):]
    return message


def as_stream(templates: Sequence[RenderedTemplate]) -> str:
    """The rendered set as one multi-document YAML stream with `# Source:` headers, like `helm template`."""
    parts = []
    for template in templates:
        parts.append(f"---\n# Source: {template.source}\n{template.text.strip(chr(10))}\n")
    return "".join(parts)


def _locate_in_values(values_files: list[str], path: tuple) -> tuple[str, int, int, str] | None:
    """The values file (the last that sets it) and line of a key path such as ('model', 'variant')."""
    from dgdlint.load import format_path, load_paths

    for values_file in reversed(values_files):
        loaded = load_paths([values_file])
        for document in loaded.documents:
            for depth in range(len(path), 0, -1):
                if path[:depth] in document.places():
                    line, column = document.places()[path[:depth]]
                    return values_file, line, column, format_path(path)
    return None


def _without_keys(message: str) -> str:
    """Helm's message quotes the values it refuses (a schema pattern, a `fail`): an NGC key among them is
    never repeated."""
    return without_ngc_keys(message, "nvapi-...")


def _key_named(message: str) -> tuple | None:
    """The values key a failure names: Helm's schema pointer (`at '/model/variant'`), or the dotted key a
    chart `fail` message starts with (`model.gpus 2 is not ...`)."""
    pointer = re.search(r"at '(/[^']*)'", message)
    if pointer:  # a JSON pointer: `~1` is a `/` of the key, `~0` a `~`
        parts = (p.replace("~1", "/").replace("~0", "~") for p in pointer.group(1).strip("/").split("/") if p)
        return tuple(int(p) if p.isdigit() else p for p in parts)
    failed = re.search(r"execution error at \([^)]*\):\s*([A-Za-z][\w-]*(?:\.[\w-]+)+)\b", message)
    if failed:
        return tuple(failed.group(1).split("."))
    return None


def render_finding(chart: str, message: str, values_files=(), set_keys=()):
    """A chart that does not render is input that does not parse: one error finding. It is placed at the
    values-file line holding the key the failure names, unless that key came from --set or --set-string (then
    at the chart, naming the flag and key that set it last: `set_keys` is (flag, key) pairs in Helm's order),
    else at the template the error names."""
    from dgdlint.findings import Finding

    file, line, column, field = chart, 1, 1, ""
    key = _key_named(message)
    dotted = ".".join(map(str, key)) if key is not None else ""
    def related(given: str) -> bool:  # the key set, or a map above it or below it
        wanted, named = [str(part) for part in key], key_parts(given)
        return wanted[:len(named)] == named or named[:len(wanted)] == wanted

    # The last flag to name the key is the one whose value Helm kept (--set-string after --set).
    from_set = next((f"{flag} {k}" for flag, k in reversed(list(set_keys)) if key is not None and related(k)),
                    None)
    located = _locate_in_values(list(values_files), key) if key and values_files and not from_set else None
    template = re.search(r"execution error at \(([^():\s]+\.(?:yaml|tpl|txt)):([0-9]+):([0-9]+)\)", message) or \
        re.search(r"\(([^():\s]+\.(?:yaml|tpl|txt)):([0-9]+):([0-9]+)\)", message)
    if located:
        file, line, column, field = located
    elif from_set:
        field = dotted
    elif template:
        parent = os.path.dirname(os.path.abspath(chart)) if os.path.isdir(chart) else ""
        file = os.path.relpath(os.path.join(parent, template.group(1)))
        line, column = int(template.group(2)), int(template.group(3))
    said = f" (the value comes from {from_set})" if from_set and not located else ""
    return Finding(rule="helm-render", severity="error", stage="parse", file=file, line=line, column=column,
                   path=field, message=f"the chart did not render: {_without_keys(' '.join(message.split()))}{said}",
                   remediation="Fix the values named in the message (the chart's schema and checks say what "
                               "is allowed).")
