"""GET /openapi.json lists every route `colloquy serve` answers (issue 38, item 5): it is made from the app's
router, so the study, sign-in and audio routes are there and a route added later cannot be left out; the bodies
declared in models/web.py all belong to routes the server has."""

from __future__ import annotations

from aiohttp.test_utils import TestClient, TestServer

from client.web.serve import build_serve_app

TOKEN = "openapi-token-for-the-tests"


def _app():
    return build_serve_app(TOKEN, None, [], None, b"s" * 32, "q", "app", None)  # type: ignore[arg-type]


def _router_routes(app) -> set[tuple[str, str]]:
    return {(r.method.lower(), r.resource.canonical) for r in app.router.routes()
            if r.method not in ("HEAD", "OPTIONS") and r.resource is not None}


async def test_the_description_lists_exactly_the_routes_the_router_answers():
    app = _app()
    served = _router_routes(app)
    http = TestClient(TestServer(app, host="127.0.0.1"))
    await http.start_server()
    try:
        r = await http.get("/openapi.json")  # public: no token
        assert r.status == 200
        doc = await r.json()
    finally:
        await http.close()
    described = {(m, p) for p, methods in doc["paths"].items() for m in methods}
    assert described == served
    for route in [("post", "/login"), ("post", "/logout"), ("get", "/login"), ("post", "/room/{wid}/{key}/audio"),
                  ("get", "/room/{wid}/{key}/question-audio"), ("get", "/api/studies/{sid}"),
                  ("post", "/study/{sid}/join/{token}"), ("get", "/studies/{sid}")]:
        assert route in described, route


async def test_declared_bodies_belong_to_served_routes_and_public_routes_say_so():
    app = _app()
    served = _router_routes(app)
    from models.web import BODIES, FORM_ROUTES

    assert set(BODIES) <= served and FORM_ROUTES <= served
    from client.web.app import served_routes
    from models.web import openapi

    doc = openapi(served_routes(app))
    assert doc["paths"]["/login"]["post"]["security"] == []
    assert "security" not in doc["paths"]["/codec/decode"]["post"]                # the token
    assert "application/x-www-form-urlencoded" in doc["paths"]["/login"]["post"]["requestBody"]["content"]
    assert "audio/webm" in doc["paths"]["/room/{wid}/{key}/audio"]["post"]["requestBody"]["content"]
    assert "application/json" in doc["paths"]["/api/studies/{sid}/plan"]["post"]["requestBody"]["content"]
