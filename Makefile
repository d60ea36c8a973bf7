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
OUT    ?= out

.PHONY: setup render validate test test-fast lint docs docs-check bench clean package

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,cluster]'
	touch $(STAMP)

## render PRESET=<name>: print the manifests of values/<name>.yaml
render: setup
	$(BIN)/dgdlint render --chart $(CHART) -f values/$(PRESET).yaml --release $(RELEASE) --namespace $(NAMESPACE)

## validate: render every preset and check it (schema stage when the CRD is at hand), fail on any error
validate: setup
	$(BIN)/python -m dgdlint.tools.validate_presets --chart $(CHART) --values-dir values --crd-if-present $(CRD) --out $(OUT)/presets

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
	$(BIN)/python -m dgdlint.tools.bench --crd $(CRD)

DIST   ?= dist

## package: build $(DIST)/cosmos3-reasoner-<version>.tgz with the helm binary when on PATH, else the embedded Helm SDK
package: setup
	mkdir -p $(DIST)
	if command -v helm >/dev/null 2>&1; then helm package $(CHART) --destination $(DIST); \
	else $(BIN)/python -c 'import sys, helm_python; print(helm_python.package(sys.argv[1], destination=sys.argv[2]))' $(CHART) $(DIST); fi

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache
