"""Claims: every claim of the final answer checked against the trace (DESIGN.md, the Honesty rule).

1. **Saves.** A reply that says it saved something ("Saved: …", "Updated: …", "Confirmed: …",
   "Forgotten: …", "Undone: …", "saving that to your profile", "I've noted / saved / remembered …",
   "I'll remember …") needs the turn's profile `memory_write` steps: with none at all it is a false
   save claim; each item of a "Saved: a, b and c." list must name a value that was written. Every
   profile write must be said (its value, or for a removal its old value or its field): nothing is
   saved silently. A value is named by its words in one sentence, in any order, where the maker of
   a car may be left out or said by a known alias (`MAKES`, `MAKE_ALIASES`: Chevy = Chevrolet, VW
   = Volkswagen) and the generic words "EV", "electric" may be left out: "Chevy Bolt" and "Bolt
   EV" name "Chevrolet Bolt EV"; "Chevy Volt", "a Chevy" and "Model Y" name neither it nor
   "Tesla Model 3". All three are ERRORs. Not counted as saves: coordinates and timezone derived from
   a ZIP or city written in the same turn, the city a ZIP write brings along, confirmations that
   leave a value as it was, and summary notes of old turns. Negated wording ("I haven't saved",
   "not saved to your profile", "nothing … I saved") is no claim; a promise for later ("I'll save
   that when this conversation ends") is not checked here.
2. **Numbers.** Every dollar amount, kWh, kW, percentage, clock time, date and other number in the
   answer must come from a tool result (or its arguments), a retrieved passage, the profile (the
   `memory_read` results, the values written, the limits a refused value broke) or the user's own
   words in this turn, at the precision the answer shows ($9.58 vs 9.584, 31.9 vs 31.94; "about 30"
   and "about $3,300" allow the rounding their trailing zeros state) and in a compatible unit
   (money in dollars or cents — "about 30 cents" vs 0.30 $/kWh —, kWh, kW, % or a fraction, days).
   A money, kWh, kW or % figure needs evidence in that unit (written with it, or under a key that
   names it: *_usd, cost, price, *_kwh, *_kw, *_pct), never a date's parts, a clock hour,
   latitude/longitude or an identifier ("$22" is not 2026-01-22, "$1" not user T1-U1); signs are
   kept ("$122" is not lon -122.4). "about/around/roughly/~/approximately" widen a decimal to one
   digit less and at most 10 % ("about $9.60" for 9.58) and a clock time to ±30 minutes ("around
   3 AM" for 02:51); see `claim_evidence`. Clock times match a time in the evidence within a minute
   (02:51 vs a tool's 2026-01-22T02:51:04-08:00; "by 6am" vs ready_by_hour 6). "N days ago" may be
   a profile section's age at the trace's time. An unmatched number is an ERROR naming the nearest
   number of its unit.
   Not claims, on principle (not quantities the answer asserts): list numbering at the start of a
   line ("1."), citations ("[2]"), years 1900-2100 written alone, "24/7", names ("Model 3",
   "Level 2", "Powerwall 3", "Type 2", "Title 24", "Tier 2"), digits inside URLs or identifiers
   (EV2-A, EV-TOU-5, CO2, R-410A). The bot's own earlier answers are no evidence.
3. **Savings.** "saves $X" / "save $X" / "saving $X" / "cheaper by $X" / "$X less" / "cheapest, by
   $X" must be a saving a tool worked out: a value of its result under a key naming a saving or a
   difference (savings_usd), the difference of two money figures of one result (11.19 now, 9.58
   later: "saves $1.61"), or a saving its text states ("saves $4.32"), signs kept (savings_usd
   -1.61 is no "$1.61 saved"); a retrieved passage stating that saving also backs it. Otherwise an
   ERROR (`unsupported_saving`: "You'd save $2" when the tool says savings_usd 0.0, even if a 2
   is elsewhere in the trace; "saves $17.33" when 17.33 is the plan's cost). A saving's figure is
   judged here, not by the number check (a difference of two costs is in no step as such). A tool's saving counts only where its result marks its options
   comparable (`comparable`, see `advisor.tools.models.Observation`; a result from before that
   flag: its `facts.feasible`): a saving between plans that deliver different energy is an ERROR,
   one whose tool says neither a WARN.
4. **Stale facts.** A value of a profile section older than `staleness_days` at the trace's time
   (and not re-saved in the turn) that the answer shows must be asked about: a question in the
   answer ("…?") names the value or its section. Otherwise ERROR. (A number the tools derived from
   a stale value cannot be traced back to it.)

Deterministic and stateless; the evidence is read once and indexed (< 10 ms on 1 000 steps).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from context_forge.core.trace import (
    FinalOutputStep,
    MemoryReadStep,
    MemoryWriteStep,
    RetrievalStep,
    ToolCallStep,
    TraceRun,
    UserInputStep,
)

from config.clock import as_utc
from config.files import EvalConfig
from traces.graders.base import Evidence, Grade, Severity, make_grade
from traces.graders.claim_evidence import (
    NUM,
    Clock,
    Number,
    TraceEvidence,
    collect,
    key_unit,
    read_tokens,
    section_age,
)

NAME = "claims"

_LABEL = re.compile(
    r"\b(Saved|Updated|Confirmed|Forgotten|Undone)(?: to your profile)?:\s*(?P<items>[^\n]*?)(?:\.(?=\s|$)|\n|$)"
)
_INFORMAL = re.compile(
    r"\bsaving (?:that|this|it)\b"
    r"|\bI(?:['’]ve| have| just)?\s+(?:saved|noted|stored|recorded|remembered|updated)\b"
    r"|\b(?:saved|noted|stored|recorded|added)\s+(?:that\s+|this\s+|it\s+)?(?:to|in|into)\s+your\s+profile\b"
    r"|\bI(?:['’]ll| will)\s+(?:remember|keep (?:that|this|it) in mind)\b(?!\s+(?:when|once|after|at the end))",
    re.I,
)
_NEGATION = re.compile(r"\b(?:not|no|never|nothing|without)\b|n['’]t\b", re.I)
_SENTENCE_END = re.compile(r"[.!?\n](?=\s|$)")
_ITEM_SPLIT = re.compile(r",\s+|\s+and\s+")
_SAVING = re.compile(
    r"\b(?:saves?|saving|savings of|cheaper by|cheapest,? by)\s+(?:you\s+)?(?:only\s+)?"
    rf"(?:about\s+|around\s+|roughly\s+|~\s*)?\$\s?(?P<a>{NUM})"
    rf"|\$\s?(?P<b>{NUM})\s+(?:a\s+(?:year|month|day)\s+|per\s+\w+\s+)?(?:cheaper|less)\b",
    re.I,
)
DERIVED = {"location.lat", "location.lon", "location.timezone"}
PLACE = {"location.zip_code", "location.city"}
# The plain words replies use for coded values (profiles/wording.py), so a coded value counts as said.
ALIASES = {
    "wfh": ("work from home",),
    "none": ("no air conditioning", "none"),
    "constant": ("same all day",),
    "central_ac": ("central air",),
    "night shift": ("nights",),
    "office 9-5": ("office",),
}
_NOT_WORDS = {"has", "is", "kwh", "kw", "usd", "per", "code", "type", "pct"}
# Car makers a reply may leave out of a saved model ("your Bolt EV"), and the other names replies
# use for them; and words too generic to be needed ("Chevy Bolt" for "Chevrolet Bolt EV").
MAKES = {
    "tesla", "chevrolet", "nissan", "hyundai", "kia", "ford", "volkswagen", "rivian", "bmw", "polestar",
    "audi", "lucid", "toyota", "subaru", "honda", "cadillac", "gmc", "volvo", "jaguar", "porsche", "fiat",
    "mini", "chrysler", "jeep", "mercedes", "benz",
}  # fmt: skip
MAKE_ALIASES = {"chevy": "chevrolet", "vw": "volkswagen", "merc": "mercedes", "mercedes-benz": "mercedes"}
_GENERIC_WORDS = {"ev", "electric"}
_WORD = re.compile(r"[a-z0-9]+(?:[.&'][a-z0-9]+)*")
_SENTENCES = re.compile(r"[^.!?\n]+(?:[.!?](?!\s|$)[^.!?\n]*)*")


class Write(NamedTuple):
    step_id: str
    path: str
    old: Any
    new: Any


def _item(
    check: str, description: str, step_ids: list[str], severity: Severity = Severity.ERROR, **details: Any
) -> Evidence:
    return Evidence(
        check_name=check, description=description, severity=severity, step_ids=step_ids, details=details
    )


class ClaimsGrader:
    name = NAME

    def __init__(self, config: EvalConfig) -> None:
        self.staleness_days = config.staleness_days

    def grade(self, trace: TraceRun) -> Grade:
        finals = [step for step in trace.steps if isinstance(step, FinalOutputStep)]
        threshold = {"staleness_days": self.staleness_days}
        if not finals:
            none = _item("no_answer", "no final answer to check", [], Severity.INFO)
            return make_grade(NAME, [none], score=1.0, threshold=threshold, timestamp=trace.started_at)
        writes = _writes(trace)
        evidence = _Evidence(trace)
        found: list[Evidence] = []
        counts = {"numbers": 0, "times": 0, "dates": 0, "save_claims": 0, "writes": len(writes), "savings": 0}
        for final in finals:
            answer = str(final.content or "")
            numbers, clocks, dates = read_tokens(answer, answer=True)
            counts["numbers"] += len(numbers)
            counts["times"] += len(clocks)
            counts["dates"] += len(dates)
            savings, judged = _savings(final.step_id, answer, numbers, trace, evidence, counts)
            figures = [n for n in numbers if n.start not in judged]  # a saving's figure: judged there
            if figures or clocks or dates:
                found += _numbers(final.step_id, answer, figures, clocks, dates, evidence)
            found += _saves(final.step_id, answer, numbers, writes, trace, counts)
            found += savings
            found += self._stale(final.step_id, answer, numbers, trace, writes)
        errors = sum(item.severity is Severity.ERROR for item in found)
        warnings = sum(item.severity is Severity.WARN for item in found)
        if not found:
            found.append(
                _item(
                    "claims_supported",
                    f"{counts['numbers']} number(s), {counts['times']} time(s), {counts['dates']} date(s), "
                    f"{counts['save_claims']} save claim(s), {counts['writes']} write(s) and {counts['savings']} "
                    "saving(s): all supported by the trace",
                    [final.step_id for final in finals],
                    Severity.INFO,
                )
            )
        return make_grade(
            NAME,
            found,
            score=1.0 - (errors + 0.5 * warnings) / max(1, sum(counts.values())),
            threshold=threshold,
            metadata=counts,
            timestamp=trace.started_at,
        )

    def _stale(
        self, final_id: str, answer: str, numbers: list[Number], trace: TraceRun, writes: list[Write]
    ) -> list[Evidence]:
        """4. A stale profile value the answer shows needs a question about it in the answer."""
        moment = as_utc(trace.started_at)
        written = {w.path.split(".", 1)[0] for w in writes}
        questions = [s for s in re.split(r"(?<=[.!?])\s+|\n+", answer) if "?" in s]
        out = []
        for step in trace.steps:
            if not isinstance(step, MemoryReadStep):
                continue
            for result in step.results:
                if not isinstance(result, dict) or not isinstance(result.get("sections"), dict):
                    continue
                profile = result["profile"] if isinstance(result.get("profile"), dict) else {}
                for section, stamp in result["sections"].items():
                    age = section_age(stamp, moment)
                    values = profile.get(section)
                    if (
                        age is None
                        or age <= self.staleness_days
                        or section in written
                        or not isinstance(values, dict)
                    ):
                        continue
                    for key, value in values.items():
                        path = f"{section}.{key}"
                        if key == "updated_at" or value is None or isinstance(value, bool) or path in DERIVED:
                            continue
                        where = _shown(value, path, answer, numbers)
                        if where is None or any(
                            section in q.lower() or _shown(value, path, q, read_tokens(q, answer=True)[0])
                            for q in questions
                        ):
                            continue
                        out.append(
                            _item(
                                "stale_fact_unconfirmed",
                                f"the answer uses {path} = {value!r} ({where[0]}-{where[1]}) from the '{section}' "
                                f"section, {age} days old, without asking the user to confirm it",
                                [final_id, step.step_id],
                                start=where[0],
                                end=where[1],
                                text=answer[where[0] : where[1]],
                                section=section,
                                age_days=age,
                                looked_for="a question in the answer naming this value or its section",
                            )
                        )
        return out


# --- 2. numbers ---------------------------------------------------------------------------------


class _Evidence:
    """The trace's evidence, read once and only when a claim needs it: first without the passages."""

    def __init__(self, trace: TraceRun) -> None:
        self.trace = trace
        self._read: TraceEvidence | None = None
        self._savings: list[tuple[ToolCallStep, list[tuple[float, str]]]] | None = None
        self._passage_savings: list[tuple[str, float]] | None = None

    def base(self) -> TraceEvidence:
        if self._read is None:
            self._read = collect(self.trace, passages=False)
        return self._read

    def savings(self) -> list[tuple[ToolCallStep, list[tuple[float, str]]]]:
        """Each tool call with the savings its result holds (`_saving_figures`)."""
        if self._savings is None:
            self._savings = [
                (step, _saving_figures(step.result))
                for step in self.trace.steps
                if isinstance(step, ToolCallStep)
            ]
        return self._savings

    def passage_savings(self) -> list[tuple[str, float]]:
        """(step id, figure) of every saving a retrieved passage states."""
        if self._passage_savings is None:
            self._passage_savings = [
                (step.step_id, value)
                for step in self.trace.steps
                if isinstance(step, RetrievalStep)
                for result in step.results
                for value, _ in _stated_savings(result.content)
            ]
        return self._passage_savings

    def full(self, wanted: tuple[list[Number], list[Clock], list[str]]) -> TraceEvidence:
        return self.base().add_passages(self.trace, wanted)


def _unsupported(numbers, clocks, dates, evidence: TraceEvidence):
    return (
        [n for n in numbers if evidence.supports(n) is None],
        [c for c in clocks if not evidence.clock(c.minutes, c.tolerance)[0]],
        [d for d in dates if d[2] not in evidence.dates],
    )


def _numbers(final_id: str, answer: str, numbers, clocks, dates, lazy: _Evidence) -> list[Evidence]:
    # Passages are read only for what the rest of the trace does not hold (most answers take their
    # numbers from tools and the profile; a long trace's passages are most of its text).
    numbers, clocks, dates = _unsupported(numbers, clocks, dates, lazy.base())
    if not (numbers or clocks or dates):
        return []
    evidence = lazy.full((numbers, clocks, [day for _, _, day in dates]))
    numbers, clocks, dates = _unsupported(numbers, clocks, dates, evidence)
    out = []
    for number in numbers:
        near = evidence.nearest(number)
        out.append(
            _item(
                "unsupported_number",
                f"{number.text.strip()!r} ({number.start}-{number.end}) is in no tool result, passage, profile or "
                "user message of this turn"
                + (
                    f"; nearest: {near.where!r} ({near.step_id})"
                    if near
                    else "; the trace holds no number like it"
                ),
                [final_id, *([near.step_id] if near else [])],
                start=number.start,
                end=number.end,
                text=answer[number.start : number.end],
                looked_for={
                    "value": number.value,
                    "unit": number.unit or None,
                    "tolerance": number.tolerance,
                },
                nearest={
                    "value": near.value,
                    "unit": near.unit or None,
                    "where": near.where,
                    "step_id": near.step_id,
                }
                if near
                else None,
            )
        )
    for clock in clocks:
        near = evidence.clock(clock.minutes, clock.tolerance)[1]
        out.append(
            _item(
                "unsupported_time",
                f"time {clock.text!r} ({clock.start}-{clock.end}) is in no tool result, passage, profile or user "
                "message of this turn" + (f"; nearest: {near.where!r} ({near.step_id})" if near else ""),
                [final_id, *([near.step_id] if near else [])],
                start=clock.start,
                end=clock.end,
                text=clock.text,
                looked_for=f"{clock.minutes // 60:02d}:{clock.minutes % 60:02d}"
                + (f" ±{clock.tolerance} min" if clock.tolerance > 1 else ""),
                nearest={"where": near.where, "step_id": near.step_id} if near else None,
            )
        )
    for start, end, day in dates:
        out.append(
            _item(
                "unsupported_date",
                f"date {day!r} ({start}-{end}) is not in the trace",
                [final_id],
                start=start,
                end=end,
                text=day,
                looked_for=day,
                nearest=None,
            )
        )
    return out


# --- 1. saves -----------------------------------------------------------------------------------


def _writes(trace: TraceRun) -> list[Write]:
    writes = []
    for step in trace.steps:
        if not isinstance(step, MemoryWriteStep) or (step.namespace and step.namespace[0] != "profiles"):
            continue
        if step.changes:
            writes += [
                Write(step.step_id, c.path.removeprefix("$."), c.old_value, c.new_value) for c in step.changes
            ]
        elif step.operation != "add":  # an added note (a summary of old turns) is not a fact
            writes += [
                Write(step.step_id, str(k), None, v) for k, v in (step.data or {}).items() if k != "note"
            ]
    return writes


def _reportable(writes: list[Write]) -> list[Write]:
    paths = {w.path for w in writes}
    return [
        w
        for w in writes
        if not (w.path in DERIVED and paths & PLACE)
        and not (w.path == "location.city" and "location.zip_code" in paths)
        and not (w.new is not None and w.new == w.old)  # a confirmation: nothing new to say
    ]


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[_\-]+", " ", text.lower()).split())


def _names_field(path: str, text: str) -> bool:
    """The field's own words are in the text: equipment.has_battery_storage -> 'battery'."""
    words = [w for w in path.rsplit(".", 1)[-1].split("_") if w not in _NOT_WORDS and len(w) >= 2]
    low = _norm(text)
    return any(re.search(rf"\b{re.escape(word)}", low) for word in words)


def _said(value: Any, path: str, text: str, numbers: list[Number]) -> bool:
    """The value (for a yes/no value: its field) is named in `text`."""
    if isinstance(value, bool):
        return _names_field(path, text)
    if isinstance(value, int | float):
        if path == "household.occupants" and value == 1 and re.search(r"\balone\b", text, re.I):
            return True
        unit = key_unit(path.rsplit(".", 1)[-1])
        return any(
            (not n.unit or not unit or n.unit == unit) and abs(n.value - value) <= n.tolerance + 1e-9
            for n in numbers
        )
    low, shown = _norm(text), _norm(str(value))
    if shown and re.search(rf"(?<!\w){re.escape(shown)}(?!\w)", low):
        return True
    inside = read_tokens(str(value))[0]  # "Office 9-5" said as "an office, 9 to 5"
    if (
        numbers
        and inside
        and all(any(abs(f.value - n.value) <= n.tolerance for f in inside) for n in numbers)
    ):
        return True
    if any(_norm(alias) in low for alias in ALIASES.get(str(value).lower(), ())):
        return True
    return _named_by_words(str(value), text)


def _words(text: str) -> list[str]:
    low = text.lower()
    for alias, make in MAKE_ALIASES.items():
        if alias in low:
            low = re.sub(rf"(?<!\w){re.escape(alias)}(?!\w)", make, low)
    return _WORD.findall(low.replace("-", " ").replace("_", " "))


def _named_by_words(value: str, text: str) -> bool:
    """The value's words are all in one sentence of `text`, in any order; a car's maker and the
    generic words may be left out, unless nothing else is left (module docstring, 1)."""
    words = _words(value)
    if len(words) < 2:
        return False  # one word: the exact match above
    needed = {w for w in words if w not in MAKES and w not in _GENERIC_WORDS} or set(words)
    return any(needed <= set(_words(sentence)) for sentence in _SENTENCES.findall(text))


def _claims(answer: str) -> list[tuple[int, int, list[tuple[int, int, str]]]]:
    """Save claims: (start, end, the items of a "Saved: a, b and c." list, each with its span)."""
    claims = []
    for match in _LABEL.finditer(answer):
        items, offset, position, parts = match.group("items"), match.start("items"), 0, []
        for piece in _ITEM_SPLIT.split(items):
            at = items.find(piece, position)
            position = at + len(piece)
            if piece.strip():
                parts.append((offset + at, offset + at + len(piece), piece))
        claims.append((match.start(), match.end(), parts))
    for match in _INFORMAL.finditer(answer):
        start = max((m.end() for m in _SENTENCE_END.finditer(answer, 0, match.start())), default=0)
        if _NEGATION.search(answer, start, match.start()) or any(
            a <= match.start() < b for a, b, _ in claims
        ):
            continue
        end = next((m.end() for m in _SENTENCE_END.finditer(answer, match.end())), len(answer))
        start += len(answer[start:end]) - len(answer[start:end].lstrip())
        claims.append((start, end, []))  # the whole sentence that claims it
    return claims


def _saves(
    final_id: str, answer: str, numbers: list[Number], writes: list[Write], trace: TraceRun, counts
) -> list[Evidence]:
    out = []
    claims = _claims(answer)
    counts["save_claims"] += len(claims)
    for start, end, items in claims:
        if not writes:
            said_by = [s.step_id for s in trace.steps if isinstance(s, UserInputStep)]
            out.append(
                _item(
                    "false_save_claim",
                    f"the answer says {answer[start:end]!r} ({start}-{end}) but this turn wrote nothing to the profile",
                    [final_id, *said_by],
                    start=start,
                    end=end,
                    text=answer[start:end],
                    looked_for="a memory_write to the profile",
                    found=[],
                )
            )
            continue

        def held(a: int, b: int, item: str) -> bool:
            inside = [n for n in numbers if a <= n.start < b]
            return any(
                _said(w.new if w.new is not None else w.old, w.path, item, inside)
                or (w.new is None and _names_field(w.path, item))
                for w in writes
            )

        covered: set[int] = set()
        for index in range(len(items) - 1):  # a value with a comma in it: "you're in Portland, OR"
            (a, _, _), (_, b, _) = items[index], items[index + 1]
            if not held(*items[index]) and held(a, b, answer[a:b]):
                covered |= {index, index + 1}
        for index, (a, b, item) in enumerate(items):
            if index in covered or held(a, b, item):
                continue
            out.append(
                _item(
                    "claimed_not_saved",
                    f"the answer lists {item.strip()!r} ({a}-{b}) as saved, but no write of this turn holds it",
                    [final_id, *dict.fromkeys(w.step_id for w in writes)],
                    start=a,
                    end=b,
                    text=item,
                    looked_for="a memory_write holding this value",
                    found=[{"path": w.path, "new_value": w.new} for w in writes],
                )
            )
    for write in _reportable(writes):
        value = write.new if write.new is not None else write.old
        if _said(value, write.path, answer, numbers) or (
            write.new is None and _names_field(write.path, answer)
        ):
            continue
        out.append(
            _item(
                "silent_save",
                f"{write.path} was {'removed' if write.new is None else 'saved as ' + repr(write.new)} but the answer does not say so",
                [final_id, write.step_id],
                path=write.path,
                old_value=write.old,
                new_value=write.new,
                looked_for=str(value),
            )
        )
    return out


# --- 3. savings ---------------------------------------------------------------------------------


def _comparable(result: Any) -> bool | None:
    """The tool's word on whether its options deliver the same energy (Observation.comparable);
    for a result from before that flag, its plan's `feasible`; else unknown (None)."""
    if not isinstance(result, dict):
        return None
    if isinstance(result.get("comparable"), bool):
        return result["comparable"]
    facts = result.get("facts") if isinstance(result.get("facts"), dict) else {}
    return next((facts[key] for key in ("comparable", "feasible") if isinstance(facts.get(key), bool)), None)


def _flags(result: Any) -> dict[str, Any]:
    facts = result.get("facts") if isinstance(result, dict) and isinstance(result.get("facts"), dict) else {}
    flags = {
        key: facts[key] for key in ("comparable", "feasible", "savings_usd", "shortfall_kwh") if key in facts
    }
    if isinstance(result, dict) and "comparable" in result:
        flags["comparable"] = result["comparable"]
    return flags


def _stated_savings(text: str) -> list[tuple[float, str]]:
    """The savings a text states ("saves $4.32", "$1.61 less"), with the words that state them."""
    if "$" not in text:
        return []
    return [
        (float(match.group("a" if match.group("a") else "b").replace(",", "")), match.group())
        for match in _SAVING.finditer(text)
    ]


def _saving_figures(result: Any) -> list[tuple[float, str]]:
    """The savings a tool result holds, each with where it is: the value of a key naming a saving
    or a difference (savings_usd: signed), the difference of two of its money figures (a key's
    unit, `key_unit`), the savings its texts state."""
    figures: list[tuple[float, str]] = []
    money: list[tuple[float, str]] = []

    def walk(value: Any, key: str) -> None:
        if isinstance(value, dict):
            for child_key, child in value.items():
                walk(child, str(child_key))
        elif isinstance(value, list | tuple):
            for child in value:
                walk(child, key)
        elif isinstance(value, str):
            figures.extend(_stated_savings(value))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if _SAVING_KEY.search(key):
                figures.append((float(value), f"{key}={value}"))
            elif key_unit(key) == "money":
                money.append((float(value), f"{key}={value}"))

    walk(result, "")
    if len(money) <= 40:  # a handful in a real result; never quadratic in a large one
        figures += [
            (abs(a - b), f"{where_a} - {where_b}")
            for i, (a, where_a) in enumerate(money)
            for b, where_b in money[i + 1 :]
        ]
    return figures


_SAVING_KEY = re.compile(r"sav(?:e|ing)|diff|delta|cheaper", re.I)


def _claimed(match: re.Match[str], group: str, numbers: list[Number]) -> Number:
    """The money figure a saving claims: the answer's reading of it (with the tolerance its
    precision and an "about" allow), else read here."""
    at = match.start(group)
    for number in numbers:
        if number.unit == "money" and number.start <= at < number.end:
            return number
    raw = match.group(group).replace(",", "")
    decimals = len(raw.split(".", 1)[1]) if "." in raw else 0
    return Number(float(raw), "money", 0.5 * 10.0**-decimals, at, match.end(group), raw)


def _savings(
    final_id: str, answer: str, numbers: list[Number], trace: TraceRun, evidence: _Evidence, counts
) -> tuple[list[Evidence], set[int]]:
    """The findings, and where the figures they judged start (the number check leaves those: a
    saving may be the difference of two tool costs no step states as such)."""
    out = []
    judged: set[int] = set()
    for match in _SAVING.finditer(answer):
        claim = _claimed(match, "a" if match.group("a") else "b", numbers)
        judged.add(claim.start)
        counts["savings"] += 1

        def holds(figure: float, claim: Number = claim) -> bool:
            return abs(figure - claim.value) <= claim.tolerance + 1e-9

        tools = evidence.savings()
        holders = [
            (step, _comparable(step.result)) for step, figures in tools if any(holds(f) for f, _ in figures)
        ]
        if not holders:
            passages = [step_id for step_id, figure in evidence.passage_savings() if holds(figure)]
            if passages:
                continue  # a saving a retrieved passage states (the number check cites it)
            out.append(
                _item(
                    "unsupported_saving",
                    f"the answer claims {match.group()!r} ({match.start()}-{match.end()}), but no tool result "
                    "holds that saving (a savings figure, or the difference of two of its costs)"
                    + (
                        "; the tools' savings: "
                        + ", ".join(where for _, figures in tools for _, where in figures[:3])
                        if any(figures for _, figures in tools)
                        else ""
                    ),
                    [final_id, *[step.step_id for step, figures in tools if figures]],
                    start=match.start(),
                    end=match.end(),
                    text=match.group(),
                    looked_for={"value": claim.value, "unit": "money", "tolerance": claim.tolerance},
                    found=[
                        {"step_id": step.step_id, "tool": step.tool_name, "savings": [w for _, w in figures]}
                        for step, figures in tools
                        if figures
                    ],
                )
            )
            continue
        if any(flag is True for _, flag in holders):
            continue  # comparable
        incomparable = [step for step, flag in holders if flag is False]
        out.append(
            _item(
                "incomparable_saving" if incomparable else "saving_unverified",
                f"the answer claims {match.group()!r} ({match.start()}-{match.end()}), but "
                + (
                    f"{incomparable[0].tool_name} marks its options as not comparable (they do not deliver the same energy)"
                    if incomparable
                    else "the tool result does not say whether its options are comparable"
                ),
                [final_id, *[step.step_id for step, _ in holders]],
                Severity.ERROR if incomparable else Severity.WARN,
                start=match.start(),
                end=match.end(),
                text=match.group(),
                looked_for="a tool result marking its options comparable (comparable: true)",
                found=[
                    {
                        "step_id": step.step_id,
                        "tool": step.tool_name,
                        "comparable": flag,
                        "facts": _flags(step.result),
                    }
                    for step, flag in holders
                ],
            )
        )
    return out, judged


# --- 4. stale facts -----------------------------------------------------------------------------


def _shown(value: Any, path: str, text: str, numbers: list[Number]) -> tuple[int, int] | None:
    """Where `text` shows a profile value: a number of the same value and unit (a count such as
    occupants: followed by 'people'), or the value's words."""
    if isinstance(value, int | float):
        unit = key_unit(path.rsplit(".", 1)[-1])
        for number in numbers:
            if abs(number.value - value) <= number.tolerance + 1e-9 and (
                (unit and number.unit == unit)
                or (
                    not unit
                    and re.match(r"\s*(?:people|occupants|persons?)\b", text[number.end : number.end + 15])
                )
            ):
                return number.start, number.end
        return None
    shown = str(value).strip()
    match = re.search(rf"(?<!\w){re.escape(shown)}(?!\w)", text, re.I) if len(shown) >= 2 else None
    return match.span() if match else None
