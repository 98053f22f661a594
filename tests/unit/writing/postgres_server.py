"""A real, throwaway PostgreSQL server for the history tests (the Postgres backend of the writing history DB).

`postgres_server()` starts one server per test session (initdb into a temp dir, `pg_ctl start` bound to
127.0.0.1 on a free port, unix socket in the temp dir, fsync off) and `fresh_database(server)` gives each test
its own database URL. As root (initdb refuses to run as root) the server runs as the `postgres` OS user via
`runuser`. The superuser has a password (scram over TCP), so the tests see real authentication — and can check
that the password never shows up in messages. The binaries are found under /usr/lib/postgresql/*/bin (or
COLLOQUY_PG_BIN); when they are missing the tests FAIL, never skip: `.ci/run` installs the Debian package
`postgresql`.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

PASSWORD = "pg-s3cret-colloquy"
MISSING = ("PostgreSQL server binaries not found: .ci/run installs the Debian package postgresql "
           "(looked for initdb/pg_ctl in {where})")


@dataclass
class PostgresServer:
    bin_dir: Path
    root: Path
    port: int
    run_as: list[str]

    def url(self, database: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://postgres:{password}@127.0.0.1:{self.port}/{database}"

    def pg_ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.run_as, str(self.bin_dir / "pg_ctl"), "-D", str(self.root / "data"), *args],
                              capture_output=True, text=True, timeout=60, check=check)


def find_bin_dir() -> Path:
    candidates = [os.environ["COLLOQUY_PG_BIN"]] if os.environ.get("COLLOQUY_PG_BIN") else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name)
                         if Path(p).parent.name.isdigit() else 0, reverse=True)
    for candidate in candidates:
        if all((Path(candidate) / b).is_file() for b in ("initdb", "pg_ctl", "postgres")):
            return Path(candidate)
    pytest.fail(MISSING.format(where=", ".join(candidates) or "/usr/lib/postgresql/*/bin"), pytrace=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server() -> PostgresServer:
    bin_dir = find_bin_dir()
    root = Path(tempfile.mkdtemp(prefix="colloquy-pg-"))  # not under pytest's 0700 tmp dirs: postgres reads it
    run_as: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, user="postgres", group="postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    (root / "pwfile").write_text(PASSWORD + "\n")
    if run_as:
        shutil.chown(root / "pwfile", user="postgres", group="postgres")
    init = subprocess.run([*run_as, str(bin_dir / "initdb"), "-D", str(root / "data"), "-U", "postgres",
                           f"--pwfile={root / 'pwfile'}", "--auth-local=trust", "--auth-host=scram-sha-256",
                           "-E", "UTF8", "--no-sync"], capture_output=True, text=True, timeout=120)
    if init.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"initdb failed ({init.returncode}): {init.stderr or init.stdout}", pytrace=False)
    server = PostgresServer(bin_dir, root, free_port(), run_as)
    options = (f"-c listen_addresses=127.0.0.1 -p {server.port} -k {root} -c fsync=off -c synchronous_commit=off "
               "-c full_page_writes=off")
    started = server.pg_ctl("-l", str(root / "server.log"), "-w", "-t", "30", "-o", options, "start", check=False)
    if started.returncode != 0:
        log = (root / "server.log").read_text(errors="replace") if (root / "server.log").exists() else ""
        stop_server(server)
        pytest.fail(f"pg_ctl start failed ({started.returncode}): {started.stderr}\n{log[-2000:]}", pytrace=False)
    return server


def stop_server(server: PostgresServer) -> None:
    try:
        server.pg_ctl("-m", "immediate", "stop", check=False)
    finally:
        shutil.rmtree(server.root, ignore_errors=True)


_shared: dict[str, object] = {"server": None, "users": 0}


def acquire() -> PostgresServer:
    """The session's server (started on first use); pair every acquire() with release()."""
    if _shared["server"] is None:
        _shared["server"] = server = start_server()
        atexit.register(_stop_if_left, server)  # an interrupted session still stops its server
    _shared["users"] = int(_shared["users"]) + 1  # type: ignore[call-overload]
    return _shared["server"]  # type: ignore[return-value]


def release() -> None:
    _shared["users"] = int(_shared["users"]) - 1  # type: ignore[call-overload]
    if _shared["users"] == 0 and _shared["server"] is not None:
        server, _shared["server"] = _shared["server"], None
        stop_server(server)  # type: ignore[arg-type]


def _stop_if_left(server: PostgresServer) -> None:
    if server.root.exists():
        stop_server(server)


def fresh_database(server: PostgresServer) -> str:
    """A new, empty database on the server; returns its URL (with the password)."""
    import psycopg

    name = f"history_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server.url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.url(name)
