"""Build the shipped replay suite from real runs: `python -m bot.replay.record [OUT]`
(default `traces/replay-suite/`).

Each conversation below runs through the real runtime (offline provider, recorded data fixtures,
the bundled knowledge base where a case needs it, searched as the product searches offline — hybrid
with the bundled encoder — a clock that advances a minute per turn), and
its traces are copied into a case folder with the expectations written here — the phrases a person
checked in the answers and the profile values that must (not) be saved. Nothing in a case is
written by hand except `expect.yaml`; the recorder replays each case right away and refuses to
write one whose expectations do not hold.

The conversations: spec 001's acceptance scenarios, evaluation scenarios A–D (stale memory,
retrieval waste, tool loop, token budget, from `bot.samples`), and the examples of the
working-memory and understanding issues."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml

from bot import samples
from bot.replay.runner import render, replay_case
from bot.wiring import build_runtime
from config.files import AgentsConfig, AppConfig, EvalConfig, ToolsConfig, load_app_config
from config.settings import CONFIG_DIR, Settings
from traces.storage import dump_trace, load_trace

SUITE_DIR = Path(__file__).resolve().parent.parent.parent / "traces" / "replay-suite"
START = datetime(2026, 1, 21, 18, 0, tzinfo=timezone.utc)  # spec 000's demo date, 10:00 in California
NEW_USER = "T1-NEW"
CONFIGURED_USER = "T1-U1"


@dataclass
class Turn:
    message: str
    contains: list[str] = field(default_factory=list)
    not_contains: list[str] = field(default_factory=list)
    verdicts: dict[str, str] = field(default_factory=dict)
    memorize_after: bool = False  # run the memorizer after this turn, as the idle timer or "bye" would


@dataclass
class Conversation:
    name: str
    about: str
    turns: list[Turn]
    profile: dict[str, Any] | None = None
    knowledge: bool = False
    expect_profile: dict[str, Any] = field(default_factory=dict)


def _configured(user: str = CONFIGURED_USER) -> dict[str, Any]:
    return {**json.loads(json.dumps(samples.CONFIGURED)), "user_id": user}


CONVERSATIONS = [
    Conversation(
        "acceptance-configured-ev",
        "Spec 001 US1: a configured user asks when to charge and gets a window with cost and reason.",
        [Turn("When should I charge my EV?", contains=["kWh", "off-peak", "$"], not_contains=["ZIP"])],
        profile=_configured(),
    ),
    Conversation(
        "acceptance-first-time-user",
        "Spec 001 US1/US2: a new user is asked for location, utility, plan and car, one at a time, then advised.",
        [
            Turn("When should I charge my EV?", contains=["ZIP"]),
            Turn("94110"),
            Turn("PG&E"),
            Turn("EV2-A"),
            Turn("A Tesla Model 3", contains=["kWh"]),
        ],
        expect_profile={
            "location.zip_code": "94110",
            "location.utility_provider": "PG&E",
            "location.rate_schedule": "EV2-A",
            "equipment.ev_model": "Tesla Model 3",
        },
    ),
    Conversation(
        "acceptance-work-from-home-bye",
        "Spec 001 US3: 'I started working from home' is saved in the turn and said; 'bye' memorizes.",
        [
            Turn("I started working from home last month", contains=["Updated: you work from home"]),
            Turn("bye", memorize_after=True),
        ],
        profile={**_configured(), "household": {**_configured()["household"], "work_schedule": "Office 9-5"}},
        expect_profile={"household.work_schedule": "WFH"},
    ),
    Conversation(
        "working-memory-statement-then-question",
        "Issue 9: facts stated in one message count at once; the next question gets a plan, not onboarding.",
        [
            Turn(
                "My ZIP is 94102 and I'm on PG&E's EV2-A plan. I drive a Tesla Model 3 with a 57.5 kWh battery.",
                contains=["Saved"],
            ),
            Turn("When should I charge my EV tonight?", contains=["kWh"], not_contains=["ZIP code"]),
        ],
        expect_profile={
            "location.zip_code": "94102",
            "location.rate_schedule": "EV2-A",
            "equipment.ev_model": "Tesla Model 3",
        },
    ),
    Conversation(
        "working-memory-all-in-one",
        "Issue 9: four facts and a question in one message are answered with a plan.",
        [
            Turn(
                "I'm in 94110 with PG&E on the EV2-A plan and drive a Tesla Model Y with an 11 kW wall charger. "
                "When should I charge tonight to be ready by 8am?",
                contains=["Saved: your ZIP code is 94110", "08:00", "kWh"],
                not_contains=["What's your ZIP"],
            )
        ],
        expect_profile={"location.zip_code": "94110", "equipment.ev_model": "Tesla Model Y"},
    ),
    Conversation(
        "working-memory-remember-that",
        "Issue 9: 'remember that' saves at once and says so; impossible values are refused with a reason.",
        [
            Turn("remember that my charger is 32 amps", contains=["7.68 kW"]),
            Turn(
                "remember that we are 1000 people",
                contains=["can't save 1000"],
                not_contains=["Saved:", "Updated:"],
            ),
            Turn(
                "remember that I have a -5 kWh battery",
                contains=["can't save -5 kWh"],
                not_contains=["Saved:"],
            ),
        ],
        profile=_configured(),
        expect_profile={"household.occupants": 2, "equipment.battery_capacity_kwh": None},
    ),
    Conversation(
        "working-memory-follow-up",
        "Issue 9: 'what about by 6am instead?' re-plans with the deadline changed.",
        [
            Turn("When should I charge my EV?", contains=["07:00"]),
            Turn("what about by 6am instead?", contains=["06:00"]),
        ],
        profile=_configured(),
    ),
    Conversation(
        "understanding-not-about-me",
        "Issue 10: a neighbour's heat pump, a hypothetical car and a friend's plan are not saved.",
        [
            Turn(
                "My neighbor has a heat pump", contains=["haven't saved"], not_contains=["Saved:", "Updated:"]
            ),
            Turn("What if I bought a Kia EV6?", not_contains=["Saved:", "Updated:"]),
            Turn("My friend is on E-TOU-C", contains=["haven't saved"], not_contains=["Saved:", "Updated:"]),
        ],
        profile=_configured(),
        expect_profile={
            "equipment.heating_type": None,
            "equipment.ev_model": "Tesla Model 3",
            "location.rate_schedule": "EV2-A",
        },
    ),
    Conversation(
        "understanding-onboarding-non-answers",
        "Issue 10: 'I don't know' and a question are never stored as the user's town.",
        [
            Turn("When should I charge my EV?", contains=["ZIP"]),
            Turn("I don't know"),
            Turn("Are there rebates for heat pumps?"),
        ],
        expect_profile={"location.city": None, "location.zip_code": None},
    ),
    Conversation(
        "understanding-statements",
        "Issue 10: plain self-statements are saved; an EV's battery is not a home battery.",
        [
            Turn(
                "We just replaced our gas furnace with a heat pump",
                contains=["Saved: you heat with a heat pump"],
            ),
            Turn("There are five of us", contains=["5 people"]),
            Turn("My car is a Hyundai Ioniq 5 with a 77 kWh battery", contains=["Hyundai Ioniq 5", "77 kWh"]),
        ],
        profile=_configured(),
        expect_profile={
            "equipment.heating_type": "heat_pump",
            "household.occupants": 5,
            "equipment.ev_model": "Hyundai Ioniq 5",
            "equipment.battery_capacity_kwh": None,
        },
    ),
    Conversation(
        "knowledge-heat-pumps",
        "A knowledge question answered from the section that explains it (not the cold-climate paragraph), cited.",
        [
            Turn(
                "How do heat pumps work?",
                contains=["does not burn fuel"],
                not_contains=["cold-climate model"],
            )
        ],
        profile=_configured(),
        knowledge=True,
    ),
]


class _Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def _config() -> AppConfig:
    shipped = load_app_config(CONFIG_DIR)
    offline = {"provider": "offline"}
    agents = AgentsConfig.model_validate(
        {
            **shipped.agents.model_dump(),
            **{
                role: {**getattr(shipped.agents, role).model_dump(), **offline}
                for role in AgentsConfig().chat_roles()
            },
            # as the product searches offline (hybrid, the bundled encoder)
            "embeddings": {"provider": "encoder"},
        }
    )
    return AppConfig(agents=agents, tools=ToolsConfig(mode="mock"), eval=EvalConfig())


def record_conversation(conversation: Conversation, out: Path) -> Path:
    """Run the conversation for real and write its case folder; returns the folder."""
    clock = _Clock(START)
    with tempfile.TemporaryDirectory(prefix="record-") as scratch:
        settings = Settings(_env_file=None, data_dir=Path(scratch), ollama_base_url="http://127.0.0.1:9")
        runtime = build_runtime(
            settings, config=_config(), probe_ollama=False, knowledge=conversation.knowledge, clock=clock
        )
        try:
            user = (conversation.profile or {}).get("user_id", NEW_USER)
            if conversation.profile is not None:
                runtime.advisor.profiles.import_profile(conversation.profile)
            written: list[Path] = []
            for turn in conversation.turns:
                runtime.service.handle_turn(user, "thread-1", turn.message)
                written.append(_newest(runtime, user, written))
                if turn.memorize_after:
                    clock.now += timedelta(seconds=1)
                    runtime.service.memorize(user, "thread-1")
                    written.append(_newest(runtime, user, written))
                clock.now += timedelta(minutes=1)
        finally:
            runtime.close()
        folder = out / conversation.name
        if folder.exists():
            shutil.rmtree(folder)
        (folder / "traces").mkdir(parents=True)
        for number, path in enumerate(written, start=1):
            trace = load_trace(path)
            kind = (trace.metadata or {}).get("kind", "turn")
            (folder / "traces" / f"{number:02d}-{kind}.json").write_text(dump_trace(trace), encoding="utf-8")
    _write_expectations(folder, conversation)
    return folder


def _newest(runtime, user: str, seen: list[Path]) -> Path:
    files = [path for path in runtime.service.traces.list_for_user(user) if path not in seen]
    if not files:
        raise RuntimeError("the turn wrote no trace")
    return files[0]


def _write_expectations(folder: Path, conversation: Conversation) -> None:
    turns: dict[int, dict[str, Any]] = {}
    for index, turn in enumerate(conversation.turns, start=1):
        entry = {
            key: value
            for key, value in (
                ("contains", turn.contains),
                ("not_contains", turn.not_contains),
                ("verdicts", turn.verdicts),
            )
            if value
        }
        if entry:
            turns[index] = entry
    expect: dict[str, Any] = {"about": conversation.about, "turns": turns}
    if conversation.expect_profile:
        expect["profile"] = conversation.expect_profile
    if conversation.knowledge:
        expect["knowledge"] = True
    (folder / "expect.yaml").write_text(yaml.safe_dump(expect, sort_keys=False, allow_unicode=True), "utf-8")


def record_scenarios(out: Path) -> list[Path]:
    """Evaluation scenarios A–D from `bot.samples`: one trace each, with the verdicts that must hold."""
    expected = {
        "ev-charging-good": {},
        "ev-charging-stale-memory": {"memory_hygiene": "FAIL"},
        "ev-charging-loop": {"loop": "FAIL"},
        "ev-charging-retrieval-waste": {"retrieval_relevance": "WARN"},
        "ev-charging-budget": {"budget": "FAIL"},
    }
    about = {
        "ev-charging-good": "A configured user's EV plan: every grader passes.",
        "ev-charging-stale-memory": "Scenario A: a 220-day-old household section is used; MemoryHygiene fails.",
        "ev-charging-loop": "Scenario C: a misbehaving analyzer asks for one forecast four times; Loop fails.",
        "ev-charging-retrieval-waste": "Scenario B: five passages retrieved, one used; RetrievalRelevance warns.",
        "ev-charging-budget": "Scenario D: eighteen months of history in the prompt; Budget fails.",
    }
    folders = []
    with tempfile.TemporaryDirectory(prefix="scenarios-") as scratch:
        written = samples.generate(Path(scratch))
        for name, path in written.items():
            folder = out / f"scenario-{name}"
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            shutil.copy(path, folder / "trace.json")
            expect: dict[str, Any] = {"about": about[name], "turns": {1: {"verdicts": expected[name]}}}
            if name == "ev-charging-budget":
                expect["agents"] = {"recommend": {"history_tokens": 1_000_000}}
                history = samples.eighteen_months_of_history()
                conversation = [
                    {"role": role, "content": text, "turn": n // 2 + 1}
                    for n, (_, role, text) in enumerate(history)
                ]
                (folder / "conversation.json").write_text(json.dumps(conversation, indent=1), "utf-8")
            if name == "ev-charging-retrieval-waste":
                expect["agents"] = {"retrieval": {"k": 5}}
            (folder / "expect.yaml").write_text(yaml.safe_dump(expect, sort_keys=False), "utf-8")
            folders.append(folder)
    return folders


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.replay.record", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "out", nargs="?", type=Path, default=SUITE_DIR, help="suite folder (default: %(default)s)"
    )
    parser.add_argument("--only", action="append", help="record only this case (repeatable)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    wanted: Callable[[str], bool] = lambda name: not args.only or name in args.only  # noqa: E731
    folders = [record_conversation(c, args.out) for c in CONVERSATIONS if wanted(c.name)]
    if not args.only or any(name.startswith("scenario-") for name in args.only):
        folders += [f for f in record_scenarios(args.out) if wanted(f.name)]
    config = load_app_config(CONFIG_DIR)
    outcomes = [replay_case(folder, config) for folder in folders]
    print(render(outcomes))
    return 0 if all(outcome.passed for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
