"""MemoryHygiene: a fact the understanding found about the user must be saved in the turn, refused
with a reason, or saved by a later memorize run of the thread (linked). Fixtures recorded from a
build that deferred stated facts (tests/fixtures/traces/stated-not-handled/PROVENANCE.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from config.files import EvalConfig
from traces.evaluate import evaluate
from traces.graders import Verdict
from traces.graders.memory_hygiene import MemoryHygieneGrader, memorize_runs_beside
from traces.storage import load_trace

FIXTURES = Path(__file__).parent / "fixtures" / "traces" / "stated-not-handled"
TURN = FIXTURES / "turn-1-deferred.json"
MEMORIZE = FIXTURES / "memorize-after.json"
FIELDS = [
    "location.zip_code",
    "location.rate_schedule",
    "equipment.ev_model",
    "equipment.battery_capacity_kwh",
]


def _stated_step(path: Path) -> str:
    trace = json.loads(path.read_text())
    return next(s["step_id"] for s in trace["steps"] if s.get("state_key") == "stated_facts")


def test_a_turn_that_neither_saved_nor_refused_what_the_user_said_fails(tmp_path: Path) -> None:
    alone = tmp_path / TURN.name
    shutil.copy(TURN, alone)  # no memorize run beside it

    grade = MemoryHygieneGrader(EvalConfig(), memorize_runs_beside(alone)).grade(load_trace(alone))

    assert grade.verdict is Verdict.FAIL
    lost = [e for e in grade.evidence if e.check_name == "stated_not_handled"]
    assert [e.details["field"] for e in lost] == FIELDS
    assert all(e.step_ids == [_stated_step(TURN)] for e in lost)
    assert "My ZIP is 94102" in lost[0].description


def test_a_fact_deferred_to_a_memorize_run_that_saved_it_passes_with_the_run_linked() -> None:
    grade = MemoryHygieneGrader(EvalConfig(), memorize_runs_beside(TURN)).grade(load_trace(TURN))

    memorize_run = load_trace(MEMORIZE).run_id
    saved = [e for e in grade.evidence if e.check_name == "deferred_fact_saved"]
    assert [e.details["field"] for e in saved] == FIELDS
    assert {e.details["memorize_trace"] for e in saved} == {memorize_run}
    assert grade.verdict is Verdict.PASS


def test_a_memorize_run_that_covered_the_turn_but_did_not_save_the_fact_fails(tmp_path: Path) -> None:
    """The real memorize run with its writes removed (a unit case built from the fixture)."""
    shutil.copy(TURN, tmp_path / TURN.name)
    run = json.loads(MEMORIZE.read_text())
    run["steps"] = [s for s in run["steps"] if s["step_type"] != "memory_write"]
    (tmp_path / MEMORIZE.name).write_text(json.dumps(run))

    grade = MemoryHygieneGrader(EvalConfig(), memorize_runs_beside(tmp_path / TURN.name)).grade(
        load_trace(tmp_path / TURN.name)
    )

    assert grade.verdict is Verdict.FAIL
    assert {e.check_name for e in grade.evidence} == {"deferred_fact_lost"}
    assert all(e.details["memorize_trace"] == run["run_id"] for e in grade.evidence)


def test_a_memorize_run_that_failed_or_ran_before_the_turn_does_not_count(tmp_path: Path) -> None:
    shutil.copy(TURN, tmp_path / TURN.name)
    run = json.loads(MEMORIZE.read_text())
    run["steps"] = [s for s in run["steps"] if s.get("state_key") != "memorized_through_turn"]  # it failed
    (tmp_path / MEMORIZE.name).write_text(json.dumps(run))

    grade = MemoryHygieneGrader(EvalConfig(), memorize_runs_beside(tmp_path / TURN.name)).grade(
        load_trace(tmp_path / TURN.name)
    )
    assert {e.check_name for e in grade.evidence} == {"stated_not_handled"}


def test_evaluate_grades_a_folder_with_its_memorize_runs() -> None:
    """`energy-advisor eval FOLDER` finds the memorize run beside the turn (same thread folder)."""
    report = evaluate([FIXTURES], EvalConfig())
    turn = next(graded for graded in report.traces if Path(graded.path).name == TURN.name)
    hygiene = next(g for g in turn.grades if g.grader_name == "memory_hygiene")
    assert hygiene.verdict is Verdict.PASS
    assert any(e.check_name == "deferred_fact_saved" for e in hygiene.evidence)


def test_a_folder_of_turns_reads_its_memorize_runs_once(tmp_path: Path, monkeypatch) -> None:
    """Each trace graded looked up its siblings by parsing all of them (400 traces: 56 s)."""
    import traces.loading as loading

    for number in range(30):
        shutil.copy(TURN, tmp_path / f"turn-{number:02d}.json")
    shutil.copy(MEMORIZE, tmp_path / MEMORIZE.name)
    parsed: list[int] = []
    real = loading.parse_trace

    def counting(text: str):
        parsed.append(len(text))
        return real(text)

    import traces.graders.memory_hygiene as hygiene

    folder_reads: list[Path] = []
    read_folder = hygiene._read_memorize_runs

    def counting_folders(folder: Path):
        folder_reads.append(folder)
        return read_folder(folder)

    monkeypatch.setattr(loading, "parse_trace", counting)  # what the sibling reader parses
    monkeypatch.setattr(hygiene, "_read_memorize_runs", counting_folders)
    report = evaluate([tmp_path], EvalConfig())
    assert len(report.traces) == 31
    assert len(folder_reads) == 1  # the folder once, for all 30 turns that looked it up
    assert len(parsed) == 1  # and of its 31 files only the memorize run was parsed
