"""The claims a set makes (model/claims.py): claim objects, the operator's claim of a v1alpha1 spec.pvcs
entry with create: true, and a StatefulSet's claims of its volumeClaimTemplates, each with where the set
writes its fields."""

from __future__ import annotations

from pathlib import Path

from dgdlint.engine import check_paths

FIXTURES = Path(__file__).parents[1] / "rules" / "claim-volume-mismatch"


def made(path: Path) -> list:
    return check_paths([str(path)]).model.made_claims()


def test_a_stateful_set_makes_one_claim_per_replica_named_after_the_template_and_the_set():
    claims = made(FIXTURES / "fail" / "stateful-set-replicas-name-one-volume.yaml")
    assert [(c.claim.name, c.claim.namespace, c.origin) for c in claims] == [
        ("cache-store-0", "default", "volumeClaimTemplates"), ("cache-store-1", "default", "volumeClaimTemplates")]
    assert claims[0].where(("spec", "volumeName")) == ("spec", "volumeClaimTemplates", 0, "spec", "volumeName")
    assert claims[0].claim.value["spec"]["volumeName"] == "store-nfs"
    line, _ = claims[0].claim.position(("spec", "volumeName"))
    assert line == claims[0].owner.position(("spec", "volumeClaimTemplates", 0, "spec", "volumeName"))[0]


def test_a_spec_pvcs_entry_makes_the_claim_the_operator_makes_with_its_fields_where_the_entry_writes_them():
    (claim,) = made(FIXTURES / "pass" / "pvcs-entry-reserved.yaml")
    assert (claim.claim.name, claim.origin, claim.claim.value["spec"]) == ("nim-model-cache", "spec.pvcs", {
        "accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "200Gi"}},
        "storageClassName": "shared-rwx"})
    assert claim.where(("spec", "resources", "requests", "storage")) == ("spec", "pvcs", 0, "size")
    assert claim.where(("spec", "accessModes", 0)) == ("spec", "pvcs", 0, "volumeAccessMode")
    assert claim.where(("spec", "volumeMode")) == ("spec", "pvcs", 0)


def test_the_related_location_of_a_reserved_volume_is_the_entry_s_size():
    (finding,) = [f for f in check_paths([str(FIXTURES / "fail" / "pvcs-entry-reserved-too-small.yaml")]).findings
                  if f.rule == "claim-volume-mismatch"]
    assert [r.path for r in finding.related] == ["spec.pvcs[0].size"]
