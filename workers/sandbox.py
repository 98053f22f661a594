"""The workflow sandbox, with the code it runs on every entry compiled once.

Temporal's sandboxed runner enters the sandbox by `exec` of a short source string: once per activation, and once
per payload the SDK encodes or decodes for a workflow (it asks the workflow, inside the sandbox, for the payload's
serialization context; temporalio 1.35, `_runner._Instance._run_code`). `exec` of a string compiles it each time:
~16 µs, and a workflow task enters the sandbox about ten times (one activation, nine payload contexts, counted
in the interview's tests): ~0.5 ms of an exchange's ~35 ms (docs/performance.md, "Per worker core, measured").
This runner is Temporal's own `SandboxedWorkflowRunner` — the same restrictions, the same fresh module per
workflow run, the same code — except that each of those strings is compiled once per process. Should the SDK's
private shape change, `sandbox_runner()` returns the SDK's runner unchanged (tests/unit/platform/test_sandbox_runner.py
says so at once).

One more thing is skipped, and only where it cannot matter: the payload contexts themselves when the data converter
has no codec and no external storage (encryption off, the default). The SDK then asks the workflow, inside the
sandbox, for each payload sequence's context in each of its six payload passes (three to decode an activation,
three to encode its completion) — and every pass, given no codec and no storage, hands the payloads back as they
came whatever the context. The workflow's own payload conversion happens inside the sandbox with its own context
and is not touched. With a codec (encryption on: each participant's data key is chosen by the context) or
external storage, every context is asked for as before."""

from __future__ import annotations

import dataclasses
import functools
from types import CodeType
from typing import Any

from temporalio.converter import DataConverter, SerializationContext, StorageDriverStoreContext
from temporalio.worker import WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

try:
    from temporalio.worker.workflow_sandbox._runner import _Instance
except ImportError:  # pragma: no cover — an SDK without the private class: the plain runner is used
    _Instance = None  # type: ignore[assignment,misc]


@functools.lru_cache(maxsize=512)
def compiled(code: str) -> CodeType:
    """The sandbox's entry string as code; the same file name `exec` of a string gives (tracebacks unchanged)."""
    return compile(code, "<string>", "exec")


if _Instance is not None:
    class _CompiledInstance(_Instance):
        def _run_code(self, code: str, **extra_globals: Any) -> None:
            super()._run_code(compiled(code), **extra_globals)  # type: ignore[arg-type]

    class _ContextFreeInstance(_CompiledInstance):
        """For a data converter whose payload passes ignore the context (no codec, no external storage)."""

        def get_serialization_context(self, command_info: Any) -> SerializationContext | None:  # noqa: ARG002
            return None

        def get_external_store_context(self, command_info: Any) -> StorageDriverStoreContext:  # noqa: ARG002
            return StorageDriverStoreContext(target=None)


@dataclasses.dataclass(frozen=True)
class CompiledSandboxRunner(SandboxedWorkflowRunner):
    """`SandboxedWorkflowRunner` whose instances compile their entry code once per process; with
    `payload_contexts=False` (only for a data converter without codec and external storage: `passes_use_context`)
    they also answer the SDK's payload-context questions without entering the sandbox."""

    payload_contexts: bool = True

    def create_instance(self, det):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN201 — the SDK's signature
        kind = _CompiledInstance if self.payload_contexts else _ContextFreeInstance
        return kind(det, self.runner_class, self.restrictions)


def passes_use_context(converter: DataConverter) -> bool:
    """False when the SDK's payload passes (codec, external storage) are identities whatever the context."""
    return converter.payload_codec is not None or converter.external_storage is not None


def usable() -> bool:
    """True when the SDK's sandbox instance still enters by `_run_code(code, **globals)`."""
    import inspect

    if _Instance is None or not hasattr(_Instance, "_run_code"):
        return False
    params = list(inspect.signature(_Instance._run_code).parameters)
    return params[:2] == ["self", "code"] and inspect.signature(_Instance.__init__).parameters.keys() >= {
        "instance_details", "runner_class", "restrictions"}


def sandbox_runner(converter: DataConverter | None = None) -> WorkflowRunner:
    """The runner every Colloquy workflow worker uses (and the replay tests), for the worker's data converter
    (`client.data_converter`; None: one that needs every context, the safe answer)."""
    if not usable():
        return SandboxedWorkflowRunner()
    return CompiledSandboxRunner(payload_contexts=converter is None or passes_use_context(converter))
