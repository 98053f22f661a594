"""Who may act through `colloquy serve` (client/web/app.py): sign-in sessions, cross-site request checks, token
guessing throttled, JSON bodies measured and validated before anything reaches a workflow.

- **Sessions.** Signing in at /login sets `colloquy_session`: a random session id and its HMAC signature (a key
  derived from the serve token) — never the token itself. HttpOnly, SameSite=Strict, `Secure` when the request
  came over TLS (directly or through a proxy saying `X-Forwarded-Proto: https`); 12 hours; POST /logout ends it
  (the server forgets the id, so a copied cookie stops working too). A restart of `colloquy serve` ends every
  session.
- **Cross-site requests.** Every state-changing request (POST, PUT, PATCH, DELETE) made with a browser's
  credentials must come from this server's own pages: its `Origin` (else `Sec-Fetch-Site`) must be this server
  or an allowed Web UI origin, and the JSON APIs also need the header `X-Colloquy-CSRF` — for a signed-in
  session its CSRF token (given to the pages in `<meta name="colloquy-csrf">`, read by client/web/csrf.js). A
  custom header cannot be sent cross-origin without a CORS preflight, which only the Web UI's origins pass.
  Requests with `Authorization: Bearer <token>` (the CLI, scripts) carry no ambient credentials and are not
  checked. JSON APIs refuse other content types (415): a `text/plain` "simple request" cannot reach them.
- **Guessing.** Five wrong tokens from one address in a minute (at /login or as a bearer token) → 429 with
  Retry-After for the rest of the minute; sixty in a minute from everywhere together → 429 for everyone.
  A serve token must have at least MIN_TOKEN_CHARS characters.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import web
from pydantic import BaseModel

from rules.inputs import InvalidInput, parse_input, raw_problems

SESSION_COOKIE = "colloquy_session"
CSRF_HEADER = "X-Colloquy-CSRF"
CSRF_META = "colloquy-csrf"
MIN_TOKEN_CHARS = 16
SESSION_SECONDS = 12 * 3600
FAILS_PER_CLIENT = 5
FAILS_OVERALL = 60
WINDOW_SECONDS = 60.0
MAX_JSON_BYTES = 512 * 1024          # a JSON body of the pages' APIs (the codec has its own, larger limit)
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})

M = TypeVar("M", bound=BaseModel)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class WeakTokenError(ValueError):
    """The serve token is too short to stand guessing."""


def check_token(token: str) -> str:
    if len(token) < MIN_TOKEN_CHARS:
        raise WeakTokenError(f"the serve token is {len(token)} characters; use at least {MIN_TOKEN_CHARS} (e.g. "
                             "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`)")
    return token


# ------------------------------------------------------------------------------------------ sessions
@dataclass
class Sessions:
    """Signed session cookies, stateless: `<id>.<expiry>.<signature>` under a key derived from the serve token, so
    any `colloquy serve` replica with the same token (COLLOQUY_SERVE_TOKEN) accepts a cookie another one issued
    (behind a load balancer, on a restart). Logout ends the session on the replica that served it and deletes the
    browser's cookie; changing the token ends every session everywhere."""

    token: str = field(repr=False)
    seconds: float = SESSION_SECONDS
    ended: dict[str, float] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._key = hmac.new(self.token.encode(), b"colloquy-session-key", hashlib.sha256).digest()

    def _sign(self, sid: str, until: int) -> str:
        return hmac.new(self._key, f"session\x00{sid}\x00{until}".encode(), hashlib.sha256).hexdigest()[:32]

    def new(self, now: float | None = None) -> str:
        now = time.time() if now is None else now
        self.ended = {s: t for s, t in self.ended.items() if t > now}
        sid, until = secrets.token_urlsafe(24), int(now + self.seconds)
        return f"{sid}.{until}.{self._sign(sid, until)}"

    def session_id(self, cookie: str | None, now: float | None = None) -> str | None:
        """The session id of a valid, unexpired cookie not ended here, else None."""
        if not cookie or len(cookie) > 200 or cookie.count(".") != 2:
            return None
        sid, until_text, sig = cookie.split(".")
        if not until_text.isdigit() or len(until_text) > 12:
            return None
        until = int(until_text)
        if not hmac.compare_digest(sig.encode(), self._sign(sid, until).encode()):
            return None
        if until <= (time.time() if now is None else now) or sid in self.ended:
            return None
        return sid

    def csrf(self, sid: str) -> str:
        return hmac.new(self._key, b"csrf\x00" + sid.encode(), hashlib.sha256).hexdigest()[:32]

    def end(self, cookie: str | None) -> None:
        sid = self.session_id(cookie)
        if sid is not None:
            self.ended[sid] = float(cookie.split(".")[1]) if cookie else 0.0


# ------------------------------------------------------------------------------------------ guessing
@dataclass
class Throttle:
    """Failed sign-ins per client address (and overall) in a sliding window."""

    per_client: int = FAILS_PER_CLIENT
    overall: int = FAILS_OVERALL
    window: float = WINDOW_SECONDS
    fails: dict[str, deque[float]] = field(default_factory=dict)
    everyone: deque[float] = field(default_factory=deque)

    def _trim(self, q: deque[float], now: float) -> None:
        while q and q[0] <= now - self.window:
            q.popleft()

    def retry_after(self, who: str, now: float | None = None) -> float:
        """Seconds this client must wait before trying again (0: it may try now)."""
        now = time.monotonic() if now is None else now
        q = self.fails.get(who, deque())
        self._trim(q, now)
        self._trim(self.everyone, now)
        waits = [0.0]
        if len(q) >= self.per_client:
            waits.append(q[0] + self.window - now)
        if len(self.everyone) >= self.overall:
            waits.append(self.everyone[0] + self.window - now)
        return max(waits)

    def failed(self, who: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if len(self.fails) > 10_000:
            self.fails.clear()
        self.fails.setdefault(who, deque()).append(now)
        self.everyone.append(now)


def too_many(wait: float) -> web.Response:
    seconds = max(1, int(wait + 0.999))
    return web.json_response({"error": f"too many wrong tokens: try again in {seconds} s"}, status=429,
                             headers={"Retry-After": str(seconds)})


def client_address(request: web.Request) -> str:
    return request.remote or "unknown"


# ------------------------------------------------------------------------------------------ origin
def form_route(handler: Handler) -> Handler:
    """Mark a handler that takes an HTML form post (no custom header possible): Origin-checked only."""
    handler.colloquy_form = True  # type: ignore[attr-defined]
    return handler


def csrf_exempt(handler: Handler) -> Handler:
    """Mark a handler that changes nothing (the codec's pure transforms): no CSRF header needed."""
    handler.colloquy_csrf_exempt = True  # type: ignore[attr-defined]
    return handler


def own_origin(request: web.Request) -> set[str]:
    hosts = {request.host, request.headers.get("X-Forwarded-Host", "")} - {""}
    return {f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")}


def cross_site_problem(request: web.Request, allowed: frozenset[str]) -> str | None:
    """Why this state-changing request looks like it comes from another site's page (None: it does not)."""
    origin = request.headers.get("Origin")
    site = request.headers.get("Sec-Fetch-Site")
    if origin == "null" and site == "same-origin":   # a page of ours whose referrer policy hid its origin
        return None
    if origin is not None:
        origin = origin.rstrip("/")
        if origin in own_origin(request) or origin in allowed:
            return None
        return f"a request from {origin[:100]!r} may not act here (only this server's own pages may)"
    if site is not None and site not in ("same-origin", "none"):
        return f"a {site[:20]} request may not act here (only this server's own pages may)"
    return None


@web.middleware
async def same_site_only(request: web.Request, handler: Handler) -> web.StreamResponse:
    """For an app served without the token (`colloquy notes serve`): no state-changing request from another
    site's page (its JSON-only bodies already force a CORS preflight, which it never answers)."""
    if request.method in UNSAFE:
        problem = cross_site_problem(request, frozenset())
        if problem:
            return forbidden(problem)
    return await handler(request)


def forbidden(message: str) -> web.Response:
    return web.json_response({"error": message}, status=403)


# ------------------------------------------------------------------------------------------ bodies
def _bad(status: int, message: str) -> web.HTTPException:
    cls = {400: web.HTTPBadRequest, 413: web.HTTPRequestEntityTooLarge, 415: web.HTTPUnsupportedMediaType}[status]
    if cls is web.HTTPRequestEntityTooLarge:
        return web.HTTPRequestEntityTooLarge(max_size=MAX_JSON_BYTES, actual_size=0,
                                             text=json.dumps({"error": message}), content_type="application/json")
    return cls(text=json.dumps({"error": message}), content_type="application/json")


async def json_object(request: web.Request, limit: int = MAX_JSON_BYTES) -> dict[str, Any]:
    """The request's JSON object: application/json only (415), at most `limit` bytes (413), valid UTF-8 JSON, no
    lone surrogate, not nested past rules.inputs.MAX_DEPTH, numbers in range (400) — one clear message each."""
    if request.content_type != "application/json":
        raise _bad(415, f"send the body as JSON with 'Content-Type: application/json' (got "
                        f"{request.content_type[:60]!r})")
    if request.content_length is not None and request.content_length > limit:
        raise _bad(413, f"the body is {request.content_length:,} bytes; at most {limit:,}")
    body = await request.content.read(limit + 1)
    if len(body) > limit:
        raise _bad(413, f"the body is over {limit:,} bytes")
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise _bad(400, "the body is not UTF-8 text") from None
    except RecursionError:
        raise _bad(400, "the body is nested too deep") from None
    except ValueError as exc:
        raise _bad(400, f"the body is not JSON: {str(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise _bad(400, "the body must be a JSON object")
    problems = raw_problems(data, limit)
    if problems:
        raise _bad(400, "; ".join(problems))
    return data


def as_model(model: type[M], data: Any, what: str) -> M:
    """`data` as `model` or 400 naming every bad field (the same messages as the workflows' doors)."""
    try:
        return parse_input(model, data, what)
    except InvalidInput as exc:
        raise _bad(400, str(exc)) from None
