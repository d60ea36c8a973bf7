"""The GPU product table (data with sources), the floors the support matrix gives, and which products a
pod may land on according to its node selector and required node affinity."""

from __future__ import annotations

import re
import textwrap

import pytest

from dgdlint.cosmos import support_matrix
from dgdlint.engine import check_texts
from dgdlint.gpu import (
    capability_tuple,
    compute_floor,
    lookup_product,
    memory_floor,
    product_table,
    selected_products,
)
from dgdlint.model import PodSettings
from refdata import ROOT

TABLE = product_table()


def test_the_table_covers_every_generation_the_floors_separate():
    capabilities = {product.compute_capability for product in TABLE.values()}
    assert {"7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0"} <= capabilities
    for label in ("NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-80GB", "NVIDIA-L40S", "NVIDIA-B200", "NVIDIA-H200",
                  "NVIDIA-GeForce-RTX-4090", "NVIDIA-A10G", "Tesla-T4", "NVIDIA-L4",
                  "NVIDIA-RTX-6000-Ada-Generation", "NVIDIA-GB200"):
        assert label in TABLE, label


@pytest.mark.parametrize("label", sorted(TABLE))
def test_every_product_has_a_label_as_gfd_writes_it_a_capability_memory_and_a_source(label):
    product = TABLE[label]
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", label), "GFD labels have dashes where names have spaces"
    assert re.fullmatch(r"\d+\.\d", product.compute_capability)
    assert product.memory_gib and product.memory_gib > 0
    assert product.name
    assert re.search(r"datasheet|specifications", product.source, re.IGNORECASE), "name the vendor document"


@pytest.mark.parametrize(("label", "capability", "memory"), [
    ("Tesla-T4", "7.5", 16), ("NVIDIA-A100-SXM4-80GB", "8.0", 80), ("NVIDIA-L40S", "8.9", 48),
    ("NVIDIA-H100-80GB-HBM3", "9.0", 80), ("NVIDIA-H200", "9.0", 141), ("NVIDIA-B200", "10.0", 180),
])
def test_well_known_products_have_their_datasheet_figures(label, capability, memory):
    assert (TABLE[label].compute_capability, TABLE[label].memory_gib) == (capability, memory)


def test_an_unlisted_label_is_unknown_never_guessed():
    assert lookup_product("NVIDIA-H100") is None  # which H100? the label does not say
    assert lookup_product("NVIDIA-Imaginary-9000") is None


def test_a_mig_slice_label_keeps_the_capability_of_its_product_but_not_its_memory():
    product = lookup_product("NVIDIA-A100-SXM4-80GB-MIG-3g.40gb")
    assert product.compute_capability == "8.0"
    assert product.memory_gib is None
    assert product.mig_profile == "3g.40gb"
    assert lookup_product("NVIDIA-Imaginary-MIG-1g.10gb") is None


def test_compute_capabilities_compare_as_numbers():
    assert capability_tuple("10.0") > capability_tuple("8.9") > capability_tuple("8.0")


def test_the_floors_are_the_support_matrix_data_domain_section_3_gives():
    assert [compute_floor(p) for p in ("bf16", "fp8", "nvfp4")] == ["8.0", "8.9", "10.0"]
    assert compute_floor("int4") is None
    assert memory_floor("edge", "fp8", 1) == memory_floor("edge", "bf16", 1) == 12
    assert memory_floor("super", "bf16", 1) == 135
    assert memory_floor("super", "bf16", 2) is None  # not given for TP2: nothing is invented
    assert memory_floor("nano", "fp8", 1) is None
    assert memory_floor("unknown", "fp8", 1) is None
    assert support_matrix().data["variants"]["super"]["precisions"]["bf16"]["gpus"] == [2, 1]


def pod(spec: dict) -> PodSettings:
    return PodSettings(obj=None, path=("spec",), spec=spec)


def affinity(*terms: list[dict]) -> dict:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": list(term)} for term in terms]}}}


def product_in(*values: str) -> dict:
    return {"key": "nvidia.com/gpu.product", "operator": "In", "values": list(values)}


def test_a_node_selector_names_one_product():
    selection = selected_products(pod({"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-L4", "pool": "a"}}))
    assert selection.products == ["NVIDIA-L4"]
    assert selection.path == ("spec", "nodeSelector", "nvidia.com/gpu.product")


def test_without_a_product_selector_any_product_may_be_used():
    assert selected_products(pod({})) is None
    assert selected_products(pod({"nodeSelector": {"pool": "gpu"}})) is None
    assert selected_products(pod({"affinity": affinity([{"key": "pool", "operator": "In", "values": ["a"]}])})) is None


def test_affinity_terms_are_alternatives_so_their_products_add_up():
    selection = selected_products(pod({"affinity": affinity([product_in("NVIDIA-H100-80GB-HBM3")],
                                                            [product_in("NVIDIA-H200", "NVIDIA-H100-80GB-HBM3")])}))
    assert selection.products == ["NVIDIA-H100-80GB-HBM3", "NVIDIA-H200"]
    assert selection.path[-5:] == ("nodeSelectorTerms", 0, "matchExpressions", 0, "values")


def test_a_term_that_leaves_the_product_open_lets_the_pod_land_anywhere():
    spec = {"affinity": affinity([product_in("NVIDIA-H200")], [{"key": "pool", "operator": "In", "values": ["a"]}])}
    assert selected_products(pod(spec)) is None
    not_in = {"key": "nvidia.com/gpu.product", "operator": "NotIn", "values": ["Tesla-T4"]}
    assert selected_products(pod({"affinity": affinity([not_in])})) is None


def test_expressions_of_one_term_all_apply():
    term = [product_in("NVIDIA-H200", "NVIDIA-B200"), product_in("NVIDIA-B200", "NVIDIA-GB200")]
    assert selected_products(pod({"affinity": affinity(term)})).products == ["NVIDIA-B200"]


def test_node_selector_and_affinity_both_apply():
    spec = {"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H200"},
            "affinity": affinity([product_in("NVIDIA-H200", "NVIDIA-B200")])}
    selection = selected_products(pod(spec))
    assert selection.products == ["NVIDIA-H200"]
    assert selection.path == ("spec", "nodeSelector", "nvidia.com/gpu.product")
    spec["affinity"] = affinity([product_in("NVIDIA-B200")])
    assert selected_products(pod(spec)).products == []  # nothing satisfies both: the pod never schedules


NEVER_MET = [{"key": "nvidia.com/gpu.present", "operator": "Exists"},
             {"key": "nvidia.com/gpu.present", "operator": "DoesNotExist"}]  # no node carries it and lacks it


def test_a_term_no_node_meets_gives_the_pod_none_of_its_products():
    # dgdlint 0.2.10 added up every term's In values and gave A100 and H100 here (gpu-products-mixed then
    # reported the pod); the scheduler never places it by the first term, so H100 is all it can get
    spec = {"affinity": affinity([product_in("NVIDIA-A100-SXM4-80GB"), *NEVER_MET],
                                 [product_in("NVIDIA-H100-80GB-HBM3")])}
    selection = selected_products(pod(spec))
    assert selection.products == ["NVIDIA-H100-80GB-HBM3"]
    assert selection.path[-5:] == ("nodeSelectorTerms", 1, "matchExpressions", 0, "values")


def test_a_term_against_the_node_selector_gives_the_pod_none_of_its_products():
    zone_b = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-b"]}
    spec = {"nodeSelector": {"topology.kubernetes.io/zone": "zone-a"},
            "affinity": affinity([product_in("NVIDIA-A100-SXM4-80GB"), zone_b], [product_in("NVIDIA-H100-80GB-HBM3")])}
    assert selected_products(pod(spec)).products == ["NVIDIA-H100-80GB-HBM3"]


def test_not_in_and_does_not_exist_on_the_product_narrow_a_term():
    not_in = {"key": "nvidia.com/gpu.product", "operator": "NotIn", "values": ["NVIDIA-A100-SXM4-80GB"]}
    term = [product_in("NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-80GB"), not_in]
    assert selected_products(pod({"affinity": affinity(term)})).products == ["NVIDIA-H100-80GB-HBM3"]
    spec = {"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}, "affinity": affinity([not_in])}
    assert selected_products(pod(spec)).products == []  # the node selector's product is the one taken out
    absent = {"key": "nvidia.com/gpu.product", "operator": "DoesNotExist"}
    spec = {"affinity": affinity([absent], [product_in("NVIDIA-H100-80GB-HBM3")])}
    assert selected_products(pod(spec)).products == ["NVIDIA-H100-80GB-HBM3"]  # the first: unlabelled nodes only
    assert selected_products(pod({"affinity": affinity([absent])})) is None  # which GPU, nothing says
    assert selected_products(pod({"affinity": affinity([absent, product_in("NVIDIA-H100-80GB-HBM3")])})).products \
        == []


def test_a_term_no_node_meets_leaves_the_product_open_no_more():
    spec = {"affinity": affinity([product_in("NVIDIA-H200")], [{"key": "pool", "operator": "In", "values": ["a"]},
                                                               *NEVER_MET])}
    assert selected_products(pod(spec)).products == ["NVIDIA-H200"]


BASE = (ROOT / "tests" / "rules" / "_base" / "streaming-v1beta1.yaml").read_text(encoding="utf-8")
A100_AFFINITY = """\
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
        - matchExpressions:
            - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-A100-SXM4-80GB]}
"""


def on_a100(text: str, resource: str = "nvidia.com/gpu") -> str:
    """The base streaming set with workers and Job on A100 nodes, requesting `resource`."""
    text = text.replace("      tolerations:\n", textwrap.indent(A100_AFFINITY, " " * 6) + "      tolerations:\n", 1)
    worker_tolerations = "          tolerations:\n"
    text = text.replace(worker_tolerations, textwrap.indent(A100_AFFINITY, " " * 10) + worker_tolerations, 1)
    return text.replace('nvidia.com/gpu: "1"', f'{resource}: "1"')


def fit_findings(text: str) -> list[tuple[str, str, str]]:
    result = check_texts({"set.yaml": text})
    return sorted((f.rule, f.severity, f.object_ref) for f in result.findings if f.rule.startswith("gpu-"))


def test_a_worker_and_its_job_on_a_product_that_meets_the_floors_pass():
    assert fit_findings(on_a100(BASE.replace("value: fp8\n", "value: bf16\n"))) == []


def test_on_mig_slices_the_memory_floor_is_not_guessed_from_the_whole_gpu():
    # Edge BF16 (a 12 GiB floor per GPU; only the GPU fit findings matter here) on 10 GB slices of an A100
    edge = BASE.replace("value: fp8\n", "value: bf16\n").replace("value: nano\n", "value: edge\n")
    findings = fit_findings(on_a100(edge, "nvidia.com/mig-1g.10gb"))
    assert findings == [("gpu-product-unknown", "info", "DynamoGraphDeployment/default/cosmos3-reasoner"),
                        ("gpu-product-unknown", "info", "Job/default/cosmos3-reasoner-download")]
    message = next(f.message for f in check_texts({"s.yaml": on_a100(edge, "nvidia.com/mig-1g.10gb")}).findings
                   if f.rule == "gpu-product-unknown")
    assert "runs on MIG slices (nvidia.com/mig-1g.10gb on NVIDIA-A100-SXM4-80GB)" in message


def test_without_a_memory_floor_a_mig_slice_needs_no_note():
    assert fit_findings(on_a100(BASE.replace("value: fp8\n", "value: bf16\n"), "nvidia.com/mig-3g.40gb")) == []


def test_the_floors_are_checked_against_the_products_a_pod_can_get_only():
    # FP8 needs compute capability 8.9: an A100 (8.0) named by a term no node meets is no GPU the pods get
    never_met = "\n".join(f"            - {{key: nvidia.com/gpu.present, operator: {operator}}}"
                           for operator in ("Exists", "DoesNotExist"))
    dead_a100 = A100_AFFINITY + never_met + "\n        - matchExpressions:\n" \
        "            - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-80GB-HBM3]}\n"
    text = on_a100(BASE).replace(textwrap.indent(A100_AFFINITY, " " * 6), textwrap.indent(dead_a100, " " * 6))
    text = text.replace(textwrap.indent(A100_AFFINITY, " " * 10), textwrap.indent(dead_a100, " " * 10))
    assert text.count("NVIDIA-H100-80GB-HBM3") == 2
    assert fit_findings(text) == []
    assert [rule for rule, _, _ in fit_findings(on_a100(BASE))] == ["gpu-compute-capability"] * 2
