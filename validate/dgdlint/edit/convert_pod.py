"""The pod template of a converted v1alpha1 service: `extraPodSpec` with `mainContainer` as the container
named `main`, into which the service-level envs, envFromSecret, resources (gpu, gpuType, custom), volume
mounts (each with its pod volume) and probes are merged as the operator merges them, `mainContainer`
winning; `extraPodMetadata` becomes the template's metadata, a frontend sidecar a container of its own."""

from __future__ import annotations

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dgdlint.edit.convert_container import ContainerMerges
from dgdlint.edit.convert_context import FRONTEND_SIDECAR, MAIN, Context, is_true
from dgdlint.edit.convert_context import as_map as _map
from dgdlint.edit.convert_context import as_seq as _seq


class PodBuilder(ContainerMerges):
    """The pod template being assembled from the service's pod-level fields."""

    def __init__(self, ctx: Context, service: CommentedMap, name: str):
        self.ctx, self.service, self.name = ctx, service, name
        self.fields: dict[str, object] = {}
        self.cache: CommentedMap | None = None  # a volumeMount flagged useAsCompilationCache
        self.sidecar = False

    def take(self, key: str, value) -> None:
        self.fields[key] = value

    def build(self) -> CommentedMap | None:
        ctx, service = self.ctx, self.service
        extra = _map(self.fields.get("extraPodSpec")) or CommentedMap()
        main = CommentedMap()
        main["name"] = MAIN
        given = _map(extra.get("mainContainer"))
        if given is not None:
            for key in list(given.keys()):
                if key == "name":
                    ctx.table.pop(given, key)
                    continue
                main[key] = given[key]
                ctx.table.move(given, key, main, key)
        self._env(main)
        self._env_from(main)
        self._resources(main)
        spec = CommentedMap()
        for key in list(extra.keys()):
            if key in ("mainContainer", "containers"):
                spec.setdefault("containers", None)  # the list's place: where the source had it
                if key == "containers":
                    ctx.table.move(extra, key, spec, "containers")
            else:
                spec[key] = extra[key]
                ctx.table.move(extra, key, spec, key)
        if "containers" not in spec:
            spec.insert(0, "containers", None)
        self._mounts(main, spec)
        for probe in ("livenessProbe", "readinessProbe"):
            if probe in self.fields:
                self._probe(main, probe)
        containers = CommentedSeq([main])
        ctx.table.move(extra, "mainContainer", containers, 0)
        for index, container in enumerate(_seq(extra.get("containers")) or []):
            if _map(container) and str(container.get("name")) == MAIN:
                ctx.drop(extra["containers"], index, "a second container named main; mainContainer is the one "
                                                     "the operator runs")
                continue
            ctx.table.move(extra["containers"], index, containers, len(containers))
            containers.append(container)
        self._frontend_sidecar(containers)
        metadata = _map(self.fields.get("extraPodMetadata"))
        if len(main) == 1 and len(containers) == 1 and list(spec.keys()) == ["containers"] and metadata is None:
            return None  # nothing for the pod: the operator's defaults, as without a podTemplate
        spec["containers"] = containers
        template = CommentedMap()
        if metadata is not None:
            template["metadata"] = metadata
            ctx.table.move(service, "extraPodMetadata", template, "metadata")
        template["spec"] = spec
        ctx.table.move(service, "extraPodSpec", template, "spec")
        return template

    def _mounts(self, main: CommentedMap, spec: CommentedMap) -> None:
        mounts = _seq(self.fields.get("volumeMounts"))
        if mounts is None:
            return
        table = self.ctx.table
        own = _seq(main.get("volumeMounts"))
        out = own if own is not None else CommentedSeq()
        volumes = _seq(spec.get("volumes"))
        names = {str(v.get("name")) for v in volumes or [] if _map(v)}
        for index, mount in enumerate(mounts):
            if not _map(mount) or not mount.get("name"):
                self.ctx.drop(mounts, index, f"{self.name}: volumeMounts[{index}] names no PVC")
                continue
            if is_true(mount.get("useAsCompilationCache")):
                self._compilation_cache(mounts, index, mount)
                continue
            if not mount.get("mountPoint"):
                self.ctx.note("error", "convert-mount-point-missing", mounts, index,
                              f"{self.name}: volumeMounts[{index}] ({mount['name']}) has no mountPoint; a v1beta1 "
                              "container mount needs mountPath. Add the mountPoint, then convert")
                continue
            entry = CommentedMap()
            entry["name"] = mount["name"]
            entry["mountPath"] = mount["mountPoint"]
            table.move(mount, "name", entry, "name")
            table.move(mount, "mountPoint", entry, "mountPath")
            table.move(mounts, index, out, len(out))
            out.append(entry)
            if str(mount["name"]) not in names:
                volume = CommentedMap()
                volume["name"] = mount["name"]
                volume["persistentVolumeClaim"] = CommentedMap([("claimName", mount["name"])])
                if volumes is None:
                    volumes = spec["volumes"] = CommentedSeq()
                volumes.append(volume)
                names.add(str(mount["name"]))
        if out:
            main["volumeMounts"] = out
            table.move(self.service, "volumeMounts", main, "volumeMounts")

    def _compilation_cache(self, mounts, index, mount) -> None:
        self.ctx.note("info", "convert-compilation-cache", mounts, index,
                      f"{self.name}: volumeMounts[{index}] is the compilation cache: component.compilationCache")
        self.cache = CommentedMap([("pvcName", mount["name"])])
        if mount.get("mountPoint"):
            self.cache["mountPath"] = mount["mountPoint"]

    def _frontend_sidecar(self, containers: CommentedSeq) -> None:
        sidecar = _map(self.fields.get("frontendSidecar"))
        if sidecar is None:
            return
        container = CommentedMap([("name", FRONTEND_SIDECAR)])
        for source, target in (("image", "image"), ("args", "args"), ("envs", "env")):
            if source in sidecar:
                container[target] = sidecar[source]
                self.ctx.table.move(sidecar, source, container, target)
        if sidecar.get("envFromSecret"):
            container["envFrom"] = CommentedSeq([CommentedMap([("secretRef", CommentedMap(
                [("name", sidecar["envFromSecret"])]))])])
            self.ctx.table.move(sidecar, "envFromSecret", container, "envFrom")
        self.ctx.table.move(self.service, "frontendSidecar", containers, len(containers))
        containers.append(container)
        self.sidecar = True
