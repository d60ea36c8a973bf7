"""The checked syntax tree cel-expr-python makes of an expression (Expression.serialize(): a cel.expr.CheckedExpr
in a google.protobuf.Any), read through protobuf, so that a check of cel-go's that cel-cpp does not make can be
made over the types cel-cpp's checker gave each node.

Only the part of cel-spec's checked.proto and syntax.proto that is read here is declared (the field numbers
are cel-spec's); protobuf keeps the rest as unknown fields. The one check made is cel-go's homogeneous
aggregate literal validator, which the Kubernetes CEL environment turns on: every element of a list literal,
and every key and every value of a map literal, must be of one type (types compared as cel-go's
IsEquivalentType compares them: a dyn is not an int), except inside a call of `format` or `cel.@block`."""

from __future__ import annotations

from functools import lru_cache

# message: [(field, number, type or message, repeated)]; cel.expr's names and numbers.
_SCHEMA = {
    "CheckedExpr": [("type_map", 3, "TypeMapEntry", True), ("expr", 4, "Expr", False)],
    "TypeMapEntry": [("key", 1, "int64", False), ("value", 2, "Type", False)],
    "Empty": [],
    "Type": [("dyn", 1, "Empty", False), ("null", 2, "int32", False), ("primitive", 3, "int32", False),
             ("wrapper", 4, "int32", False), ("well_known", 5, "int32", False), ("list_type", 6, "ListType", False),
             ("map_type", 7, "MapType", False), ("message_type", 9, "string", False),
             ("type_param", 10, "string", False), ("type", 11, "Type", False), ("error", 12, "Empty", False),
             ("abstract_type", 14, "AbstractType", False)],
    "ListType": [("elem_type", 1, "Type", False)],
    "MapType": [("key_type", 1, "Type", False), ("value_type", 2, "Type", False)],
    "AbstractType": [("name", 1, "string", False), ("parameter_types", 2, "Type", True)],
    "Expr": [("id", 2, "int64", False), ("select_expr", 5, "Select", False), ("call_expr", 6, "Call", False),
             ("list_expr", 7, "CreateList", False), ("struct_expr", 8, "CreateStruct", False),
             ("comprehension_expr", 9, "Comprehension", False)],
    "Select": [("operand", 1, "Expr", False)],
    "Call": [("target", 1, "Expr", False), ("function", 2, "string", False), ("args", 3, "Expr", True)],
    "CreateList": [("elements", 1, "Expr", True), ("optional_indices", 2, "int32", True)],
    "CreateStruct": [("message_name", 1, "string", False), ("entries", 2, "Entry", True)],
    "Entry": [("map_key", 3, "Expr", False), ("value", 4, "Expr", False), ("optional_entry", 5, "bool", False)],
    "Comprehension": [("iter_range", 2, "Expr", False), ("accu_init", 4, "Expr", False),
                      ("loop_condition", 5, "Expr", False), ("loop_step", 6, "Expr", False),
                      ("result", 7, "Expr", False)],
}
# The messages whose fields but `id` make one oneof, named `kind` here (cel.expr's type_kind, expr_kind).
_ONEOF = ("Type", "Expr")
_PACKAGE = "dgdlint.celexpr"
_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "timestamp", 3: "duration"}
# Calls whose arguments cel-go's validator does not look into (the strings extension's format, cel.@block).
EXEMPT_FUNCTIONS = frozenset(("format", "cel.@block"))


@lru_cache(maxsize=1)
def _checked_expr_class():
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    scalar = descriptor_pb2.FieldDescriptorProto
    kinds = {"int64": scalar.TYPE_INT64, "int32": scalar.TYPE_INT32, "string": scalar.TYPE_STRING,
             "bool": scalar.TYPE_BOOL}
    file = descriptor_pb2.FileDescriptorProto(name="dgdlint_celexpr.proto", package=_PACKAGE, syntax="proto3")
    for name, fields in _SCHEMA.items():
        message = file.message_type.add(name=name)
        if name in _ONEOF:
            message.oneof_decl.add(name="kind")
        for field, number, kind, repeated in fields:
            entry = message.field.add(name=field, number=number, json_name=field,
                                      label=scalar.LABEL_REPEATED if repeated else scalar.LABEL_OPTIONAL)
            if name in _ONEOF and field != "id":
                entry.oneof_index = 0
            if kind in kinds:
                entry.type = kinds[kind]
            else:
                entry.type, entry.type_name = scalar.TYPE_MESSAGE, f".{_PACKAGE}.{kind}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.CheckedExpr"))


def checked(serialized: bytes):
    """The CheckedExpr of Expression.serialize() (a google.protobuf.Any: field 2 holds the message); None for
    a tree nested deeper than protobuf reads (100 messages)."""
    from google.protobuf import any_pb2
    from google.protobuf.message import DecodeError

    try:
        return _checked_expr_class().FromString(any_pb2.Any.FromString(serialized).value)
    except DecodeError:
        return None


def type_name(kind, param: str | None = None) -> str:
    """A checked type as cel-go's FormatCELType writes it (int, list(string), map(string, int), ...); with
    `param`, every type parameter written so (cel-go's IsEquivalentType takes any two as alike)."""
    which = kind.WhichOneof("kind")
    if which == "primitive":
        return _PRIMITIVES.get(kind.primitive, "?")
    if which == "wrapper":
        return f"wrapper({_PRIMITIVES.get(kind.wrapper, '?')})"
    if which == "well_known":
        return _WELL_KNOWN.get(kind.well_known, "?")
    if which == "list_type":
        return f"list({type_name(kind.list_type.elem_type, param)})"
    if which == "map_type":
        return f"map({type_name(kind.map_type.key_type, param)}, {type_name(kind.map_type.value_type, param)})"
    if which == "abstract_type":
        parameters = [type_name(p, param) for p in kind.abstract_type.parameter_types]
        return kind.abstract_type.name + (f"({', '.join(parameters)})" if parameters else "")
    if which == "type":
        return f"type({type_name(kind.type, param)})"
    if which == "type_param":
        return param or kind.type_param
    if which == "message_type":
        return kind.message_type
    return which or "dyn"  # dyn, null, error


def mixed_literal(tree) -> tuple[str, str] | None:
    """The first (expected, found) types of a list or map literal of mixed types in a CheckedExpr, as cel-go's
    homogeneous aggregate literal validator reports it; None when every literal is of one type."""
    types = {entry.key: entry.value for entry in tree.type_map}  # a map on the wire: its entries

    def typed(expr, is_optional: bool = False):
        kind = types.get(expr.id)
        if is_optional and kind is not None and kind.WhichOneof("kind") == "abstract_type" \
                and kind.abstract_type.parameter_types:
            kind = kind.abstract_type.parameter_types[0]  # `?x` in a literal: the optional's value
        return kind

    def mismatch(kinds: list) -> tuple[str, str] | None:
        if not kinds or None in kinds:  # an empty literal, or a node cel-cpp did not type
            return None
        first = type_name(kinds[0], param="_")
        return next(((type_name(kinds[0]), type_name(k)) for k in kinds if type_name(k, param="_") != first), None)

    for expr, exempt in _walk(tree.expr, False):
        if exempt:
            continue
        if expr.HasField("list_expr"):
            optional_at = set(expr.list_expr.optional_indices)
            found = mismatch([typed(e, i in optional_at) for i, e in enumerate(expr.list_expr.elements)])
        elif expr.HasField("struct_expr") and not expr.struct_expr.message_name:
            entries = expr.struct_expr.entries
            found = mismatch([typed(e.map_key) for e in entries]) or \
                mismatch([typed(e.value, e.optional_entry) for e in entries])
        else:
            continue
        if found:
            return found
    return None


def _walk(expr, exempt: bool):
    """Every node under `expr` (itself first), each with whether it is inside an exempt call."""
    stack = [(expr, exempt)]
    while stack:
        node, inside = stack.pop()
        yield node, inside
        which = node.WhichOneof("kind")
        children = []
        if which == "select_expr":
            children = [node.select_expr.operand]
        elif which == "call_expr":
            inside = inside or node.call_expr.function in EXEMPT_FUNCTIONS
            call = node.call_expr
            children = ([call.target] if call.HasField("target") else []) + list(call.args)
        elif which == "list_expr":
            children = list(node.list_expr.elements)
        elif which == "struct_expr":
            for entry in node.struct_expr.entries:
                children += ([entry.map_key] if entry.HasField("map_key") else []) + [entry.value]
        elif which == "comprehension_expr":
            c = node.comprehension_expr
            children = [c.iter_range, c.accu_init, c.loop_condition, c.loop_step, c.result]
        stack.extend((child, inside) for child in reversed(children))
