"""Whole conversations through the real service (offline, mock data APIs), judged turn by turn.

Each conversation (JSONL, one per line) has a starting profile and user turns, each with what a
good advisor does (written by the corpus's authors, who never saw the code):

    {"id": "...", "profile": {"location.zip_code": "94110"},
     "turns": [{"user": "...", "expect": {"kind": ["charging_plan", "ask"], "asks_for": ["location"],
                                          "saves": {"equipment.ev_model": "Tesla Model Y"},
                                          "must_not_save": ["equipment.has_battery_storage"]}}]}

A turn's reply kind is read from what the turn did, not from its words: the tool the analyzer
called (a charging plan, prices, ...), the onboarding slot it asked for, the command it ran, or
an explanation from the knowledge base. A turn is handled when its kind is one the authors
accepted (and, for a question, about a slot they accepted), every fact it had to save is in the
profile afterwards, and no field it must not save changed (a field a forget or undo turn removes
is not one saved: authors list what is forgotten there too). A conversation is handled when every
turn is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from advisor.energy.utilities import utility_named
from advisor.energy.vehicles import vehicle_spec
from profiles.models import ChangeSource, UserProfile
from traces.storage import load_trace

# A weekday evening in California, inside most time-of-use peaks (fixed: runs are repeatable)
NOW = datetime(2026, 1, 21, 18, 0, tzinfo=ZoneInfo("America/Los_Angeles"))
TOOL_KINDS = {
    "plan_ev_charging": "charging_plan",
    "compare_charging_costs": "charging_plan",
    "estimate_monthly_charging_cost": "charging_plan",
    "get_tariff_prices": "prices",
    "appliance_advice": "appliance_timing",
    "get_solar_forecast": "solar_estimate",
    "get_typical_solar_production": "solar_estimate",
    "get_weather_forecast": "weather",
    "compare_rate_plans": "plan_comparison",
}
SLOTS = {"location", "utility", "rate_schedule", "ev", "solar_size"}


@dataclass
class TurnResult:
    conversation: str
    index: int
    user: str
    kind: str
    asked_for: str | None
    reply: str
    problems: list[str] = field(default_factory=list)

    @property
    def handled(self) -> bool:
        return not self.problems


@dataclass
class ConversationScores:
    conversations: int = 0
    handled: int = 0
    turns: int = 0
    turns_handled: int = 0
    failures: list[TurnResult] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.handled / self.conversations if self.conversations else 0.0

    @property
    def turn_rate(self) -> float:
        return self.turns_handled / self.turns if self.turns else 0.0


def load_conversations(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def reply_kind(service: Any, user_id: str, reply: Any) -> str:
    """What the turn did, from its trace: the tool it called, the node whose words are the reply."""
    path = service.traces.find(user_id, reply.trace_id) if reply.trace_id else None
    steps = load_trace(path).steps if path else []
    tools = [step.tool_name for step in steps if str(step.step_type).endswith("TOOL_CALL")]
    final = next((s for s in steps if str(s.step_type).endswith("FINAL_OUTPUT")), None)
    node = ((final.metadata or {}).get("node") if final is not None else None) or ""
    for tool in tools:
        if tool in TOOL_KINDS:
            return TOOL_KINDS[tool]
    return _kind_without_tools(reply, node)


def _kind_without_tools(reply: Any, node: str) -> str:
    if reply.asked_for == "clarify":
        return "clarify"
    if node == "recommend" and reply.intent == "knowledge":
        return "explanation"  # an aside answered while our question stands ("before that, is L2 worth it")
    if reply.asked_for in SLOTS:
        return "ask"
    if node == "recommend":
        return "explanation"
    if node == "commands":
        return {"forget": "forget", "profile_query": "profile_summary"}.get(reply.intent or "", "undo")
    if node == "chat":
        return {"goodbye": "goodbye", "off_topic": "offtopic", "unclear": "smalltalk"}.get(
            reply.intent or "", "smalltalk"
        )
    return "ack"


def same_fact(name: str, expected: Any, got: Any) -> bool:
    """A saved value is the labelled one: numbers within 0.02, names as the tables know them."""
    if got is None:
        return False
    if isinstance(expected, bool) or isinstance(got, bool):
        return str(expected).lower() == str(got).lower()
    if isinstance(expected, int | float) and isinstance(got, int | float):
        # within 0.02, or 3 % ("a regular outlet" is 1.4 kW to a person and 1.44 kW to the tables)
        return abs(float(expected) - float(got)) <= max(0.02, 0.03 * abs(float(expected)))
    if name == "location.utility_provider":
        known = utility_named(str(expected))
        if known is None and utility_named(str(got)) is None:
            return _same_utility_name(str(expected), str(got))
        return (known.name if known else str(expected)).lower() == str(got).lower() or (
            utility_named(str(got)) is known and known is not None
        )
    if name == "equipment.ev_model":
        expected_spec, got_spec = vehicle_spec(str(expected)), vehicle_spec(str(got))
        if expected_spec is not None and got_spec is not None:
            return expected_spec.name.split(" ")[:3] == got_spec.name.split(" ")[:3]
    if name in ("household.work_schedule", "location.city"):
        # "Saint Paul" and "St. Paul", "Winston-Salem" and "Winston Salem" are one town's names
        wanted, saved = (
            re.sub(r"\bsaint\b|\bst\b\.?|-", lambda m: "st" if m.group(0) != "-" else " ", str(v).lower())
            for v in (expected, got)
        )
        return wanted.split(",")[0] in saved or saved in wanted
    return str(expected).strip().lower() == str(got).strip().lower()


# the words a co-op's or a city utility's name may be said with or without
_NAME_TAIL = re.compile(
    r"\b(?:inc|association|assn|system|department|dept|corporation|corp|company|co|the)\b\.?"
)


def _same_utility_name(expected: str, got: str) -> bool:
    """Two names of one utility outside the tables: "Stearns Electric" is "Stearns Electric
    Association", "Delaware Electric Co-op" is "Delaware Electric Cooperative"."""
    words = [
        _NAME_TAIL.sub(" ", re.sub(r"\bco-?op\b", "cooperative", name.lower())).split()
        for name in (expected, got)
    ]
    shorter, longer = sorted(words, key=len)
    return bool(shorter) and longer[: len(shorter)] == shorter


def profile_value(profile: UserProfile | None, name: str) -> Any:
    section, attribute = name.split(".", 1)
    data = getattr(profile, section) if profile else None
    return getattr(data, attribute) if data is not None else None


def run_conversation(conversation: dict[str, Any], service: Any, number: int) -> list[TurnResult]:
    """One conversation as a new user of its own (a profile and a thread nobody else touches)."""
    user_id, session_id = f"U-CONV-{number}", f"t-{number}"
    starting = [(name, value) for name, value in (conversation.get("profile") or {}).items()]
    if starting:
        service.profiles.apply_changes(user_id, starting, source=ChangeSource(kind="manual"))
    results = []
    for index, turn in enumerate(conversation["turns"]):
        before = service.profiles.get(user_id)
        reply = service.handle_turn(user_id, session_id, turn["user"])
        after = service.profiles.get(user_id)
        kind = reply_kind(service, user_id, reply)
        result = TurnResult(conversation["id"], index, turn["user"], kind, reply.asked_for, reply.text)
        result.problems = judge(turn.get("expect") or {}, kind, reply, before, after)
        results.append(result)
    return results


def judge(expect: dict[str, Any], kind: str, reply: Any, before: Any, after: Any) -> list[str]:
    problems = []
    kinds = _as_list(expect.get("kind"))
    if kinds and kind not in kinds:
        problems.append(f"replied {kind}, expected {'/'.join(kinds)}")
    asks_for = _as_list(expect.get("asks_for"))
    if kind == "ask" and asks_for and reply.asked_for not in asks_for:
        problems.append(f"asked for {reply.asked_for}, expected {'/'.join(asks_for)}")
    for name, value in (expect.get("saves") or {}).items():
        if not same_fact(name, value, profile_value(after, name)):
            problems.append(f"did not save {name}={value!r} (has {profile_value(after, name)!r})")
    # a field removed by a turn the authors expected to forget or undo is not one "saved"
    removing = bool({"forget", "undo"} & set(kinds))
    for name in expect.get("must_not_save") or []:
        if profile_value(before, name) != profile_value(after, name) and not (
            removing and profile_value(after, name) is None
        ):
            problems.append(
                f"changed {name}: {profile_value(before, name)!r} -> {profile_value(after, name)!r}"
            )
    return problems


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def score_conversations(conversations: Iterable[dict[str, Any]], service: Any) -> ConversationScores:
    scores = ConversationScores()
    for number, conversation in enumerate(conversations, start=1):
        results = run_conversation(conversation, service, number)
        scores.conversations += 1
        scores.turns += len(results)
        scores.turns_handled += sum(result.handled for result in results)
        if all(result.handled for result in results):
            scores.handled += 1
        scores.failures.extend(result for result in results if not result.handled)
    return scores


def offline_runtime(data_dir: Path) -> Any:
    """The product as a new user meets it: offline models, mock data APIs, the built-in knowledge base."""
    import httpx

    from bot.wiring import build_runtime
    from config.files import AgentsConfig, AppConfig, EvalConfig, ToolsConfig
    from config.settings import Settings

    role = {"provider": "offline"}
    config = AppConfig(
        agents=AgentsConfig.model_validate(
            {
                "understanding": role,
                "analyzer": {**role, "recursion_limit": 10},
                "recommend": role,
                "memorizer": role,
                "embeddings": {"provider": "encoder"},  # what offline mode searches with
            }
        ),
        tools=ToolsConfig(mode="mock"),
        eval=EvalConfig(),
    )
    settings = Settings(_env_file=None, data_dir=data_dir, ollama_base_url="http://127.0.0.1:9")
    return build_runtime(
        settings, config=config, http=httpx.Client(), probe_ollama=False, knowledge=True, clock=lambda: NOW
    )
