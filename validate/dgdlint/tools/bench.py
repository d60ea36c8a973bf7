"""`make bench`: dgdlint's speed, measured side by side with other validators in one run.

Inputs are generated at run time from the chart's own presets (every preset rendered, the DGD of each
written to its own file, cycled up to N files). Measured, as whole commands (start-up included),
best of a few runs, in wall time and in CPU time (user + system of the command):
- dgdlint (schema + every rule) against check-jsonschema (schema only, the same CRD-derived schema)
  on the same N DGD files;
- dgdlint at N and at 10N files (how cost grows);
- dgdlint on the Jobs and PVCs against kubernetes-validate on the same documents;
- start-up: `dgdlint --version` and a check of one file;
- the floor under any YAML checker in Python on the same N DGD files: libyaml's parser run over each file
  (events only: no values built, no positions kept), and PyYAML's C loader (values, no positions), so
  dgdlint's cost can be read against what reading the YAML alone costs."""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The two floors, run as whole commands like the tools (interpreter start-up included).
_EVENTS_ONLY = """import sys, yaml
for name in sys.argv[1:]:
    parser = yaml.CSafeLoader(open(name, encoding="utf-8").read())
    while parser.get_event() is not None:
        pass
    parser.dispose()
"""
_VALUES_ONLY = """import sys, yaml
for name in sys.argv[1:]:
    yaml.load(open(name, encoding="utf-8").read(), Loader=yaml.CSafeLoader)
"""

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


def compile_bytecode() -> None:
    """Write dgdlint's bytecode before timing, as installing a wheel does (pip compiles every module; the
    tools compared with are installed that way). An editable install run where PYTHONDONTWRITEBYTECODE is
    set would otherwise compile every module from source on each run: start-up, not checking."""
    import compileall

    import dgdlint

    compileall.compile_dir(str(Path(dgdlint.__file__).parent), quiet=1)


def run_once(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run. CPU time (user + system of the command and of the workers it
    forks and waits for) is what other processes on a shared machine disturb least; wall time is what a
    user waits."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode not in (0, 1):
        raise SystemExit(f"{command[0]} failed ({completed.returncode}): {completed.stderr.decode()[:500]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timed_together(commands: dict[str, tuple[list[str], int]], repeat: int) -> dict[str, tuple[float, float]]:
    """{name: best (wall, CPU)} of `repeat` rounds (plus each command's extra rounds); each round runs every
    command once, one after another, so a slow spell of a shared machine falls on all of them alike and the
    ratios between them hold."""
    best: dict[str, tuple[float, float]] = {name: (float("inf"), float("inf")) for name in commands}
    for round_ in range(repeat + max(extra for _command, extra in commands.values())):
        for name, (command, extra) in commands.items():
            if round_ < repeat + extra:
                wall, cpu = run_once(command)
                best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench", description=__doc__)
    parser.add_argument("--files", type=int, default=300, help="N (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--crd", default=os.environ.get("DGDLINT_CRD"),
                        help="a DGD CRD instead of the bundled schemas, for both tools "
                             "(default: the newest bundled release)")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    from dgdlint.schema import SchemaStage

    if args.crd and not Path(args.crd).exists():
        print(f"bench: {args.crd} not found", file=sys.stderr)
        return 2
    bin_dir = Path(sys.executable).parent
    dgdlint = str(bin_dir / "dgdlint")
    check_jsonschema = shutil.which("check-jsonschema", path=str(bin_dir)) or shutil.which("check-jsonschema")
    kubernetes_validate = shutil.which("kubernetes-validate", path=str(bin_dir)) or shutil.which("kubernetes-validate")
    compile_bytecode()
    documents = rendered_documents()
    n = args.files
    key = ("nvidia.com", "DynamoGraphDeployment", "v1alpha1")
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        crd_option = ["--crd", args.crd] if args.crd else []
        schema_file = base / "dgd-v1alpha1.json"
        schema_file.write_text(json.dumps(SchemaStage([args.crd] if args.crd else []).crds[key].schema))
        dgds = write_files(base / "n", documents["DynamoGraphDeployment"], n)
        write_files(base / "n10", documents["DynamoGraphDeployment"], 10 * n)
        builtins = write_files(base / "builtin", documents["Job"] + documents.get("PersistentVolumeClaim", []), n)

        commands = {
            "dgdlint_n": ([dgdlint, "check", *crd_option, str(base / "n")], 0),
            "dgdlint_one_process_n": ([dgdlint, "check", "--jobs", "1", *crd_option, str(base / "n")], 0),
            "dgdlint_10n": ([dgdlint, "check", *crd_option, str(base / "n10")], 0),
            "dgdlint_startup_version": ([dgdlint, "--version"], 2),
            "dgdlint_one_file": ([dgdlint, "check", dgds[0]], 2),
            "dgdlint_builtin_n": ([dgdlint, "check", str(base / "builtin")], 0),
            "libyaml_events_n": ([sys.executable, "-c", _EVENTS_ONLY, *dgds], 0),
            "pyyaml_c_load_n": ([sys.executable, "-c", _VALUES_ONLY, *dgds], 0),
        }
        if check_jsonschema:
            commands["check_jsonschema_n"] = ([check_jsonschema, "--schemafile", str(schema_file), *dgds], 0)
        if kubernetes_validate:
            commands["kubernetes_validate_builtin_n"] = ([kubernetes_validate, "--strict", *builtins], 0)
        figures = timed_together(commands, args.repeat)

    report(figures, n, args.repeat)
    if args.json:
        Path(args.json).write_text(json.dumps({name: {"wall": wall, "cpu": cpu}
                                               for name, (wall, cpu) in figures.items()}, indent=2))
    return 0


def report(figures: dict[str, tuple[float, float]], n: int, repeat: int) -> None:
    def both(name: str) -> str:
        wall, cpu = figures[name]
        return f"{wall:.2f} s wall, {cpu:.2f} s CPU"

    def ratio(ours: str, theirs: str) -> str:
        return (f"dgdlint takes {figures[ours][0] / figures[theirs][0]:.2f} of its wall time, "
                f"{figures[ours][1] / figures[theirs][1]:.2f} of its CPU time")

    wall, _ = figures["dgdlint_n"]
    print(f"N = {n} files, best of {repeat} rounds of every command, whole commands (start-up included), "
          f"{os.cpu_count()} cores")
    print(f"dgdlint, schema (OpenAPI, CEL, list keys) + all rules, N DGDs: {both('dgdlint_n')} "
          f"({1000 * wall / n:.2f} ms/file, {n / wall:.0f} resources/s)")
    print(f"dgdlint --jobs 1 (one process), the same: {both('dgdlint_one_process_n')} -> with workers "
          f"{ratio('dgdlint_n', 'dgdlint_one_process_n').removeprefix('dgdlint ')} in one process")
    if "check_jsonschema_n" in figures:
        print(f"check-jsonschema, OpenAPI only, the same schema: {both('check_jsonschema_n')} "
              f"-> {ratio('dgdlint_n', 'check_jsonschema_n')}; in one process "
              f"{ratio('dgdlint_one_process_n', 'check_jsonschema_n').removeprefix('dgdlint takes ')}")
    else:
        print("check-jsonschema not installed: pip install check-jsonschema to compare")
    print(f"floor, libyaml events only over the same N files: {both('libyaml_events_n')}; PyYAML's C loader "
          f"(values, no positions): {both('pyyaml_c_load_n')} -> {ratio('dgdlint_n', 'pyyaml_c_load_n')}")
    growth_wall = figures["dgdlint_10n"][0] / wall
    growth_cpu = figures["dgdlint_10n"][1] / figures["dgdlint_n"][1]
    print(f"dgdlint, 10N DGDs: {both('dgdlint_10n')} -> growth N to 10N: "
          f"{growth_wall:.1f}x wall, {growth_cpu:.1f}x CPU")
    print(f"dgdlint, N Jobs/PVCs (built-in kinds): {both('dgdlint_builtin_n')}")
    if "kubernetes_validate_builtin_n" in figures:
        print(f"kubernetes-validate, same documents: {both('kubernetes_validate_builtin_n')} "
              f"-> {ratio('dgdlint_builtin_n', 'kubernetes_validate_builtin_n')}")
    print(f"start-up: dgdlint --version {1000 * figures['dgdlint_startup_version'][0]:.0f} ms, "
          f"check of one file {1000 * figures['dgdlint_one_file'][0]:.0f} ms "
          f"({1000 * figures['dgdlint_one_file'][1]:.0f} ms CPU)")


if __name__ == "__main__":
    raise SystemExit(main())
