"""A component's or a workload's pod settings: its PodSpec, wherever the API shape puts it (a template's
spec, a v1alpha1 service's extraPodSpec), read as the pods will have it."""

from __future__ import annotations

from dataclasses import dataclass

from dgdlint.model.objects import KObject, as_list, as_map, as_str


@dataclass
class PodSettings:
    """The pod-level settings of a component or workload: its PodSpec, wherever the API shape puts it."""

    obj: KObject
    path: tuple  # the PodSpec's path (for v1alpha1, extraPodSpec)
    spec: dict

    def field_path(self, name: str) -> tuple:
        return self.path + (name,)

    @property
    def metadata_path(self) -> tuple:
        """Where the metadata written for the pods is: the template's (a Pod's own), a v1alpha1 service's
        extraPodMetadata."""
        return self.path[:-1] + (("extraPodMetadata",) if self.path[-1:] == ("extraPodSpec",) else ("metadata",))

    @property
    def node_selector(self) -> dict:
        return as_map(self.spec.get("nodeSelector"))

    @property
    def tolerations(self) -> list:
        return as_list(self.spec.get("tolerations"))

    @property
    def affinity(self) -> dict:
        return as_map(self.spec.get("affinity"))

    @property
    def topology_spread_constraints(self) -> list:
        return as_list(self.spec.get("topologySpreadConstraints"))

    @property
    def image_pull_secrets(self) -> list[str]:
        names = []
        for entry in as_list(self.spec.get("imagePullSecrets")):
            name = as_str(as_map(entry).get("name"))
            if name:
                names.append(name)
        return names

    @property
    def service_account(self) -> str | None:
        return as_str(self.spec.get("serviceAccountName")) or as_str(self.spec.get("serviceAccount"))

    @property
    def node_name(self) -> str | None:
        return as_str(self.spec.get("nodeName"))

    def volumes(self) -> dict[str, tuple[dict, tuple]]:
        out = {}
        for index, volume in enumerate(as_list(self.spec.get("volumes"))):
            name = as_str(as_map(volume).get("name"))
            if name:
                out[name] = (as_map(volume), self.path + ("volumes", index))
        return out

    def mountable(self) -> dict[str, tuple[dict, tuple]]:
        """The volumes a container may mount or use as a device: the pod's, and for a StatefulSet each of its
        volumeClaimTemplates, which the API server validates the pod template with as a persistentVolumeClaim
        volume of the template's name (each pod gets its own claim of it)."""
        out = self.volumes()
        if self.obj.kind == "StatefulSet":
            templates = as_list(as_map(self.obj.value.get("spec")).get("volumeClaimTemplates"))
            for index, template in enumerate(templates):
                name = as_str(as_map(as_map(template).get("metadata")).get("name"))
                if name and name not in out:
                    out[name] = ({"name": name, "persistentVolumeClaim": {"claimName": name}},
                                 ("spec", "volumeClaimTemplates", index))
        return out
