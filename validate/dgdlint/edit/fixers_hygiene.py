"""The fixes of the hygiene and storage rules: where a key, a pull secret or a storage class comes from (the
one Secret or class the set already names), repeated env entries, a frontend's GPUs. Imported by fixers.py,
which holds the registry."""

from __future__ import annotations

import base64
import json
from fnmatch import fnmatchcase
from urllib.parse import urlsplit

from dgdlint.edit.plans import Ambiguous, DeleteItems, DeleteKeys, FromSecret, SetField
from dgdlint.model import Model, as_map, as_str
from dgdlint.model.objects import is_gpu_resource, parse_count
from dgdlint.rules.claim_binding import claims_left_to_the_default_class
from dgdlint.rules.hygiene import NIM_REGISTRY, env_repeats, image_pull_secret_missing, secret_string_items
from dgdlint.volume_binding import volume_class

NGC_KEY = "NGC_API_KEY"
NGC_REGISTRY = "nvcr.io"


def fix_claim_default_class(model: Model):
    """The claim takes the class of the volume it names: the one answer with which the two bind wherever
    the claim is applied, whatever the cluster's default class."""
    for made, volume in claims_left_to_the_default_class(model):
        held, label = volume_class(volume), made.described(made.claim.label)
        yield SetField("claim-volume-default-class", made.owner, made.where(("spec",)), "storageClassName", held,
                       f"{label}: storageClassName {held!r}, the class of {volume.label}" if held else
                       f'{label}: storageClassName "" ({volume.label} has no class)', before="volumeName")


def _key_sources(model: Model) -> dict[str, set[tuple[str, str]]]:
    """{namespace: {(Secret, key)}}: where the set keeps the NGC key, by the secretKeyRefs its env entries
    name and the Secrets it ships holding the key."""
    found: dict[str, set[tuple[str, str]]] = {}
    for _who, container, entry in model.declared_env():
        ref = as_map(as_map(entry.value_from).get("secretKeyRef"))
        if entry.name == NGC_KEY and as_str(ref.get("name")) and as_str(ref.get("key")):
            found.setdefault(container.obj.namespace, set()).add((as_str(ref["name"]), as_str(ref["key"])))
    for obj in _named_secrets(model):
        if any(NGC_KEY in as_map(obj.value.get(field)) for field in ("data", "stringData")):
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
                         f"{who}: {NGC_KEY} from Secret {secret}, key {key}, {done}", own=all(own))
    for owner, container, path, name in secret_string_items(model):  # `- NGC_API_KEY=...`: no entry to rewrite
        yield Ambiguous(rule, container.obj, path, f"{owner.label}: {name} is written as a string item; replace "
                        "it by an entry with valueFrom.secretKeyRef by hand")


def _registry_keys(secret) -> list[str]:
    """The registry keys a pull Secret holds credentials for (its docker config's keys); none when it is no
    pull Secret or does not decode."""
    kind = as_str(secret.value.get("type"))
    entry = {"kubernetes.io/dockerconfigjson": ".dockerconfigjson", "kubernetes.io/dockercfg": ".dockercfg"}.get(kind)
    if entry is None:
        return []
    text = as_str(as_map(secret.value.get("stringData")).get(entry))
    try:
        if text is None:
            text = base64.b64decode(as_str(as_map(secret.value.get("data")).get(entry)) or "", validate=True).decode()
        config = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        return []
    return [str(key) for key in (as_map(as_map(config).get("auths")) if kind.endswith("json") else as_map(config))]


def credential_matches(key: str, image: str) -> bool:
    """Whether kubelet uses the credential of docker config key `key` to pull `image`, as its keyring
    matches them: the same port and number of host parts, each part a glob match, and the key's path (a
    leading /v1/ or /v2/ meaning none) a prefix of the image's repository path."""
    parsed = urlsplit(key if key.startswith(("https://", "http://")) else "https://" + key)
    path = parsed.path[3:] if parsed.path.startswith(("/v1/", "/v2/")) else parsed.path
    repository = image.split("@", 1)[0]
    if ":" in repository.rsplit("/", 1)[-1]:
        repository = repository.rsplit(":", 1)[0]
    target = urlsplit("https://" + repository)
    glob_host, _, glob_port = parsed.netloc.partition(":")
    host, _, port = target.netloc.partition(":")
    globs, parts = glob_host.split("."), host.split(".")
    return glob_port == port and len(globs) == len(parts) and target.path.startswith("" if path == "/" else path) \
        and all(fnmatchcase(part, glob) for glob, part in zip(globs, parts, strict=True))


def _named_secrets(model: Model):
    """The Secrets of the set that are written with a name (one only generateName names is made under
    another)."""
    return [obj for obj in model.objects
            if obj.kind == "Secret" and obj.group == "" and as_str(obj.metadata.get("name"))]


def _pull_secret_sources(model: Model, namespace: str, images: list[str]) -> set[str]:
    """The pull secrets that can pull `images` in `namespace`: those the set's pods that pull NIM images list,
    and the pull Secrets it ships whose docker config has a key for each image."""
    found = {name for _owner, container, pod in model.all_containers() if container.obj.namespace == namespace
             and container.image and container.image.startswith(NIM_REGISTRY) for name in pod.image_pull_secrets}
    for obj in _named_secrets(model):
        keys = _registry_keys(obj)
        if obj.namespace == namespace and keys and all(any(credential_matches(key, image) for key in keys)
                                                       for image in images):
            found.add(obj.name)
    return found


def fix_pull_secret(model: Model):
    """The pod lists the one pull secret for its NIM images the set uses in its namespace."""
    rule = "image-pull-secret-missing"
    pods = {(id(w.obj), w.pod.path): (w.label, w.pod, w.all_containers) for w in model.workloads}
    pods.update({(id(g.obj), c.path): (c.label, c.pod, [c.main]) for g in model.graphs for c in g.components})
    for hit in image_pull_secret_missing(model):
        label, pod, containers = pods.get((id(hit.obj), hit.path), (hit.obj.label, None, []))
        images = [c.image for c in containers if c.image and c.image.startswith(NIM_REGISTRY)]
        choices = _pull_secret_sources(model, hit.obj.namespace, images)
        if pod is None or len(choices) != 1:
            named = " and ".join(sorted(choices)) or "none in its namespace"
            yield Ambiguous(rule, hit.obj, hit.path, f"{label}: which pull secret for {NGC_REGISTRY} it needs is yours "
                                                     f"to choose: the set names {named}")
            continue
        name = next(iter(choices))
        yield SetField(rule, hit.obj, pod.path, "imagePullSecrets", [{"name": name}],
                       f"{label}: imagePullSecrets [{name}], the pull secret for {NGC_REGISTRY} the set uses")


def _keys_from_secrets(model: Model) -> dict[tuple, dict]:
    """{(id of the object, entry path): the entry as the NGC key fix leaves it}: a literal key and an entry
    that already takes it from that Secret are one entry once the key is fixed."""
    out = {}
    for plan in fix_ngc_api_key(model):
        if isinstance(plan, FromSecret):
            entry = dict(as_map(plan.obj.get(plan.path)))
            entry.pop("value", None)
            if not plan.own:
                entry["valueFrom"] = {"secretKeyRef": {"name": plan.secret, "key": plan.key}}
            out[(id(plan.obj), plan.path)] = entry
    return out


def fix_duplicate_env(model: Model):
    """A name repeated with the same entry each time: the repeats go (the last stays where it was). Entries
    that differ are a choice for a person; their values are not shown."""
    rule = "duplicate-env"
    keyed = _keys_from_secrets(model)
    for container, path, raw, where, entries in env_repeats(model):
        repeats, fixed = [], []
        for name, indexes in entries.items():
            written = [keyed.get((id(container.obj), path + (index,)), raw[index]) for index in indexes]
            if all(item == written[0] for item in written):
                repeats += indexes[:-1]  # the last stays: the entry the other fixes read and edit
                fixed.append(name)
            else:
                yield Ambiguous(rule, container.obj, path + (indexes[1], "name"),
                                f"{where} {name}: its entries differ; which one is right is yours to choose")
        if repeats:
            names = ", ".join(sorted(fixed))
            yield DeleteItems(rule, container.obj, path, tuple(sorted(repeats)),
                              f"{where}: the repeated {names} entries removed (each the same as the last, "
                              "which stays)")


def _gpu_keys(obj, resources: tuple, component_level: bool):
    """(resource, path) of every GPU-like request or limit written under `resources` (a v1alpha1 component's
    own table also has `gpu` and a `custom` table)."""
    for table in ("limits", "requests"):
        written = as_map(obj.get(resources + (table,)))
        places = [(key, resources + (table, key)) for key in written if key != "custom" or not component_level]
        if component_level:
            places += [(key, resources + (table, "custom", key)) for key in as_map(written.get("custom"))]
        for key, path in places:
            gpu = (component_level and key == "gpu" and path[-2] == table) or is_gpu_resource(str(key))
            if gpu and parse_count(as_str(obj.get(path)) or str(obj.get(path))) > 0:
                yield ("nvidia.com/gpu" if key == "gpu" else str(key)), path


def fix_frontend_gpu(model: Model):
    """The frontend's GPU requests and limits go, wherever they are written (a v1alpha1 component's table
    and its main container's both count), and a mapping they leave empty goes too."""
    for graph in model.graphs:
        for frontend in graph.frontends:
            found = list(_gpu_keys(graph.obj, frontend.main.path + ("resources",), False))
            if graph.shape == "services":
                found += _gpu_keys(graph.obj, frontend.path + ("resources",), True)
            if found:
                names = ", ".join(sorted({resource for resource, _path in found}))
                yield DeleteKeys("frontend-requests-gpu", graph.obj, tuple(dict.fromkeys(p for _r, p in found)),
                                 f"{frontend.label}: its {names} requests and limits removed (it only routes HTTP)")
