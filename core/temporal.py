"""Connecting to Temporal: the one place a client is made (the pydantic converter of core/converter.py + tracing everywhere; payload
encryption when COLLOQUY_CODEC_KEYS_FILE is set, see core/codec.py).

`connect_options(settings)` turns settings (flags / TEMPORAL_* env) into `Client.connect` arguments and fails
early with a clear message on a bad TLS set-up; `connect(settings)` connects.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from temporalio.client import Client, TLSConfig

from core.codec import KeyringError, data_converter
from core.converter import colloquy_data_converter
from core.settings import TemporalProfileError, TemporalSettings
from core.telemetry import tracing_interceptors

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


class TemporalConfigError(ValueError):
    """The Temporal connection settings are unusable (missing/invalid TLS files, half an mTLS pair, a bad
    client profile)."""


__all__ = ["TemporalConfigError", "TemporalProfileError", "connect", "connect_options"]


def _read_pem(path: str, what: str, flag: str) -> bytes:
    file = Path(path).expanduser()
    if not file.is_file():
        raise TemporalConfigError(f"{what} file {file} does not exist ({flag})")
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise TemporalConfigError(f"cannot read {what} file {file}: {exc.strerror} ({flag})") from exc
    if b"-----BEGIN" not in data:
        raise TemporalConfigError(f"{what} file {file} is not PEM (no '-----BEGIN' line) ({flag})")
    return data


def connect_options(settings: TemporalSettings) -> dict[str, Any]:
    """`Client.connect` keyword arguments for these settings (without converter/interceptors).

    TLS is on when asked for (`--tls`, TEMPORAL_TLS, a profile's `[tls]`), when any certificate is given, or
    when an API key is set for a non-local address (Temporal Cloud API keys require TLS). The API key comes
    from the environment variable named by `settings.api_key_env` (TEMPORAL_API_KEY) or the profile file:
    never from a flag, never into a payload.
    """
    has_cert = bool(settings.tls_cert or settings.tls_data.get("tls_cert"))
    has_key = bool(settings.tls_key or settings.tls_data.get("tls_key"))
    if has_cert != has_key:
        given = ("--tls-cert/TEMPORAL_TLS_CERT is set (or TEMPORAL_TLS_CLIENT_CERT_PATH)" if has_cert
                 else "--tls-key/TEMPORAL_TLS_KEY is set (or TEMPORAL_TLS_CLIENT_KEY_PATH)")
        raise TemporalConfigError(f"mTLS needs both a client certificate and its private key; only {given}")
    api_key = os.environ.get(settings.api_key_env) or settings.api_key or None
    host = settings.address.rsplit(":", 1)[0]
    wants_tls = settings.tls or has_cert or bool(settings.tls_ca or settings.tls_data.get("tls_ca")) or (
        api_key is not None and host not in LOCAL_HOSTS)
    tls: TLSConfig | bool = False
    if wants_tls:
        tls = TLSConfig(
            client_cert=_pem(settings, "tls_cert", "TLS client certificate", "--tls-cert / TEMPORAL_TLS_CERT"),
            client_private_key=_pem(settings, "tls_key", "TLS client key", "--tls-key / TEMPORAL_TLS_KEY"),
            server_root_ca_cert=_pem(settings, "tls_ca", "TLS CA certificate", "--tls-ca / TEMPORAL_TLS_CA"),
            domain=settings.tls_server_name,
        )
    options: dict[str, Any] = {"target_host": settings.address, "namespace": settings.namespace, "tls": tls,
                               "api_key": api_key}
    if settings.extra:
        options["rpc_metadata"] = dict(settings.extra)
    return options


def _pem(settings: TemporalSettings, key: str, what: str, flag: str) -> bytes | None:
    path = getattr(settings, key)
    if path:
        return _read_pem(path, what, flag)
    return settings.tls_data.get(key)


async def connect(settings: TemporalSettings | None = None) -> Client:
    settings = settings or TemporalSettings.from_env()
    options = connect_options(settings)
    try:
        converter = data_converter(colloquy_data_converter)
    except KeyringError as exc:
        raise TemporalConfigError(f"payload encryption: {exc}") from None
    try:
        return await Client.connect(
            **options, data_converter=converter, interceptors=tracing_interceptors(),
        )
    except RuntimeError as exc:
        raise ConnectionError(
            f"cannot reach Temporal at {settings.address} (namespace {settings.namespace}): {exc}. "
            "Start the embedded server with `colloquy server start`, or set TEMPORAL_ADDRESS."
        ) from exc
