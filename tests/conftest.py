"""Session fixtures shared by every test folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bundled_crds import DynamoCrds  # noqa: E402 (after the path above)


@pytest.fixture(scope="session")
def dynamo_crds(tmp_path_factory) -> DynamoCrds:
    """The Dynamo CRDs as files for `--crd` and the test API server: upstream's when beside the repository,
    else rebuilt from the bundled schemas (bundled_crds.py), so no test needs ../shared for a CRD."""
    from bundled_crds import dynamo_crds as find

    return find(tmp_path_factory.mktemp("dynamo-crds"))


@pytest.fixture(scope="session")
def crd_schema_stage():
    """The schema stage as users get it: the newest bundled Dynamo release (schemas/), no CRD given."""
    from dgdlint.schema import SchemaStage

    stage = SchemaStage()
    assert stage.release is not None, "the bundled schemas (schemas/index.json) are missing"
    return stage
