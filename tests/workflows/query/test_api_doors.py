"""The HTTP API's doors (issue 15, defect 9): app ids and workflow ids are checked against their registries —
no path reaches the file system, and another pipeline's workflow id is a 404, not a 500. Real HTTP on 127.0.0.1,
dev server, real workers."""

from __future__ import annotations

import uuid

import pytest
from aiohttp.test_utils import TestClient, TestServer

from activities.query.storage import InvalidRequest, load_catalog
from client.interview.cli import start_interview
from client.query.cli import build_api
from models.interview.workflow import InterviewInput
from rules.query.apps import check_app_id

EVIL = "../../../../etc/evilapp"


@pytest.mark.parametrize("app_id", [EVIL, "fitness/../../x", "/etc", "..", "Fitness", "fit ness", ""])
def test_an_app_id_is_a_bare_name(app_id):
    with pytest.raises(ValueError, match="invalid app id"):
        check_app_id(app_id)


def test_the_catalog_never_loads_an_app_from_outside_apps(tmp_path, monkeypatch):
    # an app definition planted outside apps/, reachable by ../ from it
    (tmp_path / "domains").mkdir()
    (tmp_path / "domains" / "base.yaml").write_text("name: base\ndescription: base\n")
    (tmp_path / "apps").mkdir()
    (tmp_path / "etc" / "evilapp").mkdir(parents=True)
    (tmp_path / "etc" / "evilapp" / "app.yaml").write_text("domains: []\n")
    monkeypatch.setenv("COLLOQUY_DOMAINS_ROOT", str(tmp_path))
    with pytest.raises(InvalidRequest, match="invalid app id"):
        load_catalog("../etc/evilapp")
    assert load_catalog("general").app_id == "general"


async def test_api_refuses_a_path_as_app_and_answers_404_for_an_interview_id(dev_env, worker, notes):
    async with worker(dev_env.client) as queue:
        interview = await start_interview(dev_env.client, InterviewInput(topic="Doors", duration_seconds=600),
                                          f"interview-doors-{uuid.uuid4().hex[:6]}", queue)
        try:
            api = build_api(dev_env.client, queue, "fitness", str(notes), wait_s=10)
            async with TestClient(TestServer(api, host="127.0.0.1")) as http:
                evil = await http.post("/input", json={"text": "log: squat 5x5", "app_id": EVIL})
                assert evil.status == 400 and "invalid app id" in (await evil.json())["error"]
                other = await http.get(f"/input/{interview.id}")
                body = await other.json()
                assert other.status == 404 and "is not a query workflow (InterviewWorkflow)" in body["error"], body
                clarify = await http.post(f"/input/{interview.id}/clarify", json={"answers": {"q1": "x"}})
                assert clarify.status == 404
                missing = await http.get("/input/notes-fitness-no-such-workflow")
                assert missing.status == 404
        finally:
            await interview.terminate("test over")
