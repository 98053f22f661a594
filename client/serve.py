"""`colloquy serve`: run Colloquy's HTTP app (client/webapp.py: the codec server for the Temporal Web UI and
CLI, and later other features' pages and APIs) on 127.0.0.1, protected by a token.

aiohttp is imported only when the command runs, so other `colloquy` commands start as fast as before.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from core.codec import KEYS_FILE_ENV, SERVE_PORT_ENV, KeyringError, serve_port

if TYPE_CHECKING:
    from aiohttp import web

TOKEN_ENV = "COLLOQUY_SERVE_TOKEN"


def default_origins(ui_port: int | None = None) -> list[str]:
    """The embedded server's Web UI (the port this data dir's server last ran its UI on, else 8233)."""
    if ui_port is None:
        from core.server import DevServer

        ui_port = DevServer.remembered().ui_port
    return [f"http://127.0.0.1:{ui_port}", f"http://localhost:{ui_port}"]


async def _run(app: web.Application, host: str, port: int, ready: Callable[[], None]) -> None:
    from aiohttp import web

    runner = web.AppRunner(app, access_log=None)  # no access log: nothing about requests reaches a log
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
        ready()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()


def serve(
    host: str = typer.Option("127.0.0.1", envvar="COLLOQUY_SERVE_HOST",
                             help="Address to bind (keep 127.0.0.1 unless behind a TLS proxy)."),
    port: int | None = typer.Option(None, help=f"Port (default {SERVE_PORT_ENV}, else 8234).", show_default=False),
    origin: list[str] = typer.Option(None, "--origin", help="A Web UI origin allowed by CORS (repeatable; default "
                                     "the embedded server's UI, http://127.0.0.1:8233 and http://localhost:8233)."),
    ui_port: int | None = typer.Option(None, help="The embedded Web UI's port, for the default origins."),
) -> None:
    """Serve Colloquy's HTTP endpoints: the codec server (/codec) for the Temporal Web UI and CLI.

    Needs COLLOQUY_CODEC_KEYS_FILE (the keys that decrypt) and a token: COLLOQUY_SERVE_TOKEN, or one is made and
    printed. Use it with `temporal workflow show ... --codec-endpoint http://127.0.0.1:8234/codec --codec-auth
    "Bearer <token>"`, or in the Web UI's codec settings after signing in at /login. Stops on Ctrl-C/SIGTERM."""
    from client.common import console, err_console
    from client.webapp import build_app
    from core.codec import load_codec

    port = port or serve_port()
    try:
        codec = load_codec()
    except KeyringError as exc:
        err_console.print(f"[red]error:[/red] payload encryption: {exc}", highlight=False)
        raise typer.Exit(2) from None
    token = os.environ.get(TOKEN_ENV, "").strip()
    generated = not token
    token = token or secrets.token_urlsafe(32)
    origins = list(origin or []) or default_origins(ui_port)
    app = build_app(token, codec, origins)
    base = f"http://{'[' + host + ']' if ':' in host else host}:{port}"

    def ready() -> None:
        console.print(f"Colloquy serving on {base} (codec endpoint {base}/codec)", highlight=False)
        if codec is None:
            err_console.print(f"[yellow]payload encryption is off[/yellow] ({KEYS_FILE_ENV} not set): /codec "
                              "answers 503", highlight=False)
        else:
            console.print(f"keys: {', '.join(codec.keyring.ids)} (newest encrypts)", highlight=False)
        if generated:
            console.print(f"token: {token}  (set {TOKEN_ENV} to choose it; it changes at every start)",
                          highlight=False)
        console.print(f'temporal CLI: --codec-endpoint {base}/codec --codec-auth "Bearer <token>"\n'
                      f"Web UI (CORS for {', '.join(origins)}): sign in once at {base}/login, then in the UI's "
                      f"codec settings use {base}/codec with cross-origin credentials", highlight=False)
        if host not in ("127.0.0.1", "localhost", "::1"):
            err_console.print(f"[yellow]warning:[/yellow] bound to {host} over plain HTTP: the token and decoded "
                              "payloads cross the network in clear; put TLS in front", highlight=False)

    try:
        asyncio.run(_run(app, host, port, ready))
    except OSError as exc:
        err_console.print(f"[red]error:[/red] cannot listen on {host}:{port}: {exc.strerror or exc}",
                          highlight=False)
        raise typer.Exit(2) from None  # a port in use: bad settings (client/errors.py)
