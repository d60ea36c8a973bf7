"""The CEL validation rules of a schema (`x-kubernetes-validations`), evaluated offline as the API server
evaluates them: `self` is the value at the rule's node, `oldSelf` the stored value on an update
(transition rules run only then, unless the rule sets optionalOldSelf), the message from `message` or
`messageExpression`, the field from `fieldPath`. The evaluator is cel-expr-python (cel-cpp), with
cel-go's strings extension and Kubernetes' own libraries from k8s_cel_lib; each rule is compiled once
per run, by its text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from dgdlint.schema import k8s_cel_lib

_OLD_SELF = re.compile(r"\boldSelf\b")
# A variable's use: what follows it when it is read as `x.name` or `x.?name` (and not called as `x.name(...)`).
_USE = r"\b{}\b(?:\s*\.\s*\??\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\()?)?"
_SELF_USE = re.compile(_USE.format("self"))
_OLD_SELF_USE = re.compile(_USE.format("oldSelf"))
_FIELD_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_-]*)"
                              r"|\[\s*'((?:[^'\\]|\\.)*)'\s*\]"
                              r"|\[\s*\"((?:[^\"\\]|\\.)*)\"\s*\]"
                              r"|\[\s*([0-9]+)\s*\]")


@dataclass(frozen=True)
class CelRule:
    """One x-kubernetes-validations entry of a schema, as the API server reads it."""

    rule: str
    message: str | None = None
    message_expression: str | None = None
    field_path: str | None = None
    reason: str | None = None
    optional_old_self: bool = False

    @classmethod
    def from_schema(cls, entry: dict) -> CelRule:
        return cls(str(entry.get("rule", "")), entry.get("message"), entry.get("messageExpression"),
                   entry.get("fieldPath"), entry.get("reason"), entry.get("optionalOldSelf") is True)

    @cached_property
    def transition(self) -> bool:
        """A transition rule reads oldSelf (Kubernetes decides this from the compiled rule; the name is enough)."""
        return bool(_OLD_SELF.search(self.rule))

    @cached_property
    def self_fields(self) -> frozenset | None:
        """The fields of `self` the rule and its message expression can observe, when every use of `self` reads
        a named field (`self.replicas`, `has(self.size)`, `self.?restart`); None when any use could see the
        whole value (`size(self)`, `self.all(...)`, `self['x']`, `self` passed on). See pruned()."""
        return _fields_read(_SELF_USE, self.rule, self.message_expression)

    @cached_property
    def old_self_fields(self) -> frozenset | None:
        return _fields_read(_OLD_SELF_USE, self.rule, self.message_expression)


def _fields_read(use: re.Pattern, *texts: str | None) -> frozenset | None:
    fields = set()
    for text in texts:
        for match in use.finditer(text or ""):
            name, called = match.groups()
            if name is None or called is not None:
                return None
            fields.add(name)
    return frozenset(fields)


def pruned(value: object, fields: frozenset | None) -> object:
    """A mapping cut down to the fields a rule can observe (the evaluator converts all it is given, and a spec
    is large); anything else, or a rule that can see the whole value, as it is. A field read of a mapping that
    lacks it fails or is false (`has`) in both, so the rule's result and message do not change."""
    if fields is None or type(value) is not dict:
        return value
    return {name: value[name] for name in fields if name in value}


@dataclass
class Outcome:
    """The result of a rule on one value: passed, failed (with its message), or not evaluable."""

    passed: bool
    message: str = ""
    error: str = ""  # the rule did not compile, or its evaluation failed


class CelRuntime:
    """One CEL environment for a run; every rule and message expression is compiled once."""

    def __init__(self):
        from cel_expr_python import cel
        from cel_expr_python.ext import ext_strings

        self._cel = cel
        dyn = cel.Type.DYN
        self._env = cel.NewEnv(variables={"self": dyn, "oldSelf": dyn}, extensions=[ext_strings.ExtStrings()],
                               functions=k8s_cel_lib.declarations(cel))
        self._programs: dict[str, object] = {}

    def compile(self, text: str):
        """The compiled program, or the compiler's message (a str) when the rule does not compile."""
        program = self._programs.get(text)
        if program is None:
            try:
                program = self._env.compile(text)
            except Exception as error:  # cel-expr-python raises RuntimeError for every compile problem
                program = " ".join(str(error).split())
            self._programs[text] = program
        return program

    def evaluate(self, program, variables: dict):
        """(value, None) or (None, error text). The evaluator's text may quote the object's values (a secret
        among them), so only what precedes its first quote is kept."""
        try:
            result = program.eval(data=variables)
        except Exception as error:
            return None, _without_values(str(error))
        if result.type() == self._cel.Type.ERROR:
            return None, _without_values(str(result.value())) if _printable(result) else "evaluation error"
        return result.plain_value(), None

    def check(self, rule: CelRule, value: object, old: object, has_old: bool) -> Outcome | None:
        """The rule on `value`; None when it does not apply (a transition rule on a create)."""
        if rule.transition and not has_old and not rule.optional_old_self:
            return None
        program = self.compile(rule.rule)
        if isinstance(program, str):
            return Outcome(True, error=f"does not compile: {program}")
        variables = {"self": pruned(value, rule.self_fields)}
        if rule.transition:
            old = pruned(old, rule.old_self_fields)
            variables["oldSelf"] = k8s_cel_lib.optional_old_self(has_old, old) if rule.optional_old_self else old
        result, error = self.evaluate(program, variables)
        if error is not None:
            return Outcome(False, message=f"the rule could not be evaluated ({error}): {rule.rule}", error=error)
        if result is True:
            return Outcome(True)
        return Outcome(False, message=self._message(rule, variables))

    def _message(self, rule: CelRule, variables: dict) -> str:
        if rule.message_expression:
            program = self.compile(rule.message_expression)
            if not isinstance(program, str):
                text, error = self.evaluate(program, variables)
                if error is None and isinstance(text, str) and text.strip():
                    return text
        if rule.message:
            return rule.message
        return f"failed rule: {rule.rule}"


def _without_values(text: str) -> str:
    """An evaluator's message up to its first quoted part (values are quoted there), on one line."""
    cut = min((i for i in (text.find("'"), text.find('"'), text.find("`")) if i >= 0), default=-1)
    text = " ".join((text[:cut] + " ..." if cut >= 0 else text).split())
    return text[:200] or "evaluation error"


def _printable(result) -> bool:
    try:
        str(result.value())
    except Exception:
        return False
    return True


def field_path_parts(field_path: str) -> tuple | None:
    """`.spec.items['a.b'][0]` -> ("spec", "items", "a.b", 0); None when the path does not parse."""
    parts: list = []
    position = 0
    text = field_path.strip()
    while position < len(text):
        match = _FIELD_PATH_PART.match(text, position)
        if match is None:
            return None
        name, single, double, index = match.groups()
        if index is not None:
            parts.append(int(index))
        else:
            parts.append(name if name is not None else (single if single is not None else double))
        position = match.end()
    return tuple(parts)
