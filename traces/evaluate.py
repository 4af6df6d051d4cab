"""Grade trace files: `python -m traces.evaluate PATH... [--format text|markdown|json|junit] [--config FILE]`.

Paths may be files or folders (searched for *.json). One report covers every trace.
Exit code: 0 when everything passes (WARN allowed), 1 when any grader FAILs,
2 when a file cannot be read or is not a valid ContextForge trace (the message names it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from pydantic import BaseModel, ConfigDict

from config.errors import ConfigError
from config.files import EvalConfig, load_yaml_model
from config.settings import CONFIG_DIR
from traces.graders import Grade, Verdict, grade_trace
from traces.storage import TraceFileError, load_trace

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2
ICONS = {Verdict.PASS: "✅", Verdict.WARN: "⚠️", Verdict.FAIL: "❌"}


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


class Report(BaseModel):
    traces: list[GradedTrace]
    errors: list[str]

    @property
    def exit_code(self) -> int:
        if self.errors:
            return EXIT_ERROR
        return EXIT_FAIL if any(trace.verdict is Verdict.FAIL for trace in self.traces) else EXIT_PASS


def collect(paths: Sequence[Path]) -> tuple[list[Path], list[str]]:
    files, errors = [], []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.json") if not p.name.startswith("."))
            if not found:
                errors.append(f"{path}: no trace files (*.json) in this folder")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            errors.append(f"{path}: no such file or folder")
    return files, errors


def evaluate(paths: Sequence[Path], config: EvalConfig) -> Report:
    files, errors = collect(paths)
    traces = []
    for path in files:
        try:
            trace = load_trace(path)
        except TraceFileError as exc:
            errors.append(str(exc))
            continue
        traces.append(GradedTrace(path=str(path), run_id=trace.run_id, grades=grade_trace(trace, config)))
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
    lines.extend(f"\n**Error:** {error}" for error in report.errors)
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
            "errors": report.errors,
            "exit_code": report.exit_code,
        },
        indent=2,
        default=str,
    )


def render_junit(report: Report) -> str:
    cases = sum(len(trace.grades) for trace in report.traces)
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
    if report.errors:
        lines.append(f'  <testsuite name="unreadable traces" tests="0" errors="{len(report.errors)}">')
        lines.extend(f"    <error message={quoteattr(error)}/>" for error in report.errors)
        lines.append("  </testsuite>")
    lines.append("</testsuites>")
    return "\n".join(lines)


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json, "junit": render_junit}


def _summary(report: Report) -> str:
    counts = {verdict: sum(trace.verdict is verdict for trace in report.traces) for verdict in Verdict}
    return (
        f"{len(report.traces)} trace(s): {counts[Verdict.PASS]} passed, {counts[Verdict.WARN]} warned, "
        f"{counts[Verdict.FAIL]} failed; {len(report.errors)} unreadable"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m traces.evaluate", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="trace files or folders")
    parser.add_argument("--format", choices=sorted(RENDERERS), default="text")
    parser.add_argument(
        "--config", type=Path, default=CONFIG_DIR / "eval.yaml", help="grader thresholds (eval.yaml)"
    )
    args = parser.parse_args(argv)
    try:
        config = load_yaml_model(args.config, EvalConfig)
    except ConfigError as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    report = evaluate(args.paths, config)
    print(RENDERERS[args.format](report))
    for error in report.errors:
        print(f"error: {error}", file=sys.stderr)
    return report.exit_code


if __name__ == "__main__":
    sys.exit(main())
