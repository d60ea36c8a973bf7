"""Integers past int64 (and past uint64) in one field of a manifest, and whether the API server takes each,
shared by the schema tests (dgdlint's verdict, no cluster) and tests/cluster/test_integer_formats.py, which
sends every case to a real API server as YAML, as kubectl's files are read (sigs.k8s.io/yaml), and holds
`server_takes` to its answers.

What the server does: sigs.k8s.io/yaml reads an integer past int64 as a floating-point number (one up to
uint64's top keeps its digits, a longer one is rounded: 99999999999999999999 arrives as 1e20). No integer
field takes it, int32 or int64, of a custom resource ("must be of type int32: float64") or a built-in kind
("cannot unmarshal number ... into ... int32"), nor a string field ("must be of type string: number"); a
built-in quantity takes it as a number (a cpu limit of 99999999999999999999 is stored as 100E), unless it is
negative, and up to uint64's top compares its exact digits (a request of 9223372036854775809 is above a
limit of 9223372036854775808; past uint64 both are 1e20). int64's top itself fits an int64 field and no
int32 one."""

from __future__ import annotations

DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  backendFramework: vllm
  components:
    - name: Frontend
      type: frontend
      {component}
      podTemplate:
        spec:
          {pod}
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
              {container}
"""
DGD_ALPHA = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: demo
spec:
  backendFramework: vllm
  services:
    Frontend:
      componentType: frontend
      {service}
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  {job}
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: busybox:1.36
          {container}
"""
VALUES = ["9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
          "99999999999999999999"]
INT64_TOP = "9223372036854775807"
_IN_DGD = "spec.components[0].podTemplate.spec"
_IN_JOB = "spec.template.spec.containers[0]"


def _dgd(component: str = "", pod: str = "", container: str = "") -> str:
    return DGD.format(component=component, pod=pod, container=container)


def _job(job: str = "", container: str = "") -> str:
    return JOB.format(job=job, container=container)


# name: (the manifest with {value} in one field, the field's type, the path dgdlint names)
PLACES = {
    "dgd-v1beta1-replicas": (_dgd(component="replicas: {value}"), "int32", "spec.components[0].replicas"),
    "dgd-v1alpha1-replicas": (DGD_ALPHA.format(service="replicas: {value}"), "int32",
                              "spec.services.Frontend.replicas"),
    "dgd-v1alpha1-env-value": (DGD_ALPHA.format(service="envs: [{{name: X, value: {value}}}]"), "string",
                               "spec.services.Frontend.envs[0].value"),
    "dgd-v1beta1-active-deadline": (_dgd(pod="activeDeadlineSeconds: {value}"), "int64",
                                    f"{_IN_DGD}.activeDeadlineSeconds"),
    "dgd-v1beta1-container-port": (_dgd(container="ports: [{{containerPort: {value}}}]"), "int32",
                                   f"{_IN_DGD}.containers[0].ports[0].containerPort"),
    "dgd-v1beta1-env-value": (_dgd(container="env: [{{name: X, value: {value}}}]"), "string",
                              f"{_IN_DGD}.containers[0].env[0].value"),
    "job-backoff-limit": (_job(job="backoffLimit: {value}"), "int32", "spec.backoffLimit"),
    "job-active-deadline": (_job(job="activeDeadlineSeconds: {value}"), "int64", "spec.activeDeadlineSeconds"),
    "job-container-port": (_job(container="ports: [{{containerPort: {value}}}]"), "int32",
                           f"{_IN_JOB}.ports[0].containerPort"),
    "job-env-value": (_job(container="env: [{{name: X, value: {value}}}]"), "string", f"{_IN_JOB}.env[0].value"),
    "job-cpu-limit": (_job(container="resources: {{limits: {{cpu: {value}}}}}"), "quantity",
                      f"{_IN_JOB}.resources.limits.cpu"),
}
CASES = [(place, value) for place in sorted(PLACES) for value in VALUES]


def manifest(place: str, value: str) -> str:
    return PLACES[place][0].format(value=value)


def server_takes(place: str, value: str) -> bool:
    """The API server's verdict (held to a real server by tests/cluster/test_integer_formats.py)."""
    kind = PLACES[place][1]
    return (kind == "quantity" and not value.startswith("-")) or (kind == "int64" and value == INT64_TOP)


# (request, limit) of a Job's cpu: whether the request is above the limit as the server reads the two numbers
QUANTITY_PAIRS = [("9223372036854775807", "9223372036854775806"), ("9223372036854775809", "9223372036854775808"),
                  ("18446744073709551615", "18446744073709551614"), ("99999999999999999999", "99999999999999999998")]


def cpu_request_and_limit(request: str, limit: str) -> str:
    return _job(container=f"resources: {{requests: {{cpu: {request}}}, limits: {{cpu: {limit}}}}}")


def server_number(text: str) -> int | float:
    """A whole number as the server's YAML reader passes it on: its digits from int64's bottom to uint64's
    top, else a float."""
    value = int(text)
    return value if -(2**63) <= value < 2**64 else float(value)


def server_takes_pair(request: str, limit: str) -> bool:
    return server_number(request) <= server_number(limit)
