"""`colloquy serve` serves the study pages: the researcher page behind the token (sign-in returns to it), its
assets as package data, a participant's link public but answering 503 in one line when Temporal is away."""

from __future__ import annotations

from aiohttp.test_utils import TestClient, TestServer

from client.web.serve import build_serve_app

TOKEN = "t0ken-for-the-tests"


async def _no_temporal():  # noqa: ANN202
    raise ConnectionError("cannot reach Temporal at 127.0.0.1:1 (test)")


async def test_study_pages_are_served_with_the_right_protection():
    app = build_serve_app(TOKEN, None, [], _no_temporal, b"secret", "colloquy", "fitness", None)
    http = TestClient(TestServer(app, host="127.0.0.1"))
    await http.start_server()
    try:
        r = await http.get("/studies/study-x", allow_redirects=False)
        assert r.status == 303 and r.headers["Location"] == "/login?next=/studies/study-x"
        assert (await http.get("/api/studies/study-x")).status == 401
        r = await http.get("/studies/study-x", headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status == 200 and "/study-static/study.js" in await r.text()
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]
        for name in ("study.js", "study.css"):
            assert (await http.get(f"/study-static/{name}")).status == 200
        assert (await http.get("/study-static/room.py")).status == 404
        r = await http.get("/study/study-x/join/some-token")
        assert r.status == 503 and "cannot reach Temporal" in await r.text()
        r = await http.get("/api/studies/study-x", headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status == 503 and "cannot reach Temporal" in (await r.json())["error"]
    finally:
        await http.close()
