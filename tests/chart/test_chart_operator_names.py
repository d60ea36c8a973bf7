"""The chart's fullname is the DynamoGraphDeployment's name, and the Dynamo operator (and Grove under it) names
objects after it at run time: the component Services `<name>-<component>` (dots made dashes), Grove's headless
Service `<PodCliqueSet>-0` and the pods' host names (the PodCliqueSet is the graph's name while it fits), and
the label `nvidia.com/dynamo-namespace: <namespace>-<name>` on the operator's objects and pods. Helm takes a
release name with a dot or a leading digit, and any namespace, so the chart refuses a fullname that would make
one of these invalid (the graph would be taken, and the operator's objects refused later), naming where the
name came from; the passing twins render and pass dgdlint."""

from __future__ import annotations

import pytest
import yaml
from chart_support import render

from dgdlint.engine import check_texts
from dgdlint.render import RenderError

# (id, release, values, namespace, what the message must say)
REFUSED = [
    ("a dot in the release name", "prod.eu-1", {}, "default",
     ['the DynamoGraphDeployment name "prod.eu-1-cosmos3-reasoner" (from the release name "prod.eu-1" and the '
      'chart name "cosmos3-reasoner") holds a dot', 'headless Service "prod.eu-1-cosmos3-reasoner-0"',
      'set fullnameOverride (for example "prod-eu-1-cosmos3-reasoner")']),
    ("a dot in a release name that holds the chart name", "cosmos3-reasoner.eu", {}, "default",
     ['the DynamoGraphDeployment name "cosmos3-reasoner.eu" (from the release name "cosmos3-reasoner.eu") holds '
      'a dot']),
    ("a dot beside nameOverride", "prod.eu", {"nameOverride": "vlm"}, "default",
     ['the DynamoGraphDeployment name "prod.eu-vlm" (from the release name "prod.eu" and nameOverride "vlm") '
      'holds a dot']),
    ("a digit first in the release name", "1-prod", {}, "default",
     ['the DynamoGraphDeployment name "1-prod-cosmos3-reasoner" (from the release name "1-prod" and the chart '
      'name "cosmos3-reasoner") starts with "1", not a letter', 'Service "1-prod-cosmos3-reasoner-frontend"',
      'DNS-1035 label', 'set fullnameOverride (for example "prod-cosmos3-reasoner")']),
    ("a digit first in fullnameOverride", "prod", {"fullnameOverride": "7b-reasoner"}, "default",
     ['the DynamoGraphDeployment name "7b-reasoner" (from fullnameOverride "7b-reasoner") starts with "7", not '
      'a letter', '(for example "b-reasoner")']),
    ("a namespace too long for the dynamo namespace label", "prod", {}, "n" * 42,
     [f'the DynamoGraphDeployment name "prod-cosmos3-reasoner" (from the release name "prod" and the chart name '
      f'"cosmos3-reasoner") in namespace "{"n" * 42}"',
      f'nvidia.com/dynamo-namespace={"n" * 42}-prod-cosmos3-reasoner, 64 characters',
      "set fullnameOverride to at most 20 characters"]),
]

# (id, release, values, namespace): the twins, at each bound
TAKEN = [
    ("dashes for dots", "prod-eu-1", {}, "default"),
    ("digits after a letter", "prod-1", {}, "default"),
    ("a dotted release name under fullnameOverride", "prod.eu-1", {"fullnameOverride": "prod-eu-1"}, "default"),
    ("a digit first but a fullnameOverride", "1-prod", {"fullnameOverride": "reasoner-1"}, "default"),
    ("the dynamo namespace label at 63 characters", "prod", {}, "n" * 41),
]


def _failure(release: str, values: dict, namespace: str) -> str:
    try:
        render(values, release=release, namespace=namespace)
    except RenderError as error:
        return str(error)
    raise AssertionError(f"release {release!r} in {namespace!r} with {values} rendered; it should fail")


@pytest.mark.parametrize(("release", "values", "namespace", "said"), [case[1:] for case in REFUSED],
                         ids=[case[0] for case in REFUSED])
def test_a_fullname_that_breaks_an_operator_derived_name_is_refused_saying_why(release, values, namespace, said):
    message = _failure(release, values, namespace)
    for part in said:
        assert part in message


@pytest.mark.parametrize(("release", "values", "namespace"), [case[1:] for case in TAKEN],
                         ids=[case[0] for case in TAKEN])
def test_the_passing_twins_render_and_dgdlint_finds_no_derived_name_broken(release, values, namespace):
    rendered = render(values, release=release, namespace=namespace)
    texts = {f"{index}.yaml": yaml.safe_dump(obj) for index, obj in enumerate(rendered.objects)}
    findings = [(f.rule, f.message) for f in check_texts(texts).findings if f.severity != "info"]
    assert findings == []


GRAPH = ["metadata.name"]
COMPONENTS = ["spec.services.Frontend", "spec.services.ReasonerWorker"]


@pytest.mark.parametrize(("name", "namespace", "kubernetes", "paths"), [
    ("prod.eu-1-cosmos3-reasoner", "default", None, GRAPH),  # Grove's headless Service
    # Grove's headless Service and both Services, before RelaxedServiceNameValidation
    ("1-prod-cosmos3-reasoner", "default", "1.35", GRAPH + COMPONENTS),
    ("prod-cosmos3-reasoner", "n" * 42, None, GRAPH),  # the dynamo namespace label
])
def test_dgdlint_finds_what_the_chart_refuses_in_the_graph_it_would_have_written(name, namespace, kubernetes,
                                                                                   paths):
    """The chart's refusals and dgdlint's operator-derived-name-invalid read the operator alike."""
    from dgdlint.schema import SchemaStage

    dgd = render(release="prod").dgd
    dgd["metadata"].update(name=name, namespace=namespace)
    findings = check_texts({"dgd.yaml": yaml.safe_dump(dgd)}, SchemaStage(None, kubernetes)).findings
    assert sorted(f.path for f in findings if f.rule == "operator-derived-name-invalid") == paths
