"""`make validate`: render every preset in values/ with the real Helm engine and check each rendered
set with dgdlint (schema stage against the bundled schemas, or the CRDs given). Fails on any error finding
or render failure."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from dgdlint.engine import check_texts
    from dgdlint.render import RenderError, RenderRequest, as_stream, render_chart
    from dgdlint.report.text import render as render_text
    from dgdlint.schema import SchemaStage, crd_sources_from_env

    parser = argparse.ArgumentParser(prog="validate_presets", description=__doc__)
    parser.add_argument("--chart", required=True)
    parser.add_argument("--values-dir", default="values")
    parser.add_argument("--crd", action="append", default=[], help="CRD path or URL (repeatable)")
    parser.add_argument("--dynamo-version", help="bundled Dynamo release of the schemas (default: the newest)")
    parser.add_argument("--out", help="write each rendered preset to OUT/<preset>.yaml")
    parser.add_argument("--release", default="cosmos3-reasoner")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--kubeconform", help="the kubeconform binary (`make tools` builds .tools/bin/kubeconform)")
    args = parser.parse_args(argv)

    stage = SchemaStage(args.crd or crd_sources_from_env(), dynamo_version=args.dynamo_version or None)
    print(f"schema stage: {stage.description or 'skipped for custom resources (no schemas)'}")
    presets = sorted(Path(args.values_dir).glob("*.yaml"))
    if not presets:
        print(f"no presets in {args.values_dir}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for preset in presets:
        request = RenderRequest(args.chart, values_files=[str(preset)], release=args.release,
                                namespace=args.namespace)
        try:
            templates = render_chart(request)
        except RenderError as error:
            print(f"FAIL {preset.name}: did not render: {error}")
            failed += 1
            continue
        if out:
            (out / preset.name).write_text(as_stream(templates), encoding="utf-8")
        result = check_texts({f"{preset.name}:{t.source}": t.text for t in templates}, stage, args.namespace)
        errors, warnings = result.count("error"), result.count("warning")
        status = "FAIL" if errors else "ok  "
        print(f"{status} {preset.name}: {len(result.model.objects)} objects, {errors} errors, {warnings} warnings")
        if errors or warnings:
            shown = [f for f in result.findings if f.severity != "info"]
            result.findings = shown
            sys.stdout.write("".join("     " + line + "\n" for line in render_text(result).splitlines()[:-1]))
        failed += bool(errors)
    print(f"{len(presets)} presets rendered and checked; {failed} failed")
    failed += run_kubeconform(stage, out, args.kubeconform)
    return 1 if failed else 0


def run_kubeconform(stage, out: Path | None, kubeconform: str | None) -> int:
    """kubeconform over the rendered presets, offline, with the project's own schemas: Kubernetes' from
    kubernetes-validate (made standalone), Dynamo's from the CRDs the schema stage read."""
    import tempfile

    from dgdlint.tools import kubeconform as kc

    if not kubeconform or not Path(kubeconform).is_file() or out is None:
        print("kubeconform: skipped (" + ("needs --out" if out is None else
              f"{kubeconform or 'no --kubeconform'} not built: `make tools` builds it where Go is installed") + ")")
        return 0
    files = sorted(out.glob("*.yaml"))
    with tempfile.TemporaryDirectory() as schemas:
        kc.write_schemas(Path(schemas), kc.kinds_in(files), stage)
        report = kc.run(kubeconform, Path(schemas), files, missing_ok=not stage.has_crds)
    failed = 0
    for resource in report["resources"]:
        if resource.get("status") not in ("statusValid", "statusSkipped"):
            failed += 1
            print(f"FAIL kubeconform {Path(resource.get('filename', '?')).name}: {resource.get('kind')} "
                  f"{resource.get('name')}: {resource.get('msg', '')}")
    if report.get("error"):
        print(f"FAIL kubeconform: {report['error'].strip()}")
        failed += 1
    valid = sum(resource.get("status") == "statusValid" for resource in report["resources"])
    print(f"kubeconform -strict: {len(files)} presets, {valid} resources valid, {failed} failed"
          + ("" if stage.has_crds else " (no CRD: Dynamo kinds skipped)"))
    return int(failed > 0 or report["returncode"] != 0)


if __name__ == "__main__":
    raise SystemExit(main())
