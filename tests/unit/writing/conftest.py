"""Writing unit-test fixtures: a real PostgreSQL server (session) and a fresh database per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.writing import postgres_server as pg


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[pg.PostgresServer]:
    server = pg.acquire()
    try:
        yield server
    finally:
        pg.release()


@pytest.fixture
def postgres_url(postgres_server) -> str:
    return pg.fresh_database(postgres_server)
