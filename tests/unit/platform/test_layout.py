"""One pipeline, one folder name on every floor (README "Architecture").

`models/`, `rules/`, `activities/`, `workflows/`, `client/` (the CLI) and `client/web/` (`colloquy serve`) each
hold a folder per pipeline they serve, spelt the same everywhere; shared pieces stay at a floor's top and carry
no pipeline's name. The paths the README and docs name exist. (No file over 600 lines: test_layers.py.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

FLOORS = ("models", "rules", "activities", "workflows", "client", "client/web")
PIPELINES = ("interview", "study", "query", "writing", "discussion", "voice", "rehearsal", "platform")

#: Which floors each pipeline has a folder on (the README's table). A pipeline gains a floor by adding the folder
#: here and there, under the same name.
EXPECTED: dict[str, set[str]] = {
    "interview": set(FLOORS),
    "study": set(FLOORS),
    "query": set(FLOORS),
    "writing": {"models", "rules", "activities", "workflows", "client"},
    "discussion": {"models", "rules", "activities", "workflows", "client"},
    "voice": {"models", "rules", "activities", "workflows", "client/web"},
    "rehearsal": {"models", "activities", "workflows", "client"},
    "platform": {"models", "activities", "workflows"},
}
#: Packages at a floor's top that belong to no pipeline.
SHARED_PACKAGES: dict[str, set[str]] = {
    "activities": {"agents", "llm"},   # the agent declaration, the model gateway
    "models": {"patches"},             # the patch registry (each pipeline's ids: models/<p>/patches.py)
    "client": {"web"},                 # `colloquy serve`
}
#: Names that mean a pipeline although they are not one's folder name (what the flat layout used).
PIPELINE_WORDS = (*PIPELINES, "notes", "live_join", "room", "discuss", "write", "model_check")


def _packages(floor: str) -> set[str]:
    return {p.parent.name for p in (ROOT / floor).glob("*/__init__.py")}


def _modules(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")


def test_every_floor_has_a_folder_per_pipeline_it_serves_and_nothing_else():
    for floor in FLOORS:
        found = _packages(floor) - SHARED_PACKAGES.get(floor, set())
        want = {p for p, floors in EXPECTED.items() if floor in floors}
        assert found == want, f"{floor}/: pipeline folders {sorted(found)}, expected {sorted(want)}"


@pytest.mark.parametrize("floor", FLOORS)
def test_no_module_at_a_floors_top_is_named_after_a_pipeline(floor: str):
    named = [m for m in _modules(ROOT / floor)
             if any(m == w or m.startswith(f"{w}_") for w in PIPELINE_WORDS)]
    assert named == [], f"{floor}/: move {named} into the pipeline's folder"


@pytest.mark.parametrize("floor", FLOORS)
def test_modules_inside_a_pipeline_folder_carry_no_pipeline_prefix(floor: str):
    prefixed = []
    for pipeline in EXPECTED:
        folder = ROOT / floor / pipeline
        if folder.is_dir():
            prefixed += [f"{floor}/{pipeline}/{m}.py" for m in _modules(folder) if m.startswith(f"{pipeline}_")]
    assert prefixed == [], "the folder already says the pipeline: " + ", ".join(prefixed)


def test_every_folder_on_a_floor_is_a_package():
    """A folder of modules without __init__.py is a namespace package: mypy and setuptools see it differently."""
    missing = []
    for floor in ("models", "rules", "activities", "workflows", "client", "workers", "core"):
        for folder in (ROOT / floor).rglob("*"):
            if folder.is_dir() and any(folder.glob("*.py")) and not (folder / "__init__.py").exists():
                missing.append(str(folder.relative_to(ROOT)))
    assert missing == []


_CODE_PATH = re.compile(r"(?<![\w./-])((?:models|rules|activities|workflows|workers|client|core|bench)/[\w/]*?"
                        r"(?:\.py|/))(?![\w])")


def test_the_paths_the_readme_and_docs_name_exist():
    """A newcomer follows "to change X, open Y": Y must be there (the map after a move, every doc's links)."""
    missing = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for path in _CODE_PATH.findall(line):
                if "<" in path or not (ROOT / path).exists():
                    if "<" not in path:
                        missing.append(f"{doc.relative_to(ROOT)}:{n}: {path}")
    assert missing == [], "\n".join(missing)
