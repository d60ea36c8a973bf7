"""DeviceClasses (resource.k8s.io/v1) as the API server validates them on create (written from Kubernetes
1.37's resource validation; DRAExtendedResource is on, so extendedResourceName is kept): at most 32
selectors, each with a CEL expression the server compiles (device_cel.py); at most 32 configs, each an
opaque configuration (a driver's name and parameters that are a JSON object of at most 10 KiB, read as a
claim's are); an extendedResourceName that is an extended resource's name (with a domain other than
kubernetes.io, and a valid name once `requests.` is put before it)."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.device_config import opaque_problems, selector_problems
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.resource_claim import GROUP, MAX_CONFIG
from dgdlint.rules.syntax import qualified_name_problem


def extended_resource_problem(name: str) -> str | None:
    """Kubernetes' IsExtendedResourceName: a name with a domain, not in kubernetes.io, not starting with
    `requests.`, and a qualified name once `requests.` is put before it."""
    if "/" not in name or "kubernetes.io/" in name:
        return "is no extended resource name: one needs a domain of its own (such as nvidia.com/gpu)"
    if name.startswith("requests.") or qualified_name_problem(f"requests.{name}"):
        return "is no extended resource name (a domain and a name of at most 63 characters)"
    return None


def device_class_problems(obj):
    spec = as_map(obj.value.get("spec"))
    yield from selector_problems(as_list(spec.get("selectors")), ("spec", "selectors"))
    configs = as_list(spec.get("config"))
    if len(configs) > MAX_CONFIG:
        yield ("spec", "config"), f"has {len(configs)} configs; at most {MAX_CONFIG} are taken"
    else:
        for index, config in enumerate(configs):
            yield from opaque_problems(as_map(config), ("spec", "config", index))
    name = as_str(spec.get("extendedResourceName"))
    if name is not None and extended_resource_problem(name):
        yield ("spec", "extendedResourceName"), f"extendedResourceName {name!r} {extended_resource_problem(name)}"


@rule(
    name="device-class-invalid", code="DGD648", severity="error", family="admission",
    title="Device classes are ones the API server takes",
    rationale="""A DRA deployment may ship the DeviceClass its claims name (gpu.nvidia.com). The API server
    refuses one whose selector's CEL expression does not compile in the DRA environment (only `device` is
    declared) or does not evaluate to a bool, whose config has no opaque configuration, a bad driver name or
    parameters that are not a JSON object of at most 10 KiB, that has more than 32 selectors or configs,
    or whose extendedResourceName is no extended resource name (one with a domain other than
    kubernetes.io). The JSON schema takes all of these.""",
    remediation="Write selectors against device.driver, device.attributes[DOMAIN].NAME and "
                "device.capacity[DOMAIN].NAME, and give an extended resource its vendor's domain (example.com/gpu).",
    reads=("DeviceClass",),
)
def device_class_invalid(model: Model):
    for obj in model.objects:
        if obj.kind == "DeviceClass" and obj.group == GROUP and obj.version == "v1":
            for path, problem in device_class_problems(obj):
                yield Hit(obj, path, f"{obj.label}: {problem}")
