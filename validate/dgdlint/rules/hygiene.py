"""Hygiene (invariants 6, 7 and 9): no placeholder reaches a cluster, secrets only by reference, pull
secrets where the NIM image is pulled, no GPU on the frontend, distinct NIM ports, one object per
name and one env entry per name."""

from __future__ import annotations

import json

from dgdlint.cosmos import DEFAULT_HTTP_PORT, env_text, placeholder_in, runs_nim
from dgdlint.model import Model, as_str
from dgdlint.rules.registry import Hit, rule

# Not values a cluster acts on: scripts (command/args legitimately contain `<` and `${VAR}`), the text a
# ConfigMap or Secret carries (scripts, usage strings), and annotations (free-form notes).
_SCRIPT_KEYS = {"command", "args"}
_TEXT_PATHS = {("data",), ("binaryData",), ("stringData",), ("metadata", "annotations")}


def _candidate_strings(value: object):
    """(text, path) of every string that may hold a placeholder (it has `<`, `${` or `{{`), outside
    scripts and free text. Paths are built only for those: most strings have none of these marks."""
    stack = [(value, ())]
    while stack:
        node, where = stack.pop()
        if type(node) is dict:
            items = node.items()
        elif type(node) is list:
            items = enumerate(node)
        else:
            if isinstance(node, str) and _marked(node):
                yield node, where
            continue
        for key, sub in items:
            if key in _SCRIPT_KEYS:
                continue
            if type(sub) is str:
                if _marked(sub) and (len(where) > 1 or where + (key,) not in _TEXT_PATHS):
                    yield sub, where + (key,)
            elif len(where) > 1 or where + (key,) not in _TEXT_PATHS:
                stack.append((sub, where + (key,)))


def _marked(text: str) -> bool:
    return "<" in text or "${" in text or "{{" in text


@rule(
    name="placeholder-value", code="DGD501", severity="error", family="hygiene",
    title="No `<placeholder>`, `${VAR}` or `{{ .Values.x }}` is left in a manifest",
    rationale="""Reference manifests mark values to fill in as `<...>` (an image build, a storage class),
    envsubst templates as `${VAR}`, and an unrendered Helm template still says `{{ .Release.Name }}`.
    Applied as is, they fail late and obscurely: an image that cannot be pulled, a claim that stays
    Pending.""",
    remediation="Replace the placeholder with the real value (or render the chart, which has no placeholders).",
    reads=("*",),
)
def placeholder_value(model: Model):
    for obj in model.objects:
        if not obj.doc.marks:
            continue
        for text, path in _candidate_strings(obj.value):
            found = placeholder_in(text)
            if found:
                what = "Helm template syntax (render the chart with --chart)" if found.startswith("{{") \
                    else "a placeholder"
                yield Hit(obj, path, f"{obj.label}: {found} is {what}, not a value")


SECRET_ENV = ("NGC_API_KEY",)


@rule(
    name="ngc-api-key-literal", code="DGD502", severity="error", family="hygiene",
    title="NGC_API_KEY comes from a Secret through secretKeyRef",
    rationale="""A literal key in a manifest is a leaked key: it lands in Git, in `kubectl get -o yaml`,
    in Helm's release history. Only `valueFrom.secretKeyRef` keeps it in a Secret.""",
    remediation="Use `valueFrom: {secretKeyRef: {name: ngc-api-secret, key: NGC_API_KEY}}` and rotate the "
                "exposed key.",
    reads=("DynamoGraphDeployment", "Job", "Pod", "Deployment"),
    fixable="""Takes the key from the one Secret the set keeps it in (in the object's namespace: the Secret other
    NGC_API_KEY entries name, or a Secret the set ships holding the key), or from the entry's own
    secretKeyRef written beside a literal, and removes the literal value without showing it. With no
    such Secret, or more than one, it reports the entry and leaves it.""",
)
def ngc_api_key_literal(model: Model):
    for where, container, entry in model.declared_env():
        if entry.name not in SECRET_ENV:
            continue
        if entry.value_from is None or entry.written:
            # Never echo the value. (Beside a valueFrom, the literal is in the manifest all the same.)
            yield Hit(container.obj, entry.path, f"{where}: {entry.name} is given as a literal value")
        elif "secretKeyRef" not in entry.value_from:
            kind = next(iter(entry.value_from), "valueFrom")
            yield Hit(container.obj, entry.path + ("valueFrom",),
                      f"{where}: {entry.name} comes from {kind}, not from a Secret")
    for owner, container, path, name in secret_string_items(model):
        yield Hit(container.obj, path, f"{owner.label}: {name} is given as a literal string entry")


def secret_string_items(model: Model):
    """(owner, container, path, name) of each `NAME=...` string item (not a name/value map) naming a
    secret env var: a literal key too. A graph-level list reaches every component's container: each item
    once."""
    seen = set()
    for owner, container, _pod in model.all_containers():
        for path, raw in container.env_lists:
            for index, item in enumerate(raw):
                if not isinstance(item, str) or (id(container.obj), path + (index,)) in seen:
                    continue
                name = item.split("=", 1)[0].strip()
                if name in SECRET_ENV:
                    seen.add((id(container.obj), path + (index,)))
                    yield owner, container, path + (index,), name


DISABLE_DISCOVERY = "nvidia.com/disable-image-pull-secret-discovery"
NIM_REGISTRY = "nvcr.io/nim/"  # NIM images need NGC credentials; public nvcr.io images do not


@rule(
    name="image-pull-secret-missing", code="DGD503", severity="error", family="hygiene",
    title="Pods that pull the NIM image have a pull secret",
    rationale="""nvcr.io/nim images need registry credentials. A Job or Pod without imagePullSecrets
    (and without a service account that supplies them) stays in ImagePullBackOff. DGD pods get one from
    the operator's pull-secret discovery unless the DGD turns it off.""",
    remediation="Add `imagePullSecrets: [{name: ngc-registry-secret}]` to the pod spec, or name a service "
                "account that carries it.",
    reads=("DynamoGraphDeployment", "Job", "Pod", "Deployment"),
    fixable="""Lists the one pull secret for nvcr.io the set uses in the pod's namespace: the one its other pods
    that pull NIM images list, or a pull Secret it ships whose docker config names nvcr.io. With none, or
    more than one, it reports the pod and leaves it.""",
)
def image_pull_secret_missing(model: Model):
    for workload in model.workloads:
        pulls = [c for c in workload.all_containers if c.image and c.image.startswith(NIM_REGISTRY)]
        if not pulls or workload.pod.image_pull_secrets:
            continue
        account = workload.pod.service_account
        if account and account != "default":
            continue
        yield Hit(workload.obj, workload.pod.path,
                  f"{workload.label} pulls {pulls[0].image!r} but has no imagePullSecrets and no service account "
                  "that supplies one")
    for graph in model.graphs:
        disabled = as_str(graph.obj.annotations.get(DISABLE_DISCOVERY)) == "true"
        if not disabled:
            continue
        for component in graph.components:
            if component.main.image and component.main.image.startswith(NIM_REGISTRY) \
                    and not component.pod.image_pull_secrets:
                yield Hit(graph.obj, component.path,
                          f"{component.label} pulls {component.main.image!r}, pull-secret discovery is off "
                          f"({DISABLE_DISCOVERY}) and it lists no imagePullSecrets")


@rule(
    name="frontend-requests-gpu", code="DGD504", severity="error", family="hygiene",
    title="The frontend requests no GPU",
    rationale="""The frontend only routes HTTP; a GPU request holds a GPU idle and can keep the frontend
    Pending on a full cluster.""",
    remediation="Remove the GPU request from the frontend component.",
    fixable="""Removes the GPU (and MIG) requests and limits of the frontend's container; a resources table
    they leave empty goes too.""",
)
def frontend_requests_gpu(model: Model):
    for graph in model.graphs:
        for frontend in graph.frontends:
            found = frontend.main.gpu_request()
            if found and found[1] > 0:
                yield Hit(graph.obj, found[2], f"{frontend.label} requests {found[1]} x {found[0]}")


def _port(text: str) -> int | str:
    """A port as a number when it is written in digits alone (`08000` and `8000` are one port), else the
    text as written."""
    return int(text) if text.isascii() and text.isdigit() else text


@rule(
    name="nim-proxy-port-conflict", code="DGD505", severity="error", family="hygiene",
    title="The NIM's Dynamo proxy port differs from its HTTP port",
    rationale="""In Dynamo mode the NIM runs an HTTP server (NIM_HTTP_API_PORT, default 8000) and a proxy
    (NIM_DYNAMO_PROXY_PORT); on one port the second bind fails and the worker exits. Ports written in
    digits are compared as numbers (`08000` is 8000), on the assumption that the NIM reads them as
    integers; its parser is not public.""",
    remediation="Keep NIM_DYNAMO_PROXY_PORT (e.g. 8080) different from NIM_HTTP_API_PORT (e.g. 8000).",
)
def nim_proxy_port_conflict(model: Model):
    for owner, container, _pod in model.all_containers():
        if not runs_nim(container):
            continue
        proxy = env_text(container, "NIM_DYNAMO_PROXY_PORT")
        http = env_text(container, "NIM_HTTP_API_PORT") or DEFAULT_HTTP_PORT
        if proxy is not None and _port(proxy) == _port(http):
            entry = container.env_var("NIM_DYNAMO_PROXY_PORT")
            yield Hit(container.obj, entry.path,
                      f"{owner.label}: NIM_DYNAMO_PROXY_PORT and NIM_HTTP_API_PORT are both {http}")


@rule(
    name="duplicate-object", code="DGD506", severity="error", family="hygiene",
    title="One object per kind, namespace and name in one set",
    rationale="""All inputs of one run are one apply: two objects with the same kind, namespace and name
    replace each other (a cluster-wide kind, such as a PriorityClass, has no namespace: one written on it is
    ignored). NVIDIA's regular and streaming references both define `cosmos3-reasoner`;
    applying both leaves only the last, and its pods replace the first's.""",
    remediation="Rename one object, or apply only one of the two (regular or streaming).",
    reads=("*",),
)
def duplicate_object(model: Model):
    first: dict[tuple, object] = {}
    for obj in model.objects:
        name = obj.metadata.get("name")
        if not isinstance(name, str) or not name:  # generateName objects get distinct names at create
            continue
        group = obj.group
        scoped = not obj.cluster_scoped  # a namespace written on a cluster-wide object is ignored
        key = (group, obj.kind, obj.namespace if scoped else "", obj.name)
        if key in first:
            other = first[key]
            named = f"{obj.namespace}/{obj.name}" if scoped else obj.name
            yield Hit(obj, ("metadata", "name"),
                      f"{obj.kind} {named} is defined again (first in {other.file}); one "
                      "replaces the other when applied together",
                      related=[other.location(("metadata", "name"), "first definition")])
        else:
            first[key] = obj


def env_repeats(model: Model):
    """(container, list path, list, who it is named as, {name: [indexes]}) for each env list that names an
    entry more than once, each list once (a graph-level list reaches every component's container)."""
    seen_lists = set()
    for owner, container, _pod in model.all_containers():
        for path, raw in container.env_lists:
            key = (id(container.obj), path)
            if key in seen_lists:
                continue
            seen_lists.add(key)
            names = [item.get("name") if isinstance(item, dict) else None for item in raw]
            if all(type(name) is str for name in names) and len(set(names)) == len(names):
                continue  # names all different (the common case, decided in C)
            entries: dict[str, list[int]] = {}
            for index, name in enumerate(names):
                if type(name) is not str:  # a list or map is compared as its JSON, as the server compares keys
                    name = json.dumps(name, sort_keys=True) if isinstance(name, (dict, list)) else as_str(name)
                if name is not None:  # an empty name is a key too: two of them are a repeat to the server
                    entries.setdefault(name, []).append(index)
            repeats = {name: indexes for name, indexes in entries.items() if len(indexes) > 1}
            if repeats:
                # the graph-level list (directly under spec) reaches every component: it is the graph's
                where = f"{container.obj.label} graph-level env" if len(path) == 2 and path[0] == "spec" \
                    else f"{owner.label}: env"
                yield container, path, raw, where, repeats


@rule(
    name="duplicate-env", code="DGD507", severity="error", family="hygiene",
    title="One env entry per name in a container",
    rationale="""Where the DGD's schema keys an env list by name (v1beta1 components' pod templates), the
    API server rejects a second entry of one name, reporting it once. In a Job or another built-in pod
    template the list is keyed by name for server-side apply (Helm 4's default, `kubectl apply
    --server-side`), which fails on the repeated key, while client-side apply silently keeps the last.
    A v1alpha1 graph's `envs` lists are not keyed in the CRD: the server stores both entries, and which
    value the operator passes on is said nowhere, so the repeat is refused here too.""",
    remediation="Keep one entry for the name (replace the existing entry instead of appending).",
    reads=("DynamoGraphDeployment", "Job", "Pod", "Deployment"),
    fixable="""Removes the repeats of a name whose entries are all the same (the last stays). Entries of one
    name that differ are reported and left, their values not shown.""",
)
def duplicate_env(model: Model):
    for container, path, _raw, where, repeats in env_repeats(model):
        for name, indexes in repeats.items():
            # once per name, at its first repeat, as the API server reports a repeated list-map key
            times = "twice" if len(indexes) == 2 else f"{len(indexes)} times"
            yield Hit(container.obj, path + (indexes[1], "name"),
                      f"{where} {name or repr(name)} appears {times} (entries {', '.join(map(str, indexes))})",
                      related=[container.obj.location(path + (indexes[0], "name"), "first entry")])


