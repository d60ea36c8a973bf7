# Every target installs what it needs through `setup`; a fresh clone with Python 3.11 is enough.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CHART  := charts/cosmos3-reasoner
PRESET ?= nano-fp8
RELEASE ?= cosmos3-reasoner
NAMESPACE ?= default
CRD    ?= ../shared/reference/dynamo-crds/nvidia.com_dynamographdeployments.yaml
DYNAMO_CRDS ?= ../shared/reference/dynamo-crds
DYNAMO_VERSION ?=
OUT    ?= out

.PHONY: setup render validate test test-fast lint docs docs-check bench clean package schemas

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,cluster]'
	touch $(STAMP)

## render PRESET=<name>: print the manifests of values/<name>.yaml
render: setup
	$(BIN)/dgdlint render --chart $(CHART) -f values/$(PRESET).yaml --release $(RELEASE) --namespace $(NAMESPACE)

## validate: render every preset and check it (bundled schemas of DYNAMO_VERSION, default the newest), fail on any error
validate: setup
	$(BIN)/python -m dgdlint.tools.validate_presets --chart $(CHART) --values-dir values --dynamo-version "$(DYNAMO_VERSION)" --out $(OUT)/presets

## schemas: regenerate schemas/ (one tree per Dynamo release) from the upstream CRDs in DYNAMO_CRDS
schemas: setup
	$(BIN)/dgdlint schemas write --out schemas --release 1.1.0 --repository ai-dynamo/dynamo --ref v1.1.0 \
	  --commit 0dd5374474c497f3dacc4fabdbac5c6f275e5acb --date 2026-05-04 \
	  $(foreach kind,dynamographdeployments dynamographdeploymentrequests dynamocomponentdeployments,\
	    --crd $(DYNAMO_CRDS)/releases/1.1.0/nvidia.com_$(kind).yaml)
	$(BIN)/dgdlint schemas write --out schemas --release 1.5.0-dev --repository ai-dynamo/dynamo --ref main \
	  --commit 2a6da14c83617f5412caba5777dbf0e2399e9c5f --date 2026-08-21 \
	  $(foreach kind,dynamographdeployments dynamographdeploymentrequests dynamocomponentdeployments,\
	    --crd $(DYNAMO_CRDS)/nvidia.com_$(kind).yaml)

test: setup
	$(BIN)/python -m pytest -n 2 -q

test-fast: setup
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

lint: setup
	$(BIN)/ruff check validate tests
	$(BIN)/python -m dgdlint.tools.helm_lint $(CHART)

docs: setup
	$(BIN)/python -m dgdlint.tools.gendocs --write

docs-check: setup
	$(BIN)/python -m dgdlint.tools.gendocs --check

bench: setup
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m dgdlint.tools.bench

DIST   ?= dist

## package: build $(DIST)/cosmos3-reasoner-<version>.tgz with the helm binary when on PATH, else the embedded Helm SDK
package: setup
	mkdir -p $(DIST)
	if command -v helm >/dev/null 2>&1; then helm package $(CHART) --destination $(DIST); \
	else $(BIN)/python -c 'import sys, helm_python; print(helm_python.package(sys.argv[1], destination=sys.argv[2]))' $(CHART) $(DIST); fi

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache
