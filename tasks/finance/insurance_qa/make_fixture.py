#!/usr/bin/env python
"""Write the synthetic InsuranceQA V2 fixture ``fixture/``.

Same files and line formats as ``shuzi/insuranceQA`` ``V2/``: gzip question files
``domain<TAB>question<TAB>ground-truth labels<TAB>pool labels`` (test and train, 100-pool "raw" names), the gzip
answer file ``label<TAB>answer``, and ``vocabulary`` (``idx_N<TAB>word``); all text is ``idx_N`` tokens. The 36
answers and 8 questions are invented for lm-eval-enterprise (nothing copied from InsuranceQA). Pools hold 24
non-ground-truth labels; every other question's pool also contains a ground-truth label (as Solr pools sometimes
do). Deterministic (seeded pools, gzip mtime 0).

    .venv/bin/python tasks/finance/insurance_qa/make_fixture.py [--out DIR]
"""

import gzip
import random
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

answers = [
    "Term life insurance covers you for a fixed number of years , usually 10 , 20 or 30 . If you die during the term your beneficiaries receive the death benefit ; if you outlive it the coverage simply ends .",
    "Whole life insurance lasts for your entire life as long as premiums are paid , and it builds cash value that you can borrow against .",
    "Yes , most life insurance policies pay the death benefit free of federal income tax to the named beneficiary .",
    "Your auto insurance premium is based on your driving record , the car you drive , where you live , your age and how many miles you drive each year .",
    "Collision coverage pays to repair your own car after an accident with another vehicle or object , regardless of who was at fault , minus your deductible .",
    "Comprehensive coverage pays for damage to your car that is not caused by a collision , such as theft , hail , fire or hitting a deer .",
    "A deductible is the amount you pay out of pocket before your insurance company starts to pay on a claim .",
    "Homeowners insurance usually covers the structure of your home , your personal belongings , liability for injuries on your property and additional living expenses if you must move out during repairs .",
    "Standard homeowners policies do not cover flood damage . You need a separate flood policy , often through the National Flood Insurance Program .",
    "Renters insurance covers your personal property and your liability , but not the building itself , which is the landlord 's responsibility .",
    "Health insurance premiums are the monthly payments you make to keep your coverage active , whether or not you use any medical services .",
    "A health savings account can only be opened if you are enrolled in a high deductible health plan .",
    "Disability insurance replaces part of your income if an illness or injury keeps you from working .",
    "Long term care insurance pays for nursing home care , assisted living or in-home care that health insurance and Medicare generally do not cover .",
    "An annuity is a contract with an insurance company in which you pay a lump sum or a series of payments and receive regular income later , often for life .",
    "Medicare Part B covers doctor visits , outpatient care and preventive services ; most people pay a monthly premium for it .",
    "Gap insurance pays the difference between what you owe on a car loan and what the car is worth if it is totaled .",
    "Umbrella insurance adds liability coverage on top of your home and auto policies , typically in one million dollar increments .",
    "You can usually cancel a life insurance policy at any time . With term insurance you simply stop paying ; with whole life you may receive the cash surrender value .",
    "Most life insurance policies do pay out for a suicide once the two year suicide clause has expired .",
    "If you stop paying premiums on a term policy , it lapses after the grace period and no death benefit is paid .",
    "Adding a teenage driver to your policy will usually raise your auto premium significantly , although good student discounts can help .",
    "Auto insurance generally follows the car , so if you lend your car to a friend your policy is usually primary if they have an accident .",
    "Pet insurance reimburses veterinary bills for accidents and illnesses ; routine care is usually an optional add-on .",
    "Travel insurance can reimburse prepaid trip costs if you must cancel for a covered reason such as illness .",
    "Title insurance protects a buyer or lender against losses from defects in the title to a property .",
    "Workers compensation insurance pays medical costs and lost wages for employees injured on the job .",
    "A beneficiary can be changed at any time on a revocable designation by filing a change form with the insurer .",
    "The cash value of a whole life policy grows tax deferred and can be withdrawn or borrowed .",
    "Critical illness insurance pays a lump sum if you are diagnosed with a covered illness such as cancer or a heart attack .",
    "Liability coverage on your auto policy pays for injuries and property damage you cause to others .",
    "Uninsured motorist coverage protects you if you are hit by a driver who has no insurance .",
    "Dental insurance usually covers preventive cleanings in full and major work such as crowns at a lower percentage .",
    "Your home insurance may cover a tree falling on your house if the tree fell because of a covered peril such as wind .",
    "Credit scores are used by many insurers to help set auto and home premiums , where state law allows .",
    "Universal life insurance offers flexible premiums and an adjustable death benefit along with a cash value account .",
]
labels = [str(10 + 7 * i) for i in range(len(answers))]
A = dict(zip(labels, answers))
test_q = [
    ("life-insurance", "What is the difference between term and whole life insurance ?", [0, 1], 0),
    ("auto-insurance", "What does collision coverage pay for ?", [4], 1),
    ("home-insurance", "Does homeowners insurance cover flood damage ?", [8], 2),
    ("life-insurance", "Is a life insurance payout taxable ?", [2], 3),
]
train_q = [
    ("auto-insurance", "What is an insurance deductible ?", [6], 4),
    ("health-insurance", "What does disability insurance do ?", [12], 5),
    ("life-insurance", "Can I cancel my life insurance policy ?", [18, 20], 6),
    ("auto-insurance", "What is uninsured motorist coverage ?", [31], 7),
]


def pool_for(truth, seed):
    rng = random.Random(seed)
    others = [i for i in range(len(answers)) if i not in truth]
    pool = rng.sample(others, 24)
    if seed % 2 == 0:  # the Solr pool sometimes contains a ground-truth answer
        pool.insert(3, truth[0])
    return pool


vocab = {}


def enc(text):
    out = []
    for w in text.split():
        if w not in vocab:
            vocab[w] = f"idx_{len(vocab) + 1}"
        out.append(vocab[w])
    return " ".join(out)


def qlines(qs):
    lines = []
    for dom, q, truth, seed in qs:
        lines.append(
            "\t".join(
                [dom, enc(q), " ".join(labels[i] for i in truth), " ".join(labels[i] for i in pool_for(truth, seed))]
            )
        )
    return lines


tl, trl = qlines(test_q), qlines(train_q)
al = [f"{label}\t{enc(a)}" for label, a in A.items()]


def wgz(path: Path, lines: list[str]) -> None:
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
            f.write(("\n".join(lines) + "\n").encode("utf-8"))


def write(out: Path) -> None:
    wgz(out / "InsuranceQA.question.anslabel.raw.100.pool.solr.test.encoded.gz", tl)
    wgz(out / "InsuranceQA.question.anslabel.raw.100.pool.solr.train.encoded.gz", trl)
    wgz(out / "InsuranceQA.label2answer.raw.encoded.gz", al)
    with open(out / "vocabulary", "w") as f:
        for w, i in vocab.items():
            f.write(f"{i}\t{w}\n")
    write_manifest(
        out,
        "insurance_qa",
        "Synthetic insurance Q&A written for lm-eval-enterprise (not from the real "
        "data), in the insuranceQA V2 format: gzip question files 'domain<TAB>question<TAB>ground-truth "
        "labels<TAB>pool labels', answer file 'label<TAB>answer', all text as idx_N tokens decoded by "
        "'vocabulary'. Pools hold 24-25 labels (100 in the real files). Rows = questions: 4 test (all "
        "sampled: min(500, 4)) x 20 candidates = 80 pair docs; 4 train questions = 8 few-shot pairs. "
        "Generated by tasks/finance/insurance_qa/make_fixture.py.",
        {"test": len(test_q), "train": len(train_q)},
    )
    print(f"{len(answers)} answers, {len(vocab)} vocabulary entries")


if __name__ == "__main__":
    generator_main(write)
