"""`colloquy discuss` commands."""

import typer

app = typer.Typer(help="Team discussion: a leader, researchers and critics explore a topic.", no_args_is_help=True)
