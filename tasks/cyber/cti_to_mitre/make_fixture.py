#!/usr/bin/env python
"""Write the synthetic cti_to_mitre fixture ``fixture/{dataset.csv,enterprise-attack.json}``.

``dataset.csv``: the columns of dessertlab's ``data/dataset.csv`` (``sentence,label_tec,label_subtec,tec_name``),
30 threat-report sentences invented for lm-eval-enterprise. ``enterprise-attack.json``: a minimal ATT&CK STIX
bundle in the shape of ``mitre/cti`` — 13 techniques (real IDs and names, ``x_mitre_is_subtechnique: false``; one of
them, T1064 "Scripting", deprecated as in v10.1, which still counts it), 4 sub-techniques, the quirks of the genuine
bundles that are NOT techniques — two revoked attack-patterns without the flag (as the 129 revoked objects of v10.1)
and one revoked object with the flag false (as in later ATT&CK releases) — a tactic and a relationship; object ids
are made up.

    .venv/bin/python tasks/cyber/cti_to_mitre/make_fixture.py [--out DIR]
"""

import csv
import json
import random
import uuid
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

rng = random.Random(3)
techs = [
    ("T1003", "OS Credential Dumping"),
    ("T1027", "Obfuscated Files or Information"),
    ("T1055", "Process Injection"),
    ("T1059", "Command and Scripting Interpreter"),
    ("T1071", "Application Layer Protocol"),
    ("T1082", "System Information Discovery"),
    ("T1105", "Ingress Tool Transfer"),
    ("T1547", "Boot or Logon Autostart Execution"),
    ("T1566", "Phishing"),
    ("T1070", "Indicator Removal on Host"),
    ("T1053", "Scheduled Task/Job"),
    ("T1083", "File and Directory Discovery"),
    ("T1064", "Scripting"),
]
subs = [
    ("T1055.001", "Dynamic-link Library Injection"),
    ("T1059.001", "PowerShell"),
    ("T1566.001", "Spearphishing Attachment"),
    ("T1053.005", "Scheduled Task"),
]


def uid(k):
    return "attack-pattern--" + str(uuid.UUID(int=random.Random(k).getrandbits(128)))


objs = [
    {
        "type": "x-mitre-tactic",
        "id": "x-mitre-tactic--00000000-0000-4000-8000-000000000001",
        "name": "Execution",
        "x_mitre_shortname": "execution",
        "external_references": [
            {"source_name": "mitre-attack", "external_id": "TA0002", "url": "https://attack.mitre.org/tactics/TA0002"}
        ],
    }
]
for i, (tid, name) in enumerate(techs):
    o = {
        "type": "attack-pattern",
        "id": uid(tid),
        "created": "2020-01-01T00:00:00.000Z",
        "modified": "2021-10-15T00:00:00.000Z",
        "name": name,
        "description": f"Synthetic description of {name} for tests.",
        "kill_chain_phases": [{"kill_chain_name": "mitre-attack", "phase_name": "execution"}],
        "external_references": [
            {"source_name": "mitre-attack", "external_id": tid, "url": f"https://attack.mitre.org/techniques/{tid}"},
            {"source_name": "capec", "external_id": f"CAPEC-{100 + i}"},
        ],
        "x_mitre_version": "1.0",
        "spec_version": "2.1",
        "x_mitre_domains": ["enterprise-attack"],
    }
    o["x_mitre_is_subtechnique"] = False
    if tid == "T1064":  # deprecated but not revoked: still one of v10.1's 199 techniques
        o["x_mitre_deprecated"] = True
    objs.append(o)
# revoked objects: v10.1 style (no x_mitre_is_subtechnique at all) and later style (flag false); never techniques
for tid, name, extra in (
    ("T1066", "Indicator Removal from Tools", {}),
    ("T1088", "Bypass User Account Control", {}),
    ("T1086", "PowerShell", {"x_mitre_is_subtechnique": False}),
):
    objs.append(
        {
            "type": "attack-pattern",
            "id": uid(tid),
            "created": "2017-05-31T21:30:54.176Z",
            "modified": "2020-03-20T15:22:53.835Z",
            "name": name,
            "revoked": True,
            **extra,
            "external_references": [
                {"source_name": "mitre-attack", "external_id": tid, "url": f"https://attack.mitre.org/techniques/{tid}"}
            ],
        }
    )
for tid, name in subs:
    objs.append(
        {
            "type": "attack-pattern",
            "id": uid(tid),
            "name": name,
            "x_mitre_is_subtechnique": True,
            "external_references": [
                {
                    "source_name": "mitre-attack",
                    "external_id": tid,
                    "url": "https://attack.mitre.org/techniques/" + tid.replace(".", "/"),
                }
            ],
        }
    )
objs.append(
    {
        "type": "relationship",
        "id": "relationship--00000000-0000-4000-8000-000000000002",
        "relationship_type": "subtechnique-of",
        "source_ref": uid("T1055.001"),
        "target_ref": uid("T1055"),
    }
)
bundle = {
    "type": "bundle",
    "id": "bundle--00000000-0000-4000-8000-000000000000",
    "spec_version": "2.0",
    "objects": objs,
}
rows = [
    ("The loader injects its payload into a suspended svchost.exe process.", "T1055", "", ""),
    (
        "It writes a DLL path into the target process memory and calls LoadLibrary through a remote thread.",
        "T1055",
        "T1055.001",
        "Dynamic-link Library Injection",
    ),
    ("The implant hollows out a legitimate process and maps its own code into it.", "T1055", "", ""),
    ("The backdoor allocates memory in explorer.exe and runs shellcode there.", "T1055", "", ""),
    ("The dropper runs a PowerShell one-liner to fetch the second stage.", "T1059", "T1059.001", "PowerShell"),
    ("Attackers used cmd.exe to execute batch scripts on the compromised host.", "T1059", "", ""),
    ("The malware launches a hidden command shell to run operator commands.", "T1059", "", ""),
    ("A VBScript embedded in the document spawns further commands.", "T1059", "", ""),
    (
        "The group sent emails with malicious Word attachments to finance staff.",
        "T1566",
        "T1566.001",
        "Spearphishing Attachment",
    ),
    ("Victims received a message containing a link to a fake login page.", "T1566", "", ""),
    (
        "The campaign lured targets with invoices carrying macro-enabled files.",
        "T1566",
        "T1566.001",
        "Spearphishing Attachment",
    ),
    ("The tool dumps LSASS memory to harvest cleartext passwords.", "T1003", "", ""),
    ("The actor copied the SAM and SYSTEM hives to extract password hashes.", "T1003", "", ""),
    ("A credential stealer reads the memory of the authentication service.", "T1003", "", ""),
    ("Strings in the binary are XOR-encoded to hinder analysis.", "T1027", "", ""),
    ("The payload is packed and its configuration is base64 encoded.", "T1027", "", ""),
    ("The script is heavily obfuscated with string concatenation and junk code.", "T1027", "", ""),
    ("The implant communicates with its server over HTTPS POST requests.", "T1071", "", ""),
    ("Commands are retrieved from the C2 server through DNS TXT records.", "T1071", "", ""),
    ("The beacon hides its traffic inside ordinary HTTP GET requests.", "T1071", "", ""),
    ("The malware collects the hostname, OS version and CPU architecture.", "T1082", "", ""),
    ("It runs systeminfo and sends the output to the attacker.", "T1082", "", ""),
    ("The first stage downloads additional tools from a remote server.", "T1105", "", ""),
    ("The operators transferred a credential dumper onto the host with certutil.", "T1105", "", ""),
    ("The downloader fetches an encrypted module and saves it to the temp folder.", "T1105", "", ""),
    ("The sample creates a Run key so it starts at every logon.", "T1547", "", ""),
    ("It places a shortcut in the Startup folder for persistence.", "T1547", "", ""),
    (
        "The attackers created a scheduled task that runs the implant every hour.",
        "T1053",
        "T1053.005",
        "Scheduled Task",
    ),
    ("After execution the malware deletes its own files and clears event logs.", "T1070", "", ""),
    ("The tool enumerates files in the user's documents folder looking for PDFs.", "T1083", "", ""),
]


def write(out: Path) -> None:
    with open(out / "enterprise-attack.json", "w") as f:
        json.dump(bundle, f, indent=1)
    with open(out / "dataset.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["sentence", "label_tec", "label_subtec", "tec_name"])
        w.writerows(rows)
    write_manifest(
        out,
        "cti_to_mitre",
        "Synthetic threat-report sentences written for lm-eval-enterprise (not from "
        "the real data), in the schema of dataset.csv (sentence, label_tec, label_subtec, tec_name), and a "
        "13-technique STIX bundle in the structure of ATT&CK enterprise-attack.json (real technique IDs and "
        "names, synthetic objects). Generated by tasks/cyber/cti_to_mitre/make_fixture.py.",
        {"train": 21, "test": 9},
        expected_techniques=len(techs),
    )


if __name__ == "__main__":
    generator_main(write)
