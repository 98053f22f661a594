"""Process-wide settings read from the environment (never from workflow payloads).

Everything here is worker/client-side. Secrets (API keys) are read from the environment at call time by the
LLM gateway and never travel through Temporal.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

# litellm fetches a price map from the internet at import unless told not to. Every entry point imports
# this module first.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parent.parent
PROMPTS_DIR = ROOT / "prompts"

TASK_QUEUE = "colloquy"
LLM_TASK_QUEUE = "colloquy-llm"
DEFAULT_ADDRESS = "127.0.0.1:7233"
DEFAULT_NAMESPACE = "default"
UI_PORT = 8233

SEARCH_ATTRIBUTES = ("ColloquyPipeline", "ColloquyPhase", "ColloquyTopic", "ColloquyStatus")


def data_dir() -> Path:
    return Path(os.environ.get("COLLOQUY_DATA_DIR", ROOT / ".data")).resolve()


def artifact_dir() -> Path:
    return Path(os.environ.get("COLLOQUY_ARTIFACT_DIR", data_dir() / "artifacts")).resolve()


@dataclass(frozen=True)
class TemporalSettings:
    """How clients and workers reach Temporal: the dev server by default, any cluster by flags/env."""

    address: str = DEFAULT_ADDRESS
    namespace: str = DEFAULT_NAMESPACE
    tls: bool = False
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_ca: str | None = None
    api_key_env: str = "TEMPORAL_API_KEY"
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, **overrides: object) -> TemporalSettings:
        values: dict[str, object] = {
            "address": os.environ.get("TEMPORAL_ADDRESS", DEFAULT_ADDRESS),
            "namespace": os.environ.get("TEMPORAL_NAMESPACE", DEFAULT_NAMESPACE),
            "tls": os.environ.get("TEMPORAL_TLS", "").lower() in ("1", "true", "yes"),
            "tls_cert": os.environ.get("TEMPORAL_TLS_CERT"),
            "tls_key": os.environ.get("TEMPORAL_TLS_KEY"),
            "tls_ca": os.environ.get("TEMPORAL_TLS_CA"),
            "api_key_env": os.environ.get("COLLOQUY_TEMPORAL_API_KEY_ENV", "TEMPORAL_API_KEY"),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]

    def _ui_base(self) -> str | None:
        """The Web UI's base URL: TEMPORAL_UI_URL if set; for a local server, the dev server's convention
        (UI port = gRPC port + 1000, i.e. 8233 for 7233); None for a remote cluster we can't guess."""
        explicit = os.environ.get("TEMPORAL_UI_URL")
        if explicit:
            return explicit.rstrip("/")
        host, _, port = self.address.rpartition(":")
        if host in ("127.0.0.1", "localhost"):
            ui_port = int(port) + 1000 if port.isdigit() else UI_PORT
            return f"http://{host}:{ui_port}"
        return None

    @property
    def ui_url(self) -> str:
        base = self._ui_base()
        if base:
            return f"{base}/namespaces/{self.namespace}/workflows"
        return f"(see your cluster's Web UI; set TEMPORAL_UI_URL) namespace {self.namespace}"

    def workflow_url(self, workflow_id: str) -> str:
        base = self._ui_base()
        if base:
            return f"{base}/namespaces/{self.namespace}/workflows/{workflow_id}"
        return f"workflow {workflow_id} in namespace {self.namespace}"
