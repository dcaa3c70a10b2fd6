"""The answer cache's model (lm_eval_enterprise.harness.request_cache.CachedModel): lm-eval's CachingLM contract and
file, with batched reads and writes."""

from __future__ import annotations

import pytest
from lm_eval.api.instance import Instance
from lm_eval.api.model import LM, CachingLM

from lm_eval_enterprise.harness import request_cache as rc


class CountingLM(LM):
    """Answers ``<n>:<prompt>`` (n: its call count) and reports every answer through the cache hook, as the hf,
    vllm and API backends do; ``fail_after`` raises after that many answers (a crash mid-batch)."""

    def __init__(self, fail_after: int | None = None):
        super().__init__()
        self.asked: list[str] = []
        self.fail_after = fail_after

    def generate_until(self, requests, disable_tqdm: bool = False):
        out = []
        for req in requests:
            if self.fail_after is not None and len(self.asked) >= self.fail_after:
                raise RuntimeError("backend died")
            self.asked.append(req.args[0])
            out.append(f"{len(self.asked)}:{req.args[0]}")
            self.cache_hook.add_partial("generate_until", req.args, out[-1])
        return out

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        self.asked += [req.args[0] for req in requests]
        return [(-float(len(req.args[1])), True) for req in requests]

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError


def _gen(prompts, **kwargs) -> list[Instance]:
    return [Instance("generate_until", {}, (p, {"until": ["\n"], **kwargs}), i) for i, p in enumerate(prompts)]


def test_answers_are_kept_and_served_in_lm_evals_file(tmp_path):
    db = tmp_path / "m_rank0.db"
    first = rc.CachedModel(CountingLM(), db)
    answers = first.generate_until(_gen(["a", "b", "c"]))
    assert answers == ["1:a", "2:b", "3:c"] and rc.stored_answers(db) == 3
    # a later run asks only what is missing, in order
    lm = CountingLM()
    again = rc.CachedModel(lm, db).generate_until(_gen(["b", "d", "a"]))
    assert again == ["2:b", "1:d", "1:a"] and lm.asked == ["d"]
    # lm-eval's own CachingLM reads the same file the same way, and we read what it writes
    lm = CountingLM()
    theirs = CachingLM(lm, str(db))
    assert theirs.generate_until(_gen(["a", "d", "e"])) == ["1:a", "1:d", "1:e"] and lm.asked == ["e"]
    theirs.dbdict.close()
    lm = CountingLM()
    assert rc.CachedModel(lm, db).generate_until(_gen(["e"])) == ["1:e"] and lm.asked == []
    ll = [Instance("loglikelihood", {}, ("ctx", " yes"), 0)]
    assert rc.CachedModel(CountingLM(), db).loglikelihood(ll) == [(-4.0, True)]
    lm = CountingLM()
    assert rc.CachedModel(lm, db).loglikelihood(ll) == [(-4.0, True)] and lm.asked == []


def test_sampled_generations_are_never_served(tmp_path):
    db = tmp_path / "m_rank0.db"
    rc.CachedModel(CountingLM(), db).generate_until(_gen(["a"], do_sample=True))
    lm = CountingLM()
    assert rc.CachedModel(lm, db).generate_until(_gen(["a"], do_sample=True)) == ["1:a"] and lm.asked == ["a"]


def test_a_crash_keeps_the_answers_given_before_it(tmp_path, monkeypatch):
    """Answers the backend returned are written even when it dies mid-batch (the cache hook keeps each, and what is
    kept is written on the way out); a slow backend's answers are written as they come."""
    db = tmp_path / "m_rank0.db"
    with pytest.raises(RuntimeError, match="backend died"):
        rc.CachedModel(CountingLM(fail_after=2), db).generate_until(_gen(["a", "b", "c"]))
    assert rc.stored_answers(db) == 2
    monkeypatch.setattr(rc, "FLUSH_SECONDS", 0.0)
    cache = rc.CachedModel(CountingLM(), tmp_path / "n_rank0.db")
    cache.store("k", "v")
    assert rc.stored_answers(tmp_path / "n_rank0.db") == 1  # written at once when the answers come slowly


def test_the_wrapped_model_is_built_by_lm_eval_and_named_as_asked(tmp_path):
    """``through_cache`` hands lm-eval a registered model name; lm-eval builds the wrapped model with its own
    arguments and the run's records name the model and the cache as lm-eval's own --use_cache would."""
    from lm_eval.api.registry import get_model

    name = rc.through_cache("dummy", tmp_path / "dummy-abc")
    lm = get_model(name).create_from_arg_obj({}, {"batch_size": 1, "max_batch_size": None, "device": None})
    assert isinstance(lm, rc.CachedModel) and type(lm.lm).__name__ == "DummyLM"
    assert lm.path == str(tmp_path / "dummy-abc_rank0.db") and lm.rank == 0 and lm.world_size == 1
    results = {"config": {"model": name, "use_cache": None}}
    rc.restore_model_name(results, None, "dummy", tmp_path / "dummy-abc")
    assert results["config"] == {"model": "dummy", "use_cache": str(tmp_path / "dummy-abc")}
