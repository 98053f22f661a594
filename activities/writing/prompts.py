"""Dynamic prompts for partial failures (§3): the sections a prompt shows are built from what actually
succeeded, so no prompt ever names a model that produced nothing."""

from __future__ import annotations

from collections.abc import Sequence

HEADINGS = {"draft": "Draft from", "audit": "Audit from", "final_audit": "Final audit from", "post": "Post",
            "analysis": "Analysis", "review": "Review"}


def agent_list(docs: Sequence[tuple[str, str, str]], kind: str = "draft") -> str:
    """`docs` = (model, kind, text). The models that produced `kind`, in order, once each."""
    seen: list[str] = []
    for model, k, _ in docs:
        if k == kind and model not in seen:
            seen.append(model)
    return ", ".join(seen)


def section(docs: Sequence[tuple[str, str, str]], kind: str) -> str:
    parts = []
    for model, k, text in docs:
        if k != kind:
            continue
        heading = HEADINGS.get(kind, kind)
        label = f"{heading} {model}" if kind in ("draft", "audit", "final_audit") else heading
        parts.append(f"## {label}\n\n{text.strip()}\n")
    return "\n".join(parts)


def prompt_sections(docs: Sequence[tuple[str, str, str]]) -> dict[str, str]:
    """Template variables: drafts, audits, final_audits, post, analysis, reviews, agent_list, auditor_list."""
    return {
        "drafts": section(docs, "draft"),
        "audits": section(docs, "audit"),
        "final_audits": section(docs, "final_audit"),
        "post": section(docs, "post"),
        "analysis": section(docs, "analysis"),
        "reviews": section(docs, "review"),
        "agent_list": agent_list(docs, "draft"),
        "auditor_list": agent_list(docs, "audit") or agent_list(docs, "final_audit"),
    }


def guidance_block(guidance: str | None) -> str:
    """What a retried state sees (§14): 'Previous attempt feedback: ...'."""
    return f"Previous attempt feedback:\n{guidance.strip()}" if guidance and guidance.strip() else ""


def word_count(text: str) -> int:
    return len(text.split())


def preview(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def match_target(label: str, known: Sequence[str]) -> str | None:
    """Map an auditor's `target` to a model shown in its prompt: exact, else case-insensitive, else the one
    known name it contains ("Draft from openai/gpt-4o"); None when nothing or several match."""
    if label in known:
        return label
    lowered = label.strip().lower()
    exact = [k for k in known if k.lower() == lowered]
    if len(exact) == 1:
        return exact[0]
    contained = [k for k in known if k.lower() in lowered]
    if len(contained) > 1:  # "m-a" inside "m-ab": prefer the longest unique name
        longest = max(contained, key=len)
        contained = [longest] if sum(1 for k in contained if len(k) == len(longest)) == 1 else []
    return contained[0] if len(contained) == 1 else None
