"""What both history backends share (activities/writing/history.py for DuckDB, history_postgres.py for
PostgreSQL): the seed's schema and evaluation queries, where the history lives (COLLOQUY_HISTORY_DB), how that
location is shown without its password, the errors, and `HistoryStore`, the interface and backend chooser.

Both backends import this module and nothing imports them from here: each backend registers itself when its
class is defined (`HistoryStore.__init_subclass__`), and `HistoryStore(location)` picks the registered backend
the location names. Import `activities.writing.history` (which imports both backends) to use the store.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, ClassVar

from core.settings import data_dir
from models.common import OFFLINE_LABEL
from models.writing.workflow import HistoryContext, RunRecord
from rules.writing.accounting import run_totals

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY, story TEXT, started_at TIMESTAMP, completed_at TIMESTAMP, status TEXT,
        duration_s DOUBLE, total_tokens BIGINT, total_cost_usd DOUBLE, final_post_path TEXT, final_score DOUBLE,
        models TEXT, config_name TEXT, forced BOOLEAN, reason TEXT)""",
    """CREATE TABLE IF NOT EXISTS invocations (
        run_id TEXT, seq INTEGER, agent TEXT, activity TEXT, state TEXT, persona TEXT, started_at TIMESTAMP,
        duration_s DOUBLE, success BOOLEAN, status TEXT, input_tokens BIGINT, output_tokens BIGINT,
        total_tokens BIGINT, cost_usd DOUBLE, output_word_count INTEGER, context_used_pct DOUBLE,
        PRIMARY KEY (run_id, seq))""",
    """CREATE TABLE IF NOT EXISTS audit_scores (
        run_id TEXT, auditor_agent TEXT, target_agent TEXT, state TEXT, kind TEXT, visit INTEGER,
        overall_score DOUBLE, hook_score DOUBLE, specifics_score DOUBLE, voice_score DOUBLE,
        structure_score DOUBLE, feedback TEXT)""",
    """CREATE TABLE IF NOT EXISTS post_iterations (
        story TEXT, run_id TEXT, iteration INTEGER, final_score DOUBLE, total_cost_usd DOUBLE, improvements TEXT,
        PRIMARY KEY (story, run_id))""",
    # added later (existing files and databases are migrated in place): where the answers came from, and the
    # run's status beside its post iteration
    "ALTER TABLE runs ADD COLUMN IF NOT EXISTS profile TEXT",
    "ALTER TABLE post_iterations ADD COLUMN IF NOT EXISTS status TEXT",
    # and per row: whether the offline test double wrote it (the call's mark; NULL for rows recorded before)
    "ALTER TABLE invocations ADD COLUMN IF NOT EXISTS offline BOOLEAN",
    "ALTER TABLE audit_scores ADD COLUMN IF NOT EXISTS offline BOOLEAN",
]
# Analytics leave out runs answered by the offline test double unless asked (`include_offline`): their scores
# and $0 costs are not comparable with real models'. Runs recorded before profiles existed count as real.
OFFLINE_PROFILE = "offline"
COMPLETE = ("complete", "complete_below_floor")
# Shown in both dialects: a score only for a run that ended with its post (an aborted, halted or `forced` run
# shows none, also when an older version recorded one), and a forced completion labelled apart from a complete one.
_DONE = "status IN ('complete', 'complete_below_floor')"


def scored(alias: str, score: str) -> str:
    return f"CASE WHEN {alias}.{_DONE} THEN {score} END"


def outcome(alias: str) -> str:
    return (f"CASE WHEN {alias}.forced AND {alias}.{_DONE} THEN {alias}.status || ' (forced)' "
            f"ELSE {alias}.status END")


NOT_FORCED = "NOT COALESCE(r.forced, FALSE)"
_TABLE_REF = re.compile(r"\b(FROM|JOIN)\s+(runs|invocations|audit_scores|post_iterations)\b"
                        r"(?:\s+(?!WHERE\b|GROUP\b|ORDER\b|JOIN\b|ON\b|LIMIT\b)([a-z]\w*))?", re.IGNORECASE)


def without_offline(sql: str, offline: bool = False) -> str:
    """The query with every history table narrowed to runs that were not answered by the offline test double
    (`offline`: to the runs it answered, and to nothing else) — a pure text rewrite valid in both dialects."""
    where = f"profile = '{OFFLINE_PROFILE}'" if offline else f"profile IS DISTINCT FROM '{OFFLINE_PROFILE}'"
    real = f"SELECT run_id FROM runs WHERE {where}"

    def sub(m: re.Match[str]) -> str:
        keyword, table, alias = m.group(1), m.group(2), m.group(3) or m.group(2)
        if table == "runs":
            return f"{keyword} (SELECT * FROM runs WHERE {where}) {alias}"
        return f"{keyword} (SELECT * FROM {table} WHERE run_id IN ({real})) {alias}"

    return _TABLE_REF.sub(sub, sql)


PRODUCED_BY = "produced by"  # the column `--include-offline` adds: who wrote each row's scores and words
REAL_MODELS = "models"


TABLES = ("runs", "invocations", "audit_scores", "post_iterations")
INVOCATION_COLUMNS = ("run_id, seq, agent, activity, state, persona, started_at, duration_s, success, status, "
                      "input_tokens, output_tokens, total_tokens, cost_usd, output_word_count, context_used_pct, "
                      "offline")
AUDIT_COLUMNS = ("run_id, auditor_agent, target_agent, state, kind, visit, overall_score, hook_score, "
                 "specifics_score, voice_score, structure_score, feedback, offline")

# The evaluation queries in DuckDB's dialect (`?` parameters); history_postgres.POSTGRES_QUERIES is the twin.
QUERIES: dict[str, str] = {
    # seed eval-agents: agent comparison from the scores other models gave its drafts
    "agents": """
        SELECT target_agent AS agent, ROUND(AVG(overall_score), 2) AS avg_score, ROUND(AVG(hook_score), 2) AS hook,
               ROUND(AVG(specifics_score), 2) AS specifics, ROUND(AVG(voice_score), 2) AS voice,
               COUNT(DISTINCT run_id) AS runs
        FROM audit_scores WHERE kind = 'audit' GROUP BY target_agent ORDER BY avg_score DESC, agent""",
    "agent_over_time": """
        SELECT r.run_id, r.started_at, ROUND(AVG(a.overall_score), 2) AS avg_score,
               ROUND(AVG(a.hook_score), 2) AS avg_hook, ROUND(AVG(a.specifics_score), 2) AS avg_specifics
        FROM audit_scores a JOIN runs r ON a.run_id = r.run_id
        WHERE a.target_agent = ? AND a.kind = 'audit' GROUP BY r.run_id, r.started_at ORDER BY r.started_at""",
    "costs": """
        SELECT agent, COUNT(*) AS invocations, SUM(total_tokens) AS total_tokens,
               ROUND(SUM(cost_usd), 6) AS total_cost, ROUND(AVG(cost_usd), 6) AS avg_cost_per_invocation
        FROM invocations GROUP BY agent ORDER BY total_cost DESC, agent""",
    "best_for_task": """
        SELECT i.agent, ROUND(AVG(a.overall_score), 2) AS avg_score, COUNT(*) AS sample_size
        FROM invocations i JOIN audit_scores a ON i.run_id = a.run_id AND i.agent = a.target_agent
        WHERE i.state = ? AND i.success AND a.kind = 'audit'
        GROUP BY i.agent ORDER BY avg_score DESC, i.agent""",
    "trend": f"""
        SELECT r.run_id, r.story, r.started_at, {outcome("r")} AS status,
               {scored("r", "r.final_score")} AS final_score, ROUND(r.total_cost_usd, 6) AS total_cost_usd,
               r.total_tokens
        FROM runs r ORDER BY r.started_at, r.run_id""",
    "post": f"""
        SELECT p.iteration, r.started_at, {scored("r", "p.final_score")} AS final_score,
               ROUND(p.total_cost_usd, 6) AS total_cost_usd, p.improvements, p.run_id, {outcome("r")} AS status
        FROM post_iterations p JOIN runs r ON p.run_id = r.run_id WHERE p.story = ? AND p.iteration IS NOT NULL
             AND {NOT_FORCED}
        ORDER BY p.iteration""",
    # every run of the story, aborted ones included (no iteration number, status says why)
    "post_all": f"""
        SELECT CASE WHEN {NOT_FORCED} THEN p.iteration END AS iteration, r.started_at,
               {scored("r", "p.final_score")} AS final_score, ROUND(p.total_cost_usd, 6) AS total_cost_usd,
               p.improvements, p.run_id, {outcome("r")} AS status
        FROM post_iterations p JOIN runs r ON p.run_id = r.run_id WHERE p.story = ?
        ORDER BY r.started_at, p.run_id""",
    "weekly": """
        SELECT strftime(started_at, '%Y-%W') AS week, COUNT(*) AS runs, ROUND(AVG(final_score), 2) AS avg_quality,
               ROUND(SUM(total_cost_usd), 6) AS total_cost, SUM(total_tokens) AS total_tokens
        FROM runs r WHERE r.status = 'complete' AND NOT COALESCE(r.forced, FALSE) GROUP BY week ORDER BY week""",
}

# Written once with `?` parameters; each backend adapts the placeholder (`_sql`).
CONTEXT_SQL = (
    "SELECT COUNT(*), MAX(CASE WHEN status IN ('complete', 'complete_below_floor') THEN final_score END) FROM runs "
    "WHERE story = ? AND run_id <> ?",
    "SELECT AVG(total_cost_usd) FROM runs WHERE run_id <> ?",
    """SELECT target_agent, AVG(overall_score) FROM audit_scores
       WHERE kind = 'audit' AND run_id IN (
           SELECT run_id FROM runs WHERE run_id <> ? ORDER BY started_at DESC NULLS LAST LIMIT 10)
       GROUP BY target_agent""",
)

POSTGRES_SCHEMES = ("postgres://", "postgresql://")


def history_location() -> str:
    return os.environ.get("COLLOQUY_HISTORY_DB") or str(data_dir() / "history.duckdb")


def is_postgres_url(location: str) -> bool:
    return location.lower().startswith(POSTGRES_SCHEMES)


_URL_PASSWORD = re.compile(r"^(?P<head>[a-z]+://[^:@/?#]*:)(?P<password>[^@/?#]*)@", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"(?P<head>[?&]password=)(?P<password>[^&#]*)", re.IGNORECASE)


def redact_location(location: str) -> str:
    """The location as it may be shown: a URL's password (user:PASS@ or ?password=) replaced by ***."""
    masked = _URL_PASSWORD.sub(lambda m: m["head"] + "***@", location, count=1)
    return _QUERY_PASSWORD.sub(lambda m: m["head"] + "***", masked)


def scrub_secrets(text: str, location: str) -> str:
    """`text` with the location's password (raw and percent-decoded) masked, e.g. in a driver's error message."""
    from urllib.parse import unquote

    secrets = [m["password"] for m in (_URL_PASSWORD.match(location), *_QUERY_PASSWORD.finditer(location))
               if m and m["password"]]
    for secret in {s for raw in secrets for s in (raw, unquote(raw))}:
        text = text.replace(secret, "***")
    return text.replace(location, redact_location(location))


class NoHistoryYet(FileNotFoundError):
    """The history DB (file, or tables in the database) does not exist yet."""


class HistoryUnavailable(ConnectionError):
    """The history DB cannot be reached right now (worth a retry); the message names it without a password."""


class HistoryStore:
    """The history interface: record a run, run the named evaluation queries, export every table.

    `HistoryStore(location)` opens the backend the location names (default: COLLOQUY_HISTORY_DB, else the DuckDB
    file): `history.DuckDBHistoryStore` or `history_postgres.PostgresHistoryStore`. Backends provide `connect()`
    (a DB-API-like connection whose `execute` returns a cursor), `_sql` (placeholders) and the dialect's queries.
    """

    backend = "abstract"
    queries: dict[str, str] = QUERIES
    _backends: ClassVar[dict[str, type[HistoryStore]]] = {}  # backend name -> class, filled by the subclasses

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        HistoryStore._backends[cls.backend] = cls

    def __new__(cls, location: str | None = None) -> HistoryStore:
        if cls is HistoryStore:
            name = "postgres" if is_postgres_url(location or history_location()) else "duckdb"
            if name not in HistoryStore._backends:
                raise RuntimeError(f"the {name} history backend is not loaded: import activities.writing.history")
            cls = HistoryStore._backends[name]
        return super().__new__(cls)

    def __init__(self, location: str | None = None) -> None:
        self.location = location or history_location()

    @property
    def display(self) -> str:
        """The location without secrets, for messages."""
        return redact_location(self.location)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.display!r})"

    # ----------------------------------------------------------------------------------- backend hooks
    def connect(self, read_only: bool = False) -> AbstractContextManager[Any]:
        """A connection with the schema in place; read_only raises NoHistoryYet when there is nothing yet."""
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        return sql

    @contextmanager
    def _transaction(self, conn: Any, story: str) -> Iterator[None]:
        raise NotImplementedError
        yield

    def _executemany(self, conn: Any, sql: str, rows: list[list[Any]]) -> None:
        raise NotImplementedError

    # ---------------------------------------------------------------------------------------- writing
    def record_run(self, record: RunRecord, config_name: str = "", profile: str = "config") -> int:
        """Insert (or replace) one run with its invocations, audit/gate scores and post iteration. `profile` says
        where the answers came from (offline = the test double, local, config = real providers)."""
        s = record.state
        totals = run_totals(s.invocations)
        duration = (record.finished_at - s.started_at).total_seconds() if s.started_at else 0.0
        final_path = record.final_post.ref.uri if record.final_post else None
        q = self._sql
        with self.connect() as conn, self._transaction(conn, s.story_name):
            for table in ("invocations", "audit_scores", "post_iterations", "runs"):
                conn.execute(q(f"DELETE FROM {table} WHERE run_id = ?"), [s.run_id])
            conn.execute(q("INSERT INTO runs (run_id, story, started_at, completed_at, status, duration_s, "
                           "total_tokens, total_cost_usd, final_post_path, final_score, models, config_name, "
                           "forced, reason, profile) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"), [
                s.run_id, s.story_name, _naive(s.started_at), _naive(record.finished_at), s.status, duration,
                totals.total_tokens, totals.cost_usd, final_path, s.final_score, ",".join(s.models),
                config_name, record.forced, s.reason, profile])
            invocations = [[s.run_id, i.seq, i.model, i.agent, i.state, i.persona, _naive(i.started_at),
                            i.duration_s, i.success, i.status, i.input_tokens, i.output_tokens, i.total_tokens,
                            i.cost_usd, i.word_count, i.context_used_pct, i.offline] for i in s.invocations]
            if invocations:
                self._executemany(conn, q(f"INSERT INTO invocations ({INVOCATION_COLUMNS}) VALUES "
                                          "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"), invocations)
            rows = [[s.run_id, a.auditor, a.target, a.state, a.kind, a.visit, a.overall, a.hook, a.specifics,
                     a.voice, a.structure, a.feedback, a.offline] for a in s.audit_scores]
            rows += [[s.run_id, g.get("model"), g.get("target"), g["state"], "quality_gate", g["visit"],
                      g["score"], None, None, None, None, g.get("feedback", ""), bool(g.get("offline"))]
                     for g in s.gate_scores]
            if rows:
                self._executemany(conn, q(f"INSERT INTO audit_scores ({AUDIT_COLUMNS}) VALUES "
                                          "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"), rows)
            # only runs that ended with a post are iterations; aborted ones are kept without a number
            previous = conn.execute(q("SELECT COUNT(*) FROM post_iterations WHERE story = ? AND iteration IS NOT "
                                      "NULL"), [s.story_name]).fetchone()[0]
            improvements = "; ".join(s.human_feedback) or ("Initial" if previous == 0 else "Re-run")
            # a forced completion is kept apart (no iteration); a run that did not end with its post has no score
            iteration = previous + 1 if s.status in COMPLETE and not record.forced else None
            score = s.final_score if s.status in COMPLETE else None
            conn.execute(q("INSERT INTO post_iterations (story, run_id, iteration, final_score, total_cost_usd, "
                           "improvements, status) VALUES (?, ?, ?, ?, ?, ?, ?)"), [
                s.story_name, s.run_id, iteration, score, totals.cost_usd, improvements, s.status])
        return len(s.invocations)

    # ---------------------------------------------------------------------------------------- reading
    def query(self, name: str, param: str | None = None,
              include_offline: bool = False) -> tuple[list[str], list[tuple[Any, ...]]]:
        """The named query's columns and rows, over real runs only. `include_offline`: the runs the offline test
        double answered too, as rows of their own (never averaged with a model's) labelled in a `produced by`
        column; the real runs' rows first."""
        if name not in self.queries:
            raise KeyError(f"unknown history query {name!r}: one of {', '.join(self.queries)}")
        columns, rows = self._rows(without_offline(self.queries[name]), name, param)
        if not include_offline:
            return columns, rows
        _, doubled = self._rows(without_offline(self.queries[name], offline=True), name, param)
        return [*columns, PRODUCED_BY], [(*r, REAL_MODELS) for r in rows] + [(*r, OFFLINE_LABEL) for r in doubled]

    def _rows(self, sql: str, name: str, param: str | None) -> tuple[list[str], list[tuple[Any, ...]]]:
        needs = sql.count(self._sql("?"))
        if needs and not param:
            raise ValueError(f"query {name!r} needs a parameter")
        with self.connect(read_only=True) as conn:
            cur = conn.execute(sql, [param] * needs if needs else None)
            columns = [d[0] for d in cur.description]
            return columns, [tuple(r) for r in cur.fetchall()]

    def offline_runs(self) -> int:
        """How many runs the offline test double answered (the queries leave them out unless asked)."""
        with self.connect(read_only=True) as conn:
            row = conn.execute(f"SELECT COUNT(*) FROM runs WHERE profile = '{OFFLINE_PROFILE}'").fetchone()
        return int(row[0]) if row else 0

    def context(self, story: str, run_id: str) -> HistoryContext | None:
        """What the run summary compares this run with (§17 'Historical Context'); None without history."""
        q = self._sql
        try:
            with self.connect(read_only=True) as conn:
                count, best = conn.execute(q(CONTEXT_SQL[0]), [story, run_id]).fetchone()
                avg_cost = conn.execute(q(CONTEXT_SQL[1]), [run_id]).fetchone()[0]
                rows = conn.execute(q(CONTEXT_SQL[2]), [run_id]).fetchall()
        except NoHistoryYet:
            return None
        return HistoryContext(iteration=int(count) + 1, previous_best=best, average_cost=avg_cost,
                              agent_averages={a: float(v) for a, v in rows})

    def export(self, directory: Path) -> list[Path]:
        """Every table as CSV and JSON (seed eval-export)."""
        written = []
        with self.connect(read_only=True) as conn:
            directory.mkdir(parents=True, exist_ok=True)
            for table in TABLES:
                cur = conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2")
                columns = [d[0] for d in cur.description]
                rows = cur.fetchall()
                csv_path = directory / f"{table}.csv"
                with csv_path.open("w", newline="", encoding="utf-8") as fh:
                    writer = csv.writer(fh)
                    writer.writerow(columns)
                    writer.writerows(rows)
                json_path = directory / f"{table}.json"
                json_path.write_text(json.dumps([dict(zip(columns, r, strict=True)) for r in rows], default=str,
                                                indent=1), encoding="utf-8")
                written += [csv_path, json_path]
        return written



def _naive(value: Any) -> Any:
    return value.replace(tzinfo=None) if value is not None and getattr(value, "tzinfo", None) else value


