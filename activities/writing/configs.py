"""Where writing configs and personas live: package data (core/resources.py). Light: no LLM imports, so the CLI
starts fast."""

from __future__ import annotations

from pathlib import Path

from core.resources import configs_dir, prompts_dir
from models.writing.workflow import WorkflowConfig
from rules.writing.config import ConfigError, parse_config_yaml

CONFIG_DIR = configs_dir() / "writing"
PERSONA_DIR = prompts_dir() / "writing" / "personas"


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


def load_worker_config(name: str) -> WorkflowConfig:
    """A run input's `config_name` on the worker: the name of a shipped config (configs/writing/<name>.yaml), never
    a path — an input chooses no file on the worker's disk (rules/paths.py; the CLI reads a YAML path on the user's
    machine and sends the config itself)."""
    if not name or "/" in name or "\\" in name or name.startswith(".") or Path(name).suffix in (".yaml", ".yml"):
        known = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")))
        raise ConfigError([f"config_name {name[:80]!r}: the name of a config the worker ships ({known}), never a "
                           "path (send the config itself: `colloquy write --config FILE` does)"], name[:80])
    return load_named_config(name)


def persona_path(name: str, file: str | None = None) -> Path:
    return (PERSONA_DIR / (file or f"{name}.md")).resolve()
