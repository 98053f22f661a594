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


def run(coro: Coroutine[Any, Any, T]) -> T:
    from core.temporal import TemporalConfigError

    try:
        return asyncio.run(coro)
    except (ConnectionError, TemporalConfigError) as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
