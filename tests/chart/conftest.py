"""Fixtures of the chart tests. NVIDIA's reference manifests live outside the repository, next to
it in ../shared/reference/; tests that need them skip with a clear message when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from chart_support import CRD_FILE, REFERENCE


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    folder = REFERENCE / "cosmos3-prerelease"
    if not folder.is_dir():
        pytest.skip(f"NVIDIA's pre-release manifests are not at {folder.resolve()}: fidelity tests skipped")
    return folder


@pytest.fixture(scope="session")
def crd_file() -> Path:
    if not CRD_FILE.is_file():
        pytest.skip(f"the Dynamo DGD CRD is not at {CRD_FILE.resolve()}: CRD schema tests skipped")
    return CRD_FILE
