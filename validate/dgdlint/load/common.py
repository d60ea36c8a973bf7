"""What both readers (documents.py, fast.py) and the file reader share, with no YAML library imported: the
bounds that keep hostile input cheap (each generous for real manifests), the suffixes of the files read in a
folder, and the test for the marks a placeholder writes."""

from __future__ import annotations

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 200
MAX_NODES_PER_DOCUMENT = 1_000_000  # with aliases expanded: an alias bomb stops here
YAML_SUFFIXES = (".yaml", ".yml", ".json")

# What a string needs in the text to hold a placeholder's mark: the marks themselves, or what can write one
# without spelling it (a backslash escape such as "\x3c", a !!binary value decoded).
_MARKS = ("<", "${", "{{", "\\", "binary")


def may_hold_marks(text: str) -> bool:
    """Whether a string read from `text` may hold a placeholder's mark (False is certain)."""
    return any(mark in text for mark in _MARKS)
