"""`dgdlint smoke`: runs the chart's smoke client, charts/cosmos3-reasoner/files/smoke.py, the very file
the chart's `helm test` pods run, so the command and the pods cannot drift apart. The wheel carries a
copy as dgdlint/data/smoke.py; a source tree reads the chart's file."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_CLIENT_IN_CHART = Path("charts") / "cosmos3-reasoner" / "files" / "smoke.py"
_MODULE_NAME = "dgdlint._smoke_client"


def client_source() -> tuple[str, str]:
    """(text, path) of the smoke client: the wheel's copy, or the chart's file in a source tree."""
    import importlib.resources

    packaged = importlib.resources.files("dgdlint") / "data" / "smoke.py"
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8"), str(packaged)
    source_tree = Path(__file__).resolve().parents[2] / _CLIENT_IN_CHART
    return source_tree.read_text(encoding="utf-8"), str(source_tree)


@functools.cache
def client() -> ModuleType:
    """The smoke client as a module, loaded once."""
    text, path = client_source()
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(_MODULE_NAME, loader=None))
    module.__file__ = path
    sys.modules[_MODULE_NAME] = module
    exec(compile(text, path, "exec"), module.__dict__)  # noqa: S102 (our own packaged source)
    return module


def main(argv: list[str] | None = None) -> int:
    return client().main(sys.argv[1:] if argv is None else argv, prog="dgdlint smoke")
