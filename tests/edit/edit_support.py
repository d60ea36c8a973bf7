"""Helpers for the edit tests: run a command, and read a file's comment lines."""

from __future__ import annotations

from dgdlint.cli import main


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
