"""The global context markdown (§7.7, §11.10): conservative updates by key, kept within a token budget.

Layout: front matter (last_updated, version), then `## Preferences`, `## Patterns`, `## Facts`, `## Insights`
sections of `- key: value (confidence)` lines, then any free text the user wrote (kept verbatim).
Rules: an update never weakens what is known (a tentative guess cannot overwrite a certain fact); over budget,
the least certain lines go to the archive first (tentative insights, then tentative patterns, then likely
ones); certain facts and preferences are never pruned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from models.query.agents import ContextUpdate

SECTIONS = {"preference": "Preferences", "pattern": "Patterns", "fact": "Facts", "insight": "Insights"}
RANK = {"tentative": 0, "likely": 1, "certain": 2}
_LINE = re.compile(r"^- (?P<key>[^:]+?):\s*(?P<value>.*?)\s*\((?P<conf>certain|likely|tentative)\)\s*$")
# Pruning order when over budget: (category, confidence).
PRUNE_ORDER = [("insight", "tentative"), ("pattern", "tentative"), ("fact", "tentative"),
               ("preference", "tentative"), ("insight", "likely"), ("pattern", "likely")]


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


@dataclass
class Item:
    key: str
    value: str
    confidence: str


@dataclass
class GlobalContext:
    version: int = 0
    last_updated: str = ""
    items: dict[str, list[Item]] = field(default_factory=lambda: {c: [] for c in SECTIONS})
    free_text: list[str] = field(default_factory=list)

    def find(self, key: str) -> tuple[str, Item] | None:
        for cat, rows in self.items.items():
            for row in rows:
                if row.key.lower() == key.lower():
                    return cat, row
        return None


def parse_context(text: str) -> GlobalContext:
    ctx = GlobalContext()
    body = text
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end > 0:
            for line in text[3:end].splitlines():
                if line.startswith("version:"):
                    ctx.version = int(line.split(":", 1)[1].strip() or 0)
                elif line.startswith("last_updated:"):
                    ctx.last_updated = line.split(":", 1)[1].strip()
            body = text[end + 4:]
    by_title = {v.lower(): k for k, v in SECTIONS.items()}
    current: str | None = None
    for line in body.splitlines():
        stripped = line.strip()
        if stripped == "# Global Context":
            continue
        if stripped.startswith("## "):
            title = stripped[3:].split("(")[0].strip().lower()
            current = by_title.get(title)
            if current is None:
                ctx.free_text.append(line)
            continue
        m = _LINE.match(stripped)
        if current is not None and m:
            ctx.items[current].append(Item(m["key"].strip(), m["value"].strip(), m["conf"]))
        elif stripped or ctx.free_text:
            ctx.free_text.append(line)
    while ctx.free_text and not ctx.free_text[-1].strip():
        ctx.free_text.pop()
    return ctx


def render_context(ctx: GlobalContext) -> str:
    lines = ["---", f"last_updated: {ctx.last_updated}", f"version: {ctx.version}", "---", "", "# Global Context"]
    for cat, title in SECTIONS.items():
        lines += ["", f"## {title}"]
        lines += [f"- {i.key}: {i.value} ({i.confidence})" for i in ctx.items[cat]]
    if ctx.free_text:
        lines += [""] + ctx.free_text
    return "\n".join(lines) + "\n"


@dataclass
class ApplyOutcome:
    text: str
    applied: list[str]
    skipped: list[str]
    archived: list[str]
    tokens: int
    version: int


def apply_updates(current: str, updates: list[ContextUpdate], today: date, max_tokens: int = 2000) -> ApplyOutcome:
    ctx = parse_context(current)
    applied: list[str] = []
    skipped: list[str] = []
    for u in updates:
        key, value = u.key.strip(), " ".join(u.value.split())
        if not key or not value:
            skipped.append(f"{key or '?'}: empty")
            continue
        found = ctx.find(key)
        if found is not None:
            cat, row = found
            if row.value == value and RANK[u.confidence] <= RANK[row.confidence]:
                skipped.append(f"{key}: already known")
                continue
            if RANK[u.confidence] < RANK[row.confidence]:
                skipped.append(f"{key}: a {u.confidence} update cannot overwrite a {row.confidence} entry")
                continue
            ctx.items[cat].remove(row)
        ctx.items[u.category].append(Item(key, value, u.confidence))
        applied.append(f"{u.category}/{key}")
    archived: list[str] = []
    if applied:
        ctx.version += 1
        ctx.last_updated = today.isoformat()
        archived = _consolidate(ctx, max_tokens)
    text = render_context(ctx) if (applied or current.strip()) else current
    return ApplyOutcome(text=text, applied=applied, skipped=skipped, archived=archived,
                        tokens=estimate_tokens(text), version=ctx.version)


def _consolidate(ctx: GlobalContext, max_tokens: int) -> list[str]:
    """Drop the least certain lines (oldest first) until the context fits; returns them for the archive."""
    archived: list[str] = []
    for cat, conf in PRUNE_ORDER:
        rows = ctx.items[cat]
        while estimate_tokens(render_context(ctx)) > max_tokens:
            victim = next((r for r in rows if r.confidence == conf), None)
            if victim is None:
                break
            rows.remove(victim)
            archived.append(f"- {victim.key}: {victim.value} ({victim.confidence}) [{SECTIONS[cat]}]")
        if estimate_tokens(render_context(ctx)) <= max_tokens:
            break
    return archived
