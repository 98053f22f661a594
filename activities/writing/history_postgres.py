"""The history DB on PostgreSQL (`COLLOQUY_HISTORY_DB=postgresql://user:pass@host:port/db`), psycopg 3.

Same tables and evaluation queries as the DuckDB file (activities/writing/history.py; both share
activities/writing/history_base.py), in Postgres' dialect:
DOUBLE PRECISION columns, ROUND over NUMERIC (cast back to DOUBLE PRECISION so both backends return floats),
SUM(BIGINT) cast back to BIGINT, `%s` parameters, DuckDB's NULLS LAST ordering made explicit, and DuckDB's
`strftime('%Y-%W')` week label (Monday-based week of the year, 00-53) computed the same way.

- One short-lived connection per call (autocommit; writes in one explicit transaction). Tables are created on
  the first write, under a transaction-level advisory lock so concurrent first writers do not collide.
- record_run takes an advisory lock per story, so two runs of one story number their iterations one after the
  other; a retried activity replaces its run's rows (idempotent per run).
- Readers set `default_transaction_read_only`; a database without the tables is "no run history yet".
- Connection failures name the URL with its password masked. Bad credentials, an unknown database or a
  malformed URL are configuration errors (non-retryable); anything else (refused, timed out) may be retried.
  Keep the password out of the URL with PGPASSWORD or ~/.pgpass if you prefer: libpq reads both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from temporalio.exceptions import ApplicationError

from activities.writing.history_base import (
    NOT_FORCED,
    SCHEMA,
    HistoryStore,
    HistoryUnavailable,
    NoHistoryYet,
    outcome,
    scored,
    scrub_secrets,
)

CONNECT_TIMEOUT_S = 10
SCHEMA_LOCK = 0x436F6C6C  # pg_advisory_xact_lock key for creating the tables ("Coll")

_ADD_COLUMN = re.compile(r"ALTER TABLE (\w+) ADD COLUMN IF NOT EXISTS (\w+) (\w+)")


def _postgres_ddl(ddl: str) -> str:
    """DuckDB's DDL in Postgres' dialect. An added column is added only when missing: ALTER TABLE takes an
    exclusive lock even when the column exists, which would deadlock concurrent writers."""
    m = _ADD_COLUMN.fullmatch(ddl.strip())
    if m:
        table, column, kind = m.groups()
        return (f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = '{table}' "
                f"AND column_name = '{column}' AND table_schema = current_schema()) THEN "
                f"ALTER TABLE {table} ADD COLUMN {column} {kind}; END IF; END $$")
    return re.sub(r"\bDOUBLE\b", "DOUBLE PRECISION", ddl)


POSTGRES_SCHEMA = [_postgres_ddl(ddl) for ddl in SCHEMA]


def _round(expr: str, digits: int) -> str:
    return f"CAST(ROUND(CAST({expr} AS NUMERIC), {digits}) AS DOUBLE PRECISION)"


# DuckDB's strftime(ts, '%W'): week of the year, weeks start on Monday, days before the first Monday are week 00.
_WEEK = ("TO_CHAR(started_at, 'YYYY') || '-' || LPAD(CAST(FLOOR((EXTRACT(DOY FROM started_at) + 7 "
         "- EXTRACT(ISODOW FROM started_at)) / 7) AS INTEGER)::TEXT, 2, '0')")

POSTGRES_QUERIES: dict[str, str] = {
    "agents": f"""
        SELECT target_agent AS agent, {_round("AVG(overall_score)", 2)} AS avg_score,
               {_round("AVG(hook_score)", 2)} AS hook, {_round("AVG(specifics_score)", 2)} AS specifics,
               {_round("AVG(voice_score)", 2)} AS voice, COUNT(DISTINCT run_id) AS runs
        FROM audit_scores WHERE kind = 'audit' GROUP BY target_agent ORDER BY avg_score DESC NULLS LAST, agent""",
    "agent_over_time": f"""
        SELECT r.run_id, r.started_at, {_round("AVG(a.overall_score)", 2)} AS avg_score,
               {_round("AVG(a.hook_score)", 2)} AS avg_hook, {_round("AVG(a.specifics_score)", 2)} AS avg_specifics
        FROM audit_scores a JOIN runs r ON a.run_id = r.run_id
        WHERE a.target_agent = %s AND a.kind = 'audit' GROUP BY r.run_id, r.started_at ORDER BY r.started_at""",
    "costs": f"""
        SELECT agent, COUNT(*) AS invocations, CAST(SUM(total_tokens) AS BIGINT) AS total_tokens,
               {_round("SUM(cost_usd)", 6)} AS total_cost, {_round("AVG(cost_usd)", 6)} AS avg_cost_per_invocation
        FROM invocations GROUP BY agent ORDER BY total_cost DESC NULLS LAST, agent""",
    "best_for_task": f"""
        SELECT i.agent, {_round("AVG(a.overall_score)", 2)} AS avg_score, COUNT(*) AS sample_size
        FROM invocations i JOIN audit_scores a ON i.run_id = a.run_id AND i.agent = a.target_agent
        WHERE i.state = %s AND i.success AND a.kind = 'audit'
        GROUP BY i.agent ORDER BY avg_score DESC NULLS LAST, i.agent""",
    "trend": f"""
        SELECT r.run_id, r.story, r.started_at, {outcome("r")} AS status,
               {scored("r", "r.final_score")} AS final_score, {_round("r.total_cost_usd", 6)} AS total_cost_usd,
               r.total_tokens
        FROM runs r ORDER BY r.started_at, r.run_id""",
    "post": f"""
        SELECT p.iteration, r.started_at, {scored("r", "p.final_score")} AS final_score,
               {_round("p.total_cost_usd", 6)} AS total_cost_usd, p.improvements, p.run_id, {outcome("r")} AS status
        FROM post_iterations p JOIN runs r ON p.run_id = r.run_id WHERE p.story = %s AND p.iteration IS NOT NULL
             AND {NOT_FORCED}
        ORDER BY p.iteration""",
    "post_all": f"""
        SELECT CASE WHEN {NOT_FORCED} THEN p.iteration END AS iteration, r.started_at,
               {scored("r", "p.final_score")} AS final_score, {_round("p.total_cost_usd", 6)} AS total_cost_usd,
               p.improvements, p.run_id, {outcome("r")} AS status
        FROM post_iterations p JOIN runs r ON p.run_id = r.run_id WHERE p.story = %s
        ORDER BY r.started_at, p.run_id""",
    "weekly": f"""
        SELECT {_WEEK} AS week, COUNT(*) AS runs, {_round("AVG(final_score)", 2)} AS avg_quality,
               {_round("SUM(total_cost_usd)", 6)} AS total_cost, CAST(SUM(total_tokens) AS BIGINT) AS total_tokens
        FROM runs r WHERE r.status = 'complete' AND NOT COALESCE(r.forced, FALSE) GROUP BY week ORDER BY week""",
}

# libpq messages that no retry will fix: credentials, a missing database or role, a malformed URL.
_PERMANENT = re.compile(r"authentication failed|no password supplied|does not exist|invalid|missing \"=\"|"
                        r"unsupported|permission denied|not permitted|no pg_hba\.conf entry", re.IGNORECASE)


class PostgresHistoryStore(HistoryStore):
    """The networked twin: the same tables and queries in a PostgreSQL database named by a libpq URL."""

    backend = "postgres"
    queries = POSTGRES_QUERIES

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s")

    def _open(self) -> Any:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - a declared dependency
            raise ApplicationError("Postgres history needs psycopg: pip install 'psycopg[binary]>=3.2'",
                                   type="ConfigError", non_retryable=True) from exc
        try:
            if "connect_timeout" in self.location:  # the URL's own setting wins
                return psycopg.connect(self.location, autocommit=True)
            return psycopg.connect(self.location, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        except psycopg.Error as exc:
            reason = scrub_secrets(" ".join(str(exc).split()), self.location)
            message = f"cannot connect to the history DB {self.display}: {reason}"
        # raised outside the except block: the driver's exception is not chained (nothing of the URL travels)
        if _PERMANENT.search(reason):
            raise ApplicationError(message, type="ConfigError", non_retryable=True)
        raise HistoryUnavailable(message)

    @contextmanager
    def connect(self, read_only: bool = False) -> Iterator[Any]:
        conn = self._open()
        try:
            if read_only:
                conn.execute("SET default_transaction_read_only = on")
                if conn.execute("SELECT to_regclass('runs') IS NULL").fetchone()[0]:
                    raise NoHistoryYet(f"no run history yet at {self.display} (run `colloquy write` first)")
            else:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", [SCHEMA_LOCK])
                    for ddl in POSTGRES_SCHEMA:
                        conn.execute(ddl)
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _transaction(self, conn: Any, story: str) -> Iterator[None]:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"colloquy.history.story:{story}"])
            yield

    def _executemany(self, conn: Any, sql: str, rows: list[list[Any]]) -> None:
        with conn.cursor() as cur:
            cur.executemany(sql, rows)

