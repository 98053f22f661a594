"""The installed wheel, not the source tree: build it, install it into a fresh venv outside the repository, and run
one workflow of each pipeline through the installed `colloquy` command on the offline profile.

Offline and fast: the venv is made without pip and sees this interpreter's dependencies through a .pth file; only
the wheel is installed into it (--no-deps --no-index). Every command runs from an empty working directory with a
clean environment (no PYTHONPATH), so the package can only find its prompts, configs and domains as package data.
A throwaway dev server (in memory, 127.0.0.1, free port) and the worker are stopped at the end, even on failure.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import site
import socket
import subprocess
import sys
import sysconfig
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.server import dev_server_args, temporal_binary

pytestmark = [pytest.mark.drill, pytest.mark.dev_server]

ROOT = Path(__file__).resolve().parents[3]
# Not copied into the build tree: the wheel is built from sources only.
BUILD_IGNORE = shutil.ignore_patterns(".git", ".venv", ".data", "tests", "docs", "deploy", "build", "dist",
                                      "*.egg-info", "__pycache__", "*.pyc", ".*_cache")


def _run(cmd: list[str], timeout: float = 120, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)  # type: ignore[call-overload]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes], grace: float = 20) -> None:
    """SIGTERM the process group, then SIGKILL what is left."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with only the wheel installed; returns the venv folder."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=BUILD_IGNORE)
    built = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                  "-w", str(tmp / "dist"), str(src)], timeout=180)
    assert built.returncode == 0, f"building the wheel failed (the dev extra has setuptools>=77):\n{built.stderr}"
    [wheel] = (tmp / "dist").glob("colloquy-*.whl")

    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        check=True).stdout.strip())
    # The dependencies of this interpreter (a plain path entry: its .pth files, such as an editable install of
    # this repository, are not processed).
    deps = [p for p in dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"]]) if Path(p).is_dir()]
    (purelib / "_colloquy_test_deps.pth").write_text("".join(f"{p}\n" for p in deps))
    inst = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
                 str(wheel)], timeout=180)
    assert inst.returncode == 0, inst.stderr
    shutil.rmtree(src)  # nothing of the source tree is left to be found
    return venv


def clean_env(venv: Path, **extra: str) -> dict[str, str]:
    keep = {k: os.environ[k] for k in ("HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT") if k in os.environ}
    path = os.pathsep.join([str(venv / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    return {**keep, "PATH": path, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "COLLOQUY_PROFILE": "offline",
            "COLLOQUY_LOG_LEVEL": "WARNING", "COLUMNS": "200", "PYTHONDONTWRITEBYTECODE": "1", **extra}


@pytest.fixture
def server() -> Iterator[str]:
    """A dev server on 127.0.0.1 at a free port (in memory, headless); yields its address."""
    port = _free_port()
    proc = subprocess.Popen([temporal_binary(), "server", "start-dev",
                             *dev_server_args(None, port=port, ui=False)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, "the dev server exited"
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the dev server did not open its port"
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        _stop(proc, grace=10)


def test_installed_wheel_runs_every_pipeline(installed: Path, server: str, tmp_path: Path) -> None:
    venv = installed
    cwd = tmp_path / "run"
    cwd.mkdir()
    queue = f"wheel-{uuid.uuid4().hex[:6]}"
    env = clean_env(venv, TEMPORAL_ADDRESS=server, COLLOQUY_TASK_QUEUE=queue)
    colloquy = str(venv / "bin" / "colloquy")

    # The code and the data come from the venv, not from the repository.
    probe = _run([str(venv / "bin" / "python"), "-c", (
        "import workflows, core.resources as r, sys\n"
        "print(workflows.__file__)\n"
        "for p in r.DATA_PACKAGES: print(r.resource_dir(p))\n"
        "print(r.apps_dir() / 'fitness' / 'sample_notes')")], cwd=cwd, env=env, check=True)
    *paths, sample_notes = probe.stdout.split()
    for p in [*paths, sample_notes]:
        assert Path(p).resolve().is_relative_to(venv.resolve()), f"{p} is not in the installed package"
    assert not any(Path(p).resolve().is_relative_to(ROOT) for p in paths)

    log = tmp_path / "worker.log"
    with open(log, "wb") as log_file:
        worker = subprocess.Popen([colloquy, "worker"], cwd=cwd, env=env, stdout=log_file, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        def cli(*args: str) -> str:
            res = _run([colloquy, *args], cwd=cwd, env=env, timeout=120, stdin=subprocess.DEVNULL)
            assert res.returncode == 0, f"colloquy {' '.join(args)} → {res.returncode}\n{res.stdout}\n{res.stderr}" \
                                        f"\n--- worker log ---\n{log.read_text(errors='replace')[-3000:]}"
            print(f"=== colloquy {args[:2]}\n{res.stdout}")
            return res.stdout

        # interview: a short rehearsal from the built-in transcript (client/rehearsal), to the essay
        out = cli("interview", "rehearse", "Carrying the pager", "--transcript", "oncall", "--duration", "2m",
                  "--cycle-seconds", "1", "--pace", "0")
        closed = re.search(r"session (\w+) \([^)]*interviewer_closing\): (\d+) of \d+ answers", out)
        assert closed and int(closed.group(2)) >= 2, out  # how many fit the cycles depends on the machine's load
        wid = re.search(r"essay: essay\.md .* colloquy interview essay (\S+)", out)
        assert wid, out
        assert cli("interview", "essay", wid.group(1)).strip()  # read through the worker

        # query: import the example app's shipped sample notes, then ask (ROUTE reads domains/ and apps/fitness)
        out = cli("notes", "import", sample_notes, "--app", "fitness")
        assert re.search(r"\b10 new\b.* from 10 files", out), out
        out = cli("notes", "ask", "How did my bench press go?", "--app", "fitness", "--today", "2026-01-16")
        assert re.search(r"domains general_fitness, strength", out) and "evidence: 2026-01-" in out, out

        # writing: two writer models, the default config (configs/writing) and its personas (prompts/writing)
        story = cwd / "story.md"
        story.write_text("# A story\n\nThe pager went off at 2 a.m. and nobody answered.\n")
        out = cli("write", "start", str(story), "--models", "offline/a,offline/b", "--no-ask")
        assert "completed — ended at state 'complete'" in out and "history recorded" in out, out
        wid = re.search(r"colloquy write outputs (\S+) --show final", out)   # named; read through the worker
        assert wid and cli("write", "outputs", wid.group(1), "--show", "final").strip(), out

        # discussion: one round of the whole team, to a selected idea
        out = cli("discuss", "How should we run on-call?")
        assert "completed (selected)" in out, out
        wid = re.search(r"Transcript: transcript\.md — print it: colloquy discuss-report (\S+)", out)
        assert wid and cli("discuss-report", wid.group(1)).strip(), out
    finally:
        _stop(worker)
    assert {p.name for p in (cwd / ".data").iterdir()} >= {"artifacts", "notes", "history.duckdb"}
    assert not list(venv.rglob(".data")), "the installed package wrote into the venv"
