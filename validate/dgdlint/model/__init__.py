"""One normalized view of a set of manifests.

A DynamoGraphDeployment reads the same whatever its shape (v1alpha1 `spec.services` or v1beta1
`spec.components`): components with a type, replicas, a main container (image, command, args, env
with where each value came from, resources, mounts) and pod settings. Jobs, Pods and other
workloads share the container and pod views; PVCs, Secrets and the rest stay plain objects.
Only model/build.py tells the shapes apart by apiVersion (model/documents.py reads the objects out of a
document). Every accessor tolerates wrong types, because rules run on objects that may have failed the
schema stage."""

from dgdlint.model.build import build_model, container_of, model_of
from dgdlint.model.graph import Component, Graph, Model, Pvc, Workload
from dgdlint.model.objects import (
    DEFAULT_GPU_RESOURCE,
    DGD_KIND,
    DYNAMO_GROUP,
    WORKLOAD_POD_SPEC,
    Container,
    EnvVar,
    KObject,
    Mount,
    api_group,
    as_list,
    as_map,
    as_str,
    canonical_json,
    is_gpu_resource,
    mount_fields,
    parse_count,
    walk,
)
from dgdlint.model.pod import PodSettings

__all__ = [
    "Component", "Container", "DEFAULT_GPU_RESOURCE", "DGD_KIND", "DYNAMO_GROUP", "EnvVar", "Graph", "KObject",
    "Model", "Mount", "PodSettings", "Pvc", "WORKLOAD_POD_SPEC", "Workload", "api_group", "as_list", "as_map", "as_str",
    "build_model", "canonical_json", "container_of", "is_gpu_resource", "model_of", "mount_fields",
    "parse_count", "walk"
]
