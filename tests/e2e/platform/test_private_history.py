"""Privacy end to end with encryption on (issue 21): a note with health details goes through the notes API of
`colloquy serve` (as a browser or script sends it) and an interview answer through the room, on a dev server, with
workers and clients that encrypt. Then the raw history — read with no keys, as the Temporal server, its database,
its Web UI and its logs hold it — is scanned: no word of the note or the answer is in any workflow id, search
attribute or memo, nor anywhere else in the raw events (payloads and summaries are ciphertext)."""

from __future__ import annotations

import json
import uuid

import pytest
from aiohttp.test_utils import TestClient, TestServer
from temporalio.client import Client

from client.interview.cli import start_interview, wait_for_state
from client.web.guard import CSRF_HEADER
from client.web.interview.sessions import room_path
from client.web.serve import build_serve_app
from core.codec import KEYS_FILE_ENV, EncryptionCodec, Keyring, data_converter
from models.interview.workflow import InterviewInput
from tests.workflows.interview.helpers import adaptive_plan
from tests.workflows.query.helpers import seed_notes

pytestmark = pytest.mark.dev_server

TOKEN = "private-history-token-for-tests"
SECRET = b"room-secret-for-tests"
NOTE = "Psychiatrist appointment: sertraline raised to 100mg, panic attacks twice this week"
ANSWER = "My divorce lawyer called during the incident and I cried in the stairwell"
WORDS = ["psychiatrist", "sertraline", "panic", "divorce", "lawyer", "cried", "stairwell"]


def _words_in(text: str) -> list[str]:
    lowered = text.lower()
    return [w for w in WORDS if w in lowered]


async def test_no_note_or_answer_words_in_the_raw_history(dev_env, worker, offline, tmp_path, monkeypatch):
    keys = Keyring.generate().save(tmp_path / "keys.json")
    monkeypatch.setenv(KEYS_FILE_ENV, str(keys))
    monkeypatch.setenv("COLLOQUY_ARTIFACT_DIR", str(tmp_path / "artifacts"))
    monkeypatch.setenv("COLLOQUY_NOTES_DIR", str(tmp_path))   # the worker's notes root (rules/paths.py)
    notes_dir = tmp_path / "notes"
    seed_notes(notes_dir)
    sealed = await Client.connect(dev_env.client.service_client.config.target_host,
                                  namespace=dev_env.client.namespace, data_converter=data_converter())
    assert isinstance(sealed.data_converter.payload_codec, EncryptionCodec)

    async def connect() -> Client:
        return sealed

    async with worker(sealed) as queue:
        wid = f"interview-{uuid.uuid4().hex[:8]}"
        handle = await start_interview(sealed, InterviewInput(topic="A conversation about work", plan=adaptive_plan(),
                                                              write_essay=False), wid, queue)
        await wait_for_state(handle, lambda s: s.status == "IN_PROGRESS", 60)
        app = build_serve_app(TOKEN, None, [], connect, SECRET, queue, "fitness", str(notes_dir))
        async with TestClient(TestServer(app, host="127.0.0.1")) as http:
            r = await http.post(f"{room_path(SECRET, wid)}/entry", json={"entry_id": "a1", "text": ANSWER},
                                headers={CSRF_HEADER: "page"})
            assert r.status == 200, await r.text()
            r = await http.post("/notes/input", json={"text": NOTE, "today": "2026-01-16"},
                                headers={"Authorization": f"Bearer {TOKEN}"})
            assert r.status in (200, 202), await r.text()
            note_id = (await r.json())["workflow_id"]
        await handle.terminate("test over")

    plain = dev_env.client                       # no keys: what the server and anyone reading it see
    for run_id in (wid, note_id):
        assert _words_in(run_id) == [], run_id
        described = await plain.get_workflow_handle(run_id).describe()
        attributes = {k.name: v for k, v in described.typed_search_attributes}
        assert _words_in(json.dumps(attributes, default=str)) == [], attributes
        memo = await described.memo()
        assert _words_in(json.dumps(memo, default=str)) == [], memo
        history = await plain.get_workflow_handle(run_id).fetch_history()
        raw = history.to_json()
        assert _words_in(raw) == [], f"{run_id}: {_words_in(raw)} in the raw history"
    async for listed in plain.list_workflows(f"WorkflowId = '{note_id}' OR WorkflowId = '{wid}'"):
        assert _words_in(listed.id) == [] and _words_in(json.dumps(
            {k.name: v for k, v in listed.typed_search_attributes}, default=str)) == []
