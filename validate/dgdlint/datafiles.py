"""dgdlint's own YAML data (dgdlint/data/): trusted files, read with libyaml's C loader (the pure-Python one
took 65 ms for the GPU product table, paid by every check that reads a GPU selector)."""

from __future__ import annotations

import importlib.resources


def yaml_value(text: str) -> object:
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def data_file(name: str) -> object:
    """The value of dgdlint/data/`name`."""
    return yaml_value((importlib.resources.files("dgdlint") / "data" / name).read_text(encoding="utf-8"))
