"""An outage of the artifact store while the interview saves its transcript: the save is retried under the artifact
policy and the interview completes with its essay (issue 38: one 503 from S3 failed the workflow for good, and the
essay page answered 409 "has no essay yet (failed)").

On the dev server (`dev_env`, real time: the retries' backoff is 0.2 s + 0.4 s); the interview is ended with a
control, not by its clock."""

from __future__ import annotations

from types import SimpleNamespace

import obstore.exceptions as obx

from activities import artifact_store
from activities.artifacts import store
from tests.workflows.interview.helpers import control, say, start

SLOWDOWN = ("Generic S3 error: Error performing PUT http://127.0.0.1:9000/colloquy/{key} in 1.2s, after 2 retries, "
            "max_retries: 2, retry_timeout: 20s - Server returned non-2xx status code: 503 Service Unavailable: "
            "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
            "\n\nDebug source:\nGeneric {\n    store: \"S3\",\n}")


async def test_the_transcript_save_fails_twice_in_an_s3_outage_and_the_interview_still_ends_with_its_essay(
        dev_env, worker, offline, monkeypatch):
    real_write = artifact_store.LocalBackend.write
    failed: list[str] = []

    def flaky_write(self, key: str, data: bytes, content_type: str) -> None:
        if key.rsplit("/", 1)[-1].startswith("transcript.") and len(failed) < 2:
            failed.append(key)
            bucket = SimpleNamespace(describe=lambda: "object storage s3://colloquy/")
            with artifact_store._s3_errors(bucket, key, "write"):  # type: ignore[arg-type]
                raise obx.GenericError(SLOWDOWN.replace("{key}", key))
        real_write(self, key, data, content_type)

    monkeypatch.setattr(artifact_store.LocalBackend, "write", flaky_write)
    offline.script("interview_writer", "# What the pager taught me\n\nThe hardest part was the silence after.")
    async with worker(dev_env.client) as queue:
        h = await start(dev_env, queue, duration_seconds=600)
        await say(h, "interviewee", "the hardest part was never the pager itself, it was the silence after.")
        await control(h, "end")
        result = await h.result()
    assert len(failed) == 2  # two attempts met the outage; the third wrote the transcript
    assert result.status == "COMPLETED" and result.error is None
    assert result.transcript is not None and "silence after" in store().get(result.transcript)
    assert result.essay is not None and "What the pager taught me" in store().get(result.essay)
