#!/usr/bin/env python
"""Write the synthetic JSQuAD fixture ``fixture/{train,valid,test}-v1.3.json``.

Same format as JGLUE v1.3's JSQuAD files: one SQuAD-style JSON document on one line (``json.dumps(...,
ensure_ascii=False)`` + newline, no ``version`` key), ``{"data": [{"title", "paragraphs": [{"qas": [{"question",
"id", "answers": [{"text", "answer_start"}], "is_impossible": false}], "context"}]}]}``, every context starting with
``"<title> [SEP] "`` and ``answer_start`` counting from that prefix. The articles (a fictional town, railway, river
and lake), questions and answers are invented for lm-eval-enterprise (nothing is copied from JSQuAD or
Wikipedia). As in the genuine dev file, dev and test questions have 2–3 reference answers that may differ in
extent (``1985年`` / ``1985``), and one dev answer is the article's title, pointing into the prefix
(``answer_start`` 0) because the paragraph itself never names it; train questions have one answer. Deterministic.

    .venv/bin/python tasks/nlu/jsquad/make_fixture.py [--out DIR]
"""

import json
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

TITLE = "<title>"  # an answer marked so points into the title prefix (answer_start 0)

# split → [(article id, title, [(paragraph, [(question, [answer text or (text, TITLE)])])])]
ARTICLES = {
    "train": [
        (
            90001,
            "青葉川",
            [
                (
                    "青葉川は、架空の山地に源を発し、湾に注ぐ川である。流域では稲作が盛んである。",
                    [("青葉川はどこに注ぐか。", ["湾"]), ("青葉川の流域で盛んな農業は何か？", ["稲作"])],
                ),
                (
                    "川の中流には古い石橋が架かっている。この橋は江戸時代に造られたとされる。",
                    [
                        ("古い石橋が架かっているのは川のどこか？", ["中流"]),
                        ("石橋はいつ造られたとされるか。", ["江戸時代"]),
                    ],
                ),
            ],
        ),
    ],
    "valid": [
        (
            90101,
            "星見町",
            [
                (
                    "星見町（ほしみちょう）は、架空の県の北部に位置する町である。人口はおよそ1万2千人で、天文台が"
                    "あることで知られる。",
                    [
                        ("星見町はどこに位置するか。", ["架空の県の北部", "架空の県の北部", "北部"]),
                        ("星見町の人口はおよそ何人か？", ["1万2千人", "およそ1万2千人"]),
                    ],
                ),
                (
                    "町の天文台は1985年に開設された。毎年8月には星祭りが開かれ、多くの観光客が訪れる。",
                    [
                        ("天文台が開設されたのは何年か。", ["1985年", "1985年", "1985"]),
                        ("毎年8月に開かれる祭りは何か？", ["星祭り", "星祭り"]),
                        ("毎年8月に星祭りが開かれるのはどこか。", [("星見町", TITLE)] * 3),
                    ],
                ),
            ],
        ),
        (
            90102,
            "ミナト鉄道",
            [
                (
                    "ミナト鉄道は、港町と山間部を結ぶ全長42キロメートルの私鉄である。開業当初は蒸気機関車が走っていた。",
                    [
                        (
                            "ミナト鉄道の全長は何キロメートルか。",
                            ["42キロメートル", "全長42キロメートル", "42キロメートル"],
                        ),
                        ("開業当初に走っていたのは何か？", ["蒸気機関車", "蒸気機関車"]),
                    ],
                ),
            ],
        ),
    ],
    "test": [
        (
            90201,
            "白浜湖",
            [
                (
                    "白浜湖は周囲約8キロメートルの湖で、冬には白鳥が飛来する。",
                    [
                        ("冬に白浜湖に飛来する鳥は何か？", ["白鳥", "白鳥", "白鳥"]),
                        ("白浜湖の周囲はおよそ何キロメートルか。", ["約8キロメートル", "8キロメートル"]),
                    ],
                ),
            ],
        ),
    ],
}


def answer(raw: str, body_start: int, spec) -> dict:
    if isinstance(spec, tuple):  # (text, TITLE): the title at the start of the prefix
        return {"text": spec[0], "answer_start": 0}
    return {"text": spec, "answer_start": raw.index(spec, body_start)}


def document(split: str) -> dict:
    data = []
    for aid, title, paragraphs in ARTICLES[split]:
        paras = []
        for p, (body, questions) in enumerate(paragraphs):
            raw = f"{title} [SEP] {body}"
            qas = [
                {
                    "question": question,
                    "id": f"a{aid}p{p}q{q}",
                    "answers": [answer(raw, len(raw) - len(body), a) for a in answers],
                    "is_impossible": False,
                }
                for q, (question, answers) in enumerate(questions)
            ]
            paras.append({"qas": qas, "context": raw})
        data.append({"title": title, "paragraphs": paras})
    return {"data": data}


def write(out: Path) -> None:
    for split in ARTICLES:
        (out / f"{split}-v1.3.json").write_text(
            json.dumps(document(split), ensure_ascii=False) + "\n", encoding="utf-8"
        )
    write_manifest(
        out,
        "jsquad",
        "Invented Japanese articles, questions and answers written for lm-eval-enterprise (not from JSQuAD or "
        "Wikipedia), in the SQuAD-style JSON format of JGLUE v1.3's JSQuAD files (train / valid / test).",
        {split: sum(len(qs) for _, _, ps in arts for _, qs in ps) for split, arts in ARTICLES.items()},
    )


if __name__ == "__main__":
    generator_main(write)
