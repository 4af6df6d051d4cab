"""Block Kit for Slack: suggested prompts and `/energy-eval` results (App Home: `bot.slack_home`)."""

from __future__ import annotations

from typing import Any

from traces.evaluate import top_evidence
from traces.feedback import FeedbackRecord
from traces.graders import Grade, Verdict

SUGGESTED_PROMPTS = [
    {"title": "Charge my EV", "message": "When should I charge my EV?"},
    {"title": "Run the dryer?", "message": "Is it worth running the dryer now?"},
    {"title": "Solar today", "message": "How much solar will I get today?"},
    {"title": "Heat pumps", "message": "How do heat pumps work?"},
]
ICONS = {Verdict.PASS: "✅", Verdict.WARN: "⚠️", Verdict.FAIL: "❌"}
EVAL_HELP = (
    "*/energy-eval* grades how I handled one of your questions: whether I used stale memory, looped on a "
    "tool, wasted retrieved passages, or went over the token budget.\n"
    "• `/energy-eval` — your most recent answer\n• `/energy-eval <trace id>` — a specific one\n"
    "• `/energy-eval help` — this message"
)


def eval_blocks(
    grades: list[Grade], trace_id: str, feedback: FeedbackRecord | None = None
) -> list[dict[str, Any]]:
    """The grades of one trace, with the user's own verdict on it (if any) above them, so the
    graders' view and the user's can be compared at a glance."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": "How did I do?"}}
    ]
    if feedback is not None:
        blocks.append(_feedback_section(feedback))
    for grade in grades:
        evidence = "\n".join(f"• {line}" for line in top_evidence(grade, limit=2))
        blocks.append(
            _section(
                f"{ICONS[grade.verdict]} *{grade.grader_name}* — {grade.verdict.value} (score {grade.score:.2f})"
                + (f"\n{evidence}" if evidence else "")
            )
        )
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": f"Trace `{trace_id}`"}]})
    return blocks


def _feedback_section(feedback: FeedbackRecord) -> dict[str, Any]:
    said = "👍 helpful" if feedback.verdict == "good" else "👎 not helpful"
    reason = (feedback.reason or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _section(f"*Your feedback:* {said}" + (f" — “{reason}”" if reason else ""))


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text[:2990]}}
