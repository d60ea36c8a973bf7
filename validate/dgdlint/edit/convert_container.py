"""The container `main` of a converted v1alpha1 service: the service-level envs, envFromSecret, resources (gpu,
gpuType, custom) and probes merged into `mainContainer` as the operator merges them, `mainContainer` winning,
with the comments of what is left out kept on the key it joins."""

from __future__ import annotations

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dgdlint.edit.comments import Attached
from dgdlint.edit.convert_context import DEFAULT_GPU, Context
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


class ContainerMerges:
    """The merges of the service's fields into the container `main`, for the pod builder (its `ctx`, `service`,
    `name` and the service's pod-level `fields`)."""

    ctx: Context
    service: CommentedMap
    name: str
    fields: dict[str, object]

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
