"""App Home as the user's memory, in process: a real Bolt app whose WebClient talks to the local
Slack Web API (tests/servers/slack.py), requests dispatched as Socket Mode would, facts stated
through real turns of the conversation service so the history holds the user's own words."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from slack_bolt import App
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient

from bot.slack_home import (
    ACTION_CONFIRM,
    ACTION_EDIT,
    ACTION_FORGET,
    EDIT_BLOCK,
    EDIT_CALLBACK,
    EDIT_INPUT,
    edit_modal,
    home_view,
    register_home,
    typed_value,
)
from bot.wiring import AppRuntime
from profiles.models import ProfileNote, UserProfile
from profiles.repository import ProfileRepository
from tests.advisor_helpers import CONFIGURED_PROFILE, make_runtime
from tests.servers.http import Response
from tests.servers.slack import FakeSlack

BOT, APP, TEAM = "xoxb-home-bot-token", "xapp-1-home-app-token", "T0TEST"
U1, U2 = f"{TEAM}-U1", f"{TEAM}-U2"
START = datetime(2026, 1, 10, 12, 0, tzinfo=timezone.utc)
STATED = "We are 3 people at home and I drive a Tesla Model 3"


class MovableClock:
    """The runtime's and the Home tab's clock, moved forward by a test to age the profile."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Home:
    app: App
    slack: FakeSlack
    runtime: AppRuntime
    clock: MovableClock

    @property
    def profiles(self) -> ProfileRepository:
        return self.runtime.service.profiles

    def dispatch(self, body: dict[str, Any]) -> Any:
        response = self.app.dispatch(BoltRequest(body=body, mode="socket_mode"))
        assert response.status == 200, response.body
        return response

    def open_home(self, user: str = "U1") -> dict[str, Any]:
        """Open the Home tab and return the view published for it."""
        before = len(self.slack.calls_to("views.publish"))
        self.dispatch(
            {
                "type": "event_callback",
                "team_id": TEAM,
                "event_id": f"EvHome{before}",
                "event": {"type": "app_home_opened", "user": user, "channel": f"D{user}", "tab": "home"},
            }
        )
        return self.wait_publish(before)

    def click(self, action_id: str, value: str, user: str = "U1") -> Any:
        return self.dispatch(
            {
                "type": "block_actions",
                "user": {"id": user, "team_id": TEAM},
                "team": {"id": TEAM},
                "api_app_id": "A1",
                "trigger_id": "1234.5678.trigger",
                "container": {"type": "view", "view_id": "V1"},
                "view": {"id": "V1", "type": "home", "private_metadata": ""},
                "actions": [
                    {"type": "button", "action_id": action_id, "block_id": f"do:{value}", "value": value}
                ],
            }
        )

    def submit(self, field: str, text: str, user: str = "U1", **metadata: Any) -> dict[str, Any]:
        """Submit the edit form; returns what the ack answered (empty: the modal closes)."""
        response = self.dispatch(
            {
                "type": "view_submission",
                "user": {"id": user, "team_id": TEAM},
                "team": {"id": TEAM},
                "view": {
                    "id": "VMODAL",
                    "type": "modal",
                    "callback_id": EDIT_CALLBACK,
                    "private_metadata": json.dumps({"field": field, **metadata}),
                    "state": {
                        "values": {EDIT_BLOCK: {EDIT_INPUT: {"type": "plain_text_input", "value": text}}}
                    },
                },
            }
        )
        return json.loads(response.body) if response.body else {}

    def wait_publish(self, before: int) -> dict[str, Any]:
        self.slack.wait_for(lambda: len(self.slack.calls_to("views.publish")) > before, timeout=10)
        return self.slack.calls_to("views.publish")[before].params["view"]

    def settle(self) -> None:
        """Wait until every listener dispatched so far has run (one worker: they run in order)."""
        self.open_home()


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Home]:
    clock = MovableClock(START)
    runtime = make_runtime(tmp_path / "data", clock=clock)
    try:
        with FakeSlack(bot_token=BOT, app_token=APP, team_id=TEAM) as slack:
            app = App(
                client=WebClient(token=BOT, base_url=slack.api_url),
                listener_executor=ThreadPoolExecutor(max_workers=1),  # listeners run in dispatch order
            )
            register_home(app, service=runtime.service, staleness_days=90, clock=clock)
            reply = runtime.service.handle_turn(U1, "s1", STATED)
            assert "3 people" in reply.text, reply.text
            yield Home(app, slack, runtime, clock)
    finally:
        runtime.close()


def texts(view: dict[str, Any]) -> str:
    """All the words of a view, as Slack would show them (sections, headers, contexts)."""
    parts = []
    for block in view["blocks"]:
        if "text" in block:
            parts.append(block["text"]["text"])
        parts += [
            element.get("text", "") for element in block.get("elements", []) if element["type"] == "mrkdwn"
        ]
    return "\n".join(parts)


def fact_block(view: dict[str, Any], field: str) -> str:
    (block,) = [b for b in view["blocks"] if b.get("block_id") == f"fact:{field}"]
    return block["text"]["text"]


def buttons(view: dict[str, Any], field: str) -> dict[str, str]:
    (block,) = [b for b in view["blocks"] if b.get("block_id") == f"do:{field}"]
    return {
        element["text"]["text"]: (element["action_id"], element["value"]) for element in block["elements"]
    }


# --- what the Home tab shows --------------------------------------------------------------------


def test_home_shows_each_fact_in_plain_words_with_its_words_and_age(home: Home) -> None:
    home.clock.now = START + timedelta(days=12)
    view = home.open_home()
    assert view["type"] == "home" and home.slack.calls_to("views.publish")[-1].params["user_id"] == "U1"
    people = fact_block(view, "household.occupants")
    assert "there are 3 people in your home" in people and "occupants" not in people
    assert f"> {STATED}" in people and "said 12 days ago (Jan 10, 2026)" in people
    assert "stale" not in texts(view)
    assert "your EV is a Tesla Model 3" in fact_block(view, "equipment.ev_model")
    assert buttons(view, "household.occupants") == {
        "Confirm": (ACTION_CONFIRM, "household.occupants"),
        "Edit": (ACTION_EDIT, "household.occupants"),
        "Forget": (ACTION_FORGET, "household.occupants"),
    }
    assert len(view["blocks"]) <= 100


def test_a_section_older_than_the_threshold_is_marked_stale(home: Home) -> None:
    home.clock.now = START + timedelta(days=200)
    view = home.open_home()
    for field in ("household.occupants", "equipment.ev_model"):
        assert ":warning: *stale*: not confirmed in over 90 days" in fact_block(view, field)
    assert "said 200 days ago" in fact_block(view, "household.occupants")


def test_an_empty_profile_says_how_to_start(home: Home) -> None:
    view = home.open_home(user="U9")
    assert "I don't remember anything about your home yet" in texts(view)
    assert not [b for b in view["blocks"] if b["type"] == "actions"]


def test_an_imported_profile_says_when_it_was_saved_not_said() -> None:
    profile = UserProfile.model_validate(CONFIGURED_PROFILE)
    view = home_view(profile, staleness_days=90, now=START + timedelta(days=100))
    text = texts(view)
    assert "*Household* — _updated 100 days ago_ · :warning: *stale*" in text
    assert "• you work in an office, 9 to 5" in text and "work_schedule" not in text
    schedule = fact_block(view, "household.work_schedule")
    assert "saved 100 days ago (Jan 10, 2026)" in schedule and "no record of your exact words" in schedule
    assert "• your utility is PG&amp;E" in text
    assert not [b for b in view["blocks"] if b.get("block_id") == "fact:location.lat"]  # rides with the ZIP


def test_the_edit_form_offers_a_menu_where_the_model_allows_only_some_values() -> None:
    heating = edit_modal("equipment.heating_type", "heat_pump")["blocks"][0]["element"]
    assert heating["type"] == "static_select"
    assert heating["initial_option"] == {
        "text": {"type": "plain_text", "text": "a heat pump"},
        "value": "heat_pump",
    }
    assert [o["value"] for o in heating["options"]] == ["gas", "electric", "heat_pump"]
    battery = edit_modal("equipment.has_battery_storage", False)["blocks"][0]["element"]
    assert battery["initial_option"]["value"] == "false"
    charger = edit_modal("equipment.ev_charger_kw", 11.5)["blocks"][0]
    assert charger["element"]["initial_value"] == "11.5" and charger["hint"]["text"] == "In kW."
    assert typed_value("equipment.ev_charger_kw", " 7.2 kW ") == "7.2"
    assert typed_value("location.flat_rate_usd_per_kwh", "$0.31") == "0.31"


def test_user_words_are_escaped_and_long_words_clipped() -> None:
    now = START
    repo_words = "<!channel> ping <@U2> & " + "x" * 500
    profile = UserProfile.model_validate(
        {
            "user_id": U1,
            "household": {"occupants": 2, "updated_at": now},
            "history": [
                {
                    "field": "household.occupants",
                    "operation": "set",
                    "new_value": 2,
                    "at": now,
                    "source": {"kind": "user_statement", "text": repo_words},
                }
            ],
            "notes": [ProfileNote(content="n" * 4000, source_session="s1", source_turns=[1]).model_dump()],
            "created_at": now,
            "updated_at": now,
        }
    )
    view = home_view(profile, staleness_days=90, now=now)
    text = fact_block(view, "household.occupants")
    assert "&lt;!channel&gt; ping &lt;@U2&gt; &amp; " in text and "<!channel>" not in text
    assert text.endswith("…") and len(text) < 400
    assert "Notes from earlier conversations" in texts(view)  # notes stay shown, clipped
    assert all(len(b["text"]["text"]) <= 3000 for b in view["blocks"] if "text" in b)


def test_a_view_over_the_block_limit_keeps_whole_facts_and_says_what_is_left_out() -> None:
    profile = UserProfile.model_validate(
        {
            "user_id": U1,
            "household": {"occupants": 2, "work_schedule": "WFH", "updated_at": START},
            "equipment": {"ev_model": "Tesla Model 3", "solar_capacity_kw": 6, "updated_at": START},
        }
    )
    full = home_view(profile, staleness_days=90, now=START)
    small = home_view(profile, staleness_days=90, now=START, max_blocks=8)
    assert len(small["blocks"]) <= 8 < len(full["blocks"])
    assert small["blocks"][-1]["type"] == "context"  # the footer stays
    assert "more fact" in texts(small) and "what do you know about me" in texts(small)
    shown = [b["block_id"][5:] for b in small["blocks"] if b.get("block_id", "").startswith("fact:")]
    assert shown and all(f"do:{field}" in [b.get("block_id") for b in small["blocks"]] for field in shown)


# --- confirm, forget, edit ----------------------------------------------------------------------


def test_confirm_refreshes_the_section_and_is_recorded_as_app_home(
    home: Home, caplog: pytest.LogCaptureFixture
) -> None:
    home.clock.now = START + timedelta(days=200)
    published = len(home.slack.calls_to("views.publish"))
    with caplog.at_level(logging.INFO, logger="profiles.repository"):
        home.click(ACTION_CONFIRM, "household.occupants")
        view = home.wait_publish(published)
    profile = home.profiles.get(U1)
    assert profile.household.updated_at == home.clock.now and profile.household.occupants == 3
    assert profile.equipment.updated_at == START  # only the confirmed fact's section
    assert f"Profile {U1}: confirmed household.occupants (source: app_home)" in caplog.text
    assert "stale" not in fact_block(view, "household.occupants")
    assert "stale" in fact_block(view, "equipment.ev_model")


def test_forget_removes_the_value_records_it_and_republishes(home: Home) -> None:
    published = len(home.slack.calls_to("views.publish"))
    home.click(ACTION_FORGET, "household.occupants")
    view = home.wait_publish(published)
    profile = home.profiles.get(U1)
    assert profile.household.occupants is None and profile.equipment.ev_model == "Tesla Model 3"
    last = profile.history[-1]
    assert (last.field, last.operation, last.old_value, last.source.kind) == (
        "household.occupants",
        "forgotten",
        3,
        "app_home",
    )
    assert "people in your home" not in texts(view) and "Tesla Model 3" in texts(view)


def test_edit_opens_a_prefilled_modal_and_a_bad_value_is_refused_in_the_form(home: Home) -> None:
    home.click(ACTION_EDIT, "household.occupants")
    home.slack.wait_for(lambda: home.slack.calls_to("views.open"), timeout=10)
    (opened,) = home.slack.calls_to("views.open")
    assert opened.params["trigger_id"] == "1234.5678.trigger"
    (field_input,) = opened.params["view"]["blocks"]
    assert field_input["element"]["initial_value"] == "3"
    assert field_input["label"]["text"] == "The number of people in your home"
    history = home.profiles.get(U1).history
    published = len(home.slack.calls_to("views.publish"))

    answer = home.submit("household.occupants", "-4")

    assert answer == {"response_action": "errors", "errors": {EDIT_BLOCK: "It must be between 1 and 50."}}
    profile = home.profiles.get(U1)
    assert profile.household.occupants == 3 and profile.history == history
    assert len(home.slack.calls_to("views.publish")) == published  # nothing changed: nothing re-drawn


def test_edit_with_a_good_value_saves_it_and_republishes(home: Home) -> None:
    home.clock.now = START + timedelta(days=3)
    published = len(home.slack.calls_to("views.publish"))
    answer = home.submit("household.occupants", "4 people")
    assert answer == {}  # the modal closes
    view = home.wait_publish(published)
    profile = home.profiles.get(U1)
    assert profile.household.occupants == 4 and profile.household.updated_at == home.clock.now
    last = profile.history[-1]
    assert (last.operation, last.old_value, last.new_value) == ("updated", 3, 4)
    assert (last.source.kind, last.source.text) == ("app_home", "4 people")
    people = fact_block(view, "household.occupants")
    assert "there are 4 people in your home" in people and "set here in App Home" in people
    assert STATED not in people  # the old words no longer explain the new value


def test_a_new_zip_brings_its_place_and_a_new_city_drops_the_old_coordinates(home: Home) -> None:
    """Edited in App Home as in the chat: a ZIP the table knows brings its town, coordinates and
    time zone; a new city must not keep the old town's coordinates (forecasts and off-peak hours
    would be for the wrong place)."""
    home.runtime.service.handle_turn(U1, "s1", "94110, PG&E EV2-A")
    assert home.submit("location.zip_code", "10001") == {}
    home.settle()
    location = home.profiles.get(U1).location
    assert (location.zip_code, location.city, location.timezone) == ("10001", "New York", "America/New_York")
    assert round(location.lat) == 41 and round(location.lon) == -74
    assert home.submit("location.city", "Boston") == {}
    home.settle()
    location = home.profiles.get(U1).location
    assert (
        location.city == "Boston"
        and (location.zip_code, location.lat, location.lon, location.timezone) == (None,) * 4
    )


def test_an_action_naming_another_users_profile_changes_nothing(home: Home) -> None:
    home.runtime.service.handle_turn(U2, "s9", "We are 5 people at home")
    before = {user: home.profiles.get(user) for user in (U1, U2)}
    for value in (f"{U2}:household.occupants", json.dumps({"user": "U2", "field": "household.occupants"})):
        home.click(ACTION_FORGET, value)
        home.click(ACTION_CONFIRM, value)
    home.settle()
    assert {user: home.profiles.get(user) for user in (U1, U2)} == before
    # The form names its field only; whoever submits edits their own profile.
    assert home.submit("household.occupants", "7", user_id=U2, profile=U2) == {}
    home.settle()
    assert home.profiles.get(U2) == before[U2]
    assert home.profiles.get(U1).household.occupants == 7


def test_forget_in_a_dm_works_and_the_home_no_longer_shows_it(home: Home) -> None:
    reply = home.runtime.service.handle_turn(U1, "s2", "forget my household size")
    assert "Forgotten" in reply.text and "number of people in your home" in reply.text
    view = home.open_home()
    assert "people in your home" not in texts(view) and "Tesla Model 3" in texts(view)
    assert home.profiles.get(U1).history[-1].source.kind == "user_statement"


# --- Slack plumbing -----------------------------------------------------------------------------


def test_a_messages_tab_listener_registered_after_still_gets_its_events(home: Home) -> None:
    """Bolt runs only the first listener that matches; ours matches the home tab only."""
    tabs: list[str] = []
    home.app.event("app_home_opened")(lambda event: tabs.append(event["tab"]))
    published = len(home.slack.calls_to("views.publish"))
    home.dispatch(
        {
            "type": "event_callback",
            "team_id": TEAM,
            "event_id": "EvTab",
            "event": {"type": "app_home_opened", "user": "U1", "channel": "DU1", "tab": "messages"},
        }
    )
    home.open_home()
    assert tabs == ["messages"]
    assert len(home.slack.calls_to("views.publish")) == published + 1


def test_slack_failures_that_hide_a_change_are_logged_as_warnings(
    home: Home, caplog: pytest.LogCaptureFixture
) -> None:
    home.slack.failures["views.publish"].append(Response.json({"ok": False, "error": "not_enabled"}))
    home.slack.failures["views.open"].append(Response.json({"ok": False, "error": "expired_trigger_id"}))
    with caplog.at_level(logging.WARNING, logger="bot.slack_home"):
        home.click(ACTION_EDIT, "household.occupants")
        home.click(ACTION_FORGET, "household.occupants")
        home.slack.wait_for(lambda: home.slack.calls_to("views.publish"), timeout=10)
        home.settle()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("views.open" in w and "expired_trigger_id" in w for w in warnings), warnings
    assert any("views.publish" in w and "not_enabled" in w for w in warnings), warnings
    assert home.profiles.get(U1).household.occupants is None  # the change itself was saved
