"""RBAC roles and bindings as the API server validates them (written from Kubernetes' rbac validation, v1.37,
and the v1 defaults it runs first): a rule's verbs; a resource rule's apiGroups and resources, or a
ClusterRole's nonResourceURLs on their own; a ClusterRole's aggregation selectors; a binding's roleRef (the
RBAC group, a kind its binding may name, a name that is a URL path segment) and its subjects (a
ServiceAccount, User or Group, in the group each takes; a ServiceAccount's name a DNS subdomain, and its
namespace given in a ClusterRoleBinding). Names of roles and bindings are object-metadata-invalid's.

Fields the schema requires (a rule's verbs, a roleRef's kind and name, a subject's kind and name) are the
schema's to report when missing; here they are read when written empty."""

from __future__ import annotations

from dgdlint.model import Model, as_list, as_map, as_str
from dgdlint.rules.registry import Hit, rule
from dgdlint.rules.selectors import selector_problems
from dgdlint.rules.syntax import dns1123_subdomain_problem, path_segment_name_problem

RBAC_GROUP = "rbac.authorization.k8s.io"
SUBJECT_KINDS = ("ServiceAccount", "User", "Group")
# The roles each kind of binding may refer to.
ROLE_KINDS = {"RoleBinding": ("Role", "ClusterRole"), "ClusterRoleBinding": ("ClusterRole",)}


def _written(rule_: dict, key: str) -> bool:
    """A list given with an entry (a value of another type counts too: the schema reports its type)."""
    value = rule_.get(key)
    return value is not None and value != []


def policy_rule_problems(rule_: dict, path: tuple, namespaced: bool):
    """(path, problem) for one rule of a role (`namespaced`: a Role's, which cannot name URLs)."""
    if rule_.get("verbs") == []:  # missing or null: the schema's to report
        yield path + ("verbs",), "has no verbs (a rule needs at least one)"
    if _written(rule_, "nonResourceURLs"):
        if namespaced:
            yield path + ("nonResourceURLs",), "names nonResourceURLs, which only a ClusterRole's rules can " \
                                               "(a Role is namespaced)"
        mixed = [key for key in ("apiGroups", "resources", "resourceNames") if _written(rule_, key)]
        if mixed:
            yield path + ("nonResourceURLs",), f"names nonResourceURLs beside {' and '.join(mixed)} (a rule " \
                                               "is for resources or for URLs, not both)"
        return
    if not _written(rule_, "apiGroups"):
        yield path + ("apiGroups",), "has no apiGroups (a resource rule needs at least one; \"\" is the core " \
                                     "group)"
    if not _written(rule_, "resources"):
        yield path + ("resources",), "has no resources (a resource rule needs at least one)"


def aggregation_problems(aggregation: object):
    """A ClusterRole's aggregationRule, when given: one selector at least, each a valid label selector."""
    if not isinstance(aggregation, dict):
        return  # none, or of another type (the schema's)
    at = ("aggregationRule", "clusterRoleSelectors")
    selectors = as_list(aggregation.get("clusterRoleSelectors"))
    if not selectors:
        yield at, "aggregationRule has no clusterRoleSelectors (it needs at least one, or leave the rule out)"
    for index, selector in enumerate(selectors):
        for where, problem in selector_problems(selector, at + (index,)):
            yield where, f"has an invalid clusterRoleSelector: {problem}"


def role_ref_problems(ref: dict, binding: str):
    """A binding's roleRef: the RBAC group (an empty one is defaulted to it), a role kind the binding may
    name, and a name that is a URL path segment."""
    group, kind, name = as_str(ref.get("apiGroup")), as_str(ref.get("kind")), as_str(ref.get("name"))
    if group and group != RBAC_GROUP:
        yield ("roleRef", "apiGroup"), f"roleRef.apiGroup {group!r} is not {RBAC_GROUP}"
    allowed = ROLE_KINDS[binding]
    if kind is not None and kind not in allowed:
        yield ("roleRef", "kind"), f"roleRef.kind {kind!r} is not {' or '.join(allowed)} (what a {binding} " \
                                   "refers to)"
    if name == "":
        yield ("roleRef", "name"), "roleRef.name is empty"
    elif name is not None and path_segment_name_problem(name):
        yield ("roleRef", "name"), f"roleRef.name {name!r} {path_segment_name_problem(name)}"


def subject_problems(subject: dict, path: tuple, namespaced: bool):
    """One subject of a binding (`namespaced`: a RoleBinding's, whose ServiceAccounts default to its own
    namespace). An empty apiGroup is defaulted first: to "" for a ServiceAccount, to the RBAC group for a
    User or Group."""
    kind, name, group = as_str(subject.get("kind")), as_str(subject.get("name")), as_str(subject.get("apiGroup"))
    if name == "":
        yield path + ("name",), "subject has an empty name"
    if kind is None:
        return  # missing: the schema's to report
    if kind not in SUBJECT_KINDS:
        yield path + ("kind",), f"subject kind {kind!r} is not one of {', '.join(SUBJECT_KINDS)}"
    elif kind == "ServiceAccount":
        problem = dns1123_subdomain_problem(name) if name else None
        if problem:
            yield path + ("name",), f"ServiceAccount subject name {name!r} {problem}"
        if group:
            yield path + ("apiGroup",), f"a ServiceAccount subject's apiGroup is \"\", not {group!r}"
        if not namespaced and not as_str(subject.get("namespace")):
            yield path + ("namespace",), "a ServiceAccount subject of a ClusterRoleBinding needs a namespace"
    elif group and group != RBAC_GROUP:
        yield path + ("apiGroup",), f"a {kind} subject's apiGroup is {RBAC_GROUP}, not {group!r}"


def rbac_problems(obj):
    value = obj.value
    if obj.kind in ("Role", "ClusterRole"):
        for index, entry in enumerate(as_list(value.get("rules"))):
            for where, problem in policy_rule_problems(as_map(entry), ("rules", index), obj.kind == "Role"):
                yield where, f"rules[{index}] {problem}"
        if obj.kind == "ClusterRole":
            yield from aggregation_problems(value.get("aggregationRule"))
        return
    if isinstance(value.get("roleRef"), dict):
        yield from role_ref_problems(value["roleRef"], obj.kind)
    for index, subject in enumerate(as_list(value.get("subjects"))):
        yield from subject_problems(as_map(subject), ("subjects", index), obj.kind == "RoleBinding")


@rule(
    name="rbac-spec-invalid", code="DGD633", severity="error", family="admission",
    title="RBAC roles and bindings are ones the API server takes",
    rationale="""The API server refuses a Role or ClusterRole whose rule has no verbs, a resource rule
    without apiGroups or resources, nonResourceURLs in a Role or beside resources in one rule, and a
    ClusterRole whose aggregationRule has no selector or an invalid one. It refuses a RoleBinding or
    ClusterRoleBinding whose roleRef is outside the RBAC group, names a kind the binding cannot refer to (a
    ClusterRoleBinding only a ClusterRole) or a name that is no URL path segment, and a subject that is not
    a ServiceAccount, User or Group, is in the wrong group, is a ServiceAccount whose name is no DNS
    subdomain, or a ServiceAccount of a ClusterRoleBinding without a namespace. The JSON schema takes all of
    these, and so the apply of a release that ships one fails.""",
    remediation="Give each rule its verbs, apiGroups (\"\" for the core group) and resources; refer a "
                "ClusterRoleBinding to a ClusterRole; give each ServiceAccount subject its namespace.",
    reads=("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"),
)
def rbac_spec_invalid(model: Model):
    for obj in model.objects:
        if obj.group == RBAC_GROUP and obj.kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"):
            for path, problem in rbac_problems(obj):
                yield Hit(obj, path, f"{obj.label}: {problem}")
