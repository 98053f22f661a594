"""`colloquy serve`'s app over real HTTP (aiohttp's test server on 127.0.0.1): the Temporal codec protocol,
the token (header and sign-in cookie), CORS for the Web UI, extension routes."""

from __future__ import annotations

import base64
import json
from contextlib import asynccontextmanager

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from temporalio.contrib.pydantic import pydantic_data_converter

from client.web.app import COOKIE, build_app, public
from core.codec import ENCODING, KEY_ID_META, EncryptionCodec, Keyring

TOKEN = "t0ken-for-the-tests"
UI = "http://127.0.0.1:8233"
SENTENCE = "The letters from Lisbon were burned the winter my father left."


@asynccontextmanager
async def serving(codec: EncryptionCodec | None = None, **kwargs):
    client = TestClient(TestServer(build_app(TOKEN, codec, [UI], **kwargs), host="127.0.0.1"))
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()


def _wire(payload) -> dict:
    """A payload as the Web UI / temporal CLI send it: proto JSON, bytes in base64."""
    return {"metadata": {k: base64.b64encode(v).decode() for k, v in payload.metadata.items()},
            "data": base64.b64encode(payload.data).decode()}


AUTH = {"Authorization": f"Bearer {TOKEN}"}


async def test_encode_then_decode_over_http_with_the_token():
    ring = Keyring.generate()
    plain = pydantic_data_converter.payload_converter.to_payloads([SENTENCE])[0]
    async with serving(EncryptionCodec(ring)) as http:
        r = await http.post("/codec/encode", json={"payloads": [_wire(plain)]}, headers=AUTH)
        assert r.status == 200 and r.content_type == "application/json"
        sealed = (await r.json())["payloads"][0]
        assert base64.b64decode(sealed["metadata"]["encoding"]) == ENCODING
        assert base64.b64decode(sealed["metadata"][KEY_ID_META]).decode() == ring.newest.id
        assert SENTENCE.encode() not in base64.b64decode(sealed["data"])

        r = await http.post("/codec/decode", json={"payloads": [sealed, _wire(plain)]},
                            headers={**AUTH, "X-Namespace": "default"})
        assert r.status == 200
        decoded = (await r.json())["payloads"]
        assert [json.loads(base64.b64decode(p["data"])) for p in decoded] == [SENTENCE, SENTENCE]
        assert base64.b64decode(decoded[0]["metadata"]["encoding"]) == b"json/plain"


async def test_no_token_or_a_wrong_one_is_401_and_sign_in_sets_a_cookie():
    async with serving(EncryptionCodec(Keyring.generate())) as http:
        body = {"payloads": []}
        for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": TOKEN}):
            r = await http.post("/codec/decode", json=body, headers=headers)
            assert r.status == 401 and r.headers["WWW-Authenticate"].startswith("Bearer"), headers
            assert TOKEN not in await r.text()
        assert (await http.get("/healthz")).status == 200  # public
        r = await http.get("/login")
        assert r.status == 200 and 'name="token"' in await r.text()

        r = await http.post("/login", data={"token": "wrong"})
        assert r.status == 401 and COOKIE not in r.cookies
        r = await http.post("/login", data={"token": TOKEN})
        assert r.status == 200 and r.cookies[COOKIE]["httponly"] and r.cookies[COOKIE]["samesite"] == "Strict"
        # the cookie jar now carries it: the Web UI's credentialed fetch works without a header
        r = await http.post("/codec/decode", json=body)
        assert r.status == 200 and await r.json() == {}  # proto JSON omits an empty list


async def test_cors_for_the_web_ui_origin_only_preflight_included():
    async with serving(EncryptionCodec(Keyring.generate())) as http:
        preflight = {"Origin": UI, "Access-Control-Request-Method": "POST",
                     "Access-Control-Request-Headers": "content-type,x-namespace"}
        r = await http.options("/codec/decode", headers=preflight)
        assert r.status == 204
        assert r.headers["Access-Control-Allow-Origin"] == UI
        assert r.headers["Access-Control-Allow-Credentials"] == "true"
        assert "x-namespace" in r.headers["Access-Control-Allow-Headers"].lower()
        r = await http.options("/codec/decode", headers={**preflight, "Origin": "http://evil.example"})
        assert r.status == 403 and "Access-Control-Allow-Origin" not in r.headers
        # an unauthorised answer still carries CORS headers, so the UI sees a 401 (not a network error)
        r = await http.post("/codec/decode", json={"payloads": []}, headers={"Origin": UI})
        assert r.status == 401 and r.headers["Access-Control-Allow-Origin"] == UI
        r = await http.post("/codec/decode", json={"payloads": []}, headers={"Origin": "http://evil.example", **AUTH})
        assert r.status == 200 and "Access-Control-Allow-Origin" not in r.headers


async def test_errors_are_clear_json():
    other = EncryptionCodec(Keyring.generate())
    [sealed] = await other.encode(pydantic_data_converter.payload_converter.to_payloads([SENTENCE]))
    async with serving(EncryptionCodec(Keyring.generate())) as http:
        r = await http.post("/codec/decode", data=b"not json", headers=AUTH)
        assert r.status == 400 and "payloads" in (await r.json())["error"]
        r = await http.post("/codec/decode", json={"payloads": [_wire(sealed)]}, headers=AUTH)
        assert r.status == 422 and sealed.metadata[KEY_ID_META].decode() in (await r.json())["error"]
    async with serving(None) as http:
        r = await http.post("/codec/decode", json={"payloads": []}, headers=AUTH)
        assert r.status == 503 and "COLLOQUY_CODEC_KEYS_FILE" in (await r.json())["error"]


async def test_extensions_add_routes_behind_the_same_token():
    async def secret_page(request: web.Request) -> web.Response:
        return web.Response(text="personal")

    @public
    async def about(request: web.Request) -> web.Response:
        return web.Response(text="about")

    def routes(app: web.Application) -> None:
        app.router.add_get("/notes", secret_page)
        app.router.add_get("/about", about)

    async with serving(None, extensions=[routes]) as http:
        assert (await http.get("/notes")).status == 401
        r = await http.get("/notes", headers=AUTH)
        assert r.status == 200 and await r.text() == "personal"
        assert (await http.get("/about")).status == 200
        assert (await http.get("/nowhere")).status == 401  # unknown paths reveal nothing without the token
        assert (await http.get("/nowhere", headers=AUTH)).status == 404


async def test_a_malformed_form_body_is_a_clear_400_not_a_500():
    """Regression (found by the door fuzz once /openapi.json listed the form routes): a multipart body without
    its boundary made POST /login answer 500."""
    async with serving() as http:
        r = await http.post("/login", data=b"[[[]]]", headers={"Content-Type": "multipart/form-data; boundary=x",
                                                               "X-Colloquy-CSRF": "page"})
        assert r.status == 400
        assert "not a well-formed form" in (await r.json())["error"]
