"""Issue 11, item 5: appliance verdicts. "Is it worth running the dryer now?" gets "Run it now" or
"Wait until 06:00 — $0.54 a load instead of $0.92", from a sourced table of typical energy per load
and the user's hourly prices — never an EV charging plan and never a bare price table."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest
from langchain_core.messages import HumanMessage

from advisor.energy.appliances import (
    APPLIANCES,
    LOOKED_UP,
    MIN_SAVING_SHARE,
    MIN_SAVING_USD,
    SLEEP_HOURS,
    Appliance,
    appliance_for,
    appliance_verdict,
    run_cost,
)
from advisor.energy.catalog import catalog_tariff
from advisor.energy.tariff import PricePeriod, Tariff, flat_tariff, hourly_prices
from advisor.llm.offline import _analyze, choose_tool
from advisor.llm.payloads import PARAMS_KEY
from advisor.nodes import analyzer as analyzer_node
from advisor.tools.data import build_data_sources
from advisor.tools.toolkit import TurnContext, advise_appliance, build_tools
from advisor.understanding.reader import understand
from config.files import ToolsConfig
from config.settings import Settings
from profiles.models import UserProfile
from tests.advisor_helpers import CONFIGURED_PROFILE, app_config, make_runtime
from tests.servers.ollama import FakeOllama, call, say

LA = "America/Los_Angeles"
ZONE = ZoneInfo(LA)
WEDNESDAY_6PM = datetime(2026, 1, 21, 18, 0, tzinfo=ZONE)  # a weekday, inside EV2-A's 4-9 pm peak


def local(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 1, day, hour, minute, tzinfo=ZONE)


def tou_tariff(prices: dict[str, float], hours: dict[int, str]) -> Tariff:
    """A tariff for literal dollars: every day the same, `hours` maps an hour to a period (else off_peak)."""
    names = list(prices)
    row = [names.index(hours.get(hour, "off_peak")) for hour in range(24)]
    return Tariff(
        utility="Test Power",
        name="TOU-TEST",
        periods=[PricePeriod(index=i, name=name, usd_per_kwh=prices[name]) for i, name in enumerate(names)],
        weekday_schedule=[row] * 12,
        weekend_schedule=[row] * 12,
        source="test",
        as_of=date(2026, 1, 1),
    )


PEAK_4_TO_9 = tou_tariff({"off_peak": 0.25, "peak": 0.50}, {h: "peak" for h in range(16, 21)})
ROW = Appliance(  # 2 kWh over one hour: dollars are easy to check by hand
    key="test",
    name="test appliance",
    kwh=2.0,
    unit="load",
    duration_h=1.0,
    basis="test",
    sources=APPLIANCES["dryer"].sources,
)


# --- the table --------------------------------------------------------------------------------


def test_every_row_has_sources_with_a_url_a_date_and_the_quoted_sentence() -> None:
    assert {"dryer", "dishwasher", "washer", "oven", "pool_pump", "laundry"} <= set(APPLIANCES)
    for row in APPLIANCES.values():
        assert row.kwh > 0 and row.duration_h > 0 and row.unit in ("load", "cycle", "hour")
        assert row.sources, row.key
        assert any(source.figure != "duration" for source in row.sources), row.key  # the energy is sourced
        for source in row.sources:
            assert re.match(r"https?://[\w.-]+\.\w+/", source.url), source.url
            assert isinstance(source.date, date) and source.date <= LOOKED_UP
            assert source.title and len(source.quote) > 20


def test_each_figure_is_the_arithmetic_on_its_quoted_numbers() -> None:
    dryer, dishwasher, washer = APPLIANCES["dryer"], APPLIANCES["dishwasher"], APPLIANCES["washer"]
    oven, pool, laundry = APPLIANCES["oven"], APPLIANCES["pool_pump"], APPLIANCES["laundry"]
    assert all(number in dryer.sources[0].quote for number in ("3.93", "8.45 lbs", "80 minutes"))
    assert dryer.kwh == round(8.45 / 3.93, 2) == 2.15 and dryer.duration_h == round(80 / 60, 2)
    assert "270 kWh/year" in dishwasher.sources[0].quote and "215 cycles" in dishwasher.sources[0].quote
    assert dishwasher.kwh == round(270 / 215, 2) == 1.26
    assert "2- to 3-hour" in dishwasher.sources[1].quote and dishwasher.duration_h == 2
    assert "0.23 kWh/load" in washer.sources[0].quote and washer.kwh == 0.23
    assert "60-85 minutes" in washer.sources[1].quote and washer.duration_h == 1
    assert "uses 2.0 kWh" in oven.sources[0].quote and oven.kwh == 2.0 and oven.unit == "hour"
    assert "10.5 kWh per day" in pool.sources[0].quote and "4½–6 hours" in pool.sources[0].quote
    assert pool.kwh == round(10.5 / 6, 2) and pool.run_kwh == pytest.approx(10.5)
    assert laundry.run_kwh == pytest.approx(washer.kwh + dryer.kwh)
    assert laundry.duration_h == pytest.approx(washer.duration_h + dryer.duration_h)


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("dryer", "dryer"),
        ("the clothes dryer", "dryer"),
        ("washing machine", "washer"),
        ("dish washer", "dishwasher"),
        ("pool pump", "pool_pump"),
        ("laundry", "laundry"),
        ("Oven", "oven"),
    ],
)
def test_appliances_are_found_by_what_people_call_them(said: str, key: str) -> None:
    assert appliance_for(said) is APPLIANCES[key]


@pytest.mark.parametrize("said", ["water heater", "space heater", "ac", "hot tub", "heat pump", "", None])
def test_an_appliance_without_a_sourced_figure_is_not_guessed(said: str | None) -> None:
    assert appliance_for(said) is None


# --- the verdict ------------------------------------------------------------------------------


def test_a_dryer_at_6pm_on_a_weekday_on_ev2a_says_wait() -> None:
    tariff = catalog_tariff("PG&E", "EV2-A")
    verdict = appliance_verdict(APPLIANCES["dryer"], tariff, WEDNESDAY_6PM, LA)
    assert tariff.period_at(WEDNESDAY_6PM).name == "peak"
    assert verdict.verdict == "wait" and verdict.start > WEDNESDAY_6PM
    assert verdict.cost_then_usd < verdict.cost_now_usd
    assert verdict.saving_usd == pytest.approx(verdict.cost_now_usd - verdict.cost_then_usd)
    assert (
        verdict.saving_usd >= MIN_SAVING_USD and verdict.saving_usd >= MIN_SAVING_SHARE * verdict.cost_now_usd
    )
    run = hourly_prices(tariff, verdict.start, 2, LA)
    assert all(slot.period != "peak" for slot in run if slot.start < verdict.end)
    # cheapest overnight, but a dryer is not run while people sleep: the skipped start is named
    assert not SLEEP_HOURS[1] <= verdict.skipped_start.hour < SLEEP_HOURS[0]
    assert SLEEP_HOURS[1] <= verdict.start.hour < SLEEP_HOURS[0]
    assert verdict.end <= verdict.deadline == WEDNESDAY_6PM + timedelta(hours=24)
    assert "2.15 kWh" in verdict.assumptions[0] and "ENERGY STAR" in verdict.assumptions[0]


def test_literal_dollars_on_an_explicit_tariff() -> None:
    verdict = appliance_verdict(ROW, PEAK_4_TO_9, WEDNESDAY_6PM, LA)
    assert verdict.verdict == "wait" and verdict.start == local(21, 21)
    assert (verdict.cost_now_usd, verdict.cost_then_usd, verdict.saving_usd) == (1.00, 0.50, 0.50)
    assert verdict.periods_now == ["peak"] and verdict.periods_then == ["off-peak"]


def test_a_run_that_straddles_the_peak_is_priced_by_the_minute() -> None:
    prices = hourly_prices(PEAK_4_TO_9, local(21, 20), 3, LA)
    cost, periods = run_cost(prices, local(21, 20, 30), ROW.run_phases)  # half in peak, half off
    assert cost == pytest.approx(1.0 * 0.50 + 1.0 * 0.25) and periods == ["peak", "off-peak"]


def test_a_flat_price_says_run_it_whenever_with_the_cost_per_load() -> None:
    flat = flat_tariff(
        0.31, utility="Eversource", name="flat", source="you", as_of=date(2026, 1, 1), illustrative=False
    )
    verdict = appliance_verdict(APPLIANCES["dryer"], flat, WEDNESDAY_6PM, LA)
    assert verdict.verdict == "run_now" and verdict.flat and verdict.start == WEDNESDAY_6PM
    assert verdict.cost_now_usd == round(2.15 * 0.31, 2) and verdict.saving_usd == 0  # shown to the cent


def test_a_small_saving_is_not_worth_waiting_for() -> None:
    shallow = tou_tariff({"off_peak": 0.45, "peak": 0.50}, {h: "peak" for h in range(16, 21)})
    verdict = appliance_verdict(APPLIANCES["washer"], shallow, WEDNESDAY_6PM, LA)  # 0.23 kWh: saves ~1 cent
    assert verdict.verdict == "run_now" and verdict.start == WEDNESDAY_6PM
    assert 0 < verdict.saving_usd < MIN_SAVING_USD and verdict.best_start == local(21, 21)


def test_the_deadline_is_respected() -> None:
    dishwasher = APPLIANCES["dishwasher"]  # a 2-hour cycle
    by_10pm = appliance_verdict(
        ROW.model_copy(update={"duration_h": 2.0}), PEAK_4_TO_9, WEDNESDAY_6PM, LA, deadline=local(21, 22)
    )
    assert by_10pm.verdict == "wait" and by_10pm.start == local(21, 20) and by_10pm.end == local(21, 22)
    too_soon = appliance_verdict(dishwasher, PEAK_4_TO_9, WEDNESDAY_6PM, LA, deadline=local(21, 19))
    assert too_soon.verdict == "run_now" and not too_soon.fits_deadline and too_soon.start == WEDNESDAY_6PM
    overnight = appliance_verdict(dishwasher, PEAK_4_TO_9, WEDNESDAY_6PM, LA, deadline=local(22, 7))
    assert overnight.verdict == "wait" and overnight.end <= local(22, 7)


def test_dryers_are_not_scheduled_while_people_sleep_but_dishwashers_are() -> None:
    night_only = tou_tariff(
        {"off_peak": 0.20, "peak": 0.50}, {h: "peak" for h in range(5, 24)}
    )  # cheap 00-05
    dryer = appliance_verdict(APPLIANCES["dryer"], night_only, WEDNESDAY_6PM, LA)
    dishwasher = appliance_verdict(APPLIANCES["dishwasher"], night_only, WEDNESDAY_6PM, LA)
    assert dishwasher.verdict == "wait" and dishwasher.start == local(22, 0)
    assert dryer.verdict == "run_now" and dryer.skipped_start == local(22, 0)  # nothing cheaper while awake


def test_at_night_a_dryer_waits_for_the_morning_even_when_now_is_cheap() -> None:
    """23:40, off-peak now: "run it now" would be advice to run a dryer unattended. The verdict is
    to wait for the first awake hour, said as the night (no negative "saving"); a dishwasher may
    run now."""
    late = local(21, 23, 40)
    dryer = appliance_verdict(APPLIANCES["dryer"], PEAK_4_TO_9, late, LA)
    assert dryer.verdict == "wait" and dryer.start == local(22, 6)
    assert any("night hours now" in note for note in dryer.notes)
    dishwasher = appliance_verdict(APPLIANCES["dishwasher"], PEAK_4_TO_9, late, LA)
    assert dishwasher.verdict == "run_now" and dishwasher.start == late


def test_a_day_ahead_question_is_answered_for_that_day() -> None:
    verdict = appliance_verdict(
        APPLIANCES["dryer"], PEAK_4_TO_9, WEDNESDAY_6PM, LA, earliest=local(22, 0), deadline=local(23, 0)
    )
    assert verdict.verdict == "wait" and verdict.start == local(22, 6)  # first awake off-peak hour


def test_an_oven_is_for_this_evening_not_tomorrow_morning() -> None:
    verdict = appliance_verdict(APPLIANCES["oven"], PEAK_4_TO_9, WEDNESDAY_6PM, LA)
    assert verdict.deadline == local(21, 23) and verdict.start == local(21, 21)


def test_a_fall_back_night_is_priced_in_real_hours() -> None:
    before = datetime(2026, 10, 31, 23, 30, tzinfo=ZONE)  # clocks go back at 02:00 on 1 November
    verdict = appliance_verdict(APPLIANCES["pool_pump"], PEAK_4_TO_9, before, LA)
    assert verdict.deadline.timestamp() - before.timestamp() == 24 * 3600
    assert verdict.verdict == "run_now" and verdict.cost_now_usd == round(10.5 * 0.25, 2)


# --- the tool ---------------------------------------------------------------------------------


def sources():
    return build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), httpx.Client())


def context(**location) -> TurnContext:
    profile = UserProfile.model_validate(
        {"user_id": "u", "location": {"timezone": LA, **location}, "equipment": {"ev_model": "Tesla Model 3"}}
    )
    return TurnContext(user_id="u", profile=profile, now=WEDNESDAY_6PM.astimezone(timezone.utc))


def test_the_tool_says_the_verdict_first_with_costs_periods_source_and_tariff_label() -> None:
    observation = advise_appliance(
        sources(), context(utility_provider="PG&E", rate_schedule="EV2-A"), "dryer"
    )
    assert observation.ok and observation.tool == "appliance_advice"
    assert re.match(
        r"Wait until \d\d:\d\d tomorrow — your dryer costs about \$\d+\.\d\d for a load then ",
        observation.summary,
    )
    assert "instead of $" in observation.summary and "now (" in observation.summary
    assert "NFPA" in observation.summary  # why the cheaper night start was left out
    assert "ENERGY STAR" in observation.assumptions[0] and "energystar.gov" in observation.assumptions[0]
    assert "PG&E" in observation.source or "Pacific Gas" in observation.source
    assert any("illustrative" in warning for warning in observation.warnings)  # the catalog's label
    assert observation.facts["verdict"] == "wait" and "charg" not in observation.summary.lower()


def test_the_tool_with_a_flat_price_and_with_an_appliance_it_has_no_figure_for() -> None:
    flat = advise_appliance(
        sources(), context(utility_provider="Eversource", flat_rate_usd_per_kwh=0.31), "dryer"
    )
    assert flat.summary.startswith("Run it whenever suits you — every hour costs the same ($0.31/kWh)")
    assert "$0.67 for a load" in flat.summary  # 2.15 kWh x $0.31
    unknown = advise_appliance(
        sources(), context(utility_provider="PG&E", rate_schedule="EV2-A"), "water heater"
    )
    assert unknown.ok and unknown.summary.startswith(
        "I don't have a sourced typical energy figure for a water heater"
    )
    assert "cheapest hours in the next 24 h" in unknown.summary


def test_the_tool_takes_a_deadline() -> None:
    observation = advise_appliance(
        sources(), context(utility_provider="PG&E", rate_schedule="EV2-A"), "dishwasher", ready_by_hour=22
    )
    deadline = datetime.fromisoformat(observation.facts["deadline"])
    start = datetime.fromisoformat(observation.facts["start"])
    assert deadline == local(21, 22) and start + timedelta(hours=2) <= deadline
    assert "before 22:00" in observation.summary


def test_the_tool_is_registered() -> None:
    assert "appliance_advice" in [tool.name for tool in build_tools(sources())]


# --- routing ----------------------------------------------------------------------------------

QUESTIONS = {
    "When should I run the dishwasher?": "dishwasher",
    "is it worth running the dryer now?": "dryer",
    "should I do laundry now or later": "laundry",
}
ALL_TOOLS = ["plan_ev_charging", "compare_charging_costs", "get_tariff_prices", "appliance_advice"]


def analyzer_call(text: str, available: list[str]) -> tuple[str, dict]:
    reading = understand(text)
    message = HumanMessage(text, additional_kwargs={PARAMS_KEY: reading.params.filled()})
    call = _analyze([message], available).tool_calls[0]
    return call["name"], call["args"]


@pytest.mark.parametrize(("text", "appliance"), QUESTIONS.items())
def test_appliance_questions_reach_the_tool_offline(text: str, appliance: str) -> None:
    reading = understand(text)
    assert (
        reading.intent == "live_data" and reading.topic == "rates" and reading.params.appliance == appliance
    )
    assert analyzer_call(text, ALL_TOOLS) == ("appliance_advice", {"appliance": appliance})
    assert choose_tool(reading.params.filled(), ALL_TOOLS) == "appliance_advice"


def test_a_deadline_goes_to_the_appliance_not_to_a_charging_plan() -> None:
    assert analyzer_call("should I run the dishwasher before 10pm?", ALL_TOOLS) == (
        "appliance_advice",
        {"appliance": "dishwasher", "ready_by_hour": 22},
    )
    assert analyzer_call("can the dryer wait until tomorrow morning?", ALL_TOOLS)[0] == "appliance_advice"
    assert analyzer_call(
        "I need the laundry done by tomorrow morning, when should I start it?", ALL_TOOLS
    ) == (
        "appliance_advice",
        {"appliance": "laundry", "ready_by_hour": 7, "day": "tomorrow"},
    )


def test_an_ev_question_does_not_reach_the_appliance_tool() -> None:
    assert analyzer_call("When should I charge my EV?", ALL_TOOLS)[0] == "plan_ev_charging"
    assert analyzer_call("charge my car to 80% by 7am", ALL_TOOLS)[0] == "plan_ev_charging"
    assert choose_tool(understand("is it cheaper to charge the car now?").params.filled(), ALL_TOOLS) == (
        "plan_ev_charging"
    )


# --- end to end, offline ----------------------------------------------------------------------

NOW = WEDNESDAY_6PM.astimezone(timezone.utc)
PROFILE = "My ZIP is 94102 and I'm on PG&E's EV2-A plan. I drive a Tesla Model 3 with a 57.5 kWh battery."


def test_the_rates_and_home_analyzers_offer_the_appliance_tool() -> None:
    assert "appliance_advice" in analyzer_node.TOPIC_TOOLS["rates"]
    assert "appliance_advice" in analyzer_node.TOPIC_TOOLS["home"]


def test_a_turn_through_the_graph_gets_a_verdict_not_a_charging_plan(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=lambda: NOW).service
    service.handle_turn("T1-A", "t", PROFILE)
    reply = service.handle_turn("T1-A", "t", "is it worth running the dryer now?")
    assert reply.intent == "live_data" and reply.asked_for is None
    assert re.match(
        r"(Wait until \d\d:\d\d( tomorrow)?|Run it now) — your dryer costs about \$\d", reply.text
    ), reply.text
    assert "a load" in reply.text and "ENERGY STAR" in reply.text
    assert "charg" not in reply.text.lower() and "Needs " not in reply.text  # no EV plan
    assert "per kWh. Now (" not in reply.text  # not the bare price table


def test_three_laundry_questions_get_three_different_answers(data_dir: Path) -> None:
    service = make_runtime(data_dir, clock=lambda: NOW).service
    service.handle_turn("T1-B", "t", PROFILE)
    replies = [
        service.handle_turn("T1-B", f"t{n}", text).text
        for n, text in enumerate(
            [
                "is it worth running the dryer now?",
                "should I run the washer now?",
                "should I do laundry now or later",
            ]
        )
    ]
    assert len(set(replies)) == 3, replies
    assert "your dryer" in replies[0] and "your washer" in replies[1] and "your laundry" in replies[2]


def test_over_ollama_the_model_is_offered_the_appliance_tool_and_its_verdict_reaches_the_answer(
    data_dir: Path,
) -> None:
    with FakeOllama(["llama3.1:8b"]) as server:
        server.script = [call("appliance_advice", appliance="dryer"), say("Wait until 06:00 tomorrow.")]
        runtime = make_runtime(
            data_dir, ollama_url=server.url, config=app_config(provider="ollama"), clock=lambda: NOW
        )
        runtime.advisor.profiles.import_profile(CONFIGURED_PROFILE)
        reply = runtime.service.handle_turn("T1-U1", "t", "is it worth running the dryer now?")
    assert reply.text == "Wait until 06:00 tomorrow." and reply.topic == "rates"
    analyzer, recommend = server.chat_requests
    assert "appliance_advice" in [tool["function"]["name"] for tool in analyzer["tools"]]
    assert (
        "appliance=dryer" in analyzer["messages"][-1]["content"]
    )  # the understanding's appliance, as an argument
    prompt = recommend["messages"][-1]["content"]
    assert (
        "FACTS (appliance_advice;" in prompt
        and "Wait until 06:00 tomorrow — your dryer costs about $" in prompt
    )
    assert "ENERGY STAR" in prompt


def test_the_saving_is_the_difference_of_the_costs_shown() -> None:
    """A user test saw '$0.54 ... instead of $0.92 now, saving $0.39': the saving must be the
    difference of the two figures the reply shows."""
    tariff = catalog_tariff("PG&E", "EV2-A")
    for name in ("dryer", "dishwasher", "pool_pump"):
        verdict = appliance_verdict(APPLIANCES[name], tariff, WEDNESDAY_6PM, LA)
        assert verdict.saving_usd == round(verdict.cost_now_usd - verdict.cost_then_usd, 2)
        assert verdict.cost_now_usd == round(verdict.cost_now_usd, 2)


# --- "is it dumb to run the dryer at 5pm": a start they name -----------------------------------


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        ("is it dumb to run the dishwasher at 5pm", 17),
        ("ok to start the dryer at 7 tonight?", 19),
        ("run dishwasher at 10pm?", 22),
        ("can i do laundry at 3", 15),
    ],
)
def test_a_start_time_for_an_appliance_is_no_deadline(text: str, hour: int) -> None:
    params = understand(text).params
    assert params.start_hour == hour and params.ready_by_hour is None and params.appliance


def test_a_named_start_is_priced_against_the_cheapest_start() -> None:
    """An independent figure: the dryer's 2.15 kWh between 17:00 and 18:20 all falls in EV2-A's peak,
    so a run then costs 2.15 kWh times the peak price."""
    la = ZoneInfo("America/Los_Angeles")
    profile = UserProfile.model_validate(
        {
            "user_id": "u",
            "location": {
                "timezone": "America/Los_Angeles",
                "utility_provider": "PG&E",
                "rate_schedule": "EV2-A",
            },
        }
    )
    context = TurnContext(
        user_id="u", profile=profile, now=datetime(2026, 1, 21, 9, tzinfo=la).astimezone(timezone.utc)
    )
    with httpx.Client() as client:
        data = build_data_sources(Settings(_env_file=None), ToolsConfig(mode="mock"), client)
        result = advise_appliance(data, context, "dryer", start_hour=17)
        tariff = data.resolve_tariff(profile).tariff
    peak = hourly_prices(tariff, datetime(2026, 1, 21, 17, tzinfo=la), 1, "America/Los_Angeles")[
        0
    ].usd_per_kwh
    assert result.ok and result.facts["proposed_start"].startswith("2026-01-21T17:00")
    assert result.facts["cost_at_proposed_usd"] == pytest.approx(
        result.facts["kwh_per_run"] * peak, abs=0.006
    )
    difference = result.facts["cost_at_proposed_usd"] - result.facts["best_cost_usd"]
    assert (
        difference > 0.1
        and f"${difference:.2f} less" in result.summary
        and "Started at 17:00" in result.summary
    )
    assert not advise_appliance(data, context, "dryer", start_hour=24).ok


def test_a_flat_price_asked_about_tomorrow_names_no_cheapest_start_and_no_night_it_left_out() -> None:
    """From trying it as a ComEd customer: "The cheapest start then is 00:00 tomorrow … but I left out
    the night hours" — on one price all day no start is cheaper, and 00:00 is asleep."""
    flat = advise_appliance(
        sources(), context(utility_provider="Eversource", flat_rate_usd_per_kwh=0.31), "dryer", day="tomorrow"
    )
    assert flat.summary.startswith(
        "Run it whenever suits you — every hour tomorrow costs the same ($0.31/kWh)"
    )
    assert (
        "00:00" not in flat.summary
        and "left out" not in flat.summary
        and "cheapest start" not in flat.summary
    )
    assert "while someone is awake" in flat.summary  # a dryer is watched while it runs
