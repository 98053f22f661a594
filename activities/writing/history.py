"""Run history and evaluation queries (§17): DuckDB by default, Postgres by URL, behind one interface.

`COLLOQUY_HISTORY_DB` (or `--db` in the CLI) picks the backend:
- a file path (or `duckdb://PATH`; default `.data/history.duckdb`): an embedded DuckDB file. Each connection is
  short-lived, so a CLI reader and a worker writer can take turns on the file (DuckDB allows one writing process
  at a time; the storage retry policy rides out a lock).
- `postgresql://user:pass@host:port/db` (or `postgres://`, any libpq URL): a PostgreSQL database
  (`activities/writing/history_postgres.py`, psycopg 3). Tables are created on the first write.

Tables follow the seed's schema: runs, invocations, audit_scores, post_iterations; the evaluation queries are the
same in both dialects (same names, columns and values). Writes are idempotent per run (a retried activity
replaces that run's rows in one transaction). The location is read from the worker's environment, never passed
in a workflow payload, and is only ever shown with its password masked (`redact_location`).

Modules: history_base.py (schema, queries, location, errors, the `HistoryStore` interface; imported by both
backends), this file (the DuckDB backend and the activity; the public entry point) and history_postgres.py.
The activity runs the synchronous DuckDB/psycopg work in a thread: the worker's event loop never waits on it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.writing.history_base import (
    COMPLETE,
    CONTEXT_SQL,
    OFFLINE_PROFILE,
    POSTGRES_SCHEMES,
    QUERIES,
    SCHEMA,
    TABLES,
    HistoryStore,
    HistoryUnavailable,
    NoHistoryYet,
    history_location,
    is_postgres_url,
    redact_location,
    scrub_secrets,
    without_offline,
)
from activities.writing.history_postgres import PostgresHistoryStore
from models.writing.workflow import RunRecord
from rules.writing.accounting import offline_run

__all__ = [
    "COMPLETE", "CONTEXT_SQL", "OFFLINE_PROFILE", "POSTGRES_SCHEMES", "QUERIES", "SCHEMA", "TABLES",
    "DuckDBHistoryStore", "HistoryStore", "HistoryUnavailable", "NoHistoryYet", "PostgresHistoryStore",
    "RecordHistoryInput", "current_profile", "history_location", "is_postgres_url", "redact_location",
    "scrub_secrets", "without_offline", "writing_record_history",
]


class DuckDBHistoryStore(HistoryStore):
    """The embedded default: one DuckDB file."""

    backend = "duckdb"

    def __init__(self, location: str | None = None) -> None:
        super().__init__(location)
        self.path = Path(self.location.removeprefix("duckdb://")).expanduser()

    @contextmanager
    def connect(self, read_only: bool = False) -> Iterator[Any]:
        import duckdb

        if read_only and not self.path.exists():
            raise NoHistoryYet(f"no run history yet at {self.path} (run `colloquy write` first)")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = duckdb.connect(str(self.path), read_only=read_only)
        try:
            if not read_only:
                for ddl in SCHEMA:
                    conn.execute(ddl)
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _transaction(self, conn: Any, story: str) -> Iterator[None]:
        conn.execute("BEGIN TRANSACTION")
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _executemany(self, conn: Any, sql: str, rows: list[list[Any]]) -> None:
        conn.executemany(sql, rows)


class RecordHistoryInput(RunRecord):
    """The run to record. Where to record it is the worker's COLLOQUY_HISTORY_DB, never part of the payload."""

    config_name: str = ""


def current_profile() -> str:
    """The worker's LLM profile: offline (the test double answers), local, or config (real providers)."""
    from activities.llm.config import current_config

    cfg = current_config()
    return OFFLINE_PROFILE if cfg.default_provider == "offline" else str(cfg.profile or "config")


@activity.defn(name="writing_record_history")
async def writing_record_history(inp: RecordHistoryInput) -> int:
    """Record the finished run in the history DB; returns the number of invocations written."""
    location = history_location()
    try:
        # a run any of whose calls the offline test double answered (its results say so) is recorded as offline
        profile = OFFLINE_PROFILE if offline_run(inp.state.invocations) else current_profile()
        return await asyncio.to_thread(HistoryStore(location).record_run, inp, inp.config_name, profile)
    except ApplicationError:
        raise
    except Exception as exc:  # a lock, a full disk, an unreachable server: retryable StorageError
        message = scrub_secrets(f"history DB {redact_location(location)}: {exc}", location)
        if is_postgres_url(location):  # the driver's exception stays out of the failure chain (history)
            raise ApplicationError(message, type="StorageRetry") from None
        raise ApplicationError(message, type="StorageRetry") from exc
