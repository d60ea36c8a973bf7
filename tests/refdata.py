"""Where the project and the upstream reference data are (shared by the tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "charts" / "cosmos3-reasoner"
VALUES = ROOT / "values"
REFERENCE = (ROOT / ".." / "shared" / "reference").resolve()
CRD_DIR = REFERENCE / "dynamo-crds"
DGD_CRD = CRD_DIR / "nvidia.com_dynamographdeployments.yaml"
CORPUS = REFERENCE / "dynamo-examples"
PRERELEASE = REFERENCE / "cosmos3-prerelease"


def require_reference(path: Path) -> Path:
    """Skip (with the reason) when the upstream reference data is not beside the project."""
    if not path.exists():
        pytest.skip(f"upstream reference data not found at {path} (expected ../shared/reference beside the repo)")
    return path
