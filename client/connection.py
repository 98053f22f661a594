"""The Temporal connection options, declared once: every command that connects takes the same flags (address,
namespace, TLS with client certificate and CA, the API key's variable) by construction.

    @app.command("status")
    @connects
    def status_cmd(workflow_id: str, conn: Connection = NO_FLAGS) -> None:
        client = run(conn.connect())

`connects` adds each option of `OPTIONS` to the command's signature (what typer reads) and hands the command
one `Connection` built from them; the command never declares or spells them out itself. Settings still resolve
flags > TEMPORAL_* variables > the Temporal profile file (core/settings.py).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from client.common import (
    AddressOpt,
    ApiKeyEnvOpt,
    NamespaceOpt,
    TlsCaOpt,
    TlsCertOpt,
    TlsKeyOpt,
    TlsOpt,
    settings,
)

if TYPE_CHECKING:
    from temporalio.client import Client

    from core.settings import TemporalSettings

F = TypeVar("F", bound=Callable[..., Any])

#: Every connection option: (parameter name, its type, its typer option). The one place they are declared.
OPTIONS: list[tuple[str, Any, Any]] = [
    ("address", str | None, AddressOpt),
    ("namespace", str | None, NamespaceOpt),
    ("tls", bool, TlsOpt),
    ("tls_cert", str | None, TlsCertOpt),
    ("tls_key", str | None, TlsKeyOpt),
    ("tls_ca", str | None, TlsCaOpt),
    ("api_key_env", str | None, ApiKeyEnvOpt),
]
#: The flags they give on the command line (the CLI test checks every connecting command has exactly these).
FLAGS = ["--address", "--namespace", "--tls", "--tls-cert", "--tls-key", "--tls-ca", "--api-key-env"]


@dataclass(frozen=True)
class Connection:
    """The connection options one command was given (None / False: from the environment or the profile)."""

    address: str | None = None
    namespace: str | None = None
    tls: bool = False
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_ca: str | None = None
    api_key_env: str | None = None

    def settings(self) -> TemporalSettings:
        """The resolved settings (flags > TEMPORAL_* > profile); a broken profile exits with one line."""
        return settings(**asdict(self))

    async def connect(self) -> Client:
        from core.temporal import connect

        return await connect(self.settings())


#: The default of a command's `conn` parameter (replaced by `connects` with the flags given).
NO_FLAGS = Connection()


def connects(fn: F) -> F:
    """Give a typer command every connection option; it receives them as `conn: Connection`."""
    sig = inspect.signature(fn, eval_str=True)
    if "conn" not in sig.parameters:
        raise TypeError(f"{fn.__name__}: a command decorated with @connects takes `conn: Connection`")
    own = [p for p in sig.parameters.values() if p.name != "conn"]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=kind)
             for name, kind, option in OPTIONS]
    names = [name for name, _, _ in OPTIONS]

    @functools.wraps(fn)
    def command(*args: Any, **kwargs: Any) -> Any:
        flags = {name: kwargs.pop(name) for name in names if name in kwargs}
        return fn(*args, conn=Connection(**flags), **kwargs)

    params = own + added
    command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params} | {"return": sig.return_annotation}
    return command  # type: ignore[return-value]
