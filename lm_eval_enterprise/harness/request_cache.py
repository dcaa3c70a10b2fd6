"""The resumable answer cache of ``lm-eval-enterprise run`` (README: "Long runs").

lm-eval's ``--use_cache <path>`` stores every model answer in one SQLite file keyed by the request alone (the
prompt, the continuation or the generation settings): a different model pointed at the same file is served the
first model's answers. ``run`` therefore gives every *model identity* its own file, and enables it by default, so
that rerunning a command that died continues where it stopped:

* the identity (:func:`model_identity`) is the backend name, every ``--model_args`` value (dtype included), the
  model's revision (the hub snapshot's commit, or for a local folder a fingerprint of its config, tokenizer and
  chat-template files and the names and sizes of its weight files), the chat-template settings
  (``--apply_chat_template``, ``--fewshot_as_multiturn``, ``--system_instruction``) and the decoding settings
  (``--gen_kwargs``); its SHA-256 names the file (:func:`cache_prefix`);
* inside that file lm-eval's own key is used, one entry per request: the full prompt and continuation (or the
  generation arguments: stop sequences, token budget, sampling) — the task configuration the model sees. A task
  whose template, shots or generation settings change makes new requests, and a sparse ``--cell_budget`` run or a
  different ``--limit`` reuses exactly the answers of the requests it shares;
* sampled generations (``do_sample``) are never cached (lm-eval's rule).

lm-eval writes an answer as soon as the backend returns it (``hf``, ``vllm`` and the API backends call the cache
hook per request), so a killed run keeps what was answered.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from pathlib import Path

ENV_REQUEST_CACHE = "LM_EVAL_ENTERPRISE_REQUEST_CACHE"
RANK_SUFFIX = "_rank0.db"  # lm-eval appends _rank<r>.db to the --use_cache prefix (one file per process rank)
# files of a local model folder that decide its answers besides the weights (hashed whole; weights: name and size)
SMALL_MODEL_FILES = (
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "chat_template.jinja",
    "chat_template.json",
    "vocab.json",
    "merges.txt",
    "tokenizer.model",
)
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".gguf", ".pth")


def default_folder() -> Path:
    """``$LM_EVAL_ENTERPRISE_REQUEST_CACHE``, else ``$XDG_CACHE_HOME/lm-eval-enterprise/requests`` (``~/.cache``)."""
    if os.environ.get(ENV_REQUEST_CACHE):
        return Path(os.environ[ENV_REQUEST_CACHE]).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lm-eval-enterprise" / "requests"


def _local_fingerprint(folder: Path) -> str:
    h = hashlib.sha256()
    for name in SMALL_MODEL_FILES:
        f = folder / name
        if f.is_file():
            h.update(name.encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
    for f in sorted(p for p in folder.iterdir() if p.suffix in WEIGHT_SUFFIXES and p.is_file()):
        h.update(f"{f.name}\0{f.stat().st_size}".encode())
    return "local:" + h.hexdigest()


def model_revision(model_args: dict) -> str | None:
    """What pins the weights of ``pretrained`` / ``model``: a local folder's fingerprint, the commit of a cached hub
    snapshot (``revision`` or ``main``), else the ``revision`` given (None: nothing known; the model_args still
    name the model)."""
    name = model_args.get("pretrained") or model_args.get("model")
    if not isinstance(name, str) or not name:
        return None
    folder = Path(name).expanduser()
    if folder.is_dir():
        return _local_fingerprint(folder)
    revision = str(model_args.get("revision") or "main")
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(name, "config.json", revision=revision)
    except Exception:  # noqa: BLE001 - not a hub id (an API model name): the revision given, if any
        found = None
    if isinstance(found, str):
        return "hub:" + Path(found).parent.name  # .../snapshots/<commit sha>/config.json
    return f"revision:{revision}"


def model_identity(
    model: str,
    model_args: dict | None,
    *,
    apply_chat_template=False,
    fewshot_as_multiturn=None,
    system_instruction=None,
    gen_kwargs=None,
) -> dict:
    """Everything besides the request that decides a model's answer (module docstring); JSON-serialisable."""
    args = {str(k): v for k, v in sorted((model_args or {}).items())}
    return {
        "model": model,
        "model_args": json.loads(json.dumps(args, default=str)),
        "revision": model_revision(args),
        "apply_chat_template": apply_chat_template,
        "fewshot_as_multiturn": fewshot_as_multiturn,
        "system_instruction": system_instruction,
        "gen_kwargs": json.loads(json.dumps(gen_kwargs, default=str, sort_keys=True)),
    }


def cache_prefix(folder: str | os.PathLike, identity: dict) -> Path:
    """``folder/<model>-<16 hex of the identity's SHA-256>``: the prefix lm-eval's ``use_cache`` takes."""
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    name = str((identity.get("model_args") or {}).get("pretrained") or identity["model"])
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name).name or name).strip("_")[:60] or "model"
    return Path(folder) / f"{identity['model']}-{slug}-{digest}"


def db_file(prefix: str | os.PathLike) -> Path:
    """The SQLite file lm-eval opens for ``use_cache=prefix`` (rank 0)."""
    return Path(f"{prefix}{RANK_SUFFIX}")


def stored_answers(db: str | os.PathLike) -> int:
    """Answers stored in a cache file (0 when it does not exist or is not readable yet)."""
    if not Path(db).is_file():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute('SELECT COUNT(*) FROM "unnamed"').fetchone()[0])
    except sqlite3.Error:
        return 0


def write_identity(prefix: Path, identity: dict) -> None:
    """``<prefix>.json`` next to the cache file: which model and settings it holds (for a person reading the
    folder; the file name already carries the identity's hash)."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{prefix}.json").write_text(json.dumps(identity, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def clear(prefix: Path) -> int:
    """Delete the cache file(s) of ``prefix`` (every rank) and its identity note; returns the files removed."""
    removed = 0
    for f in prefix.parent.glob(f"{prefix.name}_rank*.db*"):
        f.unlink()
        removed += 1
    note = Path(f"{prefix}.json")
    if note.exists():
        note.unlink()
    return removed


def folder_size(folder: str | os.PathLike) -> int:
    """Bytes of every file in ``folder`` (0 when absent)."""
    root = Path(folder)
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) if root.is_dir() else 0
