"""The room's splitter (client/web/split.js) in a real browser (Playwright driving Debian's chromium; never
`playwright install`) cuts long answers exactly like rules/interview/answer_parts.py: the shared vectors, then a
few thousand generated texts compared part for part with the Python rule."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from rules.interview.answer_parts import split_answer
from tests.e2e.interview.helpers import ROOT

playwright_api = pytest.importorskip("playwright.async_api", reason="pip install playwright (dev extra)")
CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is needed (make test installs it)")

SPLIT_JS = ROOT / "client" / "web" / "split.js"
VECTORS = json.loads((ROOT / "tests" / "fixtures" / "interview" / "answer_split_vectors.json")
                     .read_text(encoding="utf-8"))["vectors"]
# the characters the rule looks at, and some that Python and JavaScript classify differently
EDGES = list("ab .!?…。！？\"'”’)]」』）》\n\t\r\u3000\u00a0\u2028\u200b\x1c\ufeff😀字") + ["a", "b", " "] * 8


def _generated(n: int, seed: int = 20) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        text = "".join(rng.choice(EDGES) for _ in range(rng.randint(0, 300)))
        cases.append((text, rng.randint(1, 60)))
    return cases


async def _splitter_page(p):  # noqa: ANN001, ANN202
    browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    page = await browser.new_page()
    await page.set_content("<!doctype html><meta charset='utf-8'><title>split</title>")
    await page.add_script_tag(content=SPLIT_JS.read_text(encoding="utf-8"))
    return browser, page


async def test_the_browser_splits_like_the_python_rule(tmp_path: Path):
    generated = _generated(3000)
    async with playwright_api.async_playwright() as p:
        browser, page = await _splitter_page(p)
        try:
            got = await page.evaluate("(vs) => vs.map(([t, n]) => window.ColloquyAnswer.split(t, n))",
                                      [[v["text"], v["limit"]] for v in VECTORS])
            for vector, parts in zip(VECTORS, got, strict=True):
                assert parts == vector["parts"], vector["name"]
            got = await page.evaluate("(cs) => cs.map(([t, n]) => window.ColloquyAnswer.split(t, n))",
                                      [list(c) for c in generated])
            for (text, limit), parts in zip(generated, got, strict=True):
                assert parts == split_answer(text, limit), (text, limit)
        finally:
            await browser.close()
