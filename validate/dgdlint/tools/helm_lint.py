"""`make lint` for the chart: Helm's own linter with the default values and with every preset; fails on any
warning or error. It runs every Helm CLI given that exists (`make tools` builds the Helm 3 and Helm 4 CLIs),
else the helm on PATH, else the embedded SDK.
    usage: python -m dgdlint.tools.helm_lint CHART [VALUES_DIR [HELM_BINARY ...]]"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from pathlib import Path

SEVERITY = {0: "unknown", 1: "info", 2: "warning", 3: "error"}


def lint_with_sdk(chart: str, values_file: str | None) -> list[str]:
    import helm_python

    from dgdlint.render import RenderRequest, user_values

    values = user_values(RenderRequest(chart, values_files=[values_file] if values_file else []))
    report = helm_python.lint(chart, values or None, strict=True)
    problems = [f"{SEVERITY.get(m['severity'], m['severity'])}: {m['path']}: {m['error']}"
                for m in report.get("messages", []) if m.get("severity", 0) >= 2]
    return problems + list(report.get("errors") or [])


def lint_with_binary(chart: str, values_file: str | None, helm: str = "helm") -> list[str]:
    command = [helm, "lint", "--strict", chart] + (["-f", values_file] if values_file else [])
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    return [] if completed.returncode == 0 else [completed.stdout + completed.stderr]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    chart = argv[0] if argv else "charts/cosmos3-reasoner"
    values_dir = Path(argv[1]) if len(argv) > 1 else Path("values")
    binaries = [path for path in argv[2:] if Path(path).is_file()] or (["helm"] if shutil.which("helm") else [])
    linters = [(f"{helm} lint", functools.partial(lint_with_binary, helm=helm)) for helm in binaries] or \
        [("helm lint (embedded SDK)", lint_with_sdk)]
    failed = 0
    for label, lint in linters:
        for values_file in [None, *sorted(str(p) for p in values_dir.glob("*.yaml"))]:
            problems = lint(chart, values_file)
            print(f"{'FAIL' if problems else 'ok  '} {label} --strict {chart} ({values_file or 'default values'})")
            for problem in problems:
                print(f"     {problem}")
            failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
