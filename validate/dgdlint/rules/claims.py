"""PersistentVolumeClaims as the API server validates them: at least one supported access mode
(ReadWriteOncePod alone), a storage request above zero, a storage class name that is a DNS subdomain.
For a claim object the apply is refused; for a v1alpha1 `spec.pvcs` entry with `create: true` the graph is
accepted and the claim the operator makes from it (its size, storageClass and volumeAccessMode) is refused,
so the workers wait for a volume that never comes."""

from __future__ import annotations

from dgdlint.cosmos import placeholder_in
from dgdlint.model import Model, Pvc
from dgdlint.quantity import go_quantity
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import dns1123_subdomain_problem

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")


def claim_problems(pvc: Pvc):
    """(path, problem) for what the API server refuses in the claim `pvc` is, or that the operator makes."""
    written = pvc.path == ()  # a claim object; else a v1alpha1 pvcs entry the operator turns into one
    modes_path = ("spec", "accessModes") if written else pvc.path + ("volumeAccessMode",)
    if written and not pvc.access_modes:
        yield ("spec",), "has no access mode (at least one is required)"
    for mode in pvc.access_modes:
        if mode not in ACCESS_MODES:
            yield modes_path, f"access mode {mode!r} is not one of {', '.join(ACCESS_MODES)}"
    if "ReadWriteOncePod" in pvc.access_modes and len(set(pvc.access_modes) & set(ACCESS_MODES)) > 1:
        yield modes_path, "uses ReadWriteOncePod with other access modes"
    storage_path = ("spec", "resources", "requests", "storage") if written else pvc.path + ("size",)
    if pvc.size is None:
        if written:
            yield ("spec", "resources"), "requests no storage (spec.resources.requests.storage is required)"
    else:
        amount = go_quantity(pvc.size.strip() if written else pvc.size)
        if amount is not None and amount <= 0:
            yield storage_path, f"requests storage {pvc.size!r}, which is not above zero"
    if pvc.storage_class and not placeholder_in(pvc.storage_class):  # a placeholder: placeholder-value's
        problem = dns1123_subdomain_problem(pvc.storage_class)
        if problem:
            where = ("spec", "storageClassName") if written else pvc.path + ("storageClass",)
            yield where, f"storage class {pvc.storage_class!r} {problem}"


@rule(
    name="claim-spec-invalid", code="DGD608", severity="error", family="admission",
    title="Claims have a supported access mode and a storage request above zero",
    rationale="""The API server refuses a PersistentVolumeClaim without an access mode, with one it does not
    know, with ReadWriteOncePod beside another, without a storage request or with one that is not above
    zero, or with a storage class name that is not a DNS subdomain. A claim object is refused when applied;
    a v1alpha1 `spec.pvcs` entry with `create: true` passes with the graph, and the claim the operator makes
    from it is refused, so the workers wait for a volume that never comes.""",
    remediation="Give the claim an access mode such as ReadWriteMany and a storage size such as 200Gi.",
    reads=("PersistentVolumeClaim", "DynamoGraphDeployment (v1alpha1 spec.pvcs with create: true)"),
)
def claim_spec_invalid(model: Model):
    for pvc in model.pvcs:
        for path, problem in claim_problems(pvc):
            what = pvc.obj.label if pvc.path == () else f"{pvc.obj.label}: the claim {pvc.name} it creates"
            yield Hit(pvc.obj, path, f"{what} {problem}")
