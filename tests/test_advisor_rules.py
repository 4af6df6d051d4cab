"""Intake, recall and memorizer rules with their edge cases."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from advisor.memorizer import MemorizeOutputError, Memorizer, normalize_value
from advisor.message import validate_message
from advisor.nodes.intake import make_intake
from advisor.onboarding import missing_slots
from advisor.understanding.models import Understanding
from advisor.understanding.reader import LearnedReader, understand
from config.files import MemorizerConfig
from knowledge.models import RetrievedDocument
from profiles.json_store import JsonFileStore
from profiles.models import UserProfile
from profiles.repository import ChangeSource, ProfileRepository
from profiles.sessions import SessionRepository
from tests.advisor_helpers import CONFIGURED_PROFILE, app_config, make_runtime

# --- intake -----------------------------------------------------------------------------------


def test_whitespace_is_empty_and_long_text_is_cut_to_1000_words() -> None:
    assert validate_message(" \t\n").empty and validate_message(None).empty
    long = validate_message("word " * 1001)
    assert long.truncated and long.word_count == 1001 and len(long.text.split()) == 1000
    assert not validate_message("word " * 1000).truncated


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("what are prices like today?", "rates"),
        ("Is every evening peak?", "rates"),
        ("charge my EV tonight", "ev_charging"),
    ],
)
def test_topics(text: str, topic: str) -> None:
    assert understand(text).topic == topic


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("When should I charge my EV?", "live_data"),
        ("Is it worth running the dryer now?", "live_data"),
        ("How do heat pumps work?", "knowledge"),
        ("We installed a heat pump", "profile_statement"),
        ("hello", "smalltalk"),
        ("bye", "goodbye"),
        ("asdfgh", "unclear"),
        ("can you recommend a good pizza place", "off_topic"),
    ],
)
def test_intents(text: str, intent: str) -> None:
    assert understand(text).intent == intent


def run_intake(text: str, **state: Any) -> dict[str, Any]:
    return make_intake(MemorizerConfig(turn_threshold=10), LearnedReader())({"message": text, **state}, {})


class TornReader:
    """A reader torn between a charging plan and an explanation (the model's probabilities said so)."""

    def understand(self, text, context, config=None):
        if context.pending_slot is None and text == "EV charging?":
            return Understanding(
                intent="live_data", alternative="knowledge", topic="ev_charging", asks=True, question=text
            )
        return LearnedReader().understand(text, context, config)


def test_a_torn_reading_asks_one_question_naming_both_readings_in_the_users_words() -> None:
    intake = make_intake(MemorizerConfig(turn_threshold=10), TornReader())
    asked = intake({"message": "EV charging?"}, {})
    assert asked["route"] == "done" and asked["response"].count("?") == 2  # the quote's and ours
    assert asked["response"].startswith('For "EV charging?", do you want a charging plan for your car')
    assert "or a general explanation" in asked["response"]
    pending = {key: asked[key] for key in ("pending_slot", "pending_question", "pending_request")}
    for answer, intent in (("the first one", "live_data"), ("the second", "knowledge")):
        chosen = intake({"message": answer, **pending}, {})
        assert chosen["route"] == "understood" and chosen["intent"] == intent
        assert chosen["message"] == "EV charging?"  # the question asked before is the one answered


def test_a_reading_the_model_is_sure_of_is_never_asked_about() -> None:
    update = run_intake("How do heat pumps work?")
    assert update["route"] == "understood" and update["understanding"].alternative is None


@pytest.mark.parametrize(
    ("text", "state", "now", "after"),
    [
        ("bye", {}, True, False),
        # "remember that" and plain statements are saved by recall in the turn, not by the memorizer
        ("Remember that I work from home now", {}, False, False),
        ("I work from home now", {}, False, False),
        ("When should I charge my EV?", {"turn_count": 10, "memorized_through_turn": 0}, False, True),
        ("When should I charge my EV?", {"turn_count": 12, "memorized_through_turn": 5}, False, False),
    ],
)
def test_memorizer_runs_on_goodbye_and_after_the_turn_threshold(
    text: str, state: dict, now: bool, after: bool
) -> None:
    update = run_intake(text, **state)
    assert update["should_memorize"] is now and update["memorize_due"] is after


def test_pending_slot_reads_the_next_message_as_an_answer_unless_the_user_moves_on() -> None:
    answer = run_intake("94102", pending_slot="location")["understanding"]
    assert answer.slot_answer.status == "answered"
    assert [(f.field, f.value) for f in answer.facts] == [("location.zip_code", "94102")]
    moved_on = run_intake("How do heat pumps work?", pending_slot="location")
    assert (
        moved_on["intent"] == "knowledge" and moved_on["understanding"].slot_answer.status == "not_answered"
    )


# --- recall / onboarding ----------------------------------------------------------------------


def test_slots_needed_per_question() -> None:
    empty = None
    assert missing_slots(empty, "live_data", "ev_charging") == ["location", "utility", "rate_schedule", "ev"]
    assert missing_slots(empty, "live_data", "weather") == ["location"]
    assert missing_slots(empty, "knowledge", "home") == []
    configured = UserProfile.model_validate(CONFIGURED_PROFILE)
    assert missing_slots(configured, "live_data", "ev_charging") == []
    assert missing_slots(configured, "live_data", "solar") == ["solar_size"]


def test_yes_confirms_the_suggested_utility(data_dir: Path) -> None:
    service = make_runtime(data_dir).service
    service.handle_turn("T1-N", "t", "When should I charge my EV?")
    asked = service.handle_turn("T1-N", "t", "94102")
    assert "Around 94102 that's usually PG&E." in asked.text
    confirmed = service.handle_turn("T1-N", "t", "yes")
    assert confirmed.text.startswith("Saved: your utility is PG&E.")
    assert service.profiles.get("T1-N").location.utility_provider == "PG&E"


def test_an_unusable_answer_re_asks_and_erases_nothing(data_dir: Path) -> None:
    runtime = make_runtime(data_dir)
    service = runtime.service
    service.handle_turn("T1-N", "t", "When should I charge my EV?")
    service.handle_turn("T1-N", "t", "94102")
    before = service.profiles.get("T1-N")
    reply = service.handle_turn("T1-N", "t", "the one with the blue logo 123")
    assert reply.text.startswith("Sorry, I didn't catch that. Which electric utility")
    assert reply.asked_for == "utility"
    assert service.profiles.get("T1-N") == before


def test_not_knowing_skips_the_question_and_saves_nothing(data_dir: Path) -> None:
    runtime = make_runtime(data_dir)
    service = runtime.service
    service.handle_turn("T1-N", "t", "When should I charge my EV?")
    service.handle_turn("T1-N", "t", "94102")
    before = service.profiles.get("T1-N")
    reply = service.handle_turn("T1-N", "t", "no idea, sorry")
    assert reply.text.startswith("No problem, I'll skip that.")
    assert reply.asked_for == "ev"  # the rate plan goes with the utility; the plan still needs the car
    assert service.profiles.get("T1-N") == before
    assert service.sessions.get("T1-N", "t").skipped_slots == ["utility", "rate_schedule"]


class RecordingRetriever:
    def __init__(self) -> None:
        self.queries: list[str] = []

    def retrieve(
        self, query: str, k: int = 4, config: Any = None, where: Any = None, skip: Any = frozenset()
    ) -> list[RetrievedDocument]:
        self.queries.append(query)
        return [
            RetrievedDocument(
                text="Heat pumps move heat instead of making it.", source="heat-pumps.md", score=0.9
            )
        ]


def test_retrieval_only_for_knowledge_questions(data_dir: Path) -> None:
    import httpx

    from bot.wiring import build_runtime
    from config.settings import Settings

    retriever = RecordingRetriever()
    runtime = build_runtime(
        Settings(_env_file=None, data_dir=data_dir),
        config=app_config(),
        http=httpx.Client(),
        retriever=retriever,
        probe_ollama=False,
    )
    runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
    runtime.service.handle_turn("T1-U1", "t", "When should I charge my EV?")
    runtime.service.handle_turn("T1-U1", "t", "hello")
    assert retriever.queries == []
    reply = runtime.service.handle_turn("T1-U1", "t", "How do heat pumps work?")
    assert retriever.queries == ["How do heat pumps work?"]
    assert reply.citations == ["heat-pumps.md"] and "[1]" in reply.text


def test_stale_sections_are_flagged_for_the_topic(data_dir: Path, demo_profile_data: dict[str, Any]) -> None:
    runtime = make_runtime(data_dir, clock=lambda: datetime(2026, 1, 21, 18, tzinfo=timezone.utc))
    runtime.advisor.profiles.import_profile(demo_profile_data)
    reply = runtime.service.handle_turn("home_123", "t", "When should I charge my EV?")
    assert (
        "schedule: Office 9-5, 2 occupants, usage: evening heavy (household, last confirmed 220 days ago)"
        in reply.text
    )


# --- memorizer --------------------------------------------------------------------------------


class ScriptedFacts(BaseChatModel):
    """Answers extraction with fixed JSON and summaries with fixed text."""

    answer: str
    summary: str = "Earlier the user asked about EV charging."

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        summarizing = "turns_to_summarize" in messages[-1].additional_kwargs
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(self.summary if summarizing else self.answer))]
        )


def fact(field: str, value: str, confidence: float = 0.9, turn: int = 1) -> dict[str, Any]:
    return {
        "field": field,
        "new_value": value,
        "confidence": confidence,
        "source_turn": turn,
        "source_text": f"said {value}",
    }


@pytest.fixture
def repos(data_dir: Path) -> tuple[ProfileRepository, SessionRepository]:
    store = JsonFileStore(data_dir)
    profiles, sessions = ProfileRepository(store), SessionRepository(store, max_messages=200, hard_limit=400)
    profiles.import_profile(CONFIGURED_PROFILE)
    sessions.get_or_create("T1-U1", "s1")
    for turn in range(1, 4):
        sessions.append_message("T1-U1", "s1", "user", f"message {turn}")
    return profiles, sessions


def memorize(repos, answer: str, **config: Any):
    profiles, sessions = repos
    memorizer = Memorizer(
        model=ScriptedFacts(answer=answer),
        profiles=profiles,
        sessions=sessions,
        config=MemorizerConfig(**config),
    )
    return memorizer.memorize_session("s1", user_id="T1-U1")


def test_only_confident_known_valid_facts_are_applied(repos) -> None:
    facts = [
        fact("household.work_schedule", "WFH", 0.95, 1),
        fact("household.occupants", "5", 0.5, 2),  # below the threshold
        fact("household.pets", "2 cats", 0.9, 2),  # unknown path
        fact("equipment.heating_type", "coal", 0.9, 3),  # invalid value
        fact("equipment.heating_type", "Heat Pump", 0.9, 3),  # normalized to heat_pump
    ]
    result = memorize(repos, json.dumps({"facts": facts}))
    profile = repos[0].get("T1-U1")
    assert profile.household.work_schedule == "WFH" and profile.household.occupants == 2
    assert profile.equipment.heating_type == "heat_pump"
    reasons = [entry["reason"] for entry in result.rejected]
    assert reasons[0] == "confidence 0.50 below threshold"
    assert reasons[1].startswith("unknown profile field 'household.pets'")
    assert reasons[2].startswith("equipment.heating_type cannot be 'coal'")
    assert [change.field for change in result.applied] == [
        "household.work_schedule",
        "equipment.heating_type",
    ]
    assert repos[1].get("T1-U1", "s1").memorized_through_turn == 3


def test_latest_statement_wins_and_restating_confirms(repos) -> None:
    facts = [
        fact("equipment.heating_type", "gas", 0.9, 1),
        fact("equipment.heating_type", "heat_pump", 0.9, 3),
    ]
    result = memorize(repos, json.dumps({"facts": facts}))
    assert [(c.old_value, c.new_value) for c in result.applied] == [(None, "gas"), ("gas", "heat_pump")]
    again = memorize(repos, json.dumps({"facts": [fact("household.work_schedule", "Office 9-5", 0.9, 3)]}))
    assert again.through_turn == 3 and again.applied == []  # nothing new since turn 3: no extraction at all
    repos[1].append_message("T1-U1", "s1", "user", "still office 9-5")
    confirmed = memorize(
        repos, json.dumps({"facts": [fact("household.work_schedule", "Office 9-5", 0.9, 4)]})
    )
    assert confirmed.applied[0].operation == "confirmed"


def test_unreadable_model_output_fails_the_run_and_nothing_is_marked(repos) -> None:
    before = repos[0].get("T1-U1")
    through = repos[1].get("T1-U1", "s1").memorized_through_turn
    with pytest.raises(MemorizeOutputError, match="did not validate"):
        memorize(repos, "Sure! The user works from home.")
    assert repos[0].get("T1-U1") == before
    assert repos[1].get("T1-U1", "s1").memorized_through_turn == through  # retried later, not dropped


def test_turns_older_than_max_raw_turns_become_a_note_once(repos) -> None:
    profiles, sessions = repos
    for turn in range(4, 8):
        sessions.append_message("T1-U1", "s1", "user", f"message {turn}")
    result = memorize(repos, json.dumps({"facts": []}), max_raw_turns=5)
    notes = profiles.get("T1-U1").notes
    assert result.notes_added == 1 and notes[0].source_turns == [1, 2] and notes[0].source_session == "s1"
    sessions.append_message("T1-U1", "s1", "user", "message 8")
    memorize(repos, json.dumps({"facts": []}), max_raw_turns=5)
    assert [note.source_turns for note in profiles.get("T1-U1").notes] == [[1, 2], [3]]


def test_normalize_value_only_touches_choice_fields() -> None:
    assert normalize_value("equipment.cooling_type", "Mini-Split") == "mini_split"
    assert normalize_value("household.work_schedule", "Work From Home") == "Work From Home"


def test_apply_change_source_is_kept_in_the_record(repos) -> None:
    record = repos[0].apply_change(
        "T1-U1",
        "household.occupants",
        3,
        source=ChangeSource(kind="memorizer", session_id="s1", turn=2, text="we're 3 now"),
    )
    assert record.source.text == "we're 3 now" and record.old_value == 2


def test_profile_facts_in_the_prompt_fit_the_topic() -> None:
    from advisor.context import profile_facts

    profile = UserProfile.model_validate(
        {**CONFIGURED_PROFILE, "equipment": {**CONFIGURED_PROFILE["equipment"], "heating_type": "gas"}}
    )
    home = profile_facts(profile, "home")
    assert "heating: gas" in home and not any(fact.startswith("EV") for fact in home)
    assert "EV Tesla Model 3" in profile_facts(profile, "ev_charging")
