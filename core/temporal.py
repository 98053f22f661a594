"""Connecting to Temporal: the one place a client is made (pydantic converter + tracing everywhere)."""

from __future__ import annotations

import os
from pathlib import Path

from temporalio.client import Client, TLSConfig
from temporalio.contrib.pydantic import pydantic_data_converter

from core.settings import TemporalSettings
from core.telemetry import tracing_interceptor


async def connect(settings: TemporalSettings | None = None) -> Client:
    settings = settings or TemporalSettings.from_env()
    tls: TLSConfig | bool = False
    if settings.tls or settings.tls_cert:
        tls = TLSConfig(
            client_cert=Path(settings.tls_cert).read_bytes() if settings.tls_cert else None,
            client_private_key=Path(settings.tls_key).read_bytes() if settings.tls_key else None,
            server_root_ca_cert=Path(settings.tls_ca).read_bytes() if settings.tls_ca else None,
        )
    api_key = os.environ.get(settings.api_key_env) or None
    try:
        return await Client.connect(
            settings.address, namespace=settings.namespace, tls=tls, api_key=api_key,
            data_converter=pydantic_data_converter, interceptors=[tracing_interceptor()],
        )
    except RuntimeError as exc:
        raise ConnectionError(
            f"cannot reach Temporal at {settings.address} (namespace {settings.namespace}): {exc}. "
            "Start the embedded server with `colloquy server start`, or set TEMPORAL_ADDRESS."
        ) from exc
