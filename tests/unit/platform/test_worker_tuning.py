"""Worker tuning knobs (core.settings.WorkerTuning): environment, flags, validation, and that each value reaches
the temporalio Worker objects `build_workers` makes (a recording stand-in for Worker: a real one needs a
connected client)."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from temporalio.worker import PollerBehaviorSimpleMaximum
from typer.testing import CliRunner

from core.converter import colloquy_data_converter
from core.settings import SDK_WORKER_DEFAULTS, WORKER_TUNING_ENV, WorkerTuning

# a client for build_workers, which reads only its data converter (the sandbox runner is chosen by it)
STAND_IN = SimpleNamespace(data_converter=colloquy_data_converter)


def test_defaults_and_every_field_has_an_env_var_and_a_before_value():
    t = WorkerTuning()
    assert t.max_concurrent_activities == 500 and t.max_cached_workflows == 1000
    names = {f for f in WorkerTuning.__dataclass_fields__}
    assert set(WORKER_TUNING_ENV) == names == set(SDK_WORKER_DEFAULTS)
    assert all(v.startswith("COLLOQUY_WORKER_") for v in WORKER_TUNING_ENV.values())
    WorkerTuning(**SDK_WORKER_DEFAULTS)  # type: ignore[arg-type]  # the "before" values are valid too


def test_env_then_overrides():
    env = {"COLLOQUY_WORKER_MAX_CONCURRENT_ACTIVITIES": "40", "COLLOQUY_WORKER_MAX_CACHED_WORKFLOWS": "600",
           "COLLOQUY_WORKER_STICKY_QUEUE_TIMEOUT_S": "4.5", "COLLOQUY_WORKER_WORKFLOW_TASK_POLLERS": " "}
    t = WorkerTuning.from_env(env, max_cached_workflows=700, activity_task_pollers=None)
    assert (t.max_concurrent_activities, t.max_cached_workflows, t.sticky_queue_timeout_s) == (40, 700, 4.5)
    assert t.workflow_task_pollers == 5 and t.activity_task_pollers == 5  # blank / None: the default


def test_old_env_name_is_an_alias_and_the_new_one_wins():
    assert WorkerTuning.from_env({"COLLOQUY_MAX_CONCURRENT_ACTIVITIES": "50"}).max_concurrent_activities == 50
    both = {"COLLOQUY_MAX_CONCURRENT_ACTIVITIES": "50", "COLLOQUY_WORKER_MAX_CONCURRENT_ACTIVITIES": "60"}
    assert WorkerTuning.from_env(both).max_concurrent_activities == 60


@pytest.mark.parametrize(("env", "message"), [
    ({"COLLOQUY_WORKER_MAX_CACHED_WORKFLOWS": "lots"}, "not a number"),
    ({"COLLOQUY_WORKER_WORKFLOW_TASK_POLLERS": "1"}, "workflow_task_pollers must be at least 2"),
    ({"COLLOQUY_WORKER_MAX_CONCURRENT_ACTIVITIES": "0"}, "max_concurrent_activities must be at least 1"),
    ({"COLLOQUY_WORKER_STICKY_QUEUE_TIMEOUT_S": "0"}, "sticky_queue_timeout_s must be positive"),
])
def test_bad_values_are_refused_with_the_variable_or_field(env, message):
    with pytest.raises(ValueError, match=message):
        WorkerTuning.from_env(env)


class _Recorder:
    made: list[dict] = []

    def __init__(self, client, **kwargs):  # noqa: ANN001, ANN003
        self.task_queue = kwargs["task_queue"]
        _Recorder.made.append(kwargs)


@pytest.fixture
def recorded(monkeypatch):
    import workers.main

    _Recorder.made = []
    monkeypatch.setattr(workers.main, "Worker", _Recorder)
    monkeypatch.setattr(workers.main, "_interceptors", lambda client: [])
    return _Recorder.made


def test_knobs_reach_the_worker_objects(recorded):
    from workers.main import build_workers

    tuning = WorkerTuning(max_concurrent_activities=7, max_concurrent_workflow_tasks=9, max_cached_workflows=11,
                          workflow_task_pollers=3, activity_task_pollers=2, sticky_queue_timeout_s=4)
    build_workers(STAND_IN, "q", "all", tuning=tuning)  # type: ignore[arg-type]
    wf, llm, audio = recorded
    assert (wf["task_queue"], llm["task_queue"], audio["task_queue"]) == ("q", "q-llm", "q-audio")
    assert audio["max_concurrent_activities"] == 2     # transcription is CPU-bound: COLLOQUY_AUDIO_CONCURRENCY
    for kw in (wf, llm):
        assert kw["max_concurrent_activities"] == 7
        assert kw["activity_task_poller_behavior"] == PollerBehaviorSimpleMaximum(maximum=2)
    assert wf["max_concurrent_workflow_tasks"] == 9 and wf["max_cached_workflows"] == 11
    assert wf["workflow_task_poller_behavior"] == PollerBehaviorSimpleMaximum(maximum=3)
    assert wf["sticky_queue_schedule_to_start_timeout"] == timedelta(seconds=4)
    assert "max_cached_workflows" not in llm  # an activity-only worker has no workflow cache or pollers


def test_build_workers_reads_the_environment_and_max_concurrent_activities_overrides(recorded, monkeypatch):
    from workers.main import build_workers

    monkeypatch.setenv("COLLOQUY_WORKER_MAX_CACHED_WORKFLOWS", "321")
    monkeypatch.setenv("COLLOQUY_WORKER_MAX_CONCURRENT_ACTIVITIES", "123")
    build_workers(STAND_IN, "q", "workflows")  # type: ignore[arg-type]
    build_workers(STAND_IN, "q", "llm", max_concurrent_activities=5)  # type: ignore[arg-type]
    assert recorded[0]["max_cached_workflows"] == 321 and recorded[0]["max_concurrent_activities"] == 123
    assert recorded[1]["max_concurrent_activities"] == 5


def test_colloquy_worker_flags_and_bad_values(recorded, monkeypatch):
    """`colloquy worker` passes its flags through WorkerTuning (a bad value: exit 2 before connecting)."""
    from client import cli

    bad = CliRunner().invoke(cli.app, ["worker", "--workflow-task-pollers", "1"])
    assert bad.exit_code == 2 and "workflow_task_pollers must be at least 2" in bad.output

    seen = {}

    class FakeClient:
        namespace = "default"
        data_converter = colloquy_data_converter
        service_client = type("S", (), {"config": type("C", (), {"target_host": "127.0.0.1:1"})()})()

    async def fake_connect(settings):  # noqa: ANN001, ANN202
        return FakeClient()

    async def fake_run(workers, stop=None, tune_gc=None):  # noqa: ANN001, ANN202
        seen["queues"] = [w.task_queue for w in workers]
        return True

    import core.temporal
    import workers.main

    monkeypatch.setattr(core.temporal, "connect", fake_connect)
    monkeypatch.setattr(workers.main, "run_workers", fake_run)
    ok = CliRunner().invoke(cli.app, ["worker", "--task-queue", "tq", "--max-cached-workflows", "42",
                                      "--sticky-queue-timeout", "3", "--max-concurrent-activities", "8"])
    assert ok.exit_code == 0, ok.output
    assert seen["queues"] == ["tq", "tq-llm", "tq-audio"]
    assert recorded[0]["max_cached_workflows"] == 42 and recorded[1]["max_concurrent_activities"] == 8
    assert recorded[0]["sticky_queue_schedule_to_start_timeout"] == timedelta(seconds=3)


def test_the_llm_worker_takes_no_more_calls_than_its_models_serve(recorded, monkeypatch):
    """On a serial model (the in-process `local` one) the LLM worker takes one call at a time; the workflow
    worker's slots are not the model's business."""
    from activities.llm.config import reset_config_cache
    from workers.main import build_workers

    monkeypatch.setenv("COLLOQUY_PROFILE", "local")
    monkeypatch.delenv("COLLOQUY_AUDIO_CONCURRENCY", raising=False)
    reset_config_cache()
    build_workers(STAND_IN, "q", "all", tuning=WorkerTuning(max_concurrent_activities=50))  # type: ignore[arg-type]
    wf, llm, audio = recorded
    assert wf["max_concurrent_activities"] == 50 and llm["max_concurrent_activities"] == 1
    assert audio["max_concurrent_activities"] == 2   # transcription has its own slots (COLLOQUY_AUDIO_CONCURRENCY)
    monkeypatch.setenv("COLLOQUY_PROVIDER_CONCURRENCY", "none")  # a server that serves many: the tuning decides
    reset_config_cache()
    build_workers(STAND_IN, "q", "llm", tuning=WorkerTuning(max_concurrent_activities=50))  # type: ignore[arg-type]
    assert recorded[3]["max_concurrent_activities"] == 50
