"""dgdlint's readings of Kubernetes' small formats against Kubernetes' own Go functions, compiled by the Go
toolchain from the modules the kube-apiserver of `make tools` is built from (tools/kube-apiserver's go.mod:
the same release): names and keys, label values, environment variable and port names, resource names,
quantities (parsed, and written back as Quantity.String() writes them), IP addresses and CIDRs, sloppy and
strict, and endpoint addresses. Thousands of texts per format, each near the format's edges; the verdicts
must be equal. The API server tier checks whole objects; this checks the formats densely.

Skips without Go, or when the modules cannot be had (no module cache and no module proxy)."""

from __future__ import annotations

import random
import re

import pytest

from dgdlint.go_json import marshal
from dgdlint.load import load_text
from dgdlint.quantity import go_quantity_string
from dgdlint.rules.addresses import endpoint_ip_problem, ip_problem, is_ip_sloppy, parse_cidr
from dgdlint.rules.cron import duration_problem, schedule_problem
from dgdlint.rules.disruption import int_or_percent_problem
from dgdlint.rules.pod_annotations import _deletion_cost_problem
from dgdlint.rules.syntax import (
    config_map_key_problem,
    container_resource_name_problem,
    dns1035_label_problem,
    dns1123_label_problem,
    dns1123_subdomain_problem,
    env_name_problem,
    label_value_problem,
    path_segment_name_problem,
    port_name_problem,
    qualified_name_problem,
)
from go_oracle import ask, build_with_kubernetes, near

_MAIN = """package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"sigs.k8s.io/yaml"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	"k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/helper"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	netutils "k8s.io/utils/net"
)

func verdict(errors []string) string {
	if len(errors) == 0 {
		return "ok"
	}
	return "refused"
}

func listVerdict(errors field.ErrorList) string {
	if len(errors) == 0 {
		return "ok"
	}
	return "refused"
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	root := field.NewPath("x")
	for in.Scan() {
		mode, quoted, _ := strings.Cut(in.Text(), " ")
		text, err := strconv.Unquote(quoted)
		if err != nil {
			panic(err)
		}
		var out string
		switch mode {
		case "dns1123-label":
			out = verdict(validation.IsDNS1123Label(text))
		case "dns1035-label":
			out = verdict(validation.IsDNS1035Label(text))
		case "dns1123-subdomain":
			out = verdict(validation.IsDNS1123Subdomain(text))
		case "qualified-name":
			out = verdict(validation.IsQualifiedName(text))
		case "label-value":
			out = verdict(validation.IsValidLabelValue(text))
		case "config-map-key":
			out = verdict(validation.IsConfigMapKey(text))
		case "env-name":
			out = verdict(validation.IsRelaxedEnvVarName(text))
		case "port-name":
			out = verdict(validation.IsValidPortName(text))
		case "path-segment":
			out = verdict(path.IsValidPathSegmentName(text))
		case "resource-name":
			out = listVerdict(corevalidation.ValidateContainerResourceName(core.ResourceName(text), root))
		case "quantity":
			if q, err := resource.ParseQuantity(text); err != nil {
				out = "refused"
			} else {
				out = "ok " + q.String()
			}
		case "ip-sloppy":
			if netutils.ParseIPSloppy(text) == nil {
				out = "refused"
			} else {
				out = "ok"
			}
		case "ip-strict":
			out = listVerdict(validation.IsValidIPForLegacyField(root, text, true, nil))
		case "ip-legacy":
			out = listVerdict(validation.IsValidIPForLegacyField(root, text, false, nil))
		case "cidr-strict":
			out = listVerdict(validation.IsValidCIDRForLegacyField(root, text, true, nil))
		case "cidr-legacy":
			out = listVerdict(validation.IsValidCIDRForLegacyField(root, text, false, nil))
		case "endpoint-ip":
			out = listVerdict(corevalidation.ValidateEndpointIP(text, root))
		case "percent":
			value := intstr.FromString(text)
			errors := appsvalidation.ValidatePositiveIntOrPercent(value, root)
			out = listVerdict(append(errors, appsvalidation.IsNotMoreThan100Percent(value, root)...))
		case "deletion-cost":
			annotations := map[string]string{core.PodDeletionCost: text}
			if _, err := helper.GetDeletionCostFromPodAnnotations(annotations); err != nil {
				out = "refused"
			} else {
				out = "ok"
			}
		case "yaml-json":
			if converted, err := yaml.YAMLToJSON([]byte(text)); err != nil {
				out = "refused"
			} else {
				out = "ok " + string(converted)
			}
		case "cron":
			if _, err := cron.ParseStandard(text); err != nil {
				out = "refused"
			} else {
				out = "ok"
			}
		case "duration":
			if _, err := time.ParseDuration(text); err != nil {
				out = "refused"
			} else {
				out = "ok"
			}
		default:
			panic(mode)
		}
		fmt.Println(out)
	}
}
"""


@pytest.fixture(scope="module")
def kubernetes(tmp_path_factory):
    binary = build_with_kubernetes(tmp_path_factory.mktemp("kubernetes-oracle"), _MAIN,
                                   "Kubernetes' own Go functions are the oracle of this test")
    return lambda mode, texts: ask(binary, texts, mode)


NAMES = ["a", "model-cache", "nim.example.com", "a1-b2", "0", "x" * 63, "my.app_1", "Nvidia-1-GPU"]
NAME_ALPHABET = "abcz09-._A/%: ÿé\n"
CASES = {
    "dns1123-label": (dns1123_label_problem, NAMES, NAME_ALPHABET, 63),
    "dns1035-label": (dns1035_label_problem, NAMES, NAME_ALPHABET, 63),
    "dns1123-subdomain": (dns1123_subdomain_problem, NAMES, NAME_ALPHABET, 253),
    "qualified-name": (qualified_name_problem, NAMES + ["nvidia.com/gpu", "a/b/c", "/x", "example.com/"],
                       NAME_ALPHABET, 63),
    "label-value": (label_value_problem, NAMES + [""], NAME_ALPHABET, 63),
    "config-map-key": (config_map_key_problem, NAMES + ["..data", ".env", "a..b"], NAME_ALPHABET, 253),
    "env-name": (env_name_problem, ["NGC_API_KEY", "a.b-c", "1X", "A=B", ""], "AZ_09=.- \t~\x7fé", 0),
    "port-name": (port_name_problem, ["http", "grpc-2", "a-b-c", "9090", "-x", "x" * 15], "az09-A_", 15),
    "path-segment": (path_segment_name_problem, ["role", ".", "..", "a:b", "A/B", "a%2f"], "a./%:", 0),
    "resource-name": (container_resource_name_problem, ["cpu", "memory", "ephemeral-storage", "hugepages-2Mi",
                                                        "nvidia.com/gpu", "requests.nvidia.com/gpu", "gpu",
                                                        "kubernetes.io/x", "example.com/a_b"], "az.-/_09", 0),
}


@pytest.mark.parametrize("mode", sorted(CASES))
def test_names_and_keys_as_kubernetes_judges_them(kubernetes, mode):
    problem, seeds, alphabet, longest = CASES[mode]
    texts = near(random.Random(mode), seeds, alphabet, 2000, longest)
    answers = kubernetes(mode, texts)
    assert "ok" in answers and "refused" in answers
    wrong = [(text, go) for text, go in zip(texts, answers, strict=True) if (problem(text) is None) != (go == "ok")]
    assert not wrong, wrong[:20]


QUANTITIES = ["1", "0", "-0", "+1", "100m", "1.5", ".5", "5.", "1Ki", "96Gi", "1024Ki", "1000m", "0.001", "1e3",
              "1E3", "1e-3", "1.5e2", "01k", "1k", "1000", "16Gi ", " 16Gi", "1Mi1", "e3", "1ee3", "1e+3", "9" * 20,
              "1n", "1u", "0.1n", "123456789012345678901234567890", "1Ei", "8Ei", "1P", "1.0Gi", "7", "1023Ki"]


def test_quantities_as_apimachinery_reads_and_writes_them(kubernetes):
    texts = near(random.Random("quantity"), QUANTITIES, "0159.+-eEkKMGTPinum ", 4000)
    # apimachinery spins for seconds or more on an exponent beyond 32 bits (1e2147483648), and on a long
    # number with a long exponent (Quantity.String() of 12345678901234567890123E567890): left out
    texts = [text for text in texts if not re.search(r"[eE][-+]?[0-9]{10}", text)
             and not (re.search(r"[0-9]{19}", text) and re.search(r"[eE][-+]?[0-9]{5}", text))]
    answers = kubernetes("quantity", texts)
    assert any(a.startswith("ok") for a in answers) and "refused" in answers
    wrong = []
    for text, go in zip(texts, answers, strict=True):
        ours = go_quantity_string(text)
        if (ours is None) != (go == "refused") or (ours is not None and go != f"ok {ours}"):
            wrong.append((text, go, ours))
    assert not wrong, wrong[:20]


ADDRESSES = ["10.9.8.7", "010.9.8.7", "256.1.1.1", "1.2.3", "::1", "2001:db8::ffff", "::ffff:10.1.2.3",
             "fe80::1%eth0", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "::", "0.0.0.0", "127.0.0.1", "169.254.1.1",
             "224.0.0.1", "ff02::1", "ff05::1", "::ffff:127.0.0.1", "1.2.3.4 ", "1::2::3", "::ffff:010.1.2.3",
             "0x1.2.3.4", "00000000000001.2.3.4", "2001:0db8::1", "2001:00db8::1", "::1.2.3.4"]


@pytest.mark.parametrize("mode", ["ip-sloppy", "ip-strict", "ip-legacy", "endpoint-ip"])
def test_addresses_as_kubernetes_reads_them(kubernetes, mode):
    texts = near(random.Random(mode), ADDRESSES, "0123456789abcdef.:f%x ", 3000)
    if mode == "endpoint-ip":  # ValidateEndpointIP is called on an address the sloppy parser took
        texts = [text for text in texts if is_ip_sloppy(text)]
    answers = kubernetes(mode, texts)
    assert "ok" in answers and "refused" in answers
    ours = {"ip-sloppy": lambda t: is_ip_sloppy(t), "ip-strict": lambda t: ip_problem(t, True) is None,
            "ip-legacy": lambda t: ip_problem(t, False) is None,
            "endpoint-ip": lambda t: endpoint_ip_problem(t) is None}[mode]
    wrong = [(text, go) for text, go in zip(texts, answers, strict=True) if ours(text) != (go == "ok")]
    assert not wrong, wrong[:20]


CIDRS = ["10.0.0.0/8", "10.0.0.1/8", "010.0.0.0/8", "10.0.0.0/08", "10.0.0.0/33", "10.0.0.0/", "2001:db8::/64",
         "2001:db8::1/64", "::ffff:10.0.0.0/104", "0.0.0.0/0", "::/0", "10.0.0.0/-1", "10.0.0.0/ 8", "1.2.3.4/32"]


@pytest.mark.parametrize("mode", ["cidr-strict", "cidr-legacy"])
def test_cidrs_as_kubernetes_reads_them(kubernetes, mode):
    texts = near(random.Random(mode), CIDRS, "0123456789abcdef.:/ ", 3000)
    answers = kubernetes(mode, texts)
    assert "ok" in answers and "refused" in answers
    strict = mode == "cidr-strict"
    wrong = [(text, go) for text, go in zip(texts, answers, strict=True)
             if (parse_cidr(text, strict)[1] is None) != (go == "ok")]
    assert not wrong, wrong[:20]


SCHEDULES = ["*/5 * * * *", "0 0 * * *", "0 0 1 1 *", "@hourly", "@daily", "@every 1h30m", "@every 0",
             "@every -1s", "@yearly ", "0 0 * * MON-FRI", "0 0 * JAN,jul *", "60 * * * *", "0 24 * * *",
             "0 0 0 * *", "0 0 32 * *", "0 0 * 13 *", "0 0 * * 7", "1-5/2 * * * *", "5-1 * * * *", "*/0 * * * *",
             "? * * * *", "0 0 ? * *", "TZ=UTC 0 0 * * *", "CRON_TZ=Europe/Paris 0 0 * * *", "TZ=Nowhere 0 * * * *",
             "0  0\t*\u00a0*\u2003*", "0 0 * * *\u0085",
             "* * * *", "* * * * * *", "-1 * * * *", "+1 * * * *", "0,,5 * * * *", "TZ=Europe 0 * * * *",
             "TZ=UTC/ 0 0 * * *", "CRON_TZ=Europe//Paris 0 0 * * *", "0 0 * * *\x1c"]


def test_cron_schedules_as_robfig_cron_reads_them(kubernetes):
    texts = near(random.Random("cron"), SCHEDULES, "0123456789*/-,? @MONjanTZ=\t\u00a0\u2003", 4000)
    answers = kubernetes("cron", texts)
    assert "ok" in answers and "refused" in answers
    wrong = [(text, go) for text, go in zip(texts, answers, strict=True)
             if (schedule_problem(text) is None) != (go == "ok")]
    assert not wrong, wrong[:20]


DURATIONS = ["1h30m", "0", "-0", "+0", "1.5h", ".5s", "5.s", "1us", "1\u00b5s", "1\u03bcs", "1ns", "1d", "h",
             "1", "", "9223372036854775807ns", "9223372036854775808ns", "2562047h", "2562048h", "1e3s", "1h-1m"]


def test_durations_as_go_reads_them(kubernetes):
    texts = near(random.Random("duration"), DURATIONS + ["9223372036854775808ns9223372036854775808ns",
                                                          "-9223372036854775808ns", "0.00000000000000000001h"],
                  "0123456789.+-hmsun\u00b5d", 4000)
    answers = kubernetes("duration", texts)
    assert "ok" in answers and "refused" in answers
    wrong = [(text, go) for text, go in zip(texts, answers, strict=True)
             if (duration_problem(text) is None) != (go == "ok")]
    assert not wrong, wrong[:20]


def test_percentages_and_deletion_costs_as_kubernetes_reads_them(kubernetes):
    percents = near(random.Random("percent"), ["50%", "0%", "100%", "101%", "007%", "%", "5", "-5%",
                                                "99999999999999999999%", "1.5%", " 5%"], "0123456789%.- +", 3000)
    costs = near(random.Random("cost"), ["0", "10", "-10", "-007", "007", "+7", "2147483647", "2147483648",
                                          "-2147483648", "-2147483649", "", "1e3", " 1"], "0123456789-+ e", 3000)
    for mode, texts, ours in (("percent", percents, int_or_percent_problem), ("deletion-cost", costs,
                                                                              _deletion_cost_problem)):
        answers = kubernetes(mode, texts)
        assert "ok" in answers and "refused" in answers
        wrong = [(text, go) for text, go in zip(texts, answers, strict=True) if (ours(text) is None) != (go == "ok")]
        assert not wrong, (mode, wrong[:20])


SCALARS = ["1", "-1", "0", "007", "0o17", "0x1F", "0b101", "1_000", "9223372036854775807",
           "1.0", "1.5", "1e3", "1E-7", "1.5e20", "1.5e21", ".5",
           "-.5", "0.1", "1e400", ".inf", ".nan", "y", "n", "yes", "off", "true", "True", "null", "~", "",
           "2026-12-02", "2026-12-02T10:00:00Z", "12:30", "a<b", "a&b", "'quoted'", '"\\u2028"', '"\\t"',
           "text", "- x", "!!str 1", "!!float 1", "!!int 1.5", "[1, 2.5]", "{a: 1}", "0.000001", "0.0000001",
           "-0", "+1", "1__0", "0x_1", "1e", "1.2.3"]  # -0.0: kubectl sends -0, the loader keeps 0 (as read)


def test_yaml_as_kubectl_sends_it_as_json(kubernetes):
    """The JSON text sigs.k8s.io/yaml makes of YAML, byte for byte, against marshal() of what dgdlint loads.
    Integers past int64 are left out: the loader keeps them as the float the server reads, so the digits
    kubectl sends (18446744073709551615) are not kept."""
    rng = random.Random("yaml")
    texts = []
    for _ in range(3000):
        keys = rng.sample(["a", "b", "c", "d", "<", "z"], rng.randrange(1, 4))
        texts.append("".join(f"{key}: {rng.choice(SCALARS)}\n" for key in keys))
    answers = kubernetes("yaml-json", texts)
    assert any(a.startswith("ok") for a in answers) and "refused" in answers
    wrong = []
    for text, go in zip(texts, answers, strict=True):
        loaded = load_text("oracle.yaml", text)
        refused = any(f.severity == "error" for f in loaded.findings) or len(loaded.documents) != 1
        ours = "refused" if refused else "ok " + marshal(loaded.documents[0].value)
        if ours != go:
            wrong.append((text, go, ours))
    assert not wrong, wrong[:10]
