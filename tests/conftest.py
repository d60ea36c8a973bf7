"""Session fixtures shared by every test folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from refdata import CRD_DIR, require_reference  # noqa: E402


@pytest.fixture(scope="session")
def crd_schema_stage():
    from dgdlint.schema import SchemaStage

    require_reference(CRD_DIR)
    return SchemaStage([str(CRD_DIR)])
