"""Kubernetes' label and DNS name syntax (written from apimachinery's validation helpers): DNS labels and
subdomains, qualified names (label and annotation keys) and label values. Each `*_problem` function says what
is wrong with its value, or None when it is fine. Below the model, so that the reading of node selection
(node_selection.py) checks labels as the scheduler does; rules import these from rules/syntax.py with the rest
of the name syntax."""

from __future__ import annotations

import functools
import re

_UNKNOWN = object()


def _per_text(check):
    """`check`, its answers kept per text: each answer depends on the text alone, and manifests repeat the
    same names, keys and values (a label of every pod, an annotation of every object)."""
    answers: dict[str, str | None] = {}

    @functools.wraps(check)
    def remembered(text):
        if type(text) is not str:
            return check(text)
        answer = answers.get(text, _UNKNOWN)
        if answer is _UNKNOWN:
            answer = check(text)
            if len(answers) < 65536:
                answers[text] = answer
        return answer

    return remembered


_DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = re.compile(rf"{_DNS1123_LABEL}(\.{_DNS1123_LABEL})*")
_DNS1123_LABEL_ONLY = re.compile(_DNS1123_LABEL)


@_per_text
def dns1123_label_problem(name: str) -> str | None:
    if len(name) > 63:
        return "must be no more than 63 characters"
    if not _DNS1123_LABEL_ONLY.fullmatch(name):
        return "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit"
    return None


@_per_text
def dns1123_subdomain_problem(name: str) -> str | None:
    if len(name) > 253:
        return "must be no more than 253 characters"
    if not _DNS1123_SUBDOMAIN.fullmatch(name):
        return ("must be a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', starting and "
                "ending with a letter or digit")
    return None


_NAME_PART = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")


@_per_text
def qualified_name_problem(key: str) -> str | None:
    """What Kubernetes says of a label or annotation key (an optional DNS-subdomain prefix and a name part of
    at most 63 characters), None when fine."""
    prefix, _, name = key.rpartition("/")
    if "/" in key and (not prefix or dns1123_subdomain_problem(prefix)):
        return "has a prefix that is not a lowercase RFC 1123 subdomain"
    if not name or len(name) > 63 or not _NAME_PART.fullmatch(name):
        return ("must be at most 63 characters of letters, digits, '-', '_' and '.', starting and ending with a "
                "letter or digit (with an optional DNS prefix and '/')")
    return None


@_per_text
def label_value_problem(value: str) -> str | None:
    if value and (len(value) > 63 or not _NAME_PART.fullmatch(value)):
        return ("must be empty or at most 63 characters of letters, digits, '-', '_' and '.', starting and ending "
                "with a letter or digit")
    return None
