#!/usr/bin/env python
"""Write the synthetic JCoLA fixture ``fixture/{in_domain_train,in_domain_valid,out_of_domain_valid}-v1.0.json``.

Same format as the JCoLA v1.0 files: JSON lines, UTF-8 with the Japanese unescaped, compact separators, fields
``uid`` (int), ``source``, ``label`` (0 unacceptable / 1 acceptable), ``diacritic``, ``sentence``, ``original``.
The sentences, uids and sources are invented for lm-eval-enterprise (``Kakuu_*`` are no real publications;
nothing is copied from JCoLA). The genuine files' quirks are reproduced: rows not sorted by uid, a few rows whose
``original`` is only a fragment of ``sentence``, mostly acceptable sentences. Deterministic.

    .venv/bin/python tasks/nlu/jcola/make_fixture.py [--out DIR]
"""

import json
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

# (uid, source, label, diacritic, sentence, original or None = the sentence)
ROWS = {
    "in_domain_train": [
        (9105, "Kakuu_1988", 1, "g", "猫が窓辺で眠っている。", None),
        (9012, "Kakuu_1988", 1, "g", "花子は太郎に本を貸した。", None),
        (9230, "Kakuu_1995", 0, "*", "太郎が花子を本を読ませた。", None),
        (9044, "Kakuu_1995", 1, "g", "雨が降ったので、試合は中止になった。", None),
        (9318, "Kakuu_2003", 1, "g", "先生が学生に手紙を書かせた。", None),
        (9077, "Kakuu_2003", 0, "??", "昨日は明日雨が降った。", None),
        (9150, "Kakuu_2010", 1, "g", "その本は図書館で借りたものだ。", "図書館で借りたもの"),
        (9001, "Kakuu_2010", 1, "g", "弟は毎朝牛乳を飲む。", None),
    ],
    "in_domain_valid": [
        (8207, "Kakuu_1991", 0, "*", "ジョンがメアリーをケーキを食べさせた。", None),
        (8011, "Kakuu_1991", 1, "g", "子供たちが公園で遊んでいる。", None),
        (8156, "Kakuu_1999", 1, "g", "駅まで歩いて十分かかる。", None),
        (8093, "Kakuu_1999", 1, "g", "母が作ったカレーはおいしかった。", "母が作ったカレー"),
        (8120, "Kakuu_2007", 0, "?*", "本が太郎に読まれたがった。", None),
        (8044, "Kakuu_2007", 1, "g", "窓を開けると、冷たい風が入ってきた。", None),
    ],
    "out_of_domain_valid": [
        (500, "Kakuu_2015", 0, "*", "何を太郎は誰が買ったと思っているの？", None),
        (503, "Kakuu_2015", 1, "g", "誰が来たのか分からない。", None),
        (501, "Kakuu_2018", 1, "g", "太郎は自分の部屋を片付けた。", None),
        (502, "Kakuu_2018", 0, "*", "花子が太郎に自分を褒められた。", None),
    ],
}
SPLITS = {"in_domain_train": "train", "in_domain_valid": "valid", "out_of_domain_valid": "valid_ood"}


def line(uid: int, source: str, label: int, diacritic: str, sentence: str, original: str | None) -> str:
    row = {"uid": uid, "source": source, "label": label, "diacritic": diacritic, "sentence": sentence}
    row["original"] = sentence if original is None else original
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"


def write(out: Path) -> None:
    for name, rows in ROWS.items():
        (out / f"{name}-v1.0.json").write_text("".join(line(*r) for r in rows), encoding="utf-8")
    write_manifest(
        out,
        "jcola",
        "Invented Japanese sentences written for lm-eval-enterprise (not from JCoLA), in the JSON-lines format "
        "of JCoLA v1.0 (in_domain_train / in_domain_valid / out_of_domain_valid).",
        {SPLITS[name]: len(rows) for name, rows in ROWS.items()},
    )


if __name__ == "__main__":
    generator_main(write)
