"""Redaction covers a secret's common encodings, not only its exact value (issue 21): an upper-cased echo, base64
(standard and URL-safe, at any alignment inside a longer encoded string such as `Basic base64(user:secret)`),
URL-encoded and hex forms never survive `redact()`."""

from __future__ import annotations

import base64
import string
from urllib.parse import quote, quote_plus

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import secrets

SECRETS = st.text(alphabet=string.ascii_letters + string.digits + "-_./+:=!@", min_size=12, max_size=48)
WORDS = st.text(alphabet=string.ascii_letters + " .,:", max_size=30)


def _echoes(value: str, prefix: bytes) -> list[str]:
    raw = value.encode()
    return [value, value.upper(), value.lower(), quote(value, safe=""), quote_plus(value), raw.hex(),
            raw.hex().upper(), base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode(),
            base64.b64encode(prefix + raw).decode(), base64.urlsafe_b64encode(prefix + raw).decode()]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=SECRETS, before=WORDS, after=WORDS, prefix=st.binary(max_size=5))
def test_no_encoding_of_a_secret_survives(monkeypatch, value, before, after, prefix):
    monkeypatch.setenv("MYAPP_API_KEY", value)
    for echo in _echoes(value, prefix):
        out = secrets.redact(f"{before}|{echo}|{after}")
        assert "***" in out, (echo, out)
        # what is left of the echo cannot give the secret back: the prefix's own characters and a few at the edges
        leftover = out[out.index("|") + 1:out.rindex("|")].replace("***", "")
        assert len(leftover) <= 4 + (len(prefix) * 4 + 2) // 3, (echo, out)
        assert value.lower() not in out.lower()


def test_ordinary_text_is_left_alone(monkeypatch):
    monkeypatch.setenv("MYAPP_API_KEY", "hunter2-correct-horse-battery")
    text = "The letters from Lisbon were burned the winter my father left: 42 of them."
    assert secrets.redact(text) == text
