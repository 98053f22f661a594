"""Process-wide settings read from the environment (never from workflow payloads).

Everything here is worker/client-side. Secrets (API keys) are read from the environment at call time by the
LLM gateway and never travel through Temporal.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from core.resources import prompts_dir

# litellm fetches a price map from the internet at import unless told not to. Every entry point imports
# this module first.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# The folder above this package: the repository in a source checkout, site-packages in an installed wheel. Read-only
# data is never looked up from here but with importlib.resources (core/resources.py).
ROOT = Path(__file__).resolve().parent.parent
PROMPTS_DIR = prompts_dir()  # the prompts package's folder (core/resources.py)

TASK_QUEUE = "colloquy"
LLM_TASK_QUEUE = "colloquy-llm"
DEFAULT_ADDRESS = "127.0.0.1:7233"
DEFAULT_NAMESPACE = "default"
UI_PORT = 8233

SEARCH_ATTRIBUTES = ("ColloquyPipeline", "ColloquyPhase", "ColloquyTopic", "ColloquyStatus")


def source_checkout() -> bool:
    """True when running from the repository (or an editable install of it), not from an installed wheel."""
    return (ROOT / "pyproject.toml").is_file() and (ROOT / "core" / "settings.py").is_file()


def data_dir() -> Path:
    """Where the app writes (artifacts, notes, temporal.db, history): COLLOQUY_DATA_DIR, else the checkout's
    .data/, else ./.data in the current directory (never inside site-packages)."""
    explicit = os.environ.get("COLLOQUY_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser().resolve()
    return (ROOT / ".data").resolve() if source_checkout() else (Path.cwd() / ".data").resolve()


def artifact_dir() -> Path:
    return Path(os.environ.get("COLLOQUY_ARTIFACT_DIR", data_dir() / "artifacts")).resolve()


class TemporalProfileError(ValueError):
    """The Temporal client profile cannot be loaded (unknown profile, unreadable or invalid TOML)."""


@dataclass(frozen=True)
class TemporalSettings:
    """How clients and workers reach Temporal: the dev server by default, any cluster by flags/env/profiles.

    Read the way the `temporal` CLI reads them (`temporalio.envconfig`): the TOML profiles file
    (TEMPORAL_CONFIG_FILE, default ~/.config/temporalio/temporal.toml; profile TEMPORAL_PROFILE or `default`),
    overridden by the CLI's environment variables (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
    TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_SERVER_CA_CERT_PATH,
    TEMPORAL_TLS_SERVER_NAME, …), overridden by command-line flags. Colloquy's older names TEMPORAL_TLS_CERT,
    TEMPORAL_TLS_KEY and TEMPORAL_TLS_CA are still read, as aliases.
    """

    address: str = DEFAULT_ADDRESS
    namespace: str = DEFAULT_NAMESPACE
    tls: bool = False
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_ca: str | None = None
    api_key_env: str = "TEMPORAL_API_KEY"
    extra: dict[str, str] = field(default_factory=dict)
    profile: str | None = None
    tls_server_name: str | None = None
    # PEM given inline in a profile (`client_cert_data` …): kept apart from the path fields, never printed.
    tls_data: dict[str, bytes] = field(default_factory=dict, repr=False)
    api_key: str | None = field(default=None, repr=False)

    @classmethod
    def from_env(cls, **overrides: object) -> TemporalSettings:
        profile_name = overrides.pop("profile", None) or os.environ.get("TEMPORAL_PROFILE") or None
        prof = load_profile(profile_name)  # type: ignore[arg-type]
        tls = prof.tls if prof is not None else None
        paths, data = {}, {}
        for key, source in (("tls_cert", getattr(tls, "client_cert", None)),
                            ("tls_key", getattr(tls, "client_private_key", None)),
                            ("tls_ca", getattr(tls, "server_root_ca_cert", None))):
            if isinstance(source, Path):
                paths[key] = str(source)
            elif source is not None:
                data[key] = source if isinstance(source, bytes) else str(source).encode()
        api_key_env = os.environ.get("COLLOQUY_TEMPORAL_API_KEY_ENV", "TEMPORAL_API_KEY")
        values: dict[str, object] = {
            "address": (prof.address if prof else None) or DEFAULT_ADDRESS,
            "namespace": (prof.namespace if prof else None) or DEFAULT_NAMESPACE,
            "tls": os.environ.get("TEMPORAL_TLS", "").lower() in ("1", "true", "yes")
            or (tls is not None and tls.disabled is not True),
            "tls_cert": paths.get("tls_cert") or os.environ.get("TEMPORAL_TLS_CERT"),
            "tls_key": paths.get("tls_key") or os.environ.get("TEMPORAL_TLS_KEY"),
            "tls_ca": paths.get("tls_ca") or os.environ.get("TEMPORAL_TLS_CA"),
            "tls_server_name": getattr(tls, "server_name", None),
            "tls_data": data,
            "api_key_env": api_key_env,
            "api_key": (prof.api_key if prof else None),
            "extra": dict(prof.grpc_meta) if prof else {},
            "profile": profile_name,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values.get("tls") is False and tls is not None and tls.disabled is not True:
            values["tls"] = True  # a profile that configures TLS keeps it on
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


def load_profile(name: str | None = None):  # noqa: ANN201 — temporalio.envconfig.ClientConfigProfile | None
    """The `temporal` CLI's client profile `name` (TOML file + TEMPORAL_* environment), or None when the SDK
    has no envconfig. An explicitly named profile that does not exist is an error."""
    try:
        from temporalio.envconfig import ClientConfigProfile
    except ImportError:  # pragma: no cover — older SDKs
        return None
    try:
        return ClientConfigProfile.load(profile=name)
    except Exception as exc:  # the bridge raises its own ConfigError type
        where = os.environ.get("TEMPORAL_CONFIG_FILE") or "~/.config/temporalio/temporal.toml"
        raise TemporalProfileError(f"Temporal client profile {name or 'default'!r} ({where}): {exc}") from None
