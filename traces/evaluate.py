"""Grade trace files: `python -m traces.evaluate PATH... [--format text|markdown|json|junit] [--config FILE]`.

Paths may be files or folders (searched for *.json). One report covers every trace.
Exit code: 0 when everything passes (WARN allowed), 1 when any grader FAILs,
2 when a path or file cannot be used: missing, unreadable, not a valid ContextForge trace, or holding
values the graders cannot handle (a naive or out-of-range time, a number beyond a double, JSON nested
too deeply, ...). 2 wins over 1: the input is broken, so the run is not a verdict. Either way the
report is complete: every other file is still graded, and each bad file appears as an error entry
(file name and a one-line reason, at most ~200 characters) in every format; a grader that raises
on a file's values makes that file an error entry too, never a crash of the whole run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from context_forge.core.trace import TraceRun
from pydantic import BaseModel, ConfigDict

from config.errors import ConfigError
from config.files import EvalConfig, load_yaml_model
from config.settings import CONFIG_DIR
from traces.graders import Grade, Verdict, all_graders, memorize_runs_beside
from traces.loading import clip
from traces.storage import TraceFileError, load_trace

if TYPE_CHECKING:
    from traces.otlp_export import OtlpTraceExporter

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2
OnGraded = Callable[[TraceRun, list[Grade]], None]
ICONS = {Verdict.PASS: "✅", Verdict.WARN: "⚠️", Verdict.FAIL: "❌"}
ERROR_ICON = "💥"


class GradedTrace(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    path: str
    run_id: str
    grades: list[Grade]

    @property
    def verdict(self) -> Verdict:
        verdicts = {grade.verdict for grade in self.grades}
        return (
            Verdict.FAIL
            if Verdict.FAIL in verdicts
            else Verdict.WARN
            if Verdict.WARN in verdicts
            else Verdict.PASS
        )


class TraceError(BaseModel):
    """A path that could not be graded: `path` and `reason` are printable, `reason` is one line."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class Report(BaseModel):
    traces: list[GradedTrace]
    errors: list[TraceError]

    @property
    def exit_code(self) -> int:
        if self.errors:
            return EXIT_ERROR
        return EXIT_FAIL if any(trace.verdict is Verdict.FAIL for trace in self.traces) else EXIT_PASS


def _error(path: Path, reason: str) -> TraceError:
    return TraceError(path=_shown(path), reason=clip(reason))


def _shown(path: Path) -> str:
    """A path as printed: a file name that is not UTF-8 or holds control characters gets '?'."""
    return "".join(c if c.isprintable() else "?" for c in str(path))


def collect(paths: Sequence[Path]) -> tuple[list[Path], list[TraceError]]:
    files, errors = [], []
    for path in paths:
        if path.is_dir():
            # Regular files only: a FIFO named *.json would block the read forever.
            found = sorted(p for p in path.rglob("*.json") if not p.name.startswith(".") and p.is_file())
            if not found:
                errors.append(_error(path, "no trace files (*.json) in this folder"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        elif path.exists():
            errors.append(_error(path, "not a regular file"))
        else:
            errors.append(_error(path, "no such file or folder"))
    return files, errors


def grade_file(path: Path, config: EvalConfig, on_graded: OnGraded | None = None) -> GradedTrace | TraceError:
    """One file's grades, or why it has none. Loading refuses the values we know the graders
    cannot handle; a grader that still raises costs only this file. `on_graded` gets the trace and
    its grades (the OpenTelemetry export), so traces are not all kept in memory for it."""
    try:
        trace = load_trace(path)
    except TraceFileError as exc:
        return _error(path, exc.reason)
    except (ValueError, OverflowError, TypeError, RecursionError) as exc:  # last guard, not expected
        return _error(path, f"cannot be read ({type(exc).__name__}: {exc})")
    grades = []
    for grader in all_graders(config, memorize_runs_beside(path)):
        try:
            grades.append(grader.grade(trace))
        except Exception as exc:  # noqa: BLE001 - a value no check anticipated: report, go on
            return _error(
                path, f"the {grader.name} grader cannot handle a value in it ({type(exc).__name__}: {exc})"
            )
    if on_graded is not None:
        on_graded(trace, grades)
    return GradedTrace(path=_shown(path), run_id=clip(trace.run_id, 64), grades=grades)


def evaluate(paths: Sequence[Path], config: EvalConfig, on_graded: OnGraded | None = None) -> Report:
    files, errors = collect(paths)
    traces = []
    for path in files:
        result = grade_file(path, config, on_graded)
        (errors if isinstance(result, TraceError) else traces).append(result)
    return Report(traces=traces, errors=errors)


# --- formats ---------------------------------------------------------------------------------


def top_evidence(grade: Grade, limit: int = 3) -> list[str]:
    order = {"error": 0, "warn": 1, "info": 2}
    ranked = sorted(grade.evidence, key=lambda item: order.get(item.severity.value, 3))
    return [f"[{item.severity.value}] {item.description}" for item in ranked[:limit]]


def render_text(report: Report) -> str:
    lines = []
    for trace in report.traces:
        lines.append(f"{trace.path}  (run {trace.run_id})  {trace.verdict.value}")
        for grade in trace.grades:
            lines.append(f"  {grade.verdict.value:<4} {grade.grader_name:<20} score {grade.score:.2f}")
            lines.extend(f"       {line}" for line in top_evidence(grade))
    lines.extend(f"ERROR {error}" for error in report.errors)
    lines.append(_summary(report))
    return "\n".join(lines)


def render_markdown(report: Report) -> str:
    lines = ["| Trace | Grader | Verdict | Score | Evidence |", "| --- | --- | --- | --- | --- |"]
    for trace in report.traces:
        for grade in trace.grades:
            evidence = "<br>".join(line.replace("|", "\\|") for line in top_evidence(grade)) or "-"
            lines.append(
                f"| `{Path(trace.path).name}` | {grade.grader_name} | {ICONS[grade.verdict]} {grade.verdict.value} "
                f"| {grade.score:.2f} | {evidence} |"
            )
    for error in report.errors:
        name = Path(error.path).name.replace("`", "'")
        reason = error.reason.replace("|", "\\|")
        lines.append(f"| `{name}` | - | {ERROR_ICON} ERROR | - | {reason} |")
    lines.append(f"\n{_summary(report)}")
    return "\n".join(lines)


def render_json(report: Report) -> str:
    return json.dumps(
        {
            "traces": [
                {
                    "path": t.path,
                    "run_id": t.run_id,
                    "verdict": t.verdict.value,
                    "grades": [g.to_dict() for g in t.grades],
                }
                for t in report.traces
            ],
            "errors": [{"path": error.path, "reason": error.reason} for error in report.errors],
            "exit_code": report.exit_code,
        },
        indent=2,
        default=str,
    )


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    """Text XML 1.0 can hold: a control character from a trace would make the report unparsable."""
    return _NOT_XML.sub("?", text)


def render_junit(report: Report) -> str:
    cases = sum(len(trace.grades) for trace in report.traces) + len(report.errors)
    failures = sum(grade.verdict is Verdict.FAIL for trace in report.traces for grade in trace.grades)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites tests="{cases}" failures="{failures}" errors="{len(report.errors)}">',
    ]
    for trace in report.traces:
        name = quoteattr(Path(trace.path).name)
        failed = sum(g.verdict is Verdict.FAIL for g in trace.grades)
        lines.append(f'  <testsuite name={name} tests="{len(trace.grades)}" failures="{failed}">')
        for grade in trace.grades:
            lines.append(f"    <testcase classname={name} name={quoteattr(grade.grader_name)}>")
            detail = escape("\n".join(top_evidence(grade, limit=10)))
            if grade.verdict is Verdict.FAIL:
                lines.append(
                    f"      <failure message={quoteattr(f'score {grade.score:.2f}')}>{detail}</failure>"
                )
            elif detail:
                lines.append(f"      <system-out>{grade.verdict.value}: {detail}</system-out>")
            lines.append("    </testcase>")
        lines.append("  </testsuite>")
    for error in report.errors:  # each bad file is a suite of one errored test, named by the file
        name = quoteattr(Path(error.path).name or error.path)
        lines.append(f'  <testsuite name={name} tests="1" failures="0" errors="1">')
        lines.append(f'    <testcase classname={name} name="load">')
        lines.append(f"      <error message={quoteattr(error.reason)}>{escape(str(error))}</error>")
        lines.append("    </testcase>")
        lines.append("  </testsuite>")
    lines.append("</testsuites>")
    return _xml("\n".join(lines))


def printable_output(text: str) -> str:
    """A lone surrogate from a trace's strings (JSON allows "\\ud800") cannot be encoded: '?'."""
    return text.encode("utf-8", "replace").decode("utf-8")


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json, "junit": render_junit}


def _summary(report: Report) -> str:
    counts = {verdict: sum(trace.verdict is verdict for trace in report.traces) for verdict in Verdict}
    return (
        f"{len(report.traces)} trace(s): {counts[Verdict.PASS]} passed, {counts[Verdict.WARN]} warned, "
        f"{counts[Verdict.FAIL]} failed; {len(report.errors)} unreadable"
    )


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m traces.evaluate") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="trace files or folders")
    parser.add_argument("--format", choices=sorted(RENDERERS), default="text")
    parser.add_argument(
        "--config", type=Path, default=CONFIG_DIR / "eval.yaml", help="grader thresholds (eval.yaml)"
    )
    parser.add_argument(
        "--otlp-endpoint",
        metavar="URL",
        help="also send the graded traces, verdicts as evaluation events, to this OTLP/HTTP endpoint "
        "(e.g. http://localhost:4318; headers and content capture from OTEL_* settings)",
    )
    args = parser.parse_args(argv)
    try:
        config = load_yaml_model(args.config, EvalConfig)
    except ConfigError as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    exporter = None
    if args.otlp_endpoint:
        exporter = otlp_exporter(args.otlp_endpoint)  # the OpenTelemetry SDK is imported only then
        if exporter is None:
            return EXIT_ERROR
    report = evaluate(args.paths, config, exporter.submit_graded if exporter is not None else None)
    if exporter is not None:
        finish_export(exporter, len(report.traces))
    print(printable_output(RENDERERS[args.format](report)))
    # The text report already lists them: on a terminal they would show twice.
    if not (args.format == "text" and _same_terminal()):
        for error in report.errors:
            print(f"error: {error}", file=sys.stderr)
    return report.exit_code


def otlp_exporter(endpoint: str) -> OtlpTraceExporter | None:
    """The exporter for `--otlp-endpoint`, with headers and content capture from the OTEL_*
    settings (environment / .env); None after printing why when a setting is unusable."""
    from config.settings import load_settings
    from traces.otlp_export import OtlpTraceExporter, parse_headers

    try:
        settings = load_settings(otel_exporter_otlp_endpoint=endpoint)
    except ConfigError as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return None
    headers = settings.otel_exporter_otlp_headers
    return OtlpTraceExporter(
        settings.otel_exporter_otlp_endpoint or endpoint,
        headers=parse_headers(headers.get_secret_value() if headers else None),
        capture_content=settings.otel_instrumentation_genai_capture_message_content,
    )


def finish_export(exporter: OtlpTraceExporter, count: int) -> None:
    """Wait for the export and say on stderr how it went: stdout stays the report (parseable as
    JSON or JUnit) and the exit code stays the verdict."""
    from traces.otlp_export import shown_endpoint

    try:
        sent = exporter.flush()
    finally:
        exporter.close()
    where = shown_endpoint(exporter.endpoint)
    if sent:
        print(f"Exported {count} graded trace(s) to {where}.", file=sys.stderr)
    else:
        print(f"warning: exporting to {where} failed; the report is unaffected.", file=sys.stderr)


def _same_terminal() -> bool:
    """stdout and stderr are one terminal (an interactive run, nothing redirected)."""
    try:
        return sys.stdout.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


if __name__ == "__main__":
    sys.exit(main())
