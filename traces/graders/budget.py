"""Budget: total tokens over `max_tokens`, tool calls over `max_tool_calls`, an optional latency
limit. LLM calls with no token count are reported as such, never silently counted as zero."""

from __future__ import annotations

from context_forge.core.trace import LLMCallStep, ToolCallStep, TraceRun

from config.files import EvalConfig
from traces.graders.base import Evidence, Grade, Severity, make_grade

NAME = "budget"


def _tokens(step: LLMCallStep) -> int | None:
    if step.tokens_total is not None:
        return step.tokens_total
    if step.tokens_in is not None and step.tokens_out is not None:
        return step.tokens_in + step.tokens_out
    return None


class BudgetGrader:
    name = NAME

    def __init__(self, config: EvalConfig) -> None:
        self.config = config

    def grade(self, trace: TraceRun) -> Grade:
        limits = self.config
        llm_calls = [step for step in trace.steps if isinstance(step, LLMCallStep)]
        tool_calls = [step for step in trace.steps if isinstance(step, ToolCallStep)]
        counted = [(step, _tokens(step)) for step in llm_calls]
        total = sum(tokens for _, tokens in counted if tokens is not None)
        uncounted = [step.step_id for step, tokens in counted if tokens is None]
        estimated = [step.step_id for step in llm_calls if (step.metadata or {}).get("tokens_estimated")]
        evidence = []
        if total > limits.max_tokens:
            evidence.append(
                Evidence(
                    check_name="token_budget",
                    description=f"{total} tokens used, over the budget of {limits.max_tokens}",
                    severity=Severity.ERROR,
                    step_ids=[step.step_id for step, _ in counted],
                    details={"tokens": total, "max_tokens": limits.max_tokens},
                )
            )
        if uncounted:
            evidence.append(
                Evidence(
                    check_name="missing_token_counts",
                    description=f"{len(uncounted)} of {len(llm_calls)} LLM calls reported no token count; they are not in the total",
                    severity=Severity.WARN,
                    step_ids=uncounted,
                )
            )
        if estimated:
            evidence.append(
                Evidence(
                    check_name="estimated_token_counts",
                    description=f"{len(estimated)} LLM calls carry estimated counts (characters / 4), not counts from a model",
                    severity=Severity.INFO,
                    step_ids=estimated,
                )
            )
        if len(tool_calls) > limits.max_tool_calls:
            evidence.append(
                Evidence(
                    check_name="tool_call_budget",
                    description=f"{len(tool_calls)} tool calls, over the limit of {limits.max_tool_calls}",
                    severity=Severity.ERROR,
                    step_ids=[step.step_id for step in tool_calls],
                )
            )
        latency_ms = (trace.ended_at - trace.started_at).total_seconds() * 1000 if trace.ended_at else None
        if (
            limits.max_latency_ms is not None
            and latency_ms is not None
            and latency_ms > limits.max_latency_ms
        ):
            evidence.append(
                Evidence(
                    check_name="latency_budget",
                    description=f"the turn took {latency_ms:.0f} ms, over the limit of {limits.max_latency_ms:.0f} ms",
                    severity=Severity.ERROR,
                )
            )
        ratios = [1.0, limits.max_tokens / total if total else 1.0]
        if limits.max_tool_calls and tool_calls:
            ratios.append(limits.max_tool_calls / len(tool_calls))
        return make_grade(
            NAME,
            evidence,
            score=min(ratios),
            threshold={
                "max_tokens": limits.max_tokens,
                "max_tool_calls": limits.max_tool_calls,
                "max_latency_ms": limits.max_latency_ms,
            },
            metadata={
                "tokens": total,
                "llm_calls": len(llm_calls),
                "tool_calls": len(tool_calls),
                "latency_ms": latency_ms,
            },
            timestamp=trace.started_at,
        )
