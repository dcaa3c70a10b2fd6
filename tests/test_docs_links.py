"""docs/ stays true: every relative link and anchor in docs/*.md resolves, and every convention tag cited in the
repository's Markdown ("[PARSE]", "[NORM-E]" …) has its anchor in docs/conventions.md."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")   # [text](target), not images
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


def test_docs_exist():
    names = {p.name for p in DOC_FILES}
    assert {"README.md", "conventions.md", "metrics.md", "sharpe.md", "data.md", "lm_eval.md"} <= names


@pytest.mark.parametrize("doc", DOC_FILES, ids=lambda p: p.name)
def test_relative_links_resolve(doc: Path):
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
    assert not bad, f"{doc.name}: " + "; ".join(bad)


def _markdown_files():
    for p in sorted(ROOT.rglob("*.md")):
        if not SKIP_DIRS & set(p.relative_to(ROOT).parts):
            yield p


def test_every_cited_tag_is_defined():
    defined = anchors(DOCS / "conventions.md")
    missing = {}
    for p in _markdown_files():
        for tag in TAG.findall(prose(p)):
            if tag.lower() not in defined:
                missing.setdefault(tag, str(p.relative_to(ROOT)))
    assert not missing, f"tags without an anchor in docs/conventions.md (tag: first file): {missing}"
