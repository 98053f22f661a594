"""Router (seed §11.2): LOG / QUERY / BOTH / CORRECTION with confidence, domain selection with reasoning."""

from __future__ import annotations

import re
from typing import Any

from activities.agents.base import AgentSpec
from activities.llm import offline
from activities.llm.schema import inline_refs, json_schema_of
from activities.query.common import dump
from models.common import AgentResult
from models.query.agents import RouteInput, RouterOutput
from models.query.parts import InputType
from rules.query.parsing import looks_like_question, split_both

ROUTER = AgentSpec("route_input", "query/route_input.md", RouterOutput, tier="low", role="writer",
                   policy="fast_agent",
                   description="Query pipeline Router: classify LOG/QUERY/BOTH/CORRECTION, select domains")


def router_schema(inp: RouteInput) -> dict[str, Any]:
    """RouterOutput's schema for this input: the domains it may select are the available ones (by name), and an
    input made only of questions is a query (or a correction), never a note to store. A small model wrote
    domain descriptions as names (ignored with a warning) and filed "Why did my bench feel heavy?" as a log."""
    schema = inline_refs(json_schema_of(RouterOutput))
    names = [d.name for d in inp.available_domains]
    if names:
        schema["properties"]["selected_domains"] = {"type": "array", "items": {"type": "string", "enum": names}}
    log_part, _ = split_both(inp.raw_input)
    if inp.raw_input.strip().endswith("?") and not log_part:  # every sentence a question
        schema["properties"]["input_type"] = {"type": "string", "enum": [InputType.QUERY.value,
                                                                         InputType.CORRECTION.value]}
    return schema


@ROUTER.activity
async def route_input(inp: RouteInput) -> AgentResult[RouterOutput]:
    domains = "\n".join(f"- {d.name}: {d.description}" for d in inp.available_domains) or "(only the base domain)"
    return await ROUTER.run(
        {"domains": domains, "raw_input": inp.raw_input, "session_context": inp.session_context or "(none)"},
        offline_context={"text": inp.raw_input,
                         "domains": [d.model_dump() for d in inp.available_domains]},
        schema=router_schema(inp),
    )


_CORRECTION = re.compile(r"^\s*(actually|correction|i meant|that was wrong|oops|no,)", re.I)


@ROUTER.offline
def _offline_router(req: offline.OfflineRequest) -> RouterOutput:
    """Keyless default: the seed's signal rules and word overlap with domain descriptions."""
    text = str(req.context.get("text", req.last_user))
    lowered = text.lower()
    selected = []
    for d in req.context.get("domains", []):
        words = {w for w in re.findall(r"[a-z]+", d["description"].lower()) if len(w) > 3}
        if d["name"].lower() in lowered or any(re.search(rf"\b{re.escape(w)}", lowered) for w in words):
            selected.append(d["name"])
    log_part, query_part = split_both(text)
    if _CORRECTION.search(text):
        kind = InputType.CORRECTION
    elif looks_like_question(text) and log_part:
        kind = InputType.BOTH
    elif looks_like_question(text):
        kind = InputType.QUERY
    else:
        kind = InputType.LOG
    return RouterOutput(
        input_type=kind, confidence=0.8, selected_domains=selected,
        domain_selection_reasoning=f"words of the input match: {', '.join(selected) or 'no specific domain'}",
        log_portion=log_part if kind == InputType.BOTH else None,
        query_portion=query_part if kind == InputType.BOTH else None,
        correction_target=text if kind == InputType.CORRECTION else None,
        reasoning=f"offline heuristic: {kind.value}",
    )

__all__ = ["route_input", "dump"]
