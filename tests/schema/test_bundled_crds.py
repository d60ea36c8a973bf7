"""The CRDs the cluster tier rebuilds from the bundled schemas (when the upstream CRDs are not beside the
repository) carry exactly the bundled schemas: converted back as dgdlint converts a CRD, each served
version gives its bundled file again, and the versions' flags are the index's."""

from __future__ import annotations

import json

import pytest

from bundled_crds import crds, release
from dgdlint.schema.bundled import bundled_root, read_index
from dgdlint.schema.crd import crd_versions, storage_version

RELEASES = [r.name for r in read_index(bundled_root())]


@pytest.mark.parametrize("name", RELEASES)
def test_a_rebuilt_crd_converts_back_to_the_bundled_schema_of_every_served_version(name):
    chosen = release(name)
    rebuilt = crds(chosen)
    assert sorted(crd["spec"]["names"]["kind"] for crd in rebuilt) == sorted(chosen.kinds)
    for crd in rebuilt:
        entry = chosen.kinds[crd["spec"]["names"]["kind"]]
        versions = crd_versions(crd, "rebuilt")
        assert [v.version for v in versions] == entry["served"]
        assert [v.version for v in versions if v.deprecated] == entry["deprecated"]
        assert storage_version(crd) == entry["storage"]
        for version in versions:
            bundled = json.loads((bundled_root() / entry["files"][version.version]).read_text(encoding="utf-8"))
            assert version.schema == bundled, f"{name} {version.kind} {version.version}"


def test_a_rebuilt_crd_is_structural_where_the_bundled_schema_is_closed():
    dgd = next(crd for crd in crds(release()) if crd["spec"]["names"]["kind"] == "DynamoGraphDeployment")
    schema = dgd["spec"]["versions"][-1]["schema"]["openAPIV3Schema"]
    assert "$schema" not in schema and "additionalProperties" not in schema
    assert schema["type"] == "object" and set(schema["properties"]) >= {"apiVersion", "kind", "metadata", "spec"}
    assert dgd["metadata"]["name"] == "dynamographdeployments.nvidia.com"
    assert dgd["spec"]["conversion"] == {"strategy": "None"}
    assert dgd["spec"]["versions"][-1]["subresources"] == {"status": {}}
