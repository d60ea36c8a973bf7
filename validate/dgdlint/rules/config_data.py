"""Secrets and ConfigMaps as the API server validates them (written from Kubernetes' own validation): keys
of the allowed characters, Secret `data` in base64, no ConfigMap key in both `data` and `binaryData`, and
the keys each Secret type needs (an image pull secret's `.dockerconfigjson` holding a JSON object). A value
is never repeated in a message: it may be a secret."""

from __future__ import annotations

import base64
import binascii
import json

from dgdlint.model import KObject, Model, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.syntax import config_map_key_problem

# The key an image pull secret's type needs, holding a JSON object.
_DOCKER_TYPES = {"kubernetes.io/dockerconfigjson": ".dockerconfigjson", "kubernetes.io/dockercfg": ".dockercfg"}


def _decoded(text: str) -> bytes | None:
    """Secret data as Go's JSON decoder reads []byte: standard base64, padded, line breaks ignored."""
    try:
        return base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return None


def _key_problems(obj: KObject, sections: tuple[str, ...]):
    for section in sections:
        for key in as_map(obj.value.get(section)):
            problem = config_map_key_problem(str(key))
            if problem:
                yield (section, key), f"key {str(key)!r} {problem}"


def _secret_problems(obj: KObject):
    yield from _key_problems(obj, ("data", "stringData"))
    data = as_map(obj.value.get("data"))
    contents: dict[str, bytes | None] = {}
    for key, value in data.items():
        text = as_str(value)
        if text is None:  # null is empty; other types are the schema's to report
            contents[key] = b"" if value is None else None
            continue
        contents[key] = _decoded(text)
        if contents[key] is None:
            yield ("data", key), f"data {key!r} is not base64 (write the text itself under stringData instead)"
    for key, value in as_map(obj.value.get("stringData")).items():
        text = as_str(value)
        contents[key] = text.encode() if text is not None else None
    kind = as_str(obj.value.get("type")) or "Opaque"
    needs = ("data",) if "data" in obj.value else ("type",)  # where a missing key is reported
    if kind in _DOCKER_TYPES:
        needed = _DOCKER_TYPES[kind]
        if needed not in contents:
            yield needs, f"a {kind} Secret needs data[{needed}]"
        elif contents[needed] is not None and not _json_object(contents[needed]):
            yield _where(obj, needed), f"data[{needed}] is not a JSON object (the registry credentials)"
    elif kind == "kubernetes.io/basic-auth" and not ({"username", "password"} & contents.keys()):
        yield needs, "a kubernetes.io/basic-auth Secret needs data[username] or data[password]"
    elif kind == "kubernetes.io/ssh-auth" and contents.get("ssh-privatekey", b"") == b"":
        yield needs, "a kubernetes.io/ssh-auth Secret needs a non-empty data[ssh-privatekey]"
    elif kind == "kubernetes.io/tls":
        for needed in ("tls.crt", "tls.key"):
            if needed not in contents:
                yield needs, f"a kubernetes.io/tls Secret needs data[{needed}]"
    elif kind == "kubernetes.io/service-account-token" and not as_str(
            as_map(as_map(obj.value.get("metadata")).get("annotations")).get("kubernetes.io/service-account.name")):
        yield ("metadata",), "a service-account-token Secret needs the kubernetes.io/service-account.name annotation"


def _where(obj: KObject, key: str) -> tuple:
    return ("data", key) if key in as_map(obj.value.get("data")) and key not in as_map(
        obj.value.get("stringData")) else ("stringData", key)


def _json_object(content: bytes) -> bool:
    try:
        value = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return False
    return value is None or isinstance(value, dict)  # JSON null reads as an empty map in Go


def _config_map_problems(obj: KObject):
    yield from _key_problems(obj, ("data", "binaryData"))
    binary = as_map(obj.value.get("binaryData"))
    for key in as_map(obj.value.get("data")):
        if key in binary:
            yield ("data", key), f"key {str(key)!r} is in both data and binaryData"
    for key, value in binary.items():
        text = as_str(value)
        if text is not None and _decoded(text) is None:
            yield ("binaryData", key), f"binaryData {key!r} is not base64"


@rule(
    name="config-data-invalid", code="DGD617", severity="error", family="admission",
    title="Secrets and ConfigMaps hold data the API server stores",
    rationale="""The API server refuses a Secret or ConfigMap whose key has characters other than letters,
    digits, '-', '_' and '.', a Secret whose `data` is not base64 (plain text belongs under `stringData`),
    a ConfigMap key in both `data` and `binaryData`, and a typed Secret without the keys its type needs: an
    image pull secret (`kubernetes.io/dockerconfigjson`) without `.dockerconfigjson`, or one that is not a
    JSON object, is refused, and the NIM image then cannot be pulled.""",
    remediation="Put plain text under stringData (the API server encodes it), and give an image pull secret "
                "its .dockerconfigjson (kubectl create secret docker-registry writes one).",
    reads=("Secret", "ConfigMap"),
)
def config_data_invalid(model: Model):
    for obj in model.objects:
        if obj.api_version != "v1" or obj.kind not in ("Secret", "ConfigMap"):
            continue
        problems = _secret_problems(obj) if obj.kind == "Secret" else _config_map_problems(obj)
        for path, problem in problems:
            yield Hit(obj, path, f"{obj.label}: {problem}")
