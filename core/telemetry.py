"""OpenTelemetry: a tracer provider configured from the standard OTEL_* environment variables.

OTEL_TRACES_EXPORTER=console prints spans (demo); =otlp sends them to OTEL_EXPORTER_OTLP_ENDPOINT when the
opentelemetry-exporter-otlp package is installed. Then Temporal's TracingInterceptor goes on the client and
workers. Unset or `none`: no tracer provider and no interceptor — spans nobody exports cost a busy worker ~5 %
of its CPU (docs/performance.md); the gateway's own spans are then OpenTelemetry's no-op ones.
"""

from __future__ import annotations

import os

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
from temporalio.contrib.opentelemetry import TracingInterceptor

_configured = False


def _exporters() -> set[str]:
    return {e.strip() for e in os.environ.get("OTEL_TRACES_EXPORTER", "none").lower().split(",") if e.strip()}


def configure_tracing(service_name: str = "colloquy", in_process: bool = False) -> TracerProvider | None:
    """The SDK tracer provider with the exporters OTEL_TRACES_EXPORTER names, or None when it names none (or
    OTEL_SDK_DISABLED=true). `in_process`: a provider even with no exporter (a test adds its own processor)."""
    global _configured
    provider = trace.get_tracer_provider()
    if isinstance(provider, TracerProvider):
        return provider
    if _configured and not in_process:
        return None
    _configured = True
    exporters = _exporters()
    if os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return None
    if not exporters & {"console", "otlp"} and not in_process:
        return None
    unknown = exporters - {"console", "otlp", "none"}
    if unknown:  # observability settings never stop a worker: say so and carry on
        import logging

        logging.getLogger("colloquy.telemetry").warning(
            "OTEL_TRACES_EXPORTER: unsupported exporter(s) %s ignored: use console, otlp or none", sorted(unknown))
    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", service_name)})
    provider = TracerProvider(resource=resource)
    if "console" in exporters:
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    if "otlp" in exporters:
        try:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        except ImportError as exc:
            raise RuntimeError("OTEL_TRACES_EXPORTER=otlp needs `pip install opentelemetry-exporter-otlp`") from exc
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return provider


def tracing_interceptor() -> TracingInterceptor:
    configure_tracing()
    return TracingInterceptor(trace.get_tracer("colloquy.temporal"))


def tracing_interceptors() -> list[TracingInterceptor]:
    """Temporal's TracingInterceptor when spans go somewhere (an exporter, or a provider set in this process),
    else none."""
    return [tracing_interceptor()] if configure_tracing() is not None else []
