"""Block Kit for Slack: the App Home profile view, suggested prompts, and `/energy-eval` results."""

from __future__ import annotations

from typing import Any

from profiles.models import UserProfile
from profiles.staleness import section_ages
from profiles.wording import fact_lines
from traces.evaluate import top_evidence
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


def home_view(profile: UserProfile | None, *, staleness_days: int) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": "Your home energy profile"}}
    ]
    if profile is None:
        blocks.append(
            _section(
                "I don't know anything about your home yet. Send me a DM such as *When should I charge my EV?* and I'll ask what I need."
            )
        )
        return {"type": "home", "blocks": blocks}
    ages = {age.section: age for age in section_ages(profile, staleness_days)}
    for name in ("location", "equipment", "household", "preferences"):
        section = getattr(profile, name)
        if section is None:
            continue
        age = ages[name]
        when = "never confirmed" if age.age_days is None else f"updated {age.age_days} days ago"
        stale = (
            f"  :warning: *stale* (over {staleness_days} days) — tell me if it changed" if age.stale else ""
        )
        lines = "\n".join(f"• {line}" for line in fact_lines(profile, name)) or "• (empty)"
        blocks.append(_section(f"*{name.title()}* — _{when}_{stale}\n{lines}"))
    if profile.notes:
        blocks.append(
            _section(
                "*Notes from earlier conversations*\n"
                + "\n".join(f"• {note.content}" for note in profile.notes[-3:])
            )
        )
    blocks.append(
        {
            "type": "context",
            "elements": [
                {"type": "mrkdwn", "text": "Only you can see this. Tell me in a DM when something changes."}
            ],
        }
    )
    return {"type": "home", "blocks": blocks}


def eval_blocks(grades: list[Grade], trace_id: str) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": "How did I do?"}}
    ]
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


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text[:2990]}}
