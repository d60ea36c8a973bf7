"""What a message, a diff or a note may show of a value that could be a secret: an NGC API key is never
repeated, and an env value that looks like a credential (a known key prefix, or a long token) is withheld."""

from __future__ import annotations

import re

_NGC_KEY = re.compile(r"nvapi-[A-Za-z0-9_-]+")  # an NGC API key wherever it is written


def without_ngc_keys(text: str, replacement: str) -> str:
    """`text` with every NGC key in it written as `replacement`."""
    return _NGC_KEY.sub(replacement, text)


_SECRET_LOOKING = re.compile(r"^(nvapi-|sk-|hf_|ghp_)|^[A-Za-z0-9+/=_-]{32,}$")


def looks_like_a_credential(value: str) -> bool:
    """Whether a value looks like a key or token: a known key prefix, or 32 or more token characters."""
    return bool(_SECRET_LOOKING.search(value.strip()))


def shown(value: str | None) -> str:
    """An env value as a message may show it: quoted, or withheld when it looks like a credential."""
    if value is None:
        return "unset"
    if looks_like_a_credential(value):
        return "a value that looks like a credential (not shown)"
    return repr(value if len(value) <= 40 else value[:37] + "...")
