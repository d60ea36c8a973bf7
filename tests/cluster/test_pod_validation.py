"""The rules that stand for the API server's pod validation (container-resources-invalid,
env-value-and-value-from), against the real API server: each Job fixture of the rule is created (a
server-side dry run), and each v1beta1 DGD fixture's pod template is created as the Pod the operator would
make of it; the server refuses exactly the fixtures the rule fails, in the container the rule names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER, operator_pod
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULES = ("container-resources-invalid", "env-value-and-value-from")
FIXTURES = sorted(p for rule in RULES for p in (Path(__file__).parents[1] / "rules" / rule).glob("*/*.yaml"))
CASES = [p for p in FIXTURES if p.name.startswith("job-") or p.name.endswith("-v1beta1.yaml")]


def as_created(document: dict) -> dict:
    """The object the server is asked to create: the workload itself, or the Pod the operator makes of a DGD."""
    return operator_pod(document) if document["kind"] == "DynamoGraphDeployment" else document


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rule_fails(path, control_plane, namespace):
    refused = refused_fields(control_plane, namespace, as_created(yaml.safe_load(path.read_text(encoding="utf-8"))))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == path.parent.parent.name]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    # the server names a field of the same container (a missing limit at `limits`, the rule at the request)
    def container(field: str) -> str:
        return field.rsplit("containers", 1)[1].split("]", 1)[0]

    assert {container(field) for field in refused} <= {container(f.path) for f in ours}, (refused, ours)


CLAIMS = sorted((Path(__file__).parents[1] / "rules" / "claim-spec-invalid").glob("*/claim-*.yaml"))
OPERATOR_CLAIMS = sorted((Path(__file__).parents[1] / "rules" / "claim-spec-invalid").glob("*/dgd-*.yaml"))


@pytest.mark.parametrize("path", CLAIMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_the_claims_claim_spec_invalid_fails(path, control_plane, namespace):
    refused = refused_fields(control_plane, namespace, yaml.safe_load(path.read_text(encoding="utf-8")))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "claim-spec-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)


@pytest.mark.parametrize("path", OPERATOR_CLAIMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_claim_the_operator_makes_of_a_pvcs_entry_is_refused_where_the_rule_says(path, control_plane,
                                                                                    namespace):
    """The operator makes a claim of a v1alpha1 `pvcs` entry with `create: true`: its size as the storage
    request, its volumeAccessMode as the one access mode, its storageClass as the class."""
    [entry] = yaml.safe_load(path.read_text(encoding="utf-8"))["spec"]["pvcs"]
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": entry["name"]},
             "spec": {"accessModes": [entry["volumeAccessMode"]], "storageClassName": entry["storageClass"],
                      "resources": {"requests": {"storage": entry["size"]}}}}
    refused = refused_fields(control_plane, namespace, claim)
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "claim-spec-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)


WORKLOADS = sorted((Path(__file__).parents[1] / "rules" / "pod-spec-invalid").glob("*/*.yaml"))
BUILT_IN_WORKLOADS = [p for p in WORKLOADS if not p.name.startswith("dgd-")]


@pytest.mark.parametrize("path", BUILT_IN_WORKLOADS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_the_workloads_pod_spec_invalid_fails(path, control_plane, namespace):
    """Each Job or Deployment fixture of pod-spec-invalid is created (a server-side dry run): refused exactly
    where the rule fails it, on the field the rule names."""
    written = yaml.safe_load(path.read_text(encoding="utf-8"))
    refused = refused_fields(control_plane, namespace, written)
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "pod-spec-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    # each field the server names is one the rule names, inside one (a missing restartPolicy: at the spec),
    # or around one (an invalid selector is also refused as a whole, at spec.selector); a mount's subPath and
    # propagation it names without the mount's index, a downward API file without its item; a map key it
    # writes without quotes (labels[batch.kubernetes.io/job-name]); a pod template's labels without the
    # `metadata` its ObjectMeta is inlined from
    def unindexed(path: str) -> str:
        return re.sub(r"\[\d+\]", "", re.sub(r"\.items\[\d+\]", "", path))

    def unquoted(path: str) -> str:
        return re.sub(r"\['([^']*)'\]", r"[\1]", path)

    def inlined(path: str) -> str:
        return path.replace("template.metadata.", "template.")

    # a container's limit above the pod-level one: the server names it under the pod's resources
    refused = [re.sub(r"\.resources\.containers\[(\d+)\]\[([^\]]+)\]\.limits$", r".containers[\1].resources.limits.\2",
                      field) for field in refused]
    # a pod-level request named as a map key (requests[cpu]); one the server defaulted from the pod's limit
    # (none written), or the whole requests map it defaulted, named by the rule at that limit
    refused = [re.sub(r"\.resources\.(requests|limits)\[([A-Za-z0-9_-]+)\]$", r".resources.\1.\2", field)
               for field in refused]

    def defaulted_request(field: str, path: str) -> bool:
        match = re.fullmatch(r"(.*\.resources)\.requests(?:\.([A-Za-z0-9_-]+))?", field)
        if not match or not path.startswith(match[1] + ".limits."):
            return False
        key = path.removeprefix(match[1] + ".limits.")
        pod = written["spec"].get("template", {}).get("spec", written["spec"])
        return match[2] in (None, key) and key not in ((pod.get("resources") or {}).get("requests") or {})

    # a gcePersistentDisk's fields are named under `persistentDisk`, an iscsi initiatorName as `initiatorname`
    # (the paths validateVolumeSource and validateISCSIVolumeSource give them)
    refused = [field.replace(".persistentDisk.", ".gcePersistentDisk.").replace(".iscsi.initiatorname",
                                                                                  ".iscsi.initiatorName")
               for field in refused]
    # a pod's overhead, validated as a container's limits, is named under `limits`
    def overhead(key: re.Match) -> str:
        return f".overhead.{key[1]}" if re.fullmatch(r"[A-Za-z0-9_-]+", key[1]) else f".overhead[{key[1]}]"

    refused = [re.sub(r"\.overhead\.limits\[([^\]]+)\]", overhead, field) for field in refused]

    # an annotation it names as a child (annotations.<key>), a key (annotations[<key>]) or the map; a Job's
    # name at the template labels it writes from it (job-name); a name it generated from a generateName
    def annotation(field: str, path: str) -> bool:
        field, path = re.sub(r"annotations\.([^\[]+)", r"annotations[\1]", field), unquoted(inlined(path))
        return field == path or field.startswith((path + "[", path + "."))

    def written_from(field: str, path: str) -> bool:
        return (field, path) in (("spec.template.labels", "metadata.name"), ("metadata.name", "metadata.generateName"))

    assert all(any(field.startswith(unquoted(f.path)) or inlined(f.path).startswith((field + ".", field + "["))
                   or f.path.startswith(field + ".") or annotation(field, f.path)
                   or written_from(field, f.path) or defaulted_request(field, f.path)
                   or unindexed(f.path) == unindexed(field) for f in ours) for field in refused), (refused, ours)


CONFIG_DATA = sorted((Path(__file__).parents[1] / "rules" / "config-data-invalid").glob("*/*.yaml"))


@pytest.mark.parametrize("path", CONFIG_DATA, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_the_secrets_and_config_maps_config_data_invalid_fails(
        path, control_plane, namespace):
    """Sent as YAML, as kubectl reads the file: the server decodes the base64 itself."""
    refused = refused_fields(control_plane, namespace, path.read_text(encoding="utf-8"))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "config-data-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)


@pytest.mark.parametrize("path", [p for p in WORKLOADS if p.name.startswith("dgd-")],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_dgds_pod_is_refused_where_pod_spec_invalid_fails_its_template(path, control_plane, namespace):
    """A DGD's pod template, created as the Pod the operator would make of it."""
    refused = refused_fields(control_plane, namespace, as_created(yaml.safe_load(path.read_text(encoding="utf-8"))))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "pod-spec-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)


ENV_SOURCES = sorted((Path(__file__).parents[1] / "rules" / "env-source-invalid").glob("*/*.yaml"))


@pytest.mark.parametrize("path", ENV_SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_the_env_sources_env_source_invalid_fails(path, control_plane, namespace):
    """A Job is created as written, a DGD as the Pod the operator makes of it (a v1alpha1 service's envs and
    envFromSecret in its main container); each field the server names in a Job is one the rule names."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    refused = refused_fields(control_plane, namespace, as_created(document))
    ours = [f for f in check_paths([str(path)]).findings if f.rule == "env-source-invalid"]
    assert bool(refused) == bool(ours) == (path.parent.name == "fail"), (refused, ours)
    if document["kind"] == "Job":  # the server names an envFrom entry's count at the list, without its index,
        # and a label key's syntax at the fieldRef around its fieldPath
        assert all(any(field.startswith(f.path) or f.path.startswith(field + ".")
                       or re.sub(r"\[\d+\]$", "", f.path) == field for f in ours) for field in refused), (refused, ours)


# Divisors as written (strings, as a quoted YAML scalar reaches the server), each tried with a CPU, a memory
# and a hugepages resource: the server reads each as a quantity and compares its canonical text.
DIVISORS = ("1", "1m", "1000m", "0.001", "1e-3", "1e0", "1.0", "+1", "01", "1k", "1000", "1e3", "+1k", "01k",
            "1.0k", "1024", "1Ki", "1024Ki", "1Mi", "1048576", "1.5Mi", "1536Ki", "1E", "1Ei", "2", "0.5", "1M",
            "1000k", "0.001M", "1000000", "976.5625Ki", "1G", "1T", "0.1e1", "00.5", ".5", "007", "0.001k")


@pytest.mark.parametrize("resource", ("limits.cpu", "requests.memory", "limits.hugepages-2Mi"))
def test_a_divisor_is_refused_exactly_where_env_source_invalid_says(resource, control_plane, namespace):
    from dgdlint.rules.env_sources import value_from_problems

    env = [{"name": f"V{index}", "valueFrom": {"resourceFieldRef": {"resource": resource, "divisor": divisor}}}
           for index, divisor in enumerate(DIVISORS)]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "divisors"},
           "spec": {"containers": [{"name": "c", "image": "busybox:1.36.1", "env": env}]}}
    refused = {int(re.search(r"env\[(\d+)\]", field).group(1))
               for field in refused_fields(control_plane, namespace, pod)}
    ours = {index for index, entry in enumerate(env) if list(value_from_problems(entry, (), files=True))}
    assert {DIVISORS[i] for i in ours} == {DIVISORS[i] for i in refused}
