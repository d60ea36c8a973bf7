"""The pod template of a converted v1alpha1 service: `extraPodSpec` with `mainContainer` as the container
named `main`, into which the service-level envs, envFromSecret, resources (gpu, gpuType, custom), volume
mounts (each with its pod volume) and probes are merged as the operator merges them, `mainContainer`
winning; `extraPodMetadata` becomes the template's metadata, a frontend sidecar a container of its own."""

from __future__ import annotations

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dgdlint.edit.comments import Attached
from dgdlint.edit.convert_context import DEFAULT_GPU, FRONTEND_SIDECAR, MAIN, Context, is_true
from dgdlint.edit.convert_context import as_map as _map
from dgdlint.edit.convert_context import as_seq as _seq
from dgdlint.go_merge import INT_OR_STRING_PORTS, go_zero
from dgdlint.quantity import parse_quantity


def _valid_quantity(value) -> bool:
    try:
        parse_quantity(str(value))
    except (ValueError, TypeError, ArithmeticError):
        return False
    return True


PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_empty = go_zero  # whether mergo counts a value as empty (isEmptyValue): it never overrides


def _merge_over(ctx: Context, base: CommentedMap, over: CommentedMap, parent: str) -> None:
    """`base` merged into `over` in place as mergo.Merge(base, over, WithOverride) merges two structs: a key
    only in `base` is added, two mappings are merged key by key, and at a leaf `over` wins unless its value
    is empty. An IntOrString port is a struct to mergo: a number over a name sets only IntVal, the Type
    stays String, and the name is what the result says. The comments of a value left out go to its key."""
    for key in list(base.keys()):
        value = base[key]
        if key not in over:
            over[key] = value
        elif _map(value) is not None and _map(over[key]) is not None:
            _merge_over(ctx, value, over[key], str(key))
        elif _empty(over[key]) or (parent in INT_OR_STRING_PORTS and key == "port" and isinstance(value, str)
                                   and isinstance(over[key], int) and not isinstance(over[key], bool)):
            for attached in ctx.table.pop_under(over[key]):
                _join(ctx, attached, over, key)
            over[key] = value
        else:
            for attached in ctx.table.pop_under(value):
                _join(ctx, attached, over, key)
        _join(ctx, ctx.table.pop(base, key), over, key)


def _join(ctx: Context, attached: Attached | None, container, key) -> None:
    """Comments onto a key that may have its own: an end-of-line comment joins as a line above, where the
    key's own end-of-line comment cannot hide it."""
    if attached is None:
        return
    if ctx.table.get(container, key) is not None and attached.eol:
        attached = Attached(above=attached.above + [(0, attached.eol[1])])
    ctx.table.put(container, key, attached)


class PodBuilder:
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

    def _env(self, main: CommentedMap) -> None:
        envs = _seq(self.fields.get("envs"))
        if envs is None:
            return
        merged = CommentedSeq()
        for index, entry in enumerate(envs):
            self.ctx.table.move(envs, index, merged, len(merged))
            merged.append(entry)
        own = _seq(main.get("env"))
        for index, entry in enumerate(own or []):
            name = str(entry.get("name")) if _map(entry) else None
            at = next((i for i, e in enumerate(merged) if _map(e) and str(e.get("name")) == name), None)
            if at is None:
                self.ctx.table.move(own, index, merged, len(merged))
                merged.append(entry)
            else:
                self.ctx.note("info", "convert-env-merged", own, index,
                              f"{name} is set in envs and in mainContainer.env; mainContainer's value is kept, "
                              "as the operator merges them")
                self.ctx.table.pop(merged, at)
                self.ctx.table.move(own, index, merged, at)
                merged[at] = entry
        self.ctx.table.move(self.service, "envs", main, "env")
        main["env"] = merged

    def _env_from(self, main: CommentedMap) -> None:
        secret = self.fields.get("envFromSecret")
        if secret in (None, ""):
            if "envFromSecret" in self.fields:
                self.ctx.table.pop(self.service, "envFromSecret")
            return
        entry = CommentedMap()
        entry["secretRef"] = CommentedMap([("name", secret)])
        if _empty(main.get("envFrom")):
            main["envFrom"] = CommentedSeq([entry])
            self.ctx.table.move(self.service, "envFromSecret", main, "envFrom")
        else:  # mergo lets mainContainer's non-empty slice replace the one built from envFromSecret
            self.ctx.drop(self.service, "envFromSecret",
                          f"{self.name}: envFromSecret {str(secret)!r} is not used: mainContainer.envFrom replaces it "
                          "when the operator merges the two; add its secretRef to mainContainer.envFrom to keep it")

    def _probe(self, main: CommentedMap, probe: str) -> None:
        """The service's probe with mainContainer's merged over it, as mergeExtraPodSpecMainContainer merges
        (mergo WithOverride): field by field, a non-empty field of mainContainer winning."""
        ctx, given = self.ctx, self.fields[probe]
        own = main.get(probe)
        if _empty(own) or _map(given) is None or _map(own) is None:
            if _empty(own) and not _empty(given):
                main[probe] = given
            ctx.table.move(self.service, probe, main, probe)
            return
        _merge_over(ctx, given, own, probe)
        handlers = [key for key in PROBE_HANDLERS if not _empty(own.get(key))]
        if len(handlers) > 1:
            ctx.note("warning", "convert-probe-merged", self.service, probe,
                     f"{self.name}: {probe} is set on the service and on mainContainer: the operator merges them "
                     f"field by field into one probe with {' and '.join(handlers)}, which the API server refuses (a "
                     "probe has one handler); keep one of them")
        else:
            ctx.note("info", "convert-probe-merged", self.service, probe,
                     f"{self.name}: {probe} is set on the service and on mainContainer: merged field by field, "
                     "mainContainer's fields winning, as the operator merges them")
        _join(ctx, ctx.table.pop(self.service, probe), main, probe)

    def _resources(self, main: CommentedMap) -> None:
        given = _map(self.fields.get("resources"))
        if given is None:
            return
        out = _map(main.get("resources")) or CommentedMap()
        for table_name in list(given.keys()):
            source = given[table_name]
            if table_name == "claims":
                out.setdefault("claims", source)
                self.ctx.table.move(given, table_name, out, "claims")
                continue
            if table_name not in ("requests", "limits") or not _map(source):
                self.ctx.drop(given, table_name, f"resources.{table_name} is not a v1alpha1 resources field")
                continue
            target = _map(out.get(table_name))
            table = CommentedMap()
            for key in list(source.keys()):
                value = source[key]
                if key == "gpuType":
                    self.ctx.table.pop(source, key)
                    continue
                names = ([(str(k), v, value) for k, v in value.items()] if key == "custom" and _map(value)
                         else [(str(source.get("gpuType") or DEFAULT_GPU) if key == "gpu" else str(key), value,
                                source)])
                for resource, quantity, holder in names:
                    where = key if holder is source else resource
                    if not _valid_quantity(quantity):
                        self.ctx.drop(holder, where, f"{self.name}: resources.{table_name}.{where} {quantity!r} is "
                                                     "not a quantity; the operator ignores it, so it is left out")
                        continue
                    if target is not None and resource in target:
                        self.ctx.drop(holder, where, f"{self.name}: {resource} is also in mainContainer's "
                                                     f"resources.{table_name}, which the operator uses", "info")
                        continue
                    table[resource] = quantity
                    self.ctx.table.move(holder, where, table, resource)
                if key == "custom":
                    self.ctx.table.pop(source, key)
            if target is not None:
                for key in list(target.keys()):
                    table[key] = target[key]
                    self.ctx.table.move(target, key, table, key)
            if table:
                out[table_name] = table
                self.ctx.table.move(given, table_name, out, table_name)
        if out:
            main["resources"] = out
            self.ctx.table.move(self.service, "resources", main, "resources")

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
