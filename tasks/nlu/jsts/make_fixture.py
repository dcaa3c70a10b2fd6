#!/usr/bin/env python
"""Write the synthetic JSTS fixture ``fixture/{train,valid,test}-v1.3.json``.

Same format as JGLUE v1.3's JSTS files: JSON lines, UTF-8 with the Japanese unescaped, ``json.dumps``' default
separators, fields ``sentence_pair_id`` (a string, from "0" in each file), ``yjcaptions_id``, ``sentence1``,
``sentence2``, ``label`` (a float on the 0–5 scale, a multiple of 0.2 as the mean of five ratings is). The caption
pairs, ids and scores are invented for lm-eval-enterprise (nothing is copied from JSTS or YJ Captions); like the
genuine files they mix full-width and half-width digits (``２匹`` / ``2匹``). Deterministic.

    .venv/bin/python tasks/nlu/jsts/make_fixture.py [--out DIR]
"""

import json
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

PAIRS = {
    "train": [
        ("公園のベンチに男性が座っています。", "男性が公園のベンチに腰掛けています。", 4.8),
        ("台所で女性が野菜を切っています。", "キッチンで人が料理をしています。", 3.4),
        ("赤い車が道路に止まっています。", "海辺で犬が走っています。", 0.0),
        ("２匹の猫がソファの上で寝ています。", "ソファで猫が2匹眠っています。", 5.0),
        ("空港に飛行機が停まっています。", "滑走路を飛行機が離陸しようとしています。", 2.6),
        ("子供がボールを蹴っています。", "少年がサッカーをしています。", 3.0),
        ("テーブルの上にケーキがあります。", "皿の上に果物が盛られています。", 1.2),
        ("雪の中をスキーヤーが滑っています。", "雪山でスノーボードをしている人がいます。", 2.2),
    ],
    "valid": [
        ("駅のホームに電車が到着しています。", "電車が駅に入ってきています。", 4.4),
        ("３人の男性が野球をしています。", "グラウンドで3人がバットを持っています。", 2.8),
        ("窓辺に花瓶が置かれています。", "象が川で水を浴びています。", 0.0),
        ("女性が傘をさして歩いています。", "雨の中を女の人が傘を持って歩いています。", 3.8),
        ("机の上にノートパソコンがあります。", "パソコンの前で男性が作業をしています。", 1.6),
        ("バスが交差点を曲がっています。", "大きなバスが道路を走っています。", 2.4),
    ],
    "test": [
        ("牛が牧場で草を食べています。", "草原で牛が草を食んでいます。", 4.6),
        ("男の子が自転車に乗っています。", "男の子が自転車で坂を下っています。", 3.2),
        ("浜辺に１本のヤシの木があります。", "夜の街にネオンが光っています。", 0.2),
        ("鳩が広場に集まっています。", "広場にたくさんの鳥がいます。", 4.0),
    ],
}


def rows(split: str) -> str:
    out = []
    for i, (s1, s2, score) in enumerate(PAIRS[split]):
        row = {
            "sentence_pair_id": str(i),
            "yjcaptions_id": f"fx{split}-{i:03d}-{100 + 2 * i}-{101 + 2 * i}",
            "sentence1": s1,
            "sentence2": s2,
            "label": score,
        }
        out.append(json.dumps(row, ensure_ascii=False) + "\n")
    return "".join(out)


def write(out: Path) -> None:
    for split in PAIRS:
        (out / f"{split}-v1.3.json").write_text(rows(split), encoding="utf-8")
    write_manifest(
        out,
        "jsts",
        "Invented Japanese caption pairs written for lm-eval-enterprise (not from JSTS), in the JSON-lines format "
        "of JGLUE v1.3's JSTS files (train / valid / test).",
        {split: len(pairs) for split, pairs in PAIRS.items()},
    )


if __name__ == "__main__":
    generator_main(write)
