"""Shared CLI plumbing: Temporal options, async runner, console."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

import typer
from rich.console import Console

from core.settings import TemporalSettings

PIPED_WIDTH = 200  # redirected output: keep tables and ids whole instead of cutting them at 80 columns


def _console(stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    interactive = hasattr(stream, "isatty") and stream.isatty()
    if interactive or os.environ.get("COLUMNS"):
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=PIPED_WIDTH)


console = _console()
err_console = _console(stderr=True)
T = TypeVar("T")

AddressOpt = typer.Option(None, "--address", envvar="TEMPORAL_ADDRESS",
                          help="Temporal frontend host:port (default 127.0.0.1:7233, the embedded server).")
NamespaceOpt = typer.Option(None, "--namespace", envvar="TEMPORAL_NAMESPACE", help="Temporal namespace.")
TlsOpt = typer.Option(False, "--tls", envvar="TEMPORAL_TLS", help="Use TLS (Temporal Cloud / secured clusters).")
TlsCertOpt = typer.Option(None, "--tls-cert", envvar="TEMPORAL_TLS_CERT", help="Client certificate (mTLS), PEM.")
TlsKeyOpt = typer.Option(None, "--tls-key", envvar="TEMPORAL_TLS_KEY", help="Client private key (mTLS), PEM.")
TlsCaOpt = typer.Option(None, "--tls-ca", envvar="TEMPORAL_TLS_CA",
                        help="CA certificate that signed the server's certificate, PEM (self-hosted TLS).")
ApiKeyEnvOpt = typer.Option(None, "--api-key-env",
                            help="Name of the environment variable holding a Temporal API key (default "
                            "TEMPORAL_API_KEY). The key itself is never a flag.")


def settings(address: str | None = None, namespace: str | None = None, tls: bool = False,
             tls_cert: str | None = None, tls_key: str | None = None, tls_ca: str | None = None,
             api_key_env: str | None = None) -> TemporalSettings:
    from core.settings import TemporalProfileError

    try:
        return TemporalSettings.from_env(address=address, namespace=namespace, tls=tls or None, tls_cert=tls_cert,
                                         tls_key=tls_key, tls_ca=tls_ca, api_key_env=api_key_env)
    except TemporalProfileError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None


def fail(exc: BaseException) -> None:
    """Print an expected error as one line on stderr and exit with its documented code (client/errors.py);
    re-raise anything else (a bug keeps its traceback)."""
    from rich.markup import escape

    from client.errors import classify

    error = classify(exc)
    if error is None:
        raise exc
    err_console.print(f"[red]error:[/red] {escape(error.message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(int(error.code)) from None


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a command's coroutine; expected errors become one line and an exit code (`fail`)."""
    try:
        return asyncio.run(coro)
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 — fail() re-raises what it does not know
        if isinstance(exc, typer.Exit):
            raise
        fail(exc)
        raise  # unreachable: fail() always raises


def status_text(common: str, own: str | None = None, detail: str | None = None) -> str:
    """A status as the CLI prints it: the shared word (models/status.py, the run's ColloquyStatus), then the
    pipeline's own word in brackets where it says more — `running (IN_PROGRESS)`, `halted (error state 'halt')`."""
    extra = [w for w in (own if own and own.lower() != common else None, detail) if w]
    return f"{common} ({'; '.join(extra)})" if extra else common


# ------------------------------------------------------------------------------------ commands that run agents
REACH_SECONDS = 1.0  # how long the client waits for a self-hosted provider's port before saying it is down


def duplicate_ids(ids: list[str]) -> list[str]:
    """The ids given more than once, in first-seen order."""
    seen: dict[str, int] = {}
    for i in ids:
        seen[i] = seen.get(i, 0) + 1
    return [i for i, n in seen.items() if n > 1]


def _provider_of(model: str, cfg: Any) -> str:
    """Which provider answers `model` (activities/llm/config.config_for_call's rule, without resolving it)."""
    from activities.llm.config import provider_for

    if model in cfg.providers:
        return model
    if cfg.default_provider == "offline":
        return "offline"
    return provider_for(model, cfg)


def _unreachable(api_base: str) -> str | None:
    """None when something listens at `api_base`'s host:port (checked from this machine), else why not."""
    import socket
    from urllib.parse import urlparse

    url = urlparse(api_base if "://" in api_base else f"http://{api_base}")
    host, port = url.hostname or "127.0.0.1", url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=REACH_SECONDS):
            return None
    except OSError as exc:
        return "nothing is listening" if isinstance(exc, ConnectionRefusedError) else str(exc) or type(exc).__name__


def announce_agents(models: Any = (), *, flag: str = "--models") -> None:
    """The one rule for every command that runs agents (write, discuss, notes ask, interview, study...): call it
    before anything starts.

    - the same model id given twice is refused (one line, exit 2);
    - profile `offline`: the first line says the deterministic test double answers, whatever ids were given
      (they are labels; a provider *name* such as `ollama` still runs that provider, and says so);
    - a self-hosted provider (ollama, a local OpenAI-compatible server) that nothing answers at its address is
      one line and exit 2, before the run starts — not three failed calls with tracebacks.
    Hosted APIs are not probed (their keys and reachability are checked by `colloquy models check`)."""
    from activities.llm.config import ConfigError, current_config

    ids = [m.strip() for m in (models.split(",") if isinstance(models, str) else models) if m and m.strip()]
    twice = duplicate_ids(ids)
    if twice:
        err_console.print(f"[red]error:[/red] {flag} names {', '.join(repr(m) for m in twice)} more than once: give "
                          "each model once (each id is one agent)", soft_wrap=True, highlight=False)
        raise typer.Exit(2)
    try:
        cfg = current_config()
    except ConfigError as exc:
        err_console.print(f"[red]error:[/red] LLM settings: {exc}", soft_wrap=True, highlight=False)
        raise typer.Exit(2) from None
    providers = {m: _provider_of(m, cfg) for m in ids} or {"": cfg.default_provider}
    real = sorted({p for p in providers.values() if p != "offline"})
    if cfg.profile == "offline" or cfg.default_provider == "offline":
        labels = [m for m, p in providers.items() if m and p == "offline"]
        where = next((s for s in reversed(cfg.source) if s.startswith(("COLLOQUY_", "file "))),
                     "no model configured")
        notes = ([f"model ids {', '.join(labels)} are labels only"] if labels else []) + \
            ([f"{', '.join(real)} named as a provider runs for real"] if real else []) + \
            [f"this shell's settings: {where}; workers started with other settings answer as theirs say"]
        console.print(f"[yellow]LLM profile offline: the deterministic offline test double answers every agent"
                      f"{' not named by a provider' if real else ''}, not a model ({'; '.join(notes)}). Real models: "
                      "COLLOQUY_PROFILE / colloquy.yaml (`colloquy models`).[/yellow]", soft_wrap=True,
                      highlight=False)
    for name in real:
        prov = cfg.providers.get(name)
        if prov is None or not prov.local or not prov.api_base:
            continue
        why = _unreachable(prov.api_base)
        if why is not None:
            hint = "start it (`ollama serve`)" if name == "ollama" else "start the server"
            err_console.print(f"[red]error:[/red] provider {name!r} is not reachable at {prov.api_base} ({why}, "
                              f"checked from this machine): {hint}, or choose other {flag}", soft_wrap=True,
                              highlight=False)
            raise typer.Exit(2)
