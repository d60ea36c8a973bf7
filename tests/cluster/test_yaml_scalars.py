"""Scalars as the API server reads them from YAML: every case below is sent as a YAML request body (read,
as kubectl's are, by sigs.k8s.io/yaml) and the server's verdict and stored value are the oracle for
dgdlint's loader: booleans (`y`, `off`), numbers in Go's forms (`0o17`, `0X1F`, `09`, `1e3`, `1_000`),
texts that PyYAML would type (`12:30`), values JSON cannot carry (`.inf`), explicit tags, and keys."""

from __future__ import annotations

import math

import pytest
import yaml
from cluster_support import CLUSTER
from controlplane import ApiError, install_crd, resource_path

from dgdlint.engine import check_texts
from dgdlint.load import load_text
from dgdlint.schema import SchemaStage

pytestmark = CLUSTER

# One field of each type, and a preserved subtree that stores whatever JSON the request carries.
PROBE_CRD = yaml.safe_load("""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: scalarprobes.dgdlint.example}
spec:
  group: dgdlint.example
  scope: Namespaced
  names: {plural: scalarprobes, singular: scalarprobe, kind: ScalarProbe, listKind: ScalarProbeList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            integer: {type: integer}
            number: {type: number}
            string: {type: string}
            boolean: {type: boolean}
            free:
              type: object
              x-kubernetes-preserve-unknown-fields: true
""")

PLAIN = """\
y Y n N yes Yes YES no on On ON off Off OFF true True TRUE tRue false null Null NULL ~ 1:20 1:20.5 -1:20 12:30
0o17 0O17 0x1F 0X1F 0x_1F +0x1F -0x1F 0x 0b101 -0b101 +0b101 0B11 0b_1 0777 -0777 +0777 08 09 0009 00 0 -0 +0 +5 -5
1_000 1__0 _1 1_ 1e3 1E3 1e+3 1e-3 1.5e3 1.0e+3 +1e3 -1e3 1e400 1e-400 .5 -.5 +.5 .5e3 .5_0 ._1 1. 0. 1.5_0 1_0.5 1.0
.inf .Inf +.inf -.inf .nan .NaN inf nan Infinity 0x1p3 9223372036854775807 9223372036854775808
-9223372036854775808 -9223372036854775809 18446744073709551615 18446744073709551616 +9223372036854775808
0xFFFFFFFFFFFFFFFF 12345678901234567890123 2001-12-14 2001-02-30 2001-12-14t21:59:43.10-05:00 1.2.3 1,000 0.1 1.50
3.14159265358979 100 + . 1e e3 ٢ 0x٢
""".split() + ['"2001-12-14 21:59:43.10"', "''", '"1"']

TAGGED = ["!!null abc", "!!null ''", "!!binary aGVsbG8=", "!!binary abc", "!!float 1", "!!int 0o17", "!!str 1",
          "!!bool y", "!!bool maybe", "!!timestamp 2001-12-14", "!!timestamp 2001-02-30", "!!timestamp 12",
          "!!timestamp 2001-12-14T21:59:43Z", "!!timestamp 2001-12-14 21:59:43Z", "!!timestamp 2001-12-14T21:59:43",
          "!!timestamp 2001-12-14t21:59:43.5+01:00", "!!timestamp 2001-12-14T25:00:00Z", "!!timestamp 0000-02-29",
          "!!int 1:20", "!!float 1e3", "!!int 1_000", "!!float 1:20.5", "!!int 1.5", "!!float .5",
          "!!int 100000000000000000000", "!!int 18446744073709551615", "!foo bar", "! 12", "!!float 09",
          "!!int 09", "!!float .inf", "!!int '12'", "!!str", "!!null"]


@pytest.fixture(scope="module")
def probe_path(control_plane, tmp_path_factory):
    crd_file = install_crd(control_plane, PROBE_CRD, tmp_path_factory.mktemp("crd"))
    return resource_path(control_plane, "dgdlint.example/v1", "ScalarProbe", "default"), crd_file  # dry runs


def server_reads(plane, path: str, body: str) -> tuple[bool, object]:
    """(accepted, the object as the server holds it) for a YAML request body, a server-side dry run."""
    try:
        return True, plane.request("POST", path + "?dryRun=All&fieldValidation=Strict", body.encode(),
                                   content_type="application/yaml")
    except ApiError as error:
        return False, error.body.get("message", "")


def probe(name: str, field: str) -> str:
    return f"apiVersion: dgdlint.example/v1\nkind: ScalarProbe\nmetadata:\n  name: {name}\n{field}\n"


def free_as_read(plane, path: str, name: str, body: str) -> tuple[object, object] | None:
    """(dgdlint's reading, the server's) of the preserved subtree `free:` holding `body`, or None when both
    refuse it; a refusal by one side only fails the test."""
    text = probe(name, f"free:\n  {body}")
    accepted, stored = server_reads(plane, path, text)
    loaded = load_text("probe.yaml", text)
    assert accepted == (not loaded.findings), (stored, [f.message for f in loaded.findings])
    return (loaded.documents[0].value["free"], stored["free"]) if accepted else None


def same_value(ours: object, theirs: object) -> bool:
    """Equal as JSON values. Numbers compare by value: the server writes a float that is whole without a
    fraction, so its answer cannot say int from float (the typed fields below do)."""
    numbers = (int, float)
    if isinstance(ours, bool) or isinstance(theirs, bool) or not isinstance(ours, numbers):
        return type(ours) is type(theirs) and ours == theirs
    return isinstance(theirs, numbers) and not isinstance(theirs, bool) and math.isclose(ours, theirs, rel_tol=1e-15)


@pytest.mark.parametrize("scalar", PLAIN + TAGGED)
def test_a_value_is_read_as_the_api_server_reads_it(control_plane, probe_path, scalar):
    read = free_as_read(control_plane, probe_path[0], "value", f"v: {scalar}")
    if read:
        ours, theirs = read
        assert same_value(ours.get("v", "<absent>"), theirs.get("v", "<absent>")), theirs


@pytest.mark.parametrize("scalar", [s for s in PLAIN + TAGGED if s not in ("!!str", "!!null")])
def test_a_key_is_read_as_the_api_server_reads_it(control_plane, probe_path, scalar):
    read = free_as_read(control_plane, probe_path[0], "key", f"{scalar}: 1")
    if read:
        assert list(read[0]) == list(read[1])


@pytest.mark.parametrize("field", ["integer", "number", "string", "boolean"])
@pytest.mark.parametrize("scalar", ["1e3", "1.0", "1.5", "1e20", "-9223372036854775809", "9223372036854775807",
                                    "9223372036854775808", "18446744073709551615", "09",
                                    "0o17", "y", "off", "12:30", "1:20", "~", "'1'", "!!float 2", "2001-12-14"])
def test_a_typed_field_takes_the_scalar_as_the_api_server_does(control_plane, probe_path, field, scalar):
    text = probe("typed", f"{field}: {scalar}")
    accepted, stored = server_reads(control_plane, probe_path[0], text)
    findings = check_texts({"probe.yaml": text}, SchemaStage([probe_path[1]])).findings
    errors = [f"{f.rule}: {f.message}" for f in findings if f.severity == "error"]
    assert accepted == (not errors), (stored, errors)


# Whole subtrees whose reading turns on more than one scalar: anchors, aliases (as values and as keys).
SHAPES = {
    "aliased-value": "a: &x foo\n  b: *x",
    "aliased-key": "a: &x foo\n  b: {*x : 1}",
    "aliased-number-key": "a: &x 12\n  b: {*x : 1}",
    "aliased-map-key": "a: &x {k: v}\n  b: {*x : 1}",
    "anchored-key": "&x foo: 1\n  b: {*x : 2}",
    "aliased-list": "a: &x [1, y]\n  b: *x",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_anchors_and_aliases_are_read_as_the_api_server_reads_them(control_plane, probe_path, shape):
    read = free_as_read(control_plane, probe_path[0], "shape", SHAPES[shape])
    if read:
        assert read[0] == read[1]
