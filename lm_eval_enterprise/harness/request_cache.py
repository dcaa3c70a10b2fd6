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

The file is lm-eval's (``--use_cache``: one SQLite table ``unnamed`` of key → pickled answer, keys from
``lm_eval.api.model.hash_args``), so caches written by either read in both; ``run`` reads and writes it through
:class:`CachedModel` instead of lm-eval's ``CachingLM``, which looks every request up and commits every answer in a
transaction of its own through a worker thread (~0.5 ms of CPU and more of waiting per request: seconds per
10,000 requests, as much as the model's own time at GPU speed). :class:`CachedModel` looks the requests up in
batches and writes the answers in one transaction per 0.1 s, as soon as the backend returns them (``hf``,
``vllm`` and the API backends call the cache hook per request) and when a request type is done or interrupted,
so a killed run keeps all but the last tenth of a second of answers. lm-eval builds it as any model
(:func:`through_cache`: a registered model name), so its seeding, model construction and logs are unchanged.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

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


# ============================================================================================ the cached model
CACHED_MODEL = "lm-eval-enterprise-answer-cache"  # the model name lm-eval builds a cached model under
FLUSH_SECONDS = 0.1  # answers are written at least this often while a backend returns them
LOOKUP_CHUNK = 500  # keys per SELECT (SQLite's default limit of variables is 999 or more)
TABLE = "unnamed"  # lm-eval's (sqlitedict's default) table: key TEXT PRIMARY KEY, value BLOB (pickled)
log = logging.getLogger(f"lm_eval.{__name__}")  # shown with lm-eval's own lines, as its CachingLM's were


class CachedModel:
    """A model whose answers are read from and written to the answer cache file ``path`` (module docstring):
    lm-eval's ``CachingLM`` contract — the same keys, file and table, sampled generations (``do_sample``) never
    served from the cache, the backend's cache hook storing each answer as it comes — with batched SQLite I/O.
    Everything but the three request methods is the wrapped model's."""

    def __init__(self, lm, path: str | os.PathLike) -> None:
        self.lm = lm
        self.path = str(path)
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path)
        self._db.execute(f'CREATE TABLE IF NOT EXISTS "{TABLE}" (key TEXT PRIMARY KEY, value BLOB)')
        self._db.commit()
        self._pending: dict[str, Any] = {}
        self._flushed = time.monotonic()
        lm.set_cache_hook(_CacheHook(self))

    def __getattr__(self, name: str):
        return getattr(self.lm, name)

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        return self._answer("loglikelihood", requests)

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        return self._answer("loglikelihood_rolling", requests)

    def generate_until(self, requests, disable_tqdm: bool = False):
        return self._answer("generate_until", requests)

    def _answer(self, method: str, requests: list) -> list:
        """The cached answers of ``requests`` and the backend's for the others, stored as they come."""
        from lm_eval.api.model import hash_args

        keys = [hash_args(method, req.args) for req in requests]
        sampled = [method == "generate_until" and bool(req.args[1].get("do_sample", False)) for req in requests]
        if any(sampled):
            log.warning("Requests of %s sample their generations: their answers are not served from the cache", method)
        found = self._lookup([k for k, s in zip(keys, sampled) if not s])
        todo = [i for i, (k, s) in enumerate(zip(keys, sampled)) if s or k not in found]
        log.info("Cached requests: %d, Requests remaining: %d", len(requests) - len(todo), len(todo))
        out = [found.get(k) for k in keys]
        try:
            answers = getattr(self.lm, method)([requests[i] for i in todo]) if todo else []
            for i, answer in zip(todo, answers, strict=True):
                out[i] = answer
                self.store(keys[i], answer)
        finally:
            self.flush()
        return out

    def _lookup(self, keys: list[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for start in range(0, len(keys), LOOKUP_CHUNK):
            chunk = keys[start : start + LOOKUP_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f'SELECT key, value FROM "{TABLE}" WHERE key IN ({marks})', chunk)
            found.update((k, pickle.loads(bytes(v))) for k, v in rows)
        return found

    def store(self, key: str, answer: Any) -> None:
        """Keep ``answer``; written with the others of the last :data:`FLUSH_SECONDS`."""
        self._pending[key] = answer
        if time.monotonic() - self._flushed >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Write the kept answers in one transaction (lm-eval's encoding: the answer pickled)."""
        if self._pending:
            rows = [
                (k, sqlite3.Binary(pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL))) for k, v in self._pending.items()
            ]
            with self._db:
                self._db.executemany(f'REPLACE INTO "{TABLE}" (key, value) VALUES (?,?)', rows)
            self._pending.clear()
        self._flushed = time.monotonic()


class _CacheHook:
    """What a backend calls with each answer it computes (lm-eval's ``CacheHook`` interface)."""

    def __init__(self, cache: CachedModel) -> None:
        self.cache = cache

    def add_partial(self, attr: str, req, res) -> None:
        from lm_eval.api.model import hash_args

        self.cache.store(hash_args(attr, req), res)


class _CachedModelFactory:
    """What lm-eval's model registry holds under :data:`CACHED_MODEL`: builds the model it was set to
    (:func:`through_cache`) with lm-eval's own arguments and wraps it in :class:`CachedModel`."""

    model: str | None = None
    prefix: str | None = None

    def create_from_arg_obj(self, arg_dict: dict, additional_config: dict | None = None) -> CachedModel:
        from lm_eval.api.registry import get_model

        return self._cached(get_model(self.model).create_from_arg_obj(arg_dict, additional_config))

    def create_from_arg_string(self, arg_string: str, additional_config: dict | None = None) -> CachedModel:
        from lm_eval.api.registry import get_model

        return self._cached(get_model(self.model).create_from_arg_string(arg_string, additional_config))

    def _cached(self, lm) -> CachedModel:
        rank = lm.rank or int(os.environ.get("LOCAL_RANK", "0"))  # lm-eval's per-rank file, as for its own cache
        return CachedModel(lm, f"{self.prefix}_rank{rank}.db")


_FACTORY = _CachedModelFactory()


def through_cache(model: str, prefix: str | os.PathLike) -> str:
    """The model name to hand ``lm_eval.simple_evaluate`` (with ``use_cache=None``) for ``model`` answering through
    the cache files of ``prefix`` (:func:`cache_prefix`); restore the run's own names in its records with
    :func:`restore_model_name`."""
    import lm_eval.models  # noqa: F401  (lm-eval registers its built-in models only into an empty registry)
    from lm_eval.api.registry import model_registry

    if CACHED_MODEL not in model_registry:
        model_registry.register(CACHED_MODEL, target=_FACTORY)
    _FACTORY.model, _FACTORY.prefix = model, str(prefix)
    return CACHED_MODEL


def restore_model_name(results: dict, tracker, model: str, prefix: str | os.PathLike) -> None:
    """The records of a run built through :func:`through_cache` as lm-eval writes them for ``model`` with
    ``use_cache=prefix``: ``config.model``, ``config.use_cache`` and the tracker's model source."""
    results["config"]["model"] = model
    results["config"]["use_cache"] = str(prefix)
    if tracker is not None:
        tracker.general_config_tracker.model_source = model
