"""OpenTelemetry: a tracer provider configured from the standard OTEL_* environment variables.

OTEL_TRACES_EXPORTER=console prints spans (demo); =otlp sends them to OTEL_EXPORTER_OTLP_ENDPOINT when the
opentelemetry-exporter-otlp package is installed; unset or `none` keeps tracing in-process only (spans still
exist for interceptors, nothing is exported). Temporal's TracingInterceptor goes on the client and workers.
"""

from __future__ import annotations

import os

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
from temporalio.contrib.opentelemetry import TracingInterceptor

_configured = False


def configure_tracing(service_name: str = "colloquy") -> TracerProvider | None:
    global _configured
    if _configured:
        provider = trace.get_tracer_provider()
        return provider if isinstance(provider, TracerProvider) else None
    _configured = True
    exporters = {e.strip() for e in os.environ.get("OTEL_TRACES_EXPORTER", "none").lower().split(",") if e.strip()}
    if os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
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
