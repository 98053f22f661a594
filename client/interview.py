"""`colloquy interview` commands."""

import typer

app = typer.Typer(help="Run live interviews: start, join, watch, rehearse, essay, continue.", no_args_is_help=True)
