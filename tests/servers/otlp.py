"""A local OTLP/HTTP trace receiver: `POST /v1/traces` with a protobuf `ExportTraceServiceRequest`
(what Jaeger, Phoenix, Langfuse and the OpenTelemetry Collector accept), recorded and decoded.

`spans` flattens every request into `ReceivedSpan`s with plain-Python attributes, ids as hex and
events, so tests read them without protobuf plumbing. The raw requests stay in `requests` (their
bodies and headers, e.g. to check that no secret was sent in a body).
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.servers.http import LocalHTTPServer, Request, Response

TRACES_PATH = "/v1/traces"


@dataclass
class ReceivedEvent:
    name: str
    time_ns: int
    attributes: dict[str, Any]


@dataclass
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    kind: int
    start_ns: int
    end_ns: int
    status_code: int  # 0 unset, 1 ok, 2 error
    status_message: str
    attributes: dict[str, Any]
    events: list[ReceivedEvent] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # linked span ids
    resource: dict[str, Any] = field(default_factory=dict)


def value_of(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [value_of(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: value_of(item.value) for item in value.kvlist_value.values}
    return getattr(value, kind) if kind else None


def attributes_of(pairs: Any) -> dict[str, Any]:
    return {pair.key: value_of(pair.value) for pair in pairs}


class OtlpReceiver(LocalHTTPServer):
    """Start with `with OtlpReceiver() as receiver:`; point the exporter at `receiver.url`."""

    def __init__(self, status: int = 200) -> None:
        super().__init__()
        self.status = status
        self.exports: list[ExportTraceServiceRequest] = []
        self.route("POST", TRACES_PATH, self._receive)

    def _receive(self, request: Request) -> Response:
        body = request.body
        encoding = {k.lower(): v for k, v in request.headers.items()}.get("content-encoding", "")
        if encoding == "gzip":
            body = gzip.decompress(body)
        elif encoding == "deflate":
            body = zlib.decompress(body)
        message = ExportTraceServiceRequest()
        message.ParseFromString(body)
        self.exports.append(message)
        return Response(
            self.status,
            ExportTraceServiceResponse().SerializeToString(),
            {"Content-Type": "application/x-protobuf"},
        )

    @property
    def spans(self) -> list[ReceivedSpan]:
        found = []
        for export in list(self.exports):
            for resource_spans in export.resource_spans:
                resource = attributes_of(resource_spans.resource.attributes)
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        found.append(
                            ReceivedSpan(
                                name=span.name,
                                trace_id=span.trace_id.hex(),
                                span_id=span.span_id.hex(),
                                parent_span_id=span.parent_span_id.hex(),
                                kind=span.kind,
                                start_ns=span.start_time_unix_nano,
                                end_ns=span.end_time_unix_nano,
                                status_code=span.status.code,
                                status_message=span.status.message,
                                attributes=attributes_of(span.attributes),
                                events=[
                                    ReceivedEvent(e.name, e.time_unix_nano, attributes_of(e.attributes))
                                    for e in span.events
                                ],
                                links=[link.span_id.hex() for link in span.links],
                                resource=resource,
                            )
                        )
        return found
