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
  are kept, the other settings (`working_dir`, `parallel_fanout`) are dropped (fan-out is always parallel);
- §14 quality gates: a state whose transitions are `proceed` / `retry` / `halt` is a gate (task quality_gate,
  whatever its name); its `agent: <seed agent>` runs on that agent's `model:` when the agents entry names one,
  else on the orchestrator's model (the seed's agents are CLI commands, not model ids); the agent's `persona:`
  path becomes the state's persona (`prompts/quality_gate_persona.md` → quality_gate);
- §14 terminals: `status: failed` → `error: true`, `status: success` → a normal end;
- §13 `circuit_breaker` is kept as written; its `condition` expressions are read by rules/writing/conditions.py;
- `orchestrator.checkpoints` (§14) are dropped: a circuit break always consults the orchestrator (loop_warning);
  the other checkpoints are not implemented (docs/writing.md).

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
SEED_ONLY_STATE_KEYS = ("on_enter", "output", "agents", "status")
GATE_TRANSITIONS = frozenset({"proceed", "retry", "halt"})
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
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]  # a string, or a stray scalar (validation then names what is wrong)


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


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def persona_name(path: Any) -> str | None:
    """`prompts/quality_gate_persona.md` → `quality_gate` (a seed persona path → a persona name)."""
    text = str(path or "").strip()
    if not text:
        return None
    stem = text.rsplit("/", 1)[-1].removesuffix(".md")
    return stem.removesuffix("_persona") or None


def _task_for(name: str, state: dict[str, Any], inputs: list[str], tasks: dict[str, str | None]) -> str | None:
    if state.get("task"):
        return str(state["task"])
    transitions = state.get("transitions")
    if isinstance(transitions, dict) and GATE_TRANSITIONS & set(transitions) and state.get("type") in (
            "single", "orchestrator-task"):
        return "quality_gate"
    if name in NAME_TASKS:
        return NAME_TASKS[name]
    task = PERSONA_TASKS.get((str(state.get("type")), str(state.get("persona"))))
    if task == "audit" and any(tasks.get(i) == "synthesize" for i in inputs):
        return "final_audit"
    return task


def _seed_agent(state: dict[str, Any], agents: dict[str, Any], personas: dict[str, str]) -> None:
    """A single state's `agent: <seed agent name>` → a model (the agent's `model:`, else the orchestrator's);
    the agent's persona path → the state's persona (added to `personas` when the config lists them)."""
    name = state.get("agent")
    agent = agents.get(name) if isinstance(name, str) else None
    if not isinstance(agent, dict):
        return
    state["agent"] = str(agent["model"]) if agent.get("model") else "orchestrator"
    persona = persona_name(agent.get("persona"))
    if persona and "persona" not in state:
        state["persona"] = persona
        if personas:
            personas.setdefault(persona, f"{persona}.md")


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
    personas = _mapping(data.get("personas"))
    out["personas"] = {str(k): _persona_file(str(k), v) for k, v in personas.items()}
    agents: dict[str, Any] = {}
    raw_agents = _mapping(data.get("agents"))
    for name, agent in raw_agents.items():
        if not isinstance(agent, dict):
            continue
        kept = {k: agent[k] for k in ("context_window", "cost_per_1k") if agent.get(k) is not None}
        if kept:
            agents[str(agent.get("model") or name)] = kept
    out["agents"] = agents
    raw_states: dict[str, Any] = _mapping(data.get("states"))
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
            _seed_agent(converted, raw_agents, out["personas"])
        if state.get("type") == "terminal" and state.get("status") == "failed" and "error" not in converted:
            converted["error"] = True
        states[name] = converted
    out["states"] = states if isinstance(data.get("states"), dict) else data.get("states")
    if "circuit_breaker" in data:
        out["circuit_breaker"] = data["circuit_breaker"]
    settings = _mapping(data.get("settings"))
    out["settings"] = {k: settings[k] for k in KEPT_SETTINGS if k in settings}
    return out


def conversion_notes(data: Any) -> list[str]:
    """What `from_seed_shape` (and the §13 rule reading) made of each seed construct, one line each, for
    `colloquy write convert-config` to print above the converted config."""
    from rules.writing.conditions import ConditionError, normalise_rule

    if not isinstance(data, dict):
        return []
    notes: list[str] = []
    seed = is_seed_shape(data)
    converted = from_seed_shape(data) if seed else data
    if seed:
        orch = _mapping(data.get("orchestrator"))
        if orch.get("agent"):
            notes.append(f"orchestrator.agent {orch['agent']!r} → orchestrator.model {orch['agent']!r} (a litellm "
                         "model id; offline profile: a label for the test double)")
        if orch.get("checkpoints"):
            notes.append("orchestrator.checkpoints dropped: a circuit break always consults the orchestrator "
                         "(loop_warning); the other checkpoints are not implemented")
        raw_agents = _mapping(data.get("agents"))
        for name, state in _mapping(converted.get("states")).items():
            raw = _mapping(data.get("states")).get(name)
            if not isinstance(state, dict) or not isinstance(raw, dict):
                continue
            if state.get("task") and not raw.get("task"):
                notes.append(f"state {name}: task {state['task']}" + (f", input {', '.join(state['input'])}"
                                                                     if state.get("input") else ""))
            if isinstance(raw.get("agent"), str) and raw["agent"] in raw_agents:
                model = "the orchestrator's model" if state.get("agent") == "orchestrator" else \
                    f"model {state.get('agent')!r}"
                notes.append(f"state {name}: agent {raw['agent']!r} (a CLI in the seed) runs on {model}" + (f", persona {state['persona']}" if state.get("persona")
                                                          else ""))
            if raw.get("status"):
                notes.append(f"state {name}: status {raw['status']} → " + ("error: true (ends halted)"
                                                                           if state.get("error") else "a normal end"))
        dropped = [k for k in ("logging",) if k in data] + [f"settings.{k}" for k in _mapping(data.get("settings"))
                                                            if k not in KEPT_SETTINGS]
        notes.append("dropped (the platform does these itself): " + ", ".join(
            dropped + ["agents' CLI commands, sessions and token tracking", "states' on_enter hooks and output "
                       "paths", "fan-out agent lists (the run's --models write and audit)"]))
    breaker = _mapping(data.get("circuit_breaker"))
    rules = breaker.get("rules")
    for raw in rules if isinstance(rules, list) else []:
        if not isinstance(raw, dict) or raw.get("condition") is None:
            continue
        try:
            rule = normalise_rule(raw)
        except ConditionError as exc:
            notes.append(f"circuit_breaker rule {raw.get('name')}: condition {raw['condition']!r} does not parse: "
                         f"{exc}")
            continue
        if "condition" in rule:
            notes.append(f"circuit_breaker rule {rule.get('name')}: condition {raw['condition']!r} → checked as "
                         "written after every transition")
        else:
            limit = f"limit {rule['limit']}" if "limit" in rule else "the built-in A→B→A→B check"
            notes.append(f"circuit_breaker rule {rule.get('name')}: condition {raw['condition']!r} → {limit}")
    return notes


def seed_persona_paths(data: Any) -> dict[str, str]:
    """The persona files a seed-shaped config names, as written: persona name → path (`personas.<name>`, each
    agent's `persona:`, `orchestrator.persona`). The client reads the ones that exist beside the config (or in the
    working directory) and sends their text with the run, as the seed's runner reads them; the others fall back
    to the bundled persona of that name."""
    if not is_seed_shape(data):
        return {}
    found: dict[str, str] = {}

    def add(name: str | None, path: Any) -> None:
        text = str(path or "").strip()
        if name and text and ("/" in text or text.endswith(".md")):
            found.setdefault(name, text)

    for name, path in _mapping(data.get("personas")).items():
        add(str(name), path)
    for agent in _mapping(data.get("agents")).values():
        if isinstance(agent, dict):
            add(persona_name(agent.get("persona")), agent.get("persona"))
    orch = _mapping(data.get("orchestrator"))
    add("orchestrator", orch.get("persona"))
    return found
