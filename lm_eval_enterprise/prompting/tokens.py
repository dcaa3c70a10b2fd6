"""Counting the tokens of a prompt for the context budget (:mod:`lm_eval_enterprise.prompting.budget`).

:class:`TokenCounter` counts exactly with a Hugging Face tokenizer (``context_tokenizer``: the model's own), else
estimates ``ceil(chars / chars_per_token)``. Two things make exact counting cheap without changing a count:

* **bounds** (:meth:`TokenCounter.bound`): for a byte-level BPE tokenizer without a normalizer (GPT-2's scheme,
  used by SmolLM2, Llama 3, Qwen, …) every token covers at least one byte of the text, so a text has at most as
  many tokens as UTF-8 bytes (+ 1 when the pre-tokenizer adds a prefix space). The budget plans without counting
  whenever the bounds already fit; the character estimate is its own bound.
* **the tokenizer's own backend, from its file**: a fast tokenizer is a ``tokenizers`` backend plus Python
  wrapping; when the wrapping changes nothing (:func:`_direct_backend`) the count is taken from the backend
  (``encode_batch_fast``: the same ids without the offsets). Whether it does, the number of special tokens a prompt
  gets and the byte bound are found once with transformers' ``AutoTokenizer`` and kept as a small profile in the
  cache folder (``<cache>/.tokenizers/``, keyed by the SHA-256 of the tokenizer's files and the transformers and
  tokenizers versions); later runs build the backend from ``tokenizer.json`` alone, after checking it is the one
  ``AutoTokenizer`` builds (the same configuration but for the special-token template, truncation and padding, which
  do not apply to counts without special tokens). ``AutoTokenizer`` needs the model's configuration, which imports
  much of transformers and torch: seconds per run for an API model or the dummy one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
from dataclasses import asdict, dataclass
from functools import cached_property, lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_CHARS_PER_TOKEN = 3.0
PROFILE_VERSION = 1
PROFILE_FOLDER = ".tokenizers"
# the files AutoTokenizer reads (what a profile is keyed by)
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "config.json",
    "vocab.json",
    "merges.txt",
    "tokenizer.model",
)
# the backend configuration that does not matter for counting without special tokens
IGNORED_BACKEND_KEYS = ("post_processor", "truncation", "padding")
# what counting through the backend is checked against when a profile is made (added tokens, digits, accents)
_PROBES = ("Hello, world!\n\nAnswer: 12,345.67", "<|endoftext|> Ünïcödé — 日本語のテキスト", "  spaces\tand\ttabs  ")


@dataclass(frozen=True)
class TokenizerProfile:
    """What counting needs of a tokenizer (module docstring): ``direct`` — its ``tokenizer.json`` alone counts as
    the tokenizer does; ``special_tokens`` — tokens it adds around a prompt; ``byte_prefix`` — the byte bound's
    extra token (None: no byte bound)."""

    direct: bool
    special_tokens: int
    byte_prefix: int | None


class TokenCounter:
    """Counts tokens of a string: exactly with a HF tokenizer, else ``ceil(len(text) / chars_per_token)``."""

    def __init__(self, tokenizer: str | None = None, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN):
        if chars_per_token <= 0:
            raise ValueError(f"chars_per_token must be > 0, not {chars_per_token}")
        self.tokenizer_name = tokenizer or None
        self.chars_per_token = float(chars_per_token)
        self._profile, self._backend = _counting(tokenizer) if tokenizer else (None, None)

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        if self._backend is not None:
            return len(self._backend.encode_batch_fast([text], add_special_tokens=False)[0].ids)
        if self._profile is not None:
            return len(load_tokenizer(self.tokenizer_name)(text, add_special_tokens=False)["input_ids"])
        return math.ceil(len(text) / self.chars_per_token)

    @property
    def has_bound(self) -> bool:
        return self._profile is None or self._profile.byte_prefix is not None

    def bound(self, text: str) -> int:
        """An upper bound of ``self(text)`` (module docstring; only when :attr:`has_bound`)."""
        if not text:
            return 0
        if self._profile is None:
            return math.ceil(len(text) / self.chars_per_token)
        return len(text.encode("utf-8")) + self._profile.byte_prefix

    @cached_property
    def special_tokens(self) -> int:
        """Tokens a backend may add around a prompt (e.g. BOS): counted once per prompt."""
        return 1 if self._profile is None else self._profile.special_tokens

    def describe(self) -> str:
        return f"tokenizer:{self.tokenizer_name}" if self._profile is not None else f"chars/{self.chars_per_token:g}"


@lru_cache(maxsize=8)
def _counting(name: str):
    """(profile, backend to count with or None) of the tokenizer ``name``: the kept profile and the backend built
    from ``tokenizer.json`` when a run before found it equal; else found with ``AutoTokenizer`` now (and kept)."""
    files = _tokenizer_files(name)
    path = _profile_path(files)
    kept = _read_profile(path)
    if kept is not None and kept.direct:
        backend = _file_backend(files["tokenizer.json"])
        if backend is not None:
            return kept, backend
    tok = load_tokenizer(name)
    backend = _direct_backend(tok, files.get("tokenizer.json"))
    profile = TokenizerProfile(
        backend is not None, len(tok("", add_special_tokens=True)["input_ids"]), _byte_prefix(tok)
    )
    if path is not None and kept != profile:
        _write_profile(path, profile)
    return profile, backend


@lru_cache(maxsize=8)
def load_tokenizer(name: str):
    """The Hugging Face tokenizer ``name`` (``AutoTokenizer``), loaded once per process."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(name)


def _tokenizer_files(name: str) -> dict[str, Path]:
    """The tokenizer's files present on this machine (a local folder's, else those of the cached hub snapshot)."""
    folder = Path(name).expanduser()
    if folder.is_dir():
        return {f: folder / f for f in TOKENIZER_FILES if (folder / f).is_file()}
    out = {}
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return out
    for f in TOKENIZER_FILES:
        try:
            found = try_to_load_from_cache(name, f)
        except Exception:  # noqa: BLE001 - not a hub id: no files, no kept profile
            return {}
        if isinstance(found, str):
            out[f] = Path(found)
    return out


def _profile_path(files: dict[str, Path]) -> Path | None:
    """Where the profile of a tokenizer with these files is kept (None without a ``tokenizer.json``)."""
    if "tokenizer.json" not in files:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        versions = {p: version(p) for p in ("transformers", "tokenizers")}
    except PackageNotFoundError:
        return None
    h = hashlib.sha256(json.dumps({"profile": PROFILE_VERSION, **versions}, sort_keys=True).encode())
    for name, path in sorted(files.items()):
        h.update(f"\0{name}\0".encode() + hashlib.sha256(path.read_bytes()).digest())
    from ..data.config import cache_root

    return cache_root() / PROFILE_FOLDER / f"{h.hexdigest()[:32]}.json"


def _read_profile(path: Path | None) -> TokenizerProfile | None:
    if path is None or not path.is_file():
        return None
    try:
        return TokenizerProfile(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, TypeError, ValueError):
        return None


def _write_profile(path: Path, profile: TokenizerProfile) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(asdict(profile)), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:  # counting works without: the next run finds the profile again
        log.debug("tokenizer profile not kept (%s)", exc)


def _backend_config(backend) -> dict:
    """A backend's configuration as ``tokenizers`` serialises it, less :data:`IGNORED_BACKEND_KEYS`."""
    spec = json.loads(backend.to_str())
    return {k: v for k, v in spec.items() if k not in IGNORED_BACKEND_KEYS}


def _file_backend(path: Path):
    """The ``tokenizers`` backend of a ``tokenizer.json``, as a fast tokenizer counts with it: no truncation, no
    padding, special tokens in the text not split. None when the file cannot be read."""
    try:
        from tokenizers import Tokenizer

        backend = Tokenizer.from_file(str(path))
    except Exception:  # noqa: BLE001 - fall back to the tokenizer itself
        return None
    backend.no_truncation()
    backend.no_padding()
    backend.encode_special_tokens = False
    return backend


def _direct_backend(tok, tokenizer_json: Path | None):
    """The backend built from ``tokenizer_json`` when counting with it gives the ids ``tok`` gives: ``tok`` is a
    fast tokenizer whose call is the library's (no subclass changes the encoding), without special-token splitting,
    whose backend has the file's configuration (but for :data:`IGNORED_BACKEND_KEYS`), agreeing on
    :data:`_PROBES`; else None."""
    try:
        from transformers import PreTrainedTokenizerBase, TokenizersBackend
    except ImportError:
        return None
    backend = getattr(tok, "backend_tokenizer", None)
    if (
        tokenizer_json is None
        or not isinstance(tok, TokenizersBackend)
        or type(tok)._encode_plus is not TokenizersBackend._encode_plus
        or type(tok).__call__ is not PreTrainedTokenizerBase.__call__
        or getattr(tok, "split_special_tokens", False)
    ):
        return None
    direct = _file_backend(tokenizer_json)
    if direct is None or not hasattr(direct, "encode_batch_fast"):
        return None
    if _backend_config(direct) != _backend_config(backend):
        return None
    for text in _PROBES:
        if (
            direct.encode_batch_fast([text], add_special_tokens=False)[0].ids
            != tok(text, add_special_tokens=False)["input_ids"]
        ):
            return None
    return direct


def _byte_prefix(tok) -> int | None:
    """0 (1 with a prefix space) when ``tok`` is a fast tokenizer whose every token covers at least one byte of the
    text — a BPE model over byte-level pre-tokens (``ByteLevel``, possibly after splitting pre-tokenizers) with no
    normalizer — else None (no byte bound)."""
    backend = getattr(tok, "backend_tokenizer", None)
    if backend is None or backend.normalizer is not None or type(backend.model).__name__ != "BPE":
        return None
    try:
        pre = json.loads(backend.pre_tokenizer.__getstate__()) if backend.pre_tokenizer is not None else {}
    except (AttributeError, TypeError, ValueError):
        return None
    parts = pre.get("pretokenizers", []) if pre.get("type") == "Sequence" else [pre]
    kinds = [p.get("type") for p in parts]
    if "ByteLevel" not in kinds or not set(kinds) <= {"ByteLevel", "Split", "Digits", "Punctuation"}:
        return None
    return int(any(p.get("type") == "ByteLevel" and p.get("add_prefix_space") for p in parts))
