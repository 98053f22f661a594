"""Seed 004's `workflow_config.yaml` shape → Colloquy's `WorkflowConfig` shape (a pure conversion).

The seed describes CLI agents (`agents.claude.command`, `session_support`, `token_tracking`, ...), persona *paths*,
states whose `input` / `output` are file globs and that have no `task`, `on_enter` hooks, a `logging` section and
file-system `settings`. Colloquy runs the same state machine on Temporal, so the conversion keeps what drives the
run and drops what the platform does itself:

- `orchestrator.agent` → `orchestrator.model` (the agent name is used as the model id; `session` is dropped —
  the workflow keeps the run's context itself);
- `agents.<name>`: `context_window` and `cost_per_1k` are kept (per model id); CLI commands, session and token
  tracking fields are dropped (litellm does that);
- `personas`: a path such as `prompts/writer_persona.md` becomes the bundled persona file `<name>.md`;
- states: `task` is derived from the state's name (draft, cross-audit, synthesize, final-audit, final-analysis)
  or else its type and persona; `input` globs become the states whose `output` they match (the story file is
  always given); the state's `agents` list is dropped (the run's `--models` are the writers); `output` and
  `on_enter` are dropped (outputs are named per state/visit/model, the state log records every step);
- `logging` is dropped (run logs are always written); `settings.timeout_per_agent` and `settings.retry_count`
  are kept, the other settings (`working_dir`, `parallel_fanout`) are dropped (fan-out is always parallel).

`is_seed_shape(data)` says whether a mapping looks like the seed's file; `from_seed_shape(data)` converts it.
"""

from __future__ import annotations

import fnmatch
from typing import Any

NAME_TASKS = {"draft": "draft", "cross-audit": "audit", "audit": "audit", "synthesize": "synthesize",
              "final-audit": "final_audit", "final-analysis": "final_analysis", "quality-gate": "quality_gate"}
PERSONA_TASKS = {("fan-out", "writer"): "draft", ("fan-out", "auditor"): "audit",
                 ("orchestrator-task", "synthesizer"): "synthesize", ("single", "synthesizer"): "synthesize",
                 ("orchestrator-task", "orchestrator"): "final_analysis",
                 ("single", "orchestrator"): "final_analysis", ("single", "quality_gate"): "quality_gate"}
SEED_ONLY_STATE_KEYS = ("on_enter", "output", "agents")
KEPT_STATE_KEYS = ("type", "description", "persona", "transitions", "next", "error", "timeout_s", "prompt",
                   "agent")
KEPT_SETTINGS = ("timeout_per_agent", "retry_count", "score_floor", "default_context_window", "preview_chars")


def is_seed_shape(data: Any) -> bool:
    """True for a mapping written in the seed's shape (CLI agents, persona paths, glob inputs, logging...)."""
    if not isinstance(data, dict):
        return False
    if "logging" in data:
        return True
    orch = data.get("orchestrator")
    if isinstance(orch, dict) and ("agent" in orch or "session" in orch):
        return True
    agents = data.get("agents")
    if isinstance(agents, dict) and any(isinstance(a, dict) and ("command" in a or "type" in a)
                                        for a in agents.values()):
        return True
    states = data.get("states")
    return isinstance(states, dict) and any(
        isinstance(s, dict) and any(k in s for k in ("on_enter", "output")) for s in states.values())


def _persona_file(name: str, value: Any) -> str:
    text = str(value or "")
    if text and "/" not in text and text.endswith(".md"):
        return text
    return f"{name}.md"


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _input_states(patterns: list[str], outputs: dict[str, list[str]], own: str) -> list[str]:
    """The states whose output files a state's input globs match, in pattern order; plain state names pass."""
    found: list[str] = []
    for pattern in patterns:
        if pattern in outputs:  # already a state name
            found.append(pattern)
            continue
        for state, outs in outputs.items():
            if state == own:
                continue
            for out in outs:
                sample = out.replace("{agent}", "model").replace("{story}", "story")
                if fnmatch.fnmatch(sample, pattern) or sample == pattern:
                    found.append(state)
                    break
    return list(dict.fromkeys(found))


def _task_for(name: str, state: dict[str, Any], inputs: list[str], tasks: dict[str, str | None]) -> str | None:
    if state.get("task"):
        return str(state["task"])
    if name in NAME_TASKS:
        return NAME_TASKS[name]
    task = PERSONA_TASKS.get((str(state.get("type")), str(state.get("persona"))))
    if task == "audit" and any(tasks.get(i) == "synthesize" for i in inputs):
        return "final_audit"
    return task


def from_seed_shape(data: dict[str, Any]) -> dict[str, Any]:
    """Convert a seed-shaped config mapping into Colloquy's shape (see the module doc for what maps where)."""
    out: dict[str, Any] = {"name": str(data.get("name") or "seed-004"),
                           "description": str(data.get("description") or "Converted from seed 004's "
                                                                          "workflow_config.yaml")}
    orch = data.get("orchestrator") or {}
    if isinstance(orch, dict):
        persona = orch.get("persona")
        out["orchestrator"] = {"model": orch.get("model") or orch.get("agent"),
                               "persona": "orchestrator" if persona is None or "/" in str(persona)
                               or str(persona).endswith(".md") else str(persona)}
    personas = data.get("personas") or {}
    out["personas"] = {str(k): _persona_file(str(k), v) for k, v in personas.items()}
    agents: dict[str, Any] = {}
    for name, agent in (data.get("agents") or {}).items():
        if not isinstance(agent, dict):
            continue
        kept = {k: agent[k] for k in ("context_window", "cost_per_1k") if agent.get(k) is not None}
        if kept:
            agents[str(name)] = kept
    out["agents"] = agents
    raw_states: dict[str, Any] = data.get("states") or {}
    outputs = {n: _as_list(s.get("output")) for n, s in raw_states.items() if isinstance(s, dict)}
    states: dict[str, Any] = {}
    tasks: dict[str, str | None] = {}
    for name, state in raw_states.items():
        if not isinstance(state, dict):
            states[name] = state
            continue
        converted = {k: state[k] for k in KEPT_STATE_KEYS if k in state}
        for key, value in state.items():  # anything we neither keep nor knowingly drop is passed on (and
            if key not in KEPT_STATE_KEYS and key not in SEED_ONLY_STATE_KEYS and key not in ("input", "task"):
                converted[key] = value  # reported by validation as an unknown field)
        if state.get("type") not in ("initial", "terminal"):
            inputs = _input_states(_as_list(state.get("input")), outputs, name)
            if inputs:
                converted["input"] = inputs
            task = _task_for(name, state, inputs, tasks)
            tasks[name] = task
            if task:
                converted["task"] = task
            if task == "quality_gate" and state.get("type") == "single" and "agent" not in converted:
                converted["agent"] = "orchestrator"
        states[name] = converted
    out["states"] = states
    if "circuit_breaker" in data:
        out["circuit_breaker"] = data["circuit_breaker"]
    settings = data.get("settings") or {}
    out["settings"] = {k: settings[k] for k in KEPT_SETTINGS if k in settings}
    return out
