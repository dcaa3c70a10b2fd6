#!/usr/bin/env python
"""Write the synthetic tram fixture ``fixture/{single_label.json,enterprise-attack.json}``.

``single_label.json``: same structure as TRAM's ``data/tram2-data/single_label.json`` (a JSON list of
``{text, label, doc_title}``, 4-space indented); the sentences and report titles are invented for
lm-eval-enterprise (nothing copied from TRAM). Technique counts strictly decrease over the spec's nine IDs
(11 … 3) so the fixture's top-9 is the spec's list in the spec's order; three other IDs are dropped by the top-9
filter. Rows are placed so that the seeded split puts two sentences of every top-9 class into test.

``enterprise-attack.json``: a minimal ATT&CK STIX 2.0 bundle in the shape of ``mitre/cti`` (``attack-pattern``
objects with a ``mitre-attack`` external reference), holding the names of the used techniques, the parents of the
sub-techniques and one revoked object; object ids are made up.

    .venv/bin/python tasks/cyber/tram/make_fixture.py [--out DIR]
"""

import json
from pathlib import Path

from lm_eval_enterprise.tasks.cyber.tram.source import SPEC_TOP9, split_indices

from lm_eval_enterprise.data import generator_main, write_manifest

SENTENCES = {
    "T1027": [
        "the second stage is packed with a custom packer",
        "strings in the binary are XOR encoded",
        "the script body is base64 encoded several times",
        "payload stored as an encrypted blob in the registry",
        "junk code is inserted to hinder analysis",
        "API names are hashed to hide imports",
        "the configuration is compressed and encrypted",
        "the macro uses string concatenation to hide commands",
        "the DLL is padded with random bytes to inflate its size",
        "resources are encrypted with RC4",
        "obfuscated PowerShell launcher",
    ],
    "T1140": [
        "the loader decrypts the embedded payload at runtime",
        "certutil is used to decode the dropped file",
        "the shellcode is decompressed in memory",
        "the implant decodes its configuration with a fixed key",
        "base64 strings are decoded before execution",
        "the second stage is unpacked into a new buffer",
        "the dropper XOR decrypts the next stage",
        "the archive is extracted and decrypted on the host",
        "it decrypts strings on demand",
    ],
    "T1059.003": [
        "cmd.exe /c whoami",
        "the operators ran batch scripts on the server",
        "commands are executed through the Windows command shell",
        "a reverse shell spawned cmd.exe",
        "the backdoor pipes commands to cmd",
        "a .bat file launches the payload",
        "the attacker used cmd to delete logs",
        "executes commands via cmd /c",
    ],
    "T1055": [
        "the payload is injected into svchost.exe",
        "process hollowing of a legitimate binary",
        "it writes shellcode into a remote process and starts a thread",
        "the DLL is injected into explorer.exe",
        "uses APC injection to run code in another process",
        "the loader maps the payload into a suspended process",
        "code is injected into the browser process",
    ],
    "T1105": [
        "the implant downloads additional tools from the C2 server",
        "a second stage is fetched with bitsadmin",
        "the actor transferred a scanner to the host",
        "files are pulled from a remote share",
        "the script downloads the miner from a web server",
        "tools were copied to the victim with curl",
    ],
    "T1106": [
        "calls VirtualAlloc and CreateThread",
        "the malware uses NtCreateSection",
        "CreateProcessW is used to start the child process",
        "it resolves and calls LoadLibraryA",
        "WriteProcessMemory API",
    ],
    "T1078": [
        "the actor logged in with stolen domain credentials",
        "a compromised VPN account was used for access",
        "valid administrator credentials allowed lateral access",
        "used a legitimate service account",
    ],
    "T1071.001": [
        "beacons over HTTPS to the C2 domain",
        "commands are received in HTTP POST responses",
        "C2 traffic blends in with normal web requests",
    ],
    "T1090": [
        "traffic is relayed through a SOCKS proxy",
        "the implant supports proxy chaining",
        "a compromised router is used as a proxy",
    ],
    "T1082": ["collects the operating system version", "gathers the computer name and architecture"],
    "T1112": ["modifies a registry value to disable warnings", "adds a new registry key"],
    "T1016": ["runs ipconfig /all"],
}
TITLES = [
    "Fictional Report on the Glasswing Loader",
    "Imaginary Analysis of Operation Copper Kettle",
    "Synthetic Threat Brief Harbor Lights",
]

STIX = [  # (ATT&CK ID, name, extra fields)
    ("T1027", "Obfuscated Files or Information", {}),
    ("T1140", "Deobfuscate/Decode Files or Information", {}),
    ("T1059", "Command and Scripting Interpreter", {}),
    ("T1059.003", "Windows Command Shell", {"x_mitre_is_subtechnique": True}),
    ("T1055", "Process Injection", {}),
    ("T1105", "Ingress Tool Transfer", {}),
    ("T1106", "Native API", {}),
    ("T1078", "Valid Accounts", {}),
    ("T1071", "Application Layer Protocol", {}),
    ("T1071.001", "Web Protocols", {"x_mitre_is_subtechnique": True}),
    ("T1090", "Proxy", {}),
    ("T1082", "System Information Discovery", {}),
    ("T1112", "Modify Registry", {}),
    ("T1016", "System Network Configuration Discovery", {}),
    ("T1090", "Connection Proxy", {"revoked": True}),  # an old object with the same ID: must not win
]


def rows() -> list[dict]:
    queues = {tid: list(texts) for tid, texts in SENTENCES.items()}
    out, k = [], 0
    while any(queues.values()):
        for tid, q in queues.items():
            if q:
                out.append({"text": q.pop(0), "label": tid, "doc_title": TITLES[k % len(TITLES)]})
                k += 1
    return out


def place(items: list[dict], split_indices) -> list[dict]:
    """Order the rows so that the seeded split puts two sentences of every top-9 class into test (macro F1 counts
    a class without test items as F1 = 0, so the oracle needs them all): the first two sentences of each class fill
    test positions first; the rest keep their interleaved order."""
    test_idx, _ = split_indices(len(items))
    seen: dict[str, int] = {}
    first, rest = [], []
    for it in items:
        seen[it["label"]] = seen.get(it["label"], 0) + 1
        (first if seen[it["label"]] <= 2 and len(SENTENCES[it["label"]]) >= 3 else rest).append(it)
    if len(first) > len(test_idx):
        raise SystemExit("fixture too small for two test sentences per class")
    out: list = [None] * len(items)
    for pos, it in zip(test_idx, first):
        out[pos] = it
    queue = iter(first[len(test_idx) :] + rest)
    return [it if it is not None else next(queue) for it in out]


def stix_bundle() -> dict:
    objects = [{"type": "identity", "id": "identity--00000000-0000-4000-8000-000000000001", "name": "Example Org"}]
    for n, (tid, name, extra) in enumerate(STIX, 1):
        obj = {
            "type": "attack-pattern",
            "id": f"attack-pattern--00000000-0000-4000-8000-{n:012d}",
            "created": "2020-01-01T00:00:00.000Z",
            "modified": "2022-01-01T00:00:00.000Z",
            "name": name,
            "external_references": [
                {
                    "source_name": "mitre-attack",
                    "external_id": tid,
                    "url": "https://attack.mitre.org/techniques/" + tid.replace(".", "/"),
                }
            ],
        }
        obj.update(extra)
        objects.append(obj)
    return {
        "type": "bundle",
        "id": "bundle--00000000-0000-4000-8000-000000000000",
        "spec_version": "2.0",
        "objects": objects,
    }


def write(out: Path) -> None:
    data = place(rows(), split_indices)
    (out / "single_label.json").write_text(json.dumps(data, indent=4, ensure_ascii=False) + "\n")
    (out / "enterprise-attack.json").write_text(json.dumps(stix_bundle(), indent=4) + "\n")
    test_idx, train_idx = split_indices(len(data))
    keep = set(SPEC_TOP9)
    n_test = sum(data[i]["label"] in keep for i in test_idx)
    n_train = sum(data[i]["label"] in keep for i in train_idx)
    write_manifest(
        out,
        "tram",
        "Synthetic threat-report sentences written for lm-eval-enterprise (not from TRAM) in the "
        "structure of single_label.json, and a minimal ATT&CK STIX bundle (real technique names, "
        "made-up object ids). raw_rows/kept_rows: sentences before/after the top-9 filter.",
        {"train": n_train, "test": n_test},
        raw_rows=len(data),
        kept_rows=n_train + n_test,
    )


if __name__ == "__main__":
    generator_main(write)
