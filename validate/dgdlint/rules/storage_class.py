"""StorageClasses as the API server validates them on create (written from Kubernetes 1.37's storage
validation, after the v1 defaults fill an unset reclaim policy and binding mode): a provisioner that is a
qualified name, at most 512 parameters of at most 256 KiB together with no empty key, a reclaim policy of
Delete or Retain, a binding mode of Immediate or WaitForFirstConsumer, and allowed topologies whose terms
name each key once with values, none twice, and no term twice (nor an empty one: the server compares each
term with as many empty placeholders as there are terms, so an empty term is refused as a duplicate)."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import qualified_name_problem

MAX_PARAMETERS = 512
MAX_PARAMETER_BYTES = 256 * 1024
RECLAIM_POLICIES = ("Delete", "Retain")
BINDING_MODES = ("Immediate", "WaitForFirstConsumer")


def _parameter_problems(parameters: dict):
    if len(parameters) > MAX_PARAMETERS:
        yield ("parameters",), f"has {len(parameters)} parameters; at most {MAX_PARAMETERS} are taken"
        return
    if "" in parameters:
        yield ("parameters",), "has a parameter with an empty name"
    size = sum(len(str(key).encode()) + len(str(value).encode()) for key, value in parameters.items())
    if size > MAX_PARAMETER_BYTES:
        yield ("parameters",), f"parameters hold {size} bytes of names and values; at most {MAX_PARAMETER_BYTES} " \
                               "are taken"


def _topology_problems(terms: list):
    seen: list[dict] = []
    for index, term in enumerate(terms):
        at = ("allowedTopologies", index, "matchLabelExpressions")
        expressions: dict[str, frozenset] = {}
        for position, expression in enumerate(as_list(as_map(term).get("matchLabelExpressions"))):
            expression, where = as_map(expression), at + (position,)
            values = [value for value in as_list(expression.get("values")) if isinstance(value, str)]
            if expression.get("values") == []:  # missing: the schema stage says so
                yield where + ("values",), f"topology term {index} has a key that lists no values (one at least " \
                                           "is needed)"
            for number, value in enumerate(values):
                if value in values[:number]:
                    yield where + ("values", number), f"topology term {index} lists value {value!r} twice"
            key = as_str(expression.get("key"))
            if key is None:
                continue  # not text: the schema stage says so
            problem = qualified_name_problem(key)
            if problem:
                yield where + ("key",), f"topology key {key!r} {problem}"
            if key in expressions:
                yield where + ("key",), f"topology term {index} names key {key!r} twice"
            expressions[key] = frozenset(values)
        if not expressions:  # the server compares each term with placeholders that equal an empty one
            yield ("allowedTopologies", index), f"topology term {index} is empty (the server takes it for a " \
                                                "duplicate; give it a matchLabelExpressions entry)"
        elif expressions in seen:
            yield at, f"topology term {index} is the same as an earlier one (the same keys and values)"
        seen.append(expressions)


def storage_class_problems(obj):
    provisioner = obj.value.get("provisioner")
    if isinstance(provisioner, str):
        problem = qualified_name_problem(provisioner.lower()) if provisioner else "is empty (one is required)"
        if problem:
            yield ("provisioner",), f"provisioner {provisioner!r} {problem}"
    yield from _parameter_problems(as_map(obj.value.get("parameters")))
    policy = obj.value.get("reclaimPolicy")
    if isinstance(policy, str) and policy and policy not in RECLAIM_POLICIES:
        yield ("reclaimPolicy",), f"reclaimPolicy {policy!r} is not one of {', '.join(RECLAIM_POLICIES)}"
    mode = obj.value.get("volumeBindingMode")
    if isinstance(mode, str) and mode not in BINDING_MODES:
        yield ("volumeBindingMode",), f"volumeBindingMode {mode!r} is not one of {', '.join(BINDING_MODES)}"
    yield from _topology_problems(as_list(obj.value.get("allowedTopologies")))


@rule(
    name="storage-class-invalid", code="DGD638", severity="error", family="admission",
    title="Storage classes are ones the API server takes",
    rationale="""A model cache's claim names a StorageClass, often shipped beside the deployment. The API
    server refuses one whose provisioner is empty or no qualified name, whose parameters are more than 512
    or 256 KiB together or have an empty name, whose reclaimPolicy is other than Delete or Retain (Recycle
    included), whose volumeBindingMode is other than Immediate or WaitForFirstConsumer, or whose
    allowedTopologies name a key twice in a term, a key without values or a value twice, or one term
    twice. The JSON schema takes all of these.""",
    remediation="Name the provisioner as its CSI driver does (example.com/nfs), keep reclaimPolicy Delete or "
                "Retain, and write each topology term once.",
    reads=("StorageClass",),
)
def storage_class_invalid(model: Model):
    for obj in model.objects:
        if obj.kind == "StorageClass" and obj.group == "storage.k8s.io":
            for path, problem in storage_class_problems(obj):
                yield Hit(obj, path, f"{obj.label}: {problem}")
