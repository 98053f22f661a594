"""Process-wide settings read from the environment (never from workflow payloads).

Everything here is worker/client-side. Secrets (API keys) are read from the environment at call time by the
LLM gateway and never travel through Temporal.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
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


NOTES_DIR_ENV = "COLLOQUY_NOTES_DIR"
IMPORT_ROOTS_ENV = "COLLOQUY_IMPORT_ROOTS"
DEFAULT_IMPORT_ROOT = "imports"
EXAMPLES_IMPORT_ROOT = "examples"
ROOT_NAME = re.compile(r"[a-z][a-z0-9_-]{1,31}")   # two characters at least: never read as a drive letter


def notes_root(environ: Mapping[str, str] | None = None) -> Path:
    """The notes root (the only folder the notes store writes under): COLLOQUY_NOTES_DIR, else <data dir>/notes.
    An input's `notes_dir` is a folder inside it (rules/paths.py), never a path of its own."""
    env = os.environ if environ is None else environ
    explicit = (env.get(NOTES_DIR_ENV) or "").strip()
    return Path(explicit).expanduser().resolve() if explicit else (data_dir() / "notes").resolve()


def import_roots(environ: Mapping[str, str] | None = None) -> dict[str, Path]:
    """The folders an import may read, by name: COLLOQUY_IMPORT_ROOTS (`NAME=FOLDER` entries separated by the
    system's path separator, `:` on Linux and macOS: `journal=/home/ana/journal:work=/srv/notes`), else one root
    named `imports`, <data dir>/imports. The shipped example apps (read-only package data: apps/fitness/
    sample_notes) are always the root `examples`, unless the operator gives that name a folder of their own.
    An import's `directory` starts with a root's name (`journal/2024`). ValueError (naming the variable) on a
    malformed value."""
    from core.resources import apps_dir

    env = os.environ if environ is None else environ
    raw = (env.get(IMPORT_ROOTS_ENV) or "").strip()
    try:
        roots = parse_roots(raw, os.pathsep) if raw else {DEFAULT_IMPORT_ROOT: data_dir() / DEFAULT_IMPORT_ROOT}
    except ValueError as err:
        raise ValueError(f"{IMPORT_ROOTS_ENV}: {err}") from None
    return {EXAMPLES_IMPORT_ROOT: apps_dir().resolve()} | {name: path.resolve() for name, path in roots.items()}


def parse_roots(text: str, separator: str) -> dict[str, Path]:
    """'journal=/home/u/journal<sep>work=/srv/work' -> {'journal': …, 'work': …}. ValueError on a bad entry
    (a missing name, a name that is not lowercase letters/digits/-/_ of 2 to 32 characters, a relative folder,
    a name given twice)."""
    out: dict[str, Path] = {}
    for entry in (e.strip() for e in text.split(separator)):
        if not entry:
            continue
        name, eq, folder = entry.partition("=")
        name, folder = name.strip(), folder.strip()
        if not eq or not folder:
            raise ValueError(f"{entry!r}: expected NAME=FOLDER")
        if not ROOT_NAME.fullmatch(name):
            raise ValueError(f"{entry!r}: a root's name is 2 to 32 lowercase letters, digits, '-' or '_', "
                             "starting with a letter")
        path = Path(folder).expanduser()
        if not path.is_absolute():
            raise ValueError(f"{entry!r}: the folder must be an absolute path")
        if name in out:
            raise ValueError(f"{entry!r}: the root {name!r} is named twice")
        out[name] = path
    return out


ARTIFACT_STORE_ENV = "COLLOQUY_ARTIFACT_STORE"
ARTIFACT_ENCRYPTION_ENV = "COLLOQUY_ARTIFACT_ENCRYPTION"
S3_ENV = {"endpoint": "COLLOQUY_S3_ENDPOINT", "bucket": "COLLOQUY_S3_BUCKET", "region": "COLLOQUY_S3_REGION",
          "prefix": "COLLOQUY_S3_PREFIX"}


class ArtifactSettingsError(ValueError):
    """The artifact store's settings are incomplete or contradictory."""


@dataclass(frozen=True)
class ArtifactSettings:
    """Where artifacts live (activities/artifact_store.py). Configuration only, from the environment:

    - COLLOQUY_ARTIFACT_STORE: `local` (default: the folder COLLOQUY_ARTIFACT_DIR, else <data dir>/artifacts) or
      `s3` (any S3-compatible object store: AWS S3, SeaweedFS, MinIO, Ceph RGW, R2, ...).
    - s3: COLLOQUY_S3_BUCKET (required), COLLOQUY_S3_ENDPOINT (omit for AWS), COLLOQUY_S3_REGION (default
      us-east-1), COLLOQUY_S3_PREFIX (a folder in the bucket, optional). Credentials are the standard AWS
      variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, or a web identity / instance role),
      read by the S3 client from the process environment: never a setting here, never in a workflow payload.
    - COLLOQUY_ARTIFACT_ENCRYPTION: `auto` (default: object storage is encrypted with the payload keys when
      COLLOQUY_CODEC_KEYS_FILE is set; local files stay plain, 0600), `on` (both backends; needs the keys file),
      `off`.
    """

    backend: str = "local"
    root: Path | None = None
    bucket: str | None = None
    endpoint: str | None = None
    region: str = "us-east-1"
    prefix: str = ""
    encryption: str = "auto"

    def __post_init__(self) -> None:
        if self.backend not in ("local", "s3"):
            raise ArtifactSettingsError(f"{ARTIFACT_STORE_ENV}={self.backend!r}: expected 'local' or 's3'")
        if self.encryption not in ("auto", "on", "off"):
            raise ArtifactSettingsError(f"{ARTIFACT_ENCRYPTION_ENV}={self.encryption!r}: expected auto, on or off")
        if self.backend == "s3" and not self.bucket:
            raise ArtifactSettingsError(f"{ARTIFACT_STORE_ENV}=s3 needs {S3_ENV['bucket']}")
        if self.endpoint and not self.endpoint.startswith(("http://", "https://")):
            raise ArtifactSettingsError(f"{S3_ENV['endpoint']}={self.endpoint!r}: expected an http(s):// URL")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ArtifactSettings:
        env = os.environ if environ is None else environ
        backend = (env.get(ARTIFACT_STORE_ENV) or "local").strip().lower()
        if backend == "local":
            root = Path(env.get("COLLOQUY_ARTIFACT_DIR") or data_dir() / "artifacts").expanduser().resolve()
        else:
            root = None
        return cls(backend=backend, root=root, bucket=(env.get(S3_ENV["bucket"]) or "").strip() or None,
                   endpoint=(env.get(S3_ENV["endpoint"]) or "").strip().rstrip("/") or None,
                   region=(env.get(S3_ENV["region"]) or "").strip() or "us-east-1",
                   prefix=(env.get(S3_ENV["prefix"]) or "").strip().strip("/"),
                   encryption=(env.get(ARTIFACT_ENCRYPTION_ENV) or "auto").strip().lower())

    def encrypted(self, keys_file_set: bool) -> bool:
        """Whether new artifacts are sealed with the payload keys."""
        if self.encryption == "off":
            return False
        if self.encryption == "on":
            if not keys_file_set:
                raise ArtifactSettingsError(f"{ARTIFACT_ENCRYPTION_ENV}=on needs COLLOQUY_CODEC_KEYS_FILE (the keys "
                                            "that seal the artifacts: `colloquy keys new`)")
            return True
        return self.backend == "s3" and keys_file_set

    def describe(self) -> str:
        if self.backend == "local":
            return f"local folder {self.root}"
        where = f"s3://{self.bucket}/{self.prefix + '/' if self.prefix else ''}"
        return f"object storage {where} ({self.endpoint or 'AWS'}, region {self.region})"


SERVE_URL_ENV = "COLLOQUY_SERVE_URL"


def serve_url() -> str | None:
    """The address people open `colloquy serve` at (COLLOQUY_SERVE_URL, e.g. https://colloquy.example.org), or
    None: results then link essays there (the console's essay URL) instead of the worker's file path."""
    value = os.environ.get(SERVE_URL_ENV, "").strip().rstrip("/")
    return value if value.startswith(("http://", "https://")) else None


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


# ------------------------------------------------------------------------------------------------ worker tuning
@dataclass(frozen=True)
class WorkerTuning:
    """How much one `colloquy worker` process takes on at once. Defaults suit one 2-core host running hundreds of
    mostly idle interview sessions (docs/performance.md explains each value); every field has an environment
    variable (`COLLOQUY_WORKER_*`, table `WORKER_TUNING_ENV`) and a `colloquy worker` flag.

    - max_concurrent_activities: activity slots per Worker (the `<queue>` worker and the `<queue>-llm` worker each
      get this many). An LLM call waits on the network, so a slot is one asyncio task: one per live session
      (a session keeps ~0.5 calls in flight at a 10 s cadence with a 1 s model) keeps slots from binding before
      CPU does. A provider's rate limit is the real bound: lower it for a provider with a low one.
    - max_concurrent_workflow_tasks: workflow tasks (activations, queries) in flight. Python runs them under the
      GIL on a thread pool of this size: more only queues work inside the process; fewer makes tasks (and the
      updates, signals and queries behind them) wait at the server instead. The SDK's 100 is kept.
    - max_cached_workflows: the sticky cache (the SDK's 1000). Below the number of live sessions a worker holds,
      every workflow task of an evicted session replays its whole history: keep it above that number.
    - workflow_task_pollers / activity_task_pollers: long polls held open per Worker (the SDK's default 5).
    - sticky_queue_timeout_s: how long a workflow task waits on a worker's own (sticky) queue before the server
      hands it to any worker: the pause a killed worker's sessions see before another worker takes them.
    """

    max_concurrent_activities: int = 500
    max_concurrent_workflow_tasks: int = 100
    max_cached_workflows: int = 1000
    workflow_task_pollers: int = 5
    activity_task_pollers: int = 5
    sticky_queue_timeout_s: float = 10.0

    def __post_init__(self) -> None:
        problems = []
        if self.max_concurrent_activities < 1:
            problems.append("max_concurrent_activities must be at least 1")
        if self.max_concurrent_workflow_tasks < 2:  # the SDK needs 2 with a sticky cache
            problems.append("max_concurrent_workflow_tasks must be at least 2")
        if self.max_cached_workflows < 0:
            problems.append("max_cached_workflows must be 0 or more")
        if self.workflow_task_pollers < 2:  # one sticky + one normal poller at least
            problems.append("workflow_task_pollers must be at least 2")
        if self.activity_task_pollers < 1:
            problems.append("activity_task_pollers must be at least 1")
        if self.sticky_queue_timeout_s <= 0:
            problems.append("sticky_queue_timeout_s must be positive")
        if problems:
            raise ValueError("worker tuning: " + "; ".join(problems))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> WorkerTuning:
        """Defaults, overridden by `COLLOQUY_WORKER_*` variables, overridden by `overrides` (flags) not None.
        `COLLOQUY_MAX_CONCURRENT_ACTIVITIES`, the older name, is still read."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name, var in WORKER_TUNING_ENV.items():
            raw = env.get(var)
            if raw is None and name == "max_concurrent_activities":
                raw = env.get("COLLOQUY_MAX_CONCURRENT_ACTIVITIES")
            if raw is None or not raw.strip():
                continue
            kind = float if name == "sticky_queue_timeout_s" else int
            try:
                values[name] = kind(raw)
            except ValueError:
                raise ValueError(f"{var}={raw!r}: not a number") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        unknown = set(values) - set(WORKER_TUNING_ENV)
        if unknown:
            raise TypeError(f"unknown worker tuning field(s): {', '.join(sorted(unknown))}")
        return cls(**values)  # type: ignore[arg-type]

    def describe(self) -> str:
        return (f"activities {self.max_concurrent_activities}, workflow tasks {self.max_concurrent_workflow_tasks}, "
                f"cached workflows {self.max_cached_workflows}, pollers wf {self.workflow_task_pollers} / "
                f"act {self.activity_task_pollers}, sticky timeout {self.sticky_queue_timeout_s:g} s")


WORKER_TUNING_ENV = {
    "max_concurrent_activities": "COLLOQUY_WORKER_MAX_CONCURRENT_ACTIVITIES",
    "max_concurrent_workflow_tasks": "COLLOQUY_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS",
    "max_cached_workflows": "COLLOQUY_WORKER_MAX_CACHED_WORKFLOWS",
    "workflow_task_pollers": "COLLOQUY_WORKER_WORKFLOW_TASK_POLLERS",
    "activity_task_pollers": "COLLOQUY_WORKER_ACTIVITY_TASK_POLLERS",
    "sticky_queue_timeout_s": "COLLOQUY_WORKER_STICKY_QUEUE_TIMEOUT_S",
}

# What the temporalio SDK (1.35) uses when nothing is set, and what Colloquy's workers used before WorkerTuning.
SDK_WORKER_DEFAULTS = {
    "max_concurrent_activities": 100,     # Colloquy passed 100; the SDK's own default is 100 too
    "max_concurrent_workflow_tasks": 100,
    "max_cached_workflows": 1000,
    "workflow_task_pollers": 5,
    "activity_task_pollers": 5,
    "sticky_queue_timeout_s": 10.0,
}
