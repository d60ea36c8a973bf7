"""Kubernetes' own objects to mutate, and the two verdicts on one, for the built-in admission tests
(test_admission_fuzz_builtin.py, test_builtin_required.py).

The bases are the built-in objects of every rule's passing fixtures (Jobs, claims, volumes, Services,
autoscalers, Pods, quotas, ...); a test uses one only where both the server and dgdlint take it as written
(`taken`). The server judges an object as a server-side apply, as Helm 4 and `kubectl apply --server-side`
send it (list keys are then unique), and as a create, as Helm 3 and a client-side apply send it (int32
fields then hold their range); dgdlint refuses what either refuses, by its schema stage, its admission rules
and the other rules that report a refusal of the server (duplicate-env)."""

from __future__ import annotations

import copy
import itertools
import json

from admission_support import SERVER_RULES, changed, schema_at
from controlplane import ApiError, resource_path
from fixture_cases import RULE_FIXTURES, documents, relative

from dgdlint.engine import check_texts
from dgdlint.rules.catalogue import all_rules
from dgdlint.schema import SchemaStage
from dgdlint.schema.builtin import BuiltinSchemas

STAGE = SchemaStage()
SCHEMAS = BuiltinSchemas()
# The admission rules, and the rules of other families that report what the server itself refuses (a repeated env
# name: server-side apply refuses the list).
ADMISSION = {rule.name for rule in all_rules() if rule.family == "admission"} | set(SERVER_RULES)


def builtin(document: dict) -> bool:
    """Whether the object is of one of Kubernetes' own API groups (the core group, apps, batch, ..., *.k8s.io)."""
    api_version = str(document.get("apiVersion", ""))
    group = api_version.split("/")[0] if "/" in api_version else ""
    return bool(document.get("kind")) and (group in ("", "apps", "batch", "policy", "autoscaling")
                                           or group.endswith(".k8s.io"))


BASES = [(relative(path), document) for path in RULE_FIXTURES if path.parent.name == "pass"
         for document in documents(path) if builtin(document)]
_SERVICES = itertools.count()  # names of the Services created for real (and deleted)
_TAKEN: dict[int, bool] = {}  # id of a base's object -> whether both sides take it as written


def kind_schema(document: dict) -> dict | None:
    found = SCHEMAS.validators(str(document.get("apiVersion")), str(document.get("kind")))
    return None if found is None else found[2]


def resolved(schema: dict | None) -> dict | None:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = SCHEMAS.definitions().get(schema["$ref"].rsplit("/", 1)[-1])
    return schema


def builtin_schema_at(schema: dict | None, path: tuple) -> dict | None:
    for part in path:
        schema = schema_at(resolved(schema), (part,))
    return resolved(schema)


def placed(plane, namespace: str, document: dict) -> tuple[dict, str] | None:
    """The object in the test's namespace (or none, for a cluster-scoped kind) and its REST path; None when
    the server serves no such kind."""
    body = copy.deepcopy(document)
    metadata = body.setdefault("metadata", {})
    try:
        path = resource_path(plane, body["apiVersion"], body["kind"], namespace, metadata.get("name") or "x")
    except (KeyError, ApiError):
        return None
    if "/namespaces/" in path:
        metadata["namespace"] = namespace
    else:
        metadata.pop("namespace", None)
    return body, path


def server_refuses(plane, body: dict, path: str) -> str:
    """The server's refusal of the object as a server-side apply (Helm 4, `kubectl apply --server-side`) or as
    a create (Helm 3, a client-side `kubectl apply`), both dry runs with strict field validation; "" when it
    takes it both ways. The two differ: server-side apply holds list keys unique, and a create reads the JSON
    into Go's types, refusing an int32 field's 2147483648, which server-side apply silently wraps around.
    A Service is also created for real (and deleted): a dry run allocates no node port or cluster IP, so it
    checks neither's range."""
    collection = path.rsplit("/", 1)[0]
    try:
        plane.request("PATCH", f"{path}?dryRun=All&fieldManager=dgdlint-fuzz&fieldValidation=Strict&force=true",
                      json.dumps(body).encode(), content_type="application/apply-patch+yaml")
        plane.request("POST", f"{collection}?dryRun=All&fieldValidation=Strict", body)
        if body["kind"] == "Service":
            real = dict(body, metadata=dict(body["metadata"], name=f"fuzz-{next(_SERVICES)}"))
            plane.request("POST", f"{collection}?fieldValidation=Strict", real)
            plane.request("DELETE", f"{collection}/{real['metadata']['name']}")
    except ApiError as error:
        return error.body.get("message") or str(error.body)
    return ""


def dgdlint_refuses(body: dict) -> list[str]:
    result = check_texts({"mutant.json": json.dumps(body, indent=1)}, STAGE)
    return [f"{f.rule} {f.path}: {f.message}" for f in result.findings
            if f.severity == "error" and (f.stage == "schema" or f.rule in ADMISSION)]


def taken(plane, namespace: str, document: dict) -> tuple[dict, str] | None:
    """A base's object placed in the namespace, when the server serves its kind and both sides take it."""
    found = placed(plane, namespace, document)
    if found is None:
        return None
    if id(document) not in _TAKEN:
        _TAKEN[id(document)] = not server_refuses(plane, *found) and not dgdlint_refuses(found[0])
    return found if _TAKEN[id(document)] else None


# Where a workload holds the template of its pods.
_TEMPLATES = {"Job": ("spec", "template"), "CronJob": ("spec", "jobTemplate", "spec", "template"),
              "Deployment": ("spec", "template"), "StatefulSet": ("spec", "template"),
              "DaemonSet": ("spec", "template"), "ReplicaSet": ("spec", "template"),
              "ReplicationController": ("spec", "template")}


def pods_refused(plane, body: dict) -> str:
    """The server's refusal of a pod made of a workload's template (a dry-run create, as its controller makes
    one, with the volumes a StatefulSet adds for its claim templates); "" when it takes it or the object holds
    no template. dgdlint refuses some workloads the server stores for what the server refuses in every pod
    made of them (the RuntimeClass admission plugin's overhead, a pod-level request below the containers')."""
    template = body
    for part in _TEMPLATES.get(body.get("kind"), ("-",)):
        template = template.get(part) if isinstance(template, dict) else None
    if not isinstance(template, dict) or not isinstance(template.get("spec"), dict):
        return ""
    spec = copy.deepcopy(template["spec"])
    claims = (body.get("spec") or {}).get("volumeClaimTemplates") if body["kind"] == "StatefulSet" else None
    for claim in claims if isinstance(claims, list) else []:
        name = str(((claim or {}).get("metadata") or {}).get("name") or "")
        if name and name not in {str((v or {}).get("name")) for v in spec.get("volumes") or []}:
            claimed = {"claimName": f"{name}-{body['metadata']['name']}-0"}
            spec["volumes"] = [*(spec.get("volumes") or []), {"name": name, "persistentVolumeClaim": claimed}]
    metadata = {"generateName": "fuzz-", "labels": (template.get("metadata") or {}).get("labels") or {}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}
    try:
        plane.request("POST", f"/api/v1/namespaces/{body['metadata']['namespace']}/pods?dryRun=All", pod)
    except ApiError as error:
        return error.body.get("message") or str(error.body)
    return ""


def disagreement(name: str, plane, body: dict, path: str) -> str:
    """"" when the server and dgdlint give the object the same verdict, else what each said. Where the server
    stores a workload that dgdlint refuses, the server is asked about a pod made of it too (pods_refused)."""
    server, ours = server_refuses(plane, body, path), dgdlint_refuses(body)
    if ours and not server and "namespace" in body.get("metadata", {}):
        refused = pods_refused(plane, body)
        server = f"a pod made of it: {refused}" if refused else ""
    if bool(server) == bool(ours):
        return ""
    return (f"the API server and dgdlint disagree on this mutant of {name}:\n{json.dumps(body, indent=1)}\n"
            f"server: {server or 'accepted'}\ndgdlint: {ours or 'accepted'}")


def _reference(schema: dict | None) -> str:
    return schema["$ref"].rsplit("/", 1)[-1] if isinstance(schema, dict) and "$ref" in schema else ""


def schema_nodes(document: dict) -> list[tuple[tuple, object, dict, str]]:
    """(path, value, resolved schema, schema name) of every node of `document` its kind's schema describes:
    a definition by its name, an inline schema by its holder's name and key (a list's items by the list's
    holder), the object itself by its kind."""
    found = []
    pending = [((), document, kind_schema(document), str(document.get("kind", "")))]
    while pending:
        path, value, schema, name = pending.pop()
        schema = resolved(schema)
        if not isinstance(schema, dict):
            continue
        found.append((path, value, schema, name))
        if isinstance(value, dict):
            for key, item in value.items():
                child = schema_at(schema, (key,))
                pending.append((path + (key,), item, child, _reference(child) or f"{name}.{key}"))
        elif isinstance(value, list):
            child = schema_at(schema, (0,))
            pending += [(path + (index,), item, child, _reference(child) or name) for index, item in enumerate(value)]
    return found


def sweep(plane, namespace: str, changes, bases=BASES) -> tuple[set, list[str]]:
    """Every change `changes(document)` yields, as (key, label, path, value), made to its base as placed
    (`changed`) and judged by both sides: each key once, in the first of `bases` taken as written that yields
    it (a base is sent to the server only when it yields a key not judged yet). (keys judged, disagreements)."""
    done: set = set()
    disagreements = []
    for name, document in bases:
        found = None
        for key, label, where, value in changes(document):
            if key in done:
                continue
            found = found or taken(plane, namespace, document)
            if found is None:
                break
            done.add(key)
            problem = disagreement(name, plane, changed(found[0], where, value), found[1])
            if problem:
                disagreements.append(f"{label}: {problem}")
    return done, disagreements
