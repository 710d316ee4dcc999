# Two entry points for a fresh machine:
#   make demo   set up .venv and run the grid of model_matrices/local.yaml on the embedded models
#   make test   set up .venv and run the test suite (unit tests + one end-to-end local run)
#   make test-fast  the suite without its slow tests, for the inner loop
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

# llama-cpp-python has no binary wheel here and is compiled from source (~5 min on 2 cores).
# A portable AVX2 build: llama.cpp's native build turns on AMX kernels, which crash on these
# machines (segfault on the first decode). LLAVA_BUILD=OFF: no multimodal library (mtmd), which
# the text-only judges never load (llama_cpp imports it only for an image chat handler): 16% less
# compile CPU (540 -> 454 s user+sys, the same sdist built both ways in one run), the same tokens.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAVA_BUILD=OFF
# No hub, no price-map download: everything runs offline.
export HF_HUB_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True

.PHONY: demo test test-fast install lint browser bench docs docs-outputs docs-check docs-serve

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# built with CMAKE_ARGS above; --no-cache-dir: never reuse a wheel built with other flags
	$(BIN)/python -m pip install --progress-bar off --no-cache-dir 'llama-cpp-python>=0.3.0'
	$(BIN)/python -m pip install --progress-bar off -e '.[local,dev,docs]'
	# the tests' G-Eval oracle, without its requirements (pyproject.toml's dev extra says why);
	# what it imports is already here, portalocker aside
	$(BIN)/python -m pip install --progress-bar off --no-deps 'deepeval==4.3.1' 'portalocker==4.4.2'
	touch $@

# The 270M embedded judge fails a few cells (cut-off or looping JSON, ~3%); each is kept with its
# cause. --fail-under: exit 0 while at least 80% of the attempted cells scored
# (docs/errors.md#exit-codes).
demo: install
	$(BIN)/judgegrid run model_matrices/local.yaml --fail-under 0.8

# Debian's Chromium, for the test that opens the HTML report headless (tests/outputs/test_report_browser.py)
browser:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium)

# The whole suite on one worker per core, at most TEST_WORKERS (pytest-xdist; --dist loadgroup
# from pyproject.toml): each test has its own working and cache directories, and tests/conftest.py
# keeps together what must not run side by side (Ray) or shares a run (the local models' modules).
# `make test TEST_WORKERS=1` for one process. test-fast: the same without the slow tests (local
# models, headless Chromium, killed and resumed runs; pytest -m slow), for the inner loop.
TEST_WORKERS ?= 2
PYTEST_WORKERS := -n logical --maxprocesses $(TEST_WORKERS)

test: install browser
	$(BIN)/python -m pytest $(PYTEST_WORKERS) -m "not docs_demo"

test-fast: install
	$(BIN)/python -m pytest $(PYTEST_WORKERS) -m "not slow and not docs_demo"

# the docs' pasted outputs of the demo against a demo run now (or make docs-outputs' kept run,
# if it ran on these very sources): minutes on the local models, so not in `make test`, whose
# other doc-output tests (every output that needs no model) run on stand-in judges
docs-check: install
	$(BIN)/python -m pytest tests/docs/test_doc_outputs.py -m docs_demo

# every benchmark of benches/ (the labels bench alone: 15-30 minutes), one table of figures at the end
bench: install
	$(BIN)/python benches/run_all.py

# style, the layering contracts of pyproject.toml ([tool.importlinter]) and the type checker
lint: install
	$(BIN)/ruff check src tests benches docs/hooks
	$(BIN)/ruff format --check src tests benches docs/hooks
	$(BIN)/lint-imports
	$(BIN)/mypy

# the documentation site (docs/, mkdocs.yml) into site/; --strict: a broken link, a missing page
# or a reference that does not resolve fails the build
docs: install docs-outputs
	$(BIN)/mkdocs build --strict --site-dir site

# the program's outputs the pages include (docs/outputs/*.txt), written by running the program:
# the demo on the embedded models once (minutes; kept in reports/.docs-demo/ and reused while
# src/judgegrid and the demo's matrix are unchanged), the rest on stand-in judges (a few minutes).
# tests/docs/test_doc_outputs.py fails when a file differs from what the program prints now.
docs-outputs: install
	$(BIN)/python docs/hooks/doc_outputs.py

# serve the site while editing docs/, on 127.0.0.1 only
docs-serve: install
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000
