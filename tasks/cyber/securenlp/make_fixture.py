#!/usr/bin/env python
"""Write the synthetic securenlp fixture ``fixture/{train,dev,test_1}/tokenized/*``.

Same format as the MalwareTextDB-2.0 token files vendored in ``basel-a/secureNLP``: one ``token TAG`` line per
token (IOB over Entity/Action/Modifier, or ``O``), a blank line between sentences, one file per report. The
sentences and report names are invented for lm-eval-enterprise (nothing copied from MalwareTextDB). In the source
strings below ``word@TAG`` marks a tagged token, other tokens are ``O``; ``word@<empty>`` writes the token followed
by a space and no tag, the quirk of the genuine release (``NN `` inside an entity span of a train report), which
the loader reads as tag ``O`` with one warning. Deterministic.

    .venv/bin/python tasks/cyber/securenlp/make_fixture.py [--out DIR]
"""

from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

REPORTS = {
    "train": {
        "Fictional_Lanternfly_Backdoor_Report.tokens": [
            "The Lanternfly@B-Entity backdoor@I-Entity collects@B-Action the@B-Entity hostname@I-Entity of the infected machine .",
            "Our research team first observed this campaign in the spring of last year .",
            "The@B-Entity dropper@I-Entity writes@B-Action a@B-Entity configuration@I-Entity file@I-Entity to the temporary folder .",
            "We would like to thank our partners for their support during the investigation .",
            "Lanternfly@B-Entity encrypts@B-Action its@B-Entity traffic@I-Entity with@B-Modifier a@B-Entity single-byte@I-Entity XOR@I-Entity key@I-Entity .",
            "The remainder of this paper is organised in four sections .",
        ],
        "Imaginary_Quillpig_Stealer_Analysis.tokens": [
            "Quillpig@B-Entity steals@B-Action saved@B-Entity browser@<empty> passwords@I-Entity .",
            "Figure 3 shows the timeline of the attacks .",
            "The@B-Entity loader@I-Entity downloads@B-Action additional@B-Entity modules@I-Entity from@B-Modifier a@B-Entity remote@I-Entity server@I-Entity .",
            "Contact our support desk if you believe you are affected .",
            "This report is provided for informational purposes only .",
        ],
    },
    "dev": {
        "Made_Up_Harrow_Worm_Notes.tokens": [
            "The@B-Entity worm@I-Entity spreads@B-Action through@B-Modifier shared@B-Entity network@I-Entity drives@I-Entity .",
            "Samples were submitted by several customers in Europe .",
            "Harrow@B-Entity deletes@B-Action shadow@B-Entity copies@I-Entity .",
        ],
    },
    "test_1": {
        "Synthetic_Mossback_RAT_Whitepaper.tokens": [
            "Mossback@B-Entity captures@B-Action screenshots@B-Entity every@B-Modifier thirty@I-Modifier seconds@I-Modifier .",
            "The authors presented these findings at a security conference .",
            "The@B-Entity implant@I-Entity injects@B-Action code@B-Entity into@B-Modifier explorer.exe@B-Entity .",
            "We have been tracking this group for several years .",
            "Attribution remains difficult in this case .",
        ],
        "Invented_Tidewater_Campaign.tokens": [
            "The@B-Entity attackers@I-Entity sent@B-Action spear-phishing@B-Entity emails@I-Entity with@B-Modifier malicious@B-Entity attachments@I-Entity .",
            "The campaign targeted organisations in the shipping sector .",
            "Indicators of compromise are listed in the appendix .",
            "The@B-Entity payload@I-Entity creates@B-Action a@B-Entity scheduled@I-Entity task@I-Entity for@B-Modifier persistence@B-Entity .",
            "Thanks to the incident response team for sharing logs .",
        ],
    },
}


EMPTY_TAG = "<empty>"


def token_lines(sentence: str) -> list[str]:
    out = []
    for word in sentence.split():
        token, _, tag = word.partition("@")
        out.append(f"{token} " if tag == EMPTY_TAG else f"{token} {tag or 'O'}")
    return out


def write(out: Path) -> None:
    counts = {}
    for split, reports in REPORTS.items():
        folder = out / split / "tokenized"
        folder.mkdir(parents=True, exist_ok=True)
        for name, sentences in reports.items():
            lines = []
            for s in sentences:
                lines += token_lines(s) + [""]
            (folder / name).write_text("\n".join(lines))
        counts[split] = sum(len(s) for s in reports.values())
    write_manifest(
        out,
        "securenlp",
        "Synthetic malware-report sentences written for lm-eval-enterprise (not from MalwareTextDB), "
        "in the token/tag file format of MalwareTextDB-2.0 (train/dev/test_1 tokenized folders).",
        {"train": counts["train"], "valid": counts["dev"], "test": counts["test_1"]},
    )


if __name__ == "__main__":
    generator_main(write)
