"""A refused answer, in the participant's language (issue 37): the engine refuses an entry with its English message
and a language-free code in the update error's details; the room's entry endpoint words the code in the language
the request names (`?lang=`, else the browser's Accept-Language) and keeps the English in `detail`; an English
request reads as before."""

from __future__ import annotations

import re

import pytest
from aiohttp.test_utils import TestClient, TestServer
from temporalio.client import WorkflowUpdateFailedError

from client.web.app import build_app
from client.web.i18n import page_translations
from client.web.interview.refusals import REASONS
from client.web.interview.room import room_extension
from client.web.interview.sessions import room_path
from rules.interview.entries import EMPTY_TEXT, TOO_LONG
from tests.workflows.interview.helpers import adaptive_plan, control, say, start

SECRET = b"room-secret-for-tests"
PAGE = {"X-Colloquy-CSRF": "page"}      # what the room page sends (client/web/csrf.js)
LATIN = re.compile(r"[A-Za-z]{3,}")      # an English word left in a Japanese or Arabic sentence


async def test_the_update_error_carries_the_refusal_code(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, max_entry_chars=200)
        with pytest.raises(WorkflowUpdateFailedError) as err:
            await say(h, "interviewee", "x" * 201, entry_id="long-1")
        await control(h, "end")
        await h.result()
    cause = err.value.cause
    assert cause is not None and "is 201 characters; the limit is 200" in str(cause.message)   # English, as before
    assert list(cause.details) == [{"code": TOO_LONG, "length": 201, "limit": 200}]


async def test_the_room_words_a_refusal_in_the_participants_language(ts_env, worker, offline):
    async with worker(ts_env.client) as queue:
        h = await start(ts_env, queue, plan=adaptive_plan(), write_essay=False, max_entry_chars=200)

        async def temporal():  # noqa: ANN202
            return ts_env.client

        app = build_app("console-token-for-tests", None, [], extensions=[room_extension(temporal, SECRET, 0.2)])
        room = room_path(SECRET, h.id)
        async with TestClient(TestServer(app, host="127.0.0.1")) as http:
            async def refused(text: str, query: str = "", headers: dict[str, str] | None = None) -> dict:
                r = await http.post(room + "/entry" + query, json={"entry_id": f"e{len(text)}", "text": text},
                                    headers={**PAGE, **(headers or {})})
                assert r.status == 422, await r.text()
                return await r.json()

            ja_long, ja_empty = await refused("x" * 201, "?lang=ja"), await refused("  ", "?lang=ja")
            ar_long = await refused("x" * 201, headers={"Accept-Language": "ar-EG,ar;q=0.9"})   # the browser's
            ar_empty = await refused("  ", "?lang=ar")
            en_long = await refused("x" * 201)
            en_empty = await refused("  ", headers={"Accept-Language": "en-GB,en;q=0.8"})
        await control(h, "end")
        await h.result()
    ja, ar = page_translations("ja"), page_translations("ar")
    assert ja_long["error"] == ja.gettext(REASONS[TOO_LONG]) % {"length": "201", "limit": "200"}
    assert ja_empty["error"] == ja.gettext(REASONS[EMPTY_TEXT])
    assert ar_long["error"] == ar.gettext(REASONS[TOO_LONG]) % {"length": "201", "limit": "200"}
    assert ar_empty["error"] == ar.gettext(REASONS[EMPTY_TEXT])
    for said in (ja_long, ja_empty, ar_long, ar_empty):
        assert not LATIN.search(said["error"]), said      # no English left in the sentence
        assert said["error"] != said["detail"]
    assert "201" in ja_long["error"] and "200" in ar_long["error"]
    assert "is 201 characters; the limit is 200" in ja_long["detail"]   # the engine's English, for the log
    # English requests read as before: the engine's own words, no `detail`
    assert set(en_long) == {"error"} and "is 201 characters; the limit is 200 — split it" in en_long["error"]
    assert set(en_empty) == {"error"} and "has empty text: nothing to record" in en_empty["error"]
