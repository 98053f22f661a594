"""`colloquy serve`: the one HTTP server of the project, on 127.0.0.1 — client/web/app.py (the codec server for
the Temporal Web UI and CLI, sign-in, health) plus, as extensions, the interview room and interviewer console
(client/web/interview/room.py) and the notes API under /notes (client/query/cli.py). Pages and APIs are protected by the token,
except the interviewee room, whose link carries its own key.

Temporal is connected on the first request that needs it, so the codec endpoints work without a cluster.

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

from client.connection import NO_FLAGS, Connection, connects
from core.codec import KEYS_FILE_ENV, SERVE_PORT_ENV, KeyringError, serve_port

if TYPE_CHECKING:
    from aiohttp import web

    from client.web.interview.sessions import Connect
    from core.codec import EncryptionCodec

TOKEN_ENV = "COLLOQUY_SERVE_TOKEN"


def default_origins(ui_port: int | None = None) -> list[str]:
    """The embedded server's Web UI (the port this data dir's server last ran its UI on, else 8233)."""
    if ui_port is None:
        from core.server import DevServer

        ui_port = DevServer.remembered().ui_port
    return [f"http://127.0.0.1:{ui_port}", f"http://localhost:{ui_port}"]


def build_serve_app(token: str, codec: EncryptionCodec | None, origins: list[str], temporal: Connect,
                    secret: bytes, task_queue: str, notes_app: str, notes_dir: str | None) -> web.Application:
    """Everything `colloquy serve` serves: the webapp (codec, sign-in), the interview room and console, study
    links and the researcher page (client/web/study/routes.py), and the notes API under /notes, all behind the one token (the room behind its own key)."""
    from client.query.cli import build_api
    from client.web.app import build_app
    from client.web.interview.room import room_extension
    from client.web.study.routes import study_extension
    from client.web.voice.room import voice_extension

    app = build_app(token, codec, origins, extensions=[room_extension(temporal, secret), voice_extension(),
                                                       study_extension(temporal, secret)])
    app.add_subapp("/notes", build_api(temporal, task_queue, notes_app, notes_dir))
    return app


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


@connects
def serve(
    host: str = typer.Option("127.0.0.1", envvar="COLLOQUY_SERVE_HOST",
                             help="Address to bind (keep 127.0.0.1 unless behind a TLS proxy)."),
    port: int | None = typer.Option(None, help=f"Port (default {SERVE_PORT_ENV}, else 8234).", show_default=False),
    origin: list[str] = typer.Option(None, "--origin", help="A Web UI origin allowed by CORS (repeatable; default "
                                     "the embedded server's UI, http://127.0.0.1:8233 and http://localhost:8233)."),
    ui_port: int | None = typer.Option(None, help="The embedded Web UI's port, for the default origins."),
    notes_app: str = typer.Option(os.environ.get("COLLOQUY_NOTES_APP", "fitness"), "--notes-app",
                                  help="Domain app of the /notes API (env COLLOQUY_NOTES_APP)."),
    notes_dir: str | None = typer.Option(None, "--notes-dir", help="Notes folder of the /notes API: a folder "
                                         "inside the worker's notes root (COLLOQUY_NOTES_DIR); default: the root."),
    task_queue: str = typer.Option("colloquy", envvar="COLLOQUY_TASK_QUEUE", help="Task queue of the workers "
                                   "(the /notes API starts workflows there)."),
    conn: Connection = NO_FLAGS,
) -> None:
    """Serve Colloquy's pages and APIs: the interview room (/room/ID/KEY, for the interviewee) and interviewer
    console (/console/ID), study links (/study/ID/join/TOKEN) and the researcher page (/studies/ID), the notes API (/notes/input, /notes/context), and the codec server (/codec).

    The token (COLLOQUY_SERVE_TOKEN, at least 16 characters, or one is made and printed) protects everything but
    the interviewee room, whose link carries a key of its own (`colloquy interview link ID` prints it). Sign in
    once at /login in a browser (a signed session cookie; sign out on /); pages act only for their own signed-in
    browser (cross-site requests are refused: docs/platform.md). Replicas behind a load balancer behave as one
    when they share COLLOQUY_SERVE_TOKEN, COLLOQUY_ROOM_SECRET (room links), the artifact store settings and the
    key file (docs/operations.md). Payload decoding needs COLLOQUY_CODEC_KEYS_FILE; use it with `temporal workflow show ...
    --codec-endpoint http://127.0.0.1:8234/codec --codec-auth "Bearer <token>"`. Stops on Ctrl-C/SIGTERM."""
    from client.artifacts import checked_store_settings
    from client.common import console, err_console
    from client.errors import CliError
    from client.web.guard import WeakTokenError, check_token
    from client.web.interview.sessions import LazyClient, load_secret
    from client.web.interview.updates import per_interview
    from client.web.voice.offered import table_source, unmeasured_model, voice_table
    from core.codec import load_codec
    from core.temporal import connect

    port = port or serve_port()
    try:
        codec = load_codec()
        store_text = checked_store_settings()
        per_interview()
        voice = voice_table()          # the measured table that decides where voice is offered (docs/voice.md)
    except KeyringError as exc:
        err_console.print(f"[red]error:[/red] payload encryption: {exc}", highlight=False)
        raise typer.Exit(2) from None
    except (CliError, ValueError) as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None
    token = os.environ.get(TOKEN_ENV, "").strip()
    generated = not token
    token = token or secrets.token_urlsafe(32)
    origins = list(origin or []) or default_origins(ui_port)
    temporal_settings = conn.settings()

    try:
        check_token(token)
    except WeakTokenError as exc:
        err_console.print(f"[red]error:[/red] {TOKEN_ENV}: {exc}", highlight=False)
        raise typer.Exit(2) from None
    app = build_serve_app(token, codec, origins, LazyClient(lambda: connect(temporal_settings)), load_secret(),
                          task_queue, notes_app, notes_dir)
    base = f"http://{'[' + host + ']' if ':' in host else host}:{port}"

    def ready() -> None:
        console.print(f"Colloquy serving on {base}: interview console {base}/console/<workflow id>, interviewee "
                      f"links from `colloquy interview link <workflow id>`, notes API {base}/notes/input, codec "
                      f"endpoint {base}/codec", highlight=False)
        console.print(f"artifacts: {store_text} (else read through a worker)", highlight=False)
        spoken = voice.offered_languages(list(dict.fromkeys(r.language for r in voice.rows)))
        console.print(f"voice offered in: {' '.join(spoken) or 'none'} (error rate at most {voice.threshold:.2f}; "
                      f"{table_source()}: {voice.model})", highlight=False)
        if unmeasured_model():
            err_console.print(f"[yellow]{unmeasured_model()}[/yellow]", highlight=False)
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
