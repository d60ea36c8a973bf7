"""The fixes of the hygiene and storage rules: where a key, a pull secret or a storage class comes from (the
one Secret or class the set already names), repeated env entries, a frontend's GPUs. Imported by fixers.py,
which holds the registry."""

from __future__ import annotations

import base64
import json

from dgdlint.edit.fix import Ambiguous, DeleteItems, DeleteKeys, FromSecret, SetField
from dgdlint.model import Model, as_map, as_str
from dgdlint.model.objects import is_gpu_resource, parse_count
from dgdlint.rules.claim_binding import claims_left_to_the_default_class, volume_class
from dgdlint.rules.hygiene import NIM_REGISTRY, image_pull_secret_missing

NGC_KEY = "NGC_API_KEY"
NGC_REGISTRY = "nvcr.io"


def fix_claim_default_class(model: Model):
    """The claim takes the class of the volume it names: the one answer with which the two bind wherever
    the claim is applied, whatever the cluster's default class."""
    for claim, volume in claims_left_to_the_default_class(model):
        held = volume_class(volume)
        yield SetField("claim-volume-default-class", claim, ("spec",), "storageClassName", held,
                       f"{claim.label}: storageClassName {held!r}, the class of {volume.label}" if held else
                       f'{claim.label}: storageClassName "" ({volume.label} has no class)', before="volumeName")


def _key_sources(model: Model) -> dict[str, set[tuple[str, str]]]:
    """{namespace: {(Secret, key)}}: where the set keeps the NGC key, by the secretKeyRefs its env entries
    name and the Secrets it ships holding the key."""
    found: dict[str, set[tuple[str, str]]] = {}
    for _who, container, entry in model.declared_env():
        ref = as_map(as_map(entry.value_from).get("secretKeyRef"))
        if entry.name == NGC_KEY and as_str(ref.get("name")) and as_str(ref.get("key")):
            found.setdefault(container.obj.namespace, set()).add((as_str(ref["name"]), as_str(ref["key"])))
    for obj in model.objects:
        if obj.kind == "Secret" and obj.group == "" and any(NGC_KEY in as_map(obj.value.get(field))
                                                            for field in ("data", "stringData")):
            found.setdefault(obj.namespace, set()).add((obj.name, NGC_KEY))
    return found


def fix_ngc_api_key(model: Model):
    """The key comes from the one Secret the set keeps it in (in the object's namespace); an entry that
    names a Secret beside a literal value keeps its Secret. The value itself is never shown."""
    rule = "ngc-api-key-literal"
    sources = _key_sources(model)
    for who, container, entry in model.declared_env():
        source = as_map(entry.value_from)
        ref = as_map(source.get("secretKeyRef"))
        if entry.name != NGC_KEY or (ref and not entry.written):
            continue
        own = (as_str(ref.get("name")), as_str(ref.get("key")))
        choices = {own} if all(own) else sources.get(container.obj.namespace, set())
        if len(choices) != 1:
            named = " and ".join(f"{secret} (key {key})" for secret, key in sorted(choices))
            yield Ambiguous(rule, container.obj, entry.path, f"{who}: which Secret holds {NGC_KEY} is yours to "
                            f"choose: the set names {named or 'none in its namespace'}")
            continue
        secret, key = next(iter(choices))
        if entry.written:
            done = "its literal value removed from the file (rotate the key: it stays in the file's history)"
        elif not source:
            done = "in place of its empty value"
        else:
            done = f"in place of its {next(iter(source))}"
        yield FromSecret(rule, container.obj, entry.path, secret, key,
                         f"{who}: {NGC_KEY} from Secret {secret}, key {key}, {done}")
    for owner, container, _pod in model.all_containers():  # `- NGC_API_KEY=...`: no entry to rewrite
        for path, raw in container.env_lists:
            for index, item in enumerate(raw):
                if isinstance(item, str) and item.split("=", 1)[0].strip() == NGC_KEY:
                    yield Ambiguous(rule, container.obj, path + (index,), f"{owner.label}: {NGC_KEY} is written "
                                    "as a string item; replace it by an entry with valueFrom.secretKeyRef by hand")


def _registry_hosts(secret) -> set[str]:
    """The registry hosts a pull Secret holds credentials for (its docker config's keys, without scheme or
    path); empty when it is no pull Secret or does not decode."""
    kind = as_str(secret.value.get("type"))
    entry = {"kubernetes.io/dockerconfigjson": ".dockerconfigjson", "kubernetes.io/dockercfg": ".dockercfg"}.get(kind)
    if entry is None:
        return set()
    text = as_str(as_map(secret.value.get("stringData")).get(entry))
    try:
        if text is None:
            text = base64.b64decode(as_str(as_map(secret.value.get("data")).get(entry)) or "", validate=True).decode()
        config = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        return set()
    hosts = as_map(as_map(config).get("auths")) if kind.endswith("json") else as_map(config)
    return {str(host).split("://", 1)[-1].split("/", 1)[0] for host in hosts}


def _pull_secret_sources(model: Model) -> dict[str, set[str]]:
    """{namespace: {Secret}}: the pull secrets of the set's pods that pull NIM images, and the pull Secrets
    for nvcr.io it ships."""
    found: dict[str, set[str]] = {}
    for _owner, container, pod in model.all_containers():
        if container.image and container.image.startswith(NIM_REGISTRY):
            found.setdefault(container.obj.namespace, set()).update(pod.image_pull_secrets)
    for obj in model.objects:
        if obj.kind == "Secret" and obj.group == "" and NGC_REGISTRY in _registry_hosts(obj):
            found.setdefault(obj.namespace, set()).add(obj.name)
    return found


def fix_pull_secret(model: Model):
    """The pod lists the one pull secret for nvcr.io the set uses in its namespace."""
    rule = "image-pull-secret-missing"
    sources = _pull_secret_sources(model)
    pods = {(id(w.obj), w.pod.path): (w.label, w.pod) for w in model.workloads}
    pods.update({(id(g.obj), c.path): (c.label, c.pod) for g in model.graphs for c in g.components})
    for hit in image_pull_secret_missing(model):
        label, pod = pods.get((id(hit.obj), hit.path), (hit.obj.label, None))
        choices = sources.get(hit.obj.namespace, set())
        if pod is None or len(choices) != 1:
            named = " and ".join(sorted(choices)) or "none in its namespace"
            yield Ambiguous(rule, hit.obj, hit.path, f"{label}: which pull secret for {NGC_REGISTRY} it needs is yours "
                                                     f"to choose: the set names {named}")
            continue
        name = next(iter(choices))
        yield SetField(rule, hit.obj, pod.path, "imagePullSecrets", [{"name": name}],
                       f"{label}: imagePullSecrets [{name}], the pull secret for {NGC_REGISTRY} the set uses")


def fix_duplicate_env(model: Model):
    """A name repeated with the same entry each time: the repeats go (the first stays where it was). Entries
    that differ are a choice for a person; their values are not shown."""
    rule = "duplicate-env"
    seen = set()
    for owner, container, _pod in model.all_containers():
        for path, raw in container.env_lists:
            if (id(container.obj), path) in seen:
                continue
            seen.add((id(container.obj), path))
            entries: dict[str, list[int]] = {}
            for index, item in enumerate(raw):
                if as_str(as_map(item).get("name")):
                    entries.setdefault(as_str(item["name"]), []).append(index)
            where = f"{container.obj.label} graph-level env" if len(path) == 2 and path[0] == "spec" \
                else f"{owner.label}: env"
            repeats = []
            for name, indexes in entries.items():
                if len(indexes) < 2:
                    continue
                if all(raw[index] == raw[indexes[0]] for index in indexes):
                    repeats += indexes[1:]
                else:
                    yield Ambiguous(rule, container.obj, path + (indexes[1], "name"),
                                    f"{where} {name}: its entries differ; which one is right is yours to choose")
            if repeats:
                names = ", ".join(sorted({as_str(raw[index]["name"]) for index in repeats}))
                yield DeleteItems(rule, container.obj, path, tuple(sorted(repeats)),
                                  f"{where}: the repeated {names} entries removed (each the same as the first)")


def fix_frontend_gpu(model: Model):
    """The frontend's GPU requests and limits go (a mapping they leave empty goes too)."""
    for graph in model.graphs:
        for frontend in graph.frontends:
            found = [(resource, path) for table in (frontend.main.limits, frontend.main.requests)
                     for resource, (quantity, path) in table.items()
                     if is_gpu_resource(resource) and parse_count(quantity) > 0]
            if found:
                names = ", ".join(sorted({resource for resource, _path in found}))
                yield DeleteKeys("frontend-requests-gpu", graph.obj, tuple(path for _resource, path in found),
                                 f"{frontend.label}: its {names} requests and limits removed (it only routes HTTP)")
