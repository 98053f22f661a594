"""`colloquy history` commands."""

import typer

app = typer.Typer(help="Run history and cost analytics (writing pipeline).", no_args_is_help=True)
