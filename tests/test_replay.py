"""`energy-advisor replay`: the shipped suite replays green; a conversation recorded over Ollama's API
replays from its recorded model answers without a model; and a graph that now asks the model (or a
tool) something new, a verdict that got worse, or a broken expectation fails with the step named."""

from __future__ import annotations

import functools
import json
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from bot.cli import main as cli_main
from bot.replay.record import SUITE_DIR
from bot.replay.runner import replay_case, replay_suite
from bot.replay.suite import find_cases
from config.files import load_app_config
from config.settings import CONFIG_DIR
from tests.advisor_helpers import CONFIGURED_PROFILE, app_config, make_runtime
from tests.servers.ollama import FakeOllama, call, say

START = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)


@functools.cache
def _config():
    return load_app_config(CONFIG_DIR)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.mark.parametrize("case", find_cases(SUITE_DIR), ids=lambda path: path.name)
def test_the_shipped_suite_replays(case: Path) -> None:
    outcome = replay_case(case, _config())
    assert outcome.passed, [problem for turn in outcome.turns for problem in turn.problems] + outcome.problems
    assert outcome.turns and all(turn.answer for turn in outcome.turns if turn.kind == "turn")


def _record_over_ollama(data_dir: Path, folder: Path) -> list[dict]:
    """Two real turns through ChatOllama against the local Ollama-API server; the traces become a case."""
    clock = Clock()
    with FakeOllama(["llama3.1:8b"]) as ollama:
        ollama.script = [
            call("plan_ev_charging", target_soc_pct=80),
            say("Charge after midnight on off-peak rates."),
            call("plan_ev_charging", target_soc_pct=80, ready_by_hour=6),
            say("For 6am, start a little earlier, still off-peak."),
        ]
        runtime = make_runtime(
            data_dir, ollama_url=ollama.url, config=app_config(provider="ollama"), clock=clock
        )
        runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
        runtime.service.handle_turn("T1-U1", "thread-1", "When should I charge my EV?")
        clock.now += timedelta(minutes=1)
        runtime.service.handle_turn("T1-U1", "thread-1", "what about by 6am instead?")
        runtime.close()
    (folder / "traces").mkdir(parents=True)
    traces = sorted((data_dir / "traces" / "T1-U1" / "thread-1").glob("*.json"))
    assert len(traces) == 2
    for number, path in enumerate(traces, start=1):
        shutil.copy(path, folder / "traces" / f"{number:02d}-turn.json")
    return [json.loads(path.read_text()) for path in traces]


@pytest.fixture(scope="module")
def ollama_case(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    root = tmp_path_factory.mktemp("ollama-case")
    data_dir = root / "data"
    data_dir.mkdir()
    recorded = _record_over_ollama(data_dir, root / "case")
    return root / "case", recorded


def _copy(case: Path, tmp_path: Path, expect: dict | None = None) -> Path:
    target = tmp_path / case.name
    shutil.copytree(case, target)
    if expect is not None:
        (target / "expect.yaml").write_text(yaml.safe_dump(expect), "utf-8")
    return target


def test_a_conversation_recorded_over_ollama_replays_from_its_recorded_answers(
    ollama_case: tuple[Path, list[dict]], tmp_path: Path
) -> None:
    case, recorded = ollama_case
    models = {
        step["model"] for trace in recorded for step in trace["steps"] if step["step_type"] == "llm_call"
    }
    assert models == {"llama3.1:8b"}  # a real model path was recorded (no Ollama runs during the replay)
    outcome = replay_case(_copy(case, tmp_path, {"turns": {2: {"contains": ["6am"]}}}), _config())
    assert outcome.passed, [p for turn in outcome.turns for p in turn.problems]
    assert [turn.answer for turn in outcome.turns] == [
        "Charge after midnight on off-peak rates.",
        "For 6am, start a little earlier, still off-peak.",
    ]
    assert not any(turn.changed for turn in outcome.turns)


def test_a_graph_that_asks_the_model_something_new_fails_naming_the_step(
    ollama_case: tuple[Path, list[dict]], tmp_path: Path
) -> None:
    """The current graph given no conversation history (a real configuration change) sends the
    second turn's recommend call a different prompt than the recorded one."""
    case, recorded = ollama_case
    second = recorded[1]
    recommend_step = next(
        step["step_id"]
        for step in second["steps"]
        if step["step_type"] == "llm_call" and step["metadata"]["node"] == "recommend"
    )
    outcome = replay_case(_copy(case, tmp_path, {"agents": {"recommend": {"history_tokens": 0}}}), _config())

    assert not outcome.passed
    first, then = outcome.turns
    assert first.problems == []
    new = [p for p in then.problems if "asked the recommend model something new" in p]
    assert len(new) == 1, then.problems
    assert f"at step {recommend_step}" in new[0] and second["run_id"] in new[0]


def test_a_tool_called_with_new_arguments_fails_naming_the_recorded_call(tmp_path: Path) -> None:
    case = _copy(SUITE_DIR / "working-memory-follow-up", tmp_path)
    path = case / "traces" / "02-turn.json"
    trace = json.loads(path.read_text())
    step = next(s for s in trace["steps"] if s["step_type"] == "tool_call")
    step["arguments"] = {**step["arguments"], "ready_by_hour": 5}  # as if the graph had asked for 5am
    path.write_text(json.dumps(trace))

    outcome = replay_case(case, _config())

    problems = outcome.turns[1].problems
    assert any("which the recording lacks; recorded: " + step["step_id"] in p for p in problems), problems
    assert any("no longer calls plan_ev_charging" in p and step["step_id"] in p for p in problems), problems


def test_a_verdict_or_phrase_that_no_longer_holds_fails(tmp_path: Path) -> None:
    case = _copy(
        SUITE_DIR / "scenario-ev-charging-good",
        tmp_path,
        {"turns": {1: {"verdicts": {"memory_hygiene": "FAIL"}, "contains": ["a phrase no answer has"]}}},
    )
    outcome = replay_case(case, _config())
    assert outcome.turns[0].problems == [
        "memory_hygiene is PASS, expected FAIL",
        "the answer lacks 'a phrase no answer has'",
    ]


def test_a_profile_expectation_is_checked_after_the_last_turn(tmp_path: Path) -> None:
    case = _copy(SUITE_DIR / "understanding-statements", tmp_path)
    expect = yaml.safe_load((case / "expect.yaml").read_text())
    expect["profile"]["household.occupants"] = 4
    (case / "expect.yaml").write_text(yaml.safe_dump(expect))
    assert replay_case(case, _config()).problems == ["profile household.occupants is 5, expected 4"]


def test_a_thumbs_down_case_folder_replays_as_it_is(data_dir: Path, tmp_path: Path) -> None:
    clock = Clock()
    runtime = make_runtime(data_dir, clock=clock)
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    runtime.service.handle_turn("T1-U1", "thread-1", "When should I charge my EV?")
    clock.now += timedelta(minutes=1)
    reply = runtime.service.handle_turn("T1-U1", "thread-1", "what about by 6am instead?")
    assert runtime.feedback is not None
    assert runtime.feedback.record("T1-U1", reply.trace_id, "bad", "too late") is not None
    runtime.close()
    folder = data_dir / "feedback" / "cases" / reply.trace_id
    assert (folder / "conversation.json").exists()

    outcome = replay_case(folder, _config())

    assert outcome.passed, [p for turn in outcome.turns for p in turn.problems]
    first, turn = outcome.turns  # the thread's earlier turn came with the case and was replayed first
    assert first.message == "When should I charge my EV?" and (folder / "traces").is_dir()
    assert "06:00" in (turn.answer or "") and not turn.changed


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["replay", str(SUITE_DIR / "scenario-ev-charging-good")]) == 0
    assert "1 of 1 case(s) passed" in capsys.readouterr().out
    broken = _copy(SUITE_DIR / "scenario-ev-charging-good", tmp_path)
    (broken / "trace.json").write_text("{not json")
    assert cli_main(["replay", str(broken)]) == 2
    assert "ERROR" in capsys.readouterr().out
    assert cli_main(["replay", str(tmp_path / "missing")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_the_suite_helper_finds_every_case() -> None:
    names = {case.name for case in find_cases(SUITE_DIR)}
    assert {"scenario-ev-charging-loop", "working-memory-follow-up", "understanding-not-about-me"} <= names
    assert len(replay_suite(SUITE_DIR / "scenario-ev-charging-loop", _config())) == 1


def test_an_energy_core_regression_fails_the_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tools recorded over the mock data run live (the energy core is code under test) and must
    return the recorded result: doubling the grid energy is caught, naming the tool step."""
    import advisor.tools.toolkit as toolkit

    real = toolkit.ev_energy_needed

    def doubled(*args, **kwargs):
        energy = real(*args, **kwargs)
        return energy.model_copy(update={"grid_kwh": 2 * energy.grid_kwh})

    monkeypatch.setattr(toolkit, "ev_energy_needed", doubled)
    outcome = replay_case(SUITE_DIR / "acceptance-configured-ev", _config())
    problems = outcome.turns[0].problems
    assert any(
        "the tool plan_ev_charging now returns something else than at step toolcall-" in p for p in problems
    ), problems


def test_a_changed_prompt_fails_even_where_the_offline_stand_in_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shipped cases were recorded with the offline provider: the recommend prompt it was given
    is still checked, so facts dropped from the prompt (a real model would get no numbers) fail."""
    import advisor.nodes.recommend as recommend

    real = recommend.render

    def without_facts(context):
        return "\n".join(line for line in real(context).splitlines() if not line.startswith("FACTS"))

    monkeypatch.setattr(recommend, "render", without_facts)
    outcome = replay_case(SUITE_DIR / "acceptance-configured-ev", _config())
    assert any(
        "asked the recommend model something new at step llmcall-" in p for p in outcome.turns[0].problems
    )


def test_a_search_the_graph_no_longer_makes_fails(tmp_path: Path) -> None:
    case = _copy(SUITE_DIR / "knowledge-heat-pumps", tmp_path)
    expect = yaml.safe_load((case / "expect.yaml").read_text())
    expect["knowledge"] = False  # as if the knowledge base were no longer asked
    expect["turns"] = {}
    (case / "expect.yaml").write_text(yaml.safe_dump(expect))
    problems = replay_case(case, _config()).turns[0].problems
    assert any(
        "no longer searches the knowledge base for 'How do heat pumps work?'" in p for p in problems
    ), problems


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda case: (case / "conversation.json").write_text('["hello"]'), "conversation.json"),
        (lambda case: (case / "profile.json").write_text('{"location": 5}'), "cannot set the case up"),
        (
            lambda case: (case / "expect.yaml").write_text("turns: {5: {contains: [x]}}"),
            "turns [5] do not exist",
        ),
        (
            lambda case: (case / "expect.yaml").write_text("profile: {equipment.ev_modle: null}"),
            "no such profile field",
        ),
    ],
)
def test_a_case_the_replay_cannot_set_up_is_an_error_of_that_case(tmp_path: Path, change, said: str) -> None:
    case = _copy(SUITE_DIR / "scenario-ev-charging-good", tmp_path)
    change(case)
    outcome = replay_case(case, _config())
    assert outcome.error is not None and said in outcome.error, outcome


def test_a_case_of_two_users_or_starting_with_a_memorize_run_is_an_error(tmp_path: Path) -> None:
    two = _copy(SUITE_DIR / "working-memory-follow-up", tmp_path)
    path = two / "traces" / "02-turn.json"
    trace = json.loads(path.read_text())
    trace["metadata"]["user_id"] = "T1-U2"
    path.write_text(json.dumps(trace))
    assert "traces of 2 users" in (replay_case(two, _config()).error or "")

    lone = tmp_path / "lone-memorize"
    (lone / "traces").mkdir(parents=True)
    shutil.copy(SUITE_DIR / "acceptance-work-from-home-bye" / "traces" / "03-memorize.json", lone / "traces")
    assert "first trace is a memorize run" in (replay_case(lone, _config()).error or "")


def test_traces_replay_in_the_order_they_started_not_by_file_name(tmp_path: Path) -> None:
    case = _copy(SUITE_DIR / "acceptance-work-from-home-bye", tmp_path)
    (case / "traces" / "03-memorize.json").rename(case / "traces" / "00-memorize.json")  # sorts first by name
    outcome = replay_case(case, _config())
    assert [turn.kind for turn in outcome.turns] == ["turn", "turn", "memorize"]
    assert outcome.passed, [p for turn in outcome.turns for p in turn.problems]
