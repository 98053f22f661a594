"""Failures stay readable through the codec endpoint while encryption is on (issue 38, item 5): a workflow fails
(an activity's ApplicationError), the history the server keeps shows only the SDK's placeholder "Encoded failure"
and never the message, and every failure of the chain, its `encodedAttributes` sent to POST /codec/decode as the
Web UI and `temporal --codec-endpoint` send it, comes back as {"message", "stack_trace"} with its own message.

(The Temporal CLI's text views, `temporal workflow describe`, print the failure's `message` field itself, which
the codec protocol cannot rewrite: read failures with `-o json` or in the Web UI's event details: docs/platform.md.)
"""

from __future__ import annotations

import base64
import dataclasses
import json
import uuid
from datetime import timedelta

from aiohttp.test_utils import TestClient, TestServer
from google.protobuf import json_format
from temporalio import activity, workflow
from temporalio.api.failure.v1 import Failure
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from client.web.app import build_app
from core.codec import ENCODING, EncryptionCodec, Keyring
from core.converter import EncodedFailureConverter, colloquy_data_converter
from core.server import time_skipping_server_binary

SECRET = "the participant's employer is named in this error"
TOKEN = "codec-failure-token-for-tests"


@activity.defn(name="colloquy_test_boom")
async def boom() -> None:
    raise ApplicationError(SECRET, type="Boom", non_retryable=True)


@workflow.defn(name="ColloquyTestFails", sandboxed=False)
class Fails:
    @workflow.run
    async def run(self) -> None:
        await workflow.execute_activity(boom, start_to_close_timeout=timedelta(seconds=10))


def _chain(failure: Failure) -> list[Failure]:
    out = [failure]
    while out[-1].HasField("cause"):
        out.append(out[-1].cause)
    return out


async def test_a_failed_runs_messages_are_encrypted_in_history_and_decoded_by_the_codec_endpoint():
    codec = EncryptionCodec(Keyring.generate())
    converter = dataclasses.replace(colloquy_data_converter, payload_codec=codec,
                                    failure_converter_class=EncodedFailureConverter)
    env = await WorkflowEnvironment.start_time_skipping(test_server_existing_path=time_skipping_server_binary(),
                                                        data_converter=converter)
    try:
        async with Worker(env.client, task_queue="codec-failures", workflows=[Fails], activities=[boom],
                          workflow_runner=UnsandboxedWorkflowRunner()):
            handle = await env.client.start_workflow(Fails.run, id=f"fails-{uuid.uuid4().hex}",
                                                     task_queue="codec-failures")
            try:
                await handle.result()
                raise AssertionError("the run should have failed")
            except WorkflowFailureError as exc:  # the workers' own client decodes it
                assert SECRET in str(exc.cause.cause)
            history = await handle.fetch_history()
    finally:
        await env.shutdown()
    [failed] = [e for e in history.events if e.HasField("workflow_execution_failed_event_attributes")]
    chain = _chain(failed.workflow_execution_failed_event_attributes.failure)
    assert len(chain) == 2                                                  # ActivityError, then ApplicationError
    assert SECRET.encode() not in failed.SerializeToString()                # the server never saw the message
    for failure in chain:
        assert failure.message == "Encoded failure" and not failure.stack_trace
        assert failure.encoded_attributes.metadata["encoding"] == ENCODING

    http = TestClient(TestServer(build_app(TOKEN, codec), host="127.0.0.1"))
    await http.start_server()
    try:
        wire = [json.loads(json_format.MessageToJson(f.encoded_attributes)) for f in chain]
        r = await http.post("/codec/decode", json={"payloads": wire}, headers={"Authorization": f"Bearer {TOKEN}",
                                                                                "X-Namespace": "default"})
        assert r.status == 200
        decoded = [json.loads(base64.b64decode(p["data"])) for p in (await r.json())["payloads"]]
    finally:
        await http.close()
    assert [set(d) >= {"message", "stack_trace"} for d in decoded] == [True, True]
    assert decoded[0]["message"] == "Activity task failed"
    assert decoded[1]["message"] == SECRET
