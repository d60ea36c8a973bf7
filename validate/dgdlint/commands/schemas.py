"""`dgdlint schemas`: the JSON schemas of CRDs, written in kubeconform's layout
(`-schema-location 'DIR/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'`)."""

from __future__ import annotations

import os

from dgdlint.commands.options import EXIT_OK, UsageProblem

NAME = "schemas"
HELP = "write CRD-derived JSON schemas in kubeconform's layout"
EXAMPLE = "dgdlint schemas --crd path/to/nvidia.com_dynamographdeployments.yaml --out schemas/"


def add_arguments(parser) -> None:
    parser.add_argument("--crd", metavar="PATH_OR_URL", action="append", default=[],
                        help="CRD file, directory, URL or `cluster` (repeatable; env DGDLINT_CRD)")
    parser.add_argument("--out", metavar="DIR", required=True, help="folder for {kind}_{version}.json files")


def run(args) -> int:
    import json

    from dgdlint.schema import CrdError, SchemaStage, crd_sources_from_env

    sources = args.crd or crd_sources_from_env()
    if not sources:
        raise UsageProblem("give the CRDs with --crd (or DGDLINT_CRD)")
    try:
        stage = SchemaStage(sources)
    except CrdError as error:
        raise UsageProblem(str(error)) from None
    try:
        os.makedirs(args.out, exist_ok=True)
        for (_group, kind, version), crd in sorted(stage.crds.items()):
            path = os.path.join(args.out, f"{kind.lower()}_{version}.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(crd.schema, handle, indent=1, sort_keys=True)
            print(path)
    except OSError as error:
        raise UsageProblem(f"{args.out}: {error.strerror}") from None
    return EXIT_OK
