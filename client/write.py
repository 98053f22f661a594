"""`colloquy write` commands."""

import typer

app = typer.Typer(help="Multi-model writing pipeline: drafts, audits, synthesis, approval.", no_args_is_help=True)
