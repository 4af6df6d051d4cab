"""Optional OpenTelemetry export of saved traces over OTLP/HTTP (protobuf), as a side path.

The ContextForge JSON trace is saved first and stays the source of truth; this only sends a copy
(`traces.otlp` makes the spans). It must never cost the user their answer nor slow a turn:
`submit` hands the trace to one background thread (grading and converting) and the SDK's batch
processor sends spans from its own thread, each request bounded by a short timeout. When the
receiver is down or refuses the data, one WARNING says so (naming only the endpoint's scheme, host
and port; never headers, which may hold keys) until an export succeeds again; the OpenTelemetry
exporter's own log lines are dropped, so an outage is not a line per batch.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import unquote, urlsplit

from context_forge.core.trace import TraceRun
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from config.redact import clip, redact
from traces.graders.base import Grade, Grader
from traces.otlp import SpanWriter

logger = logging.getLogger(__name__)

TRACES_PATH = "/v1/traces"
DEFAULT_TIMEOUT_SECONDS = 5.0
SCHEDULE_DELAY_MS = 2000  # spans reach the backend within ~2 s of a turn
FLUSH_EVERY_SPANS = 1000  # the writer waits for the batch queue (2048) to drain past this many
# The exporter logs every failed batch (and each retry) itself; we say it once instead.
# (A logger's filters apply only to records made on it, not to its children's: name the exact ones.)
_LIBRARY_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.common.http",
)


def traces_url(endpoint: str) -> str:
    """`OTEL_EXPORTER_OTLP_ENDPOINT` is a base URL to which OTLP/HTTP adds `/v1/traces`
    (Jaeger `http://localhost:4318`, Phoenix `http://localhost:6006`, Langfuse
    `https://cloud.langfuse.com/api/public/otel`); a URL already ending in it is kept."""
    base = endpoint.strip()
    return base if base.rstrip("/").endswith(TRACES_PATH) else base.rstrip("/") + TRACES_PATH


def shown_endpoint(endpoint: str) -> str:
    """scheme://host:port only: a URL's user info, path or query may hold a key."""
    try:
        parts = urlsplit(endpoint)
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{parts.hostname}{port}" if parts.hostname else "the OTLP endpoint"
    except ValueError:
        return "the OTLP endpoint"


def parse_headers(text: str | None) -> dict[str, str]:
    """`OTEL_EXPORTER_OTLP_HEADERS`: `key=value,key2=value2`, values URL-encoded (so Langfuse's
    `Authorization=Basic%20...` works); entries without `=` are ignored."""
    headers: dict[str, str] = {}
    for entry in (text or "").split(","):
        key, sep, value = entry.partition("=")
        if sep and key.strip():
            headers[unquote(key.strip()).lower()] = unquote(value.strip())
    return headers


class _LibraryLogs(logging.Filter):
    """Drops the OTLP exporter's own records, keeping the last failure's reason for our warning:
    `HTTP 401: Unauthorized`, or the connection error behind "max retries" (`ConnectionError:
    [Errno 111] Connection refused`)."""

    def __init__(self) -> None:
        super().__init__()
        self.last_reason: str | None = None
        self._transient: str | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        if record.msg.startswith("Transient error") and args:
            self._transient = _describe(args[0])
        elif record.levelno >= logging.ERROR:
            if record.msg.startswith("Failed to export %s batch code") and len(args) == 3:
                status, reason = args[1], args[2]
                self.last_reason = f"HTTP {status}: {reason}" if status else _describe(reason)
            else:
                self.last_reason = self._transient or "no answer within the timeout; is it running?"
            self._transient = None
        return False


def _describe(error: object) -> str:
    """An exception as its class and the OS's words ("[Errno 111] Connection refused")."""
    text = str(error)
    if isinstance(error, BaseException):
        detail = text[text.find("[Errno") :].rstrip("')\" ") if "[Errno" in text else text
        return f"{type(error).__name__}: {detail}"
    return text


_REASONS = _LibraryLogs()
_install_lock = threading.Lock()


def _quiet_library_logs() -> _LibraryLogs:
    with _install_lock:
        for name in _LIBRARY_LOGGERS:
            library = logging.getLogger(name)
            if _REASONS not in library.filters:
                library.addFilter(_REASONS)
    return _REASONS


class _WarnOnce(SpanExporter):
    """The real exporter, with one WARNING per outage instead of the library's per-batch lines,
    and never an exception into the batch processor's thread."""

    def __init__(self, inner: SpanExporter, endpoint: str, reasons: _LibraryLogs) -> None:
        self._inner = inner
        self._endpoint = shown_endpoint(endpoint)
        self._reasons = reasons
        self._failing = False
        self.failures = 0
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self._inner.export(spans)
        except Exception as exc:  # noqa: BLE001 - export is best effort
            self._reasons.last_reason = type(exc).__name__
            result = SpanExportResult.FAILURE
        with self._lock:
            failed = result is SpanExportResult.FAILURE
            warn = failed and not self._failing
            self._failing = failed
            self.failures += failed
        if warn:
            reason = clip(redact(self._reasons.last_reason or "no answer"), 200)
            logger.warning(
                "OpenTelemetry export to %s failed (%s); traces are still saved as JSON. "
                "Further failures are not logged until an export succeeds.",
                self._endpoint,
                reason,
            )
        return result

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)


class OtlpTraceExporter:
    """Sends finished traces, with their grades, to an OTLP/HTTP endpoint in the background.

    `graders` grade each submitted trace (off the turn's thread); a grader that raises is left
    out of that trace's events. `exporter` replaces the OTLP exporter (tests)."""

    def __init__(
        self,
        endpoint: str,
        *,
        graders: Sequence[Grader] = (),
        headers: Mapping[str, str] | None = None,
        capture_content: bool = False,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        service_version: str | None = None,
        exporter: SpanExporter | None = None,
    ) -> None:
        self.endpoint = traces_url(endpoint)
        self._graders = list(graders)
        reasons = _quiet_library_logs()
        inner = exporter or OTLPSpanExporter(
            endpoint=self.endpoint,
            headers=dict(headers or {}),
            timeout=timeout,
            compression=Compression.NoCompression,
        )
        self._exporter = _WarnOnce(inner, self.endpoint, reasons)
        self._processor = BatchSpanProcessor(self._exporter, schedule_delay_millis=SCHEDULE_DELAY_MS)
        self._writer = SpanWriter(
            self._processor, capture_content=capture_content, service_version=service_version
        )
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="otlp-export")
        self._unflushed = 0  # spans written since the last flush (touched by the worker only)
        self._closed = False

    def submit(self, trace: TraceRun) -> None:
        """Grade and export `trace` in the background; returns at once, never raises."""
        self._queue(lambda: self._write(trace, self._grade(trace)))

    def submit_graded(self, trace: TraceRun, grades: Sequence[Grade]) -> None:
        """Export a trace already graded (`energy-advisor eval --otlp-endpoint`)."""
        self._queue(lambda: self._write(trace, grades))

    def flush(self) -> bool:
        """Wait until everything submitted so far has been sent (or failed); True when no
        export failed in this flush. Each request is bounded by the exporter's timeout."""
        if self._closed:
            return False
        failures = self._exporter.failures
        self._worker.submit(lambda: None).result()  # one worker: everything before it is written
        return self._processor.force_flush() and self._exporter.failures == failures

    def close(self) -> None:
        """Send what is pending (bounded by the timeout) and stop the threads."""
        if self._closed:
            return
        self._closed = True
        self._worker.shutdown(wait=True)
        self._writer.shutdown()

    def _queue(self, job: Callable[[], None]) -> None:
        if self._closed:
            return
        try:
            self._worker.submit(self._run, job)
        except RuntimeError:  # shut down meanwhile
            return

    def _write(self, trace: TraceRun, grades: Sequence[Grade]) -> None:
        """Write in the worker; past FLUSH_EVERY_SPANS unsent spans, send them before going on, so
        a burst (`eval` of a folder) never overflows the batch queue (each dropped span logs)."""
        self._unflushed += self._writer.write(trace, grades)
        if self._unflushed >= FLUSH_EVERY_SPANS:
            self._processor.force_flush()
            self._unflushed = 0

    @staticmethod
    def _run(job: Callable[[], None]) -> None:
        try:
            job()
        except Exception:  # a trace we cannot convert is skipped, the JSON file has it all
            logger.warning("Could not convert a trace for OpenTelemetry export", exc_info=True)

    def _grade(self, trace: TraceRun) -> list[Grade]:
        grades = []
        for grader in self._graders:
            try:
                grades.append(grader.grade(trace))
            except Exception:  # noqa: BLE001 - a grader bug costs its event only
                logger.debug("Grader %s failed on trace %s", grader.name, trace.run_id, exc_info=True)
        return grades
