"""`python -m dgdlint.tools.rule_costs [PATH ...]`: what each rule costs, to choose engine.PORTABLE_RULES.

For each rule, in one process: its time alone on a model just built ("first": what it computes of the model
included) and its time after every other rule has run on the model ("after": its own work only, what rules
share already computed). A rule whose two times are close computes little that other rules use: it may run in
another process at no extra cost. Default input: every preset's DGD, rendered, cycled to 300 files, as
`make bench` does. Times are the best of --repeat runs."""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from pathlib import Path


def measure(paths: list[str], repeat: int) -> dict[str, tuple[float, float]]:
    """{rule: (first, after)} in seconds."""
    from dgdlint.engine import PORTABLE_RULES  # noqa: F401 - the rules' registry, as a check has it
    from dgdlint.load import load_paths
    from dgdlint.model import build_model
    from dgdlint.rules import REGISTRY

    loaded = load_paths(paths, jobs=1)
    first: dict[str, float] = {}
    after: dict[str, float] = {}
    warm = build_model(loaded, "default")
    for rule in REGISTRY.values():  # module-level caches (patterns, tables) filled once, as in a check
        list(rule.check(warm))
    for _ in range(repeat):
        for name, rule in REGISTRY.items():
            model = build_model(loaded, "default")
            start = time.perf_counter()
            list(rule.check(model))
            first[name] = min(first.get(name, float("inf")), time.perf_counter() - start)
        model = build_model(loaded, "default")
        for rule in REGISTRY.values():
            list(rule.check(model))
        for name, rule in REGISTRY.items():
            start = time.perf_counter()
            list(rule.check(model))
            after[name] = min(after.get(name, float("inf")), time.perf_counter() - start)
    return {name: (first[name], after[name]) for name in REGISTRY}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rule_costs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", help="manifests (default: the presets' DGDs, 300 files)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--top", type=int, default=30, help="rules shown, costliest after the others first")
    args = parser.parse_args(argv)
    gc.disable()  # as the command runs
    from dgdlint.engine import PORTABLE_RULES

    with tempfile.TemporaryDirectory() as scratch:
        paths = args.paths
        if not paths:
            from dgdlint.tools.bench import rendered_documents, write_files

            write_files(Path(scratch), rendered_documents()["DynamoGraphDeployment"], 300)
            paths = [scratch]
        costs = measure(paths, args.repeat)
    print(f"{'rule':42} {'first ms':>9} {'after ms':>9}  portable")
    for name, (first, after) in sorted(costs.items(), key=lambda item: -item[1][1])[:args.top]:
        print(f"{name:42} {first * 1000:9.1f} {after * 1000:9.1f}  {'yes' if name in PORTABLE_RULES else ''}")
    print(f"all rules: {sum(f for f, _a in costs.values()) * 1000:.0f} ms each first, "
          f"{sum(a for _f, a in costs.values()) * 1000:.0f} ms each after the others")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
