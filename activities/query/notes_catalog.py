"""The domain catalog: domains/base.yaml and apps/<app_id>/app.yaml (base + domains) read into a `DomainCatalog`."""

from __future__ import annotations

import os
from pathlib import Path

from activities.query.notes_repository import InvalidRequest
from core.resources import apps_dir, domains_dir
from models.query.parts import DomainCatalog, DomainModule
from rules.query.apps import check_app_id


def domain_dirs() -> tuple[Path, Path]:
    """(domains folder, apps folder): under COLLOQUY_DOMAINS_ROOT if set, else the shipped package data."""
    root = os.environ.get("COLLOQUY_DOMAINS_ROOT")
    if root:
        base = Path(root).expanduser().resolve()
        return base / "domains", base / "apps"
    return domains_dir(), apps_dir()


def load_catalog(app_id: str) -> DomainCatalog:
    import yaml
    from pydantic import ValidationError

    domains_folder, apps_folder = domain_dirs()

    def load(path: Path) -> DomainModule:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            return DomainModule.model_validate(data)
        except FileNotFoundError:
            raise InvalidRequest(f"domain file {path} not found") from None
        except (yaml.YAMLError, ValidationError) as exc:
            raise InvalidRequest(f"domain file {path} is invalid: {exc}") from None

    general = load(domains_folder / "base.yaml")
    if app_id in ("", "general"):
        return DomainCatalog(app_id="general", base=general, domains=[])
    try:
        check_app_id(app_id)
    except ValueError as exc:
        raise InvalidRequest(str(exc)) from None
    app_dir = apps_folder / app_id
    app_file = app_dir / "app.yaml"
    if not app_file.is_file() or app_dir.resolve().parent != apps_folder.resolve():
        known = sorted(p.name for p in apps_folder.glob("*") if (p / "app.yaml").is_file())
        raise InvalidRequest(f"unknown app {app_id!r}: known apps are general, {', '.join(known)}")
    spec = yaml.safe_load(app_file.read_text(encoding="utf-8")) or {}
    base = load(app_dir / spec["base"]) if spec.get("base") else general
    if spec.get("base"):
        # The framework's general base still applies: the app's base extends it (rules and vocabulary merge).
        base = DomainModule(
            name=base.name, description=base.description, log_schema={**general.log_schema, **base.log_schema},
            vocabulary={**general.vocabulary, **base.vocabulary},
            expertise="\n\n".join(x for x in (general.expertise.strip(), base.expertise.strip()) if x),
            response_evaluation_rules=general.response_evaluation_rules
            + [r for r in base.response_evaluation_rules if r not in general.response_evaluation_rules],
            context_management_guidance="\n\n".join(
                x for x in (general.context_management_guidance.strip(), base.context_management_guidance.strip())
                if x),
        )
    domains = [load(app_dir / rel) for rel in spec.get("domains", [])]
    return DomainCatalog(app_id=app_id, base=base, domains=domains)
