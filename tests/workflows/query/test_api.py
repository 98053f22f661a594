"""The optional HTTP API (seed §16.3) over real HTTP on 127.0.0.1, real clock (dev server)."""

from __future__ import annotations

from aiohttp.test_utils import TestClient, TestServer

from client.query.cli import build_api
from tests.workflows.query.helpers import (
    analysis,
    answer,
    evaluation,
    finding,
    gap,
    no_update,
    plan,
    route,
    unlabelled,
)

Q = "What should I do today?"


async def test_post_input_answers_asks_and_resumes_and_get_context(dev_env, worker, offline, notes):
    (notes / "global-context.md").write_text("# Global Context\n\n## Facts\n- squat_pr: 285 lbs (certain)\n")
    offline.script("route_input", route("query", ["strength"]))
    offline.script("plan_query", plan(Q), plan(Q, action="clarify"))
    offline.script("analyze_evidence", analysis("insufficient", [finding("heavy bench", "2026-01-12#1")],
                                                [gap("how you feel", "subjective")]),
                   analysis("sufficient", [finding("you feel great", "your answer")]))
    offline.script("clarify_gaps", {"questions": [{"question": "How do you feel?"}], "context_explanation": "",
                                    "fallback_action": ""})
    offline.script("synthesize_answer", answer("Go heavy today.", []))
    offline.script("evaluate_answer", evaluation())
    offline.script("observe_context", no_update())
    async with worker(dev_env.client) as queue:
        api = build_api(dev_env.client, queue, "fitness", str(notes), wait_s=20)
        async with TestClient(TestServer(api, host="127.0.0.1")) as http:
            bad = await http.post("/input", json={"text": "  "})
            assert bad.status == 400 and "'text' is required" in (await bad.json())["error"]
            assert (await http.post("/input", data=b"not json")).status == 415      # JSON only (issue 21)
            assert (await http.post("/input", data=b"not json", headers={"Content-Type": "application/json"})
                    ).status == 400
            huge = await http.post("/input", json={"text": "x" * 20_001})
            assert huge.status == 413
            first = await http.post("/input", json={"text": Q, "today": "2026-01-16"})
            body = await first.json()
            assert first.status == 202 and body["status"] == "waiting_user"
            assert body["pending"]["questions"][0] == {"id": "q1", "question": "How do you feel?", "options": None,
                                                       "gap_addressed": ""}
            wf = body["workflow_id"]
            refused = await http.post(f"/input/{wf}/clarify", json={"answers": {"q7": "x"}})
            assert refused.status == 409 and "unknown question id(s) q7" in (await refused.json())["error"]
            done = await http.post(f"/input/{wf}/clarify", json={"answers": {"q1": "great"}})
            result = await done.json()
            assert done.status == 200 and unlabelled(result["result"]["response"]) == "Go heavy today."
            again = await http.get(f"/input/{wf}")
            assert (await again.json())["status"] == "completed"
            missing = await http.get("/input/notes-fitness-no-such-workflow")
            assert missing.status == 404 and "no such query workflow" in (await missing.json())["error"]
            ctx = await http.get("/context")
            assert ctx.status == 200 and "squat_pr: 285 lbs" in await ctx.text()
