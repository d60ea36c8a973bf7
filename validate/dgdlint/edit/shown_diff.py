"""What `fix --diff` and `convert --diff` print: each changed file as a unified diff, with every value that
looks like a secret, or is one the set holds (an env entry named as a key or token, a Secret's data),
printed as `<not shown>` in changed and context lines alike."""

from __future__ import annotations

import difflib
import re
import sys


def without_keys(text: str) -> str:
    """`text` with every NGC key in it not shown (`nvapi-<not shown>`): diff lines, and the edit commands' notes."""
    from dgdlint.withheld import without_ngc_keys

    return without_ngc_keys(text, "nvapi-<not shown>")


def secrets_in(files: dict) -> set[str]:
    """The literal secret values of the files ({path: EditableFile}) as read (see secret_values), which a diff
    does not show."""
    from dgdlint.load import LoadResult, load_text
    from dgdlint.model import build_model
    from dgdlint.rules.hygiene import SECRET_ENV

    loaded = LoadResult()
    for path, edit in files.items():
        load_text(path, edit.text, loaded)
    return secret_values(build_model(loaded), SECRET_ENV)


_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL", re.IGNORECASE)


def secret_values(model, secret_env) -> set[str]:
    """The literal values of env entries whose name says they hold a secret (NGC_API_KEY, HF_TOKEN, a
    DB_PASSWORD), and the values of Secrets' data and stringData."""
    found = {entry.value for _who, _container, entry in model.declared_env()
             if (entry.name in secret_env or _SECRET_NAME.search(str(entry.name or "")))
             and isinstance(entry.value, str) and entry.value.strip()}
    for obj in model.objects:
        if obj.kind == "Secret":
            for field in ("data", "stringData"):
                values = obj.value.get(field)
                found.update(str(value) for value in (values.values() if isinstance(values, dict) else ())
                             if isinstance(value, (str, int, float)) and not isinstance(value, bool)
                             and str(value).strip())
    return found


_KEY_LINE = re.compile(r"^(?P<head>[-+ ]\s*(?:-\s+)?(?:[^:#'\"]+|'[^']*'|\"[^\"]*\"):\s+)"
                       r"(?P<value>.+?)(?P<tail>\s+#.*)?$")


def without_secrets(line: str, secrets: set[str] = frozenset()) -> str:
    """A diff line as `fix --diff` prints it: a value that looks like a credential (an NGC key, a token, a
    long base64 text such as a pull secret's docker config), or a literal key of the set (`secrets`), is
    replaced by `<not shown>`, in changed and context lines alike; the files written keep their values."""
    from dgdlint.withheld import looks_like_a_credential

    body, end = (line[:-1], "\n") if line.endswith("\n") else (line, "")
    found = _KEY_LINE.match(body)
    value = found["value"].strip("'\" ") if found else ""
    if found and (looks_like_a_credential(value) or value in secrets):
        body = found["head"] + "<not shown>" + (found["tail"] or "")
    elif looks_like_a_credential(body[1:].strip().lstrip("- ").strip("'\" ")):
        body = body[:1] + " " * (len(body[1:]) - len(body[1:].lstrip())) + "<not shown>"
    for secret in sorted((text for text in secrets if len(text) >= 8), key=len, reverse=True):
        body = body.replace(secret, "<not shown>")  # inside a longer text (a script, a flow mapping)
    return without_keys(body) + end


def print_diffs(originals: dict[str, str], changed: dict[str, str], secrets: set[str] = frozenset()) -> None:
    """Each changed file as a unified diff on stdout, values that look like secrets not shown."""
    for path, text in changed.items():
        lines = difflib.unified_diff(originals[path].splitlines(keepends=True), text.splitlines(keepends=True),
                                     f"a/{path}", f"b/{path}")
        print_utf8("".join(without_secrets(line, secrets) for line in lines))


def print_utf8(text: str) -> None:
    """Text on stdout as UTF-8, the encoding the files were read in, whatever the locale's."""
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    stream.write(text.encode("utf-8"))
    stream.flush()
