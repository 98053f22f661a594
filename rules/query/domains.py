"""Domain modules combined per input (seed §8.5): base always applied, selected domains merged on top."""

from __future__ import annotations

from models.query.parts import ActiveDomainContext, DomainCatalog, DomainInfo, DomainModule, LogField


def known_domains(catalog: DomainCatalog) -> list[str]:
    return [d.name for d in catalog.domains]


def valid_selection(catalog: DomainCatalog, selected: list[str]) -> tuple[list[str], list[str]]:
    """Router's selection filtered to domains the app has (case-insensitive); returns (kept, dropped)."""
    by_lower = {d.name.lower(): d.name for d in catalog.domains}
    kept: list[str] = []
    dropped: list[str] = []
    for name in selected:
        real = by_lower.get(name.strip().lower())
        if real is None:
            if name.strip().lower() != catalog.base.name.lower():
                dropped.append(name)
        elif real not in kept:
            kept.append(real)
    return kept, dropped


def combine_domains(catalog: DomainCatalog, selected: list[str]) -> ActiveDomainContext:
    """vocabulary: merged dicts (later wins); expertise/guidance: concatenated with domain labels;
    evaluation rules: base + selected, de-duplicated in order; available: the app's domains not loaded."""
    modules: list[DomainModule] = [catalog.base] + [m for m in catalog.domains if m.name in selected]
    vocabulary: dict[str, str] = {}
    rules: list[str] = []
    for m in modules:
        vocabulary.update(m.vocabulary)
        rules.extend(r for r in m.response_evaluation_rules if r not in rules)
    expertise = "\n\n".join(f"## {_label(m)}\n{m.expertise.strip()}" for m in modules if m.expertise.strip())
    guidance = "\n\n".join(f"## {_label(m)}\n{m.context_management_guidance.strip()}" for m in modules
                           if m.context_management_guidance.strip())
    return ActiveDomainContext(
        domains_loaded=[m.name for m in modules], vocabulary=vocabulary, expertise=expertise,
        evaluation_rules=rules, context_guidance=guidance,
        available_domains=[DomainInfo(name=d.name, description=d.description) for d in catalog.domains
                           if d.name not in selected],
    )


def domain_schemas(catalog: DomainCatalog, loaded: list[str]) -> dict[str, dict[str, LogField]]:
    """Each loaded domain's log schema, applied independently by the Parser (§8.6)."""
    out: dict[str, dict[str, LogField]] = {}
    for name in loaded:
        module = catalog.get(name)
        if module is not None and module.log_schema:
            out[name] = module.log_schema
    return out


def _label(module: DomainModule) -> str:
    return module.name.replace("_", " ").title()
