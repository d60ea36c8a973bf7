"""`dgdlint plan --format json`: the plan for machines, quantities as numbers (bytes, cores)."""

from __future__ import annotations

import json

from dgdlint.plan import Part, Plan
from dgdlint.quantity import quantity_bytes


def render_json(plan: Plan) -> str:
    def part_dict(part: Part) -> dict:
        resources = part.resources
        return {
            "name": part.name, "type": part.type, "pods": part.pods, "pods_note": part.pods_note,
            "gpus": [{"resource": r, "per_pod": n} for r, n in resources.gpus.items()],
            "gpu_products": part.products,
            "cpu": {"request": float(resources.cpu),
                    "limit": float(resources.cpu_limit) if resources.cpu_limit is not None else None},
            "memory": {"request": resources.memory, "limit": resources.memory_limit},
            "shared_memory": part.shared_memory, "images": part.images,
            "streaming_endpoint": part.streaming_endpoint,
            "claims": [{"name": c.name, "mount_paths": c.mount_paths, "size": c.size, "size_bytes": c.size_bytes}
                       for c in part.claims],
            "not_quantities": resources.unparsed,
        }

    document = {
        "graphs": [{"name": g.graph.obj.name, "namespace": g.graph.obj.namespace,
                    "api_version": g.graph.obj.api_version, "file": g.graph.obj.file,
                    "components": [part_dict(p) for p in g.parts]} for g in plan.graphs],
        "workloads": [dict(part_dict(p), kind=p.obj.kind, namespace=p.obj.namespace, file=p.obj.file)
                      for p in plan.workloads],
        "claims": [{"name": c.name, "namespace": c.namespace, "size": c.size,
                    "size_bytes": quantity_bytes(c.size) if c.size else None, "access_modes": c.access_modes,
                    "storage_class": c.storage_class, "defined_by": c.defined_by} for c in plan.claims],
        "totals": plan.totals.to_dict(),
        "totals_without_jobs": plan.totals_without_jobs.to_dict(),
        "totals_first_install": plan.totals_first_install.to_dict(),
        "first_install_order": plan.first_install_order,
        "not_counted": [p.obj.ref for p in plan.not_counted],
        "gpu_fit_targets": plan.gpu_targets,
        "findings": [f.to_dict() for f in plan.findings],
    }
    return json.dumps(document, indent=2) + "\n"


def render(plan: Plan) -> str:
    return render_json(plan)
