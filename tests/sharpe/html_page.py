"""A small HTML reader for the report tests (standard library only)."""

from collections import Counter
from html.parser import HTMLParser

SKIP = ("pre", "style", "script", "title")


class Page(HTMLParser):
    """Visible text (outside <pre>, <style>, <title>), element ids, link targets, images, classes, tag counts."""

    def __init__(self, text: str):
        super().__init__()
        self.text, self.ids, self.links, self.imgs, self.classes = [], set(), [], [], []
        self.tags: Counter = Counter()
        self._skip = 0
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] += 1
        self._skip += tag in SKIP
        self.ids |= {a["id"]} if "id" in a else set()
        self.links += [a["href"]] if tag == "a" and "href" in a else []
        self.imgs += [a] if tag == "img" else []
        self.classes += [a["class"]] if a.get("class") else []

    def handle_endtag(self, tag):
        self._skip -= tag in SKIP

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)
