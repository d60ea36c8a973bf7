"""Every cross-field rule of templates/validate-values.yaml fails with a message that shows the wrong
value beside the right ones, and has a passing twin; values.schema.json refuses typos at any depth."""

from __future__ import annotations

import json

import pytest
import yaml
from chart_support import CHART, render, render_error, support_matrix

# (id, failing values, expected message, passing twin)
RULES = [
    ("precision-per-variant",
     {"model": {"variant": "edge", "precision": "nvfp4"}},
     'model.precision "nvfp4" is not supported for variant "edge": use one of bf16, fp8',
     {"model": {"variant": "edge", "precision": "fp8"}}),
    ("gpu-count-per-precision",
     {"model": {"variant": "super", "precision": "bf16", "gpus": 4}},
     'model.gpus 4 is not supported for variant "super" precision "bf16": use one of 2, 1 (or leave it null for 2)',
     {"model": {"variant": "super", "precision": "bf16", "gpus": 1}}),
    ("tags-selector-agrees-with-gpus",
     {"model": {"tagsSelector": "n_gpus=2,nim_tp=2,nim_dp=1"}},
     'model.tagsSelector "n_gpus=2,nim_tp=2,nim_dp=1" asks for n_gpus=2 but each worker gets 1 GPU(s): '
     'make them agree (for example "n_gpus=1,nim_tp=1,nim_dp=1", or leave model.tagsSelector empty)',
     {"model": {"tagsSelector": "n_gpus=1,nim_tp=1,nim_dp=1,custom=yes"}}),
    ("tags-selector-parallelism-agrees-with-gpus",
     {"model": {"tagsSelector": "n_gpus=1,nim_tp=2,nim_dp=1"}},
     'model.tagsSelector "n_gpus=1,nim_tp=2,nim_dp=1" asks for nim_tp x nim_dp = 2 x 1 = 2 GPU(s) but each worker '
     'gets 1 GPU(s): make them agree (for example "n_gpus=1,nim_tp=1,nim_dp=1", or leave model.tagsSelector empty)',
     # Data parallelism counts too: two replicas of a one-GPU model on a two-GPU worker.
     {"model": {"variant": "super", "precision": "bf16", "tagsSelector": "n_gpus=2,nim_tp=1,nim_dp=2"}}),
    ("tags-selector-parallelism-without-n-gpus",
     {"model": {"variant": "super", "precision": "bf16", "tagsSelector": "nim_tp=1"}},
     'model.tagsSelector "nim_tp=1" asks for nim_tp x nim_dp = 1 x 1 = 1 GPU(s) but each worker gets 2 GPU(s): '
     'make them agree (for example "n_gpus=2,nim_tp=2,nim_dp=1", or leave model.tagsSelector empty)',
     {"model": {"variant": "super", "precision": "bf16", "tagsSelector": "nim_tp=2,profile=latency"}}),
    ("tags-selector-parallelism-is-a-count",
     {"model": {"tagsSelector": "n_gpus=1,nim_tp=one"}},
     'model.tagsSelector "n_gpus=1,nim_tp=one" gives nim_tp "one", which is not a whole number: use nim_tp and '
     'nim_dp with nim_tp x nim_dp = 1 (for example "n_gpus=1,nim_tp=1,nim_dp=1", or leave model.tagsSelector empty)',
     {"model": {"tagsSelector": "n_gpus=1,nim_tp=1"}}),
    ("tags-selector-data-parallelism-is-a-count",
     {"model": {"tagsSelector": "nim_tp=1,nim_dp=x"}},
     'model.tagsSelector "nim_tp=1,nim_dp=x" gives nim_dp "x", which is not a whole number',
     {"model": {"tagsSelector": "nim_dp=1"}}),
    ("pull-credentials-for-the-pods-outside-the-dgd",
     {"imagePullSecrets": []},
     'imagePullSecrets is empty and download.serviceAccountName is "", but the download Job and the test Pods pull '
     '"nvcr.io/nim/nvidia/cosmos3:2.1.0", which needs nvcr.io credentials: list a pull secret in imagePullSecrets '
     "(for example ngc-registry-secret), or set download.serviceAccountName to a service account (not default) "
     "whose imagePullSecrets hold one",
     {"imagePullSecrets": [], "download": {"serviceAccountName": "nim-puller"}}),
    ("pull-credentials-when-the-list-is-dropped",
     {"imagePullSecrets": None, "download": {"enabled": False}},
     'imagePullSecrets is empty and download.serviceAccountName is "", but the test Pods pull '
     '"nvcr.io/nim/nvidia/cosmos3:2.1.0", which needs nvcr.io credentials',
     # Nothing outside the DGD pulls from nvcr.io/nim (the operator supplies the DGD pods' pull secrets).
     {"imagePullSecrets": None, "download": {"enabled": False},
      "tests": {"image": {"repository": "registry.example.com/python", "tag": "3.12"}}}),
    ("pull-credentials-not-from-the-default-account",
     {"imagePullSecrets": [], "download": {"serviceAccountName": "default"}, "tests": {"enabled": False}},
     'imagePullSecrets is empty and download.serviceAccountName is "default", but the download Job pulls '
     '"nvcr.io/nim/nvidia/cosmos3:2.1.0", which needs nvcr.io credentials',
     # A mirror outside nvcr.io/nim: whether it needs credentials is the registry's business.
     {"imagePullSecrets": [], "image": {"repository": "registry.example.com/nim/cosmos3"}}),
    ("no-dflash-without-draft",
     {"model": {"variant": "edge", "useDflash": True}},
     'model.useDflash true is not supported for variant "edge", which ships no DFlash draft: '
     "use false or leave it null",
     {"model": {"variant": "edge", "useDflash": False}}),
    ("spec-method-known",
     {"mode": "streaming", "streaming": {"specMethod": "medusa"}},
     'streaming.specMethod "medusa" is not a known method: use one of dflash, ngram, none, '
     "or leave it empty for the image default",
     {"mode": "streaming", "streaming": {"specMethod": "ngram"}}),
    ("spec-method-without-draft",
     {"mode": "streaming", "model": {"variant": "edge"}, "streaming": {"specMethod": "dflash"}},
     'streaming.specMethod "dflash" is not supported for variant "edge", which ships no DFlash draft: '
     "use none or leave it empty",
     {"mode": "streaming", "model": {"variant": "edge"}, "streaming": {"specMethod": "none"}}),
    ("proxy-port-differs-from-http-port",
     {"worker": {"proxyPort": 8000}},
     "worker.proxyPort 8000 equals worker.httpPort 8000: the worker needs distinct ports "
     "(defaults: httpPort 8000, proxyPort 8080; 9090 is the operator's system port)",
     {"worker": {"proxyPort": 8001}}),
    ("ports-avoid-the-operators-system-port",
     {"worker": {"proxyPort": 9090}},
     "the operator's system port 9090 equals worker.proxyPort 9090: the worker needs distinct ports",
     {"worker": {"proxyPort": 9191}}),
    ("frontend-http-port-is-the-charts",
     {"frontend": {"extraArgs": ["--http-port=9000"]}},
     'frontend.extraArgs contains "--http-port=9000": the chart starts the frontend on --http-host 0.0.0.0 '
     "--http-port 8000, which the operator's Service, the PodMonitor and the tests rely on; remove it",
     {"frontend": {"extraArgs": ["--http-request-timeout", "300"]}}),
    ("ngc-key-needed-by-a-download",
     {"ngcApiKeySecret": {"name": ""}},
     "ngcApiKeySecret.name is empty but download.enabled is true: the download Job needs the NGC API key; name "
     "the secret in ngcApiKeySecret.name, or, with a cache that already holds the model (air-gapped), set "
     "download.enabled false",
     {"ngcApiKeySecret": {"name": ""}, "download": {"enabled": False}}),
    ("gated-download-needs-a-pinned-profile",
     {"download": {"mode": "gated"}},
     'download.mode "gated" needs model.profile',
     {"download": {"mode": "gated"}, "model": {"profile": "4f1e0c2a9b7d"}}),
    ("nim-image-not-latest",
     {"image": {"tag": "latest"}},
     'image.tag "latest" is not allowed: pin a release tag (for example "2.1.0") or set image.digest',
     {"image": {"tag": "2.1.0"}}),
    ("nim-image-pinned",
     {"image": {"tag": ""}},
     'image.tag and image.digest are both empty: set image.tag (for example "2.1.0") or image.digest',
     {"image": {"tag": "", "digest": "sha256:" + "0" * 64}}),
    ("frontend-image-not-latest",
     {"frontend": {"image": {"tag": "latest"}}},
     'frontend.image.tag "latest" is not allowed: pin a release tag (for example "20260906-c70f1c7") '
     "or set frontend.image.digest",
     # The streaming frontend runs the NIM image, so the regular frontend image is not used there.
     {"mode": "streaming", "frontend": {"image": {"tag": "latest"}}}),
    ("operator-injected-env",
     {"worker": {"extraEnv": [{"name": "DYN_NAMESPACE_WORKER_SUFFIX", "value": "x"}]}},
     "worker.extraEnv sets DYN_NAMESPACE_WORKER_SUFFIX, which the Dynamo operator injects: remove it "
     "(the operator owns DYN_NAMESPACE, DYN_NAMESPACE_WORKER_SUFFIX, DYN_DISCOVERY_BACKEND)",
     {"worker": {"extraEnv": [{"name": "DYN_LOG", "value": "debug"}]}}),
    ("operator-injected-env-on-frontend",
     {"frontend": {"extraEnv": [{"name": "DYN_DISCOVERY_BACKEND", "value": "kubernetes"}]}},
     "frontend.extraEnv sets DYN_DISCOVERY_BACKEND, which the Dynamo operator injects",
     {"frontend": {"extraEnv": [{"name": "DYN_LOG", "value": "debug"}]}}),
    ("ngc-key-never-literal",
     {"worker": {"extraEnv": [{"name": "NGC_API_KEY", "value": "nvapi-secret-value"}]}},
     "worker.extraEnv gives NGC_API_KEY a literal value: take it from a secret "
     "(valueFrom.secretKeyRef, or just set ngcApiKeySecret)",
     {"worker": {"extraEnv": [{"name": "NGC_API_KEY",
                               "valueFrom": {"secretKeyRef": {"name": "other", "key": "NGC_API_KEY"}}}]}}),
    ("ngc-key-only-from-a-secret",
     {"download": {"extraEnv": [{"name": "NGC_API_KEY",
                                 "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}}]}},
     "download.extraEnv takes NGC_API_KEY from something other than a secret: use valueFrom.secretKeyRef "
     "(or just set ngcApiKeySecret)",
     {"download": {"extraEnv": [{"name": "NGC_API_KEY",
                                 "valueFrom": {"secretKeyRef": {"name": "other", "key": "k"}}}]}}),
    ("extra-env-names-unique",
     {"worker": {"extraEnv": [{"name": "HF_HOME", "value": "/a"}, {"name": "HF_HOME", "value": "/b"}]}},
     "worker.extraEnv lists HF_HOME twice: keep one entry per name",
     {"worker": {"extraEnv": [{"name": "HF_HOME", "value": "/a"}, {"name": "HF_HUB_OFFLINE", "value": "1"}]}}),
    ("chart-owned-env",
     {"download": {"extraEnv": [{"name": "NIM_PRECISION", "value": "bf16"}]}},
     "download.extraEnv sets NIM_PRECISION, which the chart derives from model.precision: "
     "remove it from download.extraEnv and set model.precision",
     {"model": {"precision": "bf16"}}),
    ("existing-claim-needs-a-name",
     {"cache": {"create": False}},
     "cache.name is empty while cache.create is false: name the existing claim to reuse, or set cache.create true",
     {"cache": {"create": False, "name": "shared-cache"}}),
    ("claim-name-not-the-gate-volume",
     {"cache": {"create": False, "name": "model-cache-gate"}},
     'cache.name "model-cache-gate" is the name of the gate\'s own volume, and the operator names the v1alpha1 '
     "cache volume after its claim: choose another claim name (the default is <fullname>-model-cache)",
     {"cache": {"create": False, "name": "model-cache"}}),
    ("ingress-needs-a-host",
     {"ingress": {"enabled": True, "className": "nginx"}},
     "ingress.enabled is true but ingress.host is empty: set the host name clients use (for example "
     "reasoner.example.com)",
     {"ingress": {"enabled": True, "className": "nginx", "host": "reasoner.example.com"}}),
    ("ingress-class-for-the-operator",
     {"ingress": {"enabled": True, "host": "reasoner.example.com"}},
     "ingress.className is empty with operator.apiVersion v1alpha1: the operator creates the frontend's Ingress only "
     "for a named class; set ingress.className (for example nginx), or use operator.apiVersion v1beta1, whose "
     "Ingress (rendered by the chart) takes the cluster's default class",
     {"operator": {"apiVersion": "v1beta1"}, "ingress": {"enabled": True, "host": "reasoner.example.com"}}),
    ("service-annotations-need-v1alpha1",
     {"operator": {"apiVersion": "v1beta1"}, "frontend": {"serviceAnnotations": {"b": "2", "a": "1"}}},
     "frontend.serviceAnnotations (a, b) needs operator.apiVersion v1alpha1: v1beta1 has no per-component "
     "annotations that reach the operator's Service; use v1alpha1, or annotate the Service <fullname>-frontend "
     "yourself",
     {"operator": {"apiVersion": "v1alpha1"}, "frontend": {"serviceAnnotations": {"b": "2", "a": "1"}}}),
    ("disruption-budget-needs-a-bound",
     {"worker": {"podDisruptionBudget": {"enabled": True, "maxUnavailable": None}}},
     "worker.podDisruptionBudget is enabled with neither maxUnavailable nor minAvailable: "
     'set maxUnavailable (for example 1 or "25%") or minAvailable',
     {"worker": {"podDisruptionBudget": {"enabled": True, "maxUnavailable": None, "minAvailable": 1}}}),
    ("pod-monitor-scrapes-something",
     {"metrics": {"podMonitor": {"enabled": True, "frontend": {"enabled": False}, "worker": {"enabled": False}}}},
     "metrics.podMonitor.enabled is true but metrics.podMonitor.frontend.enabled and metrics.podMonitor.worker.enabled "
     "are both false: enable one of them, or set metrics.podMonitor.enabled false",
     {"metrics": {"podMonitor": {"enabled": True, "frontend": {"enabled": False}}}}),
    ("single-node-claim-with-several-workers",
     {"cache": {"accessMode": "ReadWriteOnce"}, "worker": {"replicas": 2}},
     'cache.accessMode "ReadWriteOnce" with worker.replicas 2: workers on different nodes cannot share the claim; '
     "use ReadWriteMany, or pin the workers to one node with worker.nodeSelector kubernetes.io/hostname",
     {"cache": {"accessMode": "ReadWriteOnce"}, "worker": {"replicas": 2,
                                                           "nodeSelector": {"kubernetes.io/hostname": "gpu-1"}}}),
    ("single-node-claim-with-scaled-workers",
     {"cache": {"accessMode": "ReadWriteOnce"}, "worker": {"scalingAdapter": {"enabled": True}}},
     'cache.accessMode "ReadWriteOnce" with worker.scalingAdapter.enabled: an autoscaler may add workers on other '
     "nodes, which cannot share the claim; use ReadWriteMany, or pin the workers to one node with "
     "worker.nodeSelector kubernetes.io/hostname",
     {"cache": {"accessMode": "ReadWriteOnce"}, "worker": {"scalingAdapter": {"enabled": True},
                                                           "nodeSelector": {"kubernetes.io/hostname": "gpu-1"}}}),
    ("seccomp-annotation",
     {"worker": {"podAnnotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}}},
     'worker.podAnnotations["seccomp.security.alpha.kubernetes.io/pod"]: the seccomp annotations gave way to the '
     "seccompProfile field",
     {"worker": {"podAnnotations": {"example.com/seccomp": "unconfined"}}}),
    ("container-seccomp-annotation",
     {"frontend": {"podAnnotations": {"container.seccomp.security.alpha.kubernetes.io/main": "runtime/default"}}},
     'frontend.podAnnotations["container.seccomp.security.alpha.kubernetes.io/main"]: the seccomp annotations',
     {"frontend": {"podAnnotations": {}}}),
    ("apparmor-annotation",
     {"worker": {"podAnnotations": {"container.apparmor.security.beta.kubernetes.io/main": "runtime/default"}}},
     'worker.podAnnotations["container.apparmor.security.beta.kubernetes.io/main"]: the AppArmor annotations gave '
     "way to the appArmorProfile field",
     {"worker": {"podAnnotations": {"example.com/apparmor": "runtime/default"}}}),
    ("deletion-cost-integer",
     {"download": {"podAnnotations": {"controller.kubernetes.io/pod-deletion-cost": "abc"}}},
     'download.podAnnotations["controller.kubernetes.io/pod-deletion-cost"] is "abc": a pod deletion cost is a '
     "32-bit integer",
     {"download": {"podAnnotations": {"controller.kubernetes.io/pod-deletion-cost": "-2147483648"}}}),
    ("tolerations-annotation",
     {"worker": {"podAnnotations": {"scheduler.alpha.kubernetes.io/tolerations": "[]"}}},
     'worker.podAnnotations["scheduler.alpha.kubernetes.io/tolerations"]: tolerations are not given as an '
     "annotation",
     {"worker": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}}),
    ("mirror-annotation",
     {"frontend": {"podAnnotations": {"kubernetes.io/config.mirror": "x"}}},
     'frontend.podAnnotations["kubernetes.io/config.mirror"]: the mirror-pod annotation belongs to static pods',
     {"frontend": {"podAnnotations": {"example.com/mirror": "x"}}}),
]

DELETION_COSTS = {"0": True, "100": True, "-5": True, "-007": True, "2147483647": True, "-2147483648": True,
                  "+5": False, "007": False, "2147483648": False, "-2147483649": False, "99999999999999999999": False,
                  "": False, "1.5": False, "abc": False}


@pytest.mark.parametrize("cost", sorted(DELETION_COSTS))
def test_a_pod_deletion_cost_renders_exactly_when_the_api_server_takes_it(cost):
    """The costs the API server takes (tests/cluster/test_chart_pod_annotations.py sends each to one) render."""
    values = {"worker": {"podAnnotations": {"controller.kubernetes.io/pod-deletion-cost": cost}}}
    if DELETION_COSTS[cost]:
        assert render(values).dgd["kind"] == "DynamoGraphDeployment"
    else:
        assert "a pod deletion cost is a 32-bit integer" in render_error(values)


@pytest.mark.parametrize(("failing", "message"), [(r[1], r[2]) for r in RULES], ids=[r[0] for r in RULES])
def test_cross_field_rule_fails_with_wrong_and_right_values(failing, message):
    assert message in render_error(failing)


@pytest.mark.parametrize("passing", [r[3] for r in RULES], ids=[r[0] for r in RULES])
def test_cross_field_rule_passing_twin_renders(passing):
    assert render(passing).dgd["kind"] == "DynamoGraphDeployment"


def test_ngc_key_message_never_shows_the_secret():
    message = render_error({"worker": {"extraEnv": [{"name": "NGC_API_KEY", "value": "nvapi-secret-value"}]}})
    assert "nvapi-secret-value" not in message


@pytest.mark.parametrize("name", ["DYN_NAMESPACE", "DYN_NAMESPACE_WORKER_SUFFIX", "DYN_DISCOVERY_BACKEND"])
def test_each_operator_injected_name_is_refused_in_worker_env(name):
    assert f"worker.extraEnv sets {name}, which the Dynamo operator injects" in render_error(
        {"worker": {"extraEnv": [{"name": name, "value": "x"}]}})


@pytest.mark.parametrize(("name", "value_path"), [
    ("NIM_MODEL_TYPE", "model.type"), ("NIM_MODEL_VARIANT", "model.variant"), ("NIM_PRECISION", "model.precision"),
    ("NIM_TAGS_SELECTOR", "model.tagsSelector"), ("NIM_USE_DFLASH", "model.useDflash"),
    ("NIM_STREAMING_SPEC_METHOD", "streaming.specMethod"), ("NIM_ENABLE_STREAMING", "mode"),
    ("NIM_DYNAMO_STREAMING_ENDPOINT", "streaming.endpoint"),
    ("NIM_DYNAMO_STREAMING_REQUEST_TIMEOUT_S", "streaming.requestTimeoutSeconds"),
    ("NIM_HTTP_API_PORT", "worker.httpPort"), ("NIM_DYNAMO_PROXY_PORT", "worker.proxyPort"),
    ("NIM_MODEL_PROFILE", "model.profile"),
])
def test_env_the_chart_keeps_consistent_across_objects_cannot_be_overridden_by_extra_env(name, value_path):
    message = render_error({"worker": {"extraEnv": [{"name": name, "value": "1"}]}})
    assert f"worker.extraEnv sets {name}, which the chart derives from {value_path}" in message


# --- values.schema.json ---------------------------------------------------------------------------

@pytest.mark.parametrize(("values", "where"), [
    ({"worker": {"resourcs": {}}}, "at '/worker': additional properties 'resourcs' not allowed"),
    ({"worker": {"resources": {"limits": {"cpus": "4"}}}},
     "at '/worker/resources/limits': additional properties 'cpus' not allowed"),
    ({"download": {"gate": {"timeoutSecond": 5}}}, "at '/download/gate': additional properties 'timeoutSecond'"),
    ({"worker": {"affinity": {"nodeAffinity": {"requiredDuringScheduling": {}}}}},
     "at '/worker/affinity/nodeAffinity': additional properties 'requiredDuringScheduling' not allowed"),
    ({"worker": {"tolerations": [{"key": "a", "operator": "Exists", "efect": "NoSchedule"}]}},
     "at '/worker/tolerations/0': additional properties 'efect' not allowed"),
    ({"worker": {"extraEnv": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "s", "keys": "k"}}}]}},
     "at '/worker/extraEnv/0/valueFrom/secretKeyRef'"),
    ({"modle": {}}, "additional properties 'modle' not allowed"),
    ({"cache": {"storageclass": "nfs"}}, "at '/cache': additional properties 'storageclass' not allowed"),
])
def test_a_misspelt_key_at_any_depth_fails_at_the_schema(values, where):
    message = render_error(values)
    assert "values don't meet the specifications of the schema" in message
    assert where in message


@pytest.mark.parametrize(("values", "where"), [
    ({"mode": "stream"}, "/mode"),
    ({"operator": {"apiVersion": "v2"}}, "/operator/apiVersion"),
    ({"model": {"variant": "ultra"}}, "/model/variant"),
    ({"model": {"precision": "int4"}}, "/model/precision"),
    ({"worker": {"extraEnv": [{"name": "PORT", "value": 8000}]}}, "/worker/extraEnv/0/value"),
    ({"model": {"gpus": 0}}, "/model/gpus"),
    ({"image": {"digest": "sha256:short"}}, "/image/digest"),
    # env sources the API server refuses in the pod (the DGD would be taken and its pods refused)
    ({"worker": {"extraEnv": [{"name": "APP", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels.app"}}}]}},
     "/worker/extraEnv/0/valueFrom/fieldRef/fieldPath"),
    ({"worker": {"extraEnv": [{"name": "GPUS",
                               "valueFrom": {"resourceFieldRef": {"resource": "limits.nvidia.com/gpu"}}}]}},
     "/worker/extraEnv/0/valueFrom/resourceFieldRef/resource"),
    ({"worker": {"extraEnv": [{"name": "TOKEN", "valueFrom": {}}]}}, "/worker/extraEnv/0/valueFrom"),
    ({"frontend": {"extraEnv": [{"name": "TOKEN", "valueFrom": {
        "fieldRef": {"fieldPath": "metadata.name"}, "secretKeyRef": {"name": "s", "key": "k"}}}]}},
     "/frontend/extraEnv/0/valueFrom"),
    ({"download": {"extraEnv": [{"name": "HF_TOKEN",
                                 "valueFrom": {"secretKeyRef": {"name": "HF_Token", "key": "token"}}}]}},
     "/download/extraEnv/0/valueFrom/secretKeyRef/name"),
    ({"download": {"extraEnv": [{"name": "MODEL",
                                 "valueFrom": {"configMapKeyRef": {"name": "models", "key": "..nano"}}}]}},
     "/download/extraEnv/0/valueFrom/configMapKeyRef/key"),
    ({"worker": {"envFrom": [{"prefix": "NIM_"}]}}, "/worker/envFrom/0"),
    ({"worker": {"envFrom": [{"configMapRef": {"name": "a"}, "secretRef": {"name": "b"}}]}}, "/worker/envFrom/0"),
    ({"worker": {"extraEnv": [{"name": "A=B", "value": "x"}]}}, "/worker/extraEnv/0/name"),
    ({"worker": {"envFrom": [{"prefix": "NIM=", "secretRef": {"name": "b"}}]}}, "/worker/envFrom/0/prefix"),
    ({"worker": {"envFrom": [{"prefix": "NIM_\u00e9", "secretRef": {"name": "b"}}]}}, "/worker/envFrom/0/prefix"),
    ({"worker": {"extraEnv": [{"name": "T", "valueFrom": {"fileKeyRef": {
        "volumeName": "files", "path": "../t.env", "key": "T"}}}]}}, "/worker/extraEnv/0/valueFrom/fileKeyRef/path"),
])
def test_enumerations_and_types_fail_at_the_schema(values, where):
    message = render_error(values)
    assert f"at '{where}'" in message


def test_env_sources_the_api_server_takes_render():
    """The passing twins of the env sources above: one label or annotation subscripted, every field the
    downward API gives an env var, hugepages, a key with dots, one envFrom source each, an envFrom prefix
    of any printable ASCII but '=' (as the server reads env names: relaxed, from Kubernetes 1.34)."""
    fields = ["metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
              "spec.host", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
              "metadata.labels['app.kubernetes.io/name']", "metadata.annotations['Example.COM/Note']"]
    env = [{"name": f"F{index}", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": path}}}
           for index, path in enumerate(fields)]
    env += [{"name": "HUGE", "valueFrom": {"resourceFieldRef": {"resource": "limits.hugepages-2Mi", "divisor": "1Mi"}}},
            {"name": "MODEL", "valueFrom": {"configMapKeyRef": {"name": "reasoner.models", "key": ".nano_v2-1"}}},
            {"name": "spaced name.x", "value": "relaxed"},
            {"name": "DEFAULTED", "valueFrom": {"fieldRef": {"apiVersion": "", "fieldPath": "metadata.name"}}},
            {"name": "TOKEN", "valueFrom": {"fileKeyRef": {"volumeName": "files", "path": "/run/t.env", "key": "T"}}}]
    rendered = render({"worker": {"extraEnv": env, "envFrom": [{"configMapRef": {"name": "a"}},
                                                                {"secretRef": {"name": "b"}, "prefix": "X_"},
                                                                {"secretRef": {"name": "c"}, "prefix": "nim.x- "}],
                                  "extraVolumes": [{"name": "files", "emptyDir": {}}]}})
    assert rendered.dgd
    from dgdlint.engine import check_texts

    findings = check_texts({"rendered.yaml": yaml.safe_dump_all(rendered.objects)}).findings
    assert [f for f in findings if f.rule in ("env-source-invalid", "pod-spec-invalid")] == []


def test_helm_globals_are_accepted_so_the_chart_can_be_a_subchart():
    assert render({"global": {"imageRegistry": "example"}}).dgd


def _schema() -> dict:
    return json.loads((CHART / "values.schema.json").read_text(encoding="utf-8"))


def _object_nodes(node, path="#"):
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            yield path, node
        for key, value in node.items():
            yield from _object_nodes(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _object_nodes(value, f"{path}/{index}")


# Free by design: Helm's globals (read by nothing), and Kubernetes objects the chart passes through as they
# are (extra objects, pod volumes of any source), which the API server validates.
PASS_THROUGH_OBJECTS = {"#/properties/global", "#/properties/extraObjects/items/anyOf/0", "#/definitions/volumes/items"}


def test_schema_closes_every_object_with_fixed_keys():
    for path, node in _object_nodes(_schema()):
        if path in PASS_THROUGH_OBJECTS:
            continue
        if "properties" in node or "patternProperties" in node:
            # an object of fixed keys, or a label map: label keys alone (values.schema.json's labelMap)
            assert node.get("additionalProperties") is False, path
        else:
            # A free-form map (annotations): any key, but string values.
            assert node.get("additionalProperties") == {"type": "string"}, path


def test_schema_uses_draft_07_only():
    schema = _schema()
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    text = json.dumps(schema)
    for newer in ("$defs", "unevaluatedProperties", "dependentRequired", "dependentSchemas", "prefixItems",
                  "$anchor", "$dynamicRef", "minContains"):
        assert f'"{newer}"' not in text, newer


def test_schema_enumerations_match_the_support_matrix():
    matrix = support_matrix()
    properties = _schema()["properties"]["model"]["properties"]
    assert set(properties["variant"]["enum"]) == set(matrix["variants"])
    precisions = {p for variant in matrix["variants"].values() for p in variant["precisions"]}
    assert set(properties["precision"]["enum"]) == precisions == set(matrix["precisions"])
