"""The files a volume projects, as the API server validates them (written from Kubernetes' core validation,
v1.37: validateKeyToPath, validateProjectionSources): file modes, the items of a secret, config map or
downward API volume, and a projected volume's sources, each of one kind (a secret, a config map, downward
API files, a service account token, a cluster trust bundle or a pod certificate) with what that kind needs,
no two of them writing a file at one path."""

from __future__ import annotations

from dgdlint.model import as_list, as_map, as_str
from dgdlint.rules.downward import VOLUME_FIELDS, field_ref_problems, resource_ref_problems
from dgdlint.rules.selectors import selector_problems
from dgdlint.rules.syntax import (
    as_int,
    dns1123_label_problem,
    dns1123_subdomain_problem,
    non_reserved_path_problem,
    qualified_name_problem,
)

# The kinds of a projected source (VolumeProjection's fields), in the order the server reads them.
PROJECTIONS = ("secret", "configMap", "downwardAPI", "serviceAccountToken", "clusterTrustBundle", "podCertificate")
# On by default from Kubernetes 1.37 (ClusterTrustBundleProjection, PodCertificateRequest); before, the
# server drops these sources from a pod it creates, so they are neither read nor counted.
CERTIFICATE_KINDS = ("clusterTrustBundle", "podCertificate")
KEY_TYPES = ("RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519")
CERTIFICATE_PATHS = ("credentialBundlePath", "keyPath", "certificateChainPath")
# The longest maxExpirationSeconds: 91 days, or 24 hours for a signer of the Kubernetes project's.
MAX_EXPIRATION, KUBERNETES_MAX_EXPIRATION = 91 * 24 * 3600, 24 * 3600
USER_ANNOTATIONS_LIMIT = 256 * 1024  # bytes of keys and values together, as for an object's annotations


def mode_problem(value: object, where: tuple, name: str, highest: int = 0o777):
    if type(value) is int and not 0 <= value <= highest:
        yield where + (name,), f"{name} {value} is not a file mode from 0 to {highest:#o} (write it in octal, 0644)"


def items_problems(source: dict, where: tuple, downward: bool = False):
    """A secret's, config map's or (`downward`) downward API's items: paths inside the volume, file modes, and a
    downward API file's one field or resource (downward.py)."""
    for index, item in enumerate(as_list(source.get("items"))):
        item, at = as_map(item), where + ("items", index)
        if not downward and as_str(item.get("key")) == "":  # missing: the schema's to report
            yield at + ("key",), f"has a {where[-1]} item with an empty key (the key to project is required)"
        path = as_str(item.get("path"))
        if path is not None:
            problem = non_reserved_path_problem(path) if path else "is empty"
            if problem:
                yield at + ("path",), f"item path {path!r} {problem}"
        if downward:
            field, resource = isinstance(item.get("fieldRef"), dict), isinstance(item.get("resourceFieldRef"), dict)
            if field == resource:
                yield at, "downward API file names " + (
                    "fieldRef and resourceFieldRef; it takes one" if field else "neither fieldRef nor resourceFieldRef")
            else:
                problems = field_ref_problems(item["fieldRef"], VOLUME_FIELDS, at + ("fieldRef",)) if field else \
                    resource_ref_problems(item["resourceFieldRef"], at + ("resourceFieldRef",), volume=True)
                for place, problem in problems:
                    yield place, f"downward API file {path or index}: {problem}"
        yield from mode_problem(item.get("mode"), at, "mode")


def signer_name_problem(name: str) -> str | None:
    """Kubernetes' ValidateSignerName: a domain of at least two DNS labels, one '/', then DNS subdomains
    separated by '.' (each label and the domain of at most 63 and 253 characters), 571 characters in all."""
    if not name:
        return "is required"
    domain, slash, rest = name.partition("/")
    if not slash or "/" in rest:
        return "must be a domain and a path with one '/' between them (example.com/signer-name)"
    labels = domain.split(".")
    if len(domain) > 253 or len(labels) < 2 or any(dns1123_label_problem(label) for label in labels):
        return f"has a domain, {domain!r}, that is not two or more DNS labels of at most 253 characters"
    if any(dns1123_subdomain_problem(part) for part in rest.split(".")):
        return f"has a path, {rest!r}, that is not DNS subdomains separated by '.'"
    if len(name) > 253 + 253 + 63 + 2:
        return "must be no more than 571 characters"
    return None


def _trust_bundle_name_problem(name: str) -> str | None:
    """A ClusterTrustBundle's name: a DNS subdomain, or for a signer's bundle <signer with ':' for '/'>:<a DNS
    subdomain> (the signer read back from the name, so the part before the last ':' has no '/')."""
    signer, colon, rest = name.rpartition(":")
    if colon and "/" in signer:
        return f"must start with its signer name written with ':' for '/' ({signer.replace('/', ':')}:)"
    return dns1123_subdomain_problem(rest)


def _trust_bundle_problems(bundle: dict, at: tuple):
    named, signed = bundle.get("name") is not None, bundle.get("signerName") is not None
    if named and signed:
        yield at, "clusterTrustBundle names both a bundle (name) and a signerName; it takes one"
    elif named:
        name = as_str(bundle["name"]) or ""
        problem = _trust_bundle_name_problem(name) if name else None
        if not name:
            yield at + ("name",), "clusterTrustBundle has an empty name (a bundle's name is required)"
        elif problem:
            yield at + ("name",), f"clusterTrustBundle name {name!r} {problem}"
        if bundle.get("labelSelector") is not None:
            yield at + ("labelSelector",), "clusterTrustBundle takes a labelSelector only with a signerName, not a name"
    elif signed:
        signer = as_str(bundle["signerName"]) or ""
        problem = signer_name_problem(signer)
        if problem:
            yield at + ("signerName",), f"clusterTrustBundle signerName {signer!r} {problem}"
        for place, problem in selector_problems(bundle.get("labelSelector"), at + ("labelSelector",)):
            yield place, f"clusterTrustBundle has an invalid labelSelector: {problem}"
    else:
        yield at, "clusterTrustBundle names neither a bundle (name) nor a signerName"
    path = as_str(bundle.get("path"))
    if path == "":  # missing: the schema's to report
        yield at + ("path",), "clusterTrustBundle has an empty path (the file to write is required)"
    elif path and non_reserved_path_problem(path):
        yield at + ("path",), f"clusterTrustBundle path {path!r} {non_reserved_path_problem(path)}"


def _certificate_problems(certificate: dict, at: tuple):
    signer = as_str(certificate.get("signerName"))
    problem = signer_name_problem(signer) if signer is not None else None  # missing: the schema's
    if problem:
        yield at + ("signerName",), f"podCertificate signerName {signer!r} {problem}"
    annotations = certificate.get("userAnnotations")
    if isinstance(annotations, dict):
        for key in annotations:
            text = str(key).lower()  # read in lower case
            problem = qualified_name_problem(text) or (None if text.count("/") == 1 else "must have a domain prefix")
            if problem:
                yield at + ("userAnnotations", key), f"podCertificate userAnnotations key {str(key)!r} {problem}"
        size = sum(len(str(key).encode()) + len(str(value or "").encode()) for key, value in annotations.items())
        if size > USER_ANNOTATIONS_LIMIT:
            yield at + ("userAnnotations",), \
                f"podCertificate userAnnotations are {size} bytes long; at most {USER_ANNOTATIONS_LIMIT}"
    key_type = as_str(certificate.get("keyType"))
    if key_type is not None and key_type not in KEY_TYPES:
        yield at + ("keyType",), f"podCertificate keyType {key_type!r} is not one of {', '.join(KEY_TYPES)}"
    seconds = as_int(certificate.get("maxExpirationSeconds"))
    if seconds is not None:
        host = (signer or "").split("/", 1)[0]
        highest = KUBERNETES_MAX_EXPIRATION if host == "kubernetes.io" or host.endswith(".kubernetes.io") \
            else MAX_EXPIRATION
        if not 3600 <= seconds <= highest:
            yield at + ("maxExpirationSeconds",), f"podCertificate maxExpirationSeconds {seconds} is not between " \
                f"3600 (an hour) and {highest}" + (" (a day, for a kubernetes.io signer)" if highest < MAX_EXPIRATION
                                                   else " (91 days)")
    written = [name for name in CERTIFICATE_PATHS if as_str(certificate.get(name))]
    for name in written:
        problem = non_reserved_path_problem(certificate[name])
        if problem:
            yield at + (name,), f"podCertificate {name} {certificate[name]!r} {problem}"
    if not written:
        yield at, "podCertificate writes no file: set credentialBundlePath, keyPath or certificateChainPath"


def _file_paths(entry: dict, kind: str) -> list[tuple[str, tuple]]:
    """The files a projected source of `kind` writes: (path, where it is written)."""
    source = as_map(entry.get(kind))
    if kind in ("secret", "configMap", "downwardAPI"):
        return [(as_str(as_map(item).get("path")) or "", (kind, "items", index, "path"))
                for index, item in enumerate(as_list(source.get("items")))
                if as_str(as_map(item).get("path"))]
    if kind == "clusterTrustBundle":  # counted even when empty (refused on its own)
        return [(as_str(source.get("path")) or "", (kind, "path"))]
    if kind == "podCertificate":
        return [(as_str(source.get(name)) or "", (kind, name)) for name in CERTIFICATE_PATHS
                if as_str(source.get(name))]
    return []  # a service account token's path is not compared with the others'


def projected_problems(source: dict, where: tuple, certificates: bool = True):
    """A projected volume's sources; `certificates`: Kubernetes 1.37 or later, where the server keeps cluster
    trust bundles and pod certificates."""
    yield from mode_problem(source.get("defaultMode"), where, "defaultMode")
    paths: set[str] = set()
    kinds = PROJECTIONS if certificates else tuple(kind for kind in PROJECTIONS if kind not in CERTIFICATE_KINDS)
    for index, entry in enumerate(as_list(source.get("sources"))):
        entry, at = as_map(entry), where + ("sources", index)
        present = [kind for kind in kinds if entry.get(kind) is not None]  # null is unset
        if len(present) > 1:
            yield at, f"projected source names {' and '.join(present)}; a source takes one kind"
        for kind in ("secret", "configMap"):
            if isinstance(entry.get(kind), dict):
                if not as_str(entry[kind].get("name")):
                    yield at + (kind,), f"projected {kind} names no {kind}"
                yield from items_problems(entry[kind], at + (kind,))
        if isinstance(entry.get("downwardAPI"), dict):
            yield from items_problems(entry["downwardAPI"], at + ("downwardAPI",), downward=True)
        token = entry.get("serviceAccountToken")
        if isinstance(token, dict):
            seconds = token.get("expirationSeconds")  # unset: 3600, by default
            if type(seconds) is int and not 600 <= seconds <= 2**32:
                yield at + ("serviceAccountToken", "expirationSeconds"), \
                    f"serviceAccountToken expirationSeconds {seconds} is not between 600 (10 minutes) and 2^32"
            path = as_str(token.get("path")) or ""
            problem = non_reserved_path_problem(path) if path else "is required"
            if problem:
                yield at + ("serviceAccountToken", "path"), f"serviceAccountToken path {path!r} {problem}"
        if certificates and isinstance(entry.get("clusterTrustBundle"), dict):
            yield from _trust_bundle_problems(entry["clusterTrustBundle"], at + ("clusterTrustBundle",))
        if certificates and isinstance(entry.get("podCertificate"), dict):
            yield from _certificate_problems(entry["podCertificate"], at + ("podCertificate",))
        for kind in kinds:  # two files at one path, across the sources
            if not isinstance(entry.get(kind), dict):
                continue
            for path, place in _file_paths(entry, kind):
                if path in paths:
                    yield at + place, f"projects a second file at {path!r}"
                paths.add(path)
