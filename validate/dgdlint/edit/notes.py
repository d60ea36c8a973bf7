"""What an edit tells the user on stderr: one line per note, `file:line: severity: message [code]`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
    file: str
    line: int
    severity: str  # error (the file is not written), warning (something to review), info
    code: str  # stable kebab-case id, e.g. convert-field-dropped
    message: str

    def text(self) -> str:
        return f"{self.file}:{self.line}: {self.severity}: {self.message} [{self.code}]"


def line_of(container, key, start: int) -> int:
    """1-based file line of `key` in a ruamel container whose document body starts at 0-based line `start`."""
    data = getattr(getattr(container, "lc", None), "data", None) or {}
    position = data.get(key)
    if position is None:
        line = getattr(getattr(container, "lc", None), "line", None)
        return start + (line or 0) + 1
    return start + position[0] + 1
