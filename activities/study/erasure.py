"""Erasure of a withdrawn participant (`study_erase_participant`, workflow task queue): every place Colloquy keeps
their words.

- Temporal: every execution of their interview `<study>--P002` (each run; `rehearsal-<interview>-…` answer
  workflows too) is deleted with DeleteWorkflowExecution (its history leaves the server's database).
- With payload encryption on: their data key is destroyed (core/datakeys.py), so every copy of their payloads
  and sealed artifacts that is left anywhere — a backup of temporal.db, an old object version — is ciphertext
  nobody can open.
- The study's own earlier runs, when the participant had saved corrections (`study_purge_runs`, called by the
  study's next run: workflows/study/erasure.py).
- The artifact store (local folder or S3-compatible object storage): the interview's scope (transcripts, session
  record, event log, notes, essay, the study digest), its `_results-…` scope, its audio (`audio-…`), and in the
  study's scope the digest of earlier versions (`digest-P002.json`) and the digest agent's kept result.

Idempotent: a retried or repeated erasure finds less to delete and ends the same way.
"""

from __future__ import annotations

import asyncio

from temporalio import activity
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.workflowservice.v1 import DeleteWorkflowExecutionRequest
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from activities.artifacts import RESULTS_SCOPE, store
from activities.voice.store import audio_scope
from core.codec import encryption_enabled, keys_file
from models.study.activities import EraseInput, Erasure, PurgeRunsInput

REHEARSAL_PREFIX = "rehearsal-"
DELETE_WAIT_S = 20.0          # within the storage policy's 30 s attempt


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


async def _delete_executions(interview_id: str) -> int:
    client = activity.client()
    runs: set[tuple[str, str]] = set()
    queries = [f'WorkflowId = "{_quoted(interview_id)}"',
               f'WorkflowId STARTS_WITH "{_quoted(REHEARSAL_PREFIX + interview_id)}-"']
    for query in queries:
        try:
            async for wf in client.list_workflows(query):
                runs.add((wf.id, wf.run_id))
        except RPCError as err:
            if err.status != RPCStatusCode.INVALID_ARGUMENT:   # a visibility store without STARTS_WITH
                raise
    runs.add((interview_id, ""))                 # the current run, should visibility lag behind
    deleted = 0
    for wid, run_id in sorted(runs):
        try:
            await client.workflow_service.delete_workflow_execution(DeleteWorkflowExecutionRequest(
                namespace=client.namespace, workflow_execution=WorkflowExecution(workflow_id=wid, run_id=run_id)))
            deleted += bool(run_id)
        except RPCError as err:
            if err.status != RPCStatusCode.NOT_FOUND:
                raise
    await _gone({(wid, "") for wid, _ in runs})
    return deleted


async def _gone(executions: set[tuple[str, str]]) -> None:
    """The server deletes in the background (once its queues' ack levels pass the run's close tasks): wait until
    no execution (id, run id or "" for the latest) is found any more; still there after DELETE_WAIT_S: a retryable error (the activity runs again, its
    deletes are idempotent), so `erased` is recorded only once the histories are gone."""
    client = activity.client()
    left = set(executions)
    deadline = asyncio.get_running_loop().time() + DELETE_WAIT_S
    while left:
        for wid, run_id in sorted(left):
            try:
                await client.get_workflow_handle(wid, run_id=run_id or None).describe()
            except RPCError as err:
                if err.status != RPCStatusCode.NOT_FOUND:
                    raise
                left.discard((wid, run_id))
        if not left:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise ApplicationError(f"the server has not finished deleting {len(left)} execution(s) yet",
                                   type="StorageRetry")
        await asyncio.sleep(0.5)


def _delete_artifacts(inp: EraseInput) -> int:
    s = store()
    n = sum(s.delete_scope(scope) for scope in (inp.interview_id, f"{RESULTS_SCOPE}-{inp.interview_id}",
                                                audio_scope(inp.interview_id)))
    n += s.delete(inp.study_id, f"digest-{inp.participant_id}.json")
    results = f"{RESULTS_SCOPE}-{inp.study_id}"     # the digest agent's kept result (completed_once)
    marker = f'"participant_id":"{inp.participant_id}"'
    for name in s.names(results):
        if name.startswith("study_digest-") and marker in (s.read_optional(results, name) or "").replace(" ", ""):
            n += s.delete(results, name)
    return n


def _destroy_key(interview_id: str) -> bool:
    from core.codec import Keyring
    from core.datakeys import DataKeys, data_keys_dir

    path = keys_file()
    if path is None or not encryption_enabled():
        return False
    return DataKeys(data_keys_dir(path), Keyring.load(path)).destroy(interview_id)


@activity.defn
async def study_erase_participant(inp: EraseInput) -> Erasure:
    executions = await _delete_executions(inp.interview_id)
    artifacts = await asyncio.to_thread(_delete_artifacts, inp)
    destroyed = await asyncio.to_thread(_destroy_key, inp.interview_id)
    activity.logger.info("erased participant %s of %s: %d executions, %d artifacts, data key destroyed: %s",
                         inp.participant_id, inp.study_id, executions, artifacts, destroyed)
    return Erasure(executions=executions, artifacts=artifacts, key_destroyed=destroyed)


@activity.defn
async def study_purge_runs(inp: PurgeRunsInput) -> int:
    """Delete every run of the study but the current one (after an erasure: their `member_check` updates held the
    withdrawn participant's corrections); the number of runs deleted."""
    client = activity.client()
    runs = [wf.run_id async for wf in client.list_workflows(f'WorkflowId = "{_quoted(inp.study_id)}"')
            if wf.run_id != inp.keep_run_id]
    for run_id in runs:
        try:
            await client.workflow_service.delete_workflow_execution(DeleteWorkflowExecutionRequest(
                namespace=client.namespace,
                workflow_execution=WorkflowExecution(workflow_id=inp.study_id, run_id=run_id)))
        except RPCError as err:
            if err.status != RPCStatusCode.NOT_FOUND:
                raise
    await _gone({(inp.study_id, run_id) for run_id in runs})
    activity.logger.info("deleted %d earlier runs of %s", len(runs), inp.study_id)
    return len(runs)
