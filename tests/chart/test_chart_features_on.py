"""Every preset with every production feature switched on (ingress, PodMonitors, the workers' disruption
budget, topology spread and priority classes) still renders tidy YAML, passes `helm lint --strict` without
a single message, and passes dgdlint with no error and no warning: the schema stage checks the DGD against
the Dynamo CRD when ../shared/reference/dynamo-crds is at hand, the built-in kinds against Kubernetes."""

from __future__ import annotations

import functools

import helm_python
import pytest
from chart_support import CHART, REFERENCE, VALUES_DIR, preset_files

from dgdlint.engine import check_texts
from dgdlint.render import RenderRequest, render_chart, user_values
from dgdlint.schema import SchemaStage

CRD_DIR = REFERENCE / "dynamo-crds"
PRESETS = [path.name for path in preset_files()]
SPREAD = {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}
FEATURES_ON = {
    "operator": {"priorityClassName": "grove-serving"},
    "ingress": {"enabled": True, "host": "reasoner.example.com", "className": "nginx",
                "tls": {"secretName": "reasoner-tls"},
                "annotations": {"nginx.ingress.kubernetes.io/proxy-body-size": "16m"}},
    "metrics": {"podMonitor": {"enabled": True, "labels": {"release": "kube-prometheus-stack"},
                               "scrapeTimeout": "10s"}},
    "worker": {"podDisruptionBudget": {"enabled": True}, "priorityClassName": "gpu-serving",
               "topologySpreadConstraints": [SPREAD]},
    "frontend": {"priorityClassName": "frontend-high", "topologySpreadConstraints": [
        {**SPREAD, "topologyKey": "topology.kubernetes.io/zone"}]},
}


@functools.cache
def schema_stage() -> SchemaStage:
    return SchemaStage([str(CRD_DIR)] if CRD_DIR.is_dir() else [])


def features_on(preset: str) -> dict:
    values = {key: dict(value) for key, value in FEATURES_ON.items()}
    request = RenderRequest(CHART, values_files=[VALUES_DIR / preset])
    if user_values(request).get("operator", {}).get("apiVersion", "v1alpha1") == "v1alpha1":
        values["frontend"]["serviceAnnotations"] = {"service.beta.kubernetes.io/aws-load-balancer-internal": "true"}
    return values


def rendered(preset: str) -> dict[str, str]:
    request = RenderRequest(CHART, values_files=[VALUES_DIR / preset], extra_values=features_on(preset))
    return {template.source: template.text for template in render_chart(request, engine="sdk")}


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_with_every_feature_on_passes_dgdlint_without_error_or_warning(preset):
    texts = rendered(preset)
    kinds = " ".join(texts.values())
    for kind in ("kind: PodMonitor", "kind: PodDisruptionBudget", "topologySpreadConstraints:",
                 "priorityClassName: gpu-serving", "priorityClassName: grove-serving"):
        assert kind in kinds, kind
    assert ("kind: Ingress" in kinds) == ("v1beta1" in preset)
    result = check_texts(texts, schema_stage())
    assert [(f.severity, f.rule, f.file, f.line, f.message) for f in result.findings if f.severity != "info"] == []


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_with_every_feature_on_renders_tidy_yaml(preset):
    for source, text in rendered(preset).items():
        if "/templates/tests/" in source:
            continue  # the embedded smoke client keeps Python's own blank lines (see test_chart_templates)
        assert text.startswith("apiVersion: "), source
        assert text.endswith("\n") and "\n\n" not in text, source
        assert not [line for line in text.splitlines() if line != line.rstrip()], source


@pytest.mark.parametrize("preset", [None, *PRESETS])
def test_helm_lint_strict_reports_nothing_with_every_feature_on(preset):
    files = [VALUES_DIR / preset] if preset else []
    values = user_values(RenderRequest(CHART, values_files=files, extra_values=features_on(preset or "nano-fp8.yaml")))
    report = helm_python.lint(str(CHART), values, strict=True)
    assert report.get("messages", []) == [] and not report.get("errors")
