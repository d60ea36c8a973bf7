"""Helpers for the edit tests: run a command, read a file's comment lines, and the facts of its graphs."""

from __future__ import annotations

import json

from dgdlint.cli import main
from dgdlint.load import LoadResult, load_text
from dgdlint.model import build_model


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def comments(text: str) -> list[str]:
    """Every comment of a YAML text, in order (the part from `#`, for lines that have one outside quotes)."""
    from dgdlint.edit.source import Chunk, comment_layout, split_chunks

    out = []
    for chunk in split_chunks(text):
        layout = comment_layout("-", Chunk("", chunk.body, 0))
        lines = chunk.body.splitlines()
        for number, line in enumerate(lines):
            if number in layout.full_lines and line.strip():
                out.append(line.strip())
            elif number in layout.eol:
                out.append(layout.eol[number][1])
    return out


def facts(name: str, text: str) -> dict[str, dict]:
    """What the comparison looks at, per component, read through dgdlint's own model."""
    out = {}
    for graph in build_model(load_text(name, text, LoadResult())).graphs:
        for component in graph.components:
            main = component.main
            gpu = main.gpu_request()
            out[component.name] = {
                "type": component.type, "replicas": component.replicas, "image": main.image,
                "command": main.command, "args": main.args,
                "env": [(e.name, e.value if e.is_literal else json.dumps(e.value_from, sort_keys=True))
                        for e in main.env],
                "gpus": [gpu[0], gpu[1]] if gpu else None,
            }
    return out
