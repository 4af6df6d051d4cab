"""Issue 14's first paragraph: each failure, recorded from a build that had it
(tests/fixtures/traces/first-paragraph/PROVENANCE.md, and the claims grader's fixtures in
tests/fixtures/traces/README.md), fails the right grader with evidence on the right step — and the
same conversation on the current code passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from config.files import EvalConfig, load_app_config
from config.settings import CONFIG_DIR
from tests.advisor_helpers import make_runtime
from traces.graders import Verdict, grade_trace
from traces.storage import load_trace

FIXTURES = Path(__file__).parent / "fixtures" / "traces"


def grades(path: Path, config: EvalConfig | None = None) -> dict[str, object]:
    return {g.grader_name: g for g in grade_trace(load_trace(path), config or EvalConfig())}


def test_a_question_taken_as_the_town_fails_memory_hygiene_on_the_write() -> None:
    path = FIXTURES / "first-paragraph" / "question-as-town.json"
    trace = json.loads(path.read_text())
    city_write = next(
        s["step_id"]
        for s in trace["steps"]
        if s["step_type"] == "memory_write" and s["changes"][0]["path"] == "location.city"
    )
    hygiene = grades(path)["memory_hygiene"]
    assert hygiene.verdict is Verdict.FAIL
    (evidence,) = [e for e in hygiene.evidence if e.check_name == "ungrounded_place"]
    assert evidence.step_ids == [city_write] and "San Francisco" in evidence.description
    assert "Are there rebates for heat pumps?" in evidence.description


@pytest.mark.parametrize(
    "answer", ["94110", "im in sf", "philly", "we live in san diego", "Berkeley CA 94704"]
)
def test_a_town_the_user_gave_is_grounded(data_dir: Path, answer: str) -> None:
    runtime = make_runtime(data_dir)
    runtime.service.handle_turn("T1-P2", "thread-1", "When should I charge my EV?")
    runtime.service.handle_turn("T1-P2", "thread-1", answer)
    profile = runtime.service.profiles.get("T1-P2")
    assert profile is not None and profile.location is not None and profile.location.city
    hygiene = grades(runtime.service.traces.latest("T1-P2"))["memory_hygiene"]
    assert not [e for e in hygiene.evidence if e.check_name == "ungrounded_place"]


def test_the_question_is_not_a_town_on_the_current_code(data_dir: Path) -> None:
    runtime = make_runtime(data_dir)
    runtime.service.handle_turn("T1-P3", "thread-1", "When should I charge my EV?")
    runtime.service.handle_turn("T1-P3", "thread-1", "Are there rebates for heat pumps?")
    profile = runtime.service.profiles.get("T1-P3")
    assert profile is None or profile.location is None or profile.location.city is None
    assert grades(runtime.service.traces.latest("T1-P3"))["memory_hygiene"].verdict is not Verdict.FAIL


def test_the_cold_climate_answer_to_how_heat_pumps_work_fails_retrieval_relevance() -> None:
    path = FIXTURES / "first-paragraph" / "heat-pumps-cold-climate.json"
    trace = json.loads(path.read_text())
    final = next(s["step_id"] for s in trace["steps"] if s["step_type"] == "final_output")
    retrieval = next(s["step_id"] for s in trace["steps"] if s["step_type"] == "retrieval")
    relevance = grades(path, load_app_config(CONFIG_DIR).eval)["retrieval_relevance"]
    assert relevance.verdict is Verdict.FAIL
    wrong = [e for e in relevance.evidence if "Cold-climate models" in e.description]
    assert wrong and set(wrong[0].step_ids) >= {final, retrieval}
    assert "Moving heat instead of making it" in wrong[0].description


def test_the_false_save_and_the_saving_that_is_not_one_fail_claims() -> None:
    false_save = grades(FIXTURES / "false-save-claim.json")["claims"]
    assert false_save.verdict is Verdict.FAIL
    assert any(e.check_name == "false_save_claim" for e in false_save.evidence)
    saving = grades(FIXTURES / "infeasible-saving.json")["claims"]
    assert saving.verdict is Verdict.FAIL
    assert any(e.check_name == "incomparable_saving" for e in saving.evidence)


@pytest.mark.parametrize(
    ("said", "town", "grounded"),
    [
        ("When should I charge my EV?", "Charlotte", False),
        ("When is the best time to wash my clothes?", "Washington", False),
        ("charge late tonight", "Los Angeles", False),
        ("Is solar worth it here?", "Solana Beach", False),
        ("How do heat pumps work?", "Heath", False),
        ("I drive 12000 miles a year", "Boston", False),
        ("okland", "Oakland", True),
        ("san fransisco", "San Francisco", True),
        ("im in sf", "San Francisco", True),
        ("philly", "Philadelphia", True),
        ("we're in LA", "Los Angeles", True),
        ("portland oregon", "Portland, OR", True),
    ],
)
def test_a_town_is_grounded_only_in_what_the_user_said(said: str, town: str, grounded: bool) -> None:
    """Unit cases from the recorded fixture with the words and the town swapped (a review found
    prefixes, initials and any five-digit number grounding unrelated towns)."""
    from traces.loading import parse_trace

    trace = json.loads((FIXTURES / "first-paragraph" / "question-as-town.json").read_text())
    for step in trace["steps"]:
        if step["step_type"] == "user_input":
            step["content"] = said
        if step["step_type"] == "memory_write" and step["changes"][0]["path"] == "location.city":
            step["changes"][0]["new_value"] = town
    hygiene = next(
        g
        for g in grade_trace(parse_trace(json.dumps(trace)), EvalConfig())
        if g.grader_name == "memory_hygiene"
    )
    assert any(e.check_name == "ungrounded_place" for e in hygiene.evidence) is not grounded
