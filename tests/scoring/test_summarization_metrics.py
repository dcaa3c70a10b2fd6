"""[RL] ROUGE-L and the summarization answer format, hand-worked (docs/metrics.md#rl).

ROUGE-L (sentence level) over the rouge-score tokens (lower-case, non-alphanumerics → spaces, Porter stems):
LCS = longest common subsequence of reference and prediction tokens, P = LCS/|prediction|, R = LCS/|reference|,
F = 2PR/(P+R). The project calls ``score(target=reference, prediction=completion)``.
"""

import pytest
from lm_eval_enterprise.tasks.finance.edtsum.templates import TASKS as EDTSUM
from lm_eval_enterprise.tasks.legal.legal_summarization.templates import TASKS as LEGAL
from pytest import approx

from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring import hooks as H
from lm_eval_enterprise.scoring import metrics as M
from lm_eval_enterprise.scoring.metrics import INVALID
from testkit.testing import GARBAGE


def _rouge_l(reference, prediction):
    return M._rouge_scorer().score(reference, prediction)["rougeL"]


def test_dropped_word_lcs_5_of_6():
    # ref   the cat sat on the mat   (6 tokens)
    # pred  the cat     on the mat   (5 tokens)   LCS = "the cat on the mat" = 5
    # P = 5/5, R = 5/6, F = 2·1·(5/6) / (1 + 5/6) = 10/11
    s = _rouge_l("the cat sat on the mat", "the cat on the mat")
    assert (s.precision, s.recall, s.fmeasure) == (approx(1.0), approx(5 / 6), approx(10 / 11))
    out = M.rouge("the cat sat on the mat", "the cat on the mat")
    assert out["rouge_l"] == approx(10 / 11)
    assert out["rouge_1"] == approx(10 / 11)  # unigram overlap 5 of 5 / of 6: same as LCS here
    # bigrams: ref {the cat, cat sat, sat on, on the, the mat}, pred {the cat, cat on, on the, the mat}
    # overlap 3 → P = 3/4, R = 3/5, F = 2·0.75·0.6 / 1.35 = 2/3
    assert out["rouge_2"] == approx(2 / 3)


def test_reference_and_prediction_roles():
    # swapping the roles swaps P and R; the F-measure (what we report) is symmetric
    s = _rouge_l("the cat on the mat", "the cat sat on the mat")
    assert (s.precision, s.recall) == (approx(5 / 6), approx(1.0))
    assert M.rouge("the cat on the mat", "the cat sat on the mat")["rouge_l"] == approx(10 / 11)


def test_non_contiguous_lcs():
    # ref a b c d e f (6), pred a x c y e (5): LCS = a c e = 3 → P = 3/5, R = 3/6, F = 2·0.3/1.1 = 6/11
    s = _rouge_l("a b c d e f", "a x c y e")
    assert (s.precision, s.recall, s.fmeasure) == (approx(3 / 5), approx(1 / 2), approx(6 / 11))


def test_stemming_and_order():
    # Porter: running → run, dogs → dog, runs → run. ref [run, dog], pred [the, dog, run]
    # LCS = 1 (order differs) → P = 1/3, R = 1/2, F = 2·(1/6)/(5/6) = 0.4
    assert M.rouge("running dogs", "the dog runs")["rouge_l"] == approx(0.4)
    assert M.rouge("Running DOGS!", "run, dog.")["rouge_l"] == approx(1.0)  # case + punctuation + stems


def test_headline_example():
    # a realistic headline pair (rouge-score tokens: "$105.7" → 105, 7; "25%" → 25; stems)
    ref = "Quillon Software Reports Second Quarter 2019 Results; Revenue Up 25% to $105.7 Million"
    pred = "Quillon Software second quarter revenue up 25 percent"
    # tokens ref: quillon softwar report second quarter 2019 result revenu up 25 to 105 7 million (14)
    # pred: quillon softwar second quarter revenu up 25 percent (8); LCS = quillon softwar second quarter revenu
    # up 25 = 7 → P = 7/8, R = 7/14 = 1/2, F = 2·(7/16)/(11/8) = 7/11
    assert M.rouge(ref, pred)["rouge_l"] == approx(7 / 11)


def test_no_overlap_and_empty():
    assert M.rouge("the cat sat", "dogs bark loudly")["rouge_l"] == 0.0
    assert M.rouge("the cat sat", "")["rouge_l"] == 0.0
    assert M.rouge("the cat sat", GARBAGE)["rouge_l"] == 0.0  # no alphanumeric token at all


def test_hook_scores_invalid_as_zero_and_format_failure():
    doc = {"summary": "the cat sat on the mat"}
    assert H.summarization(doc, [" the cat on the mat".strip()])["rouge_l"] == approx(10 / 11)
    assert H.summarization(doc, [INVALID]) == {
        "rouge_l": 0.0,
        "rouge_1": 0.0,
        "rouge_2": 0.0,
        "format_failure": 1.0,
        "format_adherence": 0.0,
    }


@pytest.mark.parametrize("spec", [LEGAL, EDTSUM], ids=lambda s: s.dataset)
def test_summaries_need_a_letter_or_digit(spec):
    for t in spec.templates:
        flt = answer_filter(spec, t)
        for junk in (GARBAGE, "", "   ", "... ---", "?!"):
            out = flt.read(junk, {})
            assert out == INVALID and not out.adherent, (spec.dataset, t.id, junk)
        for ok in ("a", "We may end your account.", "Q3 revenue up 5%", "42"):
            out = flt.read(" " + ok, {})
            assert out == ok and out.adherent, (spec.dataset, t.id, ok)
    # every template's format failure goes through the hook as rouge 0 + format_failure 1
    pred = answer_filter(spec, spec.templates[0]).read(GARBAGE, {})
    assert H.summarization({"summary": "x y"}, [pred])["format_failure"] == 1.0
