# Every target installs what it needs through `setup`; a fresh clone with Python 3.11 is enough.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CHART  := charts/cosmos3-reasoner
PRESET ?= nano-fp8
RELEASE ?= cosmos3-reasoner
NAMESPACE ?= default
# DYNAMO_CRDS: the folder of upstream Dynamo CRDs `make schemas` regenerates schemas/ from (no default:
# the CRDs are not part of this repository)
DYNAMO_CRDS ?=
DYNAMO_VERSION ?=
OUT    ?= out
TOOLS  := .tools/bin
# the Helm 3 CLI `make tools` built, else a helm on PATH, else none (the embedded SDK stands in)
HELM   ?= $(firstword $(wildcard $(TOOLS)/helm) $(shell command -v helm 2>/dev/null))

MAKEFLAGS += --no-print-directory

.PHONY: setup render validate test test-slow test-fast lint docs docs-check bench clean package schemas tools

setup: $(STAMP)

# Quiet on stdout (progress on stderr), so that `make render > manifests.yaml` holds only manifests.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) >&2
	@$(BIN)/python -m pip install --quiet --upgrade pip >&2
	@$(BIN)/python -m pip install --quiet -e '.[test,cluster,helm]' >&2
	@touch $(STAMP)

## tools: build helm (3), helm4, kubeconform, etcd and kube-apiserver at pinned versions into .tools/bin (needs Go)
tools:
	@tools/build.sh

## render PRESET=<name>: print the manifests of values/<name>.yaml (`nano-fp8` or `nano-fp8.yaml`), nothing else
render: setup
	@preset='$(basename $(notdir $(PRESET)))'; \
	if [ ! -f "values/$$preset.yaml" ]; then \
	  echo "make render: no preset '$(PRESET)'; the presets are:" >&2; ls values | sed 's/\.yaml$$//; s/^/  /' >&2; exit 2; \
	fi; \
	$(BIN)/dgdlint render --chart $(CHART) -f "values/$$preset.yaml" --release $(RELEASE) --namespace $(NAMESPACE)

## validate: render every preset and check it (bundled schemas of DYNAMO_VERSION, default the newest), fail on any error
validate: setup
	$(BIN)/python -m dgdlint.tools.validate_presets --chart $(CHART) --values-dir values --dynamo-version "$(DYNAMO_VERSION)" --out $(OUT)/presets \
		--kubeconform $(TOOLS)/kubeconform

## schemas: regenerate schemas/ (one tree per Dynamo release) from the upstream CRDs in DYNAMO_CRDS
schemas: setup
	@test -n "$(DYNAMO_CRDS)" || { echo "make schemas: give DYNAMO_CRDS=<folder of the upstream Dynamo CRDs>" >&2; exit 2; }
	$(BIN)/dgdlint schemas write --out schemas --release 1.1.0 --repository ai-dynamo/dynamo --ref v1.1.0 \
	  --commit 0dd5374474c497f3dacc4fabdbac5c6f275e5acb --date 2026-05-04 \
	  $(foreach kind,dynamographdeployments dynamographdeploymentrequests dynamocomponentdeployments,\
	    --crd $(DYNAMO_CRDS)/releases/1.1.0/nvidia.com_$(kind).yaml)
	$(BIN)/dgdlint schemas write --out schemas --release 1.5.0-dev --repository ai-dynamo/dynamo --ref main \
	  --commit 2a6da14c83617f5412caba5777dbf0e2399e9c5f --date 2026-08-21 \
	  $(foreach kind,dynamographdeployments dynamographdeploymentrequests dynamocomponentdeployments,\
	    --crd $(DYNAMO_CRDS)/nvidia.com_$(kind).yaml)

## test: the whole suite, the real-tool tiers included (`make tools` first; they skip, saying why, without Go)
test: setup tools
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m "not slow"

## test-slow: the slow tier (mutation tests, property tests, corpus round trips); CI runs it after `make test`
test-slow: setup tools
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m slow

test-fast: setup
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

lint: setup
	$(BIN)/ruff check validate tests
	$(BIN)/python -m dgdlint.tools.helm_lint $(CHART) values $(TOOLS)/helm $(TOOLS)/helm4

docs: setup
	$(BIN)/python -m dgdlint.tools.gendocs --write

docs-check: setup
	$(BIN)/python -m dgdlint.tools.gendocs --check

bench: setup
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m dgdlint.tools.bench

DIST   ?= dist

## package: build $(DIST)/cosmos3-reasoner-<version>.tgz with the Helm 3 CLI (HELM), else the embedded Helm SDK
package: setup
	@mkdir -p $(DIST)
	@if [ -n "$(HELM)" ]; then echo "packaging with $(HELM) ($$($(HELM) version --short))"; $(HELM) package $(CHART) --destination $(DIST); \
	else echo "packaging with the embedded Helm SDK (no helm CLI: make tools builds one)"; $(BIN)/python -c 'import sys, helm_python; print(helm_python.package(sys.argv[1], destination=sys.argv[2]))' $(CHART) $(DIST); fi

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache
