"""report.html in a real browser: headless Chromium (Debian's package) renders the page; the rendered DOM and a
full-page screenshot are checked. Opt-in (``make test-browser`` installs chromium when missing and sets
SHARPE_BROWSER_TEST=1). The screenshot, the DOM and the page are kept in build/test-artifacts/ (git-ignored)."""

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from html_page import Page

from lm_eval_enterprise.sharpe.pipeline import aggregate, write_outputs
from testkit.synthetic import report_scenario

pytestmark = pytest.mark.skipif(
    not os.environ.get("SHARPE_BROWSER_TEST"), reason="opt-in browser test: make test-browser"
)

ARTIFACTS = Path(__file__).resolve().parents[2] / "build" / "test-artifacts"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
]
WIDTH, MAX_HEIGHT = 1400, 16000


def _chromium(profile: Path, *args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail("chromium not found: `make test-browser` installs Debian's chromium package")
    r = subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    return r


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    d = tmp_path_factory.mktemp("browser")
    res = aggregate([report_scenario(d / "runs")], bootstrap=100, progress=False)
    write_outputs(res, d / "out", {"html"})
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    html = ARTIFACTS / "sharpe_report.html"
    shutil.copy(d / "out" / "report.html", html)
    return html, d


def test_rendered_dom(page):
    html, d = page
    dom = _chromium(d / "profile-dom", "--dump-dom", html.as_uri()).stdout
    (ARTIFACTS / "sharpe_report.dom.html").write_text(dom, encoding="utf-8")
    p = Page(dom)
    text = "".join(p.text)
    assert p.tags["h1"] == 1 and "TOY DATA" in text and "note toy" in p.classes
    assert "`" not in text and "[^" not in text and "**" not in text  # Markdown rendered, not left raw
    assert "MaxP·(1 − (MaxP − AvgP))" in text  # CPS defined
    assert p.tags["table"] == 12 and p.tags["figure"] == 5 and len(p.imgs) == 5
    refs = {h[1:] for h in p.links if h.startswith("#fn-")}
    assert refs and refs <= p.ids  # every footnote link resolves


def test_screenshot(page):
    html, d = page
    shot = ARTIFACTS / "sharpe_report.png"
    _chromium(d / "profile-shot", f"--window-size={WIDTH},{MAX_HEIGHT}", f"--screenshot={shot}", html.as_uri())
    from PIL import Image

    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert img.shape[1] == WIDTH
    ink = np.where((img < 245).any(axis=2).any(axis=1))[0]
    assert ink.max() < MAX_HEIGHT - 50, "the page is longer than the screenshot window"
    Image.fromarray(img[: ink.max() + 40].astype(np.uint8)).save(shot)  # keep the page, not the blank rest
    top = img[:200]
    red = (top[..., 0] > 170) & (top[..., 1] < 90) & (top[..., 2] < 90)
    assert red.sum() > 500  # the TOY DATA tag in the title
    blue = np.abs(img - np.array([31, 119, 180])).sum(axis=2) < 30  # the first model's colour (plots)
    assert blue.sum() > 2000
    assert not (img[:, -3:] < 200).all(axis=2).any(), "something is cut at the right edge"
