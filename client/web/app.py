"""Colloquy's HTTP app (aiohttp; run by `colloquy serve`, client/web/serve.py): the Temporal remote codec endpoints
here; the interview room and console (client/web/interview/room.py) and the notes API (client/query/cli.py, under /notes) are
added by `colloquy serve` as extensions.

    POST /codec/encode, POST /codec/decode   the Temporal codec-server protocol: JSON {"payloads": [...]} with
                                             base64 fields in and out (the Web UI and `temporal --codec-endpoint`)
    GET  /login, POST /login                 a browser signs in with the token once (a signed session cookie, not
                                             the token); `?next=` a path here to go back to (the console)
    POST /logout                             ends this browser's session
    GET  /healthz, GET /                     public, no data
    GET  /openapi.json                       public: every route this app answers (its router, extensions and
                                             /notes included) with the JSON bodies of models/web.py

Every route is protected by a bearer token unless marked `@public`: `Authorization: Bearer <token>` (the
`temporal` CLI's `--codec-auth "Bearer <token>"`) or the session cookie set by /login (the Web UI, with "include
cross-origin credentials"). CORS answers only the Web UI's origins (preflight included). Binds 127.0.0.1.
Cross-site request checks, CSRF tokens, sessions and sign-in throttling: client/web/guard.py.

Other features add their pages and APIs with `@register_routes` (or `build_app(extensions=[...])`): each
extension gets the app and adds routes to `app.router`; they are protected by the same token.
"""

from __future__ import annotations

import hmac
import html
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field

from aiohttp import web
from google.protobuf import json_format
from temporalio.api.common.v1 import Payload, Payloads

from client.web.guard import (
    CSRF_HEADER,
    CSRF_META,
    SESSION_COOKIE,
    UNSAFE,
    Sessions,
    Throttle,
    check_token,
    client_address,
    cross_site_problem,
    csrf_exempt,
    forbidden,
    form_route,
    too_many,
)
from core.codec import KEYS_FILE_ENV, CodecError, EncryptionCodec

COOKIE = SESSION_COOKIE
MAX_BODY_BYTES = 16 * 1024 * 1024  # a batch of payloads (each up to Temporal's 2 MB blob limit)
ALLOWED_HEADERS = "Authorization, Content-Type, X-Namespace"
log = logging.getLogger("colloquy.serve")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Extension = Callable[[web.Application], None]


@dataclass(frozen=True)
class ServeConfig:
    token: str = field(repr=False)
    codec: EncryptionCodec | None = None
    origins: frozenset[str] = frozenset()


CONFIG = web.AppKey("colloquy_serve_config", ServeConfig)
SESSIONS = web.AppKey("colloquy_sessions", Sessions)
THROTTLE = web.AppKey("colloquy_throttle", Throttle)
_EXTENSIONS: list[Extension] = []


def public(handler: Handler) -> Handler:
    """Mark a route handler as reachable without the token (it must show no personal data)."""
    handler.colloquy_public = True  # type: ignore[attr-defined]
    return handler


def register_routes(extension: Extension) -> Extension:
    """Register a function that adds routes to every app `build_app` makes (for other features' pages/APIs)."""
    _EXTENSIONS.append(extension)
    return extension


def bearer(request: web.Request) -> bool | None:
    """True: a right bearer token; False: a wrong one; None: none given."""
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return hmac.compare_digest(given.strip().encode(), request.app[CONFIG].token.encode())


def session_id(request: web.Request) -> str | None:
    return request.app[SESSIONS].session_id(request.cookies.get(COOKIE))


def authorised(request: web.Request) -> bool:
    return bool(bearer(request)) or session_id(request) is not None


def csrf_token(request: web.Request) -> str:
    """The CSRF token the pages send back in X-Colloquy-CSRF ("page" when not signed in: the public pages)."""
    sid = session_id(request)
    return request.app[SESSIONS].csrf(sid) if sid else "page"


def with_csrf(request: web.Request, page: str) -> str:
    """An HTML page with this session's CSRF token in `<meta name="colloquy-csrf">` (client/web/csrf.js)."""
    meta = f'<meta name="{CSRF_META}" content="{html.escape(csrf_token(request))}">'
    return page.replace("<head>", "<head>" + meta, 1)


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
async def guard_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """State-changing requests made with a browser's credentials must come from this server's own pages."""
    if request.method in UNSAFE and bearer(request) is not True:
        route_handler = getattr(request.match_info, "handler", None)
        problem = cross_site_problem(request, request.app[CONFIG].origins)
        if problem:
            return forbidden(problem)
        signed_in = session_id(request) is not None
        public_route = getattr(route_handler, "colloquy_public", False)
        if (signed_in or public_route) and not getattr(route_handler, "colloquy_form", False) and \
                not getattr(route_handler, "colloquy_csrf_exempt", False):
            sent = request.headers.get(CSRF_HEADER, "")
            expected = csrf_token(request) if signed_in else None
            if not sent or (expected is not None and not hmac.compare_digest(sent.encode(), expected.encode())):
                return forbidden(f"missing or stale {CSRF_HEADER} header: use this server's pages (reload the "
                                 "page), or send 'Authorization: Bearer <token>'")
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except Exception as exc:       # a door must answer: never a bare 500 with a traceback
        from client.web.errors import FAILED, answer_for, participant_text, request_language

        language = request_language(request)       # a participant's: the answer is said in it (errors.py)
        answer = answer_for(exc, language)
        if answer is None:
            log.exception("unexpected error on %s %s", request.method, request.path)
            detail = f"internal error ({type(exc).__name__}); see the server log"
            return web.json_response({"error": participant_text(FAILED, language), "detail": detail} if language
                                     else {"error": detail}, status=500)
        return answer


@web.middleware
async def auth_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    route_handler = getattr(request.match_info, "handler", None)
    if getattr(route_handler, "colloquy_public", False):
        return await handler(request)
    if "Authorization" in request.headers:
        # while an address is locked out no token it sends is even compared: guessing gets no answer at all
        throttle, who = request.app[THROTTLE], client_address(request)
        wait = throttle.retry_after(who)
        if wait > 0:
            return too_many(wait)
        if bearer(request) is False:
            throttle.failed(who)
    if authorised(request):
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


@csrf_exempt
async def codec_encode(request: web.Request) -> web.Response:
    return await _convert(request, "encode")


@csrf_exempt
async def codec_decode(request: web.Request) -> web.Response:
    return await _convert(request, "decode")


def served_routes(app: web.Application) -> list[tuple[str, str, str, bool]]:
    """(method, path, summary, public) of every route `app` answers, sub-apps included (aiohttp lists their
    routes under the prefix), HEAD left out (aiohttp adds one to each GET); the summary is the handler's
    docstring's first line."""
    out: dict[tuple[str, str], tuple[str, str, str, bool]] = {}
    for route in app.router.routes():
        method = route.method.lower()
        if method in ("head", "options") or route.resource is None:
            continue
        handler = route.handler
        summary = (getattr(handler, "__doc__", None) or "").strip().split("\n")[0] or handler.__name__
        out.setdefault((method, route.resource.canonical), (method, route.resource.canonical, summary,
                                                            bool(getattr(handler, "colloquy_public", False))))
    return list(out.values())


@public
async def openapi_description(request: web.Request) -> web.Response:
    """Every route this server answers (its router) with the JSON bodies of models/web.py."""
    from models.web import openapi

    return web.json_response(openapi(served_routes(request.app)))


@public
async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"ok": True, "codec": request.app[CONFIG].codec is not None})


_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Colloquy</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">{body}</body></html>"""


@public
async def index(request: web.Request) -> web.Response:
    signed_in = session_id(request) is not None
    state = "signed in" if signed_in else 'not signed in (<a href="/login">sign in</a>)'
    logout = (f'<form method="post" action="/logout"><input type="hidden" name="csrf" '
              f'value="{html.escape(csrf_token(request))}"><button>Sign out</button></form>') if signed_in else ""
    return web.Response(content_type="text/html", text=_PAGE.format(body=(
        f"<h1>Colloquy</h1><p>This browser is {state}.</p>{logout}<p>Codec endpoint for the Temporal Web UI and "
        f"CLI: <code>{html.escape(str(request.url.with_path('/codec').with_query(None)))}</code></p>")),
        headers=PAGE_HEADERS)


PAGE_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
                "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; form-action 'self'; "
                                           "frame-ancestors 'none'",
                "X-Frame-Options": "DENY"}
_LOCAL_PATH = re.compile(r"/(?![/\\])[A-Za-z0-9_\-./~%?=&+:@,;]*")


def _next_path(value: object) -> str | None:
    """Where to go after signing in: a path on this server only (never another site): it starts with one '/',
    and has no backslash, whitespace or control character (browsers drop tabs and newlines: '/\t/evil' would
    become '//evil'), and no encoded slash or backslash right after the first one."""
    text = str(value or "")
    if len(text) > 2000 or not _LOCAL_PATH.fullmatch(text):
        return None
    lowered = text.lower()
    if lowered.startswith(("/%2f", "/%5c", "/%09", "/%0a", "/%0d")):
        return None
    return text


@public
async def login_form(request: web.Request) -> web.Response:
    nxt = _next_path(request.query.get("next"))
    hidden = f'<input type="hidden" name="next" value="{html.escape(nxt)}">' if nxt else ""
    return web.Response(content_type="text/html", headers=PAGE_HEADERS, text=_PAGE.format(body=(
        f'<h1>Sign in</h1><form method="post" action="/login">{hidden}<label>Token <input type="password" '
        'name="token" autofocus autocomplete="off"></label> <button>Sign in</button></form><p>The token is the one '
        "<code>colloquy serve</code> printed (or COLLOQUY_SERVE_TOKEN).</p>")))


@public
@form_route
async def login(request: web.Request) -> web.Response:
    throttle, who = request.app[THROTTLE], client_address(request)
    wait = throttle.retry_after(who)
    if wait > 0:
        return too_many(wait)
    if request.content_type not in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return web.json_response({"error": "sign in with the form at /login"}, status=415)
    form = await request.post()
    given = str(form.get("token", "")).strip()
    if not hmac.compare_digest(given.encode(), request.app[CONFIG].token.encode()):
        throttle.failed(who)
        return web.Response(status=401, content_type="text/html", headers=PAGE_HEADERS,
                            text=_PAGE.format(body='<p>Wrong token. <a href="/login">Try again</a>.</p>'))
    nxt = _next_path(form.get("next"))
    response = web.Response(status=303, headers={"Location": nxt}) if nxt else web.Response(
        content_type="text/html", text=_PAGE.format(body=(
        "<p>Signed in. The Temporal Web UI can now decode payloads through this server: in its Codec Server "
        "settings use this server's <code>/codec</code> endpoint and tick “include cross-origin credentials”."
        "</p>")))
    # Same site as the Web UI on 127.0.0.1 (ports don't make sites differ), so its credentialed fetches carry it.
    # The cookie is a signed session id, never the token; Secure when the browser came over TLS.
    response.set_cookie(COOKIE, request.app[SESSIONS].new(), httponly=True, samesite="Strict", path="/",
                        secure=over_tls(request), max_age=int(request.app[SESSIONS].seconds))
    return response


def over_tls(request: web.Request) -> bool:
    return request.secure or request.headers.get("X-Forwarded-Proto", "").lower() == "https"


@public
@form_route
async def logout(request: web.Request) -> web.Response:
    """End this browser's session (the server forgets it: a copied cookie stops working too)."""
    form = await request.post() if request.content_type == "application/x-www-form-urlencoded" else {}
    sent = str(form.get("csrf", "")) or request.headers.get(CSRF_HEADER, "")
    if session_id(request) is not None and not hmac.compare_digest(sent.encode(), csrf_token(request).encode()):
        return forbidden("sign out from this server's own page")
    request.app[SESSIONS].end(request.cookies.get(COOKIE))
    response = web.Response(status=303, headers={"Location": "/login"})
    response.del_cookie(COOKIE, path="/")
    return response


def build_app(token: str, codec: EncryptionCodec | None = None, origins: Iterable[str] = (),
              extensions: Iterable[Extension] = ()) -> web.Application:
    """The aiohttp app: codec endpoints, sign-in, health, plus the routes of registered extensions."""
    check_token(token)
    app = web.Application(middlewares=[cors_middleware, guard_middleware, auth_middleware],
                          client_max_size=MAX_BODY_BYTES)
    app[CONFIG] = ServeConfig(token=token, codec=codec, origins=frozenset(o.rstrip("/") for o in origins))
    app[SESSIONS] = Sessions(token)
    app[THROTTLE] = Throttle()
    app.router.add_get("/", index)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/login", login_form)
    app.router.add_post("/login", login)
    app.router.add_post("/logout", logout)
    app.router.add_get("/openapi.json", openapi_description)
    app.router.add_post("/codec/encode", codec_encode)
    app.router.add_post("/codec/decode", codec_decode)
    for extension in (*_EXTENSIONS, *extensions):
        extension(app)
    return app
