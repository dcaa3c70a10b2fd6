#!/usr/bin/env python
"""Write the synthetic JNLI fixture ``fixture/{train,valid,test}-v1.3.json``.

Same format as JGLUE v1.3's JNLI files: JSON lines, UTF-8 with the Japanese unescaped, ``json.dumps``' default
separators, fields ``sentence_pair_id`` (a string, from "0" in each file), ``yjcaptions_id``, ``sentence1`` (the
premise), ``sentence2`` (the hypothesis), ``label`` (the string ``entailment``, ``contradiction`` or ``neutral``).
The pairs are invented for lm-eval-enterprise (nothing is copied from JNLI or YJ Captions); neutral is the
largest class, as in the genuine dev file. Deterministic.

    .venv/bin/python tasks/nlu/jnli/make_fixture.py [--out DIR]
"""

import json
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

PAIRS = {
    "train": [
        ("男性がギターを弾いています。", "人が楽器を演奏しています。", "entailment"),
        ("女性が犬を連れて散歩しています。", "女性が猫を抱いています。", "contradiction"),
        ("子供たちが砂浜で遊んでいます。", "子供たちは夏休み中です。", "neutral"),
        ("テーブルにピザが置かれています。", "テーブルの上に食べ物があります。", "entailment"),
        ("２台の車が駐車場に止まっています。", "駐車場には車が1台もありません。", "contradiction"),
        ("男性が駅で電車を待っています。", "男性は会社に向かうところです。", "neutral"),
    ],
    "valid": [
        ("女の子が公園でブランコに乗っています。", "女の子が遊んでいます。", "entailment"),
        ("キリンが木の葉を食べています。", "キリンが眠っています。", "contradiction"),
        ("男性が台所で料理をしています。", "男性は夕食を作っています。", "neutral"),
        ("３羽の鳥が電線にとまっています。", "電線に鳥がいます。", "entailment"),
        ("空は晴れていて雲一つありません。", "空は厚い雲に覆われています。", "contradiction"),
        ("女性が本を読んでいます。", "女性は図書館にいます。", "neutral"),
        ("老人がベンチに座っています。", "老人は誰かを待っています。", "neutral"),
    ],
    "test": [
        ("少年が川で魚を釣っています。", "少年が釣りをしています。", "entailment"),
        ("バスが停留所に止まっています。", "バスが高速道路を走っています。", "contradiction"),
        ("女性がカフェでコーヒーを飲んでいます。", "女性は友人を待っています。", "neutral"),
    ],
}


def rows(split: str) -> str:
    out = []
    for i, (premise, hypothesis, label) in enumerate(PAIRS[split]):
        row = {
            "sentence_pair_id": str(i),
            "yjcaptions_id": f"fx{split}-{i:03d}-{200 + 2 * i}-{201 + 2 * i}",
            "sentence1": premise,
            "sentence2": hypothesis,
            "label": label,
        }
        out.append(json.dumps(row, ensure_ascii=False) + "\n")
    return "".join(out)


def write(out: Path) -> None:
    for split in PAIRS:
        (out / f"{split}-v1.3.json").write_text(rows(split), encoding="utf-8")
    write_manifest(
        out,
        "jnli",
        "Invented Japanese premise/hypothesis pairs written for lm-eval-enterprise (not from JNLI), in the "
        "JSON-lines format of JGLUE v1.3's JNLI files (train / valid / test).",
        {split: len(pairs) for split, pairs in PAIRS.items()},
    )


if __name__ == "__main__":
    generator_main(write)
