"""The schema stage: each object against the JSON schema of its kind and apiVersion.

Custom resources (the DGD and the other Dynamo CRDs) use the bundled schemas of one Dynamo release (the
newest unless `--dynamo-version` picks another), or the CRDs the user gives as a file, folder, URL or
`cluster`; built-in kinds use Kubernetes' own schemas as bundled by `kubernetes-validate`. A kind with no
schema at hand is skipped (one info finding per kind)."""

from __future__ import annotations

from itertools import islice

from dgdlint.defaulting import WORKLOAD_PROVIDER, min_available_defaulted, stored_provider
from dgdlint.findings import Finding
from dgdlint.model import DYNAMO_GROUP, KObject
from dgdlint.model.claims import claim_as_created
from dgdlint.schema.builtin import BuiltinSchemas
from dgdlint.schema.bundled import Release, bundled_root, choose_release, read_index, release_versions
from dgdlint.schema.crd import CrdError, CrdVersionSchema, cached_crd_versions
from dgdlint.schema.dropped import may_hold
from dgdlint.schema.messages import error_findings, object_finding, violation_findings
from dgdlint.schema.nulls import prune_declared_nulls, zero_nulls

MAX_ERRORS_PER_OBJECT = 200
# Structural errors after which the API server runs no CEL rule of the object: a wrong type (int-or-string
# fields fail through anyOf) or a value outside an enum.
BLOCKING = ("type", "enum", "anyOf")
RANGE = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def pruned(obj: KObject, schema: dict, definitions: dict | None = None) -> dict:
    """The object as the API server validates it (schema/nulls.py): a custom resource without the null values
    it drops where `schema` declares the field; a built-in kind (`definitions` given) with its nulls as Go
    decodes them. No copy when the document holds no null."""
    if not obj.doc.has_null:
        return obj.value
    if definitions is not None:
        return zero_nulls(obj.value, schema, definitions)
    return prune_declared_nulls(obj.value, schema)


class SchemaStage:
    """`crd_sources` (when given) override the bundled schemas; `dynamo_version` picks a bundled release;
    `bundled=False` leaves custom resources unchecked when no CRD is given."""

    def __init__(self, crd_sources: list[str] | None = None, kubernetes_version: str | None = None,
                 dynamo_version: str | None = None, bundled: bool = True, node_ports: tuple[int, int] | None = None):
        self.crd_sources = list(crd_sources or [])
        self.kubernetes_version = kubernetes_version
        self.node_ports = node_ports  # the cluster's --service-node-port-range, for the rules (release_of)
        self.crds: dict[tuple[str, str, str], CrdVersionSchema] = {}
        self.release: Release | None = None
        self.releases: list[Release] = []
        for source in self.crd_sources:
            for version in cached_crd_versions(source):
                self.crds[(version.group, version.kind, version.version)] = version
        if self.crd_sources and not self.crds:
            raise CrdError(f"{', '.join(self.crd_sources)}: no CustomResourceDefinition with a schema found")
        if not self.crd_sources and (bundled or dynamo_version):
            root = bundled_root()
            if root is None:
                if dynamo_version:
                    raise CrdError(f"--dynamo-version {dynamo_version}: this installation has no bundled schemas")
            else:
                self.releases = read_index(root)
                self.release = choose_release(self.releases, dynamo_version)
                for version in release_versions(root, self.release):
                    self.crds[(version.group, version.kind, version.version)] = version
        self.builtins = BuiltinSchemas(self.kubernetes_version)
        if self.kubernetes_version:  # a version without schemas is said now, as a usage error, not mid-check
            _ = self.builtins.version
        # The stored objects of an update (`dgdlint diff`), by KObject.ref: transition rules compare with them.
        self.previous: dict[str, KObject] = {}
        self._cel_runtime = None
        self._quantity_walker = None
        self._dropped_fields = None
        self._dropped_release: bool | None = None
        self._walkers: dict[int, object] = {}
        self._reported_uncompiled: set[str] = set()

    @property
    def has_crds(self) -> bool:
        return bool(self.crds)

    @property
    def description(self) -> str:
        """Where the custom resources' schemas came from, for the report."""
        if self.release is not None:
            return f"{self.release.label()} schemas (bundled)"
        if self.crd_sources:
            return "the CRDs given"
        return ""

    def check(self, objects: list[KObject], old_objects: dict | None = None) -> list[Finding]:
        findings: list[Finding] = []
        skipped_kinds: dict[str, KObject] = {}
        dgd_without_crd: list[KObject] = []
        for obj in objects:
            group, version, kind = obj.group, obj.version, obj.kind
            crd = self.crds.get((group, kind, version))
            if crd is not None:
                if not crd.served:
                    findings.append(object_finding(obj, "crd-version-not-served", "error",
                                                   f"{kind} {obj.api_version} is not served by the CRD in "
                                                   f"{crd.source}", "Use a served apiVersion."))
                    continue
                instance = pruned(obj, crd.schema)
                structural, blocked = self._structure(obj, instance, crd.fast(), crd.validator, "crd-schema",
                                                      f"CRD {kind} {version}",
                                                      self._walker(crd.schema, None, builtin=False).defaulted)
                findings.extend(structural)
                # Like the API server, the CEL rules wait until no field has the wrong type (their errors would
                # only restate the type error, or fail to evaluate).
                findings.extend(self._beyond_structure(obj, instance, crd.schema, None, builtin=False, cel=not blocked))
                if group == DYNAMO_GROUP and kind == "DynamoGraphDeployment" and self._dropped_applies \
                        and may_hold(instance.get("spec"), obj.doc.keys):
                    refused = {finding.path for finding in structural}  # a field the CRD refuses: said
                    dropped = self._dropped(obj, self._dropped_walker().in_graph(instance),
                                            " in the pods the operator makes of it")
                    findings.extend(finding for finding in dropped if finding.path not in refused)
                continue
            found = self.builtins.validators(obj.api_version, kind)
            if found is not None:  # a built-in kind, including those of *.k8s.io groups (Ingress, RBAC, ...)
                instance = written = pruned(obj, found[2], self.builtins.definitions())
                if kind == "PersistentVolumeClaim" and group == "":  # what the server drops on create
                    instance = claim_as_created(instance)
                source = f"Kubernetes {self.builtins.version}"
                findings.extend(self._structure(obj, instance, found[0], found[1], "kubernetes-schema", source)[0])
                findings.extend(self._quantities(obj, instance, found[2], source))
                findings.extend(self._beyond_structure(obj, instance, found[2], self.builtins.definitions(),
                                                       builtin=True))
                if self._dropped_applies:
                    findings.extend(self._dropped(obj, self._dropped_walker().found(written, found[2])))
                continue
            # A custom resource whose CRD was not given (or lacks this version).
            known = sorted(v for g, k, v in self.crds if g == group and k == kind)
            if known:
                findings.append(self._version_unknown(obj, known))
            elif group == DYNAMO_GROUP and not self.crds:
                dgd_without_crd.append(obj)
            else:
                skipped_kinds.setdefault(f"{kind} ({obj.api_version})", obj)
        for label, obj in sorted(skipped_kinds.items()):
            findings.append(object_finding(obj, "schema-unavailable", "info",
                                           f"no schema at hand for {label}: schema check skipped for this kind",
                                           "Pass its CRD with --crd to check it."))
        if dgd_without_crd:
            kinds = sorted({obj.kind for obj in dgd_without_crd})
            findings.append(object_finding(
                dgd_without_crd[0], "schema-skipped", "info",
                f"schema stage skipped for {', '.join(kinds)} ({len(dgd_without_crd)} object(s)): no CRD given",
                "Pass the CRD with --crd PATH|URL|cluster or DGDLINT_CRD to check custom resources."))
        return findings

    def _version_unknown(self, obj: KObject, known: list[str]) -> Finding:
        group, kind = obj.group, obj.kind
        if self.release is None:
            return object_finding(obj, "crd-version-unknown", "error",
                                  f"{kind} apiVersion {obj.api_version} is not in the CRD (it has {', '.join(known)})",
                                  f"Use one of {', '.join(group + '/' + v for v in known)}.")
        serving = [r.name for r in self.releases if r.serving(group, kind, obj.version)]
        elsewhere = (f"; bundled releases that serve it: {', '.join(serving)}" if serving
                     else "; no bundled release serves it")
        remedy = f"Use {' or '.join(group + '/' + v for v in known)}"
        if serving:
            remedy += f", or pick a release that serves {obj.api_version} with --dynamo-version {serving[-1]}"
        return object_finding(obj, "crd-version-unknown", "error",
                              f"{kind} apiVersion {obj.api_version} is not served by {self.release.label()} "
                              f"(it serves {', '.join(known)}){elsewhere}", remedy + ".")

    def _beyond_structure(self, obj: KObject, instance: dict, schema: dict, definitions: dict | None,
                          builtin: bool, cel: bool = True) -> list[Finding]:
        """CEL rules (custom resources only: built-in kinds are validated by Go code) and list-type keys;
        `cel=False`: list-type keys only (the rules' outcomes are left out, as the API server skips them)."""
        from dgdlint.schema.validations import ABSENT

        walker = self._walker(schema, definitions, builtin)
        previous = self.previous.get(obj.ref)
        old = ABSENT
        if previous is not None and previous.api_version == obj.api_version:
            old = pruned(previous, schema, definitions if builtin else None)
            if obj.group == DYNAMO_GROUP and obj.kind == "DynamoGraphDeployment":
                old, instance = _as_defaulted(previous, old, obj, instance)
        violations = []
        for violation in walker.violations(instance, old):
            if not cel and violation.kind != "duplicate":
                continue
            if violation.kind == "cel-uncompiled":
                if violation.rule in self._reported_uncompiled:
                    continue
                self._reported_uncompiled.add(violation.rule)
            violations.append(violation)
        return violation_findings(obj, violations, builtin)

    def _walker(self, schema: dict, definitions: dict | None, builtin: bool):
        """The schema's walker (CEL rules, list keys, defaults), made once per schema."""
        walker = self._walkers.get(id(schema))
        if walker is None:
            from dgdlint.schema.validations import SchemaWalker

            runtime = None if builtin else self._runtime()
            walker = self._walkers[id(schema)] = SchemaWalker(schema, runtime, definitions)
        return walker

    def _quantities(self, obj: KObject, instance: dict, schema: dict, source: str) -> list[Finding]:
        if self._quantity_walker is None:
            from dgdlint.schema.quantities import QuantityWalker

            self._quantity_walker = QuantityWalker(self.builtins.definitions())
        return [object_finding(obj, "kubernetes-schema", "error", f"{message} [{source}]", remediation, path)
                for path, message, remediation in self._quantity_walker.bad(instance, schema)]

    @property
    def _dropped_applies(self) -> bool:
        """Whether the dropped-field table is of the Kubernetes release the built-in schemas are (its gates)."""
        if self._dropped_release is None:
            from dgdlint.schema.dropped import dropped_table

            self._dropped_release = f"{self.builtins.version}.".startswith(f"{dropped_table()[0]}.")
        return self._dropped_release

    def _dropped_walker(self):
        if self._dropped_fields is None:
            from dgdlint.schema.dropped import DroppedWalker

            self.builtins.validators("v1", "Pod")  # the definitions are read with a kind's schema
            self._dropped_fields = DroppedWalker(self.builtins.definitions())
        return self._dropped_fields

    def _dropped(self, obj: KObject, found, where: str = "") -> list[Finding]:
        from dgdlint.schema.dropped import dropped_table

        version = dropped_table()[0]
        return [object_finding(obj, "kubernetes-field-dropped", "warning", why.message(field, version, where),
                               why.remediation(field), path)
                for path, field, why in found]

    def warm(self) -> None:
        """What every check of a custom resource sets up first, whatever its versions: the fast validator's
        library and the CEL environment. Called while worker processes read the files (commands.check), it is
        then no longer the first thing the schema stage does in the worker that runs it."""
        if self.has_crds:
            import jsonschema_rs  # noqa: F401 - imported here: see above

            self._runtime()

    def _runtime(self):
        if self._cel_runtime is None:
            from dgdlint.schema.cel import CelRuntime

            self._cel_runtime = CelRuntime()
        return self._cel_runtime

    def _structure(self, obj: KObject, instance: dict, fast, explainer, rule: str,
                   source: str, defaulted=None) -> tuple[list[Finding], bool]:
        """The OpenAPI structure's findings, and whether one of them makes the API server skip the CEL rules
        (a value of the wrong type, or outside an enum: it then says some rules were not checked). The fast
        validator is not asked about a document with a whole float: to it, `1e20` is an integer.
        `defaulted`: a custom resource's defaults, which the server fills in before it validates (`multinode:
        {}` gets the nodeCount the schema requires); filled in only for an object that fails without them, as
        a CRD's defaults are valid and cannot make a valid object invalid."""
        refused = not obj.doc.whole_floats  # asked only then; to it, `1e20` is an integer
        if refused and fast.is_valid(instance):
            return [], False
        if defaulted is not None:
            instance = defaulted(instance)
            if refused and fast.is_valid(instance):
                return [], False
        findings, blocking = [], False
        errors = list(islice(explainer().iter_errors(instance), MAX_ERRORS_PER_OBJECT))
        # a value of the wrong type is one finding: a number past int64 is not also out of the field's range
        mistyped = {tuple(error.absolute_path) for error in errors if error.validator == "type"}
        for error in errors:
            blocking = blocking or error.validator in BLOCKING
            if error.validator in RANGE and tuple(error.absolute_path) in mistyped:
                continue
            findings.extend(error_findings(obj, error, rule, source))
            if len(findings) >= MAX_ERRORS_PER_OBJECT:
                break
        if refused and not findings:  # the two validators disagree: never a silent pass
            findings.append(object_finding(obj, rule, "error", f"{obj.label} does not match the {source} schema "
                                           "(the explaining validator names no field)",
                                           "Check the object against the schema; please report this case."))
        findings.sort(key=lambda f: (f.line, f.column, f.path))
        return findings, blocking


def _as_defaulted(previous: KObject, old: dict, obj: KObject, instance: dict) -> tuple[dict, dict]:
    """A DGD update's old and new bodies as the CEL rules see them, after the defaulting webhook: the
    stored graph got minAvailable 1 on the Grove pathway at create, and the update gets it again where
    the new manifest leaves it out (so `minAvailable: 2` added later is a change the CRD refuses). The
    provider is the stored one, or the one the new manifest names."""
    stored = stored_provider(previous)
    named = obj.annotations.get(WORKLOAD_PROVIDER)
    return (min_available_defaulted(old, stored),
            min_available_defaulted(instance, named if isinstance(named, str) else stored))
