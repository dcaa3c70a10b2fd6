"""Token counting for the context budget (lm_eval_enterprise.prompting.tokens): exact counts, byte bounds, the
kept tokenizer profile."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from lm_eval_enterprise.prompting import tokens as T

TEXTS = [
    "Net sales were $ 1,482 million.",
    "<|endoftext|> Ünïcödé — 日本語のテキスト 😀",
    "  leading spaces\tand\ttabs\n\n\nand blank lines  ",
    "Question: Does the passage answer the query?\nAnswer:",
    "",
]


def _random_texts(n: int, seed: int = 0) -> list[str]:
    """Strings over letters, digits, punctuation, whitespace runs, accents, CJK, emoji and a special token."""
    rng = random.Random(seed)
    pieces = ["a", "Z", "é", "ß", "日本", "😀", "7", "42", ",", ".", "'s", " ", "  ", "\n", "\t", "<|endoftext|>", "—"]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 60))) for _ in range(n)]


def test_counts_are_the_tokenizers_own(tiny_model_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    c = T.TokenCounter(str(tiny_model_dir))
    assert c._backend is not None  # a plain fast tokenizer: counted through its backend
    for text in TEXTS + _random_texts(200):
        assert c(text) == len(tok(text, add_special_tokens=False)["input_ids"]), text
    assert c.special_tokens == len(tok("", add_special_tokens=True)["input_ids"])


def test_the_byte_bound_bounds_every_count(tiny_model_dir):
    """Byte-level BPE: no text has more tokens than UTF-8 bytes (the budget plans without counting under it)."""
    c = T.TokenCounter(str(tiny_model_dir))
    assert c.has_bound
    texts = TEXTS + _random_texts(500, seed=1)
    assert all(c(t) <= c.bound(t) for t in texts)
    assert any(c(t) == c.bound(t) for t in texts if t)  # tight for text the vocabulary does not merge
    est = T.TokenCounter(chars_per_token=3.0)  # the character estimate is its own bound
    assert all(est.bound(t) == est(t) for t in texts)


def test_a_kept_profile_counts_from_the_file_without_transformers(tiny_model_dir, tmp_path):
    """The first counter finds the profile with AutoTokenizer and keeps it; a later process builds the backend from
    tokenizer.json alone (no transformers import: no model configuration, no torch) and counts the same."""
    cache = tmp_path / "cache"
    env = {**os.environ, "LM_EVAL_ENTERPRISE_CACHE": str(cache)}
    code = (
        "import json, sys\n"
        "from lm_eval_enterprise.prompting.tokens import TokenCounter\n"
        f"c = TokenCounter({str(tiny_model_dir)!r})\n"
        f"texts = {TEXTS!r}\n"
        "print(json.dumps([[c(t) for t in texts], c.special_tokens, 'transformers' in sys.modules]))\n"
    )
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True) for _ in range(2)]
    first, second = (json.loads(r.stdout.strip().splitlines()[-1]) for r in runs)
    assert first[2] is True and second[2] is False
    assert first[:2] == second[:2]
    (kept,) = (cache / T.PROFILE_FOLDER).glob("*.json")
    assert json.loads(kept.read_text()) == {"direct": True, "special_tokens": first[1], "byte_prefix": 0}


def test_a_changed_tokenizer_file_is_profiled_again(tiny_model_dir, tmp_path, monkeypatch):
    import shutil

    monkeypatch.setenv("LM_EVAL_ENTERPRISE_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "tok"
    shutil.copytree(tiny_model_dir, folder)
    first = T._profile_path(T._tokenizer_files(str(folder)))
    cfg = json.loads((folder / "tokenizer.json").read_text())
    cfg["added_tokens"][0]["special"] = not cfg["added_tokens"][0]["special"]
    (folder / "tokenizer.json").write_text(json.dumps(cfg))
    assert T._profile_path(T._tokenizer_files(str(folder))) != first


@pytest.mark.parametrize("spoil", ["split_special_tokens", "other_file"])
def test_no_direct_backend_when_the_file_is_not_what_the_tokenizer_runs(tiny_model_dir, tmp_path, spoil):
    from tokenizers import normalizers
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    path = tiny_model_dir / "tokenizer.json"
    if spoil == "split_special_tokens":
        tok.split_special_tokens = True
    else:  # a tokenizer.json whose normaliser the loaded tokenizer does not have
        backend = T._file_backend(path)
        backend.normalizer = normalizers.Lowercase()
        path = tmp_path / "tokenizer.json"
        backend.save(str(path))
    assert T._direct_backend(tok, path) is None
    assert T._direct_backend(AutoTokenizer.from_pretrained(tiny_model_dir), tiny_model_dir / "tokenizer.json")
