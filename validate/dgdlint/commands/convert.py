"""`dgdlint convert --to v1beta1|v1alpha1 FILE...`: graphs converted in the user's own files (YAML to stdout,
notes to stderr), or in place with --write (all files or none), or as a unified diff with --diff (exit 1 when a
file would change)."""

from __future__ import annotations

NAME = "convert"
HELP = "convert DynamoGraphDeployments between v1alpha1 and v1beta1, keeping comments (YAML to stdout)"
EXAMPLE = """dgdlint convert --to v1beta1 examples/vllm-video-understanding.v1alpha1.yaml
dgdlint convert --to v1beta1 --write deploy/*.yaml"""


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="FILE", help="YAML files (- for stdin)")
    parser.add_argument("--to", required=True, choices=("v1beta1", "v1alpha1"), help="the target API version")
    parser.add_argument("--write", action="store_true", help="rewrite the files in place (all of them or none)")
    parser.add_argument("--diff", action="store_true", help="show the change as a unified diff; write nothing "
                                                            "(exit 1 when a file would change)")


def run(args) -> int:
    from dgdlint.edit.command import run_convert

    return run_convert(args.paths, args.to, args.write, args.diff)
