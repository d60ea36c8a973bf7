"""The generated main container ConvertTo drops (hub_containers.py), beyond what the fixtures' paths pin:
which template the webhook then sees, and the spellings of a service that leave main empty or not. Each
expectation is what the operator's conversion code (api/v1alpha1/shared_spec_conversion.go, commit
2a6da14) does with the input, said beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from dgdlint.engine import check_paths
from dgdlint.hub_containers import drops_generated_main, generated_main_empty

FIXTURE = Path(__file__).parent / "operator-conversion-record-refused" / "fail" / "hub-main-dropped.yaml"

# restoreSharedPodTemplateHubOnlyFields returns the template as it is when both the record's template and
# what is left are zero (main-name-only: the record's is {}), so the webhook sees a template without the
# container; when only what is left is zero (template-gone: the record's holds a container), nilIfEmptyPodTemplate
# makes it nil and the webhook says the template is missing. A template kept by the service's pod labels
# (main-dropped) has no container either.
MESSAGES = {
    "main-dropped": "frontendSidecar 'main' names no container of the pod (none)",
    "main-name-only": "frontendSidecar 'main' names no container of the pod (none)",
    "template-gone": "frontendSidecar is set but the component has no podTemplate",
}


@pytest.fixture(scope="module")
def refusals() -> dict[str, str]:
    result = check_paths([str(FIXTURE)])
    return {finding.object_ref.split("/")[-1]: finding.message for finding in result.findings
            if finding.rule == "operator-conversion-record-refused"}


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_the_webhook_sees_the_template_the_conversion_leaves(refusals, name):
    assert MESSAGES[name] in refusals[name]
    assert "drops the main container it generates for Planner" in refusals[name]


PLANNER = {"componentType": "planner", "replicas": 1}
CACHE = {"name": "compile-cache", "mountPoint": "/cache", "useAsCompilationCache": True}


@pytest.mark.parametrize("fields, empty", [
    # buildMainContainerFromDedicated adds envFrom only for a non-empty envFromSecret, env only for envs
    ({"envFromSecret": ""}, True),
    ({"envs": []}, True),
    ({"envFromSecret": "hf-token"}, False),
    # a probe is a pointer: an empty one is set (Semantic.DeepEqual tells nil from &Probe{})
    ({"readinessProbe": {}}, False),
    # the compilation cache mount is the first flagged one; DeleteFunc removes every mount of its name and path
    ({"volumeMounts": [CACHE, dict(CACHE)]}, True),
    ({"volumeMounts": [CACHE, dict(CACHE, mountPoint="/other")]}, False),
    # a mount not flagged as the cache is a mount of main
    ({"volumeMounts": [dict(CACHE, useAsCompilationCache=False)]}, False),
    # mergo merges only set fields of extraPodSpec.mainContainer: empty ones leave main empty
    ({"extraPodSpec": {"mainContainer": {"name": "main", "args": [], "env": []}}}, True),
    ({"extraPodSpec": {"mainContainer": {"name": "main", "startupProbe": {}}}}, False),
    # extraPodSpec's pod fields go to the pod, not to main
    ({"extraPodSpec": {"nodeSelector": {"pool": "gpu"}}}, True),
    # a set resources is never dropped: filled, or failing resourcesNeedPreservation's round trip
    ({"resources": {"limits": {"cpu": "1"}}}, False),
    ({"resources": {}}, False),
])
def test_what_leaves_the_generated_main_empty(fields, empty):
    assert generated_main_empty(dict(PLANNER, **fields)) is empty


@pytest.mark.parametrize("template, dropped", [
    (None, False),  # no pod template in the record: restoreSharedPodTemplateHubOnlyFields returns early
    ({}, True),
    ({"spec": {"containers": [{"name": "proxy", "image": "nginx:1.27"}]}}, True),
    ({"spec": {"containers": [{"name": "main"}]}}, False),  # hasContainerNamed: any container main, even name-only
])
def test_the_record_s_template_decides_whether_main_goes(template, dropped):
    assert drops_generated_main(dict(PLANNER), template) is dropped
