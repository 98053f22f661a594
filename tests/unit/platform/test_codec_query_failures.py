"""With payload encryption on, a query a workflow does not have is answered with a readable message, not the SDK's
"Encoded failure" placeholder (issue 38, item 5; temporalio/sdk-python#641): a query's failure reaches every
client (serve's pages, the CLI, the Web UI's Queries tab) only as its message string, which no codec endpoint can
decode. A query handler's own error stays encrypted. (The workflow runs in the SDK's sandbox, as in production.)"""

from __future__ import annotations

import dataclasses
import uuid

import pytest
from temporalio import workflow
from temporalio.client import WorkflowQueryFailedError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from core.codec import EncryptionCodec, Keyring
    from core.converter import EncodedFailureConverter, colloquy_data_converter

PRIVATE = "section s-9 quotes the participant's sister"


@workflow.defn(name="ColloquyTestQueries")
class Queries:
    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: False)

    @workflow.query
    def refuses(self) -> str:
        raise ValueError(PRIVATE)


async def test_an_unknown_query_is_readable_and_a_handlers_error_stays_encrypted():
    from core.server import time_skipping_server_binary

    converter = dataclasses.replace(colloquy_data_converter, payload_codec=EncryptionCodec(Keyring.generate()),
                                    failure_converter_class=EncodedFailureConverter)
    env = await WorkflowEnvironment.start_time_skipping(test_server_existing_path=time_skipping_server_binary(),
                                                        data_converter=converter)
    try:
        async with Worker(env.client, task_queue="codec-queries", workflows=[Queries]):
            handle = await env.client.start_workflow(Queries.run, id=f"queries-{uuid.uuid4().hex}",
                                                     task_queue="codec-queries")
            with pytest.raises(WorkflowQueryFailedError) as unknown:
                await handle.query("session_state")
            assert "Query handler for 'session_state' expected but not found" in unknown.value.message
            assert "refuses" in unknown.value.message                      # the queries it does have
            with pytest.raises(WorkflowQueryFailedError) as refused:
                await handle.query("refuses")
            assert PRIVATE not in refused.value.message                    # still encrypted
            await handle.terminate()
    finally:
        await env.shutdown()
