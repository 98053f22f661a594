"""Issue 36, item 1: a withdrawal erases the participant's words from every place Colloquy keeps them.

A study of two participants on a real dev server with a SQLite file (temp data dir), once with payload encryption
off and the local artifact folder, once with encryption on and the S3-compatible server (SeaweedFS). Both answer
two questions; P002 says a distinctive sentence, corrects it on the read-back door (the study's update), then
withdraws there (encrypted run: the researcher erases them, `colloquy study erase`); the researcher closes the
study. Afterwards neither P002's sentence nor their correction is found
anywhere — the artifact store (every object, decrypted where it can be), the researcher console, every export
(csv, xlsx, transcripts, qdpx), every run of every workflow's history (payloads decoded with the codec where a
key opens them, as `temporal workflow show` with the codec endpoint does) and the database file (SQLite's
secure_delete; with encryption on nothing there is plain) — while P001's sentence is found where it belongs (the
checks can see). The correction was in the study's own updates: the study continued in a fresh run and deleted
the earlier ones. Recorded histories pin patch study-erasure (tests/histories/study_erasure.json: the run that
erased; study_erasure_purge.json: the run that deleted it)."""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import socket
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from google.protobuf.message import Message
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.worker import Replayer

from activities.artifact_store import store
from client.interview.cli import RehearsalOptions, TranscriptAnswers, rehearse
from client.web.app import build_app
from client.web.interview.room import room_extension
from core.codec import KEYS_FILE_ENV, EncryptionCodec, Keyring
from core.server import DevServer
from core.settings import TemporalSettings
from core.temporal import connect
from models.study.workflow import (
    QUERY_PARTICIPANTS,
    UPDATE_CLOSE,
    UPDATE_MEMBER_CHECK,
    UPDATE_OPEN_LINK,
    CloseStudy,
    MemberCheck,
    OpenedLink,
    ParticipantView,
    StudyResult,
)
from tests.conftest import replay
from tests.e2e.study.test_cli import cli
from tests.workflows.study.helpers import invite, opening, start_study
from workers import registry
from workers.main import running_workers

pytestmark = pytest.mark.dev_server

RECORD = os.environ.get("COLLOQUY_RECORD_HISTORIES") == "1"
TOKEN = "researcher-token-for-tests"
SECRET = b"study-room-secret-for-tests"
KEPT = "Our pager rotation swapped weekends through a shared spreadsheet called the yellow ledger."
GONE = "I once silenced the billing alerts from a lighthouse in Cornwall during my honeymoon."
CORRECTED = "Actually it was a ferry to the Scilly Isles, and only the staging alerts."
ANSWERS = {"P001": [KEPT, "We wrote runbooks after every incident."],
           "P002": [GONE, "Nobody ever asked me about on-call before."]}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _payloads(msg: Message) -> Iterator[Payload]:
    """Every Payload inside a history event (fields, repeated fields, maps)."""
    if isinstance(msg, Payload):
        yield msg
        return
    for _, value in msg.ListFields():
        if hasattr(value, "ListFields"):
            yield from _payloads(value)
        elif hasattr(value, "keys") and hasattr(value, "values"):
            for v in value.values():
                if hasattr(v, "ListFields"):
                    yield from _payloads(v)
        elif isinstance(value, (str, bytes, int, float, bool)):
            continue
        else:
            for v in value:
                if hasattr(v, "ListFields"):
                    yield from _payloads(v)


async def _histories(client: Client, codec: EncryptionCodec | None) -> dict[str, bytes]:
    """workflow id/run id -> every event's bytes plus every payload decoded where a key opens it."""
    shown: dict[str, bytes] = {}
    from temporalio.service import RPCError, RPCStatusCode

    async for wf in client.list_workflows(""):
        try:
            events = (await client.get_workflow_handle(wf.id, run_id=wf.run_id).fetch_history()).events
        except RPCError as err:        # listed by visibility, deleted meanwhile
            if err.status == RPCStatusCode.NOT_FOUND:
                continue
            raise
        blob = b"".join(e.SerializeToString() for e in events)
        if codec is not None:
            decoded = await codec.decode_readable([p for e in events for p in _payloads(e)])
            blob += b"".join(p.SerializeToString() for p in decoded)
        shown[f"{wf.id}/{wf.run_id}"] = blob
    return shown


def _objects() -> dict[str, bytes]:
    """Every object of the artifact store, decrypted where a key opens it."""
    from temporalio.exceptions import ApplicationError

    s = store()
    backend = s.backend
    if hasattr(backend, "root"):
        keys = [p.relative_to(backend.root).as_posix() for p in backend.root.rglob("*") if p.is_file()]
    else:
        import obstore

        head = f"{backend.prefix}/"  # type: ignore[attr-defined]
        keys = [str(o["path"])[len(head):] for batch in obstore.list(backend._s3, prefix=head)  # type: ignore[attr-defined]
                for o in batch]
    found = {}
    for key in keys:
        blob = backend.read(key)
        try:
            found[key] = s._plain(blob, key)
        except ApplicationError:
            found[key] = blob
    return found


def _export_bytes(path: Path) -> bytes:
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
    out = b""
    for f in files:
        data = f.read_bytes()
        if data[:2] == b"PK":
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                data = b"".join(z.read(n) for n in z.namelist())
        out += data
    return out


async def _console(client: Client, interview_id: str) -> str:
    async def temporal() -> Client:
        return client

    runner = web.AppRunner(build_app(TOKEN, None, [], extensions=[room_extension(temporal, SECRET, poll_s=0.2)]),
                           shutdown_timeout=2)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        async with aiohttp.ClientSession() as http, http.get(
                f"http://127.0.0.1:{port}/api/interviews/{interview_id}/console",
                headers={"Authorization": f"Bearer {TOKEN}"}) as r:
            return f"{r.status} {await r.text()}"
    finally:
        await runner.cleanup()


async def _status(study, pid: str, want) -> ParticipantView:  # noqa: ANN001
    for _ in range(400):
        views = await study.query(QUERY_PARTICIPANTS, result_type=list[ParticipantView])
        p = next(v for v in views if v.participant_id == pid)
        if want(p):
            return p
        await asyncio.sleep(0.1)
    raise AssertionError(f"{pid}: {p}")


async def _record_first_run(client: Client, sid: str, run_id: str) -> None:
    from tests.conftest import HISTORIES

    for _ in range(400):
        history = await client.get_workflow_handle(sid, run_id=run_id).fetch_history()
        if history.events[-1].HasField("workflow_execution_continued_as_new_event_attributes"):
            (HISTORIES / "study_erasure.json").write_text(history.to_json())
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the study did not continue as new after the erasure")


async def _deleted(client: Client, workflow_id: str) -> None:
    """DeleteWorkflowExecution is carried out by the server in the background: wait until it is done."""
    from temporalio.service import RPCError, RPCStatusCode

    for _ in range(200):
        try:
            await client.get_workflow_handle(workflow_id).describe()
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:
                return
            raise
        await asyncio.sleep(0.1)
    raise AssertionError(f"{workflow_id} was not deleted")


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain-local", "encrypted-s3"])
async def test_a_withdrawal_leaves_the_sentence_nowhere(encrypted, tmp_path, monkeypatch, offline, request):
    if encrypted:
        keys = Keyring.generate().save(tmp_path / "keys" / "codec-keys.json")
        monkeypatch.setenv(KEYS_FILE_ENV, str(keys))
        for k, v in request.getfixturevalue("seaweed").env(prefix=f"erasure-{uuid.uuid4().hex[:6]}").items():
            monkeypatch.setenv(k, v)
    else:
        monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    data = tmp_path / "data"
    server = DevServer(data, port=_free_port(), ui_port=_free_port())
    await asyncio.to_thread(server.start, 60)
    sid = f"study-erasure-{'enc' if encrypted else 'plain'}" if RECORD else f"study-erasure-{uuid.uuid4().hex[:6]}"
    try:
        client = await connect(TemporalSettings.from_env(address=server.address))
        codec = client.data_converter.payload_codec
        assert isinstance(codec, EncryptionCodec) == encrypted
        async with running_workers(client) as queue:
            study = await start_study(client, queue, sid, quota=3, cycle_seconds=1, check_seconds=0.5)
            people = dict(await invite(study, 2))

            async def take_part(pid: str) -> str:
                token_hash = hashlib.sha256(people[pid].encode()).hexdigest()
                opened = await study.execute_update(UPDATE_OPEN_LINK, opening(token_hash), result_type=OpenedLink)
                await rehearse(client, opened.interview_id, TranscriptAnswers(ANSWERS[pid]),
                               RehearsalOptions(fresh_question_timeout=15, poll_seconds=0.1))
                await _status(study, pid, lambda p: p.status == "completed")
                return opened.interview_id

            kept_iid, gone_iid = await asyncio.gather(take_part("P001"), take_part("P002"))
            p002 = hashlib.sha256(people["P002"].encode()).hexdigest()
            await study.execute_update(UPDATE_MEMBER_CHECK, MemberCheck(        # their words in the study's history
                token_sha256=p002, action="correct", entry_id="rehearsal-t001-a", text=CORRECTED))
            first_run = (await study.describe()).run_id
            if encrypted:         # the researcher's delete (`colloquy study erase`), as the participant asked
                code, said = await cli("erase", sid, "P002", "--address", server.address)
                assert code == 0 and "P002: withdrawn" in said, said
            else:                 # the participant withdraws on their read-back page
                await study.execute_update(UPDATE_MEMBER_CHECK, MemberCheck(token_sha256=p002, action="withdraw"))
            if RECORD and not encrypted:   # the run with the erasure, caught before the next run deletes it
                await _record_first_run(client, sid, first_run)
            study = client.get_workflow_handle(sid, result_type=StudyResult)   # by id: its earlier runs are purged
            erased = await _status(study, "P002", lambda p: p.erased_at is not None)
            await _deleted(client, gone_iid)
            await study.execute_update(UPDATE_CLOSE, CloseStudy(reason="enough"))
            result = await study.result()
            console_kept, console_gone = await _console(client, kept_iid), await _console(client, gone_iid)
            exports = b""
            conn = ["--address", server.address, "--task-queue", queue]
            for fmt in ("csv", "xlsx", "qdpx", "transcripts"):
                code, said = await cli("export", sid, "--format", fmt, "--out", str(tmp_path / f"x.{fmt}"), *conn)
                assert code == 0, said
                exports += _export_bytes(tmp_path / f"x.{fmt}")
            histories = await _histories(client, codec if isinstance(codec, EncryptionCodec) else None)
            if encrypted:     # the study replays after the erasure, its children's results unreadable
                await Replayer(workflows=registry.workflows(), data_converter=client.data_converter
                               ).replay_workflow(await study.fetch_history())
            else:
                await replay(study, record_as="study_erasure_purge" if RECORD else None)
    finally:
        await asyncio.to_thread(server.stop)

    assert erased.status == "withdrawn" and result.completed == 1, (erased, result)
    gone, kept, corrected = GONE.encode(), KEPT.encode(), CORRECTED.encode()
    objects = _objects()
    assert [k for k, v in objects.items() if gone in v or corrected in v] == []
    assert [k for k, v in objects.items() if kept in v], "P001's transcript is readable: the check can see"
    assert not [k for k in objects if gone_iid in k], "nothing is left in P002's scopes"
    assert GONE not in console_gone and console_gone.startswith("404"), console_gone
    assert KEPT in console_kept, console_kept[:300]
    assert gone not in exports and corrected not in exports and kept in exports
    assert [k for k, v in histories.items() if gone in v or corrected in v] == []
    assert len([k for k in histories if k.startswith(f"{sid}/")]) == 1, "the study's earlier runs are deleted"
    assert [k for k, v in histories.items() if kept in v], "P001's history is readable: the check can see"
    assert not [k for k in histories if k.startswith(gone_iid)], "P002's interview executions are deleted"
    # the database file (and its WAL): deleted rows overwritten (secure_delete); encrypted, nothing is plain
    db = b"".join(p.read_bytes() for p in sorted(data.glob("temporal.db*")))
    assert sid.encode() in db and gone not in db and corrected not in db and (kept in db) != encrypted
    if encrypted:
        folder = Path(str(os.environ[KEYS_FILE_ENV]) + ".data-keys")
        assert len(list(folder.glob("dk-*.json"))) == 1 and len(list(folder.glob("dk-*.erased"))) == 1
