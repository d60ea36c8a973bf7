"""Shared helpers of the chart tests: render the chart (cached), find objects, and read a DGD of
either API shape through one normalized view, so tests state expectations once for both shapes."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from dgdlint.render import RenderError, RenderRequest, render_chart, render_notes

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "charts" / "cosmos3-reasoner"
VALUES_DIR = REPO / "values"
MATRIX_FILE = CHART / "files" / "support-matrix.yaml"
REFERENCE = REPO / ".." / "shared" / "reference"
BUNDLED = REPO / "schemas"

NIM_IMAGE = "nvcr.io/nim/nvidia/cosmos3:2.1.0"
FRONTEND_IMAGE = "nvcr.io/nvidia/ai-dynamo/dynamo-frontend-nightly:20260906-c70f1c7"
CACHE_PATH = "/opt/nim/.cache"


def support_matrix() -> dict:
    return yaml.safe_load(MATRIX_FILE.read_text(encoding="utf-8"))


def preset_files() -> list[Path]:
    return sorted(VALUES_DIR.glob("*.yaml"))


@dataclass(frozen=True)
class Rendered:
    """Every object one render produced, plus lookups by kind."""

    objects: tuple[dict, ...]
    sources: tuple[str, ...]

    def of_kind(self, kind: str) -> list[dict]:
        return [obj for obj in self.objects if obj.get("kind") == kind]

    def one(self, kind: str) -> dict:
        found = self.of_kind(kind)
        assert len(found) == 1, f"expected one {kind}, found {len(found)}"
        return found[0]

    @property
    def release_objects(self) -> list[dict]:
        """What `helm install` applies: every object that is not a Helm hook."""
        return [obj for obj in self.objects if not hook_of(obj)]

    @property
    def test_hooks(self) -> list[dict]:
        """What only `helm test` creates."""
        return [obj for obj in self.objects if hook_of(obj) == "test"]

    @property
    def dgd(self) -> dict:
        return self.one("DynamoGraphDeployment")

    @property
    def job(self) -> dict:
        return self.one("Job")

    @property
    def components(self) -> dict[str, dict]:
        return normalize_dgd(self.dgd)

    @property
    def frontend(self) -> dict:
        return self.components["Frontend"]

    @property
    def worker(self) -> dict:
        return self.components["ReasonerWorker"]


def hook_of(obj: dict) -> str:
    """The object's `helm.sh/hook` annotation ('' for an ordinary release object)."""
    return ((obj.get("metadata") or {}).get("annotations") or {}).get("helm.sh/hook", "")


def _freeze(values: dict | None) -> str:
    return json.dumps(values or {}, sort_keys=True)


@functools.lru_cache(maxsize=512)
def _render_cached(values_files: tuple[str, ...], frozen: str, release: str, namespace: str) -> Rendered:
    request = RenderRequest(
        CHART,
        values_files=list(values_files),
        release=release,
        namespace=namespace,
        extra_values=json.loads(frozen) or None,
    )
    templates = render_chart(request, engine="sdk")
    objects, sources = [], []
    for template in templates:
        for document in yaml.safe_load_all(template.text):
            if document:
                objects.append(document)
                sources.append(template.source)
    return Rendered(tuple(objects), tuple(sources))


def render(values: dict | None = None, *, files: tuple[str | Path, ...] = (), release: str = "cosmos3-reasoner",
           namespace: str = "default") -> Rendered:
    """Render the chart (cached by inputs); each call gets its own copy, so a test may modify it."""
    return copy.deepcopy(_render_cached(tuple(str(f) for f in files), _freeze(values), release, namespace))


def render_error(values: dict | None = None, *, files: tuple[str | Path, ...] = ()) -> str:
    """The message of a render that must fail."""
    try:
        render(values, files=files)
    except RenderError as error:
        return str(error)
    raise AssertionError(f"the chart rendered although it should have failed: {values}")


def notes(values: dict | None = None, *, release: str = "cosmos3-reasoner", namespace: str = "default") -> str:
    return render_notes(RenderRequest(CHART, release=release, namespace=namespace, extra_values=values))


def env_dict(env: list[dict]) -> dict[str, object]:
    """Env as name -> value (or the valueFrom mapping); asserts no name repeats."""
    names = [entry["name"] for entry in env]
    assert len(names) == len(set(names)), f"duplicate env names: {names}"
    return {entry["name"]: entry.get("value", entry.get("valueFrom")) for entry in env}


def env_names(env: list[dict]) -> list[str]:
    return [entry["name"] for entry in env]


def marker_key(image: str, variant: str, precision: str, tags_selector: str) -> str:
    """The download marker key as the chart documents it: sha256 of image|variant|precision|tags, 12 hex."""
    identity = f"{image}|{variant}|{precision}|{tags_selector}"
    return hashlib.sha256(identity.encode()).hexdigest()[:12]


# --- one view of a DGD, whatever its API version -------------------------------------------------

_POD_KEYS = ("imagePullSecrets", "securityContext", "nodeSelector", "tolerations", "affinity",
             "topologySpreadConstraints", "terminationGracePeriodSeconds", "initContainers", "priorityClassName")
_MAIN_KEYS = ("image", "imagePullPolicy", "workingDir", "command", "args", "env", "securityContext")


def _claims_by_volume(volumes: list[dict]) -> dict[str, str]:
    return {v["name"]: v["persistentVolumeClaim"]["claimName"] for v in volumes if "persistentVolumeClaim" in v}


def normalize_dgd(dgd: dict) -> dict[str, dict]:
    """Components by name, each as {type, replicas, runtimeVersionOverride, image, imagePullPolicy,
    workingDir, command, args, env, securityContext (of the main container), resources (requests/limits
    keyed by Kubernetes resource name),
    sharedMemorySize, cacheMounts [(claim, mountPath)], podLabels, podAnnotations, pod (pod-level
    settings), extraVolumes (pod volumes the main container does not mount, as (name, claim))}."""
    version = dgd["apiVersion"].split("/")[1]
    if version == "v1alpha1":
        return {name: _normalize_v1alpha1(spec, dgd["spec"]) for name, spec in dgd["spec"]["services"].items()}
    return {item["name"]: _normalize_v1beta1(item) for item in dgd["spec"]["components"]}


def _normalize_v1alpha1(service: dict, graph: dict) -> dict:
    pod = dict(service.get("extraPodSpec", {}))
    main = pod.pop("mainContainer", {})
    resources = {}
    for kind, section in service.get("resources", {}).items():
        section = dict(section)
        gpu_name = section.pop("gpuType", "nvidia.com/gpu")
        if "gpu" in section:
            section[gpu_name] = section.pop("gpu")
        resources[kind] = section
    pvcs = {pvc["name"] for pvc in graph.get("pvcs", [])}
    mounts = []
    for mount in service.get("volumeMounts", []):
        assert mount["name"] in pvcs, f"volumeMounts names {mount['name']}, which spec.pvcs does not list"
        mounts.append((mount["name"], mount["mountPoint"]))
    volumes = pod.pop("volumes", [])
    return {
        "type": service["componentType"],
        "replicas": service.get("replicas"),
        "runtimeVersionOverride": service.get("runtimeVersionOverride"),
        "image": main.get("image"),
        "imagePullPolicy": main.get("imagePullPolicy"),
        "workingDir": main.get("workingDir"),
        "command": main.get("command"),
        "args": main.get("args"),
        "env": list(service.get("envs", [])) + list(main.get("env", [])),
        "securityContext": main.get("securityContext"),
        "resources": resources,
        "sharedMemorySize": (service.get("sharedMemory") or {}).get("size"),
        "cacheMounts": mounts,
        "podLabels": (service.get("extraPodMetadata") or {}).get("labels", {}),
        "podAnnotations": (service.get("extraPodMetadata") or {}).get("annotations", {}),
        "pod": {key: pod[key] for key in _POD_KEYS if key in pod},
        "extraVolumes": sorted(_claims_by_volume(volumes).items()),
        "mainContainerExtras": sorted(set(main) - set(_MAIN_KEYS)),
        "podExtras": sorted(set(pod) - set(_POD_KEYS)),
    }


def _normalize_v1beta1(component: dict) -> dict:
    template = component.get("podTemplate", {})
    pod = dict(template.get("spec", {}))
    containers = pod.pop("containers")
    assert [c["name"] for c in containers] == ["main"], "one container named main"
    main = containers[0]
    claims = _claims_by_volume(pod.pop("volumes", []))
    mounted = {m["name"] for m in main.get("volumeMounts", [])}
    mounts = [(claims[m["name"]], m["mountPath"]) for m in main.get("volumeMounts", []) if m["name"] in claims]
    return {
        "type": component["type"],
        "replicas": component.get("replicas"),
        "runtimeVersionOverride": component.get("runtimeVersionOverride"),
        "image": main.get("image"),
        "imagePullPolicy": main.get("imagePullPolicy"),
        "workingDir": main.get("workingDir"),
        "command": main.get("command"),
        "args": main.get("args"),
        "env": list(main.get("env", [])),
        "securityContext": main.get("securityContext"),
        "resources": main.get("resources", {}),
        "sharedMemorySize": component.get("sharedMemorySize"),
        "cacheMounts": mounts,
        "podLabels": (template.get("metadata") or {}).get("labels", {}),
        "podAnnotations": (template.get("metadata") or {}).get("annotations", {}),
        "pod": {key: pod[key] for key in _POD_KEYS if key in pod},
        "extraVolumes": sorted((name, claim) for name, claim in claims.items() if name not in mounted),
        "mainContainerExtras": sorted(set(main) - {*_MAIN_KEYS, "name", "resources", "volumeMounts"}),
        "podExtras": sorted(set(pod) - set(_POD_KEYS)),
    }


# --- the DGD schema of a Dynamo release, as bundled in schemas/ -----------------------------------

NEWEST = "newest"


def bundled_release(release: str = NEWEST):
    """A release bundled in schemas/ (the newest by default, as dgdlint uses it with no flag)."""
    from dgdlint.schema.bundled import choose_release, read_index

    return choose_release(read_index(BUNDLED), None if release == NEWEST else release)


@functools.cache
def crd_json_schema(version: str, release: str = NEWEST) -> dict:
    """The DGD schema of `version` in a bundled release: the CRD's openAPI schema made strict the way the
    API server treats it (objects with properties closed unless they preserve unknown fields;
    int-or-string as anyOf), written by `dgdlint schemas --release` and checked for drift elsewhere."""
    chosen = bundled_release(release)
    files = chosen.kinds["DynamoGraphDeployment"]["files"]
    if version not in files:
        raise KeyError(f"Dynamo {chosen.name} does not serve DynamoGraphDeployment {version}")
    return json.loads((BUNDLED / files[version]).read_text(encoding="utf-8"))


@functools.cache
def crd_validator(version: str, release: str = NEWEST):
    """A draft-07 validator of that schema, built once per version and release."""
    import jsonschema

    return jsonschema.Draft7Validator(crd_json_schema(version, release))


def validate_against_crd(dgd: dict, release: str = NEWEST) -> None:
    """Raise jsonschema.ValidationError (best match) when the DGD breaks the schema of its version in
    the bundled `release`."""
    import jsonschema

    validator = crd_validator(dgd["apiVersion"].split("/")[1], release)
    error = jsonschema.exceptions.best_match(validator.iter_errors(prune_nulls(dgd)))
    if error is not None:
        raise error


def prune_nulls(node):
    if isinstance(node, dict):
        return {key: prune_nulls(value) for key, value in node.items() if value is not None}
    if isinstance(node, list):
        return [prune_nulls(item) for item in node]
    return node
