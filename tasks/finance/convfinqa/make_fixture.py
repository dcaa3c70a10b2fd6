#!/usr/bin/env python
"""Write the synthetic ConvFinQA fixture ``fixture/data.zip``.

The archive has the layout of the real ``data.zip`` (``data/train_turn.json``, ``data/dev_turn.json``) and the
real per-turn record schema (``pre_text``, ``post_text``, ``filename``, ``table_ori``, ``table``, ``qa``, ``id``,
``annotation`` with ``dialogue_break``, ``turn_program``, ``qa_split``, ``exe_ans_list``, ``cur_program``,
``cur_dial``, ``exe_ans``, ``cur_type``, ``turn_ind``, ``gold_ind``/``gold_inds``). Companies, tables and numbers are
invented for lm-eval-enterprise; nothing is copied from ConvFinQA. Deterministic output (fixed zip timestamps).

    .venv/bin/python tasks/finance/convfinqa/make_fixture.py [--out DIR]
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest


def conversation(conv_id, filename, pre_text, post_text, table_ori, table, turns, facts, facts_key="gold_ind"):
    """Expand one conversation into its per-turn records (ConvFinQA ``*_turn.json`` layout).

    ``turns`` = [(question, program, answer), ...]; every turn record carries the whole ``exe_ans_list`` and the
    dialogue up to and including its own question in ``cur_dial``.
    """
    questions = [q for q, _, _ in turns]
    programs = [p for _, p, _ in turns]
    answers = [a for _, _, a in turns]
    qa = {
        "question": questions[-1],
        "answer": str(answers[-1]),
        "program": programs[-1],
        "exe_ans": answers[-1],
        "gold_inds": facts,
    }
    out = []
    for t, (_question, program, answer) in enumerate(turns):
        annotation = {
            "dialogue_break": questions,
            "turn_program": programs,
            "qa_split": [False] * len(turns),
            "exe_ans_list": answers,
            "cur_program": program,
            "cur_dial": questions[: t + 1],
            "exe_ans": answer,
            "cur_type": "number_selection" if "(" not in program else "program",
            "turn_ind": t,
            facts_key: facts,
        }
        out.append(
            {
                "pre_text": pre_text,
                "post_text": post_text,
                "filename": filename,
                "table_ori": table_ori,
                "table": table,
                "qa": qa,
                "id": f"{conv_id}_{t}",
                "annotation": annotation,
            }
        )
    return out


TRAIN = conversation(
    "Single_ACMR/2015/page_40.pdf-1",
    "ACMR/2015/page_40.pdf",
    [
        "acmer industrial holdings reports results for its three operating segments .",
        "net revenue grew in each of the last three years driven by volume gains in the filtration segment .",
    ],
    ["the company expects capital expenditures of approximately $ 95 million in 2016 ."],
    [
        ["", "2015", "2014", "2013"],
        ["Net revenue", "$1,250.4", "$1,102.7", "$987.1"],
        ["Operating income", "312.8", "276.5", "240.9"],
        ["Net income", "201.3", "180.2", "151.7"],
    ],
    [
        ["", "2015", "2014", "2013"],
        ["net revenue", "$ 1250.4", "$ 1102.7", "$ 987.1"],
        ["operating income", "312.8", "276.5", "240.9"],
        ["net income", "201.3", "180.2", "151.7"],
    ],
    [
        ("what was the net revenue in 2015?", "1250.4", 1250.4),
        ("and what was it in 2014?", "1102.7", 1102.7),
        ("what was, then, the change over the year?", "subtract(1250.4, 1102.7)", 147.7),
        (
            "and how much does this change represent in relation to the 2014 net revenue?",
            "subtract(1250.4, 1102.7), divide(#0, 1102.7)",
            0.13394,
        ),
    ],
    {"table_1": "the net revenue of 2015 is $ 1250.4 ; the net revenue of 2014 is $ 1102.7 ;"},
) + conversation(
    "Double_BRVL/2016/page_72.pdf",
    "BRVL/2016/page_72.pdf",
    [
        "during 2016 the board of brevel logistics authorized an additional $ 600 million share repurchase program .",
        "the company repurchased 9.1 million shares for $ 450 million in 2016 compared with $ 385 million in 2015 .",
    ],
    ["repurchased shares are held as treasury stock ."],
    [
        ["Period", "Shares repurchased (millions)", "Average price per share"],
        ["Q1 2016", "2.0", "$48.10"],
        ["Q2 2016", "2.4", "$49.35"],
        ["Q3 2016", "2.5", "$50.02"],
        ["Q4 2016", "2.2", "$49.76"],
    ],
    [
        ["period", "shares repurchased ( millions )", "average price per share"],
        ["q1 2016", "2.0", "$ 48.10"],
        ["q2 2016", "2.4", "$ 49.35"],
        ["q3 2016", "2.5", "$ 50.02"],
        ["q4 2016", "2.2", "$ 49.76"],
    ],
    [
        ("what was the amount spent on share repurchases in 2016, in millions?", "450", 450.0),
        ("was this greater than the amount spent in 2015?", "greater(450, 385)", "yes"),
    ],
    {
        "text_1": "the company repurchased 9.1 million shares for $ 450 million in 2016 compared with $ 385 "
        "million in 2015 ."
    },
    facts_key="gold_inds",
)

DEV = (
    conversation(
        "Single_CDRA/2012/page_55.pdf-2",
        "CDRA/2012/page_55.pdf",
        [
            "cedarline utilities generates cash primarily from regulated electricity distribution .",
            "net cash provided by operating activities was $ 842 million in 2012 and $ 765 million in 2011 .",
        ],
        ["capital expenditures are funded from operating cash flow and short-term borrowings ."],
        [
            ["(in millions)", "2012", "2011", "2010"],
            ["Net cash from operating activities", "$842", "$765", "$701"],
            ["Capital expenditures", "(610)", "(588)", "(540)"],
            ["Free cash flow", "$232", "$177", "$161"],
        ],
        [
            ["( in millions )", "2012", "2011", "2010"],
            ["net cash from operating activities", "$ 842", "$ 765", "$ 701"],
            ["capital expenditures", "-610 ( 610 )", "-588 ( 588 )", "-540 ( 540 )"],
            ["free cash flow", "$ 232", "$ 177", "$ 161"],
        ],
        [
            ("what was the free cash flow in 2012?", "232", 232.0),
            ("and in 2011?", "177", 177.0),
            ("what was the percentage growth from 2011 to 2012?", "subtract(232, 177), divide(#0, 177)", 0.31073),
        ],
        {
            "text_2": "net cash provided by operating activities was $ 842 million in 2012 and $ 765 million in 2011 .",
            "table_3": "the free cash flow of 2012 is $ 232 ; the free cash flow of 2011 is $ 177 ;",
            "text_4": "capital expenditures are funded from operating cash flow and short-term borrowings .",
        },
    )
    + conversation(
        "Single_DNVX/2018/page_91.pdf-4",
        "DNVX/2018/page_91.pdf",
        ["denvex pharmaceuticals records restructuring charges for the closure of two plants ."],
        ["the remaining accrual is expected to be paid by the end of 2019 ."],
        [
            ["", "Severance", "Asset write-downs", "Total"],
            ["Balance at December 31, 2017", "$58.4", "$12.0", "$70.4"],
            ["Charges", "21.6", "9.3", "30.9"],
            ["Payments", "(45.2)", "(15.8)", "(61.0)"],
            ["Balance at December 31, 2018", "$34.8", "$5.5", "$40.3"],
        ],
        [
            ["", "severance", "asset write-downs", "total"],
            ["balance at december 31 2017", "$ 58.4", "$ 12.0", "$ 70.4"],
            ["charges", "21.6", "9.3", "30.9"],
            ["payments", "-45.2 ( 45.2 )", "-15.8 ( 15.8 )", "-61.0 ( 61.0 )"],
            ["balance at december 31 2018", "$ 34.8", "$ 5.5", "$ 40.3"],
        ],
        [
            ("what was the total restructuring balance at the end of 2018?", "40.3", 40.3),
            ("and at the end of 2017?", "70.4", 70.4),
            ("what was the change in the balance during 2018?", "subtract(40.3, 70.4)", -30.1),
        ],
        {
            "table_5": "the total of balance at december 31 2018 is $ 40.3 ; the total of balance at december 31 2017 is "
            "$ 70.4 ;"
        },
    )
    + conversation(
        "Single_ELMW/2009/page_23.pdf-1",
        "ELMW/2009/page_23.pdf",
        ["elmwood retail operated stores in three regions at year end ."],
        [],
        [
            ["Region", "2009", "2008"],
            ["Northeast", "148", "141"],
            ["Midwest", "96", "90"],
            ["South", "84", "76"],
            ["Total stores", "328", "307"],
        ],
        [
            ["region", "2009", "2008"],
            ["northeast", "148", "141"],
            ["midwest", "96", "90"],
            ["south", "84", "76"],
            ["total stores", "328", "307"],
        ],
        [
            ("how many stores were open in total in 2009?", "328", 328),
            ("and in 2008?", "307", 307),
            ("how many stores were added during 2009?", "subtract(328, 307)", 21),
        ],
        {},
    )
)


def write(out: Path) -> None:
    with zipfile.ZipFile(out / "data.zip", "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, rows in (("data/train_turn.json", TRAIN), ("data/dev_turn.json", DEV)):
            info = zipfile.ZipInfo(name, date_time=(2022, 10, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, json.dumps(rows, indent=4))
    write_manifest(
        out,
        "convfinqa",
        "Synthetic ConvFinQA conversations written for lm-eval-enterprise (invented "
        "companies and numbers, not from the real data), in the layout of the real data.zip "
        "(data/train_turn.json, data/dev_turn.json) and its per-turn record schema. Generated by "
        "tasks/finance/convfinqa/make_fixture.py. The train pool includes a yes/no turn; the eval turns "
        "are numeric (a yes/no gold answer always scores 0 under [FEQ], so the oracle could not reach "
        "1.0).",
        {"train": len(TRAIN), "valid": len(DEV)},
    )
    print(f"data.zip: train {len(TRAIN)} turns, dev {len(DEV)} turns")


if __name__ == "__main__":
    generator_main(write)
