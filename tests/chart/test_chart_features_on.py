"""Every preset with every production feature switched on (ingress, PodMonitors, the workers' disruption
budget, topology spread and priority classes, the frontend's NetworkPolicy) and every escape hatch set
(extra volumes and mounts, envFrom, runtime classes, extra objects, proxy, custom CA, pull secrets as
objects, scaling adapters, ephemeral storage) still renders tidy YAML, passes `helm lint --strict` without
a single message, and passes dgdlint with no error and no warning: the schema stage checks the DGD against
the newest bundled Dynamo release's schema (schemas/), the built-in kinds against Kubernetes."""

from __future__ import annotations

import copy
import functools

import helm_python
import pytest
from chart_support import CHART, VALUES_DIR, preset_files

from dgdlint.engine import check_texts
from dgdlint.render import RenderRequest, render_chart, user_values
from dgdlint.schema import SchemaStage

PRESETS = [path.name for path in preset_files()]
SPREAD = {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}


def ESCAPE_HATCHES(component: str) -> dict:  # noqa: N802 (a constant made per component)
    return {"extraVolumes": [{"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}],
            "extraVolumeMounts": [{"name": "scratch", "mountPath": "/scratch"}],
            "envFrom": [{"configMapRef": {"name": f"{component}-settings"}}],
            "runtimeClassName": "nvidia"}


FEATURES_ON = {
    "operator": {"priorityClassName": "grove-serving"},
    "ingress": {"enabled": True, "host": "reasoner.example.com", "className": "nginx",
                "tls": {"secretName": "reasoner-tls"},
                "annotations": {"nginx.ingress.kubernetes.io/proxy-body-size": "16m"}},
    "metrics": {"podMonitor": {"enabled": True, "labels": {"release": "kube-prometheus-stack"},
                               "scrapeTimeout": "10s"}},
    "worker": {"podDisruptionBudget": {"enabled": True}, "priorityClassName": "gpu-serving",
               "topologySpreadConstraints": [SPREAD], **ESCAPE_HATCHES("worker"), "scalingAdapter": {"enabled": True},
               "resources": {"requests": {"ephemeral-storage": "20Gi"}, "limits": {"ephemeral-storage": "40Gi"}}},
    "frontend": {"priorityClassName": "frontend-high", "topologySpreadConstraints": [
        {**SPREAD, "topologyKey": "topology.kubernetes.io/zone"}], **ESCAPE_HATCHES("frontend"),
        "scalingAdapter": {"enabled": True}, "networkPolicy": {"enabled": True, "from": [
            {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gateway"}}}]}},
    "download": {**ESCAPE_HATCHES("download"), "resources": {"limits": {"ephemeral-storage": "10Gi"}}},
    "imagePullSecrets": [{"name": "ngc-registry-secret"}, "mirror-registry-secret"],
    "proxy": {"httpProxy": "http://proxy.example.com:3128", "httpsProxy": "http://proxy.example.com:3128",
              "noProxy": ".svc,.cluster.local,10.0.0.0/8"},
    "customCA": {"configMapName": "corporate-ca"},
    "extraObjects": [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "{{ .Release.Name }}-extra"},
         "data": {"note": "rendered with tpl"}},
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ .Release.Name }}-puller\n",
    ],
}


@functools.cache
def schema_stage() -> SchemaStage:
    stage = SchemaStage()
    assert stage.release is not None, "the bundled schemas (schemas/index.json) are missing"
    return stage


def features_on(preset: str) -> dict:
    values = copy.deepcopy(FEATURES_ON)
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
                 "priorityClassName: gpu-serving", "priorityClassName: grove-serving", "kind: NetworkPolicy",
                 "cosmos3-reasoner-extra", "kind: ServiceAccount", "runtimeClassName: nvidia",
                 "HTTPS_PROXY", "SSL_CERT_FILE", "scalingAdapter", "ephemeral-storage", "configMapRef"):
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
