"""Session fixtures shared by every test folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))



@pytest.fixture(scope="session")
def crd_schema_stage():
    """The schema stage as users get it: the newest bundled Dynamo release (schemas/), no CRD given."""
    from dgdlint.schema import SchemaStage

    stage = SchemaStage()
    assert stage.release is not None, "the bundled schemas (schemas/index.json) are missing"
    return stage
