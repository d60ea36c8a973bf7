"""dgdlint's own YAML data (dgdlint/data/, the chart's support matrix): trusted files, read by the quick reader
(load.fast), else by libyaml's C loader (the pure-Python one took 65 ms for the GPU product table, paid by every
check that reads a GPU selector). tests/load/test_fast_reader.py checks that both read every such file alike."""

from __future__ import annotations

import os

_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")  # (as schema.bundled finds schemas/)


def yaml_value(text: str) -> object:
    from dgdlint.load import fast

    documents = fast.read(text)
    if documents is not None and len(documents) == 1 and documents[0][0] == 0:
        return documents[0][1]
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def data_file(name: str) -> object:
    """The value of dgdlint/data/`name`."""
    with open(os.path.join(_DATA, name), encoding="utf-8") as handle:
        return yaml_value(handle.read())
