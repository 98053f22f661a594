"""The workflow sandbox with its entry code compiled once (workers/sandbox.py): the same sandbox as the SDK's.

What must hold on it, whatever runs: a workflow cannot reach what the sandbox restricts, each run gets its own fresh
copy of the workflow's module, and every workflow worker `colloquy worker` builds uses it. Should the SDK's private
shape change, `usable()` turns False and the first test here fails (the worker would fall back to the SDK's runner,
slower, and nobody would know)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.converter import ActivitySerializationContext, WorkflowSerializationContext
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from core.codec import Keyring, data_converter
from core.converter import colloquy_data_converter
from tests.unit.platform.sandbox_probe import RUNS, CallsAnActivity, ReadsTheClock, echo
from workers import sandbox
from workers.main import build_workers
from workers.sandbox import CompiledSandboxRunner, compiled, passes_use_context, sandbox_runner, usable


def test_the_pinned_sdk_still_has_the_shape_the_runner_relies_on():
    assert usable(), "temporalio's sandbox changed: revisit workers/sandbox.py"
    assert isinstance(sandbox_runner(), CompiledSandboxRunner)


@pytest.mark.parametrize("runner", [SandboxedWorkflowRunner(), CompiledSandboxRunner()], ids=["sdk", "compiled"])
async def test_restrictions_and_a_fresh_module_per_run_as_the_sdks_sandbox(ts_env, runner):
    client: Client = ts_env.client
    queue = f"sandbox-{uuid.uuid4().hex[:8]}"
    before = compiled.cache_info().hits
    async with Worker(client, task_queue=queue, workflows=[ReadsTheClock], workflow_runner=runner):
        results = [await client.execute_workflow(ReadsTheClock.run, id=f"{queue}-{i}", task_queue=queue)
                   for i in range(3)]
    assert results == [["RestrictedWorkflowAccessError", "1"]] * 3
    assert RUNS == []  # the worker's own copy of the module never ran the workflow
    if isinstance(runner, CompiledSandboxRunner):
        assert compiled.cache_info().hits > before  # the entry strings were compiled once and reused


async def test_every_workflow_worker_colloquy_builds_uses_it(ts_env):
    workers = build_workers(ts_env.client, task_queue=f"sandbox-{uuid.uuid4().hex[:8]}", role="all")
    runners = [w.config().get("workflow_runner") for w in workers if w.config().get("workflows")]
    assert runners and all(isinstance(r, CompiledSandboxRunner) for r in runners)


# ------------------------------------------------------------------------------------ payload contexts
# The SDK asks the workflow, inside the sandbox, for each payload sequence's serialization context in six passes
# (decode an activation: references, external storage, codec; encode the completion: codec, external storage,
# references). The context-free runner answers without entering the sandbox; that is right only because each pass
# hands the payloads back unchanged when the converter has no codec and no external storage, whatever the context.
# That is the invariant to hold on the pinned SDK, checked here for any payloads and any context.

PASSES = ("_decode_reference_payload_sequence", "_external_retrieve_payload_sequence", "_decode_payload_sequence",
          "_encode_payload_sequence", "_external_store_payload_sequence", "_encode_reference_payload_sequence")
_text = st.text(max_size=20)
_payloads = st.lists(st.builds(lambda meta, data: Payload(metadata=meta, data=data),
                               st.dictionaries(_text, st.binary(max_size=20), max_size=3), st.binary(max_size=60)),
                     max_size=4)
_contexts = st.one_of(
    st.none(),
    st.builds(WorkflowSerializationContext, namespace=_text, workflow_id=_text),
    st.builds(ActivitySerializationContext, namespace=_text, workflow_id=_text, workflow_type=_text,
              activity_type=_text, activity_task_queue=_text, is_local=st.booleans(), activity_id=_text))


@settings(max_examples=150, deadline=None)
@given(payloads=_payloads, context=_contexts)
def test_without_codec_or_storage_every_payload_pass_is_the_identity_whatever_the_context(payloads, context):
    assert not passes_use_context(colloquy_data_converter)
    converter = colloquy_data_converter if context is None else colloquy_data_converter.with_context(context)
    for name in PASSES:
        assert asyncio.run(getattr(converter, name)(list(payloads))) == payloads, name


def test_a_codec_or_external_storage_needs_every_context(tmp_path):
    keys = Keyring.generate().save(tmp_path / "keys" / "codec-keys.json")
    encrypted = data_converter(path=keys)
    assert passes_use_context(encrypted)
    runner = sandbox_runner(encrypted)
    assert isinstance(runner, CompiledSandboxRunner) and runner.payload_contexts
    assert not sandbox_runner(colloquy_data_converter).payload_contexts  # type: ignore[attr-defined]
    assert sandbox_runner().payload_contexts  # type: ignore[attr-defined]   # not told: the safe answer


async def test_every_workflow_worker_asks_contexts_only_when_its_converter_needs_them(ts_env, tmp_path):
    keys = Keyring.generate().save(tmp_path / "keys" / "codec-keys.json")
    plain = build_workers(ts_env.client, task_queue=f"sandbox-{uuid.uuid4().hex[:8]}", role="workflows")
    sealed_client = Client(**{**ts_env.client.config(), "data_converter": data_converter(path=keys)})
    sealed = build_workers(sealed_client, task_queue=f"sandbox-{uuid.uuid4().hex[:8]}", role="workflows")
    [plain_runner] = [w.config().get("workflow_runner") for w in plain]
    [sealed_runner] = [w.config().get("workflow_runner") for w in sealed]
    assert not plain_runner.payload_contexts and sealed_runner.payload_contexts  # type: ignore[union-attr]


@pytest.mark.parametrize("contexts", [True, False], ids=["asked", "context-free"])
async def test_the_context_free_runner_enters_the_sandbox_only_to_run_the_workflow(ts_env, monkeypatch, contexts):
    entered: list[str] = []

    def recording(code: str):  # noqa: ANN202
        entered.append(code)
        return compiled(code)

    monkeypatch.setattr(sandbox, "compiled", recording)
    client: Client = ts_env.client
    queue = f"sandbox-{uuid.uuid4().hex[:8]}"
    async with Worker(client, task_queue=queue, workflows=[CallsAnActivity], activities=[echo],
                      workflow_runner=CompiledSandboxRunner(payload_contexts=contexts)):
        said = await client.execute_workflow(CallsAnActivity.run, "é 漢字", id=queue, task_queue=queue)
    assert said == "é 漢字/é 漢字"
    asked = [c for c in entered if "get_serialization_context" in c or "get_external_store_context" in c]
    assert entered and (asked if contexts else not asked), entered
