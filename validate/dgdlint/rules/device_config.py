"""What a ResourceClaim's requests and a DeviceClass share, as Kubernetes 1.37 validates them: device
selectors (at most 32, each a CEL selector whose expression the server compiles, device_cel.py) and
opaque device configurations (a driver named as a CSI driver is, and parameters that are a JSON object of
at most 10 KiB)."""

from __future__ import annotations

from dgdlint.go_json import marshal
from dgdlint.model import as_map, as_str
from dgdlint.rules.device_cel import expression_problem
from dgdlint.rules.volume_sources import csi_driver_problem

MAX_SELECTORS = 32
MAX_PARAMETERS = 10 * 1024  # bytes of JSON


def selector_problems(selectors: list, at: tuple):
    """(path, problem) for a list of selectors at `at`: over the limit, the server reads none of them."""
    if len(selectors) > MAX_SELECTORS:
        yield at, f"has {len(selectors)} selectors; at most {MAX_SELECTORS} are taken"
        return
    for index, selector in enumerate(selectors):
        where = at + (index,)
        cel = as_map(selector).get("cel")
        if cel is None:
            yield where + ("cel",), "selector has no cel (its one kind of selector)"
        elif isinstance(as_map(cel).get("expression"), str):
            problem = expression_problem(cel["expression"])
            if problem:
                yield where + ("cel", "expression"), f"selector expression {problem}"


def parameters_problem(parameters: object) -> str | None:
    """An opaque configuration's parameters: a JSON object of at most 10 KiB, counted as the JSON kubectl
    (and the API server, for YAML) makes of the YAML: Go's encoding/json, compact, with `<`, `>` and `&`
    escaped to six bytes each and numbers in Go's spelling (go_json.marshal)."""
    size = len(marshal(parameters).encode())
    if size > MAX_PARAMETERS:
        return f"are {size} bytes of JSON; at most {MAX_PARAMETERS} are taken"
    if not isinstance(parameters, dict):
        return "must be a JSON object (the driver's configuration, with its apiVersion and kind)"
    return None


def opaque_problems(config: dict, at: tuple):
    """(path, problem) for a config entry at `at` (a claim's or a class's): its opaque configuration."""
    if config.get("opaque") is None:
        yield at + ("opaque",), "config has no opaque configuration (its one kind)"
        return
    opaque, where = as_map(config["opaque"]), at + ("opaque",)
    driver = as_str(opaque.get("driver"))
    if driver is not None and csi_driver_problem(driver):
        yield where + ("driver",), f"config driver {driver!r} {csi_driver_problem(driver)}"
    if opaque.get("parameters") is not None and parameters_problem(opaque["parameters"]):  # null: the schema's
        yield where + ("parameters",), f"config parameters {parameters_problem(opaque['parameters'])}"
