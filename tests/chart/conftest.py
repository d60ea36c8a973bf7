"""Fixtures of the chart tests. NVIDIA's pre-release manifests live outside the repository, next to it in
../shared/reference/; tests that need them skip with a clear message when it is absent. The DGD schema
comes from the bundled schemas/ (chart_support.validate_against_crd), so those tests always run."""

from __future__ import annotations

from pathlib import Path

import pytest
from chart_support import REFERENCE


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    folder = REFERENCE / "cosmos3-prerelease"
    if not folder.is_dir():
        pytest.skip(f"NVIDIA's pre-release manifests are not at {folder.resolve()}: fidelity tests skipped")
    return folder

