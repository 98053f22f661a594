"""`colloquy history` — the writing pipeline's evaluation queries (seed 004 §17) over the history DB.

    colloquy history agents | costs | trend | weekly | post STORY | best STATE | agent NAME | export DIR

The DB is COLLOQUY_HISTORY_DB / --db: a DuckDB file (default `.data/history.duckdb`) or a PostgreSQL URL
(`postgresql://user:pass@host:port/db`; the password is never printed). Opened read-only.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from client.common import console, err_console

app = typer.Typer(help="Run history and cost analytics (writing pipeline).", no_args_is_help=True)

OfflineOpt = typer.Option(False, "--include-offline", help="Include runs answered by the offline test double "
                          "(left out by default: their scores and $0 costs are not comparable), as rows of their "
                          "own, labelled in a 'produced by' column.")
DbOpt = typer.Option(None, "--db", envvar="COLLOQUY_HISTORY_DB", help="History DB: a DuckDB file (default .data/history.duckdb) or a postgresql:// URL.")

TITLES = {
    "agents": "Agent Performance Comparison (cross-audit scores received)",
    "costs": "Cost by Agent (All Time)",
    "trend": "Quality Trend (runs by start time)",
    "weekly": "Weekly Summary (complete runs)",
    "post": "Post Iterations: {param}",
    "post_all": "Post Iterations: {param} (every run; aborted and forced ones without a number)",
    "best_for_task": "Best Agent for State {param}",
    "agent_over_time": "Agent {param} Over Time",
}


def print_table(table: Table) -> None:
    """A terminal gets a table fitted to its width; piped or redirected output gets every value in full."""
    if console.is_terminal:
        console.print(table)
    else:
        console.print(table, width=max(console.width, console.measure(table).maximum))


def _show(name: str, param: str | None, db: str | None, include_offline: bool = False) -> None:
    from activities.writing.history import HistoryStore

    try:
        store = HistoryStore(db)
        columns, rows = store.query(name, param, include_offline=include_offline)
        hidden = 0 if include_offline else store.offline_runs()
    except FileNotFoundError as exc:
        err_console.print(f"[yellow]{exc}[/yellow]")
        raise typer.Exit(4) from None  # not found: no history yet (client/errors.py)
    except Exception as exc:  # a locked or unreadable DB file, an unreachable server (URL shown without password)
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    table = Table(*columns, title=escape(TITLES[name].format(param=param)))
    for row in rows:  # values as text, never markup (the offline label is in square brackets)
        table.add_row(*[escape(_fmt(v)) for v in row])
    print_table(table)
    if hidden:
        what = "no rows from real runs: " if not rows else ""
        console.print(f"{what}{hidden} offline run(s) (answered by the test double) are hidden; add "
                      "--include-offline to include them", soft_wrap=True)
    elif not rows:
        console.print("(no rows yet)")
    if name.startswith("post") and len(rows) >= 2 and rows[0][2] is not None and rows[-1][2] is not None:
        delta = rows[-1][2] - rows[0][2]
        console.print(f"Trend: {delta:+.1f} score over {len(rows)} iterations")


def _fmt(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if abs(value) < 1 else f"{value:.2f}"
    return str(value)


@app.command("agents")
def agents(db: str | None = DbOpt, include_offline: bool = OfflineOpt) -> None:
    """Agent comparison: average audit scores each model's drafts received (overall, hook, specifics, voice)."""
    _show("agents", None, db, include_offline)


@app.command("costs")
def costs(db: str | None = DbOpt, include_offline: bool = OfflineOpt) -> None:
    """Invocations, tokens and cost by agent (model) across all runs."""
    _show("costs", None, db, include_offline)


@app.command("trend")
def trend(db: str | None = DbOpt, include_offline: bool = OfflineOpt) -> None:
    """Final score and cost per run over time."""
    _show("trend", None, db, include_offline)


@app.command("weekly")
def weekly(db: str | None = DbOpt, include_offline: bool = OfflineOpt) -> None:
    """Weekly runs, average quality, cost and tokens (complete runs)."""
    _show("weekly", None, db, include_offline)


@app.command("post")
def post(story: str = typer.Argument(..., help="The story name (e.g. post_03)."), db: str | None = DbOpt,
         include_offline: bool = OfflineOpt,
         all_runs: bool = typer.Option(False, "--all", help="Also list aborted (halted/failed) and forced runs, "
                                       "without a number or a score.")) -> None:
    """Iterations of one story: score, cost, what changed and each run's status (aborted and forced runs are
    not iterations and show no score; --all lists them too)."""
    _show("post_all" if all_runs else "post", story, db, include_offline)


@app.command("best")
def best(state: str = typer.Argument("draft", help="The state (task) to rank agents for."),
         db: str | None = DbOpt, include_offline: bool = OfflineOpt) -> None:
    """Which agent performs best for a state (by the audit scores its outputs received)."""
    _show("best_for_task", state, db, include_offline)


@app.command("agent")
def agent(name: str = typer.Argument(..., help="A model id."), db: str | None = DbOpt,
          include_offline: bool = OfflineOpt) -> None:
    """One agent's average scores per run over time."""
    _show("agent_over_time", name, db, include_offline)


@app.command("export")
def export(directory: Path = typer.Argument(..., help="Where to write <table>.csv and <table>.json."),
           db: str | None = DbOpt) -> None:
    """Export every history table to CSV and JSON."""
    from activities.writing.history import HistoryStore

    try:
        files = HistoryStore(db).export(directory)
    except FileNotFoundError as exc:
        err_console.print(f"[yellow]{exc}[/yellow]")
        raise typer.Exit(4) from None  # not found: no history yet (client/errors.py)
    except Exception as exc:  # an unreadable DB, an unreachable server (URL shown without password)
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    for path in files:
        console.print(str(path))
