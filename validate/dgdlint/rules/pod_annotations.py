"""The annotations the API server reads as a pod's settings (written from Kubernetes' core validation,
v1.37: ValidatePodSpecificAnnotations and the checks that annotations agree with fields on create): the
mirror-pod annotation only with a nodeName, the tolerations annotation as a JSON list of valid tolerations,
a deletion cost that is a 32-bit integer, seccomp profiles of the pod and its containers, AppArmor profiles
of containers the pod has, and a seccomp or AppArmor annotation beside a profile field of another type.
They are read on a Pod, a workload's pod template and a DGD component's pod metadata (which the operator
puts on its pods). Messages name keys and lengths, never an annotation's value: it is free text. Each
function yields (path, problem)."""

from __future__ import annotations

import json

from dgdlint.model import PodSettings, as_list, as_map, as_str
from dgdlint.rules.syntax import descending_path_problem

MIRROR = "kubernetes.io/config.mirror"
TOLERATIONS = "scheduler.alpha.kubernetes.io/tolerations"
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"
LOCALHOST = "localhost/"
_INT32 = (-(2**31), 2**31 - 1)
# Toleration fields as Go's JSON decoder matches them: a name in any case.
_TOLERATION_FIELDS = {"key": "key", "operator": "operator", "value": "value", "effect": "effect",
                      "tolerationseconds": "tolerationSeconds"}
# The annotation value each seccomp profile type agrees with (Localhost: localhost/<its localhostProfile>).
_SECCOMP_VALUES = {"Unconfined": ("unconfined",), "RuntimeDefault": ("runtime/default", "docker/default")}
_APPARMOR_VALUES = {"Unconfined": ("unconfined",), "RuntimeDefault": ("runtime/default",)}
_APPARMOR_PROFILE_MAX = 4095


def _text(value: object) -> str:
    """An annotation value as the server holds it: null is an empty string."""
    return "" if value is None else (as_str(value) or "")


def _seccomp_problem(profile: str) -> str | None:
    """ValidateSeccompProfile: runtime/default, docker/default, unconfined or localhost/<descending path>."""
    if profile in ("runtime/default", "docker/default", "unconfined"):
        return None
    if profile.startswith(LOCALHOST):
        problem = descending_path_problem(profile[len(LOCALHOST):])
        return f"names a localhost profile path that {problem}" if problem else None
    return "is no seccomp profile (runtime/default, docker/default, unconfined or localhost/<relative path>)"


def _deletion_cost_problem(value: str) -> str | None:
    """A 32-bit integer in decimal, without '+' or a leading zero (a '-' may lead zeros: -007 is -7)."""
    body = value[1:] if value.startswith("-") else value
    digits = body.isascii() and body.isdigit()
    if not digits or (not value.startswith("-") and len(body) > 1 and body[0] == "0"):
        return "is no decimal integer (without '+' or leading zeros)"
    if not _INT32[0] <= int(value) <= _INT32[1]:
        return "is outside the 32-bit integer range"
    return None


def _reject_constant(name: str):
    raise ValueError(f"{name} is no JSON number")


def _tolerations(value: str) -> tuple[list[dict], str | None]:
    """The tolerations a JSON annotation holds as Go decodes it into a list of tolerations (field names in any
    case, others ignored), or the reason it cannot."""
    try:
        data = json.loads(value, parse_constant=_reject_constant)
    except ValueError:
        return [], "is not JSON"
    if data is None:
        return [], None
    if not isinstance(data, list):
        return [], "is not a JSON list of tolerations"
    tolerations = []
    for item in data:
        if item is None:
            item = {}
        if not isinstance(item, dict):
            return [], "holds an entry that is no toleration object"
        toleration: dict = {}
        for key, field_value in item.items():
            name = _TOLERATION_FIELDS.get(key.lower())
            if name is None or field_value is None:
                continue
            if name == "tolerationSeconds":
                if type(field_value) is not int or not -(2**63) <= field_value < 2**63:
                    return [], "has a tolerationSeconds that is no 64-bit integer"
            elif not isinstance(field_value, str):
                return [], f"has a toleration {name} that is not a string"
            toleration[name] = field_value
        tolerations.append(toleration)
    return tolerations, None


def _annotation_problems(annotations: dict, spec: dict, names: set[str], at: tuple):
    for key, value in annotations.items():
        key, where = str(key), at + (key,)
        if key == MIRROR and not as_str(spec.get("nodeName")):
            yield where, f"has the mirror-pod annotation {MIRROR}, which needs spec.nodeName"
        elif key == TOLERATIONS and _text(value):
            # scheduling's reader of a spec's tolerations, imported here: imported with this module, its rule
            # would register ahead of its place in the catalogue (rules/__init__.py)
            from dgdlint.rules.scheduling import toleration_problems

            tolerations, problem = _tolerations(_text(value))
            if problem:
                yield where, f"annotation {TOLERATIONS} {problem}"
            for index, toleration in enumerate(tolerations):
                for _path, what in toleration_problems(toleration, ()):
                    yield where, f"annotation {TOLERATIONS}, toleration {index}: {what}"
        elif key == DELETION_COST:
            problem = _deletion_cost_problem(_text(value))
            if problem:
                yield where, f"annotation {DELETION_COST} ({len(_text(value))} characters) {problem}"
        elif key == SECCOMP_POD or key.startswith(SECCOMP_CONTAINER):
            problem = _seccomp_problem(_text(value))
            if problem:
                yield where, f"annotation {key} {problem}"
        elif key.startswith(APPARMOR_CONTAINER):
            container, profile = key[len(APPARMOR_CONTAINER):], _text(value)
            if container not in names:
                yield where, f"annotation {key} names container {container!r}, which the pod does not have"
            if profile not in ("", "runtime/default", "unconfined") and not profile.startswith(LOCALHOST):
                yield where, f"annotation {key} is no AppArmor profile (runtime/default, unconfined or " \
                             "localhost/<profile>)"


def _agrees(annotation: str, profile: dict, values: dict) -> str | None:
    """None when a seccomp or AppArmor annotation agrees with a profile field (`values`: the annotation values
    each type takes; Localhost takes localhost/<its localhostProfile>); else the field that disagrees. A type
    of neither kind is the field's own check."""
    kind = as_str(profile.get("type"))
    if kind in values:
        return None if annotation in values[kind] else "type"
    if kind != "Localhost":
        return None
    if not annotation.startswith(LOCALHOST):
        return "type"
    return None if annotation[len(LOCALHOST):] == as_str(profile.get("localhostProfile")) else "localhostProfile"


def _apparmor_from(annotation: str) -> dict | None:
    """The profile field the server makes of a container's AppArmor annotation on a Pod, when valid."""
    if annotation in ("unconfined", "runtime/default"):
        return {"type": "Unconfined" if annotation == "unconfined" else "RuntimeDefault"}
    name = annotation[len(LOCALHOST):]
    if annotation.startswith(LOCALHOST) and name and name == name.strip() and len(name) <= _APPARMOR_PROFILE_MAX:
        return {"type": "Localhost", "localhostProfile": name}
    return None


def _agreement_problems(pod: PodSettings, annotations: dict, containers: list, created_as_pod: bool):
    """validateSeccompAnnotationsAndFields and validateAppArmorAnnotationsAndFieldsMatchOnCreate. On a Pod the
    server first copies a container's valid AppArmor annotation into its unset field (unless the pod's
    profile is the same), so only a field written on the container can disagree there."""
    context = as_map(pod.spec.get("securityContext"))
    pod_seccomp = context.get("seccompProfile")
    if isinstance(pod_seccomp, dict) and SECCOMP_POD in annotations:
        wrong = _agrees(_text(annotations[SECCOMP_POD]), pod_seccomp, _SECCOMP_VALUES)
        if wrong:
            yield pod.field_path("securityContext") + ("seccompProfile", wrong), \
                f"securityContext.seccompProfile {wrong} disagrees with annotation {SECCOMP_POD}"
    windows = as_str(as_map(pod.spec.get("os")).get("name")) == "windows"
    pod_apparmor = context.get("appArmorProfile")
    for name, container in containers:
        own = as_map(container.raw.get("securityContext"))
        seccomp, key = own.get("seccompProfile"), SECCOMP_CONTAINER + name
        if isinstance(seccomp, dict) and key in annotations:
            wrong = _agrees(_text(annotations[key]), seccomp, _SECCOMP_VALUES)
            if wrong:
                yield container.path + ("securityContext", "seccompProfile", wrong), \
                    f"container {name}: seccompProfile {wrong} disagrees with annotation {key}"
        key = APPARMOR_CONTAINER + name
        apparmor = own.get("appArmorProfile") if own.get("appArmorProfile") is not None else pod_apparmor
        if windows or not isinstance(apparmor, dict) or key not in annotations:
            continue
        annotation = _text(annotations[key])
        if created_as_pod and own.get("appArmorProfile") is None and _apparmor_from(annotation) is not None:
            continue  # the server writes the annotation's profile on the container
        wrong = _agrees(annotation, apparmor, _APPARMOR_VALUES)
        if wrong:  # named at the container even when its profile is the pod's, as the server names it
            whose = "" if own.get("appArmorProfile") is not None else " (the pod's)"
            yield container.path + ("securityContext", "appArmorProfile", wrong), \
                f"container {name}: appArmorProfile{whose} {wrong} disagrees with annotation {key}"


def pod_annotation_problems(pod: PodSettings, containers: list, created_as_pod: bool, more_names=()):
    """What the server refuses in the annotations of a pod (`created_as_pod`: a Pod, or the pods the Dynamo
    operator makes of a DGD component; else a pod template). `containers`: (name in the pod, Container) of
    the containers read; `more_names`: other names the pod's containers take (the operator's `main`)."""
    where = pod.metadata_path + ("annotations",)
    annotations = pod.obj.get(where)
    if not isinstance(annotations, dict) or not annotations:
        return
    names = {name for name, _container in containers} | set(more_names)
    names |= {as_str(as_map(c).get("name")) or "" for c in as_list(pod.spec.get("ephemeralContainers"))}
    yield from _annotation_problems(annotations, pod.spec, names, where)
    yield from _agreement_problems(pod, annotations, containers, created_as_pod)
