"""persistent-volume-invalid against the real API server: each PersistentVolume of each fixture is created as
a server-side dry run; the server refuses exactly the fixtures the rule fails, and at the fields it names
(the same set of fields, once the server's own spellings of some are read as the manifest's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import refused_fields

from dgdlint.engine import check_paths

pytestmark = CLUSTER

RULE = "persistent-volume-invalid"
FIXTURES = sorted((Path(__file__).parents[1] / "rules" / RULE).glob("*/*.yaml"))
# Fields the server names otherwise than the manifest spells them: ValidatePersistentVolumeSpec validates a
# gcePersistentDisk under `persistentDisk` and refuses a second cephfs source as `cephFS`, and the iscsi
# validation names `targetportal` and `initiatorname`.
RENAMED = ((".persistentDisk.", ".gcePersistentDisk."), ("spec.cephFS", "spec.cephfs"),
           (".iscsi.targetportal", ".iscsi.targetPortal"), (".iscsi.initiatorname", ".iscsi.initiatorName"))


def as_ours(field: str) -> str:
    """A field the server names, as dgdlint writes its path: a map key in brackets (capacity[storage]) as a
    child, an annotation named as children of `annotations` as a quoted key."""
    for theirs, ours in RENAMED:
        field = field.replace(theirs, ours)
    field = re.sub(r"\.capacity\[([A-Za-z0-9_-]+)\]", r".capacity.\1", field)
    return re.sub(r"^metadata\.annotations\.(.+)$", lambda key: f"metadata.annotations[{key[1]!r}]", field)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_api_server_refuses_exactly_what_the_rule_fails(path, control_plane, namespace):
    refused = set()
    for body in yaml.safe_load_all(path.read_text(encoding="utf-8")):
        if body:
            refused |= {as_ours(field) for field in refused_fields(control_plane, namespace, body)}
    named = {f.path for f in check_paths([str(path)]).findings if f.rule == RULE}
    assert bool(refused) == (path.parent.name == "fail"), refused
    assert refused == named
