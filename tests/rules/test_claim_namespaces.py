"""Claim messages name a claim `namespace/name` where the set spans namespaces (two claims of one name may
then be meant), and by its name alone where it does not."""

from __future__ import annotations

from pathlib import Path

from dgdlint.engine import check_paths

FIXTURES = Path(__file__).parent / "claim-volume-mismatch" / "fail"


def messages(path: Path, rule: str) -> list[str]:
    return [f.message for f in check_paths([str(path)]).findings if f.rule == rule]


def test_a_set_of_two_namespaces_names_each_claim_by_its_namespace():
    assert messages(FIXTURES / "two-namespaces-one-volume.yaml", "claim-volume-mismatch") == [
        "PersistentVolumeClaim team-b/model-cache can never bind to PersistentVolume model-cache-nfs, which it "
        "names: PersistentVolumeClaim team-a/model-cache names it too, and a volume binds one claim"]


def test_a_set_of_one_namespace_names_a_claim_by_its_name():
    assert messages(FIXTURES / "two-claims-one-volume.yaml", "claim-volume-mismatch") == [
        "PersistentVolumeClaim model-cache-2 can never bind to PersistentVolume model-cache-nfs, which it names: "
        "PersistentVolumeClaim model-cache names it too, and a volume binds one claim"]
