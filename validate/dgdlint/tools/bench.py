"""`make bench`: dgdlint's speed, measured side by side with other validators in one run.

Inputs are generated at run time from the chart's own presets (every preset rendered, the DGD of each
written to its own file, cycled up to N files). Measured, as whole commands (start-up included),
best of a few runs:
- dgdlint (schema + every rule) against check-jsonschema (schema only, the same CRD-derived schema)
  on the same N DGD files;
- dgdlint at N and at 10N files (how cost grows);
- dgdlint on the Jobs and PVCs against kubernetes-validate on the same documents;
- start-up: `dgdlint --version` and a check of one file."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CHART = ROOT / "charts" / "cosmos3-reasoner"
VALUES = ROOT / "values"


def rendered_documents() -> dict[str, list[str]]:
    """{kind: [YAML text of one object]} over every preset, v1alpha1 DGDs only (one schema for both tools)."""
    import yaml

    from dgdlint.render import RenderRequest, render_chart

    out: dict[str, list[str]] = {}
    for preset in sorted(VALUES.glob("*.yaml")):
        for template in render_chart(RenderRequest(CHART, values_files=[str(preset)])):
            for document in yaml.safe_load_all(template.text):
                if not document:
                    continue
                if document["kind"] == "DynamoGraphDeployment" and not document["apiVersion"].endswith("v1alpha1"):
                    continue
                out.setdefault(document["kind"], []).append(yaml.safe_dump(document, sort_keys=False))
    return out


def write_files(folder: Path, texts: list[str], count: int) -> list[str]:
    """`count` files cycling through `texts`, each object in its own namespace (as separate releases
    would be), so the set is clean and the timings measure checking, not reporting."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"m{index:05d}.yaml"
        text = texts[index % len(texts)].replace("\nmetadata:\n", f"\nmetadata:\n  namespace: bench-{index}\n", 1)
        text = text.replace("  namespace: default\n", "")
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


def timed(command: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        elapsed = time.perf_counter() - start
        if completed.returncode not in (0, 1):
            raise SystemExit(f"{command[0]} failed ({completed.returncode}): {completed.stderr.decode()[:500]}")
        best = min(best, elapsed)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench", description=__doc__)
    parser.add_argument("--files", type=int, default=300, help="N (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--crd", default=os.environ.get("DGDLINT_CRD"),
                        help="a DGD CRD instead of the bundled schemas (default: the newest bundled release)")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    from dgdlint.schema import SchemaStage

    if args.crd and not Path(args.crd).exists():
        print(f"bench: {args.crd} not found", file=sys.stderr)
        return 2
    crd_option = ["--crd", args.crd] if args.crd else []
    bin_dir = Path(sys.executable).parent
    dgdlint = str(bin_dir / "dgdlint")
    check_jsonschema = shutil.which("check-jsonschema", path=str(bin_dir)) or shutil.which("check-jsonschema")
    kubernetes_validate = shutil.which("kubernetes-validate", path=str(bin_dir)) or shutil.which("kubernetes-validate")
    documents = rendered_documents()
    figures: dict[str, float] = {}
    n = args.files
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        stage = SchemaStage([args.crd] if args.crd else [])
        schema = stage.crds[("nvidia.com", "DynamoGraphDeployment", "v1alpha1")].schema
        schema_file = base / "dgd-v1alpha1.json"
        schema_file.write_text(json.dumps(schema))
        dgds = write_files(base / "n", documents["DynamoGraphDeployment"], n)
        write_files(base / "n10", documents["DynamoGraphDeployment"], 10 * n)
        builtins = write_files(base / "builtin", documents["Job"] + documents.get("PersistentVolumeClaim", []), n)

        figures["dgdlint_n"] = timed([dgdlint, "check", *crd_option, str(base / "n")], args.repeat)
        figures["dgdlint_10n"] = timed([dgdlint, "check", *crd_option, str(base / "n10")], args.repeat)
        figures["dgdlint_startup_version"] = timed([dgdlint, "--version"], args.repeat + 2)
        figures["dgdlint_one_file"] = timed([dgdlint, "check", dgds[0]], args.repeat + 2)
        figures["dgdlint_builtin_n"] = timed([dgdlint, "check", str(base / "builtin")], args.repeat)
        if check_jsonschema:
            figures["check_jsonschema_n"] = timed([check_jsonschema, "--schemafile", str(schema_file), *dgds],
                                                  args.repeat)
        if kubernetes_validate:
            figures["kubernetes_validate_builtin_n"] = timed([kubernetes_validate, "--strict", *builtins], args.repeat)

    print(f"N = {n} files, best of {args.repeat} runs, whole commands (start-up included), {os.cpu_count()} cores")
    print(f"dgdlint, schema + all rules, N DGDs:   {figures['dgdlint_n']:.2f} s "
          f"({1000 * figures['dgdlint_n'] / n:.2f} ms/file, {n / figures['dgdlint_n']:.0f} resources/s)")
    if "check_jsonschema_n" in figures:
        print(f"check-jsonschema, schema only, N DGDs: {figures['check_jsonschema_n']:.2f} s "
              f"-> dgdlint is {figures['check_jsonschema_n'] / figures['dgdlint_n']:.1f}x faster")
    else:
        print("check-jsonschema not installed: pip install check-jsonschema to compare")
    print(f"dgdlint, 10N DGDs:                     {figures['dgdlint_10n']:.2f} s "
          f"-> growth N to 10N: {figures['dgdlint_10n'] / figures['dgdlint_n']:.1f}x")
    print(f"dgdlint, N Jobs/PVCs (built-in kinds): {figures['dgdlint_builtin_n']:.2f} s")
    if "kubernetes_validate_builtin_n" in figures:
        print(f"kubernetes-validate, same documents:   {figures['kubernetes_validate_builtin_n']:.2f} s "
              f"-> dgdlint is {figures['kubernetes_validate_builtin_n'] / figures['dgdlint_builtin_n']:.1f}x faster")
    print(f"start-up: dgdlint --version {1000 * figures['dgdlint_startup_version']:.0f} ms, "
          f"check of one file {1000 * figures['dgdlint_one_file']:.0f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
