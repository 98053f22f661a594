"""The Postgres history backend against a real PostgreSQL (tests/unit/writing/postgres_server.py): backend choice
by location, the same answers as DuckDB, concurrency, and connection errors that never show the password."""

from __future__ import annotations

import threading
from datetime import timedelta

import psycopg
import pytest
from temporalio.exceptions import ApplicationError

from activities.writing.history import (
    QUERIES,
    DuckDBHistoryStore,
    HistoryStore,
    HistoryUnavailable,
    NoHistoryYet,
    RecordHistoryInput,
    redact_location,
    writing_record_history,
)
from activities.writing.history_postgres import POSTGRES_QUERIES, PostgresHistoryStore
from tests.unit.writing.postgres_server import PASSWORD, free_port
from tests.unit.writing.test_history_and_logs import T0, populate, record


def test_the_location_picks_the_backend_and_is_shown_without_its_password(tmp_path, monkeypatch):
    pg = HistoryStore("postgresql://ann:hunter2@db.example:5433/colloquy?sslmode=require")
    assert isinstance(pg, PostgresHistoryStore) and pg.backend == "postgres"
    assert pg.display == "postgresql://ann:***@db.example:5433/colloquy?sslmode=require"
    assert "hunter2" not in repr(pg)
    assert isinstance(HistoryStore("postgres://h/db"), PostgresHistoryStore)
    assert redact_location("postgresql://h/db?user=a&password=p%40ss&x=1") == "postgresql://h/db?user=a&password=***&x=1"
    assert redact_location("postgresql://ann@h/db") == "postgresql://ann@h/db"
    duck = HistoryStore(f"duckdb://{tmp_path}/h.duckdb")
    assert isinstance(duck, DuckDBHistoryStore) and duck.path == tmp_path / "h.duckdb"
    monkeypatch.setenv("COLLOQUY_HISTORY_DB", "postgresql://u:pw@127.0.0.1:1/x")
    assert isinstance(HistoryStore(), PostgresHistoryStore)
    assert set(POSTGRES_QUERIES) == set(QUERIES)


def test_both_backends_give_the_same_answers(tmp_path, postgres_url):
    duck, pg = populate(HistoryStore(str(tmp_path / "h.duckdb"))), populate(HistoryStore(postgres_url))
    for name in QUERIES:
        param = {"agent_over_time": "claude", "best_for_task": "draft", "post": "post_03",
                 "post_all": "post_03"}.get(name)
        d_cols, d_rows = duck.query(name, param)
        p_cols, p_rows = pg.query(name, param)
        assert p_cols == d_cols, name
        assert len(p_rows) == len(d_rows) and p_rows, name
        for d, p in zip(d_rows, p_rows, strict=True):
            assert [type(v) for v in p] == [type(v) for v in d], name  # floats stay floats, counts ints
            assert list(p) == [pytest.approx(v) if isinstance(v, float) else v for v in d], name
    _, weekly = pg.query("weekly")
    assert [r[0] for r in weekly] == ["2026-01", "2026-02"]  # DuckDB's %Y-%W (Monday weeks)
    assert pg.context("post_03", "r9") == duck.context("post_03", "r9")
    assert sorted(p.name for p in pg.export(tmp_path / "pg")) == sorted(p.name for p in duck.export(tmp_path / "d"))
    for name in ("runs.csv", "invocations.csv", "post_iterations.csv"):
        assert (tmp_path / "pg" / name).read_text() == (tmp_path / "d" / name).read_text()


def test_an_empty_database_has_no_history_yet(postgres_url, tmp_path):
    store = HistoryStore(postgres_url)
    with pytest.raises(NoHistoryYet, match=r"no run history yet at postgresql://postgres:\*\*\*@127\.0\.0\.1") as err:
        store.query("trend")
    assert PASSWORD not in str(err.value)
    assert store.context("post_03", "r1") is None
    with pytest.raises(FileNotFoundError):  # NoHistoryYet is one: the CLI's "run `colloquy write` first"
        store.export(tmp_path / "exports")


def test_concurrent_writers_create_the_tables_once_and_number_iterations_in_turn(postgres_url):
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            HistoryStore(postgres_url).record_run(
                record(f"c{i}", "post_09", T0 + timedelta(hours=i), {"claude": 8}, {"claude": 0.01}), "default")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    _, post = HistoryStore(postgres_url).query("post", "post_09")
    assert sorted(r[0] for r in post) == [1, 2, 3, 4, 5, 6]


def test_connection_failures_are_clear_and_never_show_the_password(postgres_server):
    unreachable = f"postgresql://postgres:{PASSWORD}@127.0.0.1:{free_port()}/x"
    with pytest.raises(HistoryUnavailable) as err:
        HistoryStore(unreachable).query("trend")
    text = str(err.value)
    assert text.startswith("cannot connect to the history DB postgresql://postgres:***@127.0.0.1:")
    assert "refused" in text.lower() and PASSWORD not in text and err.value.__cause__ is None

    wrong = postgres_server.url(password="not-the-password")
    with pytest.raises(ApplicationError) as err:
        HistoryStore(wrong).record_run(record("r1", "s", T0, {"a": 7}, {"a": 0.01}))
    assert err.value.type == "ConfigError" and err.value.non_retryable
    assert "password authentication failed" in str(err.value) and "not-the-password" not in str(err.value)

    with pytest.raises(ApplicationError, match='database "no_such_db" does not exist') as err:
        HistoryStore(postgres_server.url("no_such_db")).query("costs")
    assert err.value.non_retryable and PASSWORD not in str(err.value)

    with pytest.raises(ApplicationError, match="invalid integer value") as err:
        HistoryStore(f"postgresql://postgres:{PASSWORD}@127.0.0.1:notaport/x").query("costs")
    assert PASSWORD not in str(err.value)


async def test_the_activity_reads_the_url_from_its_environment_and_keeps_the_password_out(postgres_url,
                                                                                        monkeypatch):
    rec = record("a1", "post_05", T0, {"claude": 8, "gemini": 7}, {"claude": 0.02, "gemini": 0.01})
    inp = RecordHistoryInput(**rec.model_dump(), config_name="default")
    assert "postgres" not in inp.model_dump_json()  # nothing about where history goes travels in the payload
    monkeypatch.setenv("COLLOQUY_HISTORY_DB", postgres_url)
    assert await writing_record_history(inp) == 3
    assert await writing_record_history(inp) == 3  # a retried activity replaces the run
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT COUNT(*) FROM invocations").fetchone()[0] == 3
        assert conn.execute("SELECT run_id, story, config_name FROM runs").fetchall() == [
            ("a1", "post_05", "default")]

    monkeypatch.setenv("COLLOQUY_HISTORY_DB", f"postgresql://postgres:{PASSWORD}@127.0.0.1:{free_port()}/x")
    with pytest.raises(ApplicationError) as err:
        await writing_record_history(inp)
    assert err.value.type == "StorageRetry" and not err.value.non_retryable  # the server may come back
    assert "postgres:***@127.0.0.1" in str(err.value) and PASSWORD not in str(err.value)
    assert err.value.__cause__ is None
