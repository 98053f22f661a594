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
