"""One study participant as their browser drives `colloquy serve` (bench/study.py): the link's page, consent, the
interview room (its state stream, heartbeats, typed answers), then the link again (the read-back page once the
study has counted the interview). Only HTTP: what a participant's browser can do, nothing else.

    GET  /study/{sid}/join/{token}?lang=xx       the consent page: its hidden fields (language, consent hash)
    POST /study/{sid}/join/{token}               consent ticked -> 303 to /room/{wid}/{key}?lang=xx
    GET  /room/{wid}/{key}, GET .../state        the room page, then what it shows
    GET  .../stream (SSE), POST .../heartbeat    the page's push channel and presence, as room.js does
    POST .../entry                               each answer, once per question shown
    GET  /study/{sid}/join/{token}               after the end: the read-back page (status "completed")
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

HIDDEN = re.compile(r'<input type="hidden" name="([a-z0-9_]+)" value="([^"]*)">')
TITLE = re.compile(r'<p class="banner"[^>]*>(.*?)</p>', re.S)   # a message page's line
RELOAD_S = 2.0                   # a person's pause before reloading a "try again" page
READ_BACK = 'id="check-status"'     # the read-back page (templates/study_check.html)


@dataclass
class Visit:
    """What happened to one participant, as their browser saw it."""

    number: int
    language: str
    interview_id: str = ""
    answers: int = 0
    ended: bool = False            # the room said the interview had ended
    exit_reason: str | None = None
    read_back: bool = False        # the link then showed the read-back page (the study counted it completed)
    link_status: int = 0           # the link page's last HTTP status after the end
    try_again: int = 0             # "try again" answers met (503 pages, a refused answer), then tried again
    errors: list[str] = field(default_factory=list)
    started_s: float = 0.0         # monotonic: consent posted
    ended_at: float = 0.0          # wall clock (time.time()): the room said ended


class Browser:
    """A participant's browser on one server: same-origin headers as the pages send them."""

    def __init__(self, http: aiohttp.ClientSession, base: str) -> None:
        self.http, self.base = http, base
        self.origin = {"Origin": base}
        self.page = {**self.origin, "X-Colloquy-CSRF": "page", "Content-Type": "application/json"}

    async def get(self, path: str) -> tuple[int, str, str]:
        async with self.http.get(self.base + path, allow_redirects=False) as r:
            return r.status, await r.text(), r.headers.get("Location", "")

    async def post_json(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        async with self.http.post(self.base + path, data=json.dumps(body), headers=self.page) as r:
            text = await r.text()
            try:
                return r.status, json.loads(text)
            except ValueError:
                return r.status, text


async def join(browser: Browser, sid: str, token: str, visit: Visit, patience: int = 30) -> str | None:
    """The consent page, ticked and posted: the room's path, or None (the reason in visit.errors). A 503 "Please
    try again in a moment" page is reloaded (or the form posted again: opening a link twice starts one interview)
    after a pause, `patience` times at most, as a person would."""
    link = f"/study/{sid}/join/{token}"
    for _ in range(patience):
        status, page, _ = await browser.get(f"{link}?lang={visit.language}")
        if status != 503:
            break
        visit.try_again += 1
        await asyncio.sleep(RELOAD_S)
    if status != 200:
        visit.errors.append(f"join page {status}: {_said(page)}")
        return None
    form = dict(HIDDEN.findall(page))
    if "consent_sha256" not in form:
        visit.errors.append(f"join page without its consent form: {_said(page)}")
        return None
    for _ in range(patience):
        async with browser.http.post(browser.base + link, data={**form, "consent": "yes"}, headers=browser.origin,
                                     allow_redirects=False) as r:
            status, room, text = r.status, r.headers.get("Location", ""), await r.text()
        if status != 503:
            break
        visit.try_again += 1
        await asyncio.sleep(RELOAD_S)
    if status != 303 or "/room/" not in room:
        visit.errors.append(f"join post {status}: {_said(text)}")
        return None
    visit.started_s = time.monotonic()
    visit.interview_id = room.split("/")[2]
    return room


def _said(page: str) -> str:
    """A page's message line (a refusal, "try again"), else its start."""
    line = TITLE.search(page)
    return line.group(1).strip() if line else page[:200]


async def _stream(browser: Browser, room: str, views: asyncio.Queue[dict[str, Any]]) -> None:
    """The page's SSE channel: every `state` event into `views` (reconnecting, as EventSource does)."""
    while True:
        try:
            async with browser.http.get(browser.base + room.split("?")[0] + "/stream",
                                        timeout=aiohttp.ClientTimeout(total=None, sock_read=60)) as r:
                event = ""
                async for raw in r.content:
                    line = raw.decode().rstrip("\n")
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: ") and event == "state":
                        views.put_nowait(json.loads(line[6:]))
                    elif line.startswith("data: ") and event == "closed":
                        return
        except (aiohttp.ClientError, TimeoutError, ValueError):
            pass
        await asyncio.sleep(2.0)            # `retry: 2000`


async def _heartbeats(browser: Browser, base: str, every: float) -> None:
    seq = 0
    while every > 0:
        await asyncio.sleep(every)
        seq += 1
        with contextlib.suppress(aiohttp.ClientError, TimeoutError):
            await browser.post_json(base + "/heartbeat", {"client_id": "bench-page", "seq": seq})


async def interview(browser: Browser, room: str, answers: list[str], visit: Visit, limit_s: float) -> None:
    """The room until the interview ends: each new question answered once (the next of `answers`; after them,
    a short closing word), at most `limit_s` seconds."""
    base = room.split("?")[0]
    status, _, _ = await browser.get(room)
    if status != 200:
        visit.errors.append(f"room page {status}")
        return
    views: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    status, first = await _get_json(browser, base + "/state")
    if status != 200:
        visit.errors.append(f"room state {status}")
        return
    views.put_nowait(first)
    tasks = [asyncio.create_task(_stream(browser, room, views)),
             asyncio.create_task(_heartbeats(browser, base, float(first.get("heartbeat_seconds") or 0)))]
    answered: set[Any] = set()
    deadline = time.monotonic() + limit_s
    try:
        while time.monotonic() < deadline:
            try:
                view = await asyncio.wait_for(views.get(), max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            if view.get("ended"):
                visit.ended, visit.exit_reason, visit.ended_at = True, view.get("exit_reason"), time.time()
                return
            qid = view.get("question_id")
            if not view.get("question") or qid in answered or view.get("status") != "IN_PROGRESS":
                continue
            answered.add(qid)
            text = answers[visit.answers] if visit.answers < len(answers) else "No, I think that covers it."
            section = (view.get("section") or {}).get("id")
            status, body = await browser.post_json(base + "/entry", {"entry_id": f"a{visit.answers + 1}",
                                                                     "text": text, "reply_to_section_id": section})
            if status == 200:
                visit.answers += 1
            elif status in (429, 502, 503, 504):      # the page's outbox sends it again (room.js)
                visit.try_again += 1
                answered.discard(qid)
                await asyncio.sleep(RELOAD_S)
                views.put_nowait(view)
            elif status != 409:          # 409: the interview ended meanwhile (the stream says so next)
                visit.errors.append(f"entry {status}: {str(body)[:200]}")
        visit.errors.append(f"the interview had not ended after {limit_s:.0f}s")
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _get_json(browser: Browser, path: str) -> tuple[int, Any]:
    async with browser.http.get(browser.base + path) as r:
        return r.status, await r.json(content_type=None)


async def read_back(browser: Browser, sid: str, token: str, visit: Visit, limit_s: float, every: float) -> None:
    """The link after the interview: the read-back page once the study has counted it (polled every `every` s;
    a 503 "try again in a moment" is tried again, as a person would reload)."""
    deadline = time.monotonic() + limit_s
    while True:
        status, page, _ = await browser.get(f"/study/{sid}/join/{token}")
        visit.link_status = status
        if status == 200 and READ_BACK in page:
            visit.read_back = True
            return
        visit.try_again += status == 503
        if status not in (200, 303, 503) or time.monotonic() >= deadline:
            visit.errors.append(f"no read-back page: the link answers {status} {_said(page)!r}")
            return          # refused (e.g. 410 "This interview has ended": counted abandoned), or no answer yet
        await asyncio.sleep(every)


async def participant(browser: Browser, sid: str, token: str, visit: Visit, answers: list[str],
                      interview_limit_s: float, check_every_s: float) -> Visit:
    try:
        room = await join(browser, sid, token, visit)
        if room is not None:
            await interview(browser, room, answers, visit, interview_limit_s)
            if visit.ended:
                await read_back(browser, sid, token, visit, interview_limit_s, check_every_s)
    except (aiohttp.ClientError, TimeoutError) as exc:
        visit.errors.append(f"{type(exc).__name__}: {exc}")
    return visit
