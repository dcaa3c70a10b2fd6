#!/usr/bin/env python
"""Write the synthetic legal_summarization fixture ``fixture/all_v1.json``.

The structure of ``all_v1.json`` (Manor & Li 2019, as HELM reads it): one JSON object keyed by ``uid`` (written as
one line), LegalSum records with ``doc``, ``id``, ``title`` and TOS;DR-style records without ``id``/``title``. The 21
terms-of-service snippets and summaries are invented for lm-eval-enterprise (fictional services); one record has a
null ``reference_summary`` that HELM's ``dropna`` removes: 21 records → 20 → train 4 / test 16.

    .venv/bin/python tasks/legal/legal_summarization/make_fixture.py [--out DIR]
"""

import json
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

RECORDS = [  # in file order; keyed by "uid" in the file
    {
        "doc": "Brightleaf Notes Terms of Service",
        "id": "5f3a01c0ffee000000000001",
        "original_text": "by creating an account or using the brightleaf notes application you agree to be bound by these terms of service. if you do not agree to these terms  you may not access or use the service.",
        "reference_summary": "if you use the app you accept these terms. if you don t agree don t use it.",
        "title": "Acceptance of Terms",
        "uid": "legalsum01",
    },
    {
        "doc": "Brightleaf Notes Terms of Service",
        "id": "5f3a02c0ffee000000000002",
        "original_text": "you must be at least 16 years old to use the service. if you are under the age of majority in your jurisdiction you may use the service only with the consent of a parent or legal guardian who agrees to these terms on your behalf.",
        "reference_summary": "you have to be 16 or older. if you re a minor a parent has to agree for you.",
        "title": "Eligibility",
        "uid": "legalsum02",
    },
    {
        "doc": "Brightleaf Notes Terms of Service",
        "id": "5f3a03c0ffee000000000003",
        "original_text": "you retain all ownership rights in the notes files and other materials you upload to the service your content. you grant brightleaf a worldwide royalty free license to host store and display your content solely for the purpose of operating and improving the service.",
        "reference_summary": "your notes are still yours but we can store and show them to run the service.",
        "title": "Your Content",
        "uid": "legalsum03",
    },
    {
        "doc": "Brightleaf Notes Terms of Service",
        "id": "5f3a04c0ffee000000000004",
        "original_text": "certain features require a paid subscription. subscription fees are billed in advance on a monthly or annual basis and are non refundable except where required by law.\nwe may change our fees upon thirty days notice.",
        "reference_summary": "some features cost money. you pay up front and generally can t get a refund. prices can change with 30 days notice.",
        "title": "Subscription Fees",
        "uid": "legalsum04",
    },
    {
        "doc": "Brightleaf Notes Terms of Service",
        "id": "5f3a05c0ffee000000000005",
        "original_text": "we may suspend or terminate your access to the service at any time without notice if we believe that you have violated these terms. upon termination your right to use the service will immediately cease.",
        "reference_summary": "we can shut down your account any time if we think you broke the rules.",
        "title": "Termination",
        "uid": "legalsum05",
    },
    {
        "doc": "Quarry Maps Privacy Policy",
        "id": "5f3a06c0ffee000000000006",
        "original_text": "when you enable location services we collect precise location information from your device in order to provide navigation features. you can disable location collection at any time through your device settings but some features will no longer work.",
        "reference_summary": "we track your exact location when you allow it. you can turn it off but then parts of the app stop working.",
        "title": "Location Data",
        "uid": "legalsum06",
    },
    {
        "doc": "Quarry Maps Privacy Policy",
        "id": "5f3a07c0ffee000000000007",
        "original_text": "we may share aggregated or de identified information with our business partners for research and analytics purposes. we do not sell personal information that directly identifies you.",
        "reference_summary": "we share anonymous data with partners but we don t sell data that names you.",
        "title": "Sharing With Partners",
        "uid": "legalsum07",
    },
    {
        "doc": "Quarry Maps Terms of Use",
        "id": "5f3a08c0ffee000000000008",
        "original_text": "to the maximum extent permitted by law quarry maps shall not be liable for any indirect incidental special or consequential damages arising out of your use of the service including any route errors or delays.",
        "reference_summary": "we are not responsible if our directions are wrong or make you late.",
        "title": "Limitation of Liability",
        "uid": "legalsum08",
    },
    {
        "doc": "Quarry Maps Terms of Use",
        "id": "5f3a09c0ffee000000000009",
        "original_text": "these terms are governed by the laws of the state of oregon without regard to its conflict of law provisions. any dispute shall be brought exclusively in the state or federal courts located in portland oregon.",
        "reference_summary": "oregon law applies and any lawsuit has to be filed in portland.",
        "title": "Governing Law",
        "uid": "legalsum09",
    },
    {
        "doc": "Quarry Maps Terms of Use",
        "id": "5f3a10c0ffee000000000010",
        "original_text": "we may revise these terms from time to time. the most current version will always be posted in the app. by continuing to use the service after revisions become effective you agree to be bound by the revised terms.",
        "reference_summary": "we can change these terms and if you keep using the app you accept the new ones.",
        "title": "Changes to Terms",
        "uid": "legalsum10",
    },
    {
        "doc": "Terms of Service",
        "original_text": "you agree that any dispute with pinecrest games will be resolved through final and binding arbitration on an individual basis and you waive any right to participate in a class action.",
        "reference_summary": "you give up your right to a class action and disputes go to arbitration.",
        "uid": "tosdr003",
    },
    {
        "doc": "Privacy Policy",
        "original_text": "we retain your personal data for as long as your account is active and for up to five years after deletion for legal and audit purposes.",
        "reference_summary": "your data is kept for up to five years after you delete your account.",
        "uid": "tosdr010",
    },
    {
        "doc": "Terms of Service",
        "original_text": "the service is provided as is and as available without warranties of any kind either express or implied.",
        "reference_summary": "the service comes with no guarantees.",
        "uid": "tosdr017",
    },
    {
        "doc": "Legal Terms",
        "original_text": "we use cookies  and similar technologies to remember your preferences and to measure the performance of our advertising campaigns.",
        "reference_summary": "cookies are used for preferences and to measure ads.",
        "uid": "tosdr024",
    },
    {
        "doc": "Terms of Use",
        "original_text": "you may not use automated means such as bots or scrapers to access the service or collect content from it.",
        "reference_summary": "no bots or scraping.",
        "uid": "tosdr031",
    },
    {
        "doc": "Privacy Notice",
        "original_text": "you may request a copy of the personal information we hold about you and ask us to correct or delete it by contacting our privacy team.",
        "reference_summary": "you can get a copy of your data and ask for it to be fixed or deleted.",
        "uid": "tosdr038",
    },
    {
        "doc": "Terms of Service",
        "original_text": "we may display advertisements within the service including advertisements based on your activity and interests.",
        "reference_summary": "the service shows targeted ads.",
        "uid": "tosdr045",
    },
    {
        "doc": "Terms of Service",
        "original_text": "you are responsible for maintaining the confidentiality of your password and for all activity that occurs under your account.",
        "reference_summary": "you are responsible for everything done with your account.",
        "uid": "tosdr052",
    },
    {
        "doc": "Privacy Policy",
        "original_text": "information collected from users in the european economic area may be transferred to and processed in the united states.",
        "reference_summary": None,
        "uid": "tosdr059",
    },
    {
        "doc": "Terms of Service",
        "original_text": "we may assign or transfer these terms in connection with a merger acquisition or sale of assets without your consent.",
        "reference_summary": "the company can transfer the agreement to a buyer without asking you.",
        "uid": "tosdr066",
    },
    {
        "doc": "Community Guidelines",
        "original_text": "users must not post content that is hateful threatening or that harasses other members of the community.",
        "reference_summary": "no hateful or harassing posts.",
        "uid": "tosdr073",
    },
]


def write(out: Path) -> None:
    (out / "all_v1.json").write_text(json.dumps({r["uid"]: r for r in RECORDS}))
    write_manifest(
        out,
        "legal_summarization",
        "Synthetic terms-of-service snippets and plain-English summaries written "
        "for lm-eval-enterprise (invented services, not from the real data), in the structure of "
        "all_v1.json (dict keyed by uid; TOS;DR-style records without id/title; one record with a null "
        "reference_summary that the HELM dropna removes: 21 records -> 20 -> train 4 / test 16). Generated "
        "by tasks/legal/legal_summarization/make_fixture.py.",
        {"train": 4, "test": 16},
    )


if __name__ == "__main__":
    generator_main(write)
