"""The claims grader (issue 14, item 1): every claim of the final answer checked against the trace.

Failures come from traces recorded from real runs of the builds that had the bug (see
tests/fixtures/traces/README.md), good turns from the current build; two unit cases are edited
copies of good traces, and the small cases below are built step by step.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from context_forge.core.trace import (
    FinalOutputStep,
    MemoryReadStep,
    MemoryWriteStep,
    RetrievalStep,
    StateChangeStep,
    ToolCallStep,
    TraceRun,
    UserInputStep,
)
from context_forge.core.types import AgentInfo, FieldChange, RetrievalResult

from bench.graders import generated_trace
from config.files import EvalConfig
from tests.advisor_helpers import CONFIGURED_PROFILE, make_runtime
from traces.graders import Verdict, all_graders
from traces.graders.claims import ClaimsGrader
from traces.storage import load_trace

FIXTURES = Path(__file__).parent / "fixtures" / "traces"
SAMPLES = Path(__file__).parent.parent / "traces" / "samples"
T0 = datetime(2026, 1, 21, 18, tzinfo=timezone.utc)


def grade(trace: TraceRun):
    return ClaimsGrader(EvalConfig()).grade(trace)


def errors(result, check: str | None = None) -> list:
    return [
        e for e in result.evidence if e.severity.value == "error" and (check is None or e.check_name == check)
    ]


def step_of(trace: TraceRun, kind: type, **match: Any):
    return next(
        s for s in trace.steps if isinstance(s, kind) and all(getattr(s, k) == v for k, v in match.items())
    )


# --- the three failures, from real runs --------------------------------------------------------


def test_a_save_claim_with_nothing_saved_fails() -> None:
    """(a) ad6ff3e: 'Remember that I love my cat' -> 'Thanks, saving that to your profile now.'"""
    trace = load_trace(FIXTURES / "false-save-claim.json")
    result = grade(trace)
    assert result.verdict is Verdict.FAIL
    [claim] = errors(result, "false_save_claim")
    final = step_of(trace, FinalOutputStep)
    said = step_of(trace, UserInputStep)
    assert claim.step_ids == [final.step_id, said.step_id]
    assert claim.details["text"] == "Thanks, saving that to your profile now."
    assert final.content[claim.details["start"] : claim.details["end"]] == claim.details["text"]
    assert claim.details["found"] == []  # no memory_write in the turn


def test_a_saving_claimed_for_a_plan_that_delivers_less_energy_fails() -> None:
    """(b) d1b87c2 (before 418f6da, issue 11): an infeasible plan '... (saves $4.32). Not enough time'."""
    trace = load_trace(FIXTURES / "infeasible-saving.json")
    result = grade(trace)
    assert result.verdict is Verdict.FAIL
    [saving] = errors(result, "incomparable_saving")
    tool = step_of(trace, ToolCallStep, tool_name="plan_ev_charging")
    assert saving.step_ids == [step_of(trace, FinalOutputStep).step_id, tool.step_id]
    assert saving.details["text"] == "saves $4.32"
    [found] = saving.details["found"]
    assert found["comparable"] is False and found["facts"]["feasible"] is False
    assert found["facts"]["shortfall_kwh"] > 0
    assert errors(result) == [saving]  # its numbers are all the tool's


def test_a_number_no_step_holds_fails_with_the_nearest_number() -> None:
    """(c) unit case: good-ev-plan-saving.json with $17.33 shown as $15.90 (make_unit_cases.py)."""
    trace = load_trace(FIXTURES / "invented-number.json")
    result = grade(trace)
    assert result.verdict is Verdict.FAIL
    [number] = errors(result)
    final = step_of(trace, FinalOutputStep)
    tool = step_of(trace, ToolCallStep, tool_name="plan_ev_charging")
    assert number.check_name == "unsupported_number"
    assert number.step_ids == [final.step_id, tool.step_id]
    assert final.content[number.details["start"] : number.details["end"]] == "$15.90"
    assert number.details["nearest"]["value"] == 17.33 and "$17.33" in number.details["nearest"]["where"]


def test_a_stale_fact_used_without_a_question_fails() -> None:
    """Unit case: good-stale-confirmed.json without its 'is that still right?' questions."""
    trace = load_trace(FIXTURES / "stale-unconfirmed.json")
    result = grade(trace)
    [stale] = errors(result, "stale_fact_unconfirmed")
    assert stale.step_ids == [step_of(trace, FinalOutputStep).step_id, step_of(trace, MemoryReadStep).step_id]
    assert stale.details["section"] == "equipment" and stale.details["age_days"] == 123
    assert stale.details["text"] == "6 kW"
    assert grade(load_trace(FIXTURES / "good-stale-confirmed.json")).verdict is Verdict.PASS


# --- good turns pass ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in FIXTURES.glob("good-*.json"))
    + ["old-saved-facts.json", "old-save-claim-backed.json"],
)
def test_good_recorded_turns_pass(name: str) -> None:
    result = grade(load_trace(FIXTURES / name))
    assert result.verdict is Verdict.PASS, [e.description for e in result.evidence]


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_every_sample_passes_claims(path: Path) -> None:
    """The samples fail other graders on purpose (stale memory, a loop, waste, budget), never this one."""
    result = grade(load_trace(path))
    assert result.verdict is Verdict.PASS, [e.description for e in result.evidence]


def test_the_current_build_marks_comparable_plans_and_states_no_saving_otherwise() -> None:
    feasible = step_of(
        load_trace(FIXTURES / "good-ev-plan-saving.json"), ToolCallStep, tool_name="plan_ev_charging"
    )
    assert feasible.result["comparable"] is True and feasible.result["facts"]["feasible"] is True
    short = load_trace(FIXTURES / "good-infeasible-plan.json")
    assert step_of(short, ToolCallStep, tool_name="plan_ev_charging").result["comparable"] is False
    assert "saves" not in step_of(short, FinalOutputStep).content
    rates = step_of(
        load_trace(FIXTURES / "good-rate-plans.json"), ToolCallStep, tool_name="compare_rate_plans"
    )
    assert rates.result["comparable"] is True


def test_an_offline_conversation_makes_only_claims_the_trace_supports(data_dir: Path) -> None:
    runtime = make_runtime(data_dir, clock=lambda: T0)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    for message in (
        "Charge my car by 6am, I'm at 10%",
        "Should I run the dryer now?",
        "my charger is 11 kW and my ZIP is 92101 now",
        "we're on SDG&E EV-TOU-5",
        "when should I charge?",
        "we are 3 people and I work from home",
        "my battery is -5 kWh",
        "I think it's E-TOU-C but not sure",
        "forget my ZIP",
        "what do you know about me?",
    ):
        runtime.service.handle_turn("T1-U1", "thread-1", message)
    paths = sorted((data_dir / "traces" / "T1-U1" / "thread-1").glob("*.json"))
    assert len(paths) == 10
    for path in paths:
        result = grade(load_trace(path))
        assert result.verdict is Verdict.PASS, (path.name, [e.description for e in result.evidence])


# --- small cases, step by step -----------------------------------------------------------------


def trace_of(
    answer: str,
    *,
    user: str = "When should I charge?",
    result: dict[str, Any] | None = None,
    arguments: dict[str, Any] | None = None,
    writes: list[tuple[str, Any, Any]] = (),
    profile: dict[str, Any] | None = None,
    sections: dict[str, str] | None = None,
    passages: list[str] = (),
    refused: list[dict[str, Any]] | None = None,
) -> TraceRun:
    steps: list[Any] = [UserInputStep(step_id="user", timestamp=T0, content=user)]
    if profile is not None or sections is not None:
        read = {"user_id": "u", "sections": sections or {}, "profile": profile or {}}
        steps.append(
            MemoryReadStep(
                step_id="read", timestamp=T0, query={"k": "profile"}, results=[read], match_count=1
            )
        )
    if refused is not None:
        steps.append(
            StateChangeStep(step_id="refused", timestamp=T0, state_key="refused_facts", new_value=refused)
        )
    for n, (path, old, new) in enumerate(writes):
        steps.append(
            MemoryWriteStep(
                step_id=f"write{n}",
                timestamp=T0,
                namespace=["profiles", "u"],
                key="profile",
                operation="delete" if new is None else "update",
                data={path: new},
                changes=[FieldChange(path=path, old_value=old, new_value=new)],
            )
        )
    if passages:
        steps.append(
            RetrievalStep(
                step_id="retrieval",
                timestamp=T0,
                query="q",
                results=[RetrievalResult(content=p, score=0.9) for p in passages],
                match_count=len(passages),
            )
        )
    if result is not None:
        steps.append(
            ToolCallStep(
                step_id="tool",
                timestamp=T0,
                tool_name="plan_ev_charging",
                arguments=arguments or {},
                result=result,
            )
        )
    steps.append(FinalOutputStep(step_id="final", timestamp=T0, content=answer))
    return TraceRun(
        run_id="r",
        started_at=T0,
        ended_at=T0 + timedelta(seconds=1),
        agent_info=AgentInfo(name="t"),
        steps=steps,
    )


PLAN = {
    "summary": "Needs 31.9 kWh. Cheapest before 07:00: 02:51-07:00 tomorrow for $9.58",
    "facts": {
        "grid_kwh": 31.94,
        "power_kw": 7.7,
        "planned_cost_usd": 9.584,
        "charge_now_cost_usd": 11.19,
        "savings_usd": 1.61,
        "windows": [["2026-01-22T02:51:04.9-08:00", "2026-01-22T07:00:00-08:00"]],
        "flat_rate_usd_per_kwh": 0.3,
        "efficiency": 0.9,
    },
    "comparable": True,
}


@pytest.mark.parametrize(
    "answer",
    [
        "About 31.9 kWh for $9.58, at 7.7 kW.",  # the shown precision of 31.94 and 9.584
        "Start at 02:51 and it's done by 7am.",  # a tool's ISO time, the deadline
        "Start at 2:51 AM.",
        "You pay about 30 cents per kWh ($0.30/kWh), at 90% efficiency.",  # cents; a fraction as %
        "Plugging in now costs $11.19; the plan saves $1.61.",
        "1. Plug in at 02:51 [2]. Since 2019, Level 2 chargers and the Model 3 run 24/7 on EV2-A.",  # not claims
        "By 6am, as you asked, from 10%.",  # the user's own words
        "It costs about $9.6.",  # 9.584 shown to the dime
    ],
)
def test_numbers_from_the_evidence_pass(answer: str) -> None:
    trace = trace_of(answer, user="I need it by 6am, I'm at 10%", result=PLAN, arguments={"ready_by_hour": 7})
    result = grade(trace)
    assert result.verdict is Verdict.PASS, [e.description for e in result.evidence]


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        ("About 31.8 kWh.", "31.8 kWh"),  # not 31.94 at one decimal
        ("At 7.7 kWh.", "7.7 kWh"),  # 7.7 is a kW figure
        ("Start at 03:15.", "03:15"),
        ("That's about $3,300 a year.", "$3,300"),
        ("On 2026-02-30 it's cheaper.", "2026-02-30"),
    ],
)
def test_numbers_the_evidence_does_not_hold_fail(answer: str, text: str) -> None:
    [error] = errors(grade(trace_of(answer, result=PLAN)))
    assert error.details["text"] == text and error.step_ids[0] == "final"


def test_the_rounding_an_answer_states_is_allowed() -> None:
    tool = {"summary": "Estimated bill $3,251 a year", "facts": {}}
    assert grade(trace_of("About $3,300 a year.", result=tool)).verdict is Verdict.PASS
    assert grade(trace_of("Exactly $3,300 a year.", result=tool)).verdict is Verdict.FAIL


def test_numbers_from_passages_the_profile_and_refusals_pass() -> None:
    trace = trace_of(
        "Heat pumps cut use by up to 40%. Your 57.5 kWh battery; I can't save -5 kWh: it must be more than 0 kWh "
        "and at most 1000 kWh. The household section is 220 days old.",
        user="my battery is -5 kWh",
        passages=["DOE says cold-climate heat pumps can cut household energy use by up to 40%."],
        profile={"equipment": {"ev_battery_kwh": 57.5}},
        sections={"household": "2025-06-15T10:00:00+00:00"},
        refused=[
            {
                "field": "equipment.battery_capacity_kwh",
                "value": -5,
                "reason": "it must be more than 0 kWh and at most 1000 kWh",
            }
        ],
    )
    result = grade(trace)
    assert result.verdict is Verdict.PASS, [e.description for e in result.evidence]


def test_saved_facts_are_said_and_said_facts_were_saved() -> None:
    zip_write = [
        ("location.zip_code", None, "94110"),
        ("location.city", None, "San Francisco"),
        ("location.lat", None, 37.7749),
        ("location.lon", None, -122.4194),
        ("location.timezone", None, "America/Los_Angeles"),
    ]
    good = trace_of("Saved: your ZIP code is 94110 (San Francisco).", user="94110", writes=zip_write)
    assert grade(good).verdict is Verdict.PASS  # coordinates and timezone ride along with the ZIP
    silent = grade(trace_of("Which utility serves your home?", user="94110", writes=zip_write))
    assert [e.details["path"] for e in errors(silent, "silent_save")] == ["location.zip_code"]
    assert errors(silent)[0].step_ids == ["final", "write0"]
    overclaimed = grade(
        trace_of(
            "Saved: your ZIP code is 94110 and your utility is PG&E.", user="94110 PG&E", writes=zip_write[:1]
        )
    )
    [item] = errors(overclaimed, "claimed_not_saved")
    assert item.details["text"] == "your utility is PG&E"


@pytest.mark.parametrize(
    "answer",
    [
        "I haven't saved anything about the rate plan: you didn't sound sure.",
        "This assumes EV2-A (not saved to your profile; tell me your plan for exact hours).",
        "There's nothing of yours I saved that I could undo.",
        "I don't have anything saved about you yet.",
        "Noted. That isn't something I keep in your profile, so I haven't saved it.",
        "Thanks, noted. I'll save that to your profile when this conversation ends.",
    ],
)
def test_saying_nothing_was_saved_is_no_save_claim(answer: str) -> None:
    assert grade(trace_of(answer)).verdict is Verdict.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "Got it — I've saved your ZIP code.",
        "I'll remember that you work from home.",
        "I've noted that in your profile.",
    ],
)
def test_informal_save_claims_need_a_write(answer: str) -> None:
    [claim] = errors(grade(trace_of(answer)), "false_save_claim")
    assert claim.step_ids == ["final", "user"]


def test_removals_confirmations_and_coded_values_are_said_in_plain_words() -> None:
    forgotten = trace_of(
        "Forgotten: your ZIP code (was 94110).", writes=[("location.zip_code", "94110", None)]
    )
    assert grade(forgotten).verdict is Verdict.PASS
    confirmed = trace_of(
        "Confirmed: you work in an office, 9 to 5.",
        writes=[("household.work_schedule", "Office 9-5", "Office 9-5")],
    )
    assert grade(confirmed).verdict is Verdict.PASS
    coded = trace_of(
        "Saved: you work from home, you heat with a heat pump, you don't have a home battery and you live alone.",
        writes=[
            ("household.work_schedule", None, "WFH"),
            ("equipment.heating_type", None, "heat_pump"),
            ("equipment.has_battery_storage", None, False),
            ("household.occupants", None, 1),
        ],
    )
    assert grade(coded).verdict is Verdict.PASS


def test_savings_need_comparable_options() -> None:
    answer = "Charge overnight: $9.58 vs $11.19 now (saves $1.61)."
    assert grade(trace_of(answer, result=PLAN)).verdict is Verdict.PASS
    short = {**PLAN, "comparable": False}
    [saving] = errors(grade(trace_of(answer, result=short)), "incomparable_saving")
    assert saving.step_ids == ["final", "tool"]
    unknown = {key: value for key, value in PLAN.items() if key != "comparable"}
    result = grade(trace_of(answer, result=unknown))
    assert result.verdict is Verdict.WARN and result.evidence[0].check_name == "saving_unverified"
    legacy = {**unknown, "facts": {**PLAN["facts"], "feasible": False}}  # a result from before the flag
    assert grade(trace_of(answer, result=legacy)).verdict is Verdict.FAIL
    assert grade(trace_of("Cheaper by $1.61 if you wait.", result=short)).verdict is Verdict.FAIL


def test_a_stale_value_needs_a_question_naming_it() -> None:
    profile = {"equipment": {"solar_capacity_kw": 6.0, "ev_model": "Tesla Model 3"}}
    old = {"equipment": "2025-09-20T10:00:00+00:00"}
    used = trace_of(
        "Your 6 kW system makes about 14.8 kWh.",
        profile=profile,
        sections=old,
        result={"summary": "Your 6 kW system: about 14.8 kWh", "facts": {}},
    )
    [stale] = errors(grade(used), "stale_fact_unconfirmed")
    assert stale.step_ids == ["final", "read"] and stale.details["text"] == "6 kW"
    asked = trace_of(
        "Your 6 kW system makes about 14.8 kWh. Is 6 kW of solar still right?",
        profile=profile,
        sections=old,
        result={"summary": "Your 6 kW system: about 14.8 kWh", "facts": {}},
    )
    assert grade(asked).verdict is Verdict.PASS
    fresh = trace_of(
        "Your 6 kW system makes about 14.8 kWh.",
        profile=profile,
        sections={"equipment": "2026-01-10T10:00:00+00:00"},
        result={"summary": "Your 6 kW system: about 14.8 kWh", "facts": {}},
    )
    assert grade(fresh).verdict is Verdict.PASS


def test_a_trace_without_an_answer_passes() -> None:
    trace = TraceRun(
        run_id="r",
        started_at=T0,
        agent_info=AgentInfo(name="t"),
        steps=[UserInputStep(step_id="user", timestamp=T0, content="hi")],
    )
    assert grade(trace).verdict is Verdict.PASS


def test_registered_with_the_other_graders() -> None:
    assert "claims" in [grader.name for grader in all_graders(EvalConfig())]


def test_linear_in_the_trace() -> None:
    """< 10 ms on 1 000 steps (bench.graders); here the ratio, never an absolute time: 4x the
    steps with an answer whose numbers are unsupported (every passage read) takes under 8x."""

    def timed(steps: int) -> float:
        base = generated_trace(steps)
        answer = FinalOutputStep(
            step_id="final", timestamp=T0, content="It costs $12.34 for 31.9 kWh at 23:17."
        )
        trace = base.model_copy(update={"steps": [*base.steps[:-1], answer]})
        grader = ClaimsGrader(EvalConfig())
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            grader.grade(trace)
            best = min(best, time.perf_counter() - start)
        return best

    assert timed(4000) < 8 * timed(1000)


def test_an_assumption_the_reading_recorded_supports_its_number_and_only_that(tmp_path: Path) -> None:
    """'32 amps' saved as 7.68 kW "assuming 32 A at 240 V": 240 comes from the reading's recorded
    assumption (stated_facts), so the turn passes; the same turn without it fails on '240'."""
    source = (
        Path(__file__).parent.parent / "traces" / "replay-suite" / "working-memory-remember-that" / "traces"
    )
    path = source / "01-turn.json"
    assert grade(load_trace(path)).verdict is Verdict.PASS
    data = json.loads(path.read_text())
    for step in data["steps"]:
        if step.get("state_key") == "stated_facts":
            assert any("240" in str(fact.get("assumption")) for fact in step["new_value"])
            for fact in step["new_value"]:
                fact.pop("assumption", None)
    stripped = tmp_path / "turn.json"
    stripped.write_text(json.dumps(data))
    result = grade(load_trace(stripped))
    assert result.verdict is Verdict.FAIL and any("'240'" in e.description for e in result.evidence)


def test_a_saved_value_with_a_comma_in_it_is_one_item(data_dir: Path) -> None:
    """'Saved: you're in Portland, OR.' — the write holds 'Portland, OR' (a real offline turn)."""
    runtime = make_runtime(data_dir)
    runtime.service.handle_turn("T1-P1", "thread-1", "When should I charge my EV?")
    reply = runtime.service.handle_turn("T1-P1", "thread-1", "portland oregon")
    assert "Portland, OR" in reply.text
    result = grade(load_trace(runtime.service.traces.latest("T1-P1")))
    assert result.verdict is Verdict.PASS, [e.description for e in result.evidence]


# --- a real turn with its answer rewritten (the reviewer's cases) -------------------------------

REPLAY = Path(__file__).parent.parent / "traces" / "replay-suite"
# plan_ev_charging: $9.58 either way (savings_usd 0.0), 02:51-07:00 on 2026-01-22; the profile
# read holds user T1-U1, lat 37.7749 / lon -122.4194 and 2 occupants
CONFIGURED_EV = REPLAY / "acceptance-configured-ev" / "traces" / "01-turn.json"


def answered(answer: str, source: Path | TraceRun = CONFIGURED_EV) -> TraceRun:
    """The recorded turn with only its final answer replaced."""
    trace = load_trace(source) if isinstance(source, Path) else source
    steps = [
        step.model_copy(update={"content": answer}) if isinstance(step, FinalOutputStep) else step
        for step in trace.steps
    ]
    return trace.model_copy(update={"steps": steps})


def test_the_recorded_answer_and_its_honest_rewordings_pass() -> None:
    assert grade(load_trace(CONFIGURED_EV)).verdict is Verdict.PASS
    assert (
        grade(answered("Charge from 02:51 to 07:00 tomorrow (January 22) for $9.58.")).verdict is Verdict.PASS
    )


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        ("It costs $22 to charge tonight.", "$22"),  # not the 22 of 2026-01-22
        ("It costs $122 to charge tonight.", "$122"),  # not lon -122.4194 (a sign, a coordinate)
        ("It costs $1 to charge tonight.", "$1"),  # not the 1 of user T1-U1
        ("Plug in at 02:51; it will cost about $20 for the night.", "$20"),  # "about" is ±5: 22 is a date
        ("It costs $9.58 and saves you 22% compared to charging now.", "22%"),
        ("It costs $2 to charge tonight.", "$2"),  # not occupants=2
        ("Charging adds 22 kWh for $9.58.", "22 kWh"),
        ("Your charger runs at 37.77 kW.", "37.77 kW"),  # not lat 37.7749
    ],
)
def test_a_figure_with_a_unit_needs_evidence_in_that_unit(answer: str, text: str) -> None:
    """Date parts, coordinates, identifiers and counts back unitless numbers only ("January 22")."""
    result = grade(answered(answer))
    assert result.verdict is Verdict.FAIL
    assert [e.details["text"] for e in errors(result, "unsupported_number")] == [text]


def test_a_saving_no_tool_worked_out_fails() -> None:
    """The tool says savings_usd 0.0; a 2 elsewhere in the trace (occupants) is no saving."""
    for answer in ("You'd save $2 by waiting until 02:51.", "You'd pay $2 less by waiting."):
        result = grade(answered(answer))
        [saving] = errors(result, "unsupported_saving")
        assert saving.step_ids == ["finaloutput-011", "toolcall-007"]
        assert saving.details["found"][0]["savings"][0] == "savings_usd=0.0"
    # a cost of the plan is not a saving either, though the number itself is the tool's
    recorded = load_trace(FIXTURES / "good-ev-plan-saving.json")  # $17.33 vs $20.89 now, saves $3.56
    wrong = grade(answered("Charging now costs $20.89; waiting saves you $17.33.", recorded))
    assert [e.check_name for e in errors(wrong)] == ["unsupported_saving"]
    for answer in (
        "Waiting saves you $3.56 ($17.33 instead of $20.89).",  # savings_usd
        "Waiting saves you about $3.60.",  # rounded to the dime
        "It's $17.33, so $3.56 less than plugging in now.",
    ):
        assert grade(answered(answer, recorded)).verdict is Verdict.PASS, answer
    same = answered("Plugging in now costs the same ($9.58): waiting saves you $0.")
    assert grade(same).verdict is Verdict.PASS


def test_a_saving_that_is_the_difference_of_two_tool_costs_passes() -> None:
    """'$74 a year less than E-ELEC': $3,324.93 - $3,251.20 (compare_rate_plans holds no savings key)."""
    recorded = load_trace(FIXTURES / "good-rate-plans.json")
    tool = step_of(recorded, ToolCallStep, tool_name="compare_rate_plans")
    summary = tool.result["summary"]
    stripped = {**tool.result, "summary": summary.replace("$74 a year less", "cheaper")}
    steps = [
        step.model_copy(update={"result": stripped}) if step is tool else step for step in recorded.steps
    ]
    trace = recorded.model_copy(update={"steps": steps})
    assert grade(answered("EV2-A is $74 a year less than E-ELEC ($3,251 vs $3,325).", trace)).verdict is (
        Verdict.PASS
    )
    assert grade(answered("EV2-A is $80 a year less than E-ELEC.", trace)).verdict is Verdict.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Charge from 2:51 AM to 7 AM tomorrow; it costs about $9.60 for 31.9 kWh.",
        "Start charging around 3 AM and you'll be done by 7 AM for $9.58.",
        "Charge overnight between about 3am and 7am; it costs $9.58.",
        "It costs roughly $9.6, approximately 32 kWh, ~$10 in all.",
    ],
)
def test_about_widens_a_rounded_figure_and_a_time(answer: str) -> None:
    result = grade(answered(answer))
    assert result.verdict is Verdict.PASS, [e.description for e in result.evidence]


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        ("It costs about $9.50.", "$9.50"),  # rounded to the dime, 9.58 is $9.60
        ("It costs about $9.55.", "$9.55"),  # no trailing zero: its own precision
        ("Start charging around 4 AM.", "4 AM."),  # 69 minutes from 02:51
        ("Start charging at 3 AM.", "3 AM."),  # without "around": within a minute
    ],
)
def test_about_does_not_widen_past_its_rounding(answer: str, text: str) -> None:
    [error] = errors(grade(answered(answer)))
    assert error.details["text"] == text


def test_a_saved_car_is_named_by_its_model_or_an_alias_of_its_maker(data_dir: Path) -> None:
    """A real offline turn saves 'Chevrolet Bolt EV'; replies name it the way people do. (No
    battery size stored: a changed car drops the old car's, a write the answers below do not name.)"""
    runtime = make_runtime(data_dir, clock=lambda: T0)
    equipment = {k: v for k, v in CONFIGURED_PROFILE["equipment"].items() if k != "ev_battery_kwh"}
    runtime.advisor.profiles.import_profile({**CONFIGURED_PROFILE, "equipment": equipment})
    reply = runtime.service.handle_turn("T1-U1", "thread-1", "I drive a chevy bolt now")
    assert reply.text.startswith("Updated: your EV is a Chevrolet Bolt EV")
    recorded = load_trace(runtime.service.traces.latest("T1-U1"))
    assert grade(recorded).verdict is Verdict.PASS
    for answer in (
        "Saved: your EV is a Chevy Bolt.",
        "Got it, I've saved your Chevy Bolt to your profile.",
        "Great, I've noted that you drive a Bolt EV.",
        "Updated: your EV is a Bolt (was a Tesla Model 3).",
    ):
        result = grade(answered(answer, recorded))
        assert result.verdict is Verdict.PASS, (answer, [e.description for e in result.evidence])
    for answer in (
        "Saved: your EV is a Chevy Volt.",
        "Saved: your EV is a Chevy.",
        "Saved: a Tesla Model Y.",
    ):
        result = grade(answered(answer, recorded))
        assert [e.check_name for e in errors(result)] == ["claimed_not_saved", "silent_save"], answer
    silent = grade(answered("Great, I've noted that you drive an EV.", recorded))
    assert [e.check_name for e in errors(silent)] == ["silent_save"]
