"""What the cluster tier's test modules share besides fixtures."""

from __future__ import annotations

import pytest

# Marked `cluster` (`pytest -m cluster` runs only these) and kept on one xdist worker, so the session's
# control plane starts once (`--dist loadgroup`, as `make test` runs).
CLUSTER = [pytest.mark.cluster, pytest.mark.xdist_group("cluster")]
