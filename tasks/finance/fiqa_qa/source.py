"""fiqa_qa — FiQA 2018 Task 2 opinion-based QA as pointwise yes/no answer ranking (BEIR version).

Source layout = the BEIR folder format (what UKP's ``fiqa.zip`` unpacks to): ``corpus.jsonl`` (``_id``, ``title``,
``text``), ``queries.jsonl`` (``_id``, ``text``), ``qrels/test.tsv`` and ``qrels/train.tsv`` (``query-id``,
``corpus-id``, ``score`` with a header line). :meth:`FiqaQA.download` fetches them from the HF hub repos
``BeIR/fiqa`` (``corpus.jsonl.gz``, ``queries.jsonl.gz``, decompressed) and ``BeIR/fiqa-qrels`` (``test.tsv``,
``train.tsv``); parquet copies of the same tables are accepted when the jsonl/tsv files are absent.

Recipe (README, Split / Eval rows): eval = the 648 BEIR test queries, each with C = 20 candidates = its relevant
documents (score > 0; first 10 by document id, numeric order) + BM25 negatives (k1 0.9, b 0.4, ``[a-z0-9]+``
tokens of ``title + " " + text`` over the whole corpus), shuffled with ``random.Random(f"{qid}")``.
Few-shot pool = per BEIR train query its first relevant document and its BM25-top non-relevant document.
"""

from __future__ import annotations

import csv
import gzip
import json
import shutil
from pathlib import Path

from lm_eval_enterprise.data import DataError, RemoteFile, snapshot, unverified
from lm_eval_enterprise.data.ranking import (
    BM25,
    CANDIDATES,
    RankingSource,
    candidate_ids,
    natural_id_key,
    ranking_record,
)

HUB_CORPUS = "BeIR/fiqa"
HUB_QRELS = "BeIR/fiqa-qrels"
CORPUS, QUERIES, QRELS_TEST, QRELS_TRAIN = "corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "qrels/train.tsv"
_HF = "https://huggingface.co/datasets"


def _read_jsonl(path: Path, dataset: str) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(dataset, f"{path}:{n}", f"invalid JSON line ({exc.msg})") from exc
            if "_id" not in row or "text" not in row:
                raise DataError(dataset, f"{path}:{n}", "BEIR row without '_id'/'text'")
            rows.append(row)
    return rows


def read_qrels(path: Path, dataset: str = "fiqa_qa") -> dict[str, list[str]]:
    """BEIR qrels TSV → query id → relevant corpus ids (score > 0), queries in first-appearance order."""
    out: dict[str, list[str]] = {}
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f, delimiter="\t")
        header = next(reader, None)
        if header is None or [h.strip() for h in header[:3]] != ["query-id", "corpus-id", "score"]:
            raise DataError(
                dataset, path, f"not a BEIR qrels file (header {header!r}, expected query-id, corpus-id, score)"
            )
        for n, row in enumerate(reader, 2):
            if not row:
                continue
            try:
                qid, docid, score = row[0].strip(), row[1].strip(), int(float(row[2]))
            except (IndexError, ValueError) as exc:
                raise DataError(dataset, f"{path}:{n}", f"bad qrels line {row!r}") from exc
            if score > 0:
                out.setdefault(qid, [])
                if docid not in out[qid]:
                    out[qid].append(docid)
    return out


def doc_text(row: dict) -> str:
    """Document text used for BM25 and shown as the passage: ``title + " " + text`` (FiQA titles are empty)."""
    return " ".join(p for p in (str(row.get("title") or "").strip(), str(row["text"])) if p)


def hub_candidates(name: str) -> list[str]:
    """The repo files that can hold BEIR file ``name`` (``snapshot_download`` patterns): ``<file>.gz``, ``<file>``,
    or a parquet copy named after its stem (``corpus*.parquet``, also in a folder)."""
    stem = Path(name).name
    base = stem.split(".")[0]
    return [stem + ".gz", stem, f"{base}*.parquet", f"*/{base}*.parquet"]


class FiqaQA(RankingSource):
    id = "fiqa_qa"
    domain = "finance"
    files = (
        RemoteFile(CORPUS, f"{_HF}/{HUB_CORPUS}/resolve/main/corpus.jsonl.gz"),
        RemoteFile(QUERIES, f"{_HF}/{HUB_CORPUS}/resolve/main/queries.jsonl.gz"),
        RemoteFile(QRELS_TEST, f"{_HF}/{HUB_QRELS}/resolve/main/test.tsv"),
        RemoteFile(QRELS_TRAIN, f"{_HF}/{HUB_QRELS}/resolve/main/train.tsv"),
    )
    expected_rows = {  # queries (× 20 / × 2 pair documents)
        "test": unverified(648, "BEIR test query count (secondary description); genuine qrels not counted"),
        "train": unverified(5500, "BEIR train query count (secondary description); genuine qrels not counted"),
    }

    # -- download ------------------------------------------------------------------------------------------------
    def download(self, dest: Path, progress: bool = True) -> None:
        """Fetch the hub files with ``huggingface_hub.snapshot_download`` (every candidate name of each file, see
        :func:`hub_candidates`) and write the BEIR folder layout into ``dest``."""
        for repo, names in ((HUB_CORPUS, (CORPUS, QUERIES)), (HUB_QRELS, (QRELS_TEST, QRELS_TRAIN))):
            raw = dest / ".hub" / repo.replace("/", "--")
            snapshot(repo, raw, dataset=self.id, patterns=[p for n in names for p in hub_candidates(n)])
            listing = sorted(
                p.relative_to(raw).as_posix()
                for p in raw.rglob("*")
                if p.is_file() and not p.relative_to(raw).parts[0].startswith(".")
            )
            for name in names:
                remote = self._pick(repo, name, listing)
                out = dest / name
                out.parent.mkdir(parents=True, exist_ok=True)
                self._materialise(raw / remote, remote, out)
        shutil.rmtree(dest / ".hub", ignore_errors=True)

    def _pick(self, repo: str, name: str, listing: list[str]) -> str:
        stem = Path(name).name  # corpus.jsonl / test.tsv
        base = stem.split(".")[0]  # corpus / test
        for cand in (stem + ".gz", stem):
            if cand in listing:
                return cand
        parquet = sorted(f for f in listing if f.endswith(".parquet") and (f"/{base}" in f or f.startswith(base)))
        if parquet:
            return parquet[0]
        raise DataError(self.id, f"hf://datasets/{repo}", f"no {stem}(.gz) or {base} parquet in the repository")

    @staticmethod
    def _materialise(local: Path, remote: str, out: Path) -> None:
        if remote.endswith(".gz"):
            with gzip.open(local, "rb") as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
        elif remote.endswith(".parquet"):
            import pandas as pd

            df = pd.read_parquet(local)
            if out.suffix == ".tsv":
                df.to_csv(out, sep="\t", index=False)
            else:
                df.to_json(out, orient="records", lines=True, force_ascii=False)
        else:
            shutil.copyfile(local, out)

    # -- convert -------------------------------------------------------------------------------------------------
    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        corpus_rows = _read_jsonl(raw_dir / CORPUS, self.id)
        docids = [str(r["_id"]) for r in corpus_rows]
        texts = {d: doc_text(r) for d, r in zip(docids, corpus_rows)}
        if len(texts) != len(docids):
            raise DataError(self.id, raw_dir / CORPUS, "duplicate document ids")
        position = {d: i for i, d in enumerate(docids)}
        queries = {str(r["_id"]): str(r["text"]) for r in _read_jsonl(raw_dir / QUERIES, self.id)}
        qrels = {split: read_qrels(raw_dir / f, self.id) for split, f in (("test", QRELS_TEST), ("train", QRELS_TRAIN))}
        for split, f in (("test", QRELS_TEST), ("train", QRELS_TRAIN)):
            for qid, rel in qrels[split].items():
                if qid not in queries:
                    raise DataError(self.id, raw_dir / f, f"query id {qid!r} is not in {QUERIES}")
                missing = [d for d in rel if d not in position]
                if missing:
                    raise DataError(
                        self.id, raw_dir / f, f"corpus ids {missing[:3]} of query {qid!r} are not in {CORPUS}"
                    )
        bm25 = BM25([texts[d] for d in docids])

        def ranked(qid: str, rel: list[str], k: int) -> list[str]:
            """The k best non-relevant documents of a query by BM25 (ties: corpus order)."""
            return [docids[i] for i in bm25.top(queries[qid], k, exclude=[position[d] for d in rel])]

        out: dict[str, list[dict]] = {"test": [], "train": []}
        for qid, rel in qrels["test"].items():
            cands = candidate_ids(qid, sorted(rel, key=natural_id_key), ranked(qid, rel, CANDIDATES))
            out["test"].append(ranking_record(qid, queries[qid], cands, texts))
        for qid, rel in qrels["train"].items():
            negative = ranked(qid, rel, 1)
            if negative:  # only an empty corpus remainder could prevent it
                first = sorted(rel, key=natural_id_key)[0]
                out["train"].append(ranking_record(qid, queries[qid], [(first, True), (negative[0], False)], texts))
        return out


SOURCE = FiqaQA()
