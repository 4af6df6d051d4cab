"""MemoryHygiene: profile sections used in the turn that are stale at the trace's own time, and
facts the user stated that no memory write saved (a memorize run that saved nothing fails)."""

from __future__ import annotations

from datetime import datetime

from context_forge.core.trace import MemoryReadStep, MemoryWriteStep, StateChangeStep, TraceRun

from config.clock import as_utc
from config.files import EvalConfig
from traces.graders.base import Evidence, Grade, Severity, make_grade

NAME = "memory_hygiene"


class MemoryHygieneGrader:
    name = NAME

    def __init__(self, config: EvalConfig) -> None:
        self.staleness_days = config.staleness_days

    def grade(self, trace: TraceRun) -> Grade:
        moment = as_utc(trace.started_at)
        evidence = self._stale_sections(trace, moment) + self._missed_facts(trace)
        errors = sum(1 for item in evidence if item.severity is Severity.ERROR)
        warnings = sum(1 for item in evidence if item.severity is Severity.WARN)
        return make_grade(
            NAME,
            evidence,
            score=1.0 - 0.25 * errors - 0.1 * warnings,
            threshold={"staleness_days": self.staleness_days},
            metadata={"memory_reads": sum(isinstance(s, MemoryReadStep) for s in trace.steps)},
            timestamp=trace.started_at,
        )

    def _stale_sections(self, trace: TraceRun, moment: datetime) -> list[Evidence]:
        evidence = []
        for step in trace.steps:
            if not isinstance(step, MemoryReadStep):
                continue
            for result in step.results:
                for section, age in _section_ages(result, moment):
                    if age is None:
                        evidence.append(
                            Evidence(
                                check_name="unconfirmed_section",
                                description=f"profile section '{section}' was read but has no timestamp (never confirmed)",
                                severity=Severity.WARN,
                                step_ids=[step.step_id],
                                details={"section": section},
                            )
                        )
                    elif age > self.staleness_days:
                        evidence.append(
                            Evidence(
                                check_name="stale_memory",
                                description=(
                                    f"profile section '{section}' was last updated {age} days before this trace "
                                    f"(threshold {self.staleness_days} days)"
                                ),
                                severity=Severity.ERROR,
                                step_ids=[step.step_id],
                                details={
                                    "section": section,
                                    "age_days": age,
                                    "threshold_days": self.staleness_days,
                                },
                            )
                        )
        return evidence

    def _missed_facts(self, trace: TraceRun) -> list[Evidence]:
        stated = [
            (step, fact)
            for step in trace.steps
            if isinstance(step, StateChangeStep)
            and step.state_key == "stated_facts"
            and isinstance(step.new_value, list)
            for fact in step.new_value
            if isinstance(fact, dict) and "field" in fact
        ]
        if not stated:
            return []
        written = {
            change.path
            for step in trace.steps
            if isinstance(step, MemoryWriteStep)
            for change in step.changes or []
        } | {  # refused with a reason the user was told: handled, not missed
            str(item.get("field"))
            for step in trace.steps
            if isinstance(step, StateChangeStep)
            and step.state_key == "refused_facts"
            and isinstance(step.new_value, list)
            for item in step.new_value
            if isinstance(item, dict)
        }
        memorize_ran = (trace.metadata or {}).get("kind") == "memorize" or any(
            isinstance(step, StateChangeStep) and step.state_key == "memorized_through_turn"
            for step in trace.steps
        )
        missed = [(step, fact) for step, fact in stated if fact["field"] not in written]
        if not missed:
            return []
        if not memorize_ran:
            return [
                Evidence(
                    check_name="facts_pending",
                    description=f"{len(missed)} stated fact(s) not saved yet; they are due at the next memorize run",
                    severity=Severity.INFO,
                    step_ids=[step.step_id for step, _ in missed],
                    details={"fields": [fact["field"] for _, fact in missed]},
                )
            ]
        nothing = not written
        return [
            Evidence(
                check_name="memorize_wrote_nothing" if nothing else "missed_fact",
                description=(
                    f"the user said {fact.get('text', fact['field'])!r} (turn {fact.get('turn', '?')}), "
                    f"but {fact['field']} was not written"
                    + (" — the memorize run wrote nothing at all" if nothing else "")
                ),
                severity=Severity.ERROR,
                step_ids=[step.step_id],
                details=fact,
            )
            for step, fact in missed
        ]


def _section_ages(result: object, moment: datetime) -> list[tuple[str, int | None]]:
    """(section, age in UTC calendar days) for a profile document read from memory."""
    if not isinstance(result, dict) or not isinstance(result.get("sections"), dict):
        return []
    ages = []
    for section, stamp in result["sections"].items():
        if stamp is None:
            ages.append((section, None))
            continue
        try:
            updated = as_utc(datetime.fromisoformat(str(stamp)))
        except ValueError:
            ages.append((section, None))
            continue
        ages.append((section, (moment.date() - updated.date()).days))
    return ages
