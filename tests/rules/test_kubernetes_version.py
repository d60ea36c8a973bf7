"""Validation the API server changed between Kubernetes releases follows --kubernetes-version: strict CIDRs in a
NetworkPolicy (leading zeros, IPv4-mapped IPv6, bits past the prefix) are refused from 1.36, when
StrictIPCIDRValidation became on by default; an older server only warns of them. A CIDR no version can parse
is refused by every one; the same goes for the addresses of a pod's dnsConfig and hostAliases. A topology
spread constraint's matchLabelKeys are merged into its selector from 1.34
(MatchLabelKeysInPodTopologySpreadSelectorMerge); before, a key the selector names is refused whatever the
pod's labels. An env var's fileKeyRef exists from 1.35 (EnvFiles): an older server drops it, leaving its
valueFrom without a source. A container's resizePolicy and a pod's hostUsers are kept from 1.33
(InPlacePodVerticalScaling, UserNamespacesSupport): an older server drops them unread. A claim's (or claim
template's, a PersistentVolume's) volumeAttributesClassName is validated from 1.34 (VolumeAttributesClass on
by default); an older server drops it from a claim or a volume, and leaves it unread in a template. A
HorizontalPodAutoscaler may scale to zero
from 1.37 (HPAScaleToZero on by default; before, minReplicas is at least 1), and its scaling rules' tolerance
is validated from 1.35 (HPAConfigurableTolerance on by default; before, the server drops it unread). A
projected volume's cluster trust bundles and pod certificates are kept from 1.37
(ClusterTrustBundleProjection, PodCertificateRequest on by default); an older server drops them from the pod
unread, and they count as no kind of their source. A Service's name may start with a digit from 1.36
(RelaxedServiceNameValidation), and so may a graph's name, which names the operator's Services; a Service's
trafficDistribution may be PreferSameZone or PreferSameNode from 1.34 (PreferSameTrafficDistribution), and its
cluster IPs, external IPs and source ranges are read strictly from 1.36 as a NetworkPolicy's CIDRs are."""

from __future__ import annotations

from pathlib import Path

import pytest

from dgdlint.engine import check_paths
from dgdlint.schema import SchemaStage

STRICT_ONLY = ("netpol-cidr-host-bits.yaml", "netpol-cidr-leading-zero.yaml", "netpol-cidr-ipv4-mapped.yaml")


def rule_findings(name: str, version: str | None, rule: str = "network-policy-invalid",
                  outcome: str | None = None) -> list:
    """`rule`'s findings on one of its fixtures (under fail/ for network-policy-invalid, else pass/, unless
    `outcome` says), checked against Kubernetes `version`."""
    outcome = outcome or ("fail" if rule == "network-policy-invalid" else "pass")
    folder = Path(__file__).parent / rule / outcome
    stage = SchemaStage(None, version)
    return [f for f in check_paths([str(folder / name)], stage).findings if f.rule == rule]


@pytest.mark.parametrize("name", STRICT_ONLY)
def test_strict_cidrs_are_refused_from_1_36_and_by_default(name):
    assert rule_findings(name, "1.36") and rule_findings(name, None)


@pytest.mark.parametrize("name", STRICT_ONLY)
def test_an_older_kubernetes_takes_them(name):
    assert rule_findings(name, "1.35") == []


def test_a_cidr_no_version_parses_is_refused_by_every_version():
    assert rule_findings("netpol-cidr-prefix-too-long.yaml", "1.33")


def test_spread_match_label_keys_the_selector_names_are_refused_before_the_merge_of_1_34():
    """zone is in matchLabelKeys and in the selector's expressions; the pod has no zone label, so from 1.34
    nothing is added to the selector and it names zone once."""
    assert rule_findings("job-match-label-keys.yaml", "1.33", "scheduling-spec-invalid")
    assert rule_findings("job-match-label-keys.yaml", "1.34", "scheduling-spec-invalid") == []


@pytest.mark.parametrize(("rule", "fixture"), [
    ("security-context-invalid", "job-proc-mount-unmasked-host-users.yaml"),  # procMount, no longer Default
    ("pod-spec-invalid", "job-resize-policy-gpu.yaml"),  # resizePolicy (InPlacePodVerticalScaling)
    ("pod-spec-invalid", "job-host-users-host-network.yaml"),  # hostUsers (UserNamespacesSupport)
])
def test_what_an_older_server_drops_unread_is_read_from_1_33(rule, fixture):
    assert rule_findings(fixture, "1.33", rule, "fail") and rule_findings(fixture, None, rule, "fail")
    assert rule_findings(fixture, "1.32", rule, "fail") == []


@pytest.mark.parametrize("fixture", ["job-pod-certificate-invalid.yaml", "job-projected-trust-bundle-invalid.yaml",
                                     "dgd-pod-certificate-v1beta1.yaml"])
def test_certificate_sources_are_read_from_1_37(fixture):
    """Each finding of these fixtures is of a cluster trust bundle or pod certificate (the DGD's: one beside
    the other in a source, which before 1.37 holds neither once the server drops them)."""
    assert rule_findings(fixture, "1.37", "pod-spec-invalid", "fail") and \
        rule_findings(fixture, None, "pod-spec-invalid", "fail")
    assert rule_findings(fixture, "1.36", "pod-spec-invalid", "fail") == []


LEADING_ZEROS_JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: download}
spec:
  template:
    spec:
      restartPolicy: Never
      dnsConfig: {nameservers: [010.0.0.10]}
      hostAliases: [{ip: "::ffff:10.1.2.3", hostnames: [store]}]
      containers: [{name: download, image: "busybox:1.36.1"}]
"""


def test_a_pod_s_dns_and_host_alias_addresses_are_read_strictly_from_1_36():
    """A leading zero and an IPv4-mapped IPv6 address are taken by a server before 1.36."""
    from dgdlint.engine import check_texts

    def paths(version):
        return sorted(f.path for f in check_texts({"job.yaml": LEADING_ZEROS_JOB}, SchemaStage(None, version)).findings
                      if f.rule == "pod-spec-invalid")
    assert paths("1.36") == paths(None) == ["spec.template.spec.dnsConfig.nameservers[0]",
                                            "spec.template.spec.hostAliases[0].ip"]
    assert paths("1.35") == []


def test_a_file_key_ref_is_an_env_source_from_1_35():
    def findings(version):
        return [f.message for f in rule_findings("job-env-sources-valid.yaml", version, "env-source-invalid")]
    assert findings("1.35") == findings(None) == []
    [dropped] = findings("1.34")
    assert "names no source" in dropped and "fileKeyRef needs Kubernetes 1.35" in dropped


@pytest.mark.parametrize(("rule", "fixture"), [
    ("claim-spec-invalid", "claim-attributes-class-invalid.yaml"),
    ("pod-spec-invalid", "job-ephemeral-template-sources-mismatch.yaml"),  # beside its data source findings
    ("persistent-volume-invalid", "attributes-class-without-csi.yaml"),
])
def test_a_volume_attributes_class_name_is_read_from_1_34(rule, fixture):
    def classes(version):
        return [f for f in rule_findings(fixture, version, rule, "fail") if "volumeAttributesClassName" in f.path]
    assert classes("1.34") and classes(None)
    assert classes("1.33") == []


def test_an_autoscaler_scales_to_zero_from_1_37():
    """minReplicas 0 beside an External metric: refused at minReplicas by an older server."""
    def paths(version):
        return [f.path for f in rule_findings("hpa-scale-to-zero-with-external-metric.yaml", version,
                                              "autoscaler-spec-invalid", "pass")]
    assert paths("1.37") == paths(None) == []
    assert paths("1.36") == ["spec.minReplicas"]


def test_an_autoscaler_s_tolerance_is_read_from_1_35():
    def paths(version):
        return [f.path for f in rule_findings("hpa-tolerance-negative.yaml", version, "autoscaler-spec-invalid",
                                              "fail")]
    assert paths("1.35") == paths(None) == ["spec.behavior.scaleDown.tolerance"]
    assert paths("1.34") == []


def test_a_service_name_may_start_with_a_digit_from_1_36():
    """RelaxedServiceNameValidation, on by default from 1.36: a Service name is an RFC 1123 label; before,
    an RFC 1035 label, which starts with a letter."""
    assert rule_findings("service-names-label.yaml", "1.35", "object-metadata-invalid")
    assert rule_findings("service-names-label.yaml", "1.36", "object-metadata-invalid") == []
    assert rule_findings("service-names-label.yaml", None, "object-metadata-invalid") == []


def test_a_graph_name_may_start_with_a_digit_from_1_36_as_the_services_named_after_it():
    """The operator's Services (`7b-agg-frontend`, ...) and Grove's headless Service (`7b-agg-0`) start with the
    graph name's digit: RFC 1035 labels before 1.36 refuse them."""
    def messages(version):
        return [f.message for f in rule_findings("digit-first-name-v1beta1.yaml", version,
                                                 "operator-derived-name-invalid")]
    before = messages("1.35")
    assert len(before) == 3 and all("must start with a lowercase letter" in message for message in before)
    assert any("headless Service '7b-agg-0'" in message for message in before)
    assert messages("1.36") == messages(None) == []


def test_a_service_s_traffic_distribution_prefers_the_same_node_from_1_34():
    """PreferSameTrafficDistribution, on by default from 1.34: PreferSameZone and PreferSameNode beside
    PreferClose; before, PreferClose alone."""
    assert rule_findings("traffic-distribution-same-node.yaml", "1.33", "service-spec-invalid")
    assert rule_findings("traffic-distribution-same-node.yaml", "1.34", "service-spec-invalid") == []


@pytest.mark.parametrize("name", ["cluster-ip-leading-zero.yaml", "source-range-host-bits.yaml"])
def test_a_service_s_addresses_and_source_ranges_are_read_strictly_from_1_36(name):
    assert rule_findings(name, "1.36", "service-spec-invalid", "fail")
    assert rule_findings(name, "1.35", "service-spec-invalid", "fail") == []
