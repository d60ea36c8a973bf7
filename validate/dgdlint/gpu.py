"""GPU products: the product table shipped in dgdlint/data, which products a pod's node
selector and required node affinity allow, the support matrix's compute-capability and memory floors, and
the NIM workers and download Jobs that name the products they target. Read by the GPU fit rules and by
`dgdlint plan`; domain knowledge only, no rule here.

Which GPU a pod gets: the node selector and one required node-affinity term at least must match the node,
so the products it may get are the values of the product label that some term a node can meet admits
together with the node selector (node_selection.admitted_values, the scheduler's reading): a term no node
meets names nothing a pod gets, and NotIn or DoesNotExist on the label narrow what a term admits. A term a
node can meet that says nothing about the product (or only `NotIn`/`Exists`) lets the pod land anywhere,
and then the manifests do not say which GPU they target."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from dgdlint.cosmos import env_text, is_cosmos_graph, nim_workers, support_matrix
from dgdlint.downloads import download_container
from dgdlint.model import Component, Container, KObject, Model, PodSettings, Workload, as_map
from dgdlint.node_selection import admitted_values

PRODUCT_LABEL = "nvidia.com/gpu.product"
_MIG_LABEL = re.compile(r"^(?P<base>.+)-MIG-(?P<profile>[0-9]+g\.[0-9]+gb)$")


@dataclass(frozen=True)
class GpuProduct:
    """A GPU product as its node label names it, with its compute capability and memory."""

    label: str
    name: str
    compute_capability: str
    memory_gib: float | None  # None: not known per device (a MIG slice)
    source: str
    mig_profile: str | None = None

    @property
    def capability(self) -> tuple[int, ...]:
        return capability_tuple(self.compute_capability)

    def describe(self) -> str:
        memory = f"{self.memory_gib:g} GiB" if self.memory_gib is not None else "memory of the slice unknown"
        return f"{self.label} ({self.name}, compute capability {self.compute_capability}, {memory})"


def capability_tuple(text: str) -> tuple[int, ...]:
    """"8.9" -> (8, 9), so that 10.0 sorts above 8.9."""
    return tuple(int(part) for part in str(text).split("."))


@functools.lru_cache(maxsize=1)
def product_table() -> dict[str, GpuProduct]:
    """The GPU product table shipped in dgdlint/data, keyed by `nvidia.com/gpu.product` label."""
    from dgdlint.datafiles import data_file

    table = {}
    for label, entry in (data_file("gpu-products.yaml") or {}).get("products", {}).items():
        table[label] = GpuProduct(label, entry["name"], str(entry["computeCapability"]), float(entry["memoryGiB"]),
                                  entry["source"])
    return table


def lookup_product(label: str) -> GpuProduct | None:
    """The product behind a label; a MIG slice label keeps its base product's capability, not its memory."""
    table = product_table()
    if label in table:
        return table[label]
    match = _MIG_LABEL.match(label)
    base = table.get(match.group("base")) if match else None
    if base is None:
        return None
    return GpuProduct(label, f"{base.name}, MIG slice {match.group('profile')}", base.compute_capability, None,
                      base.source, match.group("profile"))


@dataclass
class ProductSelection:
    """The products a pod may land on, and the field that says so."""

    products: list[str]  # empty: no node can take the pod
    path: tuple


def selected_products(pod: PodSettings) -> ProductSelection | None:
    """The GPU products the pod's node selector and required node affinity allow; None when they allow any."""
    admitted = admitted_values(pod, PRODUCT_LABEL)
    return ProductSelection(admitted.values, admitted.path) if admitted is not None else None


def compute_floor(precision: str | None) -> str | None:
    entry = support_matrix().data.get("precisions", {}).get(precision or "")
    floor = entry.get("minComputeCapability") if isinstance(entry, dict) else None
    return str(floor) if floor is not None else None


def memory_floor(variant: str | None, precision: str | None, gpus: int) -> float | None:
    """GiB each GPU needs: the variant's floor, or the precision's floor for this GPU count (the larger)."""
    variant_entry = support_matrix().variants.get(variant or "")
    if not isinstance(variant_entry, dict):
        return None
    floors = []
    if isinstance(variant_entry.get("minDeviceMemoryGiB"), (int, float)):
        floors.append(float(variant_entry["minDeviceMemoryGiB"]))
    precision_entry = as_map(as_map(variant_entry.get("precisions")).get(precision or ""))
    by_count = as_map(precision_entry.get("minDeviceMemoryGiB"))
    if isinstance(by_count.get(str(gpus)), (int, float)):
        floors.append(float(by_count[str(gpus)]))
    return max(floors) if floors else None


@dataclass
class GpuTarget:
    """A NIM worker or download container, the GPUs it requests and the products it may land on."""

    owner: Component | Workload
    container: Container
    obj: KObject
    resource: str
    count: int
    selection: ProductSelection
    known: list[GpuProduct] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    @property
    def variant(self) -> str | None:
        return env_text(self.container, "NIM_MODEL_VARIANT")

    @property
    def precision(self) -> str | None:
        return env_text(self.container, "NIM_PRECISION")

    @property
    def is_mig(self) -> bool:
        return "/mig-" in self.resource

    @property
    def nodes_per_replica(self) -> int:
        return self.owner.node_count if isinstance(self.owner, Component) else 1


def _gpu_consumers(model: Model) -> Iterator[tuple[Component | Workload, Container, PodSettings]]:
    for graph in model.graphs:
        if is_cosmos_graph(graph):
            for worker in nim_workers(graph):
                yield worker, worker.main, worker.pod
    for job in model.jobs():
        container = download_container(job)
        if container is not None and (container.env_var("NIM_MODEL_VARIANT") or container.env_var("NIM_PRECISION")):
            yield job, container, job.pod


def gpu_targets(model: Model) -> list[GpuTarget]:
    """Every NIM worker and download Job that requests GPUs and names the products it targets (once per model)."""

    def compute():
        targets = []
        for owner, container, pod in _gpu_consumers(model):
            gpu = container.gpu_request()
            selection = selected_products(pod)
            if gpu is None or gpu[1] < 1 or selection is None or not selection.products:
                continue
            target = GpuTarget(owner, container, owner.obj, gpu[0], gpu[1], selection)
            for label in selection.products:
                product = lookup_product(label)
                if product is None:
                    target.unknown.append(label)
                else:
                    target.known.append(product)
            targets.append(target)
        return targets

    return model.memo("gpu-targets", compute)
