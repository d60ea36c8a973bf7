"""How `plan` counts: pods per kind, a pod's effective request (init and sidecar containers), limits,
shared memory, and what it leaves out (Helm test hooks, a DaemonSet's unknown pod count)."""

from __future__ import annotations

import re
import textwrap

import pytest

from dgdlint.engine import check_texts
from refdata import ROOT

GI = 2**30


@pytest.fixture
def manifests(tmp_path):
    def write(text: str) -> str:
        path = tmp_path / "set.yaml"
        path.write_text(textwrap.dedent(text))
        return str(path)

    return write


def container(name: str, requests: dict | None = None, limits: dict | None = None, extra: str = "") -> str:
    lines = [f"- name: {name}", "  image: busybox:1.36"]
    if requests or limits:
        lines.append("  resources:")
        for table, values in (("requests", requests), ("limits", limits)):
            if values:
                lines.append(f"    {table}: {{{', '.join(f'{k}: {v!r}' for k, v in values.items())}}}")
    lines += [f"  {line}" for line in extra.splitlines() if line]
    return "\n".join(lines)


def job(name: str, containers: list[str], inits: list[str] = (), spec: str = "", annotations: str = "") -> str:
    body = textwrap.indent("\n".join(containers), " " * 8)
    init = ("      initContainers:\n" + textwrap.indent("\n".join(inits), " " * 8) + "\n") if inits else ""
    meta = f"  annotations: {annotations}\n" if annotations else ""
    return (f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n{meta}spec:\n{spec}  template:\n"
            f"    spec:\n      restartPolicy: Never\n{init}      containers:\n{body}\n")


def test_a_pod_reserves_the_larger_of_its_containers_sum_and_its_largest_init_container(plan_json, manifests):
    path = manifests(job("download", [container("a", {"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"}),
                                      container("b", {"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "2Gi"})],
                         [container("fetch", {"cpu": "2", "memory": "1Gi", "nvidia.com/gpu": 1},
                                    {"cpu": "2", "memory": "1Gi", "nvidia.com/gpu": 1})]))
    _code, plan = plan_json(path)
    [part] = plan["workloads"]
    assert part["cpu"] == {"request": 2.0, "limit": 2.0}  # the init container's 2 beats 1 + 0.5
    assert part["memory"] == {"request": 2 * GI, "limit": 3 * GI}  # the sum 1Gi + 1Gi beats the init's 1Gi
    assert part["gpus"] == [{"resource": "nvidia.com/gpu", "per_pod": 1}]


def test_a_sidecar_init_container_runs_beside_the_others_and_adds_up(plan_json, manifests):
    sidecar = container("proxy", {"cpu": "1"}, {"cpu": "1"}, extra="restartPolicy: Always")
    path = manifests(job("with-sidecar", [container("main", {"cpu": "2"}, {"cpu": "2"})],
                         [sidecar, container("setup", {"cpu": "2"}, {"cpu": "2"})]))
    _code, plan = plan_json(path)
    # running: main 2 + sidecar 1 = 3; setup starts after the sidecar: 2 + 1 = 3
    assert plan["workloads"][0]["cpu"] == {"request": 3.0, "limit": 3.0}


def test_a_limit_alone_is_the_request_and_a_missing_limit_is_unbounded(run_plan, plan_json, manifests):
    path = manifests(job("only-limits", [container("a", limits={"cpu": "3", "memory": "4Gi"}),
                                         container("b", requests={"cpu": "1"})]))
    _code, plan = plan_json(path)
    assert plan["workloads"][0]["cpu"] == {"request": 4.0, "limit": None}
    assert plan["totals"]["limits"] == {"cpu": None, "memory": None}
    _code, out = run_plan(path)
    assert "    CPU            4 (limit none)\n" in out
    assert "CPU 4 (limit none), memory 4Gi (limit none)" in out


def test_a_job_runs_parallelism_pods_at_once_but_never_more_than_its_completions(plan_json, manifests):
    one = container("w", {"cpu": "1"}, {"cpu": "1"})
    text = "---\n".join([job("wide", [one], spec="  parallelism: 4\n"),
                         job("capped", [one], spec="  parallelism: 4\n  completions: 2\n"),
                         job("plain", [one])])
    _code, plan = plan_json(manifests(text))
    assert [(w["name"], w["pods"], w["pods_note"]) for w in plan["workloads"]] == [
        ("wide", 4, "4 pods at once"), ("capped", 2, "2 pods at once"), ("plain", 1, "1 pod at once")]
    assert plan["totals"]["cpu"] == 7.0
    assert plan["totals_without_jobs"]["cpu"] == 0.0


def test_deployments_count_their_replicas_a_daemonset_is_not_counted(run_plan, plan_json, manifests):
    pod_spec = "  template:\n    spec:\n      containers:\n" + textwrap.indent(
        container("c", {"cpu": "1", "nvidia.com/gpu": 1}, {"cpu": "1", "nvidia.com/gpu": 1}), " " * 8) + "\n"
    text = (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n{pod_spec}"
            f"---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n{pod_spec}")
    path = manifests(text)
    _code, plan = plan_json(path)
    assert [(w["kind"], w["pods"]) for w in plan["workloads"]] == [("Deployment", 3), ("DaemonSet", None)]
    assert plan["totals"]["gpus"] == 3 and plan["totals_without_jobs"]["gpus"] == 3
    assert plan["not_counted"] == ["DaemonSet/default/agent"]
    _code, out = run_plan(path)
    assert "Not counted: DaemonSet agent (one pod per matching node, which depends on the cluster)\n" in out


def test_helm_test_hooks_are_left_out(plan_json, manifests):
    text = (job("smoke", [container("c", {"cpu": "1"}, {"cpu": "1"})], annotations='{"helm.sh/hook": "test"}')
            + "---\n" + job("real", [container("c", {"cpu": "1"}, {"cpu": "1"})]))
    _code, plan = plan_json(manifests(text))
    assert [w["name"] for w in plan["workloads"]] == ["real"]
    assert plan["totals"]["cpu"] == 1.0


def test_a_quantity_that_does_not_parse_is_named_and_left_out(run_plan, manifests):
    path = manifests(job("odd", [container("c", {"cpu": "lots", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"})]))
    _code, out = run_plan(path)
    assert "    not counted    c: cpu 'lots' (not quantities)\n" in out


DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: graph
spec:
  components:
    - name: Frontend
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/dynamo-frontend:1.5.0
    - name: Worker
      type: worker
      replicas: 2
      multinode:
        nodeCount: 2
      sharedMemorySize: "0"
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
              resources:
                limits:
                  nvidia.com/gpu: "8"
"""


def test_dgd_replicas_default_to_one_and_a_multinode_component_has_a_pod_per_node(run_plan, plan_json, manifests):
    path = manifests(DGD)
    _code, plan = plan_json(path)
    frontend, worker = plan["graphs"][0]["components"]
    assert (frontend["pods"], frontend["pods_note"]) == (1, "1 replica (default)")
    assert (worker["pods"], worker["pods_note"]) == (4, "2 replicas x 2 nodes")
    assert plan["totals"]["gpus"] == 32  # 8 GPUs on each node of each replica
    assert frontend["shared_memory"] == "8Gi (operator default)"
    assert worker["shared_memory"] == "disabled"  # sharedMemorySize "0"
    _code, out = run_plan(path)
    assert ("  Worker (worker): 2 replicas x 2 nodes\n"
            "    GPUs           8 x nvidia.com/gpu per pod, any product\n") in out


def test_v1alpha1_shared_memory_can_be_disabled(plan_json, manifests):
    text = """\
    apiVersion: nvidia.com/v1alpha1
    kind: DynamoGraphDeployment
    metadata:
      name: graph
    spec:
      services:
        Worker:
          componentType: worker
          sharedMemory:
            disabled: true
          resources:
            limits: {gpu: "1"}
    """
    _code, plan = plan_json(manifests(text))
    [worker] = plan["graphs"][0]["components"]
    assert worker["shared_memory"] == "disabled"
    assert worker["gpus"] == [{"resource": "nvidia.com/gpu", "per_pod": 1}]


def test_a_job_shared_memory_is_its_memory_backed_dev_shm_volume(plan_json, manifests):
    text = job("shm", [container("c", {"cpu": "1"}, {"cpu": "1"}, extra="volumeMounts:\n"
                                                                        "  - {name: shm, mountPath: /dev/shm}")])
    text += "      volumes:\n        - name: shm\n          emptyDir: {medium: Memory, sizeLimit: 16Gi}\n"
    _code, plan = plan_json(manifests(text))
    assert plan["workloads"][0]["shared_memory"] == "16Gi"


def test_a_gpu_count_that_is_infinite_is_no_count_and_crashes_no_rule(run_plan, manifests):
    """Found by the fuzz test: `gpu: INF` parses as a float but not as a count."""
    text = (ROOT / "tests/rules/_base/regular-v1alpha1.yaml").read_text(encoding="utf-8")
    text = text.replace('          memory: 96Gi\n          gpu: "1"\n      sharedMemory',
                        '          memory: 96Gi\n          gpu: INF\n      sharedMemory')
    assert "gpu: INF" in text
    _code, out = run_plan(manifests(text))
    assert "internal-error" not in out
    assert not [f for f in check_texts({"set.yaml": text}).findings if f.rule == "internal-error"]


def deployment(name: str, replicas: int, requests: dict, annotations: str = "") -> str:
    meta = f"  annotations: {annotations}\n" if annotations else ""
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n{meta}spec:\n"
            f"  replicas: {replicas}\n  template:\n    spec:\n      containers:\n"
            + textwrap.indent(container("c", requests, requests), " " * 8) + "\n")


def test_a_pre_install_hook_runs_before_the_rest_of_a_first_install(run_plan, plan_json, manifests):
    """The download hook (1 GPU, 4 CPU) finishes before the workers (2 GPUs, 1 CPU each) are created: a first
    install needs the larger of the two phases, resource by resource; an upgrade runs the hook beside them."""
    hook = job("download", [container("c", {"cpu": "4", "nvidia.com/gpu": 1}, {"cpu": "4", "nvidia.com/gpu": 1})],
               annotations='{"helm.sh/hook": "pre-install,pre-upgrade"}')
    path = manifests(hook + "---\n" + deployment("workers", 2, {"cpu": "1", "nvidia.com/gpu": 1}))
    _code, plan = plan_json(path)
    assert (plan["totals"]["gpus"], plan["totals"]["cpu"]) == (3, 6.0)
    assert (plan["totals_first_install"]["gpus"], plan["totals_first_install"]["cpu"]) == (2, 4.0)
    assert plan["first_install_order"] == "helm"
    assert (plan["totals_without_jobs"]["gpus"], plan["totals_without_jobs"]["cpu"]) == (2, 2.0)
    _code, out = run_plan(path)
    assert "\nFirst install, hooks run first:  2 GPUs (2 x nvidia.com/gpu), CPU 4 (limit 4), " in out
    _code, markdown = run_plan(path, "--format", "markdown")
    assert "| first install, hooks run first | 2 (`nvidia.com/gpu`) | 4 (limit 4) |" in markdown


@pytest.mark.parametrize(("annotations", "first_install_cpu"), [
    ('{"helm.sh/hook": "pre-install"}', 8.0),  # before the 2 CPU of the rest: the larger
    ('{"helm.sh/hook": "post-install"}', 10.0),  # after: beside the rest
    ('{"helm.sh/hook": "pre-upgrade"}', 2.0),  # not created by an install at all
    ('{"helm.sh/hook": "pre-install", "argocd.argoproj.io/hook": "Sync"}', 8.0),  # Helm's annotation decides
    ('{"argocd.argoproj.io/hook": "PreSync"}', 8.0),
    ('{"argocd.argoproj.io/hook": "Sync"}', 10.0),
    ('{"argocd.argoproj.io/hook": "PostSync"}', 10.0),
    ('{"argocd.argoproj.io/hook": "SyncFail"}', 2.0),
    ('{"argocd.argoproj.io/hook": "presync"}', 2.0),  # names are exact: no known phase
    ('{"helm.sh/hook": " pre-install , pre-upgrade "}', 8.0),  # spaces around items are trimmed
])
def test_each_hook_phase_counts_where_an_install_runs_it(plan_json, manifests, annotations, first_install_cpu):
    hook = job("hooked", [container("c", {"cpu": "8"}, {"cpu": "8"})], annotations=annotations)
    _code, plan = plan_json(manifests(hook + "---\n" + deployment("rest", 2, {"cpu": "1"})))
    assert plan["totals"]["cpu"] == 10.0
    assert plan["totals_first_install"]["cpu"] == first_install_cpu


def _sync_hook(wave: str, cpu: str = "8", hook: str = "Sync", more: str = "") -> str:
    name = f"hook-{hook.lower()}-{re.sub('[^0-9a-z]', 'x', wave.lower())}{'-weighted' if more else ''}"
    return job(name, [container("c", {"cpu": cpu}, {"cpu": cpu})],
               annotations=f'{{"argocd.argoproj.io/hook": "{hook}", "argocd.argoproj.io/sync-wave": "{wave}"{more}}}')


def _in_wave(name: str, wave: str, cpu: str = "1") -> str:
    return deployment(name, 2, {"cpu": cpu}, annotations=f'{{"argocd.argoproj.io/sync-wave": "{wave}"}}')


@pytest.mark.parametrize(("documents", "first_install_cpu", "sequenced"), [
    # Argo CD's download mode: a Sync hook in wave 0 has finished before wave 1's pods exist.
    ([_sync_hook("0"), _in_wave("rest", "1")], 8.0, True),
    # A hook of a later wave runs beside what earlier waves left running.
    ([_sync_hook("1"), _in_wave("rest", "0")], 10.0, False),
    # Ordinary objects of every wave stay: together at the last.
    ([_in_wave("first", "0", "4"), _in_wave("rest", "1")], 10.0, False),
    # Two PreSync waves one after the other, then the rest: the largest of the three.
    ([_sync_hook("-1", hook="PreSync"), _sync_hook("0", "3", hook="PreSync"), _in_wave("rest", "0")], 8.0, True),
    # A wave is read as Go's strconv.Atoi reads it: "+1" is 1; " 1" and "1.0" are not numbers, and Helm's
    # hook weight (then 0) stands in.
    ([_sync_hook("0"), _in_wave("rest", "+1")], 8.0, True),
    ([_sync_hook("0"), _in_wave("rest", " 1")], 10.0, False),
    ([_sync_hook("0"), _in_wave("rest", "1.0")], 10.0, False),
    ([_sync_hook("0"), _in_wave("rest", "9223372036854775808")], 10.0, False),  # past Go's int: 0
    ([_sync_hook("x", more=', "helm.sh/hook-weight": "-5"'), _in_wave("rest", "0")], 8.0, True),
])
def test_argo_cd_waves_run_one_after_the_other_and_hooks_finish_within_theirs(
        run_plan, plan_json, manifests, documents, first_install_cpu, sequenced):
    path = manifests("---\n".join(documents))
    _code, plan = plan_json(path)
    assert plan["totals_first_install"]["cpu"] == first_install_cpu
    assert plan["first_install_order"] == ("argo-cd" if sequenced else None)
    _code, out = run_plan(path)
    assert ("\nFirst install, Argo CD's waves:  " in out) == sequenced
    _code, markdown = run_plan(path, "--format", "markdown")
    assert ("| first install, in Argo CD's sync waves |" in markdown) == sequenced


def test_without_install_hooks_the_first_install_is_every_pod(run_plan, plan_json, manifests):
    path = manifests(job("plain", [container("c", {"cpu": "1"})]) + "---\n" + deployment("rest", 1, {"cpu": "1"}))
    _code, plan = plan_json(path)
    assert plan["totals_first_install"] == plan["totals"]
    _code, out = run_plan(path)
    assert "First install" not in out


def test_an_unbounded_limit_in_either_phase_leaves_the_first_install_unbounded(plan_json, manifests):
    hook = job("download", [container("c", requests={"cpu": "1"})], annotations='{"helm.sh/hook": "pre-install"}')
    _code, plan = plan_json(manifests(hook + "---\n" + deployment("rest", 1, {"cpu": "1"})))
    assert plan["totals_first_install"]["limits"]["cpu"] is None
    assert plan["totals_first_install"]["cpu"] == 1.0
