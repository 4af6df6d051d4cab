""" "Dont save anything" holds for the rest of the conversation: what they say after it (a ZIP typed
next, onboarding answers) answers their question and is said as unsaved, the memorizer never reads
those turns, and "ok you can save my zip" saves again. Also: a heating comparison with the prices
they gave is worked out without asking where they live."""

from __future__ import annotations

import json
from pathlib import Path

from advisor.memorizer import Memorizer
from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand
from config.files import MemorizerConfig
from profiles.session import Session
from tests.advisor_helpers import make_runtime
from tests.test_advisor_rules import ScriptedFacts, fact
from tests.test_homeowner_findings import NOW


def test_a_later_message_in_a_declined_conversation_saves_nothing() -> None:
    declined = ReadingContext(saving_declined=True)
    reading = understand("94110", declined)
    assert reading.facts == [] and reading.saving_declined
    assert [(f.field, f.value) for f in reading.held] == [("location.zip_code", "94110")]
    assert [m.reason for m in reading.mentions] == ["declined"]
    lifted = understand("ok you can save my zip, 94110", declined)
    assert [f.field for f in lifted.facts] == ["location.zip_code"] and not lifted.saving_declined
    assert not understand("94110", ReadingContext()).saving_declined  # (nobody declined)


def test_a_zip_typed_after_dont_save_anything_is_not_saved(data_dir: Path) -> None:
    runtime = make_runtime(data_dir, clock=lambda: NOW)
    service = runtime.service
    service.handle_turn("U-D1", "t", "dont save anything, just curious. whats peak time for pge")
    reply = service.handle_turn("U-D1", "t", "94110")
    assert "you asked me not to save anything in this conversation" in reply.text
    assert "Saved" not in reply.text
    profile = service.profiles.get("U-D1")
    assert profile is None or profile.location is None or profile.location.zip_code is None
    saved = service.handle_turn("U-D1", "t", "ok you can save my zip, 94110")
    assert "Saved: your ZIP code is 94110" in saved.text
    assert service.profiles.get("U-D1").location.zip_code == "94110"
    runtime.close()


def test_onboarding_answers_after_dont_save_answer_the_question_unsaved(data_dir: Path) -> None:
    runtime = make_runtime(data_dir, clock=lambda: NOW)
    service = runtime.service
    first = service.handle_turn(
        "U-D2", "t", "please don't save any of this. when should i charge my car tonight"
    )
    assert "without saving them" in first.text and "remember the answers" not in first.text
    second = service.handle_turn("U-D2", "t", "94110")
    assert "not saved (as you asked): your ZIP code is 94110" in second.text
    assert "utility" in second.text  # the next question, not the ZIP again
    service.handle_turn("U-D2", "t", "pge")
    plan = service.handle_turn("U-D2", "t", "its a model 3, need 80 by 7am, e-tou-c")
    assert "kWh" in plan.text and "$" in plan.text  # a charging plan, priced
    assert "your EV is a Tesla Model 3" in plan.text and "not saved (as you asked)" in plan.text
    goodbye = service.handle_turn("U-D2", "t", "thanks bye")
    assert "Saved" not in goodbye.text
    assert service.profiles.get("U-D2") is None or service.profiles.get("U-D2").location is None
    runtime.close()


def test_the_memorizer_never_reads_a_declined_turn(data_dir: Path) -> None:
    from profiles.json_store import JsonFileStore
    from profiles.repository import ProfileRepository
    from profiles.sessions import SessionRepository

    store = JsonFileStore(data_dir)
    profiles, sessions = ProfileRepository(store), SessionRepository(store, max_messages=200, hard_limit=400)
    for turn in range(1, 3):
        sessions.commit_turn(
            "U-D3",
            "s1",
            user_text=f"message {turn}",
            reply_text="ok",
            updates={"declined_through_turn": 2},
        )
    answer = json.dumps({"facts": [fact("location.zip_code", "94110", 0.95, 2)]})
    memorizer = Memorizer(
        model=ScriptedFacts(answer=answer), profiles=profiles, sessions=sessions, config=MemorizerConfig()
    )
    result = memorizer.memorize_session("s1", user_id="U-D3")
    assert result.applied == [] and profiles.get("U-D3") is None
    assert Session.model_fields["declined_through_turn"].default == 0  # (old sessions load as before)


def test_a_heating_comparison_with_their_prices_needs_no_zip(data_dir: Path) -> None:
    runtime = make_runtime(data_dir, clock=lambda: NOW)
    reply = runtime.service.handle_turn(
        "U-D4", "t", "we pay about 4 bucks a gallon for oil and 22 cents a kwh, would a heat pump be cheaper"
    )
    # 29.3 x 0.22 / 2.5 = $2.58; 4.00 x 0.72 / 0.85 = $3.40
    assert "$2.58" in reply.text and "$3.40" in reply.text and "ZIP code" not in reply.text
    runtime.close()


def test_saving_declined_in_other_words_and_not_in_a_sentence_about_things() -> None:
    for text in (
        "hi, dont want you storing anything about me. quick q, is it cheaper to run my pool pump at night on fpl",
        "i dont want you to remember anything abt us, whats peak for sdge",
        "i'd rather you not keep my info",
    ):
        assert understand(text, ReadingContext()).saving_declined, text
        assert understand(text, ReadingContext()).facts == [], text
    assert not understand(
        "we dont keep anything in the garage, its a carport", ReadingContext()
    ).saving_declined


def test_dont_save_anything_alone_is_said_back_not_asked_what_to_forget(data_dir: Path) -> None:
    runtime = make_runtime(data_dir, clock=lambda: NOW)
    service = runtime.service
    reply = service.handle_turn("U-D5", "t", "dont save anything")
    assert "I won't save anything from this conversation" in reply.text and "forget" not in reply.text
    hello = service.handle_turn("U-D5", "t", "hi")
    assert "I won't save anything" not in hello.text and "remember" not in hello.text  # said once
    runtime.close()


def test_a_dummy_it_does_not_point_back_at_the_first_request() -> None:
    """ "…need like 60% by 7:15 tmrw. also is it dumb to run the dryer at night": the "it" of "is it
    dumb to" points at nothing, so the second question may stand on its own (whether it is cut
    off is then the reader's confidence in it)."""
    from advisor.understanding.requests import _POINTS_BACK

    assert _POINTS_BACK.search("is it dumb to run the dryer at night") is None
    assert _POINTS_BACK.search("should i run it then") is not None


def test_what_is_remembered_in_a_declined_conversation_is_said_as_unsaved(data_dir: Path) -> None:
    runtime = make_runtime(data_dir, clock=lambda: NOW)
    service = runtime.service
    service.handle_turn("U-D6", "t", "don't save anything, but I'm in Buffalo NY with a Ford F-150 Lightning")
    reply = service.handle_turn("U-D6", "t", "what do you remember about me")
    assert "not saving anything from this conversation" in reply.text
    assert "Ford F-150 Lightning" in reply.text and "I'll remember" not in reply.text
    runtime.close()


def test_a_fact_saved_or_forgotten_later_leaves_what_was_held_unsaved() -> None:
    from advisor.nodes.intake import _held_facts
    from advisor.understanding.models import StatedFact, Understanding

    held = {"location.zip_code": "94110", "equipment.ev_model": "Nissan Leaf"}
    saved_now = Understanding(
        intent="profile_statement",
        facts=[StatedFact(field="location.zip_code", value="10001", said="10001", words="10001")],
    )
    assert _held_facts(held, saved_now) == {"equipment.ev_model": "Nissan Leaf"}  # the saved ZIP stands
    forgot = Understanding(intent="forget", forget=["equipment.ev_model"])
    assert _held_facts(held, forgot) == {"location.zip_code": "94110"}
    assert _held_facts(held, Understanding(intent="forget", forget_everything=True)) == {}


def test_go_ahead_and_save_my_zip_saves_the_zip_told_unsaved(data_dir: Path) -> None:
    runtime = make_runtime(data_dir, clock=lambda: NOW)
    service = runtime.service
    first = service.handle_turn(
        "U-D7", "t", "dont keep my info pls. im in 30306 georgia power, when should i run the pool pump"
    )
    assert "not saved (as you asked): your ZIP code is 30306 and your utility is Georgia Power" in first.text
    assert "the place you asked about" not in first.text  # (said once, as this conversation's)
    saved = service.handle_turn("U-D7", "t", "actually go ahead and save my zip")
    assert "Saved: your ZIP code is 30306" in saved.text
    profile = service.profiles.get("U-D7")
    assert (
        profile.location.zip_code == "30306" and profile.location.utility_provider is None
    )  # only what they named
    runtime.close()


def test_a_furnaces_efficiency_typed_loosely_is_read() -> None:
    reading = understand(
        "our furnace is gas, 80% efficent, gas is about $1.30 a therm and we pay 17 cents a kwh. "
        "would a cold climate heat pump beat it",
        ReadingContext(),
    )
    assert reading.params.furnace_afue_pct == 80 and reading.params.fuel_price_usd == 1.3
