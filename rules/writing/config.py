"""Config loading and validation: every error is found before any model is called.

`validate_config(cfg)` returns a list of clear messages (empty = valid). Checks: exactly one initial state,
at least one terminal, required transitions per state type, transition keys allowed for the type, targets
that exist, tasks and personas that are defined, states unreachable from the initial state.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from models.writing.workflow import StateConfig, WorkflowConfig
from rules.writing.conditions import BUILTIN_METRIC, ConditionError, normalise_rule, parse
from rules.writing.seed_config import from_seed_shape, is_seed_shape

FAN_OUT_KEYS = ("all_success", "partial_success", "all_failure")
GATE_KEYS = ("proceed", "retry", "halt")
TASK_KEYS = ("success",)
APPROVAL_KEYS = ("approved", "feedback", "abort")

REQUIRED: dict[str, tuple[str, ...]] = {
    "fan-out": FAN_OUT_KEYS,
    "human-approval": APPROVAL_KEYS,
}
OPTIONAL: dict[str, tuple[str, ...]] = {
    "fan-out": (),
    "human-approval": ("timeout",),
}
FAN_OUT_TASKS = ("draft", "audit", "final_audit")
SINGLE_TASKS = ("synthesize", "final_analysis", "quality_gate")
# The text kind each task produces (what a later state can read as input).
TASK_OUTPUT_KIND = {"draft": "draft", "audit": "audit", "final_audit": "final_audit", "synthesize": "post",
                    "final_analysis": "analysis", "quality_gate": "review"}
DEFAULT_PERSONA = {"draft": "writer", "audit": "auditor", "final_audit": "auditor", "synthesize": "synthesizer",
                   "final_analysis": "orchestrator", "quality_gate": "quality_gate"}


class ConfigError(ValueError):
    """A workflow config that cannot run. `errors` lists every problem found."""

    def __init__(self, errors: list[str], name: str = "config") -> None:
        self.errors = errors
        super().__init__(f"invalid writing workflow config {name!r}: " + "; ".join(errors))


def required_transitions(state: StateConfig) -> tuple[str, ...]:
    if state.type in REQUIRED:
        return REQUIRED[state.type]
    if state.type in ("single", "orchestrator-task"):
        return GATE_KEYS if state.task == "quality_gate" else TASK_KEYS
    return ()


def allowed_transitions(state: StateConfig) -> tuple[str, ...]:
    if state.type in ("single", "orchestrator-task"):
        return required_transitions(state) + ("failure",)
    return required_transitions(state) + OPTIONAL.get(state.type, ())


def targets(state: StateConfig) -> list[str]:
    found = list(state.transitions.values())
    if state.next:
        found.append(state.next)
    return found


def duplicate_models(models: list[str]) -> list[str]:
    """Model ids given more than once (after trimming), in first-seen order."""
    ids = [m.strip() for m in models]
    return [m for m in dict.fromkeys(ids) if ids.count(m) > 1]


def initial_state(cfg: WorkflowConfig) -> str:
    return next(name for name, s in cfg.states.items() if s.type == "initial")


def persona_for(state: StateConfig) -> str:
    return state.persona or DEFAULT_PERSONA.get(state.task or "", "writer")


def validate_config(cfg: WorkflowConfig) -> list[str]:
    errors: list[str] = []
    states = cfg.states
    initials = [n for n, s in states.items() if s.type == "initial"]
    if len(initials) != 1:
        errors.append(f"exactly one state of type initial is needed, found {len(initials)} ({', '.join(initials)})")
    if not any(s.type == "terminal" for s in states.values()):
        errors.append("no terminal state: add one (e.g. complete) so the run can end")
    for name, s in states.items():
        where = f"state {name!r} ({s.type})"
        if s.type == "initial":
            if not s.next:
                errors.append(f"{where}: missing 'next' (the first state to run)")
            if s.transitions:
                errors.append(f"{where}: an initial state has no transitions, only 'next'")
        elif s.next:
            errors.append(f"{where}: 'next' is only for the initial state; use transitions")
        if s.type == "terminal":
            if s.transitions:
                errors.append(f"{where}: a terminal state has no transitions")
            continue
        if s.type in ("fan-out", "single", "orchestrator-task"):
            if s.task is None:
                errors.append(f"{where}: missing 'task' (one of draft, audit, final_audit, synthesize, "
                              "final_analysis, quality_gate)")
            elif s.type == "fan-out" and s.task not in FAN_OUT_TASKS:
                errors.append(f"{where}: task {s.task!r} cannot fan out (fan-out tasks: {', '.join(FAN_OUT_TASKS)})")
            elif s.type != "fan-out" and s.task not in SINGLE_TASKS:
                errors.append(f"{where}: task {s.task!r} needs a fan-out state")
            persona = persona_for(s)
            if cfg.personas and persona not in cfg.personas:
                errors.append(f"{where}: persona {persona!r} is not defined under personas "
                              f"({', '.join(sorted(cfg.personas))})")
            for inp in s.input:
                if inp not in states:
                    errors.append(f"{where}: input {inp!r} is not a state")
        if s.type == "single" and not s.agent:
            errors.append(f"{where}: missing 'agent' (a model id, or 'orchestrator')")
        if s.type == "fan-out" and s.agents is not None and not s.agents:
            errors.append(f"{where}: 'agents' is empty (omit it to use the run's models)")
        for key in required_transitions(s):
            if key not in s.transitions:
                errors.append(f"{where}: missing transition {key!r}")
        allowed = allowed_transitions(s)
        for key in s.transitions:
            if key not in allowed:
                errors.append(f"{where}: transition {key!r} is not valid here (valid: {', '.join(allowed)})")
        for target in targets(s):
            if target not in states:
                errors.append(f"{where}: transition to unknown state {target!r}")
    if len(initials) == 1:
        seen = reachable(cfg, initials[0])
        for name in states:
            if name not in seen:
                errors.append(f"state {name!r} is unreachable from {initials[0]!r}")
        errors += trapped_states(cfg, seen)
    errors += mislabelled_terminals(cfg)
    errors += rule_errors(cfg)
    return errors


def rule_errors(cfg: WorkflowConfig) -> list[str]:
    errors = []
    for i, rule in enumerate(cfg.circuit_breaker.rules):
        where = f"circuit_breaker.rules.{i} ({rule.name})"
        if rule.limit is not None and rule.limit < 0:
            errors.append(f"{where}: limit must be >= 0")
        if rule.condition is not None:
            try:
                parse(rule.condition)
            except ConditionError as exc:
                errors.append(f"{where}: condition {rule.condition!r}: {exc}")
            if rule.limit is not None:
                errors.append(f"{where}: give a condition or a limit, not both")
        elif rule.name not in BUILTIN_METRIC:
            errors.append(f"{where}: no condition, and {rule.name!r} is not a built-in rule (built-in: "
                          f"{', '.join(BUILTIN_METRIC)}); add a condition such as 'transition_count >= 20'")
    names = [r.name for r in cfg.circuit_breaker.rules]
    for name in sorted({n for n in names if names.count(n) > 1}):
        errors.append(f"circuit_breaker rule {name!r} is listed {names.count(name)} times")
    return errors


def normalise_rules(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Seed §13 rules as written (`name` + `condition`) → built-in rules with a limit where the condition is the
    rule's own simple form; other conditions are kept. Returns the data and the conditions that do not parse."""
    breaker = data.get("circuit_breaker")
    if not isinstance(breaker, dict) or not isinstance(breaker.get("rules"), list):
        return data, []
    rules, errors = [], []
    for i, raw in enumerate(breaker["rules"]):
        try:
            rules.append(normalise_rule(raw))
        except ConditionError as exc:
            name = raw.get("name") if isinstance(raw, dict) else None
            errors.append(f"circuit_breaker.rules.{i} ({name}): condition {raw.get('condition')!r}: {exc}")
            rules.append(raw)
    return {**data, "circuit_breaker": {**breaker, "rules": rules}}, errors


ERROR_KEYS = frozenset({"all_failure", "halt", "abort", "timeout", "failure"})


def trapped_states(cfg: WorkflowConfig, states: set[str]) -> list[str]:
    """A loop with no way out: a state (reachable from the initial one) from which no terminal can be reached.
    A config where *some* terminal is reachable can still trap a run in such a loop."""
    terminals = {n for n, s in cfg.states.items() if s.type == "terminal"}
    if not terminals:
        return []  # reported as 'no terminal state'
    errors = []
    for name in sorted(states):
        st = cfg.states.get(name)
        if st is None or st.type == "terminal":
            continue
        if not (reachable(cfg, name) & terminals):
            loop = sorted(reachable(cfg, name))
            errors.append(f"state {name!r} can never reach a terminal state: it loops through "
                          f"{', '.join(loop)} with no way out (add a transition to a terminal, e.g. halt)")
    return errors


def mislabelled_terminals(cfg: WorkflowConfig) -> list[str]:
    """A terminal reached only by error keys (all_failure, halt, abort, ...) that is not marked `error: true`
    would end a failed run as 'complete'."""
    errors = []
    for name, st in cfg.states.items():
        if st.type != "terminal" or st.error:
            continue
        keys = {key for s in cfg.states.values() for key, target in s.transitions.items() if target == name}
        if keys and keys <= ERROR_KEYS:
            errors.append(f"state {name!r} (terminal) is reached only by {', '.join(sorted(keys))}: mark it "
                          "`error: true` so such runs end halted, not complete")
    return errors


def reachable(cfg: WorkflowConfig, start: str) -> set[str]:
    seen = {start}
    stack = [start]
    while stack:
        state = cfg.states.get(stack.pop())
        if state is None:
            continue
        for target in targets(state):
            if target in cfg.states and target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def check_config(cfg: WorkflowConfig) -> WorkflowConfig:
    errors = validate_config(cfg)
    if errors:
        raise ConfigError(errors, cfg.name)
    return cfg


def parse_config(data: dict[str, Any], name: str = "config") -> WorkflowConfig:
    """A dict (parsed YAML) → a validated WorkflowConfig, or ConfigError listing every problem."""
    if not isinstance(data, dict):
        raise ConfigError(["the config must be a mapping with a 'states' section"], name)
    if is_seed_shape(data):  # seed 004's workflow_config.yaml, accepted as it is
        data = from_seed_shape(data)
    data, rule_problems = normalise_rules(data)
    if rule_problems:
        raise ConfigError(rule_problems, name)
    try:
        cfg = WorkflowConfig.model_validate(data)
    except ValidationError as exc:
        errors = []
        for err in exc.errors(include_url=False):
            loc = ".".join(str(p) for p in err["loc"])
            errors.append(f"{loc}: {err['msg']}")
        raise ConfigError(errors, name) from None
    return check_config(cfg)


def parse_config_yaml(text: str, name: str = "config") -> WorkflowConfig:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError([f"not valid YAML: {exc}"], name) from None
    return parse_config(data, name)
