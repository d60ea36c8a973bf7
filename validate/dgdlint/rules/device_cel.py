"""A device selector's CEL expression as the API server compiles it on create (written from Kubernetes 1.37's
resource validation and k8s.io/dynamic-resource-allocation/cel): at most 10 KiB of text, then compiled in
the DRA environment, where the one variable is `device` (driver, attributes, capacity and, with the
DRAConsumableCapacity gate that is on in 1.37, allowMultipleAllocations), and the result must be a bool
(or an attribute's value, whose type is known only when the device is read).

The compiler here is cel-expr-python (cel-cpp), not cel-go, and it does not hold every library Kubernetes
adds (semver, ip, cidr, url, format, sets, two-variable comprehensions, ...). So only what both compilers
refuse alike is reported: text that does not parse, a name that is neither `device` nor anything the
Kubernetes environment declares, a field a device does not have (device.attribute), a quantity beside an
ordering operator (Kubernetes' Quantity has none), a type error (no overload of an operator, a standard
function or a quantity function for the types given, or for the number of arguments or the receiver given:
`device.driver == null`, a capacity compared with an int, `q.asInteger(1)`, `q.sign()` where Kubernetes
has sign(q); a comprehension over an attribute), a list or map literal of mixed types (`[1, "a"]`,
`[1, device.attributes[D].x]`: cel-go's homogeneous aggregate literals, which Kubernetes turns on and
cel-cpp does not have, checked over the types cel-cpp's checker gave the syntax tree, cel_ast.py), and a
result of a known type other than bool (a dyn among them). The device's fields are typed as the server
types them: driver a string, allowMultipleAllocations a bool, attributes a map of maps of `any` (cel-go's
AnyType: `device.attributes[D].model == 1` is taken, a comprehension over one is not), and capacity a map
of maps of the opaque kubernetes.Quantity. An int, a uint and a double are ordered with one another
(<, <=, >, >=) as cel-go's cross-type numeric comparisons order them, declared here as cel-go declares
them (`(1 < 2.0) + 1` is then a type error, as on the server; `1 == 1.0` is one on both).

Not reported: an error that may come of a library missing here (an unknown function of Kubernetes'
libraries, an overload of a function Kubernetes extends, such as a list's indexOf); an expression nested
deeper than cel-cpp's parser goes (32 levels, where cel-go goes to about 250). The server's cost limit
(cel-go's worst-case estimate, at most 1,000,000) is not estimated here: cel-expr-python has no estimator,
and the README lists it among what only a live cluster checks. With the DRAListTypeAttributes gate on, the
server types an attribute as dyn, not any (that alpha gate is off by default in 1.37): a comprehension over
one is then taken (and still refused here)."""

from __future__ import annotations

import re
from functools import lru_cache

from dgdlint.rules import cel_ast

MAX_EXPRESSION = 10 * 1024  # CELSelectorExpressionMaxLength, counted in bytes as Go's len() counts them

# Every name the Kubernetes 1.37 CEL environment declares beyond the standard library and `device`: its own
# libraries (lists, regex, urls, quantity, ip, cidr, format, semver, authz), cel-go's extensions it loads
# (strings, sets, lists, two-variable comprehensions, bindings, optional types) and their namespaces. An
# undeclared reference to one of these is a gap of the compiler here, never the user's mistake.
KUBERNETES_NAMES = frozenset("""
    isSorted sum min max indexOf lastIndexOf includes find findAll url isURL getScheme getHost getHostname
    getPort getEscapedPath getQuery quantity isQuantity sign isGreaterThan isLessThan compareTo add sub
    isInteger asInteger asApproximateFloat ip isIP isCanonical family isUnspecified isLoopback
    isLinkLocalMulticast isLinkLocalUnicast isGlobalUnicast cidr isCIDR containsIP containsCIDR prefixLength
    masked semver isSemver major minor patch authorizer path group resource namespace name subresource check
    allowed reason errored error serviceAccount fieldSelector labelSelector validate named charAt lowerAscii
    upperAscii replace split substring trim join quote format reverse distinct flatten range slice sort sortBy
    first last all exists existsOne exists_one transformList transformMap transformMapEntry map filter bind
    hasValue value orValue or optMap optFlatMap of none ofNonZeroValue unwrap
    sets lists strings optional cel math
""".split())
_UNDECLARED = re.compile(r"undeclared reference to '([^']+)'")
DEVICE_FIELDS = ("driver", "attributes", "capacity", "allowMultipleAllocations")
# String literals of CEL (raw or bytes, single or triple quoted), blanked before the text is searched.
_STRINGS = re.compile(r"""[rRbB]{0,2}(?:'{3}.*?'{3}|"{3}.*?"{3}|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")""", re.S)
_DEVICE_FIELD = re.compile(r"(?<![\w.])device\s*\.\s*([A-Za-z_]\w*)")
# A capacity (always a Quantity) or a quantity() call beside an ordering operator: Kubernetes' Quantity has
# none in CEL (compareTo, isGreaterThan and isLessThan compare quantities).
_QUANTITY = r"(?:device\s*\.\s*capacity\s*\[[^\]]*\]\s*\.\s*[A-Za-z_]\w*|quantity\s*\([^()]*\))"
_ORDERED = re.compile(rf"{_QUANTITY}\s*(?:<=|>=|<|>)|(?:<=|>=|(?<![<>=!-])<|(?<![<>=!-])>)\s*{_QUANTITY}")
# cel-cpp's parser refuses an expression nested deeper than 32 levels; the server's (cel-go) takes some 250
# (checked: 120 parentheses deep are taken, 260 refused), so such an expression is not judged here.
# cel-cpp says it two ways: parentheses nested (recursion limit exceeded) and operators chained, such as a sum
# of 40 terms (Exceeded max recursion depth of 32); cel-go takes both.
_RECURSION = re.compile(r"recursion limit exceeded|Exceeded max recursion depth")
# A comprehension (all, exists, map, ...) over an attribute, of type any in the server's environment.
_RANGE = re.compile(r"expression of type '([^']+)' cannot be the range of a comprehension")
_OVERLOAD = re.compile(r"found no matching overload for '([^']+)' applied to '\((.*)\)'")
# The functions whose every overload the server has is declared here alike (CEL's operators and standard
# functions, the quantity library, cel-go's strings extension but indexOf and lastIndexOf, which
# Kubernetes' list library extends with list<A>.indexOf(A): an overload of a type parameter, which
# cel-expr-python's Overload does not declare): no overload of one of these is the user's mistake.
CHECKED_FUNCTIONS = frozenset("""
    _==_ _!=_ _<_ _<=_ _>_ _>=_ _+_ _-_ _*_ _/_ _%_ !_ -_ _&&_ _||_ _?_:_ _[_] @in
    size contains startsWith endsWith matches string int uint double bytes bool timestamp duration
    quantity isQuantity sign compareTo isGreaterThan isLessThan add sub isInteger asInteger asApproximateFloat
    charAt lowerAscii upperAscii replace split substring trim join
""".split())
# has(device.FIELD): cel-cpp types it as the field (the fields are declared by their full names), the
# server as a bool that is always true (every field is there): compiled as `true`.
_HAS_FIELD = re.compile(r"has\s*\(\s*device\s*\.\s*(?:" + "|".join(DEVICE_FIELDS) + r")\s*\)")
_ERROR_LINE = re.compile(r"ERROR: <input>:\d+:\d+: (.*?)(?= \| |$)")


class _Compilers:
    """Two environments: `device` with its fields declared by their full names (so that `device.driver` is
    a string, as in Kubernetes), and `device` as a plain map, which the first falls back on for any other
    field and which parses the text. cel-cpp types `has(device.driver)` by the field in the first, so it
    is compiled as `true` there (_has_fields_as_true)."""

    def __init__(self):
        from cel_expr_python import cel
        from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

        from dgdlint.schema import k8s_cel_lib

        t = cel.Type
        nested = t.Map(t.STRING, t.Map(t.STRING, t("google.protobuf.Any")))  # cel-go's AnyType, as the server's
        self.quantity = t.AbstractType("kubernetes.Quantity")
        capacity = t.Map(t.STRING, t.Map(t.STRING, self.quantity))
        functions = k8s_cel_lib.declarations(cel, leave_out=("hasValue", "value", "orValue", "sign"),  # see below
                                             quantity=self.quantity)
        # Kubernetes' sign is a function, sign(q), not a method: declared so here.
        functions.append(cel.FunctionDecl("sign", [cel.Overload("quantity_sign", t.INT, [self.quantity], False,
                                                                k8s_cel_lib.sign)]))

        def env(variables: dict):
            return cel.NewEnv(variables=variables, functions=functions,
                              extensions=[ext_strings.ExtStrings(), ext_bindings.ExtBindings(),
                                          ext_optional.ExtOptional(), _cross_type_comparisons(cel)])

        device = t.Map(t.STRING, t.DYN)
        self.typed = env({"device": device, "device.driver": t.STRING, "device.allowMultipleAllocations": t.BOOL,
                          "device.attributes": nested, "device.capacity": capacity})
        self.plain = env({"device": device})
        self.known = (t.STRING, t.INT, t.UINT, t.DOUBLE, t.BYTES, t.NULL, t.TIMESTAMP, t.DURATION, t.DYN)


def _cross_type_comparisons(cel):
    """cel-go's CrossTypeNumericComparisons, which Kubernetes turns on: <, <=, > and >= of an int, a uint and
    a double with one another, declared as cel-go declares them. As an extension, the declarations join the
    standard library's (cel-cpp refuses a second declaration of _<_ given to NewEnv's functions)."""
    t = cel.Type
    numbers = {"int64": t.INT, "uint64": t.UINT, "double": t.DOUBLE}
    operators = {"_<_": ("less", lambda a, b: a < b), "_<=_": ("less_equals", lambda a, b: a <= b),
                 "_>_": ("greater", lambda a, b: a > b), "_>=_": ("greater_equals", lambda a, b: a >= b)}
    declarations = []
    for operator, (name, compare) in operators.items():
        overloads = [cel.Overload(f"{name}_{left}_{right}", t.BOOL, [numbers[left], numbers[right]], False, compare)
                     for left in numbers for right in numbers if left != right]
        declarations.append(cel.FunctionDecl(operator, overloads))
    return cel.CelExtension("dgdlint_cross_type_numeric_comparisons", declarations)


@lru_cache(maxsize=1)
def _compilers() -> _Compilers:
    return _Compilers()


def _errors(text: str) -> list[str]:
    return [" ".join(m.split()) for m in _ERROR_LINE.findall(" ".join(text.split()))] or [" ".join(text.split())]


def _undeclared_names(errors: list[str]) -> list[str] | None:
    """The names of undeclared references when every error is one; None otherwise."""
    names = []
    for error in errors:
        match = _UNDECLARED.search(error)
        if match is None:
            return None
        names.append(match[1])
    return names


def _return_type_name(compiled, compilers: _Compilers) -> str | None:
    kind = compiled.return_type()
    for known in compilers.known:
        if kind == known:
            return known.name().lower()
    if kind == compilers.quantity:
        return "kubernetes.Quantity"
    name = kind.name()
    return {"LIST": "list", "MAP": "map"}.get(name.partition("<")[0])


@lru_cache(maxsize=512)
def expression_problem(expression: str) -> str | None:
    """What the API server says of a selector's expression, when this compiler can tell it for certain."""
    size = len(expression.encode())
    if size > MAX_EXPRESSION:
        return f"is {size} bytes long; at most {MAX_EXPRESSION} are taken (the server does not compile it)"
    compilers = _compilers()
    too_deep = False
    try:
        compilers.plain.compile(expression, disable_check=True)
    except Exception as error:  # cel-expr-python raises for every compile problem
        if not _RECURSION.search(str(error)):
            return f"does not parse as CEL: {_errors(str(error))[0]}"
        too_deep = True  # cel-cpp's parser stops at 32 levels, cel-go's at about 250: only the text is read
    code = _STRINGS.sub('""', expression)
    unknown = [field for field in _DEVICE_FIELD.findall(code) if field not in DEVICE_FIELDS]
    if unknown:
        return f"selects device.{unknown[0]}, which a device does not have (its fields: " \
               f"{', '.join(DEVICE_FIELDS)})"
    if _ORDERED.search(code):
        return "compares a quantity with <, <=, > or >=, which Kubernetes' Quantity does not have; use " \
               'compareTo (device.capacity[DOMAIN].NAME.compareTo(quantity("40Gi")) >= 0)'
    if too_deep:
        return None
    try:
        compiled = compilers.typed.compile(_has_fields_as_true(expression))
    except Exception as error:
        errors = _errors(str(error))
        type_error = _type_error(errors)
        if type_error is not None:
            return type_error
        names = _undeclared_names(errors)
        if names and not any(name.split(".")[0] in KUBERNETES_NAMES for name in names):
            name = names[0].split(".")[0]
            return f"refers to {name!r}, which the DRA environment does not declare (its one variable is " \
                   "`device`: device.driver, device.attributes[DOMAIN].NAME, device.capacity[DOMAIN].NAME)"
        return None
    tree = cel_ast.checked(compiled.serialize())
    mixed = cel_ast.mixed_literal(tree) if tree is not None else None
    if mixed is not None:
        return f"has a list or map literal of mixed types: expected type {mixed[0]!r} but found {mixed[1]!r} " \
               "(the server takes a literal whose elements, keys and values are each of one type; an attribute " \
               "is of type any, dyn(...) of type dyn)"
    kind = _return_type_name(compiled, compilers)
    if kind is None:
        return None
    return f"evaluates to a {kind}; a selector must evaluate to a bool (true for the devices it selects)"


def _has_fields_as_true(expression: str) -> str:
    """`expression` with each has(device.FIELD) outside a string literal written `true`."""
    blanked = _STRINGS.sub(lambda m: "'" + " " * (len(m[0]) - 2) + "'", expression)  # same offsets
    for match in reversed(list(_HAS_FIELD.finditer(blanked))):
        expression = expression[:match.start()] + "true" + expression[match.end():]
    return expression


def _type_error(errors: list[str]) -> str | None:
    """The first type error both compilers make of an expression, when every error is one of the checked
    functions': no overload for the types given, or (cel-cpp's word for it) an undeclared reference to one
    of them, which is declared here with every overload the server has but none of that arity or receiver
    (the server: no matching overload)."""
    found = []
    for error in errors:
        match, undeclared, ranged = _OVERLOAD.search(error), _UNDECLARED.search(error), _RANGE.search(error)
        if match is not None and match[1] in CHECKED_FUNCTIONS:
            found.append(match[0].replace("null_type", "null"))
        elif ranged is not None:
            found.append(f"a value of type {ranged[1]} cannot be the range of a comprehension (all, exists, map, "
                         "filter, ...: a list, a map or a dyn)")
        elif undeclared is not None and undeclared[1] in CHECKED_FUNCTIONS:
            found.append(f"no overload of {undeclared[1]!r} takes the arguments given, or that receiver (sign(q) "
                         "is a function; isGreaterThan, compareTo, add, sub, asInteger, ... are a "
                         "kubernetes.Quantity's methods)")
        else:
            return None
    return f"does not type-check in the DRA environment: {found[0]} (the server compiles it with device.driver " \
           "a string, device.capacity[DOMAIN].NAME a kubernetes.Quantity, device.attributes[DOMAIN].NAME " \
           "of any type)"
