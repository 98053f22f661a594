"""Where writing configs and personas live on disk (light: no LLM imports, so the CLI starts fast)."""

from __future__ import annotations

from pathlib import Path

from core.settings import PROMPTS_DIR, ROOT
from models.writing import WorkflowConfig
from rules.writing.config import ConfigError, parse_config_yaml

CONFIG_DIR = ROOT / "configs" / "writing"
PERSONA_DIR = PROMPTS_DIR / "writing" / "personas"


def load_named_config(name: str) -> WorkflowConfig:
    """configs/writing/<name>.yaml, or a path to a YAML file; validated (ConfigError lists every problem)."""
    path = CONFIG_DIR / f"{name}.yaml"
    if not path.is_file():
        candidate = Path(name)
        if candidate.suffix in (".yaml", ".yml") and candidate.is_file():
            path = candidate
        else:
            known = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")))
            raise ConfigError([f"no config named {name!r} (known: {known})"], name)
    return parse_config_yaml(path.read_text(encoding="utf-8"), name)


def persona_path(name: str, file: str | None = None) -> Path:
    return (PERSONA_DIR / (file or f"{name}.md")).resolve()
