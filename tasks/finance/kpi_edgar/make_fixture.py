#!/usr/bin/env python
"""Write the synthetic KPI-EDGAR fixture ``fixture/kpi_edgar.json``.

Same JSON structure as ``data/kpi_edgar.json`` of ``tobideusser/kpi-edgar`` (a list of documents → ``segments`` →
``sentences`` with ``split_type``, ``words[*].value``, ``entities_anno[*]`` {``type_``, ``start``, ``end``}). The
sentences and figures are invented for lm-eval-enterprise (fictional companies; nothing copied from KPI-EDGAR).
Includes null ``split_type`` sentences, a segment without sentences, non-HELM entity types (increase, decrease,
thereof), a sentence with only a non-HELM entity, py1 values and square brackets in the text. Deterministic.

    .venv/bin/python tasks/finance/kpi_edgar/make_fixture.py [--out DIR]
"""

import json
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

# token@label_n: consecutive tokens with the same label form one entity; type = label without its "_n" suffix
# (the annotators' relation index, as in the kpi-edgar annotation sheets).
DOCS = {
    "NWDG_10-K_0000000001-21-000101.txt": [
        (
            "train",
            "Net@kpi_1 sales@kpi_1 increased@increase_1 to $ 1,482@cy_1 million in 2020 from $ 1,305@py_1 million in 2019 .",
        ),
        ("train", "Gross@kpi_1 margin@kpi_1 was 41.2@cy_1 % , compared with 39.8@py_1 % in the prior year ."),
        (
            "train",
            "Research@kpi_1 and@kpi_1 development@kpi_1 expense@kpi_1 was $ 212@cy_1 million , $ 198@py_1 million and $ 176@py1_1 million for 2020 , 2019 and 2018 , respectively .",
        ),
        (None, "The Company operates in three reportable segments ."),
        ("train", "Operating@kpi_1 cash@kpi_1 flow@kpi_1 totaled $ 355@cy_1 million ."),
        ("train", "We paid dividends of $ 0.84@cy_1 per share [ note 12 ] during the year ."),
        (
            "train",
            "Capital@kpi_1 expenditures@kpi_1 decreased@decrease_1 to $ 97@cy_1 million from $ 121@py_1 million .",
        ),
        ("test", "Revenue@kpi_1 from@kpi_1 services@kpi_1 grew to $ 640@cy_1 million , up from $ 588@py_1 million ."),
        (
            "test",
            "Selling@kpi_1 ,@kpi_1 general@kpi_1 and@kpi_1 administrative@kpi_1 expenses@kpi_1 were $ 301@cy_1 million in fiscal 2020 .",
        ),
        ("valid", "Inventories@kpi_1 were $ 233@cy_1 million at year end ."),
        ("train", "Order intake rose@increase_1 sharply during the fourth quarter ."),
    ],
    "BRKL_10-K_0000000002-20-000202.txt": [
        (
            "train",
            "Total@kpi_1 assets@kpi_1 were $ 12.4@cy_1 billion at December 31 , 2020 , and $ 11.9@py_1 billion at December 31 , 2019 .",
        ),
        (
            "train",
            "Interest@kpi_1 expense@kpi_1 was $ 58@cy_1 million , $ 63@py_1 million and $ 71@py1_1 million in 2020 , 2019 and 2018 .",
        ),
        ("train", "The effective@kpi_1 tax@kpi_1 rate@kpi_1 was 22.5@cy_1 % in 2020 ."),
        ("train", "Goodwill@kpi_1 of $ 1,020@cy_1 million was not impaired ."),
        (
            "train",
            "Net@kpi_1 income@kpi_1 attributable to shareholders was $ 845@cy_1 million , thereof $ 120@thereof_1 million from discontinued operations .",
        ),
        (None, "Certain prior period amounts have been reclassified to conform to the current presentation ."),
        (
            "train",
            "Depreciation@kpi_1 and@kpi_1 amortization@kpi_1 totaled $ 410@cy_1 million compared to $ 395@py_1 million .",
        ),
        ("test", "Long-term@kpi_1 debt@kpi_1 decreased to $ 2,150@cy_1 million from $ 2,480@py_1 million ."),
        (
            "test",
            "Cash@kpi_1 and@kpi_1 cash@kpi_1 equivalents@kpi_1 [ including restricted cash ] were $ 918@cy_1 million .",
        ),
        ("train", "Headcount increased by 4 % over the year ."),
        ("valid", "Free@kpi_1 cash@kpi_1 flow@kpi_1 was $ 276@cy_1 million , versus $ 254@py_1 million ."),
    ],
    "QRTZ_10-K_0000000003-21-000303.txt": [
        ("train", "Subscription@kpi_1 revenue@kpi_1 reached $ 2.1@cy_1 billion , an increase of 18@increase_1 % ."),
        (
            "train",
            "Share-based@kpi_1 compensation@kpi_1 expense@kpi_1 was $ 145@cy_1 million , $ 132@py_1 million and $ 118@py1_1 million for fiscal 2021 , 2020 and 2019 .",
        ),
        ("train", "Backlog@kpi_1 stood at $ 3,760@cy_1 million ."),
        (
            "train",
            "Restructuring@kpi_1 charges@kpi_1 of $ 34@cy_1 million were recorded , compared with $ 12@py_1 million .",
        ),
        ("train", "Accounts@kpi_1 receivable@kpi_1 ,@kpi_1 net@kpi_1 were $ 512@cy_1 million and $ 468@py_1 million ."),
        ("train", "Advertising@kpi_1 costs@kpi_1 were $ 27@cy_1 million ."),
        (
            "train",
            "Income@kpi_1 tax@kpi_1 expense@kpi_1 was $ 96@cy_1 million , $ 88@py_1 million and $ 79@py1_1 million , respectively .",
        ),
        ("train", "Operating@kpi_1 income@kpi_1 rose to $ 623@cy_1 million ."),
        ("test", "Deferred@kpi_1 revenue@kpi_1 increased to $ 1,204@cy_1 million from $ 1,011@py_1 million ."),
        (
            "test",
            "Cost@kpi_1 of@kpi_1 revenue@kpi_1 was $ 870@cy_1 million , $ 801@py_1 million and $ 745@py1_1 million for 2021 , 2020 and 2019 .",
        ),
        ("test", "Research@kpi_1 expense@kpi_1 was $ 330@cy_1 million ."),
        ("valid", "Marketable@kpi_1 securities@kpi_1 totaled $ 1,640@cy_1 million ."),
    ],
    "HLVX_10-K_0000000004-20-000404.txt": [
        ("train", "Rental@kpi_1 income@kpi_1 was $ 74@cy_1 million in 2020 and $ 69@py_1 million in 2019 ."),
        ("train", "Warranty@kpi_1 reserves@kpi_1 were $ 41@cy_1 million ."),
        ("train", "Purchase@kpi_1 obligations@kpi_1 amounted to $ 1,115@cy_1 million ."),
        (
            "train",
            "Pension@kpi_1 contributions@kpi_1 of $ 55@cy_1 million were made , compared to $ 60@py_1 million and $ 48@py1_1 million in the two preceding years .",
        ),
        ("train", "Diluted@kpi_1 earnings@kpi_1 per@kpi_1 share@kpi_1 were $ 3.12@cy_1 versus $ 2.87@py_1 ."),
        ("test", "Operating@kpi_1 lease@kpi_1 cost@kpi_1 was $ 88@cy_1 million ."),
        (
            "test",
            "Net@kpi_1 loss@kpi_1 was $ 14@cy_1 million , compared to net@kpi_2 income@kpi_2 of $ 22@py_1 million .",
        ),
        ("test", "Free@kpi_1 cash@kpi_1 flow@kpi_1 improved to $ 190@cy_1 million from $ 150@py_1 million ."),
        ("valid", "Gross@kpi_1 profit@kpi_1 was $ 402@cy_1 million ."),
    ],
}


def parse(spec):
    words, labels = [], []
    for tok in spec.split(" "):
        w, _, lab = tok.partition("@")
        words.append(w)
        labels.append(lab)
    ents, i = [], 0
    while i < len(words):
        if labels[i]:
            j = i
            while j + 1 < len(words) and labels[j + 1] == labels[i]:
                j += 1
            ents.append({"type_": labels[i].rsplit("_", 1)[0], "start": i, "end": j + 1, "raw": labels[i]})
            i = j + 1
        else:
            i += 1
    ents.sort(key=lambda e: e["raw"])  # annotation merger order: sorted raw labels
    return words, ents


docs = []
for name, sents in DOCS.items():
    segments, seg_id = [], 0
    # one heading segment without sentences (like a table/empty paragraph in the real file)
    segments.append(
        {
            "id_": seg_id,
            "value": "Item 7. Management's Discussion and Analysis",
            "tag": "table",
            "sentences": None,
            "textblock_entity": None,
            "edgar_entities": None,
        }
    )
    seg_id += 1
    for k in range(0, len(sents), 3):
        chunk = sents[k : k + 3]
        sentences = []
        for sid, (split, spec) in enumerate(chunk):
            words, ents = parse(spec)
            value = " ".join(words)
            sentences.append(
                {
                    "id_": sid,
                    "value": value,
                    "split_type": split,
                    "unique_id": f"{name}_{seg_id}_{sid}",
                    "edgar_entities": None,
                    "words": [
                        {
                            "id_": i,
                            "value": w,
                            "is_numeric": w.replace(",", "").replace(".", "").isdigit(),
                            "is_currency": w == "$",
                        }
                        for i, w in enumerate(words)
                    ],
                    "entities_anno": [
                        {
                            "type_": e["type_"],
                            "start": e["start"],
                            "end": e["end"],
                            "value": " ".join(words[e["start"] : e["end"]]),
                        }
                        for e in ents
                    ],
                    "relations_anno": [],
                }
            )
        segments.append(
            {
                "id_": seg_id,
                "value": " ".join(s["value"] for s in sentences),
                "tag": "text",
                "sentences": sentences,
                "textblock_entity": None,
                "edgar_entities": None,
            }
        )
        seg_id += 1
    docs.append({"id_": name, "segments": segments})


def write(out: Path) -> None:
    (out / "kpi_edgar.json").write_text(json.dumps(docs, separators=(",", ":")) + "\n")
    write_manifest(
        out,
        "kpi_edgar",
        "Synthetic 10-K sentences written for lm-eval-enterprise (not from the real "
        "data), in the JSON structure of kpi_edgar.json (documents -> segments -> sentences with "
        "split_type, words[*].value, entities_anno[*] {type_, start, end}); includes null split_type "
        "sentences, a segment without sentences, non-HELM entity types and square brackets in the text. "
        "Generated by tasks/finance/kpi_edgar/make_fixture.py.",
        {"train": 25, "valid": 4, "test": 10},
    )


if __name__ == "__main__":
    generator_main(write)
