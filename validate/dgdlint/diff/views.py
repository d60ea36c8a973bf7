"""What a pod runs, as comparable text, whatever the DGD's shape: the normalization `dgdlint diff` compares
two sides through (env as the container gets it, quantities as exact numbers, pod settings as JSON)."""

from __future__ import annotations

from dataclasses import dataclass

from dgdlint.cosmos import env_text, image_tag
from dgdlint.diff.converted import PROBES, zeroless
from dgdlint.diff.pods import Pod
from dgdlint.go_merge import go_zero
from dgdlint.hub_containers import MAIN
from dgdlint.model import Container, as_map, as_str, canonical_json
from dgdlint.quantity import canonical_quantity


def quantity(text: str | None) -> str:
    """A Kubernetes quantity as an exact number, so `1`, `"1"` and `1000m` compare equal."""
    return canonical_quantity(text)


def effective_env(container: Container) -> dict[str, tuple[str, tuple]]:
    """Name -> (value, path) as the container gets it: later entries win, references shown as such."""
    env: dict[str, tuple[str, tuple]] = {}
    for entry in container.env:
        value = (entry.value or "") if entry.is_literal else "from " + canonical_json(entry.value_from)
        env[entry.name] = (value, entry.path)
    return env


def _resources(container: Container) -> dict[str, tuple[str, tuple]]:
    """Requests and limits by resource; a missing request defaults to the limit, as the API server does."""
    out = {}
    for resource, (text, path) in container.limits.items():
        out[f"limits {resource}"] = (quantity(text), path)
        out[f"requests {resource}"] = (quantity(text), path)
    for resource, (text, path) in container.requests.items():
        out[f"requests {resource}"] = (quantity(text), path)
    return out


def pull_policy(container: Container) -> str:
    """imagePullPolicy as the API server stores it (SetDefaults_Container): as written, else Always for an
    image whose tag is `latest` or that has neither tag nor digest, else IfNotPresent."""
    written = as_str(container.raw.get("imagePullPolicy"))
    if written:
        return written
    tag, digest = image_tag(container.image or "")
    return "Always" if container.image and (tag == "latest" or (tag is None and digest is None)) else "IfNotPresent"


def _container_view(view: dict, prefix: str, container: Container, paths: dict | None = None) -> None:
    paths = paths or {}
    view[prefix + "image"] = (container.image or "", container.image_path)
    view[prefix + "imagePullPolicy"] = (pull_policy(container),
                                        paths.get("imagePullPolicy", container.path + ("imagePullPolicy",)))
    view[prefix + "command"] = (canonical_json(container.command_line),
                                paths.get("command", container.path + ("command",)))
    view[prefix + "workingDir"] = (container.working_dir or "",
                                   paths.get("workingDir", container.path + ("workingDir",)))
    for name, entry in effective_env(container).items():
        view[f"{prefix}env {name}"] = entry
    for name, entry in _resources(container).items():
        view[f"{prefix}resources {name}"] = entry
    # envFrom and probes as Go holds them (fields of the zero value left out)
    for key in ("envFrom", *PROBES):
        if not go_zero(container.raw.get(key)) or isinstance(container.raw.get(key), dict):
            view[prefix + key] = (canonical_json(zeroless(container.raw[key])), paths.get(key, container.path + (key,)))
    for mount in container.mounts:
        target = mount.claim or f"volume {mount.volume}"
        view[f"{prefix}mount {mount.mount_path}"] = (canonical_json(target), mount.path)
        # readOnly, subPath, ...: where the record restores them, there
        view[f"{prefix}mount {mount.mount_path} fields"] = (canonical_json(mount.fields),
                                                             paths.get(f"mount {mount.mount_path}", mount.path))


# Pod-spec keys compared through the containers and mounts instead (their shape differs between APIs).
_POD_KEYS_COMPARED_ELSEWHERE = {"containers", "initContainers", "mainContainer", "volumes"}


def worker_view(pod: Pod) -> dict[str, tuple[str, tuple]]:
    """Everything that, changed, makes the operator replace a component's pods: aspect -> (value, path),
    read from the pod the operator builds (diff.pods: a v1alpha1 service converted). Replicas and node
    count are left out: they scale or are immutable, they do not replace pods."""
    view: dict[str, tuple[str, tuple]] = {}
    _container_view(view, "", pod.main, pod.field_paths.get(MAIN))
    for container in pod.init_containers:
        _container_view(view, f"init container {container.name}: ", container)
    for container in pod.containers:
        _container_view(view, f"container {container.name}: ", container, pod.field_paths.get(container.name))
    # The order of the containers matters to Kubernetes where it is the pod's: init containers run one after
    # another in list order, the others start in list order (a postStart hook holds the next one back), and
    # a reordered template is another pod template, whose pods the workload replaces. Not the order they are
    # written in around `main`: the operator puts its main container first whatever its place in the list
    # (graph.go GenerateBasePodSpec), so only the others' order is compared.
    for word, containers, key in (("container", pod.containers, "containers"),
                                  ("init container", pod.init_containers, "initContainers")):
        if len(containers) > 1:
            view[f"{word} order"] = (canonical_json([c.name for c in containers]), pod.settings.field_path(key))
    view["shared memory"] = (quantity(pod.shared_memory[0]), pod.shared_memory[1])
    # the pod template's labels and annotations (a v1alpha1 service's extraPodMetadata) go on the pods
    where = pod.settings.metadata_path
    metadata = as_map(pod.settings.obj.get(where))
    for table, word in (("labels", "label"), ("annotations", "annotation")):
        for key, value in as_map(metadata.get(table)).items():
            view[f"pod {word} {key}"] = (as_str(value) or "", where + (table, key))
    for key, value in pod.settings.spec.items():
        if key not in _POD_KEYS_COMPARED_ELSEWHERE:
            view[f"pod {key}"] = (canonical_json(value), pod.settings.field_path(key))
    return view


@dataclass
class Change:
    aspect: str
    new_path: tuple
    old_path: tuple


def view_changes(old: dict, new: dict, old_default: tuple, new_default: tuple) -> list[Change]:
    changes = []
    for aspect in list(new) + [a for a in old if a not in new]:
        before, after = old.get(aspect), new.get(aspect)
        if (before[0] if before else None) != (after[0] if after else None):
            changes.append(Change(aspect, after[1] if after else new_default, before[1] if before else old_default))
    return changes


def describe_changes(changes: list[Change], limit: int = 4) -> str:
    names = [change.aspect for change in changes[:limit]]
    more = len(changes) - limit
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


MODEL_FIELDS = ("image", "NIM_MODEL_VARIANT", "NIM_PRECISION", "NIM_TAGS_SELECTOR")


def model_identity(container: Container) -> dict[str, tuple[str | None, tuple]]:
    """What a NIM container downloads or loads: image, variant, precision, tags selector (value, path)."""
    out: dict[str, tuple[str | None, tuple]] = {"image": (container.image, container.image_path)}
    for name in MODEL_FIELDS[1:]:
        entry = container.env_var(name)
        out[name] = (env_text(container, name), entry.path if entry else container.path)
    return out
