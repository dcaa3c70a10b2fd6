"""docs/ stays true and the repository stands alone: every relative link and anchor in the repository's Markdown
resolves, every convention tag cited there ("[PARSE]", "[NORM-E]" …) has its anchor in docs/conventions.md, and no
file points to a document the repository does not hold."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")  # [text](target), not images
ANCHOR = re.compile(r"<a id=\"([^\"]+)\"></a>")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.M)
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
CODE_SPAN = re.compile(r"``.+?``|`[^`\n]+`")
# a cited tag: "[PARSE]", not a link text "[README](…)", nor "E[DCG]" (an expectation), nor code (stripped first)
TAG = re.compile(r"(?<!\w)\[([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*)\](?!\()")
SKIP_DIRS = {".git", ".venv", ".venv-vllm", "build", "node_modules"}


def github_slug(heading: str) -> str:
    """GitHub's heading anchor: lower case, drop everything but letters, digits, spaces, hyphens and underscores,
    spaces to hyphens (inline markup characters are dropped with the punctuation)."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def prose(path: Path) -> str:
    """The Markdown text without fenced code blocks and inline code spans."""
    return CODE_SPAN.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return set(ANCHOR.findall(text)) | {github_slug(h) for h in HEADING.findall(text)}


def test_github_slug():
    assert github_slug("[BAL] Class-balanced few-shot selection") == "bal-class-balanced-few-shot-selection"
    assert github_slug("`prepare`, `verify`, `list`") == "prepare-verify-list"


def test_tag_pattern():
    text = "[PARSE] and [NORM-E]; [README](x.md), E[DCG], [a-z]"
    assert TAG.findall(text) == ["PARSE", "NORM-E"]


def test_anchor_collection(tmp_path):
    doc = tmp_path / "d.md"
    doc.write_text('<a id="x-1"></a>\n\n## A heading\n\n```\n## not a heading\n```\n', encoding="utf-8")
    assert anchors(doc) == {"x-1", "a-heading"}


DOC_FILES = sorted(DOCS.glob("*.md"))


def _markdown_files():
    for p in sorted(ROOT.rglob("*.md")):
        if not SKIP_DIRS & set(p.relative_to(ROOT).parts):
            yield p


MARKDOWN_FILES = list(_markdown_files())


def test_docs_exist():
    names = {p.name for p in DOC_FILES}
    assert {"README.md", "conventions.md", "metrics.md", "sharpe.md", "data.md", "lm_eval.md"} <= names


@pytest.mark.parametrize("doc", MARKDOWN_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path):
    """Every relative link of every Markdown file (docs/, READMEs of the datasets …) reaches a file and anchor."""
    text = prose(doc)
    bad = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists():
            bad.append(f"{target}: {dest} does not exist")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no anchor '{anchor}' in {dest.relative_to(ROOT)}")
    assert not bad, f"{doc.relative_to(ROOT)}: " + "; ".join(bad)


def test_every_cited_tag_is_defined():
    defined = anchors(DOCS / "conventions.md")
    missing = {}
    for p in MARKDOWN_FILES:
        for tag in TAG.findall(prose(p)):
            if tag.lower() not in defined:
                missing.setdefault(tag, str(p.relative_to(ROOT)))
    assert not missing, f"tags without an anchor in docs/conventions.md (tag: first file): {missing}"


# ----------------------------------------------------------------------------- the repository stands alone
# Names of documents that are not in the repository; spelled in pieces so this file does not match itself.
NOTES = "LM_EVAL" + "_NOTES"  # also cited without ".md" ("… NOTES §8")
EXTERNAL = tuple(name + ".md" for name in ("DATASETS", "SHARPE", "MODELS", "DESIGN", "NLU")) + (NOTES, ".." + "/shared")
# Exact exceptions, with the reason.
ALLOWED = {
    "conftest.py": "finds the real samples: shared/data beside the checkout (docs/data.md#real-samples)",
}


def _repo_files() -> list[str]:
    """Tracked files plus new files not yet committed (both as git lists them), paths relative to the root."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"not a git checkout, cannot list the repository's files: {e}")
    return sorted({p for p in out.decode("utf-8").split("\0") if p and (ROOT / p).is_file()})


def _dataset_ids() -> set[str]:
    return {p.parent.name for p in ROOT.glob("tasks/*/*/templates.py")}


def _external_references(paths: list[str]) -> list[str]:
    hits = []
    for path in paths:
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:  # binary files (parquet, xlsx, zip fixtures)
            continue
        for no, line in enumerate(text.splitlines(), 1):
            hits += [f"{path}:{no}: {name}" for name in EXTERNAL if name in line]
    return hits


def test_external_name_list():
    assert len(EXTERNAL) == 7 and {"DATASETS" + ".md", NOTES, ".." + "/shared"} <= set(EXTERNAL)
    ids = _dataset_ids()
    assert len(ids) == 35 and {"tram", "jsquad"} <= ids  # 25 enterprise + 10 NLU datasets


def test_external_references_are_found(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n# see " + "SHARPE" + ".md §3\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("samples in " + ".." + "/shared/data\n", encoding="utf-8")
    (tmp_path / "c.bin").write_bytes(b"\xff\xfe\x00")
    assert _external_references(["a.py", "b.md", "c.bin"]) == [
        "a.py:2: " + "SHARPE" + ".md",
        "b.md:1: " + ".." + "/shared",
    ]


def test_no_reference_to_documents_outside_the_repository():
    """Code, docs, READMEs, YAML comments point to docs/ or the dataset README, never to files the repository does
    not hold (the allowed exceptions are listed with their reason)."""
    paths = [p for p in _repo_files() if p not in ALLOWED]
    assert len(paths) > 100
    hits = _external_references(paths)
    assert not hits, "references to documents outside the repository:\n" + "\n".join(hits)
