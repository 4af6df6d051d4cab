"""MemoryHygiene: profile sections used in the turn that are stale at the trace's own time, and
facts the user stated that were not handled.

A fact the understanding found about the user (the `stated_facts` step) is handled when the turn
saved it (a memory write of that field), refused it with a reason the user was told
(`refused_facts`), or deferred it to a memorize run of the same thread that later succeeded (it
covered the turn) and saved or refused it — that run is linked in the evidence. Anything else is a
FAIL: the user said it and nothing kept it. Memorize runs are found through `memorize_runs`
(user, thread) -> their traces, e.g. `memorize_runs_beside(path)` for the trace folder's siblings;
without it, a deferred fact cannot be shown handled and fails."""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from context_forge.core.trace import MemoryReadStep, MemoryWriteStep, StateChangeStep, TraceRun, UserInputStep

from config.clock import as_utc
from config.files import EvalConfig
from traces.graders.base import Evidence, Grade, Severity, make_grade

NAME = "memory_hygiene"

MemorizeRuns = Callable[[str, str], Sequence[TraceRun]]  # (user, thread) -> that thread's memorize traces


_KIND_MEMORIZE = re.compile(r'"kind"\s*:\s*"memorize"')
_FOLDERS: dict[tuple[str, int], tuple[TraceRun, ...]] = {}  # (folder, its mtime) -> its memorize runs
_FOLDERS_LOCK = threading.Lock()


def memorize_runs_beside(path: Path) -> MemorizeRuns:
    """The memorize traces in the same folder as `path` (the trace store keeps one folder per
    user and thread). Read only when a turn has a fact to look up, once per folder (while the
    folder is unchanged), and only files that say they are memorize runs are parsed: grading a
    folder of 400 traces read each sibling 400 times before (56 s)."""

    def runs() -> tuple[TraceRun, ...]:
        folder = path.parent
        try:
            key = (str(folder.resolve()), folder.stat().st_mtime_ns)
        except OSError:
            return ()
        with _FOLDERS_LOCK:
            if key not in _FOLDERS:
                if len(_FOLDERS) > 256:
                    _FOLDERS.clear()
                _FOLDERS[key] = _read_memorize_runs(folder)
            return _FOLDERS[key]

    def lookup(user_id: str, session_id: str) -> Sequence[TraceRun]:
        return [
            trace
            for trace in runs()
            if (trace.metadata or {}).get("user_id") == user_id
            and (trace.metadata or {}).get("session_id") == session_id
        ]

    return lookup


def _read_memorize_runs(folder: Path) -> tuple[TraceRun, ...]:
    from traces.loading import TraceProblem, parse_trace  # loading imports nothing of the graders

    found = []
    for sibling in sorted(folder.glob("*.json")):
        if sibling.name.startswith(".") or not sibling.is_file() or sibling.is_symlink():
            continue
        try:
            text = sibling.read_text("utf-8")
            if not _KIND_MEMORIZE.search(text):
                continue
            trace = parse_trace(text)
        except (OSError, UnicodeDecodeError, TraceProblem, ValueError):
            continue
        if (trace.metadata or {}).get("kind") == "memorize":
            found.append(trace)
    return tuple(found)


class MemoryHygieneGrader:
    name = NAME

    def __init__(self, config: EvalConfig, memorize_runs: MemorizeRuns | None = None) -> None:
        self.staleness_days = config.staleness_days
        self.memorize_runs = memorize_runs

    def grade(self, trace: TraceRun) -> Grade:
        moment = as_utc(trace.started_at)
        evidence = self._stale_sections(trace, moment) + self._missed_facts(trace) + _ungrounded_places(trace)
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
        written = _handled(trace)
        memorize_ran = (trace.metadata or {}).get("kind") == "memorize" or any(
            isinstance(step, StateChangeStep) and step.state_key == "memorized_through_turn"
            for step in trace.steps
        )
        missed = [(step, fact) for step, fact in stated if fact["field"] not in written]
        if not missed:
            return []
        if not memorize_ran:
            return self._deferred(trace, missed)
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

    def _deferred(self, trace: TraceRun, missed: list[tuple[StateChangeStep, dict]]) -> list[Evidence]:
        """Facts the turn neither saved nor refused: handled only by a later memorize run of the
        same thread that covered this turn and saved or refused them."""
        metadata = trace.metadata or {}
        turn = metadata.get("turn") if isinstance(metadata.get("turn"), int) else None
        runs = []
        if self.memorize_runs is not None:
            runs = [
                run
                for run in self.memorize_runs(
                    str(metadata.get("user_id", "")), str(metadata.get("session_id", ""))
                )
                if as_utc(run.started_at) >= as_utc(trace.started_at) and _covers(run, turn)
            ]
            runs.sort(key=lambda run: as_utc(run.started_at))
        evidence = []
        for step, fact in missed:
            field = fact["field"]
            said = f"the user said {fact.get('text', field)!r} (turn {fact.get('turn', '?')})"
            saving = next((run for run in runs if field in _handled(run)), None)
            if saving is not None:
                evidence.append(
                    Evidence(
                        check_name="deferred_fact_saved",
                        description=f"{said}; {field} was not saved in the turn but by memorize run {saving.run_id}",
                        severity=Severity.INFO,
                        step_ids=[step.step_id],
                        details={**fact, "memorize_trace": saving.run_id},
                    )
                )
            elif runs:
                evidence.append(
                    Evidence(
                        check_name="deferred_fact_lost",
                        description=(
                            f"{said}; {field} was neither saved nor refused in the turn, and memorize run "
                            f"{runs[0].run_id}, which covered this turn, did not save or refuse it either"
                        ),
                        severity=Severity.ERROR,
                        step_ids=[step.step_id],
                        details={**fact, "memorize_trace": runs[0].run_id},
                    )
                )
            else:
                evidence.append(
                    Evidence(
                        check_name="stated_not_handled",
                        description=(
                            f"{said}; {field} was neither saved nor refused with a reason in the turn, "
                            "and no later memorize run of this thread saved it"
                        ),
                        severity=Severity.ERROR,
                        step_ids=[step.step_id],
                        details=fact,
                    )
                )
        return evidence


_PLACE_FIELDS = ("location.city", "location.zip_code")
_WORDS = re.compile(r"[a-z0-9]+")


# Nicknames a town goes by in chat that neither a typo match nor its initials catch.
_NICKNAMES = {
    "philly": "philadelphia",
    "nyc": "new york",
    "vegas": "las vegas",
    "nola": "new orleans",
    "frisco": "san francisco",
    "sd": "san diego",
    "dc": "washington",
}


def _ungrounded_places(trace: TraceRun) -> list[Evidence]:
    """A turn that wrote a town or ZIP code the user did not say: the town must be in the user's
    words (a typo allowed: close spelling with the same first and last letter), be their initials
    ("SF", "LA") or a known nickname ("Philly"), or come with a ZIP code the same turn saved (or
    the profile held) that the user wrote; a ZIP code must be in their words. Catches a question or
    a non-answer geocoded into a place ("Are there rebates for heat pumps?" -> San Francisco)."""
    if (trace.metadata or {}).get("kind") == "memorize":
        return []
    said = " ".join(
        step.content
        for step in trace.steps
        if isinstance(step, UserInputStep) and isinstance(step.content, str)
    )
    words = _WORDS.findall(said.lower())
    zips = _zips_known(trace)
    evidence = []
    for step in trace.steps:
        if not isinstance(step, MemoryWriteStep) or step.operation == "delete":
            continue
        for change in step.changes or []:
            if (
                change.path not in _PLACE_FIELDS
                or not isinstance(change.new_value, str)
                or change.new_value == change.old_value
            ):
                continue
            if _said_place(change.path, change.new_value, words, zips):
                continue
            evidence.append(
                Evidence(
                    check_name="ungrounded_place",
                    description=(
                        f"{change.path} was set to {change.new_value!r}, which the user did not say "
                        f"(their words: {said[:120]!r})"
                    ),
                    severity=Severity.ERROR,
                    step_ids=[step.step_id],
                    details={"field": change.path, "value": change.new_value, "user_words": said[:500]},
                )
            )
    return evidence


def _zips_known(trace: TraceRun) -> set[str]:
    """ZIP codes this turn saved or the profile it read held (a town derives from one of them)."""
    found = {
        str(change.new_value)
        for step in trace.steps
        if isinstance(step, MemoryWriteStep)
        for change in step.changes or []
        if change.path == "location.zip_code" and change.new_value
    }
    for step in trace.steps:
        if isinstance(step, MemoryReadStep):
            for result in step.results:
                profile = result.get("profile") if isinstance(result, dict) else None
                location = profile.get("location") if isinstance(profile, dict) else None
                if isinstance(location, dict) and location.get("zip_code"):
                    found.add(str(location["zip_code"]))
    return found


def _said_place(field: str, value: str, words: list[str], zips: set[str]) -> bool:
    if field == "location.zip_code":
        return value in words
    if any(word in zips for word in words):
        return True  # a town that comes with the ZIP code they gave
    place = _WORDS.findall(value.split(",")[0].lower())  # "Portland, OR": the town, not its state
    if not place:
        return True
    name = " ".join(place)
    initials = "".join(word[0] for word in place)
    for start in range(len(words)):
        word = words[start]
        if (len(place) > 1 and word == initials) or name.startswith(_NICKNAMES.get(word, "\0")):
            return True  # "sf", "la"; "philly", "nyc"
        for size in {len(place), len(place) + 1, max(1, len(place) - 1)}:
            chunk = " ".join(words[start : start + size])
            if chunk == name or (
                len(chunk) >= 5
                and chunk[0] == name[0]
                and chunk[-1] == name[-1]
                and difflib.SequenceMatcher(None, chunk, name).ratio() >= 0.8
            ):
                return True  # the name, or a typo of it: "san fransisco", "okland"
    return False


def _handled(trace: TraceRun) -> set[str]:
    """Fields a trace wrote, or refused / rejected with a reason."""
    return {
        change.path
        for step in trace.steps
        if isinstance(step, MemoryWriteStep)
        for change in step.changes or []
    } | {
        # a turn's refusal names the field; a memorize run's rejection carries the whole fact
        str(item.get("field") or (item.get("fact") or {}).get("field"))
        for step in trace.steps
        if isinstance(step, StateChangeStep)
        and step.state_key in ("refused_facts", "rejected_facts")
        and isinstance(step.new_value, list)
        for item in step.new_value
        if isinstance(item, dict) and isinstance(item.get("fact") or {}, dict)
    }


def _covers(run: TraceRun, turn: int | None) -> bool:
    """The memorize run succeeded (it recorded how far it memorized) and got as far as `turn`."""
    for step in run.steps:
        if isinstance(step, StateChangeStep) and step.state_key == "memorized_through_turn":
            through = step.new_value
            return isinstance(through, int) and (turn is None or through >= turn)
    return False


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
