"""`colloquy notes` commands."""

import typer

app = typer.Typer(help="Personal notes: log entries and ask questions about them (query pipeline).", no_args_is_help=True)
