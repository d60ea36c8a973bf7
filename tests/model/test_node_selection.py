"""node_selection.admitted_values (the GPU products a pod may get) against the verdicts it is built on: a value
of a label is admitted exactly when the pod, with a node selector asking for that value, fits some node, as
node_verdicts decides (checked against the scheduler's own code in tests/rules/test_node_affinity_oracle.py).
Random pods over the product label, with every operator, terms no node meets and node selectors that clash."""

from __future__ import annotations

import random

from dgdlint.model import PodSettings
from dgdlint.node_selection import admitted_values
from dgdlint.rules.node_affinity import node_verdicts

PRODUCT = "nvidia.com/gpu.product"
PRODUCTS = ["NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-80GB", "NVIDIA-B200", "NVIDIA-L40S"]
FRESH = "NVIDIA-Named-Nowhere"


def _expression(rng: random.Random) -> dict:
    key = PRODUCT if rng.random() < 0.6 else rng.choice(["zone", "nvidia.com/gpu.present"])
    operator = rng.choice(["In", "In", "NotIn", "Exists", "DoesNotExist"])
    pool = PRODUCTS if key == PRODUCT else ["a", "b"]
    values = rng.sample(pool, rng.randint(1, min(3, len(pool)))) if operator in ("In", "NotIn") else []
    return {"key": key, "operator": operator, "values": values}


def _spec(rng: random.Random) -> dict:
    spec: dict = {}
    if rng.random() < 0.4:
        spec["nodeSelector"] = {key: rng.choice(PRODUCTS if key == PRODUCT else ["a", "b"])
                                for key in rng.sample([PRODUCT, "zone"], rng.randint(1, 2))}
    if rng.random() < 0.85:
        terms = [{"matchExpressions": [_expression(rng) for _ in range(rng.randint(1, 3))]}
                 for _ in range(rng.randint(1, 3))]
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                             {"nodeSelectorTerms": terms}}}
    return spec


def _fits(spec: dict, product: str | None = None) -> bool:
    """Whether some node takes the pod; with `product`, some node that carries that product."""
    if product is not None:
        selector = spec.get("nodeSelector", {})
        if selector.get(PRODUCT, product) != product:
            return False
        spec = {**spec, "nodeSelector": {**selector, PRODUCT: product}}
    return any(v.witness is not None for v in node_verdicts(PodSettings(None, ("spec",), spec)))


def _names_the_product(spec: dict) -> bool:
    terms = spec.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution",
                                                                   {}).get("nodeSelectorTerms", [])
    return PRODUCT in spec.get("nodeSelector", {}) or any(
        expression["key"] == PRODUCT for term in terms for expression in term["matchExpressions"])


def test_a_value_is_admitted_exactly_when_some_node_carrying_it_takes_the_pod():
    rng = random.Random(20261202)
    counts = {"bounded": 0, "open": 0, "none fits": 0}
    for _ in range(1500):
        spec = _spec(rng)
        admitted = admitted_values(PodSettings(None, ("spec",), spec), PRODUCT)
        getting = [product for product in PRODUCTS if _fits(spec, product)]
        if admitted is None:
            counts["open"] += 1
            # open: the pod names no product, a product it names nowhere is taken, or it lands only where the
            # label is absent
            assert not _names_the_product(spec) or _fits(spec, FRESH) or (not getting and _fits(spec)), spec
        else:
            counts["bounded"] += 1
            counts["none fits"] += not admitted.values
            assert sorted(admitted.values) == sorted(getting), spec
            assert not _fits(spec, FRESH), spec
            assert admitted.path[0] == "spec"
    assert min(counts.values()) > 100, counts  # each answer is common, so no side of the check is idle
