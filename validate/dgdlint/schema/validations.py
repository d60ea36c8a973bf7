"""The checks past OpenAPI structure, in one walk of an object along its schema: every CEL rule
(`x-kubernetes-validations`, see cel.py) at the node it sits on, and list-type uniqueness (listtypes.py).
On an update (`dgdlint diff`), each node is paired with its stored value, for transition rules: by key
in objects and maps, by list-map keys in map lists (other lists have no old items, as in the API server).

`$ref`s into `$defs` (Kubernetes' built-in schemas) are followed; subtrees that hold no rule and no list
type are skipped, once known."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from dgdlint.schema.cel import CelRule, CelRuntime, field_path_parts
from dgdlint.schema.defaults import apply_defaults
from dgdlint.schema.listtypes import duplicates, is_null, keyless, map_key
from dgdlint.schema.refs import child_nodes, resolve, subtree_holds

ABSENT = object()
_MAP_VALUES = object()  # a plan's entry for the keys a node's properties do not name
_MORE_SHOWN = 4  # later occurrences of a repeated key given as related locations; the message counts them all


def _is_checked(node: dict) -> bool:
    """A node that holds CEL rules or a list type whose entries must be unique."""
    return bool(node.get("x-kubernetes-validations") or node.get("x-kubernetes-list-type") in ("map", "set"))


def _has_default(node: dict) -> bool:
    return "default" in node


@dataclass
class Violation:
    """What the walk past OpenAPI found at one node: a CEL rule failed, or a list entry repeated."""

    kind: str  # "cel", "cel-uncompiled", "duplicate", "keyless"
    path: tuple
    message: str
    rule: str = ""
    reason: str = ""
    related: list[tuple] = field(default_factory=list)  # (path, note)
    list_name: str = ""


class SchemaWalker:
    """Walks values along one schema document (with its `$defs`, when it has any)."""

    def __init__(self, schema: dict, runtime: CelRuntime | None, definitions: dict | None = None):
        self.schema = schema
        self.runtime = runtime
        self.definitions = definitions if definitions is not None else schema.get("$defs", {})
        self._interesting: dict[int, bool] = {}
        self._defaults_below: dict[int, bool] = {}
        self._rules: dict[int, list[CelRule]] = {}
        self._child_plans: dict[int, dict] = {}  # schema node -> {key (or _MAP_VALUES): schema or None}

    def violations(self, value: object, old: object = ABSENT) -> Iterator[Violation]:
        """Violations of `value` (and of the update from `old`); each rule sees its value with the schema's
        defaults applied, as the API server stores it."""
        yield from self._walk(self.schema, value, old, ())

    def defaulted(self, value: object) -> object:
        """`value` with every default of the schema filled in, as the API server decodes a custom resource
        before it validates it (a copy where anything is added; `value` itself is left unchanged)."""
        return self._defaulted(self.schema, value)

    def _defaulted(self, node: dict, value: object) -> object:
        return apply_defaults(node, value, self._resolve, has_defaults=self._has_defaults) \
            if self._has_defaults(node) else value

    def _has_defaults(self, node: dict) -> bool:
        """Whether a `default` sits below this node."""
        return any(subtree_holds(child, _has_default, self._defaults_below, self.definitions)
                   for child in child_nodes(node, self.definitions))

    def _resolve(self, node: object) -> dict:
        return resolve(node, self.definitions)

    def _is_interesting(self, node: dict) -> bool:
        """Whether a rule or a list type sits at this node or below it."""
        return subtree_holds(node, _is_checked, self._interesting, self.definitions)

    def _cel_rules(self, node: dict) -> list[CelRule]:
        rules = self._rules.get(id(node))
        if rules is None:
            rules = [CelRule.from_schema(entry) for entry in node.get("x-kubernetes-validations") or []
                     if isinstance(entry, dict) and isinstance(entry.get("rule"), str)]
            self._rules[id(node)] = rules
        return rules

    def _walk(self, node: object, value: object, old: object, path: tuple) -> Iterator[Violation]:
        node = self._resolve(node)
        if value is None or not self._is_interesting(node):
            return
        if self.runtime is not None and node.get("x-kubernetes-validations"):
            yield from self._check_rules(node, value, old, path)
        if isinstance(value, dict):
            properties = node.get("properties")
            properties = properties if isinstance(properties, dict) else {}
            # The schema to walk each key into (None: nothing below it is checked), decided the first time the
            # key is met under this node and kept: the walk asks it of every object.
            plan = self._child_plans.get(id(node))
            if plan is None:
                plan = self._child_plans[id(node)] = {}
            for key, child in value.items():
                if child is None:
                    continue
                own = key in properties
                schema = plan.get(key if own else _MAP_VALUES, ABSENT)
                if schema is ABSENT:
                    schema = properties[key] if own else node.get("additionalProperties")
                    if isinstance(schema, dict) or own:
                        schema = self._resolve(schema)
                        schema = schema if self._is_interesting(schema) else None
                    else:
                        schema = None
                    plan[key if own else _MAP_VALUES] = schema
                if schema is None:
                    continue  # the common case
                child_old = old.get(key, ABSENT) if isinstance(old, dict) else ABSENT
                yield from self._walk(schema, child, child_old, path + (key,))
        elif isinstance(value, list):
            yield from self._check_list(node, value, path, self._resolve(node.get("items")))
            items = self._resolve(node.get("items"))
            if not items or not self._is_interesting(items):
                return
            old_items = self._old_items(node, old)
            keys = node.get("x-kubernetes-list-map-keys") or []
            for index, item in enumerate(value):
                item_old = old_items.get(map_key(item, keys), ABSENT) if old_items else ABSENT
                yield from self._walk(items, item, item_old, path + (index,))

    @staticmethod
    def _old_items(node: dict, old: object) -> dict:
        if node.get("x-kubernetes-list-type") != "map" or not isinstance(old, list):
            return {}
        keys = node.get("x-kubernetes-list-map-keys") or []
        return {map_key(item, keys): item for item in old if map_key(item, keys) is not None}

    def _check_rules(self, node: dict, value: object, old: object, path: tuple) -> Iterator[Violation]:
        defaulted = None
        for rule in self._cel_rules(node):
            outcome = self.runtime.check(rule, value, None if old is ABSENT else old, old is not ABSENT)
            if outcome is not None and (not outcome.passed or outcome.error) and self._has_defaults(node):
                # The API server evaluates the defaulted object. Defaulting every object up front cost as much as
                # the rest of the stage; a rule that holds without defaults holds with them in the CRDs we know
                # (a default a rule forbids would reject every create), so only failures are evaluated again.
                if defaulted is None:
                    defaulted = (self._defaulted(node, value), old if old is ABSENT else self._defaulted(node, old))
                outcome = self.runtime.check(rule, defaulted[0], None if old is ABSENT else defaulted[1],
                                             old is not ABSENT)
            if outcome is None or outcome.passed and not outcome.error:
                continue
            if outcome.passed:  # did not compile
                yield Violation("cel-uncompiled", path, outcome.error, rule=rule.rule)
                continue
            where = path
            if rule.field_path:
                parts = field_path_parts(rule.field_path)
                if parts is not None:
                    where = path + parts
            yield Violation("cel", where, outcome.message, rule=rule.rule, reason=rule.reason or "FieldValueInvalid")

    @staticmethod
    def _check_list(node: dict, value: list, path: tuple, item_schema: dict) -> Iterator[Violation]:
        for duplicate in duplicates(node, value, item_schema):
            kind = "map" if node.get("x-kubernetes-list-type") == "map" else "set"
            name = path[-1] if path and isinstance(path[-1], str) else "list"
            message = (f"duplicate entry in {name} ({duplicate.key}): its list-map keys must be unique"
                       if kind == "map" else f"duplicate value in the set {name} ({duplicate.key})")
            if duplicate.later:
                message += f"; it appears {len(duplicate.later) + 2} times"
            related = [(path + (duplicate.first,), "first occurrence")]
            related += [(path + (index,), "another occurrence") for index in duplicate.later[:_MORE_SHOWN]]
            yield Violation("duplicate", path + (duplicate.index,), message, related=related, list_name=str(name))
        keys = ", ".join(str(key) for key in node.get("x-kubernetes-list-map-keys") or [])
        for index in keyless(node, value, item_schema):
            name = path[-1] if path and isinstance(path[-1], str) else "list"
            what = "is null" if is_null(value[index]) else f"holds none of its list-map keys ({keys})"
            yield Violation("keyless", path + (index,), f"entry of {name} {what}", list_name=str(name))
