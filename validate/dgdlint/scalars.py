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
