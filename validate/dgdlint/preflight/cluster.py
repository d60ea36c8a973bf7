"""Reading the cluster for preflight: get and list through the `kubernetes` client (current kube context
or a kubeconfig file), answers as plain dicts, None for a 404. Reads only; a Secret's values never leave
`secret_keys`."""

from __future__ import annotations


class ClusterError(Exception):
    """The cluster could not be reached or read (no context, refused, forbidden)."""


class Cluster:
    """Get and list through the `kubernetes` client, as plain dicts; None for a 404."""

    def __init__(self, kubeconfig: str | None = None, context: str | None = None):
        try:
            from kubernetes import client, config
        except ImportError:
            raise ClusterError("preflight needs the kubernetes client: pip install 'dgdlint[cluster]'") from None
        try:
            self.api = config.new_client_from_config(config_file=kubeconfig, context=context, persist_config=False)
        except Exception as error:
            where = kubeconfig or "$KUBECONFIG or ~/.kube/config"
            raise ClusterError(f"no usable kube context in {where}: {' '.join(str(error).split())}") from None
        self.client = client
        self.server = self.api.configuration.host

    def _call(self, what: str, method, *args):
        from kubernetes.client.exceptions import ApiException

        try:
            return self.api.sanitize_for_serialization(method(*args))
        except ApiException as error:
            if error.status == 404:
                return None
            raise ClusterError(f"reading {what}: {error.status} {error.reason}") from None
        except Exception as error:  # connection refused, TLS, DNS: all mean the cluster is not reachable
            raise ClusterError(f"reading {what}: {' '.join(str(error).split())[:300]}") from None

    def crd(self, name: str) -> dict | None:
        return self._call(f"CRD {name}", self.client.ApiextensionsV1Api(self.api).read_custom_resource_definition, name)

    def namespace(self, name: str) -> dict | None:
        return self._call(f"namespace {name}", self.client.CoreV1Api(self.api).read_namespace, name)

    def secret_keys(self, namespace: str, name: str) -> tuple[str, set[str]] | None:
        """(type, key names) of a Secret; its values are dropped here and never leave this method."""
        secret = self._call(f"secret {namespace}/{name}", self.client.CoreV1Api(self.api).read_namespaced_secret,
                            name, namespace)
        if secret is None:
            return None
        return secret.get("type") or "Opaque", set(secret.get("data") or {}) | set(secret.get("stringData") or {})

    def claim(self, namespace: str, name: str) -> dict | None:
        return self._call(f"claim {namespace}/{name}",
                          self.client.CoreV1Api(self.api).read_namespaced_persistent_volume_claim, name, namespace)

    def volume(self, name: str) -> dict | None:
        return self._call(f"persistent volume {name}", self.client.CoreV1Api(self.api).read_persistent_volume, name)

    def volumes(self) -> list[dict]:
        return (self._call("persistent volumes", self.client.CoreV1Api(self.api).list_persistent_volume) or {})\
            .get("items", [])

    def storage_classes(self) -> list[dict]:
        return (self._call("storage classes", self.client.StorageV1Api(self.api).list_storage_class) or {})\
            .get("items", [])

    def priority_class(self, name: str) -> dict | None:
        return self._call(f"priority class {name}", self.client.SchedulingV1Api(self.api).read_priority_class, name)

    def nodes(self) -> list[dict]:
        return (self._call("nodes", self.client.CoreV1Api(self.api).list_node) or {}).get("items", [])

    def served_objects(self, group: str, version: str, plural: str, namespace: str | None = None) -> list[dict] | None:
        """The objects of a kind, of any API group, through the generic client; None when the cluster does
        not serve that group, version and kind."""
        api = self.client.CustomObjectsApi(self.api)
        found = self._call(f"{plural}.{group}/{version}", api.list_namespaced_custom_object, group, version,
                           namespace, plural) if namespace else \
            self._call(f"{plural}.{group}/{version}", api.list_cluster_custom_object, group, version, plural)
        return None if found is None else found.get("items", [])
