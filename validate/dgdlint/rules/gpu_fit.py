"""GPU fit (DOMAIN section 3): when a NIM worker or the download Job says which GPU product it targets
(`nvidia.com/gpu.product` in its node selector or required node affinity), that product must meet the
precision's compute-capability floor and the variant's device-memory floor, and every GPU the worker
can get must be alike. The floors come from the support matrix, the products from
data/gpu-products.yaml; a product the table does not list is reported as unknown, never guessed.

Which products a pod may land on, and the floors, are worked out in dgdlint/gpu.py.

"All alike": the device plugin gives a pod GPUs of the node it runs on, and a node carries one product
label, so one pod's GPUs match. What a manifest can get wrong is allowing several products: replicas
then land on different GPUs, each picks its own NIM profile while the download Job cached the profile
for the one GPU it happened to see, and a multi-node worker spreads one model over nodes that may hold
different GPUs. Profiles follow the GPU architecture, that is the compute capability, so products of
one compute capability are alike (H100 and H200, say) and a list mixing capabilities (H100 and A100) is
an error. Memory may differ between alike products: the memory floor is checked against each of them."""

from __future__ import annotations

from dgdlint.gpu import capability_tuple, compute_floor, gpu_targets, memory_floor
from dgdlint.model import Model, Workload
from dgdlint.rules.registry import Hit, rule


@rule(
    name="gpu-compute-capability", code="DGD801", severity="error", family="gpu",
    title="The targeted GPU meets the precision's compute-capability floor",
    rationale="""Each precision needs GPU hardware support: bf16 compute capability 8.0 (Ampere) or newer,
    fp8 8.9 (Ada, Hopper) or newer, nvfp4 10.0 (Blackwell) or newer. On an older GPU the NIM finds no
    profile for the precision, in the workers and in the download Job alike, and never serves.""",
    remediation="Target a GPU product that meets the precision's floor (support matrix "
                "`precisions.*.minComputeCapability`), or choose a precision that product supports.",
    reads=("DynamoGraphDeployment", "Job"),
)
def gpu_compute_capability(model: Model):
    for target in gpu_targets(model):
        floor = compute_floor(target.precision)
        if floor is None:
            continue
        below = [p for p in target.known if p.capability < capability_tuple(floor)]
        if below:
            yield Hit(target.obj, target.selection.path,
                      f"{target.owner.label} runs {target.precision}, which needs compute capability {floor} or "
                      f"newer, but targets {'; '.join(p.describe() for p in below)}")


@rule(
    name="gpu-memory-floor", code="DGD802", severity="error", family="gpu",
    title="The targeted GPU has the device memory the variant needs",
    rationale="""A worker's GPUs must hold its share of the model: Edge needs at least 12 GiB per GPU,
    and Super BF16 on one GPU about 135 GiB (on two GPUs with TP2 each holds half). On a smaller GPU
    the model does not load, or the NIM selects no profile.""",
    remediation="Target a GPU product with at least the floor the support matrix lists "
                "(`minDeviceMemoryGiB`), or split the model: Super BF16 runs on two GPUs with TP2.",
    reads=("DynamoGraphDeployment", "Job"),
)
def gpu_memory_floor(model: Model):
    for target in gpu_targets(model):
        floor = memory_floor(target.variant, target.precision, target.count)
        if floor is None or target.is_mig:
            continue
        short = [p for p in target.known if p.memory_gib is not None and p.memory_gib < floor]
        if short:
            yield Hit(target.obj, target.selection.path,
                      f"{target.owner.label} runs {target.variant} {target.precision} on {target.count} GPU(s), "
                      f"which needs {floor:g} GiB per GPU, but targets "
                      f"{'; '.join(p.describe() for p in short)}")


@rule(
    name="gpu-products-mixed", code="DGD803", severity="error", family="gpu",
    title="Every GPU a NIM worker or the download Job can get is alike",
    rationale="""A pod's GPUs come from the one node it runs on, but a selector that allows products of
    different compute capability lets replicas land on different GPU architectures: each selects its own
    NIM profile while the download Job cached the profile for the architecture it saw, and a multi-node
    worker spreads one model over unlike GPUs. Products of one compute capability (H100 and H200) are
    alike and may be listed together; the memory floor is checked against each of them.""",
    remediation="Select one GPU product (a `nvidia.com/gpu.product` node selector), or list only products "
                "of one compute capability, in the workers and the download Job alike.",
    reads=("DynamoGraphDeployment", "Job"),
)
def gpu_products_mixed(model: Model):
    for target in gpu_targets(model):
        if len({p.capability for p in target.known}) < 2:
            continue
        if target.nodes_per_replica > 1:
            why = (f"each replica spans {target.nodes_per_replica} nodes, so one worker's GPUs could differ "
                   "from node to node")
        elif isinstance(target.owner, Workload):
            why = "it caches the profile of whichever it lands on, which workers on the others cannot use"
        else:
            why = ("replicas on different architectures select different NIM profiles, while the download Job "
                   "cached the one for the GPU it saw")
        yield Hit(target.obj, target.selection.path,
                  f"{target.owner.label} can land on unlike GPUs: {'; '.join(p.describe() for p in target.known)}; "
                  f"{why}")


@rule(
    name="gpu-product-unknown", code="DGD804", severity="info", family="gpu",
    title="dgdlint knows the targeted GPU product",
    rationale="""The GPU fit rules compare a product's compute capability and memory with the floors;
    for a product missing from dgdlint's table (or a MIG slice, whose memory depends on the slice) they
    cannot, and dgdlint does not guess. Nothing is wrong with the deployment on that account.""",
    remediation="Add the product to validate/dgdlint/data/gpu-products.yaml with its datasheet as source, "
                "or check its compute capability and memory against the support matrix by hand.",
    reads=("DynamoGraphDeployment", "Job"),
)
def gpu_product_unknown(model: Model):
    for target in gpu_targets(model):
        if target.unknown:
            yield Hit(target.obj, target.selection.path,
                      f"{target.owner.label} targets {', '.join(map(repr, target.unknown))}, which dgdlint's GPU "
                      "product table does not list: its compute capability and memory are not checked")
        if memory_floor(target.variant, target.precision, target.count) is None:
            continue  # no floor to compare a slice with
        if target.is_mig:
            slices = [f"{target.resource} on {p.label}" for p in target.known]
        else:
            slices = [p.label for p in target.known if p.memory_gib is None]
        if slices:
            yield Hit(target.obj, target.selection.path,
                      f"{target.owner.label} runs on MIG slices ({', '.join(slices)}): the memory of a slice is "
                      "not checked against the variant's floor")
