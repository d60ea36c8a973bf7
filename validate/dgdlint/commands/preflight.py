"""`dgdlint preflight`: before `helm install`, read the cluster and say whether the release can land there;
the checks are in dgdlint.preflight. Exit 0 every check passed (warnings allowed), 1 a check failed or the
chart did not render, 2 usage error or a cluster that cannot be reached or read."""

from __future__ import annotations

import sys

from dgdlint.commands import inputs, options
from dgdlint.commands.options import EXIT_FINDINGS, EXIT_OK, UsageProblem

NAME = "preflight"
HELP = "check a cluster before installing: DGD versions served, namespace, secrets, storage, priority, GPUs"
EXAMPLE = """dgdlint preflight --chart charts/cosmos3-reasoner -f values/nano-fp8.yaml --namespace inference
dgdlint preflight --chart charts/cosmos3-reasoner -f values/super-fp8.yaml --kubeconfig prod.yaml --format json"""


def add_arguments(parser) -> None:
    options.add_paths_argument(parser)
    options.add_render_options(parser)
    options.add_namespace_option(parser)
    cluster = parser.add_argument_group("the cluster")
    cluster.add_argument("--kubeconfig", metavar="FILE", help="kubeconfig file (default: $KUBECONFIG or "
                         "~/.kube/config)")
    cluster.add_argument("--context", help="kube context (default: the current one)")
    cluster.add_argument("--crd", metavar="PATH_OR_URL", action="append", default=[],
                         help="an operator release's CRDs to match the cluster's DGD CRD against (repeatable; default: "
                         "the bundled releases, as `dgdlint schemas list` shows them)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (one line a check) or json, to stdout (default: %(default)s)")


def run(args) -> int:
    from dgdlint.model import build_model
    from dgdlint.plan import build_plan
    from dgdlint.preflight import Cluster, ClusterError, run_preflight
    from dgdlint.preflight.report import render_json, render_text
    from dgdlint.schema import CrdError, read_crd_source

    try:
        candidates = {source: [crd for crd in read_crd_source(source)
                               if ((crd.get("spec") or {}).get("names") or {}).get("kind") == "DynamoGraphDeployment"]
                      for source in args.crd}
    except CrdError as error:
        raise UsageProblem(str(error)) from None
    loaded = inputs.load_inputs(args)
    if loaded.render_findings:
        for finding in loaded.render_findings:
            print(f"dgdlint preflight: {finding.message}", file=sys.stderr)
        return EXIT_FINDINGS
    plan = build_plan(build_model(loaded.loaded, args.namespace))
    try:
        report = run_preflight(Cluster(args.kubeconfig, args.context), plan, args.namespace, args.release,
                               candidates)
    except ClusterError as error:
        raise UsageProblem(f"cannot read the cluster: {error}") from None
    sys.stdout.write(render_json(report) if args.format == "json" else render_text(report))
    return EXIT_FINDINGS if report.count("error") else EXIT_OK
