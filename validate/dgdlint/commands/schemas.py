"""`dgdlint schemas`: list the bundled Dynamo schemas, or write CRDs' JSON schemas, either flat in
kubeconform's layout (`-schema-location 'DIR/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'`) or as a
release tree like schemas/ (`--release`: OUT/RELEASE/GROUP/KIND_VERSION.json and OUT/index.json)."""

from __future__ import annotations

import os

from dgdlint.commands.options import EXIT_OK, UsageProblem

NAME = "schemas"
HELP = "list the bundled schemas, or write CRD-derived JSON schemas in kubeconform's layout"
EXAMPLE = """dgdlint schemas list
dgdlint schemas write --crd path/to/nvidia.com_dynamographdeployments.yaml --out schemas/"""


def add_arguments(parser) -> None:
    parser.add_argument("action", nargs="?", choices=("list", "write"), default="write",
                        help="list: the bundled Dynamo releases; write (default): convert --crd into --out")
    parser.add_argument("--crd", metavar="PATH_OR_URL", action="append", default=[],
                        help="CRD file, directory, URL or `cluster` (repeatable; env DGDLINT_CRD)")
    parser.add_argument("--out", metavar="DIR", help="folder for {kind}_{version}.json files")
    bundle = parser.add_argument_group("a release tree, as in schemas/")
    bundle.add_argument("--release", metavar="NAME", help="the Dynamo release these CRDs come from")
    bundle.add_argument("--repository", default="", help="source repository, recorded in the index")
    bundle.add_argument("--ref", default="", help="source tag or branch, recorded in the index")
    bundle.add_argument("--commit", default="", help="source commit, recorded in the index")
    bundle.add_argument("--date", default="", help="date of that commit, recorded in the index")


def run(args) -> int:
    import json

    from dgdlint.schema import CrdError, SchemaStage, crd_sources_from_env

    if args.action == "list":
        return list_bundled()
    sources = args.crd or crd_sources_from_env()
    if not sources:
        raise UsageProblem("give the CRDs with --crd (or DGDLINT_CRD)")
    if not args.out:
        raise UsageProblem("schemas write needs --out DIR")
    try:
        if args.release:
            from pathlib import Path

            from dgdlint.schema.bundled import write_release

            for path in write_release(Path(args.out), args.release, sources, args.repository, args.ref, args.commit,
                                      args.date):
                print(os.path.join(args.out, path))
            return EXIT_OK
        stage = SchemaStage(sources)
    except CrdError as error:
        raise UsageProblem(str(error)) from None
    except OSError as error:
        raise UsageProblem(f"{args.out}: {error.strerror}") from None
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


def list_bundled() -> int:
    from dgdlint.schema.bundled import bundled_root, read_index

    root = bundled_root()
    if root is None:
        raise UsageProblem("this installation has no bundled schemas")
    releases = read_index(root)
    for release in reversed(releases):
        default = "  (default)" if release is releases[-1] else ""
        print(f"{release.name}{default}  {release.repository} {release.ref} {release.commit[:12]}  {release.date}")
        for kind, entry in sorted(release.kinds.items()):
            versions = [v + (" (deprecated)" if v in entry.get("deprecated", []) else "")
                        + (" (storage)" if v == entry.get("storage") else "") for v in entry.get("served", [])]
            print(f"  {entry.get('group')}/{kind}: {', '.join(versions)}")
    print(f"schemas in {root}")
    return EXIT_OK
