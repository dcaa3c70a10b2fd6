"""jsquad — JSQuAD of JGLUE v1.3 (Kurihara et al. 2022): extractive reading comprehension on Japanese Wikipedia.

Source layout: the SQuAD-style JSON files of GitHub ``yahoojapan/JGLUE`` at tag ``v1.3.0`` (pinned commit),
``datasets/jsquad-v1.3/``, under their published names in the data folder
(:mod:`lm_eval_enterprise.tasks.nlu.jglue`): ``valid-v1.3.json`` → split ``valid``, the evaluated split
(required); ``train-v1.3.json`` → ``train``, the few-shot pool (optional); ``test-v1.3.json`` → ``test``, a
labelled alternative evaluation split (optional).

File format (SQuAD v1.1's, without a ``version`` key): ``{"data": [{"title", "paragraphs": [{"context", "qas":
[{"id", "question", "answers": [{"text", "answer_start"}], "is_impossible"}]}]}]}``. Every ``context`` starts with
``"<title> [SEP] "`` and ``answer_start`` counts characters from the start of that prefix (some answers point
into the title itself). One record per question, in file order: ``{id, title, context, question, answers,
target}`` with ``context`` the paragraph without the prefix, ``title`` with ``_`` replaced by a space (as FLAN's
SQuAD preprocessing does), ``answers`` every reference text in file order (2–3 per dev question, repeats kept)
and ``target`` the first. Checked per question, one :class:`DataError` naming the file and the question's place
(``data[0] 梅雨 / paragraph 3 / question a10336p3q1``): a context without its ``<title> [SEP] `` prefix, no
answer, an answer that is not the text of the context at its ``answer_start``, ``is_impossible`` true (JSQuAD
v1.3 has answerable questions only), a missing or empty field. README: Deviations and decisions.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.tasks.nlu.jglue import JGLUE_COMMIT, SplitFilesSource, is_int, jglue_files

from lm_eval_enterprise.data import DataError, read_json, require_text, unverified, verified

COMMIT = JGLUE_COMMIT
SPLIT_FILES = jglue_files("jsquad", {"valid": "fb0a57a35281ff03bbe7f0e878cff5b577985fbe6fcb242e7e8ddb63d1c0ab11"})
SEP = " [SEP] "


def _list(value, what: str, dataset: str, where: str) -> list:
    if not isinstance(value, list):
        raise DataError(dataset, where, f"{what} is not a list")
    return value


def _dict(value, what: str, dataset: str, where: str) -> dict:
    if not isinstance(value, dict):
        raise DataError(dataset, where, f"{what} is not a JSON object")
    return value


class JSQuAD(SplitFilesSource):
    id = "jsquad"
    domain = "nlu"
    task_type = "extractive_qa_chars"
    split_files = SPLIT_FILES
    files = tuple(SPLIT_FILES.values())
    eval_split = "valid"
    fewshot_source_split = "train"
    expected_rows = {
        "train": unverified(
            62697,
            "the JGLUE README's question count of train-v1.3.json; no genuine copy of that file was available to count",
        ),
        "valid": verified(
            4442,
            "questions counted on the genuine valid-v1.3.json of JGLUE v1.3.0 (sha256 fb0a57a3…; 59 articles, "
            "1,145 paragraphs)",
        ),
        "test": verified(
            4420,
            "questions counted on the genuine test-v1.3.json of JGLUE v1.3.0 (59 articles; its sha256 was not "
            "recorded)",
        ),
    }

    def read_split(self, path: Path, split: str) -> list[dict]:
        doc = _dict(read_json(path, self.id, "cannot read the SQuAD-style JSON"), "the file", self.id, str(path))
        articles = _list(doc.get("data"), "'data'", self.id, str(path))
        out = [
            rec
            for i, article in enumerate(articles)
            for rec in self.article_records(_dict(article, f"data[{i}]", self.id, str(path)), f"{path}: data[{i}]")
        ]
        if not out:
            raise DataError(self.id, path, "the file holds no questions")
        return out

    def article_records(self, article: dict, where: str) -> list[dict]:
        title = require_text(article.get("title"), self.id, where, "the article has no title")
        where = f"{where} {title}"
        out = []
        for j, para in enumerate(_list(article.get("paragraphs"), "'paragraphs'", self.id, where)):
            at = f"{where} / paragraph {j}"
            para = _dict(para, "the paragraph", self.id, at)
            raw = require_text(para.get("context"), self.id, at, "the paragraph has no context")
            prefix = title + SEP
            if not raw.startswith(prefix):
                raise DataError(self.id, at, f"the context does not start with {prefix!r} (begins {raw[:30]!r})")
            context = raw[len(prefix) :]
            require_text(context, self.id, at, "the context is empty after its title prefix")
            for qa in _list(para.get("qas"), "'qas'", self.id, at):
                out.append(self.question_record(_dict(qa, "a question", self.id, at), title, raw, context, at))
        return out

    def question_record(self, qa: dict, title: str, raw: str, context: str, where: str) -> dict:
        qid = require_text(qa.get("id"), self.id, where, "a question has no id")
        where = f"{where} / question {qid}"
        question = require_text(qa.get("question"), self.id, where, "empty or missing question")
        if qa.get("is_impossible", False) is not False:
            raise DataError(
                self.id, where, f"is_impossible is {qa['is_impossible']!r}; JSQuAD v1.3 has answerable questions only"
            )
        answers = _list(qa.get("answers"), "'answers'", self.id, where)
        if not answers:
            raise DataError(self.id, where, "the question has no answer")
        texts = []
        for k, ans in enumerate(answers):
            ans = _dict(ans, f"answer {k}", self.id, where)
            text = require_text(ans.get("text"), self.id, where, f"answer {k} has no text")
            start = ans.get("answer_start")
            if not is_int(start) or raw[start : start + len(text)] != text:
                raise DataError(
                    self.id, where, f"answer {k} {text!r} is not the context's text at answer_start {start!r}"
                )
            texts.append(text)
        return {
            "id": qid,
            "title": title.replace("_", " "),
            "context": context,
            "question": question,
            "answers": texts,
            "target": texts[0],
        }


SOURCE = JSQuAD()
