"""Colloquy's HTTP app (aiohttp; run by `colloquy serve`, client/serve.py): the Temporal remote codec endpoints
here; the interview room and console (client/room.py) and the notes API (client/notes.py, under /notes) are
added by `colloquy serve` as extensions.

    POST /codec/encode, POST /codec/decode   the Temporal codec-server protocol: JSON {"payloads": [...]} with
                                             base64 fields in and out (the Web UI and `temporal --codec-endpoint`)
    GET  /login, POST /login                 a browser signs in with the token once (an HttpOnly cookie); `?next=`
                                             a path here to go back to (the interviewer console)
    GET  /healthz, GET /                     public, no data

Every route is protected by a bearer token unless marked `@public`: `Authorization: Bearer <token>` (the
`temporal` CLI's `--codec-auth "Bearer <token>"`) or the cookie set by /login (the Web UI, with "include
cross-origin credentials"). CORS answers only the Web UI's origins (preflight included). Binds 127.0.0.1.

Other features add their pages and APIs with `@register_routes` (or `build_app(extensions=[...])`): each
extension gets the app and adds routes to `app.router`; they are protected by the same token.
"""

from __future__ import annotations

import hmac
import html
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field

from aiohttp import web
from google.protobuf import json_format
from temporalio.api.common.v1 import Payload, Payloads

from core.codec import KEYS_FILE_ENV, CodecError, EncryptionCodec

COOKIE = "colloquy_token"
MAX_BODY_BYTES = 16 * 1024 * 1024  # a batch of payloads (each up to Temporal's 2 MB blob limit)
ALLOWED_HEADERS = "Authorization, Content-Type, X-Namespace"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Extension = Callable[[web.Application], None]


@dataclass(frozen=True)
class ServeConfig:
    token: str = field(repr=False)
    codec: EncryptionCodec | None = None
    origins: frozenset[str] = frozenset()


CONFIG = web.AppKey("colloquy_serve_config", ServeConfig)
_EXTENSIONS: list[Extension] = []


def public(handler: Handler) -> Handler:
    """Mark a route handler as reachable without the token (it must show no personal data)."""
    handler.colloquy_public = True  # type: ignore[attr-defined]
    return handler


def register_routes(extension: Extension) -> Extension:
    """Register a function that adds routes to every app `build_app` makes (for other features' pages/APIs)."""
    _EXTENSIONS.append(extension)
    return extension


def authorised(request: web.Request) -> bool:
    token = request.app[CONFIG].token
    header = request.headers.get("Authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode()):
        return True
    cookie = request.cookies.get(COOKIE)
    return cookie is not None and hmac.compare_digest(cookie.encode(), token.encode())


def _cors_headers(request: web.Request) -> dict[str, str]:
    origin = request.headers.get("Origin")
    if not origin or origin not in request.app[CONFIG].origins:
        return {}
    return {"Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true",
            "Access-Control-Allow-Methods": "GET, POST, OPTIONS", "Access-Control-Allow-Headers": ALLOWED_HEADERS,
            "Access-Control-Max-Age": "600", "Vary": "Origin"}


@web.middleware
async def cors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Answer preflights for the allowed origins (no token: browsers send none there); add the CORS headers
    to every answer, errors included, so the Web UI can tell a 401 from a network error."""
    cors = _cors_headers(request)
    if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
        return web.Response(status=204 if cors else 403, headers=cors)
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        response = web.Response(status=exc.status, reason=exc.reason, text=exc.text, headers=exc.headers)
    if cors and not response.prepared:
        response.headers.update(cors)
    return response


@web.middleware
async def auth_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    route_handler = getattr(request.match_info, "handler", None)
    if getattr(route_handler, "colloquy_public", False) or authorised(request):
        return await handler(request)
    return web.json_response({"error": "unauthorised: send 'Authorization: Bearer <token>' (the token "
                              "`colloquy serve` printed, or COLLOQUY_SERVE_TOKEN), or sign in at /login"},
                             status=401, headers={"WWW-Authenticate": 'Bearer realm="colloquy"'})


async def _convert(request: web.Request, direction: str) -> web.Response:
    codec = request.app[CONFIG].codec
    if codec is None:
        return web.json_response({"error": f"payload encryption is off: set {KEYS_FILE_ENV} (see `colloquy keys "
                                  "new`) and restart `colloquy serve`"}, status=503)
    try:
        body = Payloads()
        json_format.Parse(await request.read(), body, ignore_unknown_fields=True)
    except (json_format.ParseError, UnicodeDecodeError, ValueError) as exc:
        return web.json_response({"error": f'expected {{"payloads": [...]}} (Temporal codec JSON): {exc}'},
                                 status=400)
    payloads: Sequence[Payload] = list(body.payloads)
    try:
        out = await (codec.encode(payloads) if direction == "encode" else codec.decode(payloads))
    except CodecError as exc:
        return web.json_response({"error": str(exc)}, status=422)
    return web.Response(text=json_format.MessageToJson(Payloads(payloads=out)), content_type="application/json")


async def codec_encode(request: web.Request) -> web.Response:
    return await _convert(request, "encode")


async def codec_decode(request: web.Request) -> web.Response:
    return await _convert(request, "decode")


@public
async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"ok": True, "codec": request.app[CONFIG].codec is not None})


_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Colloquy</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">{body}</body></html>"""


@public
async def index(request: web.Request) -> web.Response:
    state = "signed in" if authorised(request) else 'not signed in (<a href="/login">sign in</a>)'
    return web.Response(content_type="text/html", text=_PAGE.format(body=(
        f"<h1>Colloquy</h1><p>This browser is {state}.</p><p>Codec endpoint for the Temporal Web UI and CLI: "
        f"<code>{html.escape(str(request.url.with_path('/codec').with_query(None)))}</code></p>")))


def _next_path(value: object) -> str | None:
    """Where to go after signing in: a path on this server only (never another site)."""
    text = str(value or "")
    return text if text.startswith("/") and not text.startswith("//") and "\\" not in text else None


@public
async def login_form(request: web.Request) -> web.Response:
    nxt = _next_path(request.query.get("next"))
    hidden = f'<input type="hidden" name="next" value="{html.escape(nxt)}">' if nxt else ""
    return web.Response(content_type="text/html", text=_PAGE.format(body=(
        f'<h1>Sign in</h1><form method="post" action="/login">{hidden}<label>Token <input type="password" '
        'name="token" autofocus autocomplete="off"></label> <button>Sign in</button></form><p>The token is the one '
        "<code>colloquy serve</code> printed (or COLLOQUY_SERVE_TOKEN).</p>")))


@public
async def login(request: web.Request) -> web.Response:
    form = await request.post()
    given = str(form.get("token", "")).strip()
    if not hmac.compare_digest(given.encode(), request.app[CONFIG].token.encode()):
        return web.Response(status=401, content_type="text/html",
                            text=_PAGE.format(body='<p>Wrong token. <a href="/login">Try again</a>.</p>'))
    nxt = _next_path(form.get("next"))
    response = web.Response(status=303, headers={"Location": nxt}) if nxt else web.Response(
        content_type="text/html", text=_PAGE.format(body=(
        "<p>Signed in. The Temporal Web UI can now decode payloads through this server: in its Codec Server "
        "settings use this server's <code>/codec</code> endpoint and tick “include cross-origin credentials”."
        "</p>")))
    # Same site as the Web UI on 127.0.0.1 (ports don't make sites differ), so its credentialed fetches carry it.
    response.set_cookie(COOKIE, given, httponly=True, samesite="Strict", path="/")
    return response


def build_app(token: str, codec: EncryptionCodec | None = None, origins: Iterable[str] = (),
              extensions: Iterable[Extension] = ()) -> web.Application:
    """The aiohttp app: codec endpoints, sign-in, health, plus the routes of registered extensions."""
    if not token:
        raise ValueError("colloquy serve needs a non-empty token")
    app = web.Application(middlewares=[cors_middleware, auth_middleware], client_max_size=MAX_BODY_BYTES)
    app[CONFIG] = ServeConfig(token=token, codec=codec, origins=frozenset(o.rstrip("/") for o in origins))
    app.router.add_get("/", index)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/login", login_form)
    app.router.add_post("/login", login)
    app.router.add_post("/codec/encode", codec_encode)
    app.router.add_post("/codec/decode", codec_decode)
    for extension in (*_EXTENSIONS, *extensions):
        extension(app)
    return app
