"""`colloquy keys new|list`: the payload-encryption key file (see core/codec.py). Key material is never printed."""

from __future__ import annotations

from pathlib import Path

import typer

from core.codec import KEYS_FILE_ENV, Keyring, KeyringError, default_keys_file, file_is_private

app = typer.Typer(help="Payload encryption keys (AES-256-GCM; the newest encrypts, every key decrypts).",
                  no_args_is_help=True)

FileOpt = typer.Option(None, "--file", help=f"Key file (default {KEYS_FILE_ENV}, else "
                       "~/.config/colloquy/codec-keys.json).", show_default=False)


@app.command("new")
def new(file: Path | None = FileOpt) -> None:
    """Add a new newest key (creating the file, mode 0600, if needed). Old keys stay, so everything they
    encrypted still decrypts; from now on new payloads use the new key (restart workers and `colloquy serve`)."""
    from client.common import console, err_console

    path = (file or default_keys_file()).expanduser()
    try:
        ring = Keyring.load(path).with_new_key() if path.exists() else Keyring.generate()
    except KeyringError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None
    ring.save(path)
    verb = "added" if len(ring.keys) > 1 else "created"
    console.print(f"{verb} key {ring.newest.id} in {path} ({len(ring.keys)} key(s); the newest encrypts)",
                  highlight=False)
    console.print(f"turn encryption on for workers, clients and `colloquy serve`: export {KEYS_FILE_ENV}={path}",
                  highlight=False)


@app.command("list")
def list_keys(file: Path | None = FileOpt) -> None:
    """List the key ids, oldest first (never the keys themselves)."""
    from client.common import console, err_console

    path = (file or default_keys_file()).expanduser()
    try:
        ring = Keyring.load(path)
    except KeyringError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None
    for key in ring.keys:
        mark = "  (newest: encrypts)" if key is ring.newest else ""
        console.print(f"{key.id}  created {key.created or '?'}{mark}", highlight=False)
    if not file_is_private(path):
        err_console.print(f"[yellow]warning:[/yellow] {path} is readable by others: chmod 600 {path}",
                          highlight=False)
