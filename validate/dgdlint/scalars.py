"""How the API server reads a YAML scalar where it wants text (a string field, a quantity): the one
reading every layer shares."""

from __future__ import annotations

# The integers Kubernetes holds as integers (int64); its YAML and JSON readers hold a larger one as a float.
INT64_RANGE = (-(2**63), 2**63 - 1)


def as_str(value: object) -> str | None:
    """Scalars as the API server would coerce them for a string field; collections are None."""
    if type(value) is str:  # the common case first: most scalars read here are text
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


# Go's unicode.IsSpace, what strings.TrimSpace trims and strings.Fields splits at; Python's str.strip and
# isspace also take the separators U+001C-U+001F.
GO_SPACE = "".join(map(chr, (9, 10, 11, 12, 13, 32, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029,
                              0x202F, 0x205F, 0x3000)))


def go_trim_space(text: str) -> str:
    """`text` trimmed as Go's strings.TrimSpace trims it."""
    return text.strip(GO_SPACE)
