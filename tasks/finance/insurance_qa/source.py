"""insurance_qa — InsuranceQA V2 (Feng et al., ASRU 2015) as pointwise yes/no answer ranking.

Source layout: four files of GitHub ``shuzi/insuranceQA`` folder ``V2/`` (branch master), as downloaded:
``InsuranceQA.question.anslabel.raw.100.pool.solr.{test,train}.encoded.gz`` (lines
``domain \\t question \\t ground-truth labels \\t pool labels``), ``InsuranceQA.label2answer.raw.encoded.gz``
(``answer label \\t answer``) and ``vocabulary`` (``idx_N \\t word``). Every text is a space-separated sequence of
``idx_N`` tokens, decoded through ``vocabulary`` and joined with single spaces.

Recipe (README, Split / Eval rows): eval = ``random.Random(0).sample`` of 500 of the 2,000 test questions, kept in
file order, qid ``test-<1-based line number>``; candidates (C = 20) = the ground-truth answers (first 10 in file
order), then the pool answers that are not ground truth, in file order; shuffled with ``random.Random(qid)``.
Few-shot pool = per train question its first ground-truth answer and its first non-ground-truth pool answer.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path

from lm_eval_enterprise.data import DataError, RemoteFile, unverified
from lm_eval_enterprise.data.ranking import RankingSource, candidate_ids, ranking_record

BASE_URL = "https://raw.githubusercontent.com/shuzi/insuranceQA/master/V2"
TEST_FILE = "InsuranceQA.question.anslabel.raw.100.pool.solr.test.encoded.gz"
TRAIN_FILE = "InsuranceQA.question.anslabel.raw.100.pool.solr.train.encoded.gz"
ANSWERS_FILE = "InsuranceQA.label2answer.raw.encoded.gz"
VOCAB_FILE = "vocabulary"
EVAL_QUESTIONS = 500
SAMPLE_SEED = 0


def read_vocabulary(path: Path, dataset: str = "insurance_qa") -> dict[str, str]:
    """``idx_N \\t word`` lines → token → word."""
    vocab = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            parts = line.split("\t", 1)
            if len(parts) != 2 or not parts[0].startswith("idx_"):
                raise DataError(dataset, f"{path}:{n}", f"not an 'idx_N<TAB>word' line: {line[:60]!r}")
            vocab[parts[0]] = parts[1]
    return vocab


def decode(encoded: str, vocab: dict[str, str], where: str, dataset: str = "insurance_qa") -> str:
    """Decode ``"idx_3 idx_17"`` into words joined with single spaces; an unknown token is a DataError."""
    words = []
    for tok in encoded.split():
        try:
            words.append(vocab[tok])
        except KeyError:
            raise DataError(dataset, where, f"token {tok!r} is not in {VOCAB_FILE}") from None
    return " ".join(words)


def _gz_lines(path: Path, dataset: str):
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                yield n, line.rstrip("\n")
    except (OSError, EOFError) as exc:
        raise DataError(dataset, path, f"not a readable gzip file ({exc})") from exc


def read_answers(path: Path, vocab: dict[str, str], dataset: str = "insurance_qa") -> dict[str, str]:
    answers = {}
    for n, line in _gz_lines(path, dataset):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise DataError(dataset, f"{path}:{n}", f"expected 'label<TAB>answer', got {len(parts)} fields")
        answers[parts[0].strip()] = decode(parts[1], vocab, f"{path}:{n}", dataset)
    return answers


def read_questions(path: Path, vocab: dict[str, str], prefix: str, dataset: str = "insurance_qa") -> list[dict]:
    """Question file → ``[{qid: <prefix>-<line>, domain, question, truth: [label], pool: [label]}]`` in file order."""
    out = []
    for n, line in _gz_lines(path, dataset):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 4:
            raise DataError(
                dataset,
                f"{path}:{n}",
                f"expected 4 tab-separated fields (domain, question, ground truth, pool), got {len(parts)}",
            )
        domain, question, truth, pool = parts
        out.append(
            {
                "qid": f"{prefix}-{n}",
                "domain": domain.strip(),
                "question": decode(question, vocab, f"{path}:{n}", dataset),
                "truth": truth.split(),
                "pool": pool.split(),
                "where": f"{path}:{n}",
            }
        )
    return out


def eval_sample(n: int, k: int = EVAL_QUESTIONS, seed: int = SAMPLE_SEED) -> list[int]:
    """Indices of the evaluated test questions: ``random.Random(seed).sample(range(n), min(k, n))`` in file order."""
    return sorted(random.Random(seed).sample(range(n), min(k, n)))


class InsuranceQA(RankingSource):
    id = "insurance_qa"
    domain = "finance"
    files = tuple(RemoteFile(name, f"{BASE_URL}/{name}") for name in (TEST_FILE, TRAIN_FILE, ANSWERS_FILE, VOCAB_FILE))
    expected_rows = {  # questions (× 20 / × 2 pair documents)
        "test": unverified(
            EVAL_QUESTIONS, "recipe sample of 500 of the 2,000 test questions (size stated, not counted)"
        ),
        "train": unverified(12889, "train question count stated by the specification; genuine file not counted"),
    }

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        vocab = read_vocabulary(raw_dir / VOCAB_FILE, self.id)
        answers = read_answers(raw_dir / ANSWERS_FILE, vocab, self.id)

        def check(q: dict) -> None:
            unknown = [a for a in q["truth"] + q["pool"] if a not in answers]
            if unknown:
                raise DataError(self.id, q["where"], f"answer labels {unknown[:3]} are not in {ANSWERS_FILE}")
            if not q["truth"]:
                raise DataError(self.id, q["where"], "question without ground-truth answers")

        test_q = read_questions(raw_dir / TEST_FILE, vocab, "test", self.id)
        test = []
        for i in eval_sample(len(test_q)):
            q = test_q[i]
            check(q)
            test.append(
                ranking_record(q["qid"], q["question"], candidate_ids(q["qid"], q["truth"], q["pool"]), answers)
            )
        train = []
        for q in read_questions(raw_dir / TRAIN_FILE, vocab, "train", self.id):
            check(q)
            negative = next((a for a in q["pool"] if a not in set(q["truth"])), None)
            if negative is not None:
                train.append(
                    ranking_record(q["qid"], q["question"], [(q["truth"][0], True), (negative, False)], answers)
                )
        return {"test": test, "train": train}


SOURCE = InsuranceQA()
