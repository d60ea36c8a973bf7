"""`dgdlint smoke`: the chart's smoke client (health, models, a streaming round trip) against a live
frontend. The client ships in the chart and runs in a pod without dgdlint, so it owns its argument parser:
this command hands it the arguments as given."""

from __future__ import annotations

import argparse

NAME = "smoke"
HELP = "smoke-test a live frontend (health, models, one streaming round trip)"
EXAMPLE = "dgdlint smoke --url http://localhost:8000 --streaming"
PASSTHROUGH = True


def add_arguments(parser) -> None:
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help="see `dgdlint smoke --help`")


def run(args) -> int:
    return run_arguments(args.arguments)


def run_arguments(argv: list[str]) -> int:
    from dgdlint.smoke import client

    return client().main(argv, prog="dgdlint smoke")
